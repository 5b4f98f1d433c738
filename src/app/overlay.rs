//! The pop-ups' state: which one is open (help, "why", "cut") and its scroll, the help text
//! generated from the keymap, and the "why" answer asked for. Handles the keys while a pop-up
//! is open and builds the `ui::overlay` view model. Runs on the UI thread; the "why" answer
//! comes from the engine session.

use super::action::Action;
use super::query::QueryState;
use super::{views, App};
use crate::engine::live::session::{EngineRequest, Generation, WhyData};
use crate::ui::{CutView, HelpLine, Level, Overlay, WhyView};

/// The save prompt: the path being typed, and the existing file Enter was pressed on once
/// (a second Enter on the same path replaces it).
pub(super) struct Prompt {
    pub input: QueryState,
    pub replace: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OverlayKind {
    Help,
    Why,
    Cut,
}

pub(super) struct OverlayState {
    open: Option<OverlayKind>,
    /// The save prompt, over everything else while it is open.
    pub prompt: Option<Prompt>,
    scroll: usize,
    help_lines: Vec<HelpLine>,
    /// The newest "why" request; only its answer is shown.
    why_requested: Generation,
    why: Option<WhyView>,
}

impl OverlayState {
    pub fn new(help_lines: Vec<HelpLine>) -> OverlayState {
        OverlayState {
            open: None,
            prompt: None,
            scroll: 0,
            help_lines,
            why_requested: 0,
            why: None,
        }
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    pub fn why(&self) -> Option<&WhyView> {
        self.why.as_ref()
    }

    /// Opens `kind` at its top; asking again for the open help or cut closes it (a second
    /// "why" asks about another file).
    pub fn toggle(&mut self, kind: OverlayKind) {
        if self.open == Some(kind) && kind != OverlayKind::Why {
            self.open = None;
        } else {
            self.open = Some(kind);
            self.scroll = 0;
        }
    }

    /// Scrolls to `line` (the app computes the end with `ui::overlay::max_scroll`).
    pub fn scroll_to(&mut self, line: usize) {
        self.scroll = line;
    }

    /// Keys while a pop-up is open: Esc/q-like keys close it, movement scrolls it.
    /// Returns true when the action was consumed.
    pub fn on_action(&mut self, action: &Action) -> bool {
        match action {
            Action::Back | Action::Confirm | Action::Click { .. } => {
                self.open = None;
                true
            }
            Action::Help if self.open == Some(OverlayKind::Help) => {
                self.open = None;
                true
            }
            Action::SelectNext => {
                self.scroll += 1;
                true
            }
            Action::SelectPrev => {
                self.scroll = self.scroll.saturating_sub(1);
                true
            }
            Action::PageDown => {
                self.scroll += 10;
                true
            }
            Action::PageUp => {
                self.scroll = self.scroll.saturating_sub(10);
                true
            }
            Action::SelectFirst => {
                self.scroll = 0;
                true
            }
            // Scrolled to the end by `App::update`, which knows the pop-up's size; it never
            // closes the pop-up (`F1` then `G` used to).
            Action::SelectLast => true,
            Action::Drag { .. } | Action::Release => true,
            Action::Scroll { down, .. } => {
                if *down {
                    self.scroll += 3;
                } else {
                    self.scroll = self.scroll.saturating_sub(3);
                }
                true
            }
            Action::Quit | Action::Resize(..) => false,
            Action::InsertChar(_) | Action::Paste(_) => true,
            _ => {
                // Any other command closes the pop-up first, then runs.
                self.open = None;
                false
            }
        }
    }

    /// The open pop-up; the cut needs the map's `cut` (none before the first map).
    pub fn view<'a>(&'a self, cut: Option<&'a CutView>) -> Option<Overlay<'a>> {
        if let Some(p) = &self.prompt {
            return Some(Overlay::Prompt {
                title: " save the map to ",
                input: crate::ui::QueryView {
                    text: &p.input.text,
                    cursor: p.input.cursor,
                    note: if p.replace.is_some() {
                        "exists: Enter replaces it · Esc cancels".into()
                    } else {
                        "Enter saves · Esc cancels".into()
                    },
                },
            });
        }
        let scroll = self.scroll;
        match self.open? {
            OverlayKind::Help => Some(Overlay::Help {
                lines: &self.help_lines,
                scroll,
            }),
            OverlayKind::Why => Some(Overlay::Why {
                view: self.why.as_ref().unwrap_or(&PENDING_WHY),
                scroll,
            }),
            OverlayKind::Cut => cut.map(|view| Overlay::Cut { view, scroll }),
        }
    }
}

impl App {
    /// Asks why the selected map file (or the hit's file) is in the map, and opens the
    /// pop-up that shows the answer when it arrives.
    pub(super) fn request_why(&mut self) {
        match self.target_file() {
            Some(path) if self.index.snapshot.is_some() => {
                self.map.params.query = self.query.text.clone();
                let g = self.generation();
                self.overlay.why_requested = g;
                self.overlay.why = None;
                self.overlay.toggle(OverlayKind::Why);
                self.engine.send(EngineRequest::Why {
                    generation: g,
                    path,
                    params: self.map.params.clone(),
                });
                self.pump();
            }
            _ => self.set_message("select a map file or a hit first", Level::Warning),
        }
    }

    pub(super) fn open_cut(&mut self) {
        if self.map.snapshot().is_some() {
            self.overlay.toggle(OverlayKind::Cut);
        } else {
            self.set_message("no map yet", Level::Warning);
        }
    }

    pub(super) fn on_why_ready(&mut self, generation: Generation, why: &WhyData) {
        if generation == self.overlay.why_requested {
            self.overlay.why = Some(views::why_view(why));
        }
    }
}

/// Shown while a "why" answer is on its way.
static PENDING_WHY: WhyView = WhyView {
    path: String::new(),
    rank: 0.0,
    position: 0,
    total_files: 0,
    personalization: 0.0,
    reasons: Vec::new(),
    in_map: false,
    map_position: None,
    map_files: 0,
    tokens: 0,
    incoming: Vec::new(),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_and_cut_toggle_but_a_second_why_stays_open_at_the_top() {
        let mut o = OverlayState::new(Vec::new());
        o.toggle(OverlayKind::Help);
        assert!(o.is_open());
        o.toggle(OverlayKind::Help);
        assert!(!o.is_open());
        o.toggle(OverlayKind::Why);
        assert!(o.on_action(&Action::PageDown));
        o.toggle(OverlayKind::Why);
        assert_eq!((o.open, o.scroll), (Some(OverlayKind::Why), 0));
    }

    #[test]
    fn an_open_pop_up_scrolls_swallows_typing_and_closes_on_other_commands() {
        let mut o = OverlayState::new(Vec::new());
        o.toggle(OverlayKind::Help);
        assert!(o.on_action(&Action::SelectNext));
        assert!(o.on_action(&Action::InsertChar('x')));
        assert_eq!(o.scroll, 1);
        assert!(!o.on_action(&Action::Quit));
        assert!(o.is_open(), "quit runs with the pop-up open");
        assert!(!o.on_action(&Action::BudgetUp));
        assert!(!o.is_open(), "another command closes it, then runs");
    }

    #[test]
    fn the_cut_shows_only_with_a_map() {
        let mut o = OverlayState::new(Vec::new());
        o.toggle(OverlayKind::Cut);
        assert!(o.view(None).is_none());
        let cut = CutView::default();
        assert!(matches!(o.view(Some(&cut)), Some(Overlay::Cut { .. })));
    }
}
