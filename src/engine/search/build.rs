//! Building a `SearchIndex`: chunking files into definitions, tokenising fields, and turning
//! everything into precomputed postings. Files are processed in parallel on rayon; the
//! merge is sequential and ordered by file index, so the index is deterministic.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use rayon::prelude::*;

use super::lex::{self, Seg};
use super::matcher::FuzzyTarget;
use super::tokenize::{stem_in_place, term_hash, TermClass, Tokenizer};
use super::{
    field, Chunk, ChunkKind, FuzzyName, PathPosting, Posting, SearchIndex, SearchWeights,
    TermEntry, TextDoc, Unit, NO_DEF,
};
use crate::engine::base::model::{DefKind, ParsedFile};
use crate::engine::base::paths;
use crate::engine::base::words::normalize_name;

/// Field indices (positions in per-field arrays).
const F_NAME: usize = 0;
const F_SIG: usize = 1;
const F_DOC: usize = 2;
const F_BODY: usize = 3;
const F_TEXT: usize = 4;
const NF: usize = field::COUNT;

/// Doc comments longer than this are licence headers, not documentation.
const MAX_DOC_LINES: u32 = 30;
/// Prose documents are cut into sections of at most this many lines.
const DOC_SECTION_LINES: usize = 40;
/// Only the beginning of a very large prose or config document is indexed.
const MAX_DOC_BYTES: usize = 256 * 1024;

/// A chunk before global statistics are known.
struct Draft {
    chunk: Chunk,
    /// (term hash, field index) while collecting; then aggregated into `tf`.
    raw: Vec<(u64, u8)>,
    tf: Vec<(u64, [u16; NF])>,
    len: [u32; NF],
}

impl Draft {
    fn new(chunk: Chunk) -> Draft {
        Draft {
            chunk,
            raw: Vec::new(),
            tf: Vec::new(),
            len: [0; NF],
        }
    }

    fn add_text(&mut self, tok: &mut Tokenizer, text: &str, field: usize) {
        let raw = &mut self.raw;
        let mut n = 0u32;
        tok.terms(text, |t, _| {
            raw.push((term_hash(t), field as u8));
            n += 1;
        });
        self.len[field] = self.len[field].saturating_add(n);
    }

    fn finish(&mut self) {
        self.raw.sort_unstable();
        let mut tf: Vec<(u64, [u16; NF])> = Vec::new();
        for &(h, f) in &self.raw {
            match tf.last_mut() {
                Some((last, counts)) if *last == h => {
                    counts[f as usize] = counts[f as usize].saturating_add(1);
                }
                _ => {
                    let mut counts = [0u16; NF];
                    counts[f as usize] = 1;
                    tf.push((h, counts));
                }
            }
        }
        self.tf = tf;
        self.raw = Vec::new();
    }
}

pub(super) fn build(files: &[ParsedFile], docs: &[TextDoc], weights: SearchWeights) -> SearchIndex {
    let t0 = Instant::now();
    let n_files = files.len();

    let mut per_unit: Vec<Vec<Draft>> = files
        .par_iter()
        .enumerate()
        .map_init(Tokenizer::default, |tok, (i, f)| {
            // Build output is never shown, so it is not indexed (nor counted in statistics).
            if paths::is_build_output(&f.path) {
                Vec::new()
            } else {
                code_chunks(f, i as u32, tok)
            }
        })
        .collect();
    let doc_drafts: Vec<(Vec<Draft>, Vec<u32>)> = docs
        .par_iter()
        .enumerate()
        .map_init(Tokenizer::default, |tok, (i, d)| {
            if paths::is_build_output(&d.path) || paths::is_noise_doc(&d.path) {
                (Vec::new(), Vec::new())
            } else {
                doc_chunks(d, (n_files + i) as u32, tok)
            }
        })
        .collect();
    let mut doc_lines = Vec::with_capacity(docs.len());
    for (drafts, lines) in doc_drafts {
        per_unit.push(drafts);
        doc_lines.push(lines);
    }

    let mut units: Vec<Unit> = files
        .iter()
        .map(|f| {
            let vendored = f.vendored;
            Unit {
                path: f.path.as_str().into(),
                lang: Some(f.lang),
                class: if vendored {
                    paths::PathClass::Test
                } else {
                    paths::classify(&f.path)
                },
                fixture: paths::is_fixture(&f.path),
                vendored,
                hidden: paths::is_build_output(&f.path),
            }
        })
        .collect();
    units.extend(docs.iter().map(|d| Unit {
        path: d.path.as_str().into(),
        lang: None,
        class: paths::classify(&d.path),
        fixture: paths::is_fixture(&d.path),
        vendored: false,
        hidden: paths::is_build_output(&d.path),
    }));

    let mut unit_chunks = Vec::with_capacity(per_unit.len() + 1);
    unit_chunks.push(0u32);
    for u in &per_unit {
        let last = unit_chunks.last().copied().unwrap_or(0);
        unit_chunks.push(last + u.len() as u32);
    }
    let (file_terms, file_postings) = file_postings(&per_unit[..n_files], &weights);
    let code_chunk_counts: Vec<usize> = per_unit[..n_files]
        .iter()
        .map(Vec::len)
        .filter(|&n| n > 0)
        .collect();
    let avg_chunks = if code_chunk_counts.is_empty() {
        0.0
    } else {
        code_chunk_counts.iter().sum::<usize>() as f32 / code_chunk_counts.len() as f32
    };
    let drafts: Vec<Draft> = per_unit.into_iter().flatten().collect();
    let (terms, postings) = postings(&drafts, &weights);
    let chunks: Vec<Chunk> = drafts.into_iter().map(|d| d.chunk).collect();
    let (names, fuzzy, fuzzy_chunks) = name_index(files, &chunks);
    let (path_terms, path_postings) = path_index(&units, &weights, &terms);

    let companions = companions(&units, n_files);

    SearchIndex {
        weights,
        n_files,
        units,
        unit_chunks,
        avg_chunks,
        chunks,
        terms,
        postings,
        path_terms,
        path_postings,
        file_terms,
        file_postings,
        names,
        fuzzy,
        fuzzy_chunks,
        companions,
        doc_lines,
        build_ms: t0.elapsed().as_secs_f64() * 1000.0,
    }
}

/// A file name shared by more implementation files than this (at the same closeness to a
/// test) is too common to pair tests by.
const MAX_SAME_STEM: usize = 4;

/// Pairs each test file with the implementation file it tests: same subject by name
/// (`test_python.py`, `head_test.go`, `build.spec.ts` → `python`, `head`, `build`), and among
/// several files of that name the closest by folder (`src/a/__tests__/x.spec.ts` tests
/// `src/a/x.ts`, not `other/x.ts`), so a common name like `manager.go` still pairs inside
/// its package. Returns (impl unit, test unit, share) sorted; the share splits a test over
/// equally close candidates.
fn companions(units: &[Unit], n_files: usize) -> Vec<(u32, u32, f32)> {
    let visible = || {
        units
            .iter()
            .enumerate()
            .take(n_files)
            .filter(|(_, u)| !u.hidden)
    };
    let mut impl_by_stem: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (u, unit) in visible().filter(|(_, u)| u.class == paths::PathClass::Impl) {
        for subject in paths::impl_subjects(&unit.path) {
            impl_by_stem.entry(subject).or_default().push(u as u32);
        }
    }
    let mut out = Vec::new();
    for (t, unit) in visible().filter(|(_, u)| u.class == paths::PathClass::Test) {
        let Some(cands) = paths::test_subject(&unit.path).and_then(|s| impl_by_stem.get(&s)) else {
            continue;
        };
        let test_dirs = paths::subject_dirs(&unit.path);
        let closeness = |i: u32| {
            let dirs = paths::subject_dirs(&units[i as usize].path);
            dirs.iter()
                .zip(&test_dirs)
                .take_while(|(a, b)| a == b)
                .count()
        };
        let best = cands.iter().map(|&i| closeness(i)).max().unwrap_or(0);
        let winners: Vec<u32> = cands
            .iter()
            .copied()
            .filter(|&i| closeness(i) == best)
            .collect();
        if winners.len() > MAX_SAME_STEM {
            continue;
        }
        let share = 1.0 / winners.len() as f32;
        out.extend(winners.into_iter().map(|i| (i, t as u32, share, best)));
    }
    // And each implementation file keeps only its nearest tests: `src/css.ts` is tested by
    // `src/__tests__/css.spec.ts`, not by an end-to-end `playground/css/css.spec.ts`.
    out.sort_by(|a, b| a.0.cmp(&b.0).then(b.3.cmp(&a.3)).then(a.1.cmp(&b.1)));
    let mut kept: Vec<(u32, u32, f32)> = Vec::with_capacity(out.len());
    let mut nearest = (u32::MAX, 0);
    for (i, t, share, closeness) in out {
        if i != nearest.0 {
            nearest = (i, closeness);
        }
        if closeness == nearest.1 {
            kept.push((i, t, share));
        }
    }
    kept
}

/// Definitions that get their own chunk: everything except variables local to a function
/// (those stay part of the function they live in).
fn code_chunks(file: &ParsedFile, unit: u32, tok: &mut Tokenizer) -> Vec<Draft> {
    let n_lines = file.line_count().max(1);
    let defs = &file.tags.defs;
    let mut drafts = vec![Draft::new(Chunk {
        unit,
        def: NO_DEF,
        start: 1,
        end: n_lines,
        kind: ChunkKind::File,
    })];
    // owner[line] = draft index; line 0 unused.
    let mut owner = vec![0u32; n_lines as usize + 2];
    let mut enclosing: Vec<u32> = vec![0];

    let mut order: Vec<usize> = (0..defs.len())
        .filter(|&i| {
            let l = defs[i].lines;
            l.start >= 1 && l.start <= n_lines
        })
        .collect();
    order.sort_by_key(|&i| (defs[i].lines.start, std::cmp::Reverse(defs[i].lines.end), i));
    // Stack of (end line, draft index, is function-like).
    let mut stack: Vec<(u32, u32, bool)> = Vec::new();
    for i in order {
        let d = &defs[i];
        let (start, end) = (d.lines.start, d.lines.end.min(n_lines).max(d.lines.start));
        while stack.last().is_some_and(|s| s.0 < start) {
            stack.pop();
        }
        let local_var =
            matches!(d.kind, DefKind::Variable | DefKind::Constant) && stack.iter().any(|s| s.2);
        if local_var {
            continue;
        }
        let idx = drafts.len() as u32;
        enclosing.push(stack.last().map_or(0, |s| s.1));
        drafts.push(Draft::new(Chunk {
            unit,
            def: i as u32,
            start,
            end,
            kind: ChunkKind::Def,
        }));
        // A field's chunk holds its name, for a look-up: its line and doc comment stay its
        // type's text, which is what a sentence about the type matches.
        if d.kind == DefKind::Field {
            continue;
        }
        for o in &mut owner[start as usize..=end as usize] {
            *o = idx;
        }
        let function_like = matches!(d.kind, DefKind::Function | DefKind::Method);
        stack.push((end, idx, function_like));
    }

    // Comment lines right above a definition are its documentation.
    let mut is_doc = vec![false; owner.len()];
    for idx in 1..drafts.len() {
        let is_field = defs
            .get(drafts[idx].chunk.def as usize)
            .is_some_and(|d| d.kind == DefKind::Field);
        if is_field {
            continue;
        }
        let parent = enclosing[idx];
        let mut line = drafts[idx].chunk.start;
        let mut taken = 0;
        while line > 1 && taken < MAX_DOC_LINES {
            let above = line - 1;
            let is_comment = file
                .line(above)
                .is_some_and(|l| lex::is_comment_line(l, file.lang));
            if !is_comment || owner[above as usize] != parent {
                break;
            }
            owner[above as usize] = idx as u32;
            is_doc[above as usize] = true;
            line = above;
            taken += 1;
        }
        // The chunk (scanned for evidence lines) starts at its doc comment.
        drafts[idx].chunk.start = line;
    }

    let sig_of = |draft: &Draft| -> Option<(u32, u32)> {
        let d = defs.get(draft.chunk.def as usize)?;
        Some((d.signature.start, d.signature.end.min(d.lines.end)))
    };
    let sigs: Vec<Option<(u32, u32)>> = drafts.iter().map(sig_of).collect();

    lex::lex(
        file.source().map_or("", |s| s),
        file.lang,
        |line, seg, text| {
            let Some(&o) = owner.get(line as usize) else {
                return;
            };
            let field = match seg {
                Seg::Code => match sigs[o as usize] {
                    Some((s, e)) if (s..=e).contains(&line) => F_SIG,
                    _ => F_BODY,
                },
                Seg::Comment | Seg::Str => {
                    if is_doc[line as usize] {
                        F_DOC
                    } else {
                        F_TEXT
                    }
                }
            };
            drafts[o as usize].add_text(tok, text, field);
        },
    );

    for draft in drafts.iter_mut().skip(1) {
        if let Some(d) = defs.get(draft.chunk.def as usize) {
            draft.add_text(tok, &d.name, F_NAME);
            if let Some(p) = &d.parent {
                draft.add_text(tok, p, F_SIG);
            }
        }
    }
    for d in &mut drafts {
        d.finish();
    }
    drafts
}

fn is_markdown(path: &str) -> bool {
    let lower = path.to_lowercase();
    [".md", ".mdx", ".markdown", ".rst", ".txt"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Sections of a prose document (split at markdown headings, else at blank lines once long
/// enough) and the document's line starts.
fn doc_chunks(doc: &TextDoc, unit: u32, tok: &mut Tokenizer) -> (Vec<Draft>, Vec<u32>) {
    let whole = doc.text();
    let mut cut = whole.len().min(MAX_DOC_BYTES);
    while !whole.is_char_boundary(cut) {
        cut -= 1;
    }
    let text: &str = &whole[..cut];
    let markdown = is_markdown(&doc.path);
    let mut line_starts = vec![0u32];
    let mut drafts: Vec<Draft> = Vec::new();
    let mut cur: Option<Draft> = None;
    let mut in_fence = false;
    let mut offset = 0usize;
    for (idx, line) in text.split('\n').enumerate() {
        let line_no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        if idx > 0 {
            line_starts.push(u32::try_from(offset).unwrap_or(u32::MAX));
        }
        offset += line.len() + 1;
        let trimmed = line.trim();
        if markdown && trimmed.starts_with("```") {
            in_fence = !in_fence;
        }
        let heading = markdown && !in_fence && trimmed.starts_with('#');
        let lines_so_far = cur
            .as_ref()
            .map_or(0, |d| (line_no - d.chunk.start) as usize);
        let split = heading
            || lines_so_far >= DOC_SECTION_LINES
            || (!markdown && trimmed.is_empty() && lines_so_far >= DOC_SECTION_LINES / 2);
        if split {
            if let Some(d) = cur.take() {
                drafts.push(d);
            }
        }
        let draft = cur.get_or_insert_with(|| {
            Draft::new(Chunk {
                unit,
                def: NO_DEF,
                start: line_no,
                end: line_no,
                kind: ChunkKind::Doc,
            })
        });
        draft.chunk.end = line_no;
        draft.add_text(tok, line, if heading { F_SIG } else { F_TEXT });
    }
    if let Some(d) = cur {
        drafts.push(d);
    }
    drafts.retain(|d| !d.raw.is_empty());
    for d in &mut drafts {
        d.finish();
    }
    (drafts, line_starts)
}

/// The BM25F field weights, in field order (name, signature, doc, body, text).
fn field_weights(w: &SearchWeights) -> [f64; NF] {
    [
        w.field_name,
        w.field_signature,
        w.field_doc,
        w.field_body,
        w.field_text,
    ]
}

/// BM25F: per field, tf normalised by the field's length against its average, weighted and
/// summed, then saturated; the impact `idf × tf~·(k1+1)/(tf~+k1)` is stored per posting.
fn postings(drafts: &[Draft], w: &SearchWeights) -> (Vec<TermEntry>, Vec<Posting>) {
    let fw = field_weights(w);
    let fb = [w.b_name, w.b_signature, w.b_doc, w.b_body, w.b_text];
    let mut sum = [0f64; NF];
    let mut cnt = [0f64; NF];
    for d in drafts {
        for f in 0..NF {
            if d.len[f] > 0 {
                sum[f] += f64::from(d.len[f]);
                cnt[f] += 1.0;
            }
        }
    }
    let avg: Vec<f64> = (0..NF)
        .map(|f| if cnt[f] > 0.0 { sum[f] / cnt[f] } else { 1.0 })
        .collect();

    struct Rec {
        hash: u64,
        chunk: u32,
        tf: f32,
        fields: u8,
    }
    let mut recs: Vec<Rec> = drafts
        .par_iter()
        .enumerate()
        .flat_map_iter(|(c, d)| {
            let norm: [f64; NF] =
                std::array::from_fn(|f| 1.0 - fb[f] + fb[f] * f64::from(d.len[f]) / avg[f]);
            d.tf.iter().map(move |(h, counts)| {
                let mut tf = 0.0;
                let mut fields = 0u8;
                for f in 0..NF {
                    if counts[f] > 0 {
                        tf += fw[f] * f64::from(counts[f]) / norm[f].max(1e-6);
                        fields |= field::BITS[f];
                    }
                }
                Rec {
                    hash: *h,
                    chunk: c as u32,
                    tf: tf as f32,
                    fields,
                }
            })
        })
        .collect();
    recs.par_sort_unstable_by_key(|r| (r.hash, r.chunk));

    let n = drafts.len() as f64;
    let k1 = w.k1;
    let mut terms = Vec::new();
    let mut postings = Vec::with_capacity(recs.len());
    let mut i = 0;
    while i < recs.len() {
        let h = recs[i].hash;
        let mut j = i;
        while j < recs.len() && recs[j].hash == h {
            j += 1;
        }
        let df = (j - i) as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        terms.push(TermEntry {
            hash: h,
            start: postings.len() as u32,
            len: (j - i) as u32,
        });
        for r in &recs[i..j] {
            let tf = f64::from(r.tf);
            postings.push(Posting {
                chunk: r.chunk,
                impact: (idf * tf * (k1 + 1.0) / (tf + k1)) as f32,
                fields: r.fields,
            });
        }
        i = j;
    }
    (terms, postings)
}

/// File-level BM25: each code file as one document (its chunks' field-weighted term counts
/// summed), so a file whose functions each mention part of the query scores as a whole,
/// not only through its best chunk.
fn file_postings(per_unit: &[Vec<Draft>], w: &SearchWeights) -> (Vec<TermEntry>, Vec<PathPosting>) {
    let fw = field_weights(w);
    // Per file: (term, weighted tf) sorted by term, and the weighted length.
    let docs: Vec<(Vec<(u64, f32)>, f64)> = per_unit
        .par_iter()
        .map(|drafts| {
            let mut all: Vec<(u64, f32)> = Vec::new();
            let mut len = 0.0;
            for d in drafts {
                len += fw
                    .iter()
                    .zip(&d.len)
                    .map(|(w, l)| w * f64::from(*l))
                    .sum::<f64>();
                all.extend(d.tf.iter().map(|(h, counts)| {
                    let tf: f64 = (0..NF).map(|f| fw[f] * f64::from(counts[f])).sum();
                    (*h, tf as f32)
                }));
            }
            all.sort_unstable_by_key(|x| x.0);
            let mut merged: Vec<(u64, f32)> = Vec::with_capacity(all.len());
            for (h, tf) in all {
                match merged.last_mut() {
                    Some(last) if last.0 == h => last.1 += tf,
                    _ => merged.push((h, tf)),
                }
            }
            (merged, len)
        })
        .collect();
    let n_docs = docs.iter().filter(|d| !d.0.is_empty()).count().max(1);
    let avg = docs.iter().map(|d| d.1).sum::<f64>() / n_docs as f64;
    let avg = if avg > 0.0 { avg } else { 1.0 };
    let mut recs: Vec<(u64, u32, f32)> = Vec::new();
    for (u, (terms, len)) in docs.iter().enumerate() {
        let norm = w.k1 * (1.0 - w.b_file + w.b_file * len / avg);
        recs.extend(terms.iter().map(|&(h, tf)| {
            let tf = f64::from(tf);
            (h, u as u32, (tf * (w.k1 + 1.0) / (tf + norm)) as f32)
        }));
    }
    recs.par_sort_unstable_by_key(|r| (r.0, r.1));
    unit_postings(&recs, n_docs as f64)
}

/// Postings from (term, unit, weight) records sorted by term then unit: one `TermEntry` per
/// term, each posting's impact the record's weight × the term's BM25 idf over `n` documents.
pub(super) fn unit_postings(
    recs: &[(u64, u32, f32)],
    n: f64,
) -> (Vec<TermEntry>, Vec<PathPosting>) {
    let mut terms = Vec::new();
    let mut postings = Vec::with_capacity(recs.len());
    for group in recs.chunk_by(|a, b| a.0 == b.0) {
        let df = group.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln() as f32;
        terms.push(TermEntry {
            hash: group[0].0,
            start: postings.len() as u32,
            len: group.len() as u32,
        });
        postings.extend(group.iter().map(|&(_, unit, weight)| PathPosting {
            unit,
            impact: weight * idf,
        }));
    }
    (terms, postings)
}

pub(super) fn name_key(normalized: &str) -> u64 {
    let mut s = normalized.to_string();
    stem_in_place(&mut s);
    term_hash(&s)
}

type NameIndex = (Vec<(u64, u32)>, Vec<FuzzyName>, Vec<u32>);

fn name_index(files: &[ParsedFile], chunks: &[Chunk]) -> NameIndex {
    let mut names = Vec::new();
    let mut by_name: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (c, chunk) in chunks.iter().enumerate() {
        if chunk.kind != ChunkKind::Def {
            continue;
        }
        let Some(def) = files
            .get(chunk.unit as usize)
            .and_then(|f| f.tags.defs.get(chunk.def as usize))
        else {
            continue;
        };
        let norm = normalize_name(&def.name);
        if norm.is_empty() {
            continue;
        }
        names.push((name_key(&norm), c as u32));
        by_name.entry(norm).or_default().push(c as u32);
    }
    names.sort_unstable();
    let mut fuzzy = Vec::with_capacity(by_name.len());
    let mut fuzzy_chunks = Vec::with_capacity(names.len());
    for (name, cs) in by_name {
        if let Some(target) = FuzzyTarget::new(&name) {
            fuzzy.push(FuzzyName {
                target,
                start: fuzzy_chunks.len() as u32,
                len: cs.len() as u32,
            });
            fuzzy_chunks.extend(cs);
        }
    }
    (names, fuzzy, fuzzy_chunks)
}

/// Path tokens: the file name (without extension) at full weight, folder names lower.
/// `code_terms` (the chunk postings' term table) tells which words the code uses, to split
/// path tokens written as one word (`path_compound`).
fn path_index(
    units: &[Unit],
    w: &SearchWeights,
    code_terms: &[TermEntry],
) -> (Vec<TermEntry>, Vec<PathPosting>) {
    let mut tok = Tokenizer::default();
    let mut recs: Vec<(u64, u32, f32)> = Vec::new();
    // (term, weight, whether it is one word rather than a joined identifier)
    let mut local: Vec<(String, f32, bool)> = Vec::new();
    let mut hashed: Vec<(u64, f32)> = Vec::new();
    let compound = w.path_compound as f32;
    let mut splits: HashMap<u64, Option<(u64, u64)>> = HashMap::new();
    let df = |h: u64| -> u32 {
        code_terms
            .binary_search_by_key(&h, |e| e.hash)
            .map_or(0, |i| code_terms[i].len)
    };
    for (u, unit) in units.iter().enumerate() {
        local.clear();
        let path: &str = &unit.path;
        let (dirs, base) = path.rsplit_once('/').unwrap_or(("", path));
        let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
        tok.terms(stem, |t, c| {
            local.push((t.to_string(), 1.0, c == TermClass::Part));
        });
        // A package's entry file (`config/__init__.py`, `server/index.ts`) is named by its
        // folder: that folder's name counts as the file name.
        if matches!(stem, "__init__" | "index") {
            let parent = dirs.rsplit('/').next().unwrap_or(dirs);
            tok.terms(parent, |t, c| {
                local.push((t.to_string(), 1.0, c == TermClass::Part));
            });
        }
        let dir_w = w.path_dir_token as f32;
        tok.terms(dirs, |t, c| {
            local.push((t.to_string(), dir_w, c == TermClass::Part));
        });
        hashed.clear();
        for (t, wt, one_word) in &local {
            let h = term_hash(t);
            hashed.push((h, *wt));
            if compound > 0.0 && *one_word {
                // Folder names repeat on every file below them: split each term once.
                let parts = *splits.entry(h).or_insert_with(|| {
                    split_compound(t, df).map(|(a, b)| (term_hash(&a), term_hash(&b)))
                });
                if let Some((a, b)) = parts {
                    hashed.push((a, wt * compound));
                    hashed.push((b, wt * compound));
                }
            }
        }
        hashed.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
        hashed.dedup_by_key(|x| x.0);
        recs.extend(hashed.iter().map(|&(h, wt)| (h, u as u32, wt)));
    }
    recs.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    unit_postings(&recs, units.len() as f64)
}

/// Shortest word a compound is split into (`tmp` + `dir`).
const COMPOUND_MIN_PART: usize = 3;
/// A word counts as used by the code when this many chunks contain it.
const COMPOUND_MIN_DF: u32 = 3;

/// Splits a term written as one lowercase word into the two words the code uses most
/// (`pluginmanager` → `plugin` + `manager`), when both are used more widely than the term
/// itself; `None` for words (`session`, `terminal`) that have no such split.
/// Why not a dictionary: a project's vocabulary (`tsdb`, `promql`, `vite`) is its own.
fn split_compound(term: &str, df: impl Fn(u64) -> u32) -> Option<(String, String)> {
    let n = term.len();
    if n < 2 * COMPOUND_MIN_PART || !term.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let whole = df(term_hash(term));
    let mut best: Option<(u32, usize)> = None;
    let (mut a, mut b) = (String::new(), String::new());
    let stemmed = |part: &str, buf: &mut String| {
        buf.clear();
        buf.push_str(part);
        stem_in_place(buf);
    };
    for i in COMPOUND_MIN_PART..=n - COMPOUND_MIN_PART {
        stemmed(&term[..i], &mut a);
        stemmed(&term[i..], &mut b);
        let support = df(term_hash(&a)).min(df(term_hash(&b)));
        if support >= COMPOUND_MIN_DF && support > whole && best.is_none_or(|(s, _)| support > s) {
            best = Some((support, i));
        }
    }
    let (_, i) = best?;
    stemmed(&term[..i], &mut a);
    stemmed(&term[i..], &mut b);
    Some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{ContainerRef, Definition, FileTags, Lang, LineRange};
    use std::sync::Arc;

    fn def(name: &str, kind: DefKind, lines: (u32, u32), parent: Option<&str>) -> Definition {
        Definition {
            name: name.into(),
            kind,
            lines: LineRange::new(lines.0, lines.1),
            signature: LineRange::new(lines.0, lines.0),
            parent: parent.map(Into::into),
            scope_lines: vec![],
            container: ContainerRef::NONE,
            declaration: false,
            lookup_only: false,
        }
    }

    #[test]
    fn chunks_follow_definitions_and_doc_comments() {
        let src = "import { x } from './x'\n\
                   // Exports orders as CSV.\n\
                   export function exportOrders(list) {\n\
                   \x20 const rows = list.map(toRow) // map\n\
                   \x20 return rows\n\
                   }\n\
                   class A {\n\
                   \x20 run() { return 1 }\n\
                   }\n";
        let tags = FileTags {
            defs: vec![
                def("exportOrders", DefKind::Function, (3, 6), None),
                def("rows", DefKind::Variable, (4, 4), Some("exportOrders")),
                def("A", DefKind::Class, (7, 9), None),
                def("run", DefKind::Method, (8, 8), Some("A")),
            ],
            ..Default::default()
        };
        let f = ParsedFile::new("src/a.ts".into(), Lang::TypeScript, 0, Arc::from(src), tags);
        let drafts = code_chunks(&f, 0, &mut Tokenizer::default());
        // File chunk + exportOrders + A + run; the local `rows` stays inside exportOrders.
        assert_eq!(drafts.len(), 4);
        let export = &drafts[1];
        assert_eq!(export.chunk.def, 0);
        let has =
            |d: &Draft, t: &str, f: usize| d.tf.iter().any(|(h, c)| *h == term_hash(t) && c[f] > 0);
        assert!(has(export, "export", F_NAME));
        assert!(has(export, "order", F_NAME));
        assert!(has(export, "exportorder", F_NAME));
        assert!(has(export, "csv", F_DOC));
        assert!(has(export, "row", F_BODY));
        assert!(has(export, "map", F_TEXT));
        assert!(has(&drafts[0], "import", F_BODY));
        assert!(!has(&drafts[0], "csv", F_DOC));
        assert!(has(&drafts[3], "run", F_NAME));
        assert!(has(&drafts[3], "a", F_SIG) || drafts[3].len[F_SIG] > 0);
    }

    #[test]
    fn compound_path_words_split_into_words_the_code_uses() {
        let common = [
            "plugin", "manager", "http", "util", "tmp", "dir", "sess", "ion",
        ];
        let df = |h: u64| -> u32 {
            if common.iter().any(|w| term_hash(w) == h) {
                10
            } else if h == term_hash("session") {
                40
            } else {
                0
            }
        };
        let split = |t: &str| split_compound(t, df);
        assert_eq!(
            split("pluginmanager"),
            Some(("plugin".into(), "manager".into()))
        );
        assert_eq!(split("httputil"), Some(("http".into(), "util".into())));
        assert_eq!(split("tmpdir"), Some(("tmp".into(), "dir".into())));
        // A word the code uses more than its would-be parts stays whole.
        assert_eq!(split("session"), None);
        // Unknown halves, short or non-lowercase terms are left alone.
        assert_eq!(split("pytester"), None);
        assert_eq!(split("tmpd"), None);
        assert_eq!(split("http2util"), None);
    }

    #[test]
    fn path_index_adds_the_words_of_a_compound_file_name() {
        let unit = |path: &str| Unit {
            path: path.into(),
            lang: Some(Lang::Python),
            class: paths::classify(path),
            fixture: false,
            vendored: false,
            hidden: false,
        };
        let units = [unit("testing/test_pluginmanager.py"), unit("src/plugin.py")];
        let mut code_terms: Vec<TermEntry> = ["plugin", "manager"]
            .iter()
            .map(|w| TermEntry {
                hash: term_hash(w),
                start: 0,
                len: 5,
            })
            .collect();
        code_terms.sort_by_key(|e| e.hash);
        let units_of = |w: &SearchWeights, word: &str| -> Vec<u32> {
            let (terms, postings) = path_index(&units, w, &code_terms);
            terms
                .iter()
                .find(|e| e.hash == term_hash(word))
                .map(|e| {
                    postings[e.start as usize..(e.start + e.len) as usize]
                        .iter()
                        .map(|p| p.unit)
                        .collect()
                })
                .unwrap_or_default()
        };
        let on = SearchWeights {
            path_compound: 1.0,
            ..SearchWeights::default()
        };
        let off = SearchWeights {
            path_compound: 0.0,
            ..SearchWeights::default()
        };
        assert_eq!(units_of(&on, "manager"), [0]);
        assert_eq!(units_of(&on, "plugin"), [0, 1]);
        assert_eq!(units_of(&off, "plugin"), [1]);
        assert!(units_of(&off, "manager").is_empty());
    }

    #[test]
    fn docs_split_at_headings() {
        let doc = TextDoc::new(
            "README.md".into(),
            Arc::from("# Title\nintro text\n## Usage\nrun it\n```\n# not a heading\n```\n"),
        );
        let (drafts, lines) = doc_chunks(&doc, 0, &mut Tokenizer::default());
        assert_eq!(drafts.len(), 2);
        assert_eq!((drafts[1].chunk.start, drafts[1].chunk.end), (3, 8));
        assert_eq!(lines[2], "# Title\nintro text\n".len() as u32);
    }
}
