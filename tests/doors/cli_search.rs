//! `mapscope search` on a fixture repo with known answers, and the JSON contract.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos/search-app")
}

/// `mapscope search ARGS` on a fixture. The fixtures live inside this project's own git
/// repository, so the history signal is off: their results must not depend on its commits.
fn search(args: &[&str]) -> Output {
    search_with_history(args, false)
}

fn search_with_history(args: &[&str], history: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mapscope"));
    cmd.env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        // A developer's own endpoint must not change what these tests see.
        .env_remove("MAPSCOPE_LLM_URL")
        .arg("search")
        .args(args);
    if !history {
        cmd.arg("--no-history");
    }
    cmd.output().expect("run mapscope")
}

fn search_json(query: &str, extra: &[&str]) -> Value {
    let r = repo();
    let mut args = vec![r.to_str().unwrap(), query, "--json"];
    args.extend_from_slice(extra);
    let o = search(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

#[test]
fn exact_identifier_puts_its_definition_first_with_high_confidence() {
    let v = search_json("exportOrdersCsv", &[]);
    assert_eq!(v["confidence"], "high");
    let first = &v["sources"][0];
    assert_eq!(first["file_path"], "src/orders/export.ts");
    assert_eq!(first["evidence_type"], "definition");
    assert_eq!(first["symbol"], "exportOrdersCsv");
    assert_eq!(first["kind"], "function");
}

#[test]
fn tests_rank_below_the_implementation() {
    let v = search_json("export orders csv", &["--files"]);
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file_path"].as_str().unwrap())
        .collect();
    let imp = files.iter().position(|f| *f == "src/orders/export.ts");
    let test = files.iter().position(|f| *f == "tests/export.test.ts");
    assert_eq!(imp, Some(0), "{files:?}");
    assert!(test.is_none_or(|t| t > 0), "{files:?}");
}

#[test]
fn chinese_query_finds_the_function_with_a_chinese_comment() {
    let v = search_json("导出订单", &[]);
    assert_eq!(v["sources"][0]["symbol"], "exportOrdersCsv", "{v:#}");
}

#[test]
fn chinese_words_reach_english_identifiers_through_the_glossary() {
    // 分页 → paginate: no Chinese text near `paginate` in the fixture.
    let v = search_json("分页", &[]);
    assert_eq!(v["sources"][0]["symbol"], "paginate", "{v:#}");
    // Mixed query: English words plus 过滤 → filter.
    let v = search_json("notify session 过滤", &["--files"]);
    assert_eq!(v["files"][0]["file_path"], "src/auth/session.ts", "{v:#}");
}

#[test]
fn nonsense_is_low_confidence_and_text_says_so() {
    let v = search_json("qwzx plorb", &[]);
    assert_eq!(v["confidence"], "low");
    assert_eq!(v["diagnostics"]["low_score"], true);
    let r = repo();
    let o = search(&[r.to_str().unwrap(), "qwzx plorb"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("no confident hits"));
}

/// A query only partly matched is low confidence, yet its nearest hits are listed under a
/// line that says so (as the TUI and the JSON list them), not hidden.
#[test]
fn a_partly_matched_query_lists_its_nearest_hits_under_a_warning() {
    let query = "paginate orders zeppelin quasar nebula";
    let v = search_json(query, &[]);
    assert_eq!(v["confidence"], "low", "{v:#}");
    let first = v["sources"][0]["file_path"].as_str().expect("a source");
    let r = repo();
    let o = search(&[r.to_str().unwrap(), query]);
    let text = String::from_utf8_lossy(&o.stdout);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "no confident hits for {query:?}: no hit matches most of its words; the nearest:"
            )
            .as_str()
        ),
        "{text}"
    );
    assert!(lines.next().is_some_and(|l| l.starts_with(first)), "{text}");
}

#[test]
fn text_output_is_one_line_per_hit() {
    let r = repo();
    let o = search(&[r.to_str().unwrap(), "paginate", "--top", "3"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(!lines.is_empty() && lines.len() <= 3, "{out}");
    let first: Vec<&str> = lines[0].split("  ").collect();
    assert_eq!(first[0], "src/orders/export.ts:10-12");
    assert_eq!(&first[1..4], ["definition", "function", "paginate"]);
    assert!(first[4].parse::<f64>().is_ok());
}

#[test]
fn json_follows_the_contract() {
    let v = search_json("session filter", &["--top", "5"]);
    assert_eq!(v["success"], true);
    assert!(v["repo_path"].as_str().unwrap().ends_with("search-app"));
    assert_eq!(v["question"], "session filter");
    assert!(["high", "medium", "low"].contains(&v["confidence"].as_str().unwrap()));
    let sources = v["sources"].as_array().unwrap();
    assert!(!sources.is_empty() && sources.len() <= 5);
    for s in sources {
        let path = s["file_path"].as_str().unwrap();
        assert!(!path.starts_with('/'), "relative paths: {path}");
        let range = s["line_range"].as_array().unwrap();
        assert_eq!(range.len(), 2);
        assert!(range[0].as_u64().unwrap() <= range[1].as_u64().unwrap());
        assert!(s["excerpt"].is_string());
        let ev = s["evidence_type"].as_str().unwrap();
        assert!(["definition", "reference", "call", "import", "text"].contains(&ev));
        assert!(s["score"].is_number());
        for k in [
            "bm25", "name", "path", "graph", "prior", "penalty", "history",
        ] {
            assert!(s["signals"][k].is_number(), "signal {k}");
        }
        for k in ["symbol", "kind"] {
            assert!(
                s.get(k).is_none_or(serde_json::Value::is_string),
                "{k} optional string"
            );
        }
    }
    for f in v["files"].as_array().unwrap() {
        assert!(f["file_path"].is_string() && f["score"].is_number());
    }
    let d = &v["diagnostics"];
    for k in ["definition", "reference", "call", "import", "text"] {
        assert!(d["retrieval_counts"][k].is_u64(), "retrieval_counts.{k}");
    }
    for k in ["latency_ms", "index_ms"] {
        assert!(d[k].is_number(), "{k}");
    }
    assert!(d["parsed_files"].as_u64().unwrap() >= 5);
    assert!(d["low_score"].is_boolean());
}

#[test]
fn errors_follow_the_contract() {
    let empty = tempfile::tempdir().unwrap();
    let o = search(&[empty.path().to_str().unwrap(), "anything", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["success"], false);
    assert_eq!(v["code"], "REPO_EMPTY");
    assert!(v["error"].is_string());

    let o = search(&["/no/such/repo", "anything", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["code"], "REPO_NOT_FOUND");

    let o = search(&["/no/such/repo", "anything"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("REPO_NOT_FOUND"));
}

#[test]
fn filters_by_language_and_path() {
    let v = search_json("orders", &["--paths", "src/orders/**", "--top", "20"]);
    for s in v["sources"].as_array().unwrap() {
        assert!(s["file_path"].as_str().unwrap().starts_with("src/orders/"));
    }
    let r = repo();
    let o = search(&[r.to_str().unwrap(), "orders", "--lang", "cobol"]);
    assert_eq!(o.status.code(), Some(2));
    // A supported language the repository lacks: no hits, not an error.
    let v = search_json("orders", &["--lang", "rust"]);
    assert!(v["sources"].as_array().unwrap().is_empty(), "{v}");
}

fn files_of(v: &Value) -> Vec<String> {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file_path"].as_str().unwrap().to_string())
        .collect()
}

/// Past commit subjects find a file whose own text never says what they say; with
/// `--no-history`, or from a tree that is not a repository, that signal is absent.
#[test]
fn commit_history_finds_files_by_the_words_of_their_past_changes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let settle = "def settle(entries):\n    return sum(e.amount for e in entries)\n";
    common::repo_with_history(
        repo,
        &[
            ("src/ledger.py", settle),
            ("src/report.py", "def render(rows):\n    return rows\n"),
            ("src/users.py", "def lookup(name):\n    return name\n"),
        ],
        &[(
            "src/ledger.py",
            &settle.replace("return sum", "return round(sum"),
        )],
        "Banker rounding for currency totals",
    );

    let run = |root: &Path, history: bool| -> Value {
        let o = search_with_history(
            &[
                root.to_str().unwrap(),
                "currency totals banker",
                "--files",
                "--json",
            ],
            history,
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let v = run(repo, true);
    assert_eq!(
        files_of(&v).first().map(String::as_str),
        Some("src/ledger.py")
    );
    let h = &v["diagnostics"]["history"];
    assert_eq!(h["commits"], 2);
    assert_eq!(h["files"], 3);
    assert!(h["error"].is_null());
    assert_eq!(v["diagnostics"]["matched"]["history_matches"], 1);

    // A file whose text also matches shows the history signal in its hits.
    let o = search_with_history(&[repo.to_str().unwrap(), "settle banker", "--json"], true);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let top = &v["sources"][0];
    assert_eq!(top["file_path"], "src/ledger.py");
    assert!(top["signals"]["history"].as_f64().unwrap() > 0.0);

    // The indexed directory may be a subdirectory of the repository.
    let v = run(&repo.join("src"), true);
    assert_eq!(files_of(&v).first().map(String::as_str), Some("ledger.py"));

    let v = run(repo, false);
    assert!(!files_of(&v).contains(&"src/ledger.py".to_string()));
    assert_eq!(v["diagnostics"]["history"]["commits"], 0);

    // Not a repository: searched without history, and said why.
    std::fs::remove_dir_all(repo.join(".git")).unwrap();
    let v = run(repo, true);
    assert!(!files_of(&v).contains(&"src/ledger.py".to_string()));
    assert!(v["diagnostics"]["history"]["error"].is_string());
}

/// A warm search takes the history index of the commit `HEAD` points at from the cache
/// (read from git's files, without git); a new commit, a detached `HEAD` or packed refs
/// each give the history of the commit `HEAD` points at then, never a stale one.
#[test]
fn a_warm_search_follows_head_to_its_own_history() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let settle = "def settle(entries):\n    return sum(e.amount for e in entries)\n";
    common::repo_with_history(
        repo,
        &[
            ("src/ledger.py", settle),
            ("src/users.py", "def lookup(name):\n    return name\n"),
        ],
        &[(
            "src/users.py",
            "def lookup(name):\n    return name.lower()\n",
        )],
        "Fold the case of user names",
    );
    let history = |query: &str| -> Value {
        let o = Command::new(env!("CARGO_BIN_EXE_mapscope"))
            .env("MAPSCOPE_CACHE_DIR", cache.path())
            .env("MAPSCOPE_NO_WARM", "1")
            .env_remove("MAPSCOPE_LLM_URL")
            .args(["search", repo.to_str().unwrap(), query, "--files", "--json"])
            .output()
            .expect("run mapscope");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let h = &v["diagnostics"]["history"];
        serde_json::json!({
            "commits": h["commits"],
            "cached": h["cached"],
            "matches": v["diagnostics"]["matched"]["history_matches"],
        })
    };
    let seen = |commits: u64, cached: bool, matches: u64| serde_json::json!({"commits": commits, "cached": cached, "matches": matches});
    assert_eq!(history("zebra striping"), seen(2, false, 0));
    assert_eq!(history("zebra striping"), seen(2, true, 0));

    std::fs::write(repo.join("src/ledger.py"), settle.replace("sum", "sum ")).unwrap();
    common::git(repo, &["commit", "-qam", "Zebra striping for ledger rows"]);
    assert_eq!(history("zebra striping"), seen(3, false, 1));
    assert_eq!(history("zebra striping"), seen(3, true, 1));

    // The caches hold one commit's history: another is read with git.
    common::git(repo, &["checkout", "-q", "--detach", "HEAD~1"]);
    assert_eq!(history("zebra striping"), seen(2, false, 0));
    assert_eq!(history("zebra striping"), seen(2, true, 0));
    common::git(repo, &["checkout", "-q", "-"]);
    common::git(repo, &["pack-refs", "--all"]);
    assert_eq!(history("zebra striping"), seen(3, false, 1));
    assert_eq!(history("zebra striping"), seen(3, true, 1));

    std::fs::write(repo.join("src/users.py"), "def lookup(n):\n    return n\n").unwrap();
    common::git(repo, &["commit", "-qam", "Shorter quagga names"]);
    assert_eq!(history("quagga"), seen(4, false, 1));
}

#[test]
fn text_hits_show_the_matched_word_and_line() {
    let v = search_json("drop older", &[]);
    let first = &v["sources"][0];
    assert_eq!(first["file_path"], "src/auth/session.ts");
    assert_eq!(first["evidence_type"], "text", "{first}");
    assert_eq!(first["line_range"][0], 6);
    let word = first["symbol"].as_str().unwrap();
    assert!(["Drop", "older"].contains(&word), "{first}");
    assert!(first["excerpt"]
        .as_str()
        .unwrap()
        .starts_with("/** Drop sessions older"));
    let r = repo();
    let o = search(&[r.to_str().unwrap(), "drop older"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!("src/auth/session.ts:6-6  text  -  {word}"))
            && text.contains("    > /** Drop sessions older"),
        "{text}"
    );
}

#[test]
fn queries_without_words_are_low_score_with_a_note() {
    let long = "x".repeat(10_000);
    for q in ["the and of", "?!.,;", "🚀🔥"] {
        let v = search_json(q, &[]);
        assert_eq!(v["success"], true, "{q:?}");
        assert_eq!(v["diagnostics"]["low_score"], true, "{q:?}");
        assert!(v["sources"].as_array().unwrap().is_empty());
        assert!(v["diagnostics"]["note"]
            .as_str()
            .unwrap()
            .contains("no searchable words"));
    }
    for q in [
        long.as_str(),
        "导出 orders csv 🚀",
        "export заказы orders",
        "\u{1b}[31m",
    ] {
        let v = search_json(q, &[]);
        assert_eq!(v["success"], true, "{q:?}");
        let empty = v["sources"].as_array().unwrap().is_empty();
        assert!(!empty || v["diagnostics"]["low_score"] == true, "{q:?}");
    }
}

#[test]
fn the_answer_names_the_definition_in_json_and_above_the_hits() {
    let v = search_json("exportOrdersCsv", &["--answer-style", "concise"]);
    let answer = v["answer"].as_str().expect("an answer");
    assert!(
        answer.starts_with("`exportOrdersCsv` is defined in `src/orders/export.ts:4"),
        "{answer}"
    );
    assert_eq!(v["diagnostics"]["used_llm"], false);

    let r = repo();
    let o = search(&[r.to_str().unwrap(), "exportOrdersCsv", "--answer"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with("`exportOrdersCsv` is defined in"),
        "{text}"
    );
    assert!(first.contains("used in"), "{text}");
    assert_eq!(
        lines.next(),
        Some(""),
        "a blank line, then the hits: {text}"
    );
    assert!(
        lines
            .next()
            .unwrap_or_default()
            .starts_with("src/orders/export.ts:"),
        "{text}"
    );

    // An unknown style is refused with the names of the known ones.
    let o = search(&[r.to_str().unwrap(), "x", "--answer-style", "verbose"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("concise, default, detailed"), "{err}");
}

/// `search --answer` with an LLM configured (a local fake endpoint): the model's answer with
/// `used_llm`, or the extractive one with `llm_error` on any failure; without `--answer`
/// the model is never asked.
#[test]
fn with_an_llm_configured_the_answer_is_the_models_and_falls_back_on_errors() {
    let r = repo();
    let run = |llm: &common::FakeLlm, timeout_ms: u64, extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mapscope"));
        cmd.env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
            .envs(llm.env(timeout_ms))
            .args([
                "search",
                r.to_str().unwrap(),
                "exportOrdersCsv",
                "--no-history",
            ])
            .args(extra);
        let t = std::time::Instant::now();
        let o = cmd.output().expect("run mapscope");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (o, t.elapsed())
    };
    let said =
        "`exportOrdersCsv` writes orders as CSV (`src/orders/export.ts:4-20`).\u{1b}]52;c;x\u{7}";
    let llm = common::FakeLlm::start(common::LlmPlay::Says(said));
    let (o, _) = run(&llm, 5000, &["--answer", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let answer = v["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("`exportOrdersCsv` writes orders as CSV (`src/orders/export.ts:4-20`)."),
        "{answer}"
    );
    assert!(
        !answer.contains('\u{1b}') && !answer.contains('\u{7}'),
        "{answer:?}"
    );
    assert_eq!(v["diagnostics"]["used_llm"], true, "{v}");
    assert_eq!(v["diagnostics"]["llm_model"], "fake-llm");
    // The model was given the sources to cite.
    let asked = llm.bodies.lock().unwrap()[0].clone();
    assert!(asked.contains("`src/orders/export.ts:4"), "{asked}");
    assert!(asked.contains("Question: exportOrdersCsv"), "{asked}");

    // Text: the model's answer above the hits, control bytes shown, not sent.
    let (o, _) = run(&llm, 5000, &["--answer"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("`exportOrdersCsv` writes orders as CSV"),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "{text:?}");

    // Without --answer the model is not asked and the JSON has no LLM fields.
    let before = llm.bodies.lock().unwrap().len();
    let (o, _) = run(&llm, 5000, &["--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["diagnostics"]["used_llm"], false);
    assert!(v["diagnostics"].get("llm_error").is_none(), "{v}");
    assert_eq!(llm.bodies.lock().unwrap().len(), before);

    for (play, code) in [
        (common::LlmPlay::Status(500, "boom"), "LLM_HTTP_STATUS"),
        (
            common::LlmPlay::Status(200, "{\"choices\": [oops"),
            "LLM_BAD_RESPONSE",
        ),
        (common::LlmPlay::Silent, "LLM_TIMEOUT"),
    ] {
        let llm = common::FakeLlm::start(play);
        let (o, took) = run(&llm, 400, &["--answer", "--json"]);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["diagnostics"]["used_llm"], false, "{v}");
        assert_eq!(v["diagnostics"]["llm_error"], code, "{v}");
        assert!(
            v["answer"]
                .as_str()
                .unwrap()
                .starts_with("`exportOrdersCsv` is defined in"),
            "the extractive answer: {v}"
        );
        assert!(
            took < std::time::Duration::from_secs(20),
            "{code}: {took:?}"
        );
        // Text output says why on stderr and prints the extractive answer.
        let (o, _) = run(&llm, 400, &["--answer"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(code), "{err}");
        assert!(String::from_utf8_lossy(&o.stdout).starts_with("`exportOrdersCsv` is defined in"));
    }
}

/// Every file under `root` with its bytes, to prove a source is left as it was.
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn extra_sources_are_searched_after_the_project_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("app");
    let lib = dir.path().join("lib");
    common::write_files(
        &project,
        &[(
            "app.py",
            "def login(user):\n    return verify_token(user)\n",
        )],
    );
    common::write_files(
        &lib,
        &[(
            "jwt.py",
            "def verify_token(token):\n    \"\"\"Verify a JWT token.\"\"\"\n    return token\n",
        )],
    );
    let before = snapshot(&lib);
    let spec = format!("lib={}", lib.display());
    let o = search(&[
        project.to_str().unwrap(),
        "verify token",
        "--json",
        "--source",
        &spec,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let sources = v["sources"].as_array().unwrap();
    let labels: Vec<&str> = sources
        .iter()
        .map(|s| s["source"].as_str().unwrap())
        .collect();
    let first_lib = labels
        .iter()
        .position(|l| *l == "lib")
        .expect("a hit from lib");
    assert!(
        labels[..first_lib].iter().all(|l| *l == "project"),
        "{labels:?}"
    );
    assert!(
        labels[first_lib..].iter().all(|l| *l == "lib"),
        "project first: {labels:?}"
    );
    let lib_hit = &sources[first_lib];
    assert_eq!(lib_hit["file_path"], "jwt.py");
    assert_eq!(lib_hit["relevance"], 100);
    assert!(
        lib_hit["match_reason"]
            .as_str()
            .unwrap()
            .contains("verify_token"),
        "{lib_hit}"
    );
    for s in sources {
        let r = s["relevance"].as_u64().unwrap();
        assert!(r <= 100);
    }
    assert_eq!(v["diagnostics"]["extra_sources"][0]["name"], "lib");
    assert_eq!(snapshot(&lib), before, "a source is read, never written");

    // The text output lists them under the source's name.
    let o = search(&[project.to_str().unwrap(), "verify token", "--source", &spec]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("\n[lib] "), "{text}");

    // A missing source, one inside the project, a bad name: one INVALID_ARGUMENT line each.
    for bad in [
        format!("gone={}", dir.path().join("gone").display()),
        format!("inner={}", project.display()),
        format!("project={}", lib.display()),
        "no-equals-sign".to_string(),
    ] {
        let o = search(&[project.to_str().unwrap(), "x", "--source", &bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("mapscope: INVALID_ARGUMENT: "),
            "{bad}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// Several words without quotes are one query (`search . cors preflight`).
#[test]
fn unquoted_words_are_joined_into_one_query() {
    let repo = repo();
    let repo = repo.to_str().unwrap();
    let quoted = search(&[repo, "parse config file"]);
    let unquoted = search(&[repo, "parse", "config", "file"]);
    assert_eq!(
        unquoted.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&unquoted.stderr)
    );
    assert!(!quoted.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&unquoted.stdout),
        String::from_utf8_lossy(&quoted.stdout)
    );
}

/// `mapscope search DIR QUERY --json` on a repository written by the test.
fn search_dir_json(dir: &Path, query: &str) -> Value {
    let o = search(&[dir.to_str().unwrap(), query, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

#[test]
fn a_qualified_look_up_is_answered_with_the_member_it_names() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "src/routing.rs",
                "pub struct Router;\npub struct MethodRouter;\n\nimpl Router {\n    pub fn fallback(self) -> Self {\n        helper();\n        self\n    }\n}\n\nimpl MethodRouter {\n    pub fn fallback(self) -> Self {\n        self\n    }\n}\n\npub fn method_not_allowed_fallback() {}\n\nfn helper() {}\n",
            ),
            (
                "src/main.rs",
                "mod routing;\nuse routing::Router;\n\nfn main() {\n    Router.fallback();\n}\n",
            ),
        ],
    );
    let v = search_dir_json(dir.path(), "Router::fallback");
    assert_eq!(v["sources"][0]["file_path"], "src/routing.rs");
    assert_eq!(v["sources"][0]["line_range"][0], 5);
    assert_eq!(v["lookup"]["container"], serde_json::json!(["Router"]));
    let answer = v["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("`Router::fallback` is defined in `src/routing.rs:5–8`"),
        "{answer}"
    );
    let v = search_dir_json(dir.path(), "MethodRouter::fallback");
    assert_eq!(v["sources"][0]["line_range"][0], 12, "{v}");

    let v = search_dir_json(dir.path(), "what does Router::fallback call");
    assert_eq!(v["lookup"]["intent"], "callees");
    let answer = v["answer"].as_str().unwrap();
    assert!(answer.contains("It calls `helper`."), "{answer}");

    let v = search_dir_json(dir.path(), "谁调用了 Router::fallback");
    assert_eq!(v["lookup"]["intent"], "callers");
    assert_eq!(v["sources"][0]["line_range"][0], 5, "{v}");
}

/// "What does X call" names the repository definitions X's calls bound to, by qualified
/// name (`Square.area`, not `s.area` as written); a call shared among several definitions
/// keeps its written name, and one bound to nothing in the repository is not listed.
#[test]
fn what_a_function_calls_is_named_by_the_definitions_its_calls_bound_to() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "shapes/square.py",
                "class Square:\n    def area(self):\n        return 4\n",
            ),
            (
                "shapes/circle.py",
                "class Circle:\n    def perimeter(self):\n        return 6\n",
            ),
            (
                "report.py",
                "import shapes.square\nimport shapes.circle\n\n\ndef summarize_shapes(s, c):\n    print(s)\n    return s.area() + c.perimeter()\n",
            ),
        ],
    );
    let v = search_dir_json(dir.path(), "what does summarize_shapes call");
    assert_eq!(v["lookup"]["intent"], "callees", "{v}");
    let answer = v["answer"].as_str().unwrap();
    assert!(
        answer.contains("It calls `Square.area` and `Circle.perimeter`."),
        "{answer}"
    );
    assert!(!answer.contains("`print`"), "{answer}");
}

/// "Who calls X" names the definitions whose uses binding sent to X (the refs engine), by
/// qualified name and place: the call on a receiver of X's type is a caller, the call of a
/// same-named method on another type's receiver is not.
#[test]
fn who_calls_a_method_is_answered_by_the_callers_bound_to_it() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "shapes/square.py",
                "class Square:\n    def area_of_shape(self):\n        return 4\n",
            ),
            (
                "shapes/circle.py",
                "class Circle:\n    def area_of_shape(self):\n        return 3\n",
            ),
            (
                "report.py",
                "from shapes.square import Square\nfrom shapes.circle import Circle\n\n\nclass Report:\n    def total(self, s: Square):\n        return s.area_of_shape()\n\n    def round(self, c: Circle):\n        return c.area_of_shape()\n",
            ),
        ],
    );
    let v = search_dir_json(dir.path(), "who calls Square.area_of_shape");
    assert_eq!(v["lookup"]["intent"], "callers", "{v}");
    let answer = v["answer"].as_str().unwrap();
    assert!(
        answer.contains("Called from `Report.total` (`report.py:7`)."),
        "{answer}"
    );
    assert!(!answer.contains("Report.round"), "{answer}");
}

/// A C++ member of a nested type defined out of line (`Outer<K>::Iter::valid`) is found in
/// its container, its body before the in-class declaration, and the JSON marks the
/// declaration (`declaration: true`), leaving the field out of the body's hit.
#[test]
fn a_nested_member_defined_out_of_line_is_found_before_its_declaration() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "src/list.h",
                "namespace db {\ntemplate <typename K>\nclass List {\n public:\n  class Iter {\n   public:\n    bool valid() const;\n  };\n};\n\ntemplate <typename K>\ninline bool List<K>::Iter::valid() const {\n  return true;\n}\n}  // namespace db\n",
            ),
            (
                "src/iterator.h",
                "namespace db {\nclass Iter {\n public:\n  virtual bool valid() const = 0;\n};\n}  // namespace db\n",
            ),
        ],
    );
    let v = search_dir_json(dir.path(), "List::Iter::valid");
    let top = &v["sources"][0];
    assert_eq!(top["file_path"], "src/list.h", "{v}");
    assert_eq!(top["line_range"][0], 12, "{v}");
    assert_eq!(top["qualified_name"], "db::List::Iter::valid", "{v}");
    assert!(top.get("declaration").is_none(), "{v}");
    let declared = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file_path"] == "src/list.h" && s["line_range"][0] == 7)
        .unwrap_or_else(|| panic!("the in-class declaration is a hit: {v}"));
    assert_eq!(declared["declaration"], true, "{v}");
}
