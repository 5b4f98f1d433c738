//! The phrases people type around a symbol: "where is X defined", "who calls X", "what does
//! X call", and their Chinese forms ("X 在哪定义", "谁调用了 X", "X 调用了什么"). Each gives
//! an [`Intent`] and the symbol's text, which `query::read` then reads as a look-up. Pure
//! string work on the querying thread.
//!
//! A phrase is a template of words with one slot holding exactly one token (the symbol: no
//! space in it), so "show me how auth works" is never a phrase around "how". Loose phrases
//! ("find X", "locate X", "找 X") are *strict*: they count only when X looks like code
//! (`findUser`, `Router::get`), since "find duplicates" is as likely a sentence about
//! finding. English words are compared case-insensitively; a trailing `?`, `？`, `。`, `!`
//! or `！` is dropped.

use super::tokenize::is_cjk;
use super::Intent;

/// One English template: its words, `{}` for the symbol, `[a|b]` for an optional word (one
/// of those), `a|b` for a required one, `[kind]` for an optional kind word; and whether it
/// is strict.
type Template = (&'static str, Intent, bool);

const ENGLISH: &[Template] = &[
    (
        "where is|are [the] {} [kind] [defined|declared|implemented]",
        Intent::Definition,
        false,
    ),
    (
        "where's [the] {} [kind] [defined|declared|implemented]",
        Intent::Definition,
        false,
    ),
    (
        "where [the] {} [kind] is|are defined|declared|implemented",
        Intent::Definition,
        false,
    ),
    (
        "[find|show|get] [me] [the] definition|declaration|implementation of [the] {} [kind]",
        Intent::Definition,
        false,
    ),
    (
        "go|jump to [the] [definition|declaration] [of] {}",
        Intent::Definition,
        true,
    ),
    ("goto [definition] [of] {}", Intent::Definition, true),
    ("find|locate [the] {} [kind]", Intent::Definition, true),
    ("who|what calls|uses|references [the] {} [kind]", Intent::Callers, false),
    (
        "[find|show|list] [me] [the|all] callers|usages|uses|references|users of|to [the] {} [kind]",
        Intent::Callers,
        false,
    ),
    (
        "where is|are [the] {} [kind] called|used|referenced",
        Intent::Callers,
        false,
    ),
    ("who|what is calling|using {}", Intent::Callers, false),
    ("what does|do [the] {} [kind] call|use|invoke", Intent::Callees, false),
    ("what is|are called by {}", Intent::Callees, false),
    (
        "[find|show|list] [me] [the] callees|calls of|in|from [the] {} [kind]",
        Intent::Callees,
        false,
    ),
    ("what [the] {} [kind] calls", Intent::Callees, false),
];

/// Words a definition kind goes by, after the symbol ("where is the Router struct defined").
const KIND_WORDS: &[&str] = &[
    "function",
    "func",
    "fn",
    "method",
    "class",
    "struct",
    "type",
    "interface",
    "trait",
    "enum",
    "module",
    "macro",
    "variable",
    "constant",
    "const",
    "field",
    "property",
    "constructor",
    "namespace",
    "package",
];

/// Chinese text after the symbol (`X 在哪里定义的`), once a trailing 的/呢/吗/啊 and a
/// leading kind word (`函数`, `类`) are dropped.
const CJK_AFTER: &[(&str, Intent)] = &[
    ("在哪定义", Intent::Definition),
    ("在哪里定义", Intent::Definition),
    ("在哪儿定义", Intent::Definition),
    ("在什么地方定义", Intent::Definition),
    ("是在哪定义", Intent::Definition),
    ("是在哪里定义", Intent::Definition),
    ("在哪定义了", Intent::Definition),
    ("在哪里定义了", Intent::Definition),
    ("在哪声明", Intent::Definition),
    ("在哪里声明", Intent::Definition),
    ("在哪实现", Intent::Definition),
    ("在哪里实现", Intent::Definition),
    ("定义在哪", Intent::Definition),
    ("定义在哪里", Intent::Definition),
    ("定义在哪儿", Intent::Definition),
    ("定义在什么地方", Intent::Definition),
    ("在哪", Intent::Definition),
    ("在哪里", Intent::Definition),
    ("在哪儿", Intent::Definition),
    ("定义", Intent::Definition),
    ("被谁调用", Intent::Callers),
    ("被谁调用了", Intent::Callers),
    ("被哪里调用", Intent::Callers),
    ("被哪里调用了", Intent::Callers),
    ("被谁使用", Intent::Callers),
    ("被谁引用", Intent::Callers),
    ("在哪里被调用", Intent::Callers),
    ("在哪被调用", Intent::Callers),
    ("在哪里调用", Intent::Callers),
    ("在哪里被使用", Intent::Callers),
    ("在哪里使用", Intent::Callers),
    ("调用者", Intent::Callers),
    ("调用方", Intent::Callers),
    ("有哪些调用者", Intent::Callers),
    ("调用了什么", Intent::Callees),
    ("调用了哪些", Intent::Callees),
    ("调用了哪些函数", Intent::Callees),
    ("调用了哪些方法", Intent::Callees),
    ("调用什么", Intent::Callees),
    ("调用哪些", Intent::Callees),
    ("调用哪些函数", Intent::Callees),
    ("都调用了什么", Intent::Callees),
    ("依赖什么", Intent::Callees),
    ("用了什么", Intent::Callees),
];

/// Chinese text before the symbol (`谁调用了 X`), and whether it is strict.
const CJK_BEFORE: &[(&str, Intent, bool)] = &[
    ("谁调用了", Intent::Callers, false),
    ("谁调用", Intent::Callers, false),
    ("谁在调用", Intent::Callers, false),
    ("哪里调用了", Intent::Callers, false),
    ("哪里调用", Intent::Callers, false),
    ("哪些地方调用了", Intent::Callers, false),
    ("谁使用了", Intent::Callers, false),
    ("谁用了", Intent::Callers, false),
    ("谁引用了", Intent::Callers, false),
    ("查找调用", Intent::Callers, false),
    ("哪里定义了", Intent::Definition, false),
    ("在哪定义了", Intent::Definition, false),
    ("在哪里定义了", Intent::Definition, false),
    ("查找定义", Intent::Definition, false),
    ("跳转到", Intent::Definition, true),
    ("查找", Intent::Definition, true),
    ("找", Intent::Definition, true),
    ("定位", Intent::Definition, true),
];

/// Kind words in Chinese, dropped at the start of the text after the symbol.
const CJK_KINDS: &[&str] = &[
    "函数",
    "方法",
    "类",
    "结构体",
    "接口",
    "类型",
    "变量",
    "常量",
    "模块",
    "宏",
    "枚举",
];

/// One token of the query: its text (a CJK run without the spaces inside it) and its byte
/// range in the query.
struct Token {
    text: String,
    start: usize,
    end: usize,
}

/// The query's tokens: split at white space and wherever CJK text meets other text, CJK runs
/// joined (so `在哪里 定义的` is one token).
fn tokens(query: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let mut cur: Option<(usize, bool)> = None;
    let close = |out: &mut Vec<Token>, from: usize, to: usize, cjk: bool| {
        let text = &query[from..to];
        match out.last_mut() {
            Some(last) if cjk && last.text.chars().all(is_cjk) => {
                last.text.push_str(text);
                last.end = to;
            }
            _ => out.push(Token {
                text: text.to_string(),
                start: from,
                end: to,
            }),
        }
    };
    for (i, c) in query.char_indices() {
        let cjk = is_cjk(c);
        match cur {
            Some((from, was)) if c.is_whitespace() || was != cjk => {
                close(&mut out, from, i, was);
                cur = (!c.is_whitespace()).then_some((i, cjk));
            }
            None if !c.is_whitespace() => cur = Some((i, cjk)),
            _ => {}
        }
    }
    if let Some((from, was)) = cur {
        close(&mut out, from, query.len(), was);
    }
    out
}

/// The intent and the symbol's text when `query` is one of the phrases, and whether the
/// phrase is strict (the symbol must look like code).
pub(crate) fn match_phrase(query: &str) -> Option<(Intent, &str, bool)> {
    let trimmed = query
        .trim()
        .trim_end_matches(['?', '？', '。', '!', '！'])
        .trim_end();
    let toks = tokens(trimmed);
    if toks.len() < 2 || toks.len() > 16 {
        return None;
    }
    let symbol = |slot: usize| &trimmed[toks[slot].start..toks[slot].end];
    if let Some((intent, slot, strict)) = chinese(&toks) {
        return Some((intent, symbol(slot), strict));
    }
    let lower: Vec<String> = toks.iter().map(|t| t.text.to_lowercase()).collect();
    for (template, intent, strict) in ENGLISH {
        let pattern: Vec<&str> = template.split(' ').collect();
        if let Some(slot) = match_template(&pattern, &lower, 0, None) {
            return Some((*intent, symbol(slot), *strict));
        }
    }
    None
}

/// The Chinese forms: `X <after>` or `<before> X`; the slot's token index.
fn chinese(toks: &[Token]) -> Option<(Intent, usize, bool)> {
    let is_cjk_token = |t: &Token| t.text.chars().all(is_cjk);
    match toks {
        [x, after] if !is_cjk_token(x) && is_cjk_token(after) => {
            let mut text = after.text.as_str();
            while let Some(rest) = ["的", "呢", "吗", "啊", "呀"]
                .iter()
                .find_map(|end| text.strip_suffix(end))
            {
                text = rest;
            }
            if let Some(rest) = CJK_KINDS.iter().find_map(|k| text.strip_prefix(k)) {
                text = rest;
            }
            let text = text.strip_prefix('的').unwrap_or(text);
            CJK_AFTER
                .iter()
                .find(|(t, _)| *t == text)
                .map(|(_, intent)| (*intent, 0, false))
        }
        [before, x] if is_cjk_token(before) && !is_cjk_token(x) => {
            let text = before.text.strip_prefix('请').unwrap_or(&before.text);
            CJK_BEFORE
                .iter()
                .find(|(t, _, _)| *t == text)
                .map(|(_, intent, strict)| (*intent, 1, *strict))
        }
        _ => None,
    }
}

/// Whether template word `word` (`a|b`, or `kind`) admits token `tok`.
fn admits(word: &str, tok: &str) -> bool {
    if word == "kind" {
        KIND_WORDS.contains(&tok)
    } else {
        word.split('|').any(|w| w == tok)
    }
}

/// Matches `pattern` (template words) against all of `toks` from `at`: the slot's token
/// index once the whole pattern matched (`slot` is it, when already passed).
fn match_template(
    pattern: &[&str],
    toks: &[String],
    at: usize,
    slot: Option<usize>,
) -> Option<usize> {
    let Some((first, rest)) = pattern.split_first() else {
        return if at == toks.len() { slot } else { None };
    };
    let tok = toks.get(at).map(String::as_str);
    if *first == "{}" {
        tok?;
        return match_template(rest, toks, at + 1, Some(at));
    }
    if let Some(inner) = first.strip_prefix('[').and_then(|f| f.strip_suffix(']')) {
        if tok.is_some_and(|t| admits(inner, t)) {
            if let Some(found) = match_template(rest, toks, at + 1, slot) {
                return Some(found);
            }
        }
        return match_template(rest, toks, at, slot);
    }
    if tok.is_some_and(|t| admits(first, t)) {
        return match_template(rest, toks, at + 1, slot);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phrase(q: &str) -> Option<(Intent, &str)> {
        match_phrase(q).map(|(i, s, _)| (i, s))
    }

    #[test]
    fn english_definition_phrases() {
        for q in [
            "where is parseConfig defined",
            "Where is parseConfig defined?",
            "where's parseConfig",
            "where is parseConfig",
            "where is the parseConfig function defined",
            "where parseConfig is defined",
            "definition of parseConfig",
            "find the definition of parseConfig",
            "find parseConfig",
            "go to parseConfig",
            "locate parseConfig",
        ] {
            assert_eq!(phrase(q), Some((Intent::Definition, "parseConfig")), "{q}");
        }
        assert_eq!(
            phrase("where is Router::fallback defined"),
            Some((Intent::Definition, "Router::fallback"))
        );
        // Loose phrases want code.
        assert!(match_phrase("find duplicates").unwrap().2);
        assert!(!match_phrase("where is config defined").unwrap().2);
    }

    #[test]
    fn english_callers_and_callees() {
        for q in [
            "who calls parseConfig",
            "what calls parseConfig",
            "callers of parseConfig",
            "find callers of parseConfig",
            "usages of parseConfig",
            "references to parseConfig",
            "where is parseConfig used",
        ] {
            assert_eq!(phrase(q), Some((Intent::Callers, "parseConfig")), "{q}");
        }
        for q in [
            "what does parseConfig call",
            "what does the parseConfig function call?",
            "callees of parseConfig",
            "what parseConfig calls",
        ] {
            assert_eq!(phrase(q), Some((Intent::Callees, "parseConfig")), "{q}");
        }
    }

    #[test]
    fn chinese_phrases() {
        for (q, intent) in [
            ("parseConfig 在哪定义", Intent::Definition),
            ("parseConfig 在哪里定义的", Intent::Definition),
            ("parseConfig在哪里定义的？", Intent::Definition),
            ("parseConfig 函数在哪里定义", Intent::Definition),
            ("parseConfig 的定义", Intent::Definition),
            ("parseConfig 定义在哪里", Intent::Definition),
            ("谁调用了 parseConfig", Intent::Callers),
            ("谁调用了parseConfig", Intent::Callers),
            ("parseConfig 被谁调用", Intent::Callers),
            ("parseConfig 调用了什么", Intent::Callees),
            ("parseConfig 调用了哪些函数", Intent::Callees),
        ] {
            assert_eq!(phrase(q), Some((intent, "parseConfig")), "{q}");
        }
    }

    #[test]
    fn sentences_are_not_phrases() {
        for q in [
            "parseConfig",
            "where",
            "show me how auth works",
            "where is the config file loaded from disk",
            "fix: who calls parseConfig twice",
            "导出订单",
            "如何 导出 订单",
            "",
            "? ? ?",
        ] {
            assert_eq!(phrase(q), None, "{q}");
        }
    }
}
