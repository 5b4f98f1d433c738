//! One file's tags as a build takes them: extracted with a panic in the parser turned into
//! an error-flagged empty result (one bad file must never take the whole index down), and
//! with the file names its text mentions. Runs on rayon workers (a build's parse) or on the
//! querying thread (a generated file a look-up reads: `index::generated`).

use crate::engine::base::model::{FileTags, Lang};
use crate::engine::ingest::mentions::file_mentions;
use crate::engine::ingest::tags::{
    extract_component_tags, extract_tags_or_parse, finish_tags, unparsed, ParsedAhead, Tagging,
};

/// Extracts tags, turning a panic inside the parser (which must not happen, but one bad file
/// must never take the whole index down) into an empty, error-flagged result.
/// With `may_defer`, a file whose query is still compiling comes back parsed
/// (`tags::extract_tags_or_parse`).
/// A component is tagged here, where its path (its own definition's name) is known
/// (`tags::extract_component_tags`); components are never parsed ahead.
pub(crate) fn parse_guarded(lang: Lang, path: &str, text: &str, may_defer: bool) -> Tagging {
    let tagging = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if lang.is_component() {
            Tagging::Done(extract_component_tags(path, text))
        } else {
            extract_tags_or_parse(lang, text, may_defer)
        }
    }))
    .unwrap_or_else(|_| Tagging::Done(unparsed()));
    match tagging {
        Tagging::Done(tags) => Tagging::Done(with_mentions(tags, text)),
        waiting @ Tagging::QueryCompiling(_) => waiting,
    }
}

/// `tags` with the file names `text` mentions (`ingest::mentions`): read from the whole
/// text, whatever the parser's view of it (a component's template names files too).
fn with_mentions(mut tags: FileTags, text: &str) -> FileTags {
    tags.mentions = file_mentions(text);
    tags
}

/// `finish_tags` with the same guard as `parse_guarded`.
pub(crate) fn finish_guarded(parsed: ParsedAhead, text: &str) -> FileTags {
    let tags = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| finish_tags(parsed, text)))
        .unwrap_or_else(|_| unparsed());
    with_mentions(tags, text)
}
