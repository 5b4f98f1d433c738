//! The TUI's configuration: the embedded default (`assets/config.toml`) with the user's file
//! merged over it, key by key. Every value of the user's file is checked by hand so that an
//! error names the exact key (`keys."ctrl-x": unknown action "selct_next"`).
//! Loaded once on the main thread before the terminal is touched.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::Color;
use toml::{Table, Value};

use super::action::Action;
use super::keymap::{KeyChord, Keymap};
use crate::engine::base::scope::{Scope, ScopeSpec};
use crate::engine::search::sources::SourceSpec;
use crate::ui::Theme;

pub const DEFAULT_CONFIG: &str = include_str!("../../assets/config.toml");
const THEME_DARK: &str = include_str!("../../assets/themes/dark.toml");
const THEME_LIGHT: &str = include_str!("../../assets/themes/light.toml");

/// The budget range: the same as every other door's (`contract::MAP_TOKENS`).
pub const MIN_BUDGET: usize = crate::contract::MIN_MAP_TOKENS;
pub const MAX_BUDGET: usize = crate::contract::MAX_MAP_TOKENS;

/// How copies reach the clipboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipboardMode {
    /// The system clipboard (arboard), or OSC 52 when there is no display or over SSH.
    Auto,
    System,
    Osc52,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub theme: Theme,
    pub keymap: Keymap,
    pub budget: usize,
    /// "o200k" or "cl100k".
    pub tokenizer: String,
    pub map_width: u16,
    pub debounce_ms: u64,
    pub mouse: bool,
    pub clipboard: ClipboardMode,
    /// Empty: `$VISUAL`, then `$EDITOR`, then `vi`.
    pub editor: String,
    /// `[scope]`: which files the map ranks and shows (`--include`, `--exclude`, `--lang`).
    pub scope: ScopeSpec,
    /// `[sources]`: read-only roots searched after the project (`NAME = "PATH"`), checked
    /// against the repository when the TUI starts.
    pub sources: Vec<SourceSpec>,
    /// What loading it had to say without failing (a `$MAPSCOPE_CONFIG` naming no file):
    /// printed before the screen opens and shown in the status bar.
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{file}: invalid TOML: {message}")]
    Syntax { file: String, message: String },
    #[error("{file}: `{key}`: {message}")]
    Key {
        file: String,
        key: String,
        message: String,
    },
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
}

impl Default for Config {
    fn default() -> Self {
        // The embedded default is tested to parse; fall back to built-in values regardless.
        Config::from_toml(DEFAULT_CONFIG, "<default>").unwrap_or_else(|_| Config {
            theme: Theme::default(),
            keymap: Keymap::default(),
            budget: crate::contract::MAP_DEFAULT_TOKENS,
            tokenizer: "o200k".to_string(),
            map_width: 50,
            debounce_ms: 20,
            mouse: true,
            clipboard: ClipboardMode::Auto,
            editor: String::new(),
            scope: ScopeSpec::default(),
            sources: Vec::new(),
            warnings: Vec::new(),
        })
    }
}

/// `~/…` under the home directory; anything else as written.
fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest).display().to_string(),
        _ => path.to_string(),
    }
}

/// Where the user's config file is looked for: `$MAPSCOPE_CONFIG`, else
/// `<config dir>/mapscope/config.toml`.
pub fn user_config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MAPSCOPE_CONFIG") {
        if !p.is_empty() {
            return Some(PathBuf::from(p));
        }
    }
    dirs::config_dir().map(|d| d.join("mapscope").join("config.toml"))
}

impl Config {
    /// The default merged with the user's file, if there is one.
    /// A `$MAPSCOPE_CONFIG` that names no file is said, not ignored in silence (a typo in
    /// it would otherwise look like a config that does nothing).
    pub fn load() -> Result<Config, ConfigError> {
        Config::load_from(
            user_config_path(),
            std::env::var_os("MAPSCOPE_CONFIG").is_some_and(|v| !v.is_empty()),
        )
    }

    /// `load` of the file at `path`; `named`: the user named it (`$MAPSCOPE_CONFIG`), so a
    /// missing one is said.
    fn load_from(path: Option<PathBuf>, named: bool) -> Result<Config, ConfigError> {
        match path {
            Some(p) if p.exists() => Config::load_file(&p),
            Some(p) if named => {
                let mut config = Config::from_toml(DEFAULT_CONFIG, "<default>")?;
                config.warnings.push(format!(
                    "MAPSCOPE_CONFIG names {}, which does not exist: the default config is used",
                    p.display()
                ));
                Ok(config)
            }
            _ => Config::from_toml(DEFAULT_CONFIG, "<default>"),
        }
    }

    pub fn load_file(path: &Path) -> Result<Config, ConfigError> {
        use crate::engine::base::guarded::{self, Follow};
        /// Real config files are a few KiB.
        const MAX_CONFIG_FILE: u64 = 1024 * 1024;
        let file = path.display().to_string();
        // A FIFO or device named as the config must not block or flood the start.
        let io = |source| ConfigError::Io {
            file: file.clone(),
            source,
        };
        let bytes = guarded::read(path, MAX_CONFIG_FILE, Follow::Yes).map_err(|e| match e {
            guarded::OpenError::Io(source) => io(source),
            other => io(std::io::Error::other(other.to_string())),
        })?;
        let text = String::from_utf8(bytes)
            .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
        Config::from_user_toml(&text, &file)
    }

    /// The default with `text` (a user file named `file` in errors) merged over it.
    pub fn from_user_toml(text: &str, file: &str) -> Result<Config, ConfigError> {
        let mut config = Config::from_toml(DEFAULT_CONFIG, "<default>")?;
        let user = parse_table(text, file)?;
        config.apply(&user, file)?;
        Ok(config)
    }

    fn from_toml(text: &str, file: &str) -> Result<Config, ConfigError> {
        let mut config = Config {
            theme: Theme::default(),
            keymap: Keymap::default(),
            budget: crate::contract::MAP_DEFAULT_TOKENS,
            tokenizer: "o200k".to_string(),
            map_width: 50,
            debounce_ms: 20,
            mouse: true,
            clipboard: ClipboardMode::Auto,
            editor: String::new(),
            scope: ScopeSpec::default(),
            sources: Vec::new(),
            warnings: Vec::new(),
        };
        let table = parse_table(text, file)?;
        config.apply(&table, file)?;
        Ok(config)
    }

    /// Applies one file's table over the current values.
    fn apply(&mut self, table: &Table, file: &str) -> Result<(), ConfigError> {
        let err = |key: String, message: String| ConfigError::Key {
            file: file.to_string(),
            key,
            message,
        };
        // [ui] first: its `theme` replaces the palette that [colors] then adjusts.
        let mut sections: Vec<(&String, &Value)> = table.iter().collect();
        sections.sort_by_key(|(k, _)| match k.as_str() {
            "ui" => 0,
            "colors" => 1,
            _ => 2,
        });
        for (section, value) in sections {
            let Value::Table(t) = value else {
                return Err(err(
                    section.clone(),
                    "expected a table (`[section]`)".into(),
                ));
            };
            match section.as_str() {
                "ui" => self.apply_ui(t, file)?,
                "colors" => {
                    for (k, v) in t {
                        set_color(&mut self.theme, k, v)
                            .map_err(|m| err(format!("colors.{k}"), m))?;
                    }
                }
                "keys" => {
                    for (k, v) in t {
                        let key = format!("keys.{}", quote_key(k));
                        let chord = KeyChord::parse(k).map_err(|m| err(key.clone(), m))?;
                        let Value::String(name) = v else {
                            return Err(err(key, "expected an action name in quotes".into()));
                        };
                        if name == "none" {
                            self.keymap.unbind(&chord);
                        } else {
                            let action = Action::from_name(name).ok_or_else(|| {
                                err(
                                    key.clone(),
                                    format!("unknown action \"{name}\" (press ? in mapscope for the list)"),
                                )
                            })?;
                            self.keymap.bind(chord, action);
                        }
                    }
                }
                "scope" => self.apply_scope(t, file)?,
                "sources" => {
                    for (name, v) in t {
                        let key = format!("sources.{}", quote_key(name));
                        let Value::String(path) = v else {
                            return Err(err(key, "expected a path in quotes".into()));
                        };
                        let spec = SourceSpec::parse(&format!("{name}={}", expand_home(path)))
                            .map_err(|e| err(key, e.to_string()))?;
                        self.sources.push(spec);
                    }
                }
                other => {
                    return Err(err(
                        other.to_string(),
                        "unknown section (expected ui, colors, keys, scope or sources)".into(),
                    ))
                }
            }
        }
        Ok(())
    }

    /// `[scope]`: `include`, `exclude` (gitignore-syntax patterns) and `lang`, each a list of
    /// strings, checked as `mapscope map` checks its flags.
    fn apply_scope(&mut self, t: &Table, file: &str) -> Result<(), ConfigError> {
        let err = |key: &str, message: String| ConfigError::Key {
            file: file.to_string(),
            key: format!("scope.{key}"),
            message,
        };
        for (k, v) in t {
            let list = match v {
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map(str::to_string))
                    .collect::<Option<Vec<String>>>(),
                _ => None,
            }
            .ok_or_else(|| err(k, "expected a list of strings".into()))?;
            let mut spec = ScopeSpec::default();
            match k.as_str() {
                "include" => spec.include = list,
                "exclude" => spec.exclude = list,
                "lang" => spec.langs = list,
                _ => {
                    return Err(err(
                        k,
                        "unknown key (expected include, exclude or lang)".into(),
                    ))
                }
            }
            Scope::new(&spec).map_err(|e| err(k, e.to_string()))?;
            match k.as_str() {
                "include" => self.scope.include = spec.include,
                "exclude" => self.scope.exclude = spec.exclude,
                _ => self.scope.langs = spec.langs,
            }
        }
        Ok(())
    }

    fn apply_ui(&mut self, t: &Table, file: &str) -> Result<(), ConfigError> {
        let err = |key: &str, message: String| ConfigError::Key {
            file: file.to_string(),
            key: format!("ui.{key}"),
            message,
        };
        // The theme first, so [colors] in the same file (applied after [ui]) overrides it.
        if let Some(v) = t.get("theme") {
            let name = v
                .as_str()
                .ok_or_else(|| err("theme", "expected a string".into()))?;
            self.theme = load_theme(name).map_err(|m| err("theme", m))?;
        }
        for (k, v) in t {
            match k.as_str() {
                "theme" => {}
                "budget" => {
                    let n = int(v).map_err(|m| err(k, m))?;
                    if !(MIN_BUDGET as i64..=MAX_BUDGET as i64).contains(&n) {
                        return Err(err(
                            k,
                            format!("{n} is outside {MIN_BUDGET} … {MAX_BUDGET}"),
                        ));
                    }
                    self.budget = n as usize;
                }
                "tokenizer" => match v.as_str() {
                    Some(s @ ("o200k" | "cl100k")) => self.tokenizer = s.to_string(),
                    _ => return Err(err(k, "expected \"o200k\" or \"cl100k\"".into())),
                },
                "map_width" => {
                    let n = int(v).map_err(|m| err(k, m))?;
                    if !(25..=75).contains(&n) {
                        return Err(err(k, format!("{n} is outside 25 … 75 (percent)")));
                    }
                    self.map_width = n as u16;
                }
                "debounce_ms" => {
                    let n = int(v).map_err(|m| err(k, m))?;
                    if !(0..=30).contains(&n) {
                        return Err(err(k, format!("{n} is outside 0 … 30 (ms)")));
                    }
                    self.debounce_ms = n as u64;
                }
                "mouse" => {
                    self.mouse = v
                        .as_bool()
                        .ok_or_else(|| err(k, "expected true or false".into()))?;
                }
                "clipboard" => {
                    self.clipboard = match v.as_str() {
                        Some("auto") => ClipboardMode::Auto,
                        Some("system") => ClipboardMode::System,
                        Some("osc52") => ClipboardMode::Osc52,
                        _ => {
                            return Err(err(k, "expected \"auto\", \"system\" or \"osc52\"".into()))
                        }
                    }
                }
                "editor" => {
                    self.editor = v
                        .as_str()
                        .ok_or_else(|| err(k, "expected a string".into()))?
                        .to_string();
                }
                _ => return Err(err(k, "unknown setting".into())),
            }
        }
        Ok(())
    }
}

fn parse_table(text: &str, file: &str) -> Result<Table, ConfigError> {
    text.parse::<Table>().map_err(|e| ConfigError::Syntax {
        file: file.to_string(),
        message: e.to_string().trim().replace('\n', " "),
    })
}

fn int(v: &Value) -> Result<i64, String> {
    v.as_integer()
        .ok_or_else(|| "expected a whole number".to_string())
}

fn quote_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        format!("\"{}\"", k.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// A named theme from `assets/themes/`.
pub fn load_theme(name: &str) -> Result<Theme, String> {
    let text = match name {
        "dark" => THEME_DARK,
        "light" => THEME_LIGHT,
        other => return Err(format!("unknown theme \"{other}\" (dark or light)")),
    };
    let table: Table = text.parse().map_err(|e| format!("theme {name}: {e}"))?;
    let mut theme = Theme::default();
    if let Some(Value::String(s)) = table.get("syntax_theme") {
        theme.syntax_theme = s.clone();
    }
    if let Some(Value::Table(colors)) = table.get("colors") {
        for (k, v) in colors {
            set_color(&mut theme, k, v).map_err(|m| format!("theme {name}: colors.{k}: {m}"))?;
        }
    }
    Ok(theme)
}

fn set_color(theme: &mut Theme, key: &str, v: &Value) -> Result<(), String> {
    let Value::String(s) = v else {
        return Err("expected a colour in quotes (\"red\", \"#ff8800\", \"238\")".into());
    };
    if key == "syntax_theme" {
        theme.syntax_theme = s.clone();
        return Ok(());
    }
    let c = Color::from_str(s).map_err(|_| {
        format!("invalid colour \"{s}\" (a name like \"lightblue\", \"#rrggbb\" or 0 … 255)")
    })?;
    let slot = match key {
        "fg" => &mut theme.fg,
        "dim" => &mut theme.dim,
        "accent" => &mut theme.accent,
        "border" => &mut theme.border,
        "border_focused" => &mut theme.border_focused,
        "selection_bg" => &mut theme.selection_bg,
        "mark_bg" => &mut theme.mark_bg,
        "status_bg" => &mut theme.status_bg,
        "status_fg" => &mut theme.status_fg,
        "error" => &mut theme.error,
        "warning" => &mut theme.warning,
        "ok" => &mut theme.ok,
        "badge_def" => &mut theme.badge_def,
        "badge_ref" => &mut theme.badge_ref,
        "badge_call" => &mut theme.badge_call,
        "badge_import" => &mut theme.badge_import,
        "badge_text" => &mut theme.badge_text,
        "map_path" => &mut theme.map_path,
        "gauge" => &mut theme.gauge,
        _ => return Err("unknown colour name".into()),
    };
    *slot = c;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn a_named_config_that_does_not_exist_is_said_and_the_default_used() {
        let missing = PathBuf::from("/no/such/mapscope-config.toml");
        let c = Config::load_from(Some(missing.clone()), true).unwrap();
        assert_eq!(c.budget, 1024);
        assert_eq!(c.warnings.len(), 1);
        assert!(
            c.warnings[0].contains("/no/such/mapscope-config.toml"),
            "{:?}",
            c.warnings
        );
        assert!(c.warnings[0].contains("does not exist"));
        // The default location, absent: nothing to say.
        let c = Config::load_from(Some(missing), false).unwrap();
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn embedded_default_parses_and_binds_the_issue_keys() {
        let c = Config::from_toml(DEFAULT_CONFIG, "<default>").unwrap();
        assert_eq!(
            c.budget,
            crate::contract::MAP_DEFAULT_TOKENS,
            "every door's default"
        );
        let get = |s: &str| c.keymap.get(&KeyChord::parse(s).unwrap()).cloned();
        assert_eq!(get("/"), Some(Action::FocusQuery));
        assert_eq!(get("esc"), Some(Action::Back));
        assert_eq!(get("tab"), Some(Action::NextPane));
        assert_eq!(get("?"), Some(Action::Help));
        assert_eq!(get("q"), Some(Action::Quit));
        assert_eq!(get("ctrl-c"), Some(Action::Quit));
        assert_eq!(get("y"), Some(Action::CopyMap));
        assert_eq!(get("c"), Some(Action::CopyCitation));
        assert_eq!(get("+"), Some(Action::BudgetUp));
        assert_eq!(get("-"), Some(Action::BudgetDown));
        assert_eq!(c.budget, 1024);
        assert_eq!(c.theme, load_theme("dark").unwrap());
        // every bindable action has a default key, so help lists them all
        for (a, name, _) in crate::app::action::BINDABLE {
            assert!(
                !c.keymap.keys_for(a).is_empty(),
                "no default key for {name}"
            );
        }
    }

    #[test]
    fn user_file_merges_over_the_default() {
        let c = Config::from_user_toml(
            "[ui]\nbudget = 2048\ntheme = \"light\"\n[colors]\naccent = \"#ff0000\"\n[keys]\n\"ctrl-x\" = \"quit\"\n\"q\" = \"none\"\n",
            "user.toml",
        )
        .unwrap();
        assert_eq!(c.budget, 2048);
        assert_eq!(c.theme.accent, Color::Rgb(255, 0, 0));
        assert_eq!(c.theme.syntax_theme, "InspiredGitHub");
        let chord = KeyChord::new(KeyCode::Char('x'), KeyModifiers::CONTROL);
        assert_eq!(c.keymap.get(&chord), Some(&Action::Quit));
        assert_eq!(c.keymap.get(&KeyChord::parse("q").unwrap()), None);
        // untouched defaults survive
        assert_eq!(
            c.keymap.get(&KeyChord::parse("ctrl-c").unwrap()),
            Some(&Action::Quit)
        );
        assert_eq!(c.tokenizer, "o200k");
    }

    #[test]
    fn sources_are_named_paths() {
        let c = Config::from_user_toml("[sources]\nexamples = \"/tmp/ex\"\n", "cfg.toml").unwrap();
        assert_eq!(c.sources.len(), 1);
        assert_eq!(c.sources[0].name, "examples");
        assert_eq!(c.sources[0].path, PathBuf::from("/tmp/ex"));
        assert!(error_of("[sources]\nproject = \"/tmp\"\n").contains("sources.project"));
        assert!(error_of("[sources]\nx = 3\n").contains("expected a path in quotes"));
        if let Some(home) = dirs::home_dir() {
            let c = Config::from_user_toml("[sources]\nh = \"~/lib\"\n", "cfg.toml").unwrap();
            assert_eq!(c.sources[0].path, home.join("lib"));
        }
    }

    fn error_of(text: &str) -> String {
        Config::from_user_toml(text, "cfg.toml")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn errors_name_the_key() {
        assert_eq!(
            error_of("[keys]\n\"ctrl-x\" = \"selct_next\"\n"),
            "cfg.toml: `keys.ctrl-x`: unknown action \"selct_next\" (press ? in mapscope for the list)"
        );
        assert_eq!(
            error_of("[keys]\n\"hyper-x\" = \"quit\"\n"),
            "cfg.toml: `keys.hyper-x`: unknown key `hyper-x`"
        );
        assert_eq!(
            error_of("[colors]\naccent = \"#ff00zz\"\n"),
            "cfg.toml: `colors.accent`: invalid colour \"#ff00zz\" (a name like \"lightblue\", \"#rrggbb\" or 0 … 255)"
        );
        assert_eq!(
            error_of("[colors]\naccnt = \"red\"\n"),
            "cfg.toml: `colors.accnt`: unknown colour name"
        );
        assert_eq!(
            error_of("[ui]\nbudget = 10\n"),
            "cfg.toml: `ui.budget`: 10 is outside 16 … 131072"
        );
        assert_eq!(
            error_of("[ui]\nbudgt = 512\n"),
            "cfg.toml: `ui.budgt`: unknown setting"
        );
        assert_eq!(
            error_of("[ui]\ntheme = \"neon\"\n"),
            "cfg.toml: `ui.theme`: unknown theme \"neon\" (dark or light)"
        );
        assert_eq!(
            error_of("[ui]\nmouse = \"yes\"\n"),
            "cfg.toml: `ui.mouse`: expected true or false"
        );
        assert_eq!(
            error_of("[view]\nx = 1\n"),
            "cfg.toml: `view`: unknown section (expected ui, colors, keys, scope or sources)"
        );
        assert_eq!(
            error_of("[scope]\ninclude = [\"src/[\"]\n"),
            "cfg.toml: `scope.include`: invalid path glob \"src/[\": unclosed character class; missing ']'"
        );
        assert_eq!(
            error_of("[scope]\nlang = \"go\"\n"),
            "cfg.toml: `scope.lang`: expected a list of strings"
        );
        assert!(error_of("[scope]\nlang = [\"cobol\"]\n").contains("unknown language"));
        assert_eq!(
            error_of("[scope]\nonly = []\n"),
            "cfg.toml: `scope.only`: unknown key (expected include, exclude or lang)"
        );
        assert!(error_of("[ui\nbudget = 1").starts_with("cfg.toml: invalid TOML:"));
    }

    #[test]
    fn scope_section_reaches_the_map_request() {
        let c = Config::from_user_toml(
            "[scope]\ninclude = [\"cmd/\"]\nexclude = [\"*_test.go\"]\nlang = [\"go\"]\n",
            "cfg.toml",
        )
        .unwrap();
        assert_eq!(c.scope.include, ["cmd/"]);
        assert_eq!(c.scope.exclude, ["*_test.go"]);
        assert_eq!(c.scope.langs, ["go"]);
        // The default scope is everything.
        assert!(Config::default().scope.is_empty());
    }

    #[test]
    fn both_themes_load() {
        assert_eq!(load_theme("dark").unwrap().accent, Color::Cyan);
        assert_eq!(load_theme("light").unwrap().accent, Color::Blue);
    }
}
