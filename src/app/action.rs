//! The user's verbs. One enum; the variants a keymap may name have snake_case serde names
//! (`"ctrl-n" = "select_next"`), the internal ones (typed text, mouse, resize) are skipped.
//! Plain data, used on the UI thread.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    FocusQuery,
    Back,
    NextPane,
    PrevPane,
    Help,
    SelectNext,
    SelectPrev,
    PageDown,
    PageUp,
    SelectFirst,
    SelectLast,
    Confirm,
    BudgetUp,
    BudgetDown,
    CycleTokenizer,
    ToggleFocusFile,
    ExcludeFile,
    ExcludeSymbol,
    ClearSteering,
    Why,
    Cut,
    References,
    ToggleSignals,
    ToggleMapFull,
    MapWider,
    MapNarrower,
    OpenEditor,
    CopyMap,
    CopyMapMarkdown,
    CopyCitation,
    CopyExcerpt,
    SaveMap,
    Reload,
    ClearQuery,
    #[serde(skip)]
    InsertChar(char),
    #[serde(skip)]
    Paste(String),
    #[serde(skip)]
    DeleteBack,
    #[serde(skip)]
    DeleteForward,
    #[serde(skip)]
    DeleteWord,
    #[serde(skip)]
    CursorLeft,
    #[serde(skip)]
    CursorRight,
    #[serde(skip)]
    CursorHome,
    #[serde(skip)]
    CursorEnd,
    #[serde(skip)]
    Resize(u16, u16),
    #[serde(skip)]
    Click {
        x: u16,
        y: u16,
    },
    #[serde(skip)]
    Scroll {
        x: u16,
        y: u16,
        down: bool,
    },
    /// Mouse moved with the left button held.
    #[serde(skip)]
    Drag {
        x: u16,
        y: u16,
    },
    #[serde(skip)]
    Release,
}

/// Every bindable action with its config name and help text, in the order help lists them.
pub const BINDABLE: &[(Action, &str, &str)] = &[
    (
        Action::FocusQuery,
        "focus_query",
        "back to the query box (hits and map update as you type)",
    ),
    (
        Action::Back,
        "back",
        "back: close a pop-up or refs view, leave the query box",
    ),
    (Action::NextPane, "next_pane", "next pane"),
    (Action::PrevPane, "prev_pane", "previous pane"),
    (
        Action::SelectNext,
        "select_next",
        "next hit / map file, scroll preview down",
    ),
    (
        Action::SelectPrev,
        "select_prev",
        "previous hit / map file, scroll preview up",
    ),
    (Action::PageDown, "page_down", "one page down"),
    (Action::PageUp, "page_up", "one page up"),
    (Action::SelectFirst, "select_first", "first item"),
    (Action::SelectLast, "select_last", "last item"),
    (
        Action::Confirm,
        "confirm",
        "open the selected hit in the preview",
    ),
    (
        Action::BudgetUp,
        "budget_up",
        "map budget up (16 … 131072 tokens)",
    ),
    (Action::BudgetDown, "budget_down", "map budget down"),
    (
        Action::CycleTokenizer,
        "cycle_tokenizer",
        "cycle the tokenizer (o200k, cl100k)",
    ),
    (
        Action::ToggleFocusFile,
        "toggle_focus_file",
        "toggle the hit's (or map file's) file as a focus file",
    ),
    (
        Action::ExcludeFile,
        "exclude_file",
        "exclude the hit's (or map file's) file from the map",
    ),
    (
        Action::ExcludeSymbol,
        "exclude_symbol",
        "exclude the hit's symbol from the map",
    ),
    (
        Action::ClearSteering,
        "clear_steering",
        "clear focus files and exclusions",
    ),
    (Action::Why, "why", "why is the selected file in the map?"),
    (
        Action::Cut,
        "cut",
        "what did not fit the budget, and what each would cost",
    ),
    (
        Action::References,
        "references",
        "callers and callees of the selected hit, map file or line",
    ),
    (
        Action::ToggleSignals,
        "toggle_signals",
        "show the score's signal breakdown",
    ),
    (
        Action::ToggleMapFull,
        "toggle_map_full",
        "map full screen on/off",
    ),
    (Action::MapWider, "map_wider", "widen the map pane"),
    (Action::MapNarrower, "map_narrower", "narrow the map pane"),
    (
        Action::OpenEditor,
        "open_editor",
        "open the hit in $EDITOR at its line",
    ),
    (
        Action::CopyMap,
        "copy_map",
        "copy the map text exactly as shown (ctrl-y works while typing)",
    ),
    (
        Action::CopyMapMarkdown,
        "copy_map_markdown",
        "copy the map as markdown",
    ),
    (
        Action::SaveMap,
        "save_map",
        "save the map shown to a file (asks where)",
    ),
    (
        Action::CopyCitation,
        "copy_citation",
        "copy the hit's path:start-end",
    ),
    (
        Action::CopyExcerpt,
        "copy_excerpt",
        "copy the hit's code (its whole line range)",
    ),
    (Action::Reload, "reload", "rebuild the index"),
    (Action::ClearQuery, "clear_query", "clear the query"),
    (Action::Help, "help", "this help"),
    (Action::Quit, "quit", "quit"),
];

impl Action {
    /// The bindable action with config name `name`.
    pub fn from_name(name: &str) -> Option<Action> {
        BINDABLE
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(a, _, _)| a.clone())
    }

    /// The config name, for bindable actions.
    pub fn name(&self) -> Option<&'static str> {
        BINDABLE
            .iter()
            .find(|(a, _, _)| a == self)
            .map(|(_, n, _)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_the_serde_names() {
        for (action, name, _) in BINDABLE {
            let v = serde_json::to_value(action).unwrap();
            assert_eq!(v, serde_json::Value::String((*name).to_string()));
            let back: Action = serde_json::from_value(v).unwrap();
            assert_eq!(&back, action);
            assert_eq!(Action::from_name(name).as_ref(), Some(action));
        }
    }

    #[test]
    fn internal_actions_cannot_be_named() {
        assert!(serde_json::from_str::<Action>("\"insert_char\"").is_err());
        assert!(Action::from_name("resize").is_none());
    }
}
