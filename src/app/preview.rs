//! The preview pane's state: the file shown (its text split into lines, the marked range,
//! the scroll, and its colours once the highlighter answers the ticket it was asked with).
//! Follows the selected hit and builds the `ui::preview` view model. Runs on the UI thread;
//! highlighting runs on `app::highlight`'s worker.

use std::sync::Arc;

use ratatui::text::Line;

use super::highlight::{HighlightRequest, HighlightWorker, Highlighted};
use super::App;
use crate::ui::preview::center_scroll;
use crate::ui::{PreviewRow, PreviewView};

pub(super) struct PreviewState {
    /// The file shown; `None` when no hit is followed.
    file: Option<PreviewFile>,
    /// Numbers highlight requests: an answer for an older ticket is dropped.
    next_ticket: u64,
    highlighter: Option<HighlightWorker>,
}

/// The file shown in the preview.
struct PreviewFile {
    path: String,
    text: Arc<str>,
    /// Byte offset of each line's start.
    starts: Vec<usize>,
    mark: Option<(u32, u32)>,
    scroll: usize,
    /// Colours from the highlighter: the first line they are for, the lines, and whether
    /// they cover the whole file (the lines in view come first).
    styled: Option<Styled>,
    ticket: u64,
}

struct Styled {
    first: usize,
    lines: Vec<Line<'static>>,
    complete: bool,
}

impl Styled {
    fn get(&self, i: usize) -> Option<&Line<'static>> {
        i.checked_sub(self.first).and_then(|k| self.lines.get(k))
    }
}

impl PreviewFile {
    fn line_count(&self) -> usize {
        if self.text.is_empty() {
            0
        } else if self.text.ends_with('\n') {
            self.starts.len() - 1
        } else {
            self.starts.len()
        }
    }

    fn line(&self, i: usize) -> &str {
        let start = self.starts.get(i).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.text.len(), |e| e.saturating_sub(1));
        self.text.get(start..end.max(start)).unwrap_or("")
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(
        text.bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i + 1),
    );
    v
}

impl PreviewState {
    pub fn new(highlighter: Option<HighlightWorker>) -> PreviewState {
        PreviewState {
            file: None,
            next_ticket: 1,
            highlighter,
        }
    }

    pub fn is_open(&self) -> bool {
        self.file.is_some()
    }

    /// Warms the highlighter up on the index's main languages (see `app::highlight`): for
    /// each of the two extensions most of its files have, its largest file of at most
    /// `WARM_MAX_BYTES`, the one likeliest to use most of the syntax.
    pub fn warm_up(&self, texts: &std::collections::BTreeMap<String, Arc<str>>) {
        const WARM_MAX_BYTES: usize = 64 * 1024;
        let Some(hl) = &self.highlighter else {
            return;
        };
        /// Files of an extension, and its largest file small enough.
        type Sample<'a> = (usize, Option<(&'a String, &'a Arc<str>)>);
        let mut by_ext: std::collections::BTreeMap<&str, Sample<'_>> =
            std::collections::BTreeMap::new();
        for (path, text) in texts {
            let Some((_, ext)) = path.rsplit('/').next().and_then(|f| f.rsplit_once('.')) else {
                continue;
            };
            // Prose and config are searched, seldom previewed.
            if matches!(
                ext,
                "md" | "mdx" | "markdown" | "rst" | "txt" | "json" | "yaml" | "yml" | "toml"
            ) {
                continue;
            }
            let entry = by_ext.entry(ext).or_insert((0, None));
            entry.0 += 1;
            let bigger = entry.1.is_none_or(|(_, t)| t.len() < text.len());
            if text.len() <= WARM_MAX_BYTES && bigger {
                entry.1 = Some((path, text));
            }
        }
        let mut exts: Vec<_> = by_ext.into_values().collect();
        exts.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (_, sample) in exts.into_iter().take(2) {
            if let Some((path, text)) = sample {
                hl.warm(path.clone(), text.clone());
            }
        }
    }

    pub fn close(&mut self) {
        self.file = None;
    }

    pub fn path(&self) -> Option<&str> {
        self.file.as_ref().map(|p| p.path.as_str())
    }

    /// The file shown and its marked lines (to show it again later).
    pub fn shown(&self) -> Option<(String, Option<(u32, u32)>)> {
        self.file.as_ref().map(|p| (p.path.clone(), p.mark))
    }

    /// Where `$EDITOR` should open the file shown: the marked line, else the top line.
    pub fn editor_target(&self) -> Option<(String, u32)> {
        self.file
            .as_ref()
            .map(|p| (p.path.clone(), p.mark.map_or(p.scroll as u32 + 1, |m| m.0)))
    }

    /// Shows `path` with `mark` centred in `height` lines: plain text at once, colour when
    /// the highlighter is done. A path the index has no text for closes the preview.
    fn open(
        &mut self,
        path: &str,
        mark: Option<(u32, u32)>,
        height: usize,
        text: Option<Arc<str>>,
    ) {
        if let Some(p) = &mut self.file {
            if p.path == path {
                p.mark = mark;
                if let Some((s, e)) = mark {
                    p.scroll = center_scroll(s, e, height, p.line_count());
                }
                return;
            }
        }
        let Some(text) = text else {
            self.file = None;
            return;
        };
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        let mut p = PreviewFile {
            path: path.to_string(),
            starts: line_starts(&text),
            text: text.clone(),
            mark,
            scroll: 0,
            styled: None,
            ticket,
        };
        if let Some((s, e)) = mark {
            p.scroll = center_scroll(s, e, height, p.line_count());
        }
        let view = (p.scroll, height);
        self.file = Some(p);
        if let Some(hl) = &self.highlighter {
            hl.request(HighlightRequest {
                ticket,
                path: path.to_string(),
                text,
                view,
            });
        }
    }

    fn scroll(&mut self, delta: isize, height: usize) {
        if let Some(p) = &mut self.file {
            let max = p.line_count().saturating_sub(height);
            p.scroll = (p.scroll as isize)
                .saturating_add(delta)
                .clamp(0, max as isize) as usize;
        }
    }

    /// Takes the highlighter's colours if they are for the file shown; returns whether.
    pub fn on_highlighted(&mut self, h: Highlighted) -> bool {
        match &mut self.file {
            Some(p) if p.ticket == h.ticket && p.path == h.path => {
                // A late first pass never replaces the whole file's colours.
                if p.styled.as_ref().is_some_and(|s| s.complete) && !h.complete {
                    return false;
                }
                p.styled = Some(Styled {
                    first: h.first,
                    lines: h.lines,
                    complete: h.complete,
                });
                true
            }
            _ => false,
        }
    }

    /// The visible `height` lines of the file shown (`indexing`: no index yet).
    fn view(&self, height: usize, indexing: bool) -> PreviewView<'_> {
        let Some(p) = &self.file else {
            return PreviewView {
                title: "preview",
                rows: Vec::new(),
                first: 0,
                total: 0,
                mark: None,
                note: if indexing {
                    "indexing…"
                } else {
                    "select a hit to see its source"
                },
                highlighted: false,
            };
        };
        let total = p.line_count();
        let first = p.scroll.min(total.saturating_sub(1));
        let last = (first + height).min(total);
        let rows = (first..last)
            .map(|i| match p.styled.as_ref().and_then(|s| s.get(i)) {
                Some(line) => PreviewRow::Styled(line),
                None => PreviewRow::Plain(p.line(i)),
            })
            .collect();
        PreviewView {
            title: &p.path,
            rows,
            first,
            total,
            mark: p.mark,
            note: "empty file",
            highlighted: p.styled.is_some(),
        }
    }
}

impl App {
    /// Shows the selected hit's file with its line range marked.
    pub(super) fn preview_selected_hit(&mut self) {
        // The references pane's use site is shown instead.
        if self.refs_open() {
            return;
        }
        let Some(hit) = self.hits.selected_hit() else {
            return;
        };
        let path = hit.row.path.clone();
        let mark = Some((hit.row.start, hit.row.end.max(hit.row.start)));
        self.open_preview(&path, mark);
    }

    pub(super) fn open_preview(&mut self, path: &str, mark: Option<(u32, u32)>) {
        let height = self.preview_height();
        let text = self.file_text(path);
        self.preview.open(path, mark, height, text);
    }

    /// The text of `path`: the index's, or, for a hit in a file the index does not hold (a
    /// generated file a look-up read), the one its search sent.
    pub(super) fn file_text(&self, path: &str) -> Option<Arc<str>> {
        let indexed = self.index.snapshot.as_ref()?.texts.get(path).cloned();
        indexed.or_else(|| self.hits.list.as_ref()?.texts.get(path).cloned())
    }

    /// Re-reads the file shown from a new index (its text may have changed).
    pub(super) fn reload_preview(&mut self) {
        if let Some(p) = self.preview.file.take() {
            self.open_preview(&p.path, p.mark);
        }
    }

    pub(super) fn scroll_preview(&mut self, delta: isize) {
        let height = self.preview_height();
        self.preview.scroll(delta, height);
    }

    pub(super) fn preview_view(&self) -> PreviewView<'_> {
        self.preview
            .view(self.preview_height(), self.index.snapshot.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_lines_split_like_the_engine() {
        let text: Arc<str> = Arc::from("a\nbb\n\nc");
        let p = PreviewFile {
            path: String::new(),
            starts: line_starts(&text),
            text,
            mark: None,
            scroll: 0,
            styled: None,
            ticket: 0,
        };
        assert_eq!(p.line_count(), 4);
        assert_eq!(
            (0..4).map(|i| p.line(i)).collect::<Vec<_>>(),
            ["a", "bb", "", "c"]
        );
    }
}
