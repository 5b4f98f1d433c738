//! Optional LLM synthesis of an answer: when an OpenAI-compatible chat-completions endpoint
//! is configured (`MAPSCOPE_LLM_URL`, `MAPSCOPE_LLM_MODEL`, optional `MAPSCOPE_LLM_API_KEY`
//! and `MAPSCOPE_LLM_TIMEOUT_MS`), the answer to a question is written by that model from the
//! top sources search found, citing them as `path:start-end`. Any failure is an [`LlmError`]
//! with a stable code; the caller then keeps the extractive answer (`engine::answer`).
//!
//! Network I/O: one blocking HTTP POST per call (ureq). Plain `http://` by default: the
//! default build carries no TLS stack, and a local llama.cpp, ollama, vLLM or LM Studio server
//! speaks plain HTTP; `https://` needs the `tls` cargo feature (rustls). The whole call, connect to last
//! byte, is bounded by the configured timeout. No thread of its own: it runs on the caller's
//! thread (the CLI's main thread, an HTTP worker, the MCP main thread), never on the
//! live-index service's engine thread, so a slow model never holds the index. The TUI does
//! not call it: a model per keystroke would be slow and costly.
//!
//! The model's text is data like repository text: it is passed through
//! `engine::base::text::sanitize_block` and capped before it reaches any output.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::engine::answer::AnswerStyle;
use crate::engine::base::text::sanitize_block;

/// The base URL of an OpenAI-compatible API (`http://127.0.0.1:8080/v1`), or the full
/// `…/chat/completions` endpoint. Unset or empty: no synthesis, nothing changes.
pub const URL_VAR: &str = "MAPSCOPE_LLM_URL";
/// The model name sent with each request (required with a URL).
pub const MODEL_VAR: &str = "MAPSCOPE_LLM_MODEL";
/// Sent as `Authorization: Bearer …` when set.
pub const API_KEY_VAR: &str = "MAPSCOPE_LLM_API_KEY";
/// The hard timeout of one call in milliseconds (default [`DEFAULT_TIMEOUT`]).
pub const TIMEOUT_VAR: &str = "MAPSCOPE_LLM_TIMEOUT_MS";

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
/// The longest timeout accepted: an answer is waited for by a person or an agent.
pub const MAX_TIMEOUT: Duration = Duration::from_mins(5);
/// The largest endpoint response read; a chat completion is a few kilobytes.
const MAX_RESPONSE_BYTES: u64 = 1024 * 1024;
/// The longest answer kept (characters); the rest is cut with an ellipsis.
const MAX_ANSWER_CHARS: usize = 8000;
/// The longest excerpt of one source sent to the model (characters).
const MAX_EXCERPT_CHARS: usize = 1500;

/// Why no synthesized answer: the caller falls back to the extractive one and reports
/// [`LlmError::code`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The environment names an endpoint but something about it is unusable.
    #[error("{0}")]
    Config(String),
    #[error("no answer from the model within {0} ms")]
    Timeout(u128),
    #[error("cannot reach {url}: {why}")]
    Unreachable { url: String, why: String },
    #[error("the endpoint answered HTTP {0}")]
    Status(u16),
    #[error("the endpoint's answer is not a chat completion: {0}")]
    BadResponse(String),
    /// Search found nothing to cite, so no model was asked.
    #[error("nothing matched the question, so no model was asked")]
    NoSources,
}

impl LlmError {
    /// The stable code of each failure (`diagnostics.llm_error`).
    pub fn code(&self) -> &'static str {
        match self {
            LlmError::Config(_) => "LLM_CONFIG",
            LlmError::Timeout(_) => "LLM_TIMEOUT",
            LlmError::Unreachable { .. } => "LLM_UNREACHABLE",
            LlmError::Status(_) => "LLM_HTTP_STATUS",
            LlmError::BadResponse(_) => "LLM_BAD_RESPONSE",
            LlmError::NoSources => "LLM_NO_SOURCES",
        }
    }
}

/// An endpoint to ask. The API key is never printed (`Debug` hides it).
#[derive(Clone, PartialEq, Eq)]
pub struct LlmConfig {
    /// The chat-completions endpoint.
    pub endpoint: String,
    pub model: String,
    api_key: Option<String>,
    pub timeout: Duration,
}

impl std::fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "(set)"))
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The configuration a front door reads once at start: `None` when no endpoint is named
/// (nothing changes), otherwise the endpoint or why it cannot be used (reported with each
/// answer, which falls back to the extractive one).
pub type LlmSetting = Option<Result<LlmConfig, LlmError>>;

impl LlmConfig {
    /// From the process environment.
    pub fn from_env() -> LlmSetting {
        LlmConfig::from_vars(|key| std::env::var(key).ok())
    }

    /// From `var` (a lookup of environment variables, so tests need not set the process's).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> LlmSetting {
        let nonempty = |key: &str| {
            var(key)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let url = nonempty(URL_VAR)?;
        Some(LlmConfig::parse(
            &url,
            nonempty(MODEL_VAR),
            nonempty(API_KEY_VAR),
            nonempty(TIMEOUT_VAR),
        ))
    }

    fn parse(
        url: &str,
        model: Option<String>,
        api_key: Option<String>,
        timeout_ms: Option<String>,
    ) -> Result<LlmConfig, LlmError> {
        let shown = sanitize_block(url).replace('\n', " ");
        let https = url.starts_with("https://");
        if https && !cfg!(feature = "tls") {
            return Err(LlmError::Config(format!(
                "{URL_VAR} `{shown}` is https, and this build of mapscope has no TLS (build \
                 it with `--features tls`): use a local http:// endpoint (llama.cpp, ollama, \
                 vLLM) or a local proxy"
            )));
        }
        let scheme = if https { "https://" } else { "http://" };
        if !url.starts_with(scheme) || url.len() <= scheme.len() {
            return Err(LlmError::Config(format!(
                "{URL_VAR} `{shown}` is not an http:// URL"
            )));
        }
        let base = url.trim_end_matches('/');
        let endpoint = if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        };
        let model = model
            .ok_or_else(|| LlmError::Config(format!("{URL_VAR} is set but {MODEL_VAR} is not")))?;
        let timeout = match timeout_ms {
            None => DEFAULT_TIMEOUT,
            Some(ms) => ms
                .parse::<u64>()
                .ok()
                .map(Duration::from_millis)
                .filter(|d| !d.is_zero() && *d <= MAX_TIMEOUT)
                .ok_or_else(|| {
                    LlmError::Config(format!(
                        "{TIMEOUT_VAR} must be milliseconds from 1 to {} (got `{}`)",
                        MAX_TIMEOUT.as_millis(),
                        sanitize_block(&ms).replace('\n', " ")
                    ))
                })?,
        };
        Ok(LlmConfig {
            endpoint,
            model,
            api_key,
            timeout,
        })
    }
}

/// One source the model may cite.
#[derive(Debug, Clone)]
pub struct CitedSource<'a> {
    pub path: &'a str,
    pub lines: (u64, u64),
    /// `definition`, `call`, `text`, …
    pub evidence: &'a str,
    pub symbol: Option<&'a str>,
    /// `project` or an extra source's name.
    pub source: &'a str,
    pub excerpt: &'a str,
}

impl CitedSource<'_> {
    /// How the answer cites it: `path:start-end` (`path:line` for one line).
    pub fn citation(&self) -> String {
        if self.lines.0 == self.lines.1 {
            format!("{}:{}", self.path, self.lines.0)
        } else {
            format!("{}:{}-{}", self.path, self.lines.0, self.lines.1)
        }
    }
}

/// What the model is asked.
#[derive(Debug, Clone)]
pub struct AnswerRequest<'a> {
    pub question: &'a str,
    pub style: AnswerStyle,
    /// The extractive answer, given as a hint (who uses what comes from the graph, which
    /// the excerpts do not show).
    pub extractive: &'a str,
    pub sources: Vec<CitedSource<'a>>,
}

/// A synthesized answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Synthesis {
    /// The model's answer, sanitized, with the sources cited.
    pub answer: String,
    /// The model that answered (as the endpoint names it, else as configured).
    pub model: String,
    pub latency_ms: f64,
}

/// Asks the configured model to answer `request` from its evidence.
pub fn synthesize(config: &LlmConfig, request: &AnswerRequest) -> Result<Synthesis, LlmError> {
    let started = Instant::now();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(config.timeout))
        .http_status_as_error(false)
        // The endpoint is named explicitly; an environment proxy is not asked to reach it.
        .proxy(None)
        .max_redirects(0)
        .build()
        .into();
    let body = request_body(config, request).to_string();
    let mut call = agent
        .post(&config.endpoint)
        .header("Content-Type", "application/json");
    if let Some(key) = &config.api_key {
        call = call.header("Authorization", format!("Bearer {key}"));
    }
    let network = |e: ureq::Error| match e {
        ureq::Error::Timeout(_) => LlmError::Timeout(config.timeout.as_millis()),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            LlmError::Timeout(config.timeout.as_millis())
        }
        ureq::Error::BodyExceedsLimit(n) => LlmError::BadResponse(format!("more than {n} bytes")),
        other => LlmError::Unreachable {
            url: config.endpoint.clone(),
            why: sanitize_block(&other.to_string()).replace('\n', " "),
        },
    };
    let mut response = call.send(body.as_str()).map_err(network)?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(LlmError::Status(status));
    }
    let text = response
        .body_mut()
        .with_config()
        .limit(MAX_RESPONSE_BYTES)
        .read_to_string()
        .map_err(network)?;
    let (content, model) = completion_text(&text)?;
    Ok(Synthesis {
        answer: cited(&clean(&content), &request.sources),
        model: model.unwrap_or_else(|| config.model.clone()),
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

/// The chat-completions request: a system prompt that asks for cited answers from the
/// sources only, and the question with its numbered sources.
fn request_body(config: &LlmConfig, request: &AnswerRequest) -> Value {
    let (length, max_tokens) = match request.style {
        AnswerStyle::Concise => ("one or two sentences", 200),
        AnswerStyle::Default => ("a short paragraph", 500),
        AnswerStyle::Detailed => ("a detailed answer, several paragraphs if needed", 1200),
    };
    let system = format!(
        "You answer questions about a code repository using only the numbered sources \
         given. Cite every claim with the source's location exactly as written, in \
         backticks, like `src/app.ts:10-24`. If the sources do not answer the question, say \
         so and name the closest ones. Answer in {length}, in plain text."
    );
    let mut user = format!("Question: {}\n\n", request.question);
    if !request.extractive.is_empty() {
        let _ = write!(
            user,
            "What the index says (definitions and the files that use them): {}\n\n",
            request.extractive
        );
    }
    user.push_str("Sources:\n");
    for (i, e) in request.sources.iter().enumerate() {
        let symbol = e.symbol.map(|s| format!(" `{s}`")).unwrap_or_default();
        let from = if e.source == "project" {
            String::new()
        } else {
            format!(" (from source `{}`)", e.source)
        };
        let _ = write!(
            user,
            "[{}] `{}` {}{symbol}{from}\n```\n{}\n```\n",
            i + 1,
            e.citation(),
            e.evidence,
            truncate(e.excerpt, MAX_EXCERPT_CHARS)
        );
    }
    json!({
        "model": config.model,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ],
        "temperature": 0.1,
        "max_tokens": max_tokens,
        "stream": false,
    })
}

/// The answer text (`choices[0].message.content`) and the model that wrote it.
fn completion_text(body: &str) -> Result<(String, Option<String>), LlmError> {
    let value: Value =
        serde_json::from_str(body).map_err(|e| LlmError::BadResponse(format!("not JSON ({e})")))?;
    let content = value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .ok_or_else(|| LlmError::BadResponse("no `choices[0].message.content` text".into()))?;
    let model = value
        .get("model")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(|m| sanitize_block(m).replace('\n', " "));
    Ok((content.to_string(), model))
}

/// The model's text made safe for a terminal (control characters shown, CRLF made LF) and
/// capped.
fn clean(content: &str) -> String {
    let unified = content.replace("\r\n", "\n");
    truncate(&sanitize_block(&unified), MAX_ANSWER_CHARS)
}

/// The answer, with the sources listed after it when it cites none of them: every
/// synthesized answer names where it comes from.
fn cited(answer: &str, evidence: &[CitedSource]) -> String {
    if evidence.is_empty() || evidence.iter().any(|e| answer.contains(e.path)) {
        return answer.to_string();
    }
    let list: Vec<String> = evidence
        .iter()
        .map(|e| format!("`{}`", sanitize_block(&e.citation()).replace('\n', " ")))
        .collect();
    format!("{answer}\n\nSources: {}.", list.join(", "))
}

fn truncate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        None => s.to_string(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn config(url: &str, timeout_ms: u64) -> LlmConfig {
        LlmConfig::from_vars(|k| match k {
            URL_VAR => Some(url.to_string()),
            MODEL_VAR => Some("test-model".into()),
            API_KEY_VAR => Some("sk-test".into()),
            TIMEOUT_VAR => Some(timeout_ms.to_string()),
            _ => None,
        })
        .expect("configured")
        .expect("valid")
    }

    fn request() -> AnswerRequest<'static> {
        AnswerRequest {
            question: "where is verify defined",
            style: AnswerStyle::Default,
            extractive: "`verify` is defined in `src/jwt.ts:96–188` (function).",
            sources: vec![
                CitedSource {
                    path: "src/jwt.ts",
                    lines: (96, 188),
                    evidence: "definition",
                    symbol: Some("verify"),
                    source: "project",
                    excerpt: "export function verify(token: string) {",
                },
                CitedSource {
                    path: "auth.ts",
                    lines: (3, 3),
                    evidence: "call",
                    symbol: Some("verify"),
                    source: "examples",
                    excerpt: "verify(t)",
                },
            ],
        }
    }

    /// What the test server does with the one request it takes.
    enum Play {
        Answer(u16, &'static str),
        /// Takes the request and never answers (until the test ends).
        Silent,
    }

    /// A local endpoint on a free port that handles one request as told and hands the test
    /// what it received (headers, body).
    fn endpoint(play: Play) -> (String, mpsc::Receiver<(Vec<String>, String)>) {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind");
        let port = server.server_addr().to_ip().expect("ip").port();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let Ok(mut request) = server.recv() else {
                return;
            };
            let mut body = String::new();
            let _ = std::io::Read::read_to_string(request.as_reader(), &mut body);
            let headers = request
                .headers()
                .iter()
                .map(|h| format!("{}: {}", h.field, h.value))
                .collect();
            let _ = tx.send((headers, body));
            match play {
                Play::Answer(status, text) => {
                    let _ = request
                        .respond(tiny_http::Response::from_string(text).with_status_code(status));
                }
                Play::Silent => {
                    std::thread::sleep(Duration::from_secs(30));
                    drop(request);
                }
            }
        });
        (format!("http://127.0.0.1:{port}/v1"), rx)
    }

    #[test]
    fn a_completion_is_the_answer_and_the_request_carries_the_cited_sources() {
        let (url, seen) = endpoint(Play::Answer(
            200,
            r#"{"model":"tiny-1","choices":[{"message":{"role":"assistant",
                "content":"`verify` checks a token (`src/jwt.ts:96-188`).\u001b[31m"}}]}"#,
        ));
        let s = synthesize(&config(&url, 5000), &request()).expect("answered");
        assert!(
            s.answer
                .starts_with("`verify` checks a token (`src/jwt.ts:96-188`)."),
            "{s:?}"
        );
        assert!(
            !s.answer.chars().any(crate::engine::base::text::is_unsafe),
            "{s:?}"
        );
        assert_eq!(s.model, "tiny-1");
        let (headers, body) = seen.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(
            headers
                .iter()
                .any(|h| h.eq_ignore_ascii_case("Authorization: Bearer sk-test")),
            "{headers:?}"
        );
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["model"], "test-model");
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(
            user.contains("[1] `src/jwt.ts:96-188` definition `verify`"),
            "{user}"
        );
        assert!(
            user.contains("[2] `auth.ts:3` call `verify` (from source `examples`)"),
            "{user}"
        );
        assert!(user.contains("Question: where is verify defined"), "{user}");
    }

    #[test]
    fn an_answer_citing_nothing_gets_the_sources_listed() {
        let (url, _seen) = endpoint(Play::Answer(
            200,
            r#"{"choices":[{"message":{"content":"It verifies tokens."}}]}"#,
        ));
        let s = synthesize(&config(&url, 5000), &request()).unwrap();
        assert_eq!(
            s.answer,
            "It verifies tokens.\n\nSources: `src/jwt.ts:96-188`, `auth.ts:3`."
        );
        assert_eq!(s.model, "test-model");
    }

    #[test]
    fn failures_have_stable_codes() {
        let (url, _a) = endpoint(Play::Answer(500, "internal error"));
        let e = synthesize(&config(&url, 5000), &request()).unwrap_err();
        assert_eq!(
            (e.code(), e.clone()),
            ("LLM_HTTP_STATUS", LlmError::Status(500))
        );

        let (url, _b) = endpoint(Play::Answer(200, "{\"choices\": [ not json"));
        let e = synthesize(&config(&url, 5000), &request()).unwrap_err();
        assert_eq!(e.code(), "LLM_BAD_RESPONSE", "{e}");

        let (url, _c) = endpoint(Play::Answer(200, r#"{"choices":[{"message":{}}]}"#));
        let e = synthesize(&config(&url, 5000), &request()).unwrap_err();
        assert_eq!(e.code(), "LLM_BAD_RESPONSE", "{e}");

        // A port nobody listens on (bound, then closed).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = synthesize(
            &config(&format!("http://127.0.0.1:{port}/v1"), 5000),
            &request(),
        )
        .unwrap_err();
        assert_eq!(e.code(), "LLM_UNREACHABLE", "{e}");
    }

    #[test]
    fn a_model_that_never_answers_times_out_within_the_timeout() {
        let (url, _seen) = endpoint(Play::Silent);
        let t = Instant::now();
        let e = synthesize(&config(&url, 300), &request()).unwrap_err();
        assert_eq!(e, LlmError::Timeout(300));
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    }

    #[test]
    fn the_environment_configures_it_or_says_what_is_wrong() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
        };
        assert_eq!(LlmConfig::from_vars(vars(&[])), None);
        assert_eq!(LlmConfig::from_vars(vars(&[(URL_VAR, " ")])), None);
        let c = LlmConfig::from_vars(vars(&[
            (URL_VAR, "http://127.0.0.1:8080/v1/"),
            (MODEL_VAR, "qwen"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(c.endpoint, "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
        assert!(
            !format!("{c:?}").contains("sk-"),
            "the key is never printed"
        );
        let c = LlmConfig::from_vars(vars(&[
            (URL_VAR, "http://h:1/v1/chat/completions"),
            (MODEL_VAR, "m"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(c.endpoint, "http://h:1/v1/chat/completions");
        let https = LlmConfig::from_vars(vars(&[
            (URL_VAR, "https://api.example.com/v1"),
            (MODEL_VAR, "m"),
        ]))
        .unwrap();
        assert_eq!(https.is_ok(), cfg!(feature = "tls"), "{https:?}");
        for bad in [
            &[(URL_VAR, "http://h:1/v1")][..],
            &[(URL_VAR, "ftp://h"), (MODEL_VAR, "m")],
            &[
                (URL_VAR, "http://h:1"),
                (MODEL_VAR, "m"),
                (TIMEOUT_VAR, "soon"),
            ],
            &[
                (URL_VAR, "http://h:1"),
                (MODEL_VAR, "m"),
                (TIMEOUT_VAR, "0"),
            ],
        ] {
            let e = LlmConfig::from_vars(vars(bad)).unwrap().unwrap_err();
            assert_eq!(e.code(), "LLM_CONFIG", "{bad:?}: {e}");
        }
    }
}
