//! Query text → a query plan: weighted terms, name candidates for symbol matching, and the
//! "concepts" used to measure how much of the query a hit covers. Runs on the querying
//! thread; allocation is proportional to the query, never to the index.
//!
//! A query is a sequence of positions: English words (`createServer`, `order`) and Chinese
//! glossary words (`导出` → export). Each non-stopword position is one concept; its terms
//! are alternatives (a word's identifier parts; a Chinese word's bigrams and English
//! expansions). Adjacent positions are also joined (`export order` → `exportorder`) to meet
//! identifiers written as one word.
//!
//! Before any of that, [`read`] decides whether the query is a look-up: one symbol, bare or
//! qualified in any notation people type (`A::b`, `A.b`, `A#b`, `Ns\\Class::method`,
//! `(*T).M`, `path/to/file.go:Func`, `file.py::test`), alone or inside a phrase ("where is X
//! defined", "who calls X", "X 在哪定义": `super::phrase`). A look-up is searched by its name
//! and ranked exact first (`run`'s tiers); its container and file say which definition of
//! that name comes first.

use super::build::name_key;
use super::glossary::Glossary;
use super::phrase;
use super::tokenize::{is_cjk, term_hash, TermClass, Tokenizer};
use super::{Intent, Lookup, SearchWeights};
use crate::engine::base::model::Lang;
use crate::engine::base::stopwords::is_stopword;
use crate::engine::base::words::{has_hump, normalize_name, query_pieces, QueryChar, QueryPiece};

/// Longest query considered, in bytes.
const MAX_QUERY_BYTES: usize = 2000;
/// Concepts beyond this many do not count toward coverage (bit mask width).
const MAX_CONCEPTS: usize = 64;

/// Generic commit-message words: kept, but weighted low.
const NOISE_WORDS: &[&str] = &[
    "fix",
    "fixes",
    "fixed",
    "bug",
    "bugs",
    "issue",
    "issues",
    "correctly",
    "properly",
    "ensure",
    "make",
    "allow",
    "avoid",
    "prevent",
    "improve",
    "support",
    "add",
    "wrong",
    "incorrect",
    "broken",
];

/// Chinese function words and question phrases that carry no search meaning.
const CJK_STOP: &[&str] = &[
    "的",
    "了",
    "在",
    "是",
    "和",
    "与",
    "或",
    "及",
    "把",
    "被",
    "将",
    "对",
    "从",
    "为",
    "吗",
    "呢",
    "啊",
    "吧",
    "得",
    "地",
    "着",
    "个",
    "这",
    "那",
    "哪",
    "一个",
    "这个",
    "那个",
    "如何",
    "怎么",
    "怎样",
    "哪里",
    "哪些",
    "哪个",
    "什么",
    "为什么",
    "可以",
    "需要",
    "实现",
    "功能",
    "代码",
    "问题",
    "修复",
    "相关",
    "地方",
    "时候",
    "进行",
];

/// Whether a lowercase query word makes a query about tests (see `TEST_WORDS`).
pub(crate) fn is_test_word(word: &str) -> bool {
    in_word_list(TEST_WORDS, word)
}

/// A word of the list, or (CJK, written without spaces) a run that holds one.
fn in_word_list(list: &[&str], word: &str) -> bool {
    list.iter()
        .any(|w| word == *w || (!word.is_ascii() && word.contains(w)))
}

/// Words that make a query about tests (tests are then not demoted).
const TEST_WORDS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "spec",
    "specs",
    "fixture",
    "fixtures",
    "e2e",
    "unittest",
    "mock",
    "mocks",
    // Test vocabulary of commit messages ("cover X", "deflake", "flaky on CI"); "case" is
    // not here: it is as often an edge case in the code as a test case.
    "cover",
    "covers",
    "coverage",
    "flaky",
    "测试",
    "单测",
    "单元测试",
];

/// Whether a lowercase query word makes a query about examples, playgrounds or benchmarks
/// (see `EXAMPLE_WORDS`).
fn is_example_word(word: &str) -> bool {
    in_word_list(EXAMPLE_WORDS, word)
}

/// Words that make a query about the code kept apart as secondary (examples, playgrounds,
/// benchmarks: `paths::classify`), so that code is not demoted, as `TEST_WORDS` lift the
/// tests' demotion. "doc" and "document" are not here: a commit that documents something
/// mostly edits the doc comments of the code itself; nor "sample", a noun of many domains
/// (a metric's samples, sampling in tracing).
const EXAMPLE_WORDS: &[&str] = &[
    "example",
    "examples",
    "snippet",
    "snippets",
    "demo",
    "demos",
    "playground",
    "playgrounds",
    "benchmark",
    "benchmarks",
    "bench",
    "示例",
    "例子",
    "样例",
    "演示",
    "基准",
];

/// Longest symbol read as a look-up, in bytes (a longer one is searched as words).
const MAX_SYMBOL_BYTES: usize = 512;

/// What a query asks, before its words are searched: a look-up's symbol, and the intent a
/// phrase gave it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryRead {
    /// Set when a phrase asked where a symbol is defined, who calls it or what it calls.
    pub intent: Option<Intent>,
    /// Set when the query is one symbol (bare or qualified), alone or inside a phrase.
    pub lookup: Option<Lookup>,
}

impl QueryRead {
    /// The text whose words are searched: a look-up's name, else the query as typed.
    pub(crate) fn search_text<'q>(&'q self, query: &'q str) -> &'q str {
        self.lookup.as_ref().map_or(query, |l| l.name.as_str())
    }
}

/// How `query` reads: a phrase around a symbol, a symbol alone, or neither (words to search).
pub fn read(query: &str) -> QueryRead {
    let query = cut(query, MAX_QUERY_BYTES);
    if let Some((intent, symbol, strict)) = phrase::match_phrase(query) {
        if let Some(lookup) = Lookup::parse(symbol).filter(|l| !strict || l.looks_like_code()) {
            return QueryRead {
                intent: Some(intent),
                lookup: Some(lookup),
            };
        }
    }
    QueryRead {
        intent: None,
        lookup: Lookup::parse(query),
    }
}

/// `s` cut to at most `max` bytes, at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A character of an identifier as a look-up reads one: letters and digits of any script
/// but CJK (Chinese text is words to search, or a phrase around the symbol), `_` and `$`.
pub(crate) fn is_ident_char(c: char) -> bool {
    (c.is_alphanumeric() || c == '_' || c == '$') && !is_cjk(c)
}

pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| is_ident_char(c) && !c.is_ascii_digit())
        && chars.all(is_ident_char)
}

/// The extensions of prose and config files: `README.md` or `config.json` typed alone is a
/// file name, not `README` qualifying `md`.
const DOC_EXTENSIONS: &[&str] = &[
    "md", "mdx", "txt", "rst", "json", "yaml", "yml", "toml", "lock", "html", "css", "xml", "ini",
    "cfg", "sh", "sql", "proto", "scm",
];

/// Whether `path` names a file by its extension (a code file mapscope reads, or a document).
fn is_file_name(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, ext)) = base.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && (Lang::from_path(base).is_some()
            || DOC_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}

impl Lookup {
    /// `text` read as one symbol, or None when it is not one (words, a sentence, a path, a
    /// number, punctuation). Notations: `::`, `.`, `#`, `\\` and `->` between segments;
    /// Go's `(*T).M` and `pkg.(*T).M`; generic arguments (`Vec<T>::new`) and a call's
    /// parentheses (`parse()`) dropped; `FILE:SYMBOL` or `FILE::SYMBOL` where FILE ends with
    /// a code file's extension; one pair of backticks around it all.
    pub fn parse(text: &str) -> Option<Lookup> {
        let text = text.trim();
        let text = text
            .strip_prefix('`')
            .and_then(|t| t.strip_suffix('`'))
            .unwrap_or(text)
            .trim();
        if text.is_empty() || text.len() > MAX_SYMBOL_BYTES || text.contains(char::is_whitespace) {
            return None;
        }
        // `FILE:SYMBOL`: the first colon after a file name with a known extension.
        let mut file = None;
        let mut rest = text;
        for (i, _) in text.match_indices(':') {
            let head = &text[..i];
            if is_file_name(head) && !head.contains("::") {
                file = Some(head.trim_start_matches("./").to_string());
                rest = text[i..].trim_start_matches(':');
                break;
            }
        }
        let segments = symbol_segments(rest)?;
        let (name, container) = segments.split_last()?;
        if file.is_none()
            && !container.is_empty()
            && !rest.contains([':', '#', '\\', '(', '<'])
            && is_file_name(rest)
        {
            // `utils.js`, `README.md`: a file's name.
            return None;
        }
        // The qualifier as typed: everything before the name's last occurrence.
        let qualifier = text.rfind(name.as_str()).map_or("", |at| &text[..at]);
        Some(Lookup {
            name: name.clone(),
            container: container.to_vec(),
            file,
            qualifier: qualifier.to_string(),
        })
    }

    /// Whether the symbol is written like code rather than like an English word: qualified,
    /// or an identifier with case changes, inner underscores or digits.
    pub(crate) fn looks_like_code(&self) -> bool {
        !self.container.is_empty() || self.file.is_some() || identifier_like(&self.name)
    }

    /// The symbol as typed, with `name` for its name: the qualifier as typed, then `name`
    /// (`Router::` + `fallback`).
    pub fn qualified(&self, name: &str) -> String {
        format!("{}{name}", self.qualifier)
    }
}

/// The identifier segments of a qualified symbol, outermost first; None unless it is one
/// (every segment an identifier, only separators between them).
fn symbol_segments(s: &str) -> Option<Vec<String>> {
    let s = s.strip_suffix("()").unwrap_or(s);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    // Generic arguments being skipped (`Vec<T>::new`, `Map<K,V>.get`), nesting depth.
    let mut depth = 0usize;
    // Inside a receiver group `(*T)`: the segment count when it opened.
    let mut receiver: Option<usize> = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if depth > 0 {
            match c {
                '<' | '[' => depth += 1,
                '>' | ']' => depth -= 1,
                _ => {}
            }
            continue;
        }
        if is_ident_char(c) {
            cur.push(c);
            continue;
        }
        if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        match c {
            '<' | '[' => depth = 1,
            ':' | '.' | '#' | '\\' => {}
            '-' if chars.peek() == Some(&'>') => {
                chars.next();
            }
            '(' if receiver.is_none() => receiver = Some(out.len()),
            '*' | '&' if receiver == Some(out.len()) => {}
            // A receiver holds one identifier and is followed by a separator: `(*T).M`.
            ')' if receiver.is_some_and(|open| out.len() == open + 1)
                && matches!(chars.peek(), Some('.' | '-')) =>
            {
                receiver = None;
            }
            _ => return None,
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    (depth == 0 && receiver.is_none() && !out.is_empty() && out.iter().all(|g| is_identifier(g)))
        .then_some(out)
}

#[derive(Debug, Clone)]
pub(crate) struct QTerm {
    pub hash: u64,
    pub weight: f32,
    /// Concepts this term stands for (bit i = concept i).
    pub concepts: u64,
    /// Typed in the query (not from glossary expansion or joining).
    pub literal: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct NameCand {
    /// As typed (for a case-exact comparison), or the joined words.
    pub text: String,
    /// Lowercase letters and digits.
    pub norm: String,
    pub key: u64,
    /// Typed as a single word in the query.
    pub typed: bool,
    /// Looks like code (`createServer`, `parse_args`, `v2`), not an English word.
    pub identifier_like: bool,
    /// How many query positions it spans.
    pub words: usize,
    pub concepts: u64,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct QueryPlan {
    pub terms: Vec<QTerm>,
    pub names: Vec<NameCand>,
    /// Weight of each concept (1, or the noise weight).
    pub concepts: Vec<f32>,
    pub wants_tests: bool,
    /// The query names examples, playgrounds or benchmarks (`EXAMPLE_WORDS`).
    pub wants_examples: bool,
}

impl QueryPlan {
    pub(crate) fn concept_weight(&self, mask: u64) -> f32 {
        self.concepts
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1u64 << i) != 0)
            .map(|(_, w)| *w)
            .sum()
    }

    pub(crate) fn total_concept_weight(&self) -> f32 {
        self.concepts.iter().sum()
    }

    /// Number of full-weight concepts, for scaling name matches of plain words.
    pub(crate) fn content_words(&self) -> usize {
        self.concepts.iter().filter(|w| **w >= 1.0).count()
    }

    pub(crate) fn literal_terms(&self) -> usize {
        self.terms.iter().filter(|t| t.literal).count()
    }
}

/// One position of the query.
#[derive(Debug, Clone)]
enum Pos {
    /// An English/identifier word, as typed.
    /// `ident` when it looks like code or was written in backticks.
    Word {
        text: String,
        ident: bool,
        concept: Option<usize>,
    },
    /// A glossary key found in Chinese text, with its expansions.
    Gloss {
        words: Vec<String>,
        concept: Option<usize>,
    },
    /// Chinese text the glossary does not know (bigrams only).
    Cjk,
    /// A stopword: breaks adjacency for joins.
    Stop,
}

fn identifier_like(word: &str) -> bool {
    let inner_underscore = word.trim_matches('_').contains('_');
    let camel = has_hump(word);
    let b = word.as_bytes();
    let has_digit = b.iter().any(u8::is_ascii_digit);
    let has_alpha = b.iter().any(u8::is_ascii_alphabetic);
    inner_underscore || camel || (has_digit && has_alpha)
}

struct Builder {
    tok: Tokenizer,
    plan: QueryPlan,
}

impl Builder {
    fn concept(&mut self, weight: f32) -> Option<usize> {
        if self.plan.concepts.len() >= MAX_CONCEPTS {
            return None;
        }
        self.plan.concepts.push(weight);
        Some(self.plan.concepts.len() - 1)
    }

    fn add_term(&mut self, text: &str, weight: f32, concepts: u64, literal: bool) {
        let hash = term_hash(text);
        if let Some(t) = self.plan.terms.iter_mut().find(|t| t.hash == hash) {
            t.weight = t.weight.max(weight);
            t.concepts |= concepts;
            t.literal |= literal;
            return;
        }
        self.plan.terms.push(QTerm {
            hash,
            weight,
            concepts,
            literal,
        });
    }

    /// All terms of `text` with one weight.
    fn add_text_terms(&mut self, text: &str, weight: f32, concepts: u64, literal: bool) {
        let terms = self.tok.collect(text);
        for (t, _) in terms {
            self.add_term(&t, weight, concepts, literal);
        }
    }

    fn add_name(&mut self, cand: NameCand) {
        if cand.norm.chars().nth(1).is_none() {
            return;
        }
        if let Some(c) = self.plan.names.iter_mut().find(|c| c.key == cand.key) {
            c.typed |= cand.typed;
            c.identifier_like |= cand.identifier_like;
            c.words = c.words.min(cand.words);
            c.concepts |= cand.concepts;
            return;
        }
        self.plan.names.push(cand);
    }
}

fn bit(concept: Option<usize>) -> u64 {
    concept.map_or(0, |c| 1u64 << c)
}

/// A piece of a CJK run: `[start, end)` in chars, the glossary expansions if it is a
/// glossary word, and whether it is a stop phrase.
type Piece = (usize, usize, Option<Vec<String>>, bool);

/// Splits a CJK run into glossary words, stop phrases and unknown stretches, longest match
/// first (a glossary word wins over a stop phrase of the same length).
fn segment_cjk(run: &[char], glossary: &Glossary) -> Vec<Piece> {
    let max_stop = CJK_STOP
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(1);
    let max_len = glossary.max_key_chars().max(max_stop);
    let mut out: Vec<Piece> = Vec::new();
    let mut i = 0;
    let mut buf = String::new();
    while i < run.len() {
        let mut best: Option<(usize, Option<Vec<String>>, bool)> = None;
        for len in (1..=max_len.min(run.len() - i)).rev() {
            buf.clear();
            buf.extend(&run[i..i + len]);
            if let Some(words) = glossary.get(&buf) {
                best = Some((len, Some(words.to_vec()), false));
                break;
            }
            if CJK_STOP.contains(&buf.as_str()) {
                best = Some((len, None, true));
                break;
            }
        }
        if let Some((len, words, stop)) = best {
            out.push((i, i + len, words, stop));
            i += len;
        } else {
            // Unknown character: extend the previous unknown stretch or start one.
            match out.last_mut() {
                Some(last) if last.2.is_none() && !last.3 && last.1 == i => last.1 = i + 1,
                _ => out.push((i, i + 1, None, false)),
            }
            i += 1;
        }
    }
    out
}

/// A query's plan, in three stages: its raw positions (words and CJK runs), then each
/// position's concept and literal terms, then the name candidates (each typed word, each
/// glossary word, and adjacent joins).
pub(crate) fn parse(query: &str, w: &SearchWeights, glossary: &Glossary) -> QueryPlan {
    let mut end = query.len().min(MAX_QUERY_BYTES);
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    let query = &query[..end];
    let mut b = Builder {
        tok: Tokenizer::default(),
        plan: QueryPlan::default(),
    };
    let raws = raw_positions(query);
    let any_word = |is: fn(&str) -> bool| {
        raws.iter().any(|r| match r {
            QueryPiece::Word(t, _) => is(&t.to_lowercase()),
            QueryPiece::Run(cs) => is(&cs.iter().collect::<String>()),
        })
    };
    b.plan.wants_tests = any_word(is_test_word);
    b.plan.wants_examples = any_word(is_example_word);
    let single_word = raws.len() == 1 && matches!(raws[0], QueryPiece::Word(..));
    let mut positions: Vec<Pos> = Vec::new();
    for raw in raws {
        match raw {
            QueryPiece::Word(text, code) => positions.push(b.word(text, code, single_word, w)),
            QueryPiece::Run(chars) => b.cjk_run(&chars, w, glossary, &mut positions),
        }
    }
    b.typed_names(&positions);
    b.adjacent_joins(&positions, w);
    b.plan
}

/// Words (letters, digits, `_`) and CJK runs, in order; a backtick toggles code.
fn raw_positions(query: &str) -> Vec<QueryPiece> {
    query_pieces(query, |c| {
        if is_cjk(c) {
            QueryChar::Run
        } else if c.is_alphanumeric() || c == '_' {
            QueryChar::Word
        } else {
            QueryChar::Other
        }
    })
}

impl Builder {
    /// A word's position: a stopword, or a concept with its literal terms.
    fn word(&mut self, text: String, code: bool, single_word: bool, w: &SearchWeights) -> Pos {
        let lower = text.to_lowercase();
        let ident = code || identifier_like(&text);
        if !ident && !single_word && is_stopword(&lower) {
            return Pos::Stop;
        }
        let noise = !ident && !single_word && NOISE_WORDS.contains(&lower.as_str());
        let weight = if noise { w.noise_term as f32 } else { 1.0 };
        let concept = self.concept(weight);
        if ident {
            // A typed identifier means that identifier: its joined form keeps full
            // weight, its words (`CallSpec2` → `call`, `spec`) are weaker evidence.
            let terms = self.tok.collect(&text);
            let multi = terms.iter().any(|t| t.1 == TermClass::Joined);
            for (t, class) in terms {
                let part = multi && class == TermClass::Part;
                let tw = if part {
                    weight * w.ident_part as f32
                } else {
                    weight
                };
                self.add_term(&t, tw, bit(concept), true);
            }
        } else {
            self.add_text_terms(&text, weight, bit(concept), true);
        }
        Pos::Word {
            text,
            ident,
            concept,
        }
    }

    /// A CJK run's positions: its glossary words, stop phrases and unknown stretches, each
    /// with its literal bigrams.
    fn cjk_run(
        &mut self,
        chars: &[char],
        w: &SearchWeights,
        glossary: &Glossary,
        positions: &mut Vec<Pos>,
    ) {
        let pieces = segment_cjk(chars, glossary);
        for (s, e, words, stop) in &pieces {
            let piece = &chars[*s..*e];
            if *stop {
                positions.push(Pos::Stop);
                continue;
            }
            let concept = self.concept(1.0);
            // Literal bigrams of this piece (a lone character stays a unigram).
            let text: String = piece.iter().collect();
            self.add_text_terms(&text, 1.0, bit(concept), true);
            match words {
                Some(words) => {
                    let gw = w.glossary_term as f32;
                    for word in words {
                        self.add_text_terms(word, gw, bit(concept), false);
                    }
                    positions.push(Pos::Gloss {
                        words: words.clone(),
                        concept,
                    });
                }
                None => positions.push(Pos::Cjk),
            }
        }
        // Bigrams spanning two neighbouring pieces still match running text, but
        // they stand for no single concept. Stop phrases cut the text.
        for stretch in pieces.split(|p| p.3) {
            if let (Some(first), Some(last)) = (stretch.first(), stretch.last()) {
                if stretch.len() > 1 {
                    let text: String = chars[first.0..last.1].iter().collect();
                    self.add_text_terms(&text, 1.0, 0, true);
                }
            }
        }
    }

    /// Name candidates of single positions: each typed word, each glossary word (its first
    /// two expansions).
    fn typed_names(&mut self, positions: &[Pos]) {
        for p in positions {
            match p {
                Pos::Word {
                    text,
                    ident,
                    concept,
                } => {
                    let norm = normalize_name(text);
                    self.add_name(NameCand {
                        key: name_key(&norm),
                        norm,
                        text: text.clone(),
                        typed: true,
                        identifier_like: *ident,
                        words: 1,
                        concepts: bit(*concept),
                    });
                }
                Pos::Gloss { words, concept } => {
                    for word in words.iter().take(2) {
                        let norm = normalize_name(word);
                        self.add_name(NameCand {
                            key: name_key(&norm),
                            norm,
                            text: word.clone(),
                            typed: false,
                            identifier_like: false,
                            words: 1,
                            concepts: bit(*concept),
                        });
                    }
                }
                Pos::Cjk | Pos::Stop => {}
            }
        }
    }

    /// Joins of two or three adjacent positions (`file graph` → `filegraph`), each a stemmed
    /// term and a name candidate; at most 8 spellings per window. A window holding a
    /// glossary word is joined in reverse order as well: Chinese puts the object before the
    /// verb (`折扣计算`, discount computing) where code names put the verb first
    /// (`computeDiscount`).
    fn adjacent_joins(&mut self, positions: &[Pos], w: &SearchWeights) {
        let alternatives = |p: &Pos| -> Vec<(String, u64)> {
            match p {
                Pos::Word { text, concept, .. } => vec![(normalize_name(text), bit(*concept))],
                Pos::Gloss { words, concept } => words
                    .iter()
                    .take(2)
                    .map(|w| (normalize_name(w), bit(*concept)))
                    .collect(),
                Pos::Cjk | Pos::Stop => Vec::new(),
            }
        };
        let mut windows: Vec<Vec<&Pos>> = Vec::new();
        for span in 2..=3 {
            for window in positions.windows(span) {
                windows.push(window.iter().collect());
                if window.iter().any(|p| matches!(p, Pos::Gloss { .. })) {
                    windows.push(window.iter().rev().collect());
                }
            }
        }
        for window in windows {
            let span = window.len();
            {
                let mut combos: Vec<(String, u64)> = vec![(String::new(), 0)];
                for p in window {
                    let alts = alternatives(p);
                    let mut next = Vec::new();
                    for (prefix, mask) in &combos {
                        for (alt, m) in &alts {
                            next.push((format!("{prefix}{alt}"), mask | m));
                        }
                    }
                    combos = next;
                    combos.truncate(8);
                }
                for (joined, mask) in combos {
                    if joined.is_empty() {
                        continue;
                    }
                    self.add_term(
                        &{
                            let mut s = joined.clone();
                            super::tokenize::stem_in_place(&mut s);
                            s
                        },
                        w.adjacent_join_term as f32,
                        mask,
                        false,
                    );
                    self.add_name(NameCand {
                        key: name_key(&joined),
                        norm: joined.clone(),
                        text: joined,
                        typed: false,
                        identifier_like: false,
                        words: span,
                        concepts: mask,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(q: &str) -> QueryPlan {
        parse(q, &SearchWeights::default(), Glossary::embedded())
    }

    fn has_term(p: &QueryPlan, t: &str) -> Option<f32> {
        p.terms
            .iter()
            .find(|x| x.hash == term_hash(t))
            .map(|x| x.weight)
    }

    #[test]
    fn english_query_terms_and_joins() {
        let p = plan("export the orders");
        assert_eq!(p.concepts.len(), 2);
        assert_eq!(has_term(&p, "export"), Some(1.0));
        assert_eq!(has_term(&p, "order"), Some(1.0));
        assert!(has_term(&p, "the").is_none());
        // `the` breaks adjacency: no join.
        assert!(has_term(&p, "exportorder").is_none());
        let p = plan("export orders");
        assert_eq!(has_term(&p, "exportorder"), Some(0.6));
        assert!(p
            .names
            .iter()
            .any(|n| n.norm == "exportorders" && n.words == 2));
    }

    #[test]
    fn backticked_words_are_code() {
        let p = plan("handle `typeof` in define");
        let n = p.names.iter().find(|n| n.text == "typeof").unwrap();
        assert!(n.identifier_like && n.typed);
        let n = p.names.iter().find(|n| n.text == "define").unwrap();
        assert!(!n.identifier_like);
        // `the` inside backticks is code, not a stopword.
        assert!(plan("rename `the` field")
            .names
            .iter()
            .any(|n| n.text == "the"));
    }

    #[test]
    fn identifier_query_is_a_typed_identifier() {
        let p = plan("createServer");
        let n = &p.names[0];
        assert!(n.typed && n.identifier_like);
        assert_eq!(n.text, "createServer");
        assert!(has_term(&p, "createserv").is_some() || has_term(&p, "createserver").is_some());
    }

    #[test]
    fn chinese_query_expands_through_glossary() {
        let p = plan("导出订单");
        assert_eq!(p.concepts.len(), 2);
        assert_eq!(has_term(&p, "导出"), Some(1.0));
        assert_eq!(has_term(&p, "出订"), Some(1.0));
        assert_eq!(has_term(&p, "export"), Some(0.8));
        assert_eq!(has_term(&p, "order"), Some(0.8));
        assert!(p.names.iter().any(|n| n.norm == "exportorder" && !n.typed));
    }

    #[test]
    fn chinese_words_join_in_code_order_too() {
        // 折扣计算: discount, compute; code says `computeDiscount`.
        let p = plan("购物车 折扣 计算");
        assert!(p
            .names
            .iter()
            .any(|n| n.norm == "computediscount" && n.words == 2));
        assert!(p.names.iter().any(|n| n.norm == "discountcompute"));
        // English words keep their typed order only.
        let p = plan("discount compute");
        assert!(!p.names.iter().any(|n| n.norm == "computediscount"));
    }

    #[test]
    fn mixed_query_and_stop_phrases() {
        let p = plan("notify session 过滤");
        assert_eq!(p.concepts.len(), 3);
        assert!(has_term(&p, "filter").is_some());
        assert!(p.names.iter().any(|n| n.norm == "sessionfilter"));
        let p = plan("如何导出订单");
        assert_eq!(p.concepts.len(), 2);
        assert!(has_term(&p, "如何").is_none());
        assert!(has_term(&p, "何导").is_none());
        assert_eq!(has_term(&p, "出订"), Some(1.0));
    }

    #[test]
    fn noise_and_test_words() {
        let p = plan("fix flaky test");
        assert!(p.wants_tests);
        assert!((p.concepts[0] - 0.3).abs() < 1e-6);
        assert!(plan("单元测试 失败").wants_tests);
        assert!(!plan("pytest fixtures").terms.is_empty());
        assert!(!plan("render page").wants_tests);
        assert!(plan("cover stale manifest after dedup").wants_tests);
        assert!(plan("deflake: retry is flaky on windows").wants_tests);
        assert!(!plan("handle the empty case").wants_tests);
        assert!(plan("Add chained rate limiter example").wants_examples);
        assert!(plan("bench: faster parse").wants_examples);
        assert!(plan("更新 示例 代码").wants_examples);
        assert!(!plan("Document keys of the theme drop").wants_examples);
        assert!(!plan("render page").wants_examples);
    }

    #[test]
    fn degenerate_queries() {
        assert!(plan("").terms.is_empty());
        assert!(plan("   ,,, ").terms.is_empty());
        assert!(plan("the of and").terms.is_empty());
        let long = "word ".repeat(5000);
        let p = plan(&long);
        assert!(p.concepts.len() <= 64);
        let _ = plan("é\u{0}日");
    }

    fn lookup(q: &str) -> Option<(String, Vec<String>, Option<String>)> {
        Lookup::parse(q).map(|l| (l.name, l.container, l.file))
    }

    type Parts = (String, Vec<String>, Option<String>);

    // An Option to compare with `lookup`'s.
    #[allow(clippy::unnecessary_wraps)]
    fn qualified(name: &str, container: &[&str]) -> Option<Parts> {
        Some((
            name.to_string(),
            container.iter().map(|s| (*s).to_string()).collect(),
            None,
        ))
    }

    #[test]
    fn symbols_in_every_notation() {
        assert_eq!(lookup("getRoute"), qualified("getRoute", &[]));
        assert_eq!(
            lookup("Router::fallback"),
            qualified("fallback", &["Router"])
        );
        assert_eq!(
            lookup("shared.updatePullRequest"),
            qualified("updatePullRequest", &["shared"])
        );
        assert_eq!(lookup("A::B#m"), qualified("m", &["A", "B"]));
        assert_eq!(lookup("Slim\\App::run"), qualified("run", &["Slim", "App"]));
        assert_eq!(lookup("(*T).M"), qualified("M", &["T"]));
        assert_eq!(
            lookup("store.(*Memory).Get"),
            qualified("Get", &["store", "Memory"])
        );
        assert_eq!(lookup("Vec<T>::new"), qualified("new", &["Vec"]));
        assert_eq!(lookup("$this->run"), qualified("run", &["$this"]));
        assert_eq!(lookup("`parse()`"), qualified("parse", &[]));
        assert_eq!(
            lookup("pkg/cmd/a.go:Run"),
            Some(("Run".into(), Vec::new(), Some("pkg/cmd/a.go".into())))
        );
        assert_eq!(
            lookup("./tests/test_x.py::test_get"),
            Some((
                "test_get".into(),
                Vec::new(),
                Some("tests/test_x.py".into())
            ))
        );
        let l = Lookup::parse("(*T).M").unwrap();
        assert_eq!(l.qualifier, "(*T).");
        assert_eq!(l.qualified("M"), "(*T).M");
    }

    #[test]
    fn words_paths_and_files_are_not_symbols() {
        for q in [
            "",
            "   ",
            "two words",
            "utils.js",
            "README.md",
            "src/a/b.rs",
            "42",
            "a+b",
            "(x",
            "Vec<T",
            "::",
        ] {
            assert_eq!(lookup(q), None, "{q:?}");
        }
    }

    #[test]
    fn phrases_read_as_look_ups_with_an_intent() {
        let r = read("who calls Router::fallback?");
        assert_eq!(r.intent, Some(Intent::Callers));
        assert_eq!(r.lookup.unwrap().name, "fallback");
        let r = read("谁调用了 parseConfig");
        assert_eq!(r.intent, Some(Intent::Callers));
        let r = read("parseConfig 在哪定义");
        assert_eq!(r.intent, Some(Intent::Definition));
        assert_eq!(r.search_text("parseConfig 在哪定义"), "parseConfig");
        // A loose phrase around an English word is words, not a look-up.
        let r = read("find duplicates");
        assert_eq!(r.intent, None);
        assert_eq!(r.lookup, None);
        assert_eq!(read("how auth works"), QueryRead::default());
    }
}
