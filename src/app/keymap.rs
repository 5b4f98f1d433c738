//! Key chords ("ctrl-n", "shift-tab", "?") and the keymap from chords to actions, built from
//! the config's `[keys]` table. Also turns a terminal event into an action, which depends on
//! whether the query box has the focus (then printable keys are text). UI thread.

use std::collections::HashMap;

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};

use super::action::{Action, BINDABLE};

/// A key with its modifiers, normalised so that `Y` and `shift-y` are the same chord.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyChord {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl KeyChord {
    pub fn new(code: KeyCode, mods: KeyModifiers) -> Self {
        let mut mods = mods & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        // Terminals report the shifted character itself (`Y`, `?`), sometimes with SHIFT and
        // sometimes without: the character alone identifies the key.
        let code = match code {
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        KeyChord { code, mods }
    }

    pub fn from_event(k: &KeyEvent) -> Self {
        KeyChord::new(k.code, k.modifiers)
    }

    /// Parses "ctrl-n", "alt-enter", "shift-tab", "pagedown", "f5", "space", "?", "+".
    pub fn parse(s: &str) -> Result<KeyChord, String> {
        if s.is_empty() {
            return Err("empty key".to_string());
        }
        // A single character is the key itself, even `-` or `+`.
        if s.chars().count() == 1 {
            let c = s.chars().next().unwrap_or(' ');
            return Ok(KeyChord::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
        let mut mods = KeyModifiers::NONE;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            let (m, len) = if lower.starts_with("ctrl-") {
                (KeyModifiers::CONTROL, 5)
            } else if lower.starts_with("alt-") {
                (KeyModifiers::ALT, 4)
            } else if lower.starts_with("shift-") {
                (KeyModifiers::SHIFT, 6)
            } else {
                break;
            };
            if rest.len() == len {
                break;
            }
            mods |= m;
            rest = &rest[len..];
        }
        let code = if rest.chars().count() == 1 {
            let c = rest.chars().next().unwrap_or(' ');
            // `ctrl-N` means the same key as `ctrl-n` (terminals can't tell them apart).
            if mods.contains(KeyModifiers::CONTROL) {
                KeyCode::Char(c.to_ascii_lowercase())
            } else {
                KeyCode::Char(c)
            }
        } else {
            match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" if mods.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                "insert" => KeyCode::Insert,
                "space" => KeyCode::Char(' '),
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" | "pgup" => KeyCode::PageUp,
                "pagedown" | "pgdn" => KeyCode::PageDown,
                other => match other.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    Some(n) if (1..=24).contains(&n) => KeyCode::F(n),
                    _ => return Err(format!("unknown key `{rest}`")),
                },
            }
        };
        Ok(KeyChord::new(code, mods))
    }

    /// The chord written the way `parse` reads it.
    pub fn display(&self) -> String {
        let mut s = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            s.push_str("ctrl-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            s.push_str("alt-");
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            s.push_str("shift-");
        }
        match self.code {
            KeyCode::Char(' ') => s.push_str("space"),
            KeyCode::Char(c) => s.push(c),
            KeyCode::Enter => s.push_str("enter"),
            KeyCode::Esc => s.push_str("esc"),
            KeyCode::Tab => s.push_str("tab"),
            KeyCode::BackTab => s.push_str("shift-tab"),
            KeyCode::Backspace => s.push_str("backspace"),
            KeyCode::Delete => s.push_str("delete"),
            KeyCode::Insert => s.push_str("insert"),
            KeyCode::Up => s.push_str("up"),
            KeyCode::Down => s.push_str("down"),
            KeyCode::Left => s.push_str("left"),
            KeyCode::Right => s.push_str("right"),
            KeyCode::Home => s.push_str("home"),
            KeyCode::End => s.push_str("end"),
            KeyCode::PageUp => s.push_str("pageup"),
            KeyCode::PageDown => s.push_str("pagedown"),
            KeyCode::F(n) => s.push_str(&format!("f{n}")),
            other => s.push_str(&format!("{other:?}").to_lowercase()),
        }
        s
    }
}

/// Chords → actions.
#[derive(Debug, Clone, Default)]
pub struct Keymap {
    bindings: HashMap<KeyChord, Action>,
}

impl Keymap {
    pub fn bind(&mut self, chord: KeyChord, action: Action) {
        self.bindings.insert(chord, action);
    }

    pub fn unbind(&mut self, chord: &KeyChord) {
        self.bindings.remove(chord);
    }

    pub fn get(&self, chord: &KeyChord) -> Option<&Action> {
        self.bindings.get(chord)
    }

    /// The chords bound to `action`, sorted for display.
    pub fn keys_for(&self, action: &Action) -> Vec<String> {
        let mut keys: Vec<String> = self
            .bindings
            .iter()
            .filter(|(_, a)| *a == action)
            .map(|(k, _)| k.display())
            .collect();
        keys.sort_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b)));
        keys
    }

    /// Help rows, in `BINDABLE` order: (keys, action name, description). Unbound actions
    /// are left out.
    pub fn help(&self) -> Vec<(String, &'static str, &'static str)> {
        let mut rows = Vec::new();
        for (action, name, desc) in BINDABLE {
            let keys = self.keys_for(action);
            if !keys.is_empty() {
                rows.push((keys.join(", "), *name, *desc));
            }
        }
        rows
    }

    /// Maps a terminal event to an action. With the query box focused, printable keys
    /// (no ctrl/alt) are text and the line-editing keys edit; everything else goes through
    /// the keymap.
    pub fn action_for(&self, event: &Event, query_focused: bool) -> Option<Action> {
        match event {
            Event::Key(k) if k.kind != KeyEventKind::Release => self.key_action(k, query_focused),
            Event::Paste(s) if query_focused => Some(Action::Paste(s.clone())),
            Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
            Event::Mouse(m) => match m.kind {
                MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
                    x: m.column,
                    y: m.row,
                }),
                MouseEventKind::Drag(MouseButton::Left) => Some(Action::Drag {
                    x: m.column,
                    y: m.row,
                }),
                MouseEventKind::Up(MouseButton::Left) => Some(Action::Release),
                MouseEventKind::ScrollDown => Some(Action::Scroll {
                    x: m.column,
                    y: m.row,
                    down: true,
                }),
                MouseEventKind::ScrollUp => Some(Action::Scroll {
                    x: m.column,
                    y: m.row,
                    down: false,
                }),
                _ => None,
            },
            _ => None,
        }
    }

    fn key_action(&self, k: &KeyEvent, query_focused: bool) -> Option<Action> {
        let chord = KeyChord::from_event(k);
        if query_focused {
            let ctrl = chord.mods.contains(KeyModifiers::CONTROL);
            let alt = chord.mods.contains(KeyModifiers::ALT);
            match (chord.code, ctrl, alt) {
                (KeyCode::Char(c), false, false) => return Some(Action::InsertChar(c)),
                (KeyCode::Backspace, _, false) => return Some(Action::DeleteBack),
                (KeyCode::Delete, false, false) => return Some(Action::DeleteForward),
                (KeyCode::Left, false, false) => return Some(Action::CursorLeft),
                (KeyCode::Right, false, false) => return Some(Action::CursorRight),
                (KeyCode::Home, false, false) | (KeyCode::Char('a'), true, false) => {
                    return Some(Action::CursorHome)
                }
                (KeyCode::End, false, false) | (KeyCode::Char('e'), true, false) => {
                    return Some(Action::CursorEnd)
                }
                (KeyCode::Char('w'), true, false) => return Some(Action::DeleteWord),
                _ => {}
            }
        }
        self.get(&chord).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> Event {
        Event::Key(KeyEvent::new(code, mods))
    }

    #[test]
    fn chords_parse_and_print_back() {
        for s in [
            "ctrl-n",
            "alt-x",
            "shift-tab",
            "enter",
            "esc",
            "pagedown",
            "f5",
            "space",
            "?",
            "+",
            "-",
            "Y",
            "ctrl-alt-k",
        ] {
            let c = KeyChord::parse(s).unwrap();
            assert_eq!(KeyChord::parse(&c.display()).unwrap(), c, "{s}");
        }
        assert_eq!(
            KeyChord::parse("backtab").unwrap(),
            KeyChord::parse("shift-tab").unwrap()
        );
        assert_eq!(
            KeyChord::parse("ctrl-N").unwrap(),
            KeyChord::parse("ctrl-n").unwrap()
        );
        assert!(KeyChord::parse("hyper-x").is_err());
        assert!(KeyChord::parse("").is_err());
        assert!(KeyChord::parse("f99").is_err());
    }

    #[test]
    fn shifted_letters_match_with_or_without_shift() {
        let mut km = Keymap::default();
        km.bind(KeyChord::parse("Y").unwrap(), Action::CopyMapMarkdown);
        let ev = key(KeyCode::Char('Y'), KeyModifiers::SHIFT);
        assert_eq!(km.action_for(&ev, false), Some(Action::CopyMapMarkdown));
        let ev = key(KeyCode::Char('Y'), KeyModifiers::NONE);
        assert_eq!(km.action_for(&ev, false), Some(Action::CopyMapMarkdown));
    }

    #[test]
    fn query_focus_turns_letters_into_text() {
        let mut km = Keymap::default();
        km.bind(KeyChord::parse("q").unwrap(), Action::Quit);
        km.bind(KeyChord::parse("ctrl-c").unwrap(), Action::Quit);
        km.bind(KeyChord::parse("down").unwrap(), Action::SelectNext);
        let q = key(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(km.action_for(&q, true), Some(Action::InsertChar('q')));
        assert_eq!(km.action_for(&q, false), Some(Action::Quit));
        let cc = key(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(km.action_for(&cc, true), Some(Action::Quit));
        let down = key(KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(km.action_for(&down, true), Some(Action::SelectNext));
        let bs = key(KeyCode::Backspace, KeyModifiers::NONE);
        assert_eq!(km.action_for(&bs, true), Some(Action::DeleteBack));
    }

    #[test]
    fn release_events_are_ignored() {
        let mut km = Keymap::default();
        km.bind(KeyChord::parse("q").unwrap(), Action::Quit);
        let mut k = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        k.kind = KeyEventKind::Release;
        assert_eq!(km.action_for(&Event::Key(k), false), None);
    }
}
