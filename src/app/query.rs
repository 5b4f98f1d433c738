//! The query box's state: the text being typed and its cursor, the editing verbs (insert,
//! paste, delete, cursor moves) and the `ui::query` view model. A change to the text starts
//! the debounced search and map requests (`App::query_changed`). Runs on the UI thread.

use std::time::{Duration, Instant};

use super::action::Action;
use super::views::Hits;
use super::App;
use crate::ui::{Pane, QueryView};

#[derive(Default)]
pub(super) struct QueryState {
    pub text: String,
    /// Cursor position in characters (not bytes).
    pub cursor: usize,
}

impl QueryState {
    /// Puts the cursor after the last character.
    pub fn cursor_to_end(&mut self) {
        self.cursor = self.text.chars().count();
    }

    /// Applies one editing verb; returns whether the text changed.
    pub(super) fn edit(&mut self, action: Action) -> bool {
        match action {
            Action::ClearQuery => {
                self.text.clear();
                self.cursor = 0;
                true
            }
            Action::InsertChar(c) => self.insert_str(&c.to_string()),
            Action::Paste(s) => {
                // One line only: a pasted newline would otherwise end up in the query.
                let line: String = s.chars().filter(|c| !c.is_control()).collect();
                self.insert_str(&line)
            }
            Action::DeleteBack => {
                if self.cursor == 0 {
                    return false;
                }
                let at = byte_at(&self.text, self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
                true
            }
            Action::DeleteForward => {
                if self.cursor >= self.text.chars().count() {
                    return false;
                }
                let at = byte_at(&self.text, self.cursor);
                self.text.remove(at);
                true
            }
            Action::DeleteWord => self.delete_word(),
            Action::CursorLeft => {
                self.cursor = self.cursor.saturating_sub(1);
                false
            }
            Action::CursorRight => {
                self.cursor = (self.cursor + 1).min(self.text.chars().count());
                false
            }
            Action::CursorHome => {
                self.cursor = 0;
                false
            }
            Action::CursorEnd => {
                self.cursor_to_end();
                false
            }
            _ => false,
        }
    }

    fn insert_str(&mut self, s: &str) -> bool {
        if s.is_empty() {
            return false;
        }
        let at = byte_at(&self.text, self.cursor);
        self.text.insert_str(at, s);
        self.cursor += s.chars().count();
        true
    }

    /// Deletes the word before the cursor (and the spaces after it).
    fn delete_word(&mut self) -> bool {
        let chars: Vec<char> = self.text.chars().collect();
        let mut start = self.cursor;
        while start > 0 && chars[start - 1] == ' ' {
            start -= 1;
        }
        while start > 0 && chars[start - 1] != ' ' {
            start -= 1;
        }
        if start >= self.cursor {
            return false;
        }
        let (a, b) = (byte_at(&self.text, start), byte_at(&self.text, self.cursor));
        self.text.replace_range(a..b, "");
        self.cursor = start;
        true
    }

    /// The query box; its note sums up the hits of the query shown.
    pub fn view<'a>(&'a self, hits: Option<&Hits>) -> QueryView<'a> {
        let note = match hits {
            Some(h) if !self.text.trim().is_empty() => format!(
                "{} · {} · {:.0} ms",
                crate::ui::text::count(h.hits.len(), "hit", "hits"),
                h.confidence,
                h.latency_ms
            ),
            _ => String::new(),
        };
        QueryView {
            text: &self.text,
            cursor: self.cursor,
            note,
        }
    }
}

impl App {
    /// An editing verb: typing moves the focus to the query box; a changed text is searched.
    pub(super) fn edit_query(&mut self, action: Action) {
        let typed = matches!(action, Action::InsertChar(_) | Action::Paste(_));
        if self.query.edit(action) {
            if typed {
                self.layout.focus = Pane::Query;
            }
            self.query_changed();
        }
    }

    /// After a keystroke in the query: search and re-personalize the map once typing pauses.
    fn query_changed(&mut self) {
        self.dirty = true;
        if self.config.debounce_ms == 0 {
            self.request_search_now();
            self.request_map_now();
            return;
        }
        let due = Instant::now() + Duration::from_millis(self.config.debounce_ms);
        self.hits.due = Some(due);
        self.map.due = Some(due);
    }
}

/// Byte offset of the `n`th character.
fn byte_at(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_handle_wide_characters() {
        assert_eq!(byte_at("导出a", 1), 3);
        assert_eq!(byte_at("导出a", 5), 7);
    }

    #[test]
    fn deleting_a_word_takes_the_spaces_before_the_cursor() {
        let mut q = QueryState {
            text: "parse config  ".into(),
            cursor: 14,
        };
        assert!(q.edit(Action::DeleteWord));
        assert_eq!((q.text.as_str(), q.cursor), ("parse ", 6));
        q.cursor = 0;
        assert!(!q.edit(Action::DeleteWord));
    }
}
