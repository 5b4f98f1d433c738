//! The MCP tools: their list, their arguments (the contract's typed `*Args`, which both check
//! a call and generate the tool's input schema) and their results: `repo_map`, `search`,
//! `repo_symbol_answer`, `repo_references` and `repo_stats`, each run as a job on the live-index service. Runs
//! on the server's main thread; the jobs run on the engine thread.

use super::*;

impl Server {
    /// Runs `tool` on an up-to-date index, with the extra sources `selected` names (`None`:
    /// the server's own); an index that cannot be built (a missing or empty repository) or
    /// an engine that cannot answer is the tool's error (`Err`), with its stable code.
    fn on_index<T: Send + 'static>(
        &self,
        selected: Option<Vec<SourceSpec>>,
        tool: impl FnOnce(&Index, &Freshness, &[&SourceIndex]) -> T + Send + 'static,
    ) -> Result<T, Value> {
        let answer =
            self.engine.run_selected(
                selected,
                SOURCE_WAIT,
                move |current, sources| match current {
                    Ok((index, freshness)) => Ok(tool(index, &freshness, sources)),
                    Err(e) => Err(tool_error(&e)),
                },
            );
        answer.unwrap_or_else(|e| match e {
            ServiceError::Source(why) => Err(unready_error(&why)),
            e => Err(tool_error(&EngineError::Internal(e.to_string()))),
        })
    }

    /// `on_index` for a tool whose result is its content.
    fn run_tool(
        &self,
        selected: Option<Vec<SourceSpec>>,
        tool: impl FnOnce(&Index, &Freshness, &[&SourceIndex]) -> Value + Send + 'static,
    ) -> Value {
        self.on_index(selected, tool).unwrap_or_else(|error| error)
    }

    pub(super) fn call_tool(&mut self, params: &Value) -> Result<Value, RpcError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid("tools/call needs a tool `name`"))?;
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(args)) => args,
            Some(_) => return Err(RpcError::invalid("`arguments` must be an object")),
        };
        match name {
            "repo_map" => {
                let request = MapCall::new(parse_args(args)?)?;
                Ok(self.run_tool(None, move |index, call, _| {
                    map_result(index, &request, call)
                }))
            }
            "search" => {
                let request = SearchCall::search(parse_args(args)?)?;
                let selected = request
                    .selected_sources(&self.policy)
                    .map_err(ArgError::from)?;
                Ok(self.run_tool(selected, move |index, call, sources| {
                    tool_json(request.run(index, call, sources).into_value())
                }))
            }
            "repo_symbol_answer" => {
                let mut request = SearchCall::parse_answer(args)?;
                // The seed's error form: a tool result, not a protocol error.
                if let Err(refusal) = request.check_repo(&self.policy) {
                    return Ok(coded_error(refusal.code, &refusal.message));
                }
                let selected = request
                    .selected_sources(&self.policy)
                    .map_err(ArgError::from)?;
                let style = request.style();
                let document = self.on_index(selected, move |index, call, sources| {
                    request.run(index, call, sources)
                });
                Ok(match document {
                    Ok(mut document) => {
                        document.synthesize(style, &self.llm);
                        tool_json(document.into_value())
                    }
                    Err(error) => error,
                })
            }
            "repo_references" => {
                let request = RefsCall::new(parse_args(args)?)?;
                Ok(
                    self.run_tool(None, move |index, call, _| match request.run(index, call) {
                        Ok(document) => tool_json(document),
                        Err(e) => coded_error(e.code(), &e.to_string()),
                    }),
                )
            }
            "repo_stats" => {
                let RepoStatsArgs {} = parse_args(args)?;
                Ok(self.run_tool(None, |index, call, _| {
                    let mut stats = crate::contract::StatsDoc::value(&index.stats());
                    mark(call, &mut stats);
                    tool_json(stats)
                }))
            }
            _ => Err(RpcError::invalid(format!(
                "unknown tool `{name}` (repo_map, search, repo_symbol_answer, repo_references, \
                 repo_stats)"
            ))),
        }
    }
}

/// A tool result saying why there is no index.
pub(super) fn tool_error(e: &EngineError) -> Value {
    coded_error(e.code(), &e.to_string())
}

/// A tool result saying which source is not ready and why (call again, or name another).
pub(super) fn unready_error(why: &Unready) -> Value {
    coded_error(why.code(), &why.message())
}

fn coded_error(code: &str, message: &str) -> Value {
    let error = json!({"success": false, "error": sanitize(message), "code": code});
    json!({
        "content": [{"type": "text", "text": sanitize(&format!("{code}: {message}"))}],
        "structuredContent": error,
        "isError": true,
    })
}

/// The tools and their input schemas, each generated from the type that checks the tool's
/// arguments (`contract::args`).
pub(super) fn tool_list() -> Value {
    let read_only = json!({"readOnlyHint": true, "openWorldHint": false});
    json!([
        {
            "name": "repo_map",
            "title": "Repo map",
            "description": "The token-budgeted repo map of the repository: the signatures of its \
                most referenced definitions (PageRank over the cross-file reference graph), each \
                under its file path with its enclosing class, fitted to an exact token budget. \
                Focus files are left out of the map and their neighbourhood is ranked up; \
                identifiers and a free-text query rank up the code that defines or uses them.",
            "inputSchema": input_schema::<RepoMapArgs>(),
            "annotations": read_only
        },
        {
            "name": "search",
            "title": "Search the code",
            "description": "Ranked places in the repository for a query (identifiers, words, \
                a commit-message-like sentence; Chinese and mixed queries work): definitions, \
                references, calls, imports and text in comments, strings and docs. Each source \
                has its file, line range, excerpt, evidence type and score signals; `files` \
                ranks the files to read or edit. `confidence` is high when an identifier of \
                the query names a definition exactly, low when nothing clears the cutoff.",
            "inputSchema": input_schema::<SearchArgs>(),
            "annotations": read_only
        },
        {
            "name": "repo_symbol_answer",
            "title": "Answer a question about the code",
            "description": "An answer to a question about the repository (where is X \
                defined, who uses it, where is Y handled), built from search's evidence: \
                written by the server's configured LLM citing the sources \
                (`diagnostics.used_llm`), else extractive without any model: the best-matching \
                definition with its location and the \
                files that use it, then the other places that matched; honest when nothing \
                matches well (`confidence` low, `diagnostics.low_score`). `sources` are the \
                evidence, each with file, line range, excerpt, evidence type, symbol and score.",
            "inputSchema": input_schema::<SymbolAnswerArgs>(),
            "annotations": read_only
        },
        {
            "name": "repo_references",
            "title": "Callers and callees",
            "description": "Who uses a definition and what it uses. Name it by `name` \
                (NAME: every definition of that name, each answered on its own; Type::NAME \
                or Type.NAME; path:NAME) or by `at` (FILE:LINE, the definition whose lines \
                hold that line). Each caller is a use site (file, line, kind: call, \
                reference, type, heritage, import) with the definition it is in and how the \
                graph bound it (binding: import, same_package, same_file, member, module, \
                package_method, name_guess, method_guess); `ambiguous` when the use was \
                shared among several definitions or bound by name only. Callees are the \
                uses inside the definition with the definitions they bound to. NOT_FOUND \
                when nothing is defined by that name or at that line.",
            "inputSchema": input_schema::<RepoReferencesArgs>(),
            "annotations": read_only
        },
        {
            "name": "repo_stats",
            "title": "Index statistics",
            "description": "What the index holds: files per language, definitions and \
                references by kind, graph edges, files skipped and why (vendored, generated, \
                minified, binary, too big), parse errors, time per phase.",
            "inputSchema": input_schema::<RepoStatsArgs>(),
            "annotations": read_only
        }
    ])
}

/// `repo_map`'s result: the map as text (or markdown), and the JSON rendering
/// (`mapscope map --format json`) as structured content; each part of the request that was
/// ignored (a focus file the index does not hold, an undefined identifier, a query with
/// nothing to search) is named in a note of its own, and so are changes not yet applied.
pub(super) fn map_result(index: &Index, call: &MapCall, freshness: &Freshness) -> Value {
    let answer = call.run(index, freshness);
    let mut content = vec![json!({"type": "text", "text": answer.text})];
    if freshness.changes_pending {
        content.push(json!({"type": "text", "text": PENDING_NOTE}));
    }
    for note in &answer.notes {
        content.push(json!({"type": "text", "text": sanitize(&format!("note: {note}"))}));
    }
    json!({"content": content, "structuredContent": answer.document})
}

/// The note a map answered from the last complete index carries.
pub(super) const PENDING_NOTE: &str =
    "note: changes_pending: files changed a moment ago are not in this \
    map yet (it is from the index before them); call again for the fresh one";

/// A tool result whose content is one JSON document, given both as text (what most clients
/// hand the model) and as structured content.
pub(super) fn tool_json(value: Value) -> Value {
    // Compact: every byte of it is a token in the model's context.
    let text = json_line(&value);
    json!({"content": [{"type": "text", "text": text}], "structuredContent": value})
}
