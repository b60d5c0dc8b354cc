//! JSON strings as Go's `encoding/json` writes them (go-cty's JSON encoder and its type JSON
//! go through it): `"` and `\` escaped, `\n` `\r` `\t` in short form, other control bytes as
//! `\u00XX` (lowercase hex; Go 1.19, the oracle's, has no `\b` `\f` short forms), the HTML
//! characters `<` `>` `&` as `\u003c` `\u003e` `\u0026`, and U+2028 / U+2029 as `\u2028` /
//! `\u2029`. Everything else is copied. The scan takes 32 bytes at a time
//! ([`crate::bytes::json_escape_mask`]).
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use crate::bytes::{json_escape_mask, BLOCK};

/// Appends `s`, quoted and escaped as Go writes it.
pub(crate) fn write_go_json_string(s: &str, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    // `copied`: bytes before it are written; `i`: where the scan goes on.
    let (mut copied, mut i) = (0, 0);
    while let Some(block) = b.get(i..).and_then(|r| r.first_chunk::<BLOCK>()) {
        let mask = json_escape_mask(block);
        if mask == 0 {
            i += BLOCK;
            continue;
        }
        let at = i + mask.trailing_zeros() as usize;
        out.extend_from_slice(b.get(copied..at).unwrap_or_default());
        i = escape(b, at, out);
        copied = i;
    }
    while let Some(&c) = b.get(i) {
        if ESCAPED[c as usize] {
            out.extend_from_slice(b.get(copied..i).unwrap_or_default());
            i = escape(b, i, out);
            copied = i;
        } else {
            i += 1;
        }
    }
    out.extend_from_slice(b.get(copied..).unwrap_or_default());
    out.push(b'"');
}

/// True if `s` is written as it is between the quotes.
pub(crate) fn is_plain(s: &str) -> bool {
    let b = s.as_bytes();
    (0..b.len()).all(|i| !ESCAPED[b[i] as usize] || escaped_len(b, i) == 0)
}

/// Bytes of `b` at `at` (flagged by the scan) written out; returns where the scan goes on.
#[inline(never)]
fn escape(b: &[u8], at: usize, out: &mut Vec<u8>) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let c = b.get(at).copied().unwrap_or(0);
    match c {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0xe2 => {
            if escaped_len(b, at) == 0 {
                out.push(c);
                return at + 1;
            }
            let last = if b.get(at + 2) == Some(&0xa8) {
                b'8'
            } else {
                b'9'
            };
            out.extend_from_slice(b"\\u202");
            out.push(last);
            return at + 3;
        }
        _ => {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(c >> 4) as usize]);
            out.push(HEX[(c & 0xf) as usize]);
        }
    }
    at + 1
}

/// For a flagged byte: how many input bytes its escape replaces (0 for a lead byte 0xE2 that
/// does not start U+2028 or U+2029).
fn escaped_len(b: &[u8], at: usize) -> usize {
    match b.get(at) {
        Some(0xe2) => match (b.get(at + 1), b.get(at + 2)) {
            (Some(0x80), Some(0xa8 | 0xa9)) => 3,
            _ => 0,
        },
        _ => 1,
    }
}

/// The bytes the scan stops at: control bytes, `"`, `\`, `<`, `>`, `&`, and 0xE2 (the lead
/// byte of U+2028 and U+2029).
static ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'&' as usize] = true;
    t[0xe2] = true;
    t
};

/// The length of the JSON string literal at the start of `bytes` (its quotes included,
/// escapes stepped over, not checked), or `None` when `bytes` does not start with one that
/// ends.
pub(crate) fn quoted_len(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1usize;
    loop {
        match *bytes.get(i)? {
            b'\\' => i = i.saturating_add(2),
            b'"' => return Some(i.saturating_add(1)),
            _ => i = i.saturating_add(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `encodeState.string`, byte by byte, char by char.
    fn naive(s: &str) -> String {
        let mut out = String::from("\"");
        for ch in s.chars() {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '<' | '>' | '&' | '\u{0}'..='\u{1f}' | '\u{2028}' | '\u{2029}' => {
                    out.push_str(&format!("\\u{:04x}", ch as u32))
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn agrees_with_go_rules_at_every_position_of_a_block() {
        let specials = [
            "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{8}", "\u{c}", "\u{1f}", "<", ">", "&",
            "\u{2028}", "\u{2029}", "\u{2027}", "\u{202a}", "€", "\u{7f}", "é", "😀",
        ];
        for special in specials {
            for at in 0..70 {
                let s = format!("{}{special}{}", "a".repeat(at), "b".repeat(40));
                let mut out = Vec::new();
                write_go_json_string(&s, &mut out);
                assert_eq!(String::from_utf8(out).unwrap(), naive(&s), "{s:?}");
                let plain = naive(&s) == format!("\"{s}\"");
                assert_eq!(is_plain(&s), plain, "{s:?}");
            }
        }
        let mut out = Vec::new();
        write_go_json_string("", &mut out);
        assert_eq!(out, b"\"\"");
    }

    #[test]
    fn quoted_lengths() {
        assert_eq!(quoted_len(br#""ab"]"#), Some(4));
        assert_eq!(quoted_len(br#""a\"b"x"#), Some(6));
        assert_eq!(quoted_len(br#""a\\"x"#), Some(5));
        assert_eq!(quoted_len(br#""open"#), None);
        assert_eq!(quoted_len(br#"x"a""#), None);
        assert_eq!(quoted_len(b""), None);
    }
}
