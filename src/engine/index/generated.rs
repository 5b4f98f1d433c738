//! The generated files an index left out (`SkipReason::Generated`), kept for look-ups
//! (`search::generated` says why and how they rank): which of them hold a word, and the
//! tags of each one a look-up needed.
//!
//! Both are made on first need, on the querying thread, and kept with the index (a refresh
//! makes a new index, so nothing here outlives the files it read). The word table reads the
//! generated files once (at most `MAX_TABLE_BYTES` of them, in path order); a look-up then
//! parses only the files holding its name, at most `MAX_FILES_PER_LOOKUP`, each once.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::engine::base::lock;
use crate::engine::base::model::{FileTags, Lang, ParsedFile, SkipReason};
use crate::engine::index::Index;
use crate::engine::ingest::content::load_generated;
use crate::engine::ingest::file_tags::parse_guarded;
use crate::engine::ingest::tags::{unparsed, Tagging};
use crate::engine::ingest::walk::headers;
use crate::engine::ingest::walk::WalkedFile;

/// How many bytes of generated files the word table reads at most: a tree of generated
/// code (protobuf, deep copies) beyond this is looked up in its first files by path only.
const MAX_TABLE_BYTES: u64 = 64 << 20;
/// How many files holding a name one look-up parses at most.
const MAX_FILES_PER_LOOKUP: usize = 32;

/// See the module header. `Default` for an index that has none to look in.
#[derive(Default)]
pub(super) struct GeneratedFiles {
    max_size: u64,
    table: OnceLock<WordTable>,
    /// By path: the parsed file, or `None` when it could not be read as generated code.
    parsed: Mutex<HashMap<String, Option<Arc<ParsedFile>>>>,
}

/// The generated files (path and language) and, per word, the ones that hold it.
#[derive(Default)]
struct WordTable {
    files: Vec<(String, Lang)>,
    by_word: HashMap<Box<str>, Vec<u32>>,
}

impl GeneratedFiles {
    /// For files up to `max_size` bytes (the walk's limit for code files).
    pub(super) fn new(max_size: u64) -> GeneratedFiles {
        GeneratedFiles {
            max_size,
            ..GeneratedFiles::default()
        }
    }

    /// The generated files of `index` that hold `name` as a word, parsed, in path order.
    pub(super) fn holding(&self, index: &Index, name: &str) -> Vec<Arc<ParsedFile>> {
        let table = self
            .table
            .get_or_init(|| WordTable::build(index, self.max_size));
        let Some(ids) = table.by_word.get(name) else {
            return Vec::new();
        };
        let wanted: Vec<&(String, Lang)> = ids
            .iter()
            .take(MAX_FILES_PER_LOOKUP)
            .filter_map(|&i| table.files.get(i as usize))
            .collect();
        let missing: Vec<&(String, Lang)> = {
            let parsed = lock(&self.parsed);
            wanted
                .iter()
                .filter(|(path, _)| !parsed.contains_key(path))
                .copied()
                .collect()
        };
        // Parsed outside the lock: another look-up may read what is already here meanwhile.
        let fresh: Vec<(String, Option<Arc<ParsedFile>>)> = missing
            .par_iter()
            .map(|(path, lang)| (path.clone(), self.parse(&index.root, path, *lang)))
            .collect();
        let mut parsed = lock(&self.parsed);
        parsed.extend(fresh);
        wanted
            .iter()
            .filter_map(|(path, _)| parsed.get(path).cloned().flatten())
            .collect()
    }

    /// A generated file a look-up parsed (for its hits' containers and the preview).
    pub(super) fn parsed(&self, path: &str) -> Option<Arc<ParsedFile>> {
        lock(&self.parsed).get(path).cloned().flatten()
    }

    fn parse(&self, root: &Path, path: &str, lang: Lang) -> Option<Arc<ParsedFile>> {
        let text = load_generated(&root.join(path), path, self.max_size)?;
        let tags: FileTags = match parse_guarded(lang, path, &text, false) {
            Tagging::Done(tags) => tags,
            Tagging::QueryCompiling(_) => unparsed(),
        };
        let size = text.len() as u64;
        Some(Arc::new(ParsedFile::new(
            path.to_string(),
            lang,
            size,
            Arc::from(text),
            tags,
        )))
    }
}

impl WordTable {
    fn build(index: &Index, max_size: u64) -> WordTable {
        let mut files: Vec<(String, Lang)> = index
            .skipped
            .iter()
            .filter(|s| s.reason == SkipReason::Generated)
            .filter_map(|s| Some((s.path.clone(), Lang::from_path(&s.path)?)))
            .collect();
        if files.is_empty() {
            return WordTable::default();
        }
        settle_headers(index, &mut files);
        let mut total = 0u64;
        files.retain(|(path, _)| {
            let size = std::fs::symlink_metadata(index.root.join(path)).map_or(0, |m| m.len());
            total = total.saturating_add(size);
            size <= max_size && total <= MAX_TABLE_BYTES
        });
        let words: Vec<Vec<Box<str>>> = files
            .par_iter()
            .map(|(path, _)| {
                load_generated(&index.root.join(path), path, max_size)
                    .map(|text| words_of(&text))
                    .unwrap_or_default()
            })
            .collect();
        let mut by_word: HashMap<Box<str>, Vec<u32>> = HashMap::new();
        for (i, file_words) in words.into_iter().enumerate() {
            let id = u32::try_from(i).unwrap_or(u32::MAX);
            for w in file_words {
                by_word.entry(w).or_default().push(id);
            }
        }
        WordTable { files, by_word }
    }
}

/// Reads each generated `.h` header as C or C++ by the rule the walk applies to indexed ones
/// (`walk::headers::settle`): the code around it and its own first lines decide.
fn settle_headers(index: &Index, files: &mut [(String, Lang)]) {
    if !files
        .iter()
        .any(|(p, l)| *l == Lang::Cpp && headers::is_shared_header(p))
    {
        return;
    }
    let walked = |path: &str, lang: Lang| WalkedFile {
        rel_path: path.to_string(),
        abs_path: index.root.join(path),
        lang,
        size: 0,
        mtime_ns: 0,
    };
    let mut all: Vec<WalkedFile> = index
        .files
        .iter()
        .filter(|f| matches!(f.lang, Lang::C | Lang::Cpp))
        .map(|f| walked(&f.path, f.lang))
        .collect();
    let first = all.len();
    all.extend(files.iter().map(|(p, l)| walked(p, *l)));
    headers::settle(&mut all);
    for ((_, lang), w) in files.iter_mut().zip(&all[first..]) {
        *lang = w.lang;
    }
}

/// The distinct words of `text` that could name a definition: runs of letters, digits, `_`
/// and `$` not starting with a digit.
fn words_of(text: &str) -> Vec<Box<str>> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut seen: HashSet<&str> = HashSet::new();
    for word in text.split(|c: char| !is_word(c)) {
        if word.starts_with(|c: char| !c.is_ascii_digit()) {
            seen.insert(word);
        }
    }
    seen.into_iter().map(Box::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_identifiers() {
        let mut w = words_of("int yy_lex(void) { return 0x1f + $x + épée; }");
        w.sort();
        let w: Vec<&str> = w.iter().map(|b| &**b).collect();
        assert_eq!(w, ["$x", "int", "return", "void", "yy_lex", "épée"]);
    }
}
