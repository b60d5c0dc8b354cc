//! go-cty's hash text of a value (`appendSetHashBytes` in `cty/set_internals.go`, go-cty
//! 1.12.1) and its CRC-32: how go-cty orders the elements of a set whose element type is not
//! a primitive (`setRules.Less` compares these texts bytewise) and which hash bucket a value
//! falls in (`Value.Hash`, the CRC-32 (IEEE) of the text).
//!
//! The text: `?` for an unknown, `~` for a null, `T`/`F` for a bool, a number's
//! `big.Float.String()` (`numbers.rs`), a string as Go's `%q` writes it, `[e;e;…]` for a list
//! or set (a set in its own order), `{k:v;…}` for a map (keys in order, each as `%q`),
//! `<a;b;…>` for an object (attributes by name) or a tuple. A value at a `dynamic` position is
//! its concrete value. It needs no program: a value's variant says which form it takes, and an
//! object's attributes are already in name order.

use std::fmt::{self, Write};

use super::go_print::is_print;
use super::numbers::write_g10;
use crate::value::Value;

/// Appends the hash text of `v` to `out`.
pub(super) fn write_hash(v: Value<'_>, out: &mut impl Write) -> fmt::Result {
    match v {
        Value::Unknown(_) => out.write_char('?'),
        Value::Null => out.write_char('~'),
        Value::Bool(b) => out.write_char(if b { 'T' } else { 'F' }),
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => match v.as_number()
        {
            Some(n) => write_g10(n, out),
            None => Ok(()),
        },
        Value::String(s) => write_quoted(s, out),
        Value::List(e) | Value::Set(e) => {
            out.write_char('[')?;
            for x in e {
                write_hash(*x, out)?;
                out.write_char(';')?;
            }
            out.write_char(']')
        }
        Value::Map(entries) => {
            out.write_char('{')?;
            for (k, x) in entries {
                write_quoted(k, out)?;
                out.write_char(':')?;
                write_hash(*x, out)?;
                out.write_char(';')?;
            }
            out.write_char('}')
        }
        Value::Tuple(e) => {
            out.write_char('<')?;
            for x in e {
                write_hash(*x, out)?;
                out.write_char(';')?;
            }
            out.write_char('>')
        }
        Value::Object(o) => {
            out.write_char('<')?;
            for x in o.attrs() {
                write_hash(*x, out)?;
                out.write_char(';')?;
            }
            out.write_char('>')
        }
        Value::Dynamic(d) => write_hash(d.value, out),
    }
}

/// A string as Go's `strconv.Quote` writes it (`%q`): `"` and `\` escaped, printable runes as
/// they are, `\a \b \f \n \r \t \v`, other control bytes as `\xHH`, other runes as `\uHHHH`
/// or `\UHHHHHHHH` (lowercase hex).
pub(super) fn write_quoted(s: &str, out: &mut impl Write) -> fmt::Result {
    out.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.write_char('\\')?;
                out.write_char(c)?;
            }
            c if is_print(c) => out.write_char(c)?,
            '\u{7}' => out.write_str("\\a")?,
            '\u{8}' => out.write_str("\\b")?,
            '\u{c}' => out.write_str("\\f")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            '\u{b}' => out.write_str("\\v")?,
            c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(out, "\\x{:02x}", c as u32)?,
            c if (c as u32) < 0x10000 => write!(out, "\\u{:04x}", c as u32)?,
            c => write!(out, "\\U{:08x}", c as u32)?,
        }
    }
    out.write_char('"')
}

/// CRC-32 (IEEE), as Go's `crc32.ChecksumIEEE`.
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        // (A byte indexes the 256 entries: never the fallback.)
        let entry = CRC_TABLE.get(usize::from((crc as u8) ^ b)).copied();
        crc = entry.unwrap_or_default() ^ (crc >> 8);
    }
    !crc
}

// In bounds: `i < 256`, the table's length; and this runs at compile time, where an index out
// of bounds fails the build, not a decode.
#[allow(clippy::indexing_slicing)]
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_quoting() {
        let q = |s: &str| {
            let mut out = String::new();
            write_quoted(s, &mut out).unwrap();
            out
        };
        // Expected texts printed by go 1.19's fmt.Sprintf("%q", s).
        assert_eq!(q("web"), r#""web""#);
        assert_eq!(q("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(q("\u{7}\u{8}\u{c}\n\r\t\u{b}"), r#""\a\b\f\n\r\t\v""#);
        assert_eq!(q("\u{0}\u{1b}\u{7f}"), r#""\x00\x1b\x7f""#);
        assert_eq!(q("é日\u{a0}\u{200b}"), "\"é日\\u00a0\\u200b\"");
        assert_eq!(q("\u{e0001}😀"), "\"\\U000e0001😀\"");
    }

    #[test]
    fn crc32_ieee() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }
}
