//! The one JSON writer of every JSON output (`search --json`, `map --format json`,
//! `stats --json`, `eval --json`, `bench --json`, MCP messages). serde_json escapes only the
//! C0 controls; this writer also escapes what `engine::base::text` keeps from a terminal — DEL, C1
//! (U+0080–U+009F) and the bidirectional overrides — as `\u007f`, `\u009b`, `\u202e`. The
//! value a parser reads back is unchanged, and the bytes of ordinary output are exactly
//! serde_json's.
//!
//! Pure functions, called from any thread.

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

use crate::engine::base::text::is_unsafe;

/// `value` as compact JSON (one line).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    write(value, CompactFormatter)
}

/// `value` as indented JSON (two spaces, as `serde_json::to_string_pretty`).
pub fn to_string_pretty<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    write(value, PrettyFormatter::new())
}

fn write<T: Serialize + ?Sized, F: Formatter>(value: &T, inner: F) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, SafeFormatter(inner));
    value.serialize(&mut ser)?;
    // The serializer writes only valid UTF-8 (strings are `str`, escapes are ASCII).
    String::from_utf8(out).map_err(|e| serde_json::Error::io(io::Error::other(e)))
}

/// Escapes the characters serde_json passes through raw, and lays out like `F`. Only the
/// layout methods are forwarded: neither formatter wrapped here changes how numbers or
/// literals are written.
struct SafeFormatter<F>(F);

impl<F: Formatter> Formatter for SafeFormatter<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            // C0 never gets here: serde_json escapes it before calling.
            if is_unsafe(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn c1_del_and_bidi_are_escaped_and_read_back_unchanged() {
        let s = "a\u{1b}[31m\u{9b}2J\u{7f}\u{85}\u{202e}é导";
        let v = json!({"name": s, "list": [s]});
        let out = to_string(&v).unwrap();
        assert_eq!(
            out,
            r#"{"list":["a\u001b[31m\u009b2J\u007f\u0085\u202eé导"],"name":"a\u001b[31m\u009b2J\u007f\u0085\u202eé导"}"#
        );
        assert!(crate::engine::base::text::is_safe(&out));
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn ordinary_output_is_serde_json_byte_for_byte() {
        let v = json!({"a": [1, 2.5, null, true], "b": {"c": "x\ty\n\"q\"", "d": []}, "e": {}});
        assert_eq!(to_string(&v).unwrap(), serde_json::to_string(&v).unwrap());
        assert_eq!(
            to_string_pretty(&v).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
    }
}
