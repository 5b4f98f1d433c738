//! What the keys do, as the user is told: the one-line footer of keys that work in the
//! focused pane, and the `?` help grouped by pane with the legend of the badges, the score
//! and the status bar. Both are generated from the keymap, so a rebound key shows as bound.
//! Plain functions of the keymap; used on the UI thread.

use super::action::{Action, BINDABLE};
use super::keymap::{KeyChord, Keymap};
use crate::ui::{FooterHint, HelpLine, HelpRow, Pane};

/// The footer's hints for each pane, most useful first (the footer drops from the end when
/// the terminal is narrow). Actions listed together share one hint (`j/k move`).
type Hint = (&'static [Action], &'static str);

fn footer_actions(pane: Pane) -> &'static [Hint] {
    match pane {
        Pane::Query => &[
            (&[Action::Back, Action::NextPane], "panes"),
            (&[Action::CopyMap], "copy map"),
            (&[Action::Quit], "quit"),
            (&[Action::Help], "help"),
            (&[Action::SelectNext, Action::SelectPrev], "hits"),
            (&[Action::ClearQuery], "clear"),
        ],
        Pane::Hits => &[
            (&[Action::FocusQuery], "search"),
            (&[Action::SelectNext, Action::SelectPrev], "move"),
            (&[Action::CopyMap], "copy map"),
            (&[Action::Help], "help"),
            (&[Action::Quit], "quit"),
            (&[Action::CopyExcerpt], "copy code"),
            (&[Action::ToggleMapFull], "map"),
            (&[Action::ToggleFocusFile], "focus"),
            (&[Action::References], "refs"),
            (&[Action::Why], "why"),
            (&[Action::CopyCitation], "cite"),
            (&[Action::OpenEditor], "edit"),
        ],
        Pane::Preview => &[
            (&[Action::FocusQuery], "search"),
            (&[Action::SelectNext, Action::SelectPrev], "scroll"),
            (&[Action::CopyMap], "copy map"),
            (&[Action::Help], "help"),
            (&[Action::Quit], "quit"),
            (&[Action::CopyExcerpt], "copy code"),
            (&[Action::ToggleMapFull], "map"),
            (&[Action::OpenEditor], "edit"),
        ],
        Pane::Map => &[
            (&[Action::FocusQuery], "search"),
            (&[Action::SelectNext, Action::SelectPrev], "files"),
            (&[Action::CopyMap], "copy"),
            (&[Action::Help], "help"),
            (&[Action::Quit], "quit"),
            (&[Action::BudgetUp, Action::BudgetDown], "budget"),
            (&[Action::CopyMapMarkdown], "copy md"),
            (&[Action::SaveMap], "save"),
            (&[Action::Why], "why"),
            (&[Action::References], "refs"),
            (&[Action::Cut], "cut"),
            (&[Action::ToggleFocusFile], "focus"),
            (&[Action::ExcludeFile], "exclude"),
            (&[Action::ToggleMapFull], "full"),
        ],
    }
}

/// Keys in the references pane.
const REFS_FOOTER: &[Hint] = &[
    (&[Action::SelectNext, Action::SelectPrev], "move"),
    (&[Action::Confirm], "jump"),
    (&[Action::Back], "back"),
    (&[Action::References], "follow"),
    (&[Action::Help], "help"),
    (&[Action::Quit], "quit"),
    (&[Action::OpenEditor], "edit"),
];

/// The footer while the references pane has the focus.
pub fn footer_refs(keymap: &Keymap) -> Vec<FooterHint> {
    REFS_FOOTER
        .iter()
        .filter_map(|(group, label)| {
            let keys: Vec<String> = group
                .iter()
                .filter_map(|a| key_for(keymap, a, false))
                .collect();
            (!keys.is_empty()).then(|| FooterHint {
                keys: keys.join("/"),
                label: (*label).to_string(),
            })
        })
        .collect()
}

/// Keys for a pop-up (help, why, cut).
const OVERLAY_FOOTER: &[Hint] = &[
    (&[Action::Back], "close"),
    (&[Action::SelectNext, Action::SelectPrev], "scroll"),
    (&[Action::PageDown, Action::PageUp], "page"),
    (&[Action::Quit], "quit"),
];

/// The first key bound to `action` that works where the user is: in the query box only
/// chords that are not plain text (ctrl-y, f1, esc, arrows).
fn key_for(keymap: &Keymap, action: &Action, typing: bool) -> Option<String> {
    keymap
        .keys_for(action)
        .into_iter()
        .filter(|k| !typing || !is_text_key(k))
        .map(|k| short_key(&k))
        .next()
}

/// A key a focused query box takes as text.
fn is_text_key(key: &str) -> bool {
    KeyChord::parse(key).is_ok_and(|c| {
        matches!(c.code, ratatui::crossterm::event::KeyCode::Char(_))
            && !c.mods.intersects(
                ratatui::crossterm::event::KeyModifiers::CONTROL
                    | ratatui::crossterm::event::KeyModifiers::ALT,
            )
    })
}

/// Arrows as arrows: the footer is one line.
fn short_key(key: &str) -> String {
    match key {
        "down" => "↓".to_string(),
        "up" => "↑".to_string(),
        "left" => "←".to_string(),
        "right" => "→".to_string(),
        other => other.to_string(),
    }
}

/// The footer under the "nothing to map" screen.
pub fn footer_empty(keymap: &Keymap) -> Vec<FooterHint> {
    [
        (Action::Reload, "retry"),
        (Action::Help, "help"),
        (Action::Quit, "quit"),
    ]
    .iter()
    .filter_map(|(a, label)| {
        key_for(keymap, a, false).map(|keys| FooterHint {
            keys,
            label: (*label).to_string(),
        })
    })
    .collect()
}

/// The footer for the focused pane (or the open pop-up).
pub fn footer(keymap: &Keymap, focus: Pane, overlay: bool) -> Vec<FooterHint> {
    let typing = focus == Pane::Query && !overlay;
    let actions = if overlay {
        OVERLAY_FOOTER
    } else {
        footer_actions(focus)
    };
    let mut hints = Vec::new();
    if typing {
        hints.push(FooterHint {
            keys: "type".to_string(),
            label: "search".to_string(),
        });
    }
    for (group, label) in actions {
        let keys: Vec<String> = group
            .iter()
            .filter_map(|a| key_for(keymap, a, typing))
            .collect();
        if !keys.is_empty() {
            hints.push(FooterHint {
                keys: keys.join("/"),
                label: (*label).to_string(),
            });
        }
    }
    hints
}

/// Which `?` group each action is listed under.
const GROUPS: &[(&str, &[Action])] = &[
    (
        "anywhere",
        &[
            Action::FocusQuery,
            Action::Back,
            Action::NextPane,
            Action::PrevPane,
            Action::CopyMap,
            Action::Help,
            Action::Quit,
            Action::ClearQuery,
        ],
    ),
    (
        "hits (the preview follows the selected hit)",
        &[
            Action::SelectNext,
            Action::SelectPrev,
            Action::PageDown,
            Action::PageUp,
            Action::SelectFirst,
            Action::SelectLast,
            Action::Confirm,
            Action::References,
            Action::CopyCitation,
            Action::CopyExcerpt,
            Action::ExcludeSymbol,
            Action::ToggleSignals,
            Action::OpenEditor,
        ],
    ),
    (
        "map (and the hit's file from the hits pane)",
        &[
            Action::BudgetUp,
            Action::BudgetDown,
            Action::CycleTokenizer,
            Action::ToggleFocusFile,
            Action::ExcludeFile,
            Action::ClearSteering,
            Action::Why,
            Action::Cut,
            Action::CopyMapMarkdown,
            Action::SaveMap,
            Action::ToggleMapFull,
            Action::MapWider,
            Action::MapNarrower,
            Action::Reload,
        ],
    ),
];

/// What `?` shows: keys grouped by pane, then what the screen's symbols mean.
pub fn help(keymap: &Keymap) -> Vec<HelpLine> {
    let mut out = Vec::new();
    let mut listed: Vec<&Action> = Vec::new();
    for (heading, actions) in GROUPS {
        out.push(HelpLine::Heading((*heading).to_string()));
        for action in *actions {
            listed.push(action);
            if let Some(row) = key_row(keymap, action) {
                out.push(HelpLine::Key(row));
            }
        }
        if *heading == "anywhere" {
            out.push(HelpLine::Note(
                "In the query box every printable key is text; there only chords (ctrl-…, \
                 f1) and esc, tab, enter and the arrows are commands."
                    .to_string(),
            ));
            out.push(fixed(
                "←/→, home/end",
                "in the query: move the cursor (ctrl-a, ctrl-e)",
            ));
            out.push(fixed(
                "backspace, ctrl-w",
                "in the query: delete a character, a word",
            ));
        }
    }
    // An action added to `BINDABLE` but to no group still shows up.
    let rest: Vec<HelpLine> = BINDABLE
        .iter()
        .filter(|(a, _, _)| !listed.contains(&a))
        .filter_map(|(a, _, _)| key_row(keymap, a).map(HelpLine::Key))
        .collect();
    if !rest.is_empty() {
        out.push(HelpLine::Heading("more".to_string()));
        out.extend(rest);
    }
    out.push(HelpLine::Heading("pop-ups (help, why, cut)".to_string()));
    out.push(fixed("esc, enter", "close"));
    out.push(fixed("j/k, pageup/pagedown", "scroll"));
    out.push(HelpLine::Heading("mouse".to_string()));
    out.push(fixed(
        "click, wheel",
        "click focuses and selects; wheel scrolls; drag the map border to resize",
    ));
    out.push(HelpLine::Heading(
        "hit badges: why the line was found".to_string(),
    ));
    for (badge, what) in [
        ("def", "the line defines a symbol that matches the query"),
        ("ref", "the line uses (references) a matching symbol"),
        ("call", "the line calls a matching function or method"),
        ("imp", "the line imports a matching name or module"),
        (
            "text",
            "the words match the file's text (comments, strings, docs)",
        ),
    ] {
        out.push(fixed(badge, what));
    }
    if let Some(refs) = key_for(keymap, &Action::References, false) {
        let back = keymap.keys_for(&Action::Back).join("/");
        out.push(HelpLine::Heading(format!("references ({refs})")));
        out.push(HelpLine::Note(format!(
            "Who uses the selected definition (callers) and what it uses (callees), one \
             row per use site: kind, path:line, the caller or the callee, and how the use \
             was bound (import, same file, guess by name…). A `?` in the warning colour \
             marks an ambiguous use: shared among the ×N definitions shown, or bound by \
             name only. The preview follows the selected use; enter goes into it, {refs} \
             follows the row to its own callers and callees, {back} goes back."
        )));
    }
    out.push(HelpLine::Heading("score and marks".to_string()));
    out.push(HelpLine::Note(
        "The number on the right of a hit is its search score, \
         (bm25 + name + path + graph) × penalty × (1 + prior): bm25 for the query's words \
         in the code, name and path for matches in the symbol's name and the file's path, \
         graph for the file's place in the reference graph, penalty (below 1) for tests, \
         examples and docs, prior for the PageRank boost; history (commit subjects that \
         share the words) is shown with them. Higher is better; compare scores within one \
         query only. `s` shows the signals under each hit. ● marks a hit in a focus file."
            .to_string(),
    ));
    out.push(HelpLine::Heading("status bar".to_string()));
    out.push(HelpLine::Note(
        "repo · code files (the files whose definitions feed the map; docs are searched \
         but not counted) · symbols (definitions) · tokenizer · focus files · exclusions, \
         then, never cut: tokens used / budget of the map · gen N (index builds so far) · \
         indexed … ago · live (the watcher keeps the index fresh; a spinner while changes \
         are pending). Messages on the right fade after 5 s (warnings 10 s) or at the \
         next key."
            .to_string(),
    ));
    out
}

fn key_row(keymap: &Keymap, action: &Action) -> Option<HelpRow> {
    let keys = keymap.keys_for(action);
    let (_, name, description) = BINDABLE.iter().find(|(a, _, _)| a == action)?;
    if keys.is_empty() {
        return None;
    }
    Some(HelpRow {
        keys: keys.join(", "),
        action: (*name).to_string(),
        description: (*description).to_string(),
    })
}

fn fixed(keys: &str, description: &str) -> HelpLine {
    HelpLine::Key(HelpRow {
        keys: keys.to_string(),
        action: String::new(),
        description: description.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::config::Config;

    #[test]
    fn query_footer_names_only_chords() {
        let km = Config::default().keymap;
        let hints = footer(&km, Pane::Query, false);
        let keys: Vec<&str> = hints.iter().map(|h| h.keys.as_str()).collect();
        assert!(keys.contains(&"ctrl-y"), "{keys:?}");
        assert!(keys.contains(&"ctrl-c"), "{keys:?}");
        assert!(keys.contains(&"f1"), "{keys:?}");
        assert!(!keys.contains(&"q") && !keys.contains(&"y") && !keys.contains(&"?"));
    }

    #[test]
    fn pane_footer_uses_single_keys() {
        let km = Config::default().keymap;
        let keys: Vec<String> = footer(&km, Pane::Hits, false)
            .into_iter()
            .map(|h| h.keys)
            .collect();
        assert!(keys.contains(&"/".to_string()) && keys.contains(&"q".to_string()));
        assert!(keys.contains(&"y".to_string()), "{keys:?}");
    }

    #[test]
    fn help_and_the_refs_footer_name_the_references_keys_as_bound() {
        let mut km = Config::default().keymap;
        let note = |km: &Keymap| {
            let lines = help(km);
            let at = lines
                .iter()
                .position(|l| matches!(l, HelpLine::Heading(h) if h.starts_with("references")))
                .expect("a references section");
            match (&lines[at], &lines[at + 1]) {
                (HelpLine::Heading(h), HelpLine::Note(n)) => format!("{h}: {n}"),
                other => panic!("{other:?}"),
            }
        };
        let text = note(&km);
        assert!(text.starts_with("references (u): "), "{text}");
        assert!(text.contains("esc/backspace goes back"), "{text}");
        km.bind(KeyChord::parse("R").unwrap(), Action::References);
        let keys: Vec<String> = footer_refs(&km).into_iter().map(|h| h.keys).collect();
        assert!(keys.contains(&"R".to_string()), "{keys:?}");
        assert!(keys.contains(&"esc".to_string()), "{keys:?}");
    }

    #[test]
    fn help_lists_every_bound_action_once() {
        let km = Config::default().keymap;
        let lines = help(&km);
        for (action, name, _) in BINDABLE {
            if km.keys_for(action).is_empty() {
                continue;
            }
            let n = lines
                .iter()
                .filter(|l| matches!(l, HelpLine::Key(r) if r.action == *name))
                .count();
            assert_eq!(n, 1, "{name}");
        }
        assert!(lines
            .iter()
            .any(|l| matches!(l, HelpLine::Key(r) if r.keys == "imp")));
    }
}
