//! The pieces of JSON's grammar that the Arrow row reader (`arrow/rows_json.rs`) takes
//! straight into its columns and the straight DUMP (`dump/straight.rs`) into its text, each
//! the executor's own scanner: whitespace, a string without escapes (or, for the DUMP, one
//! whose escapes it writes back), a plain integer, a literal. Each says `None` for anything
//! else (a fraction, a fault, …), and the reader then leaves the value to the general decode.

use super::number::number;
use super::scan::{literal, ws, ws_indented};
use super::string::{scan_string, unescape_into, ESCAPED, NON_ASCII};

/// The position of the first byte at or after `i` that is not whitespace (the executor's
/// `ws`, which its module keeps to the JSON decoders).
#[inline(always)]
pub(crate) fn skip_ws(buf: &[u8], i: usize) -> usize {
    ws(buf, i)
}

/// [`skip_ws`] with an indentation's spaces counted inline (`scan.rs`'s `ws_indented`).
#[inline(always)]
pub(crate) fn skip_ws_indented(buf: &[u8], i: usize) -> usize {
    ws_indented(buf, i)
}

/// The body of the string at `at` (`None` when no string starts there), and the position
/// after its closing quote, when it has no escape (its body is then the string; checked
/// UTF-8).
#[inline(always)]
pub(crate) fn plain_string(buf: &[u8], at: usize) -> Option<(&[u8], usize)> {
    if buf.get(at) != Some(&b'"') {
        return None;
    }
    let start = at.checked_add(1)?;
    let (end, flags) = scan_string(buf, start, at).ok()?;
    let body = buf.get(start..end)?;
    let plain = match flags {
        0 => true,
        NON_ASCII => simdutf8::basic::from_utf8(body).is_ok(),
        _ => false,
    };
    plain.then(|| (body, end.wrapping_add(1)))
}

/// The position after the string at `at`, checked (UTF-8, escapes), and whether the DUMP
/// writes it otherwise than it is here (rewritten): then `scratch` holds its value. The DUMP
/// writes as they are strings without escapes and strings with only the two-byte escapes
/// serde_json writes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`); not `\/` or `\u`.
#[inline(always)]
pub(crate) fn dump_string(buf: &[u8], at: usize, scratch: &mut String) -> Option<(usize, bool)> {
    if buf.get(at) != Some(&b'"') {
        return None;
    }
    let start = at.checked_add(1)?;
    let (end, flags) = scan_string(buf, start, at).ok()?;
    let after = end.wrapping_add(1);
    if flags == 0 {
        return Some((after, false));
    }
    let body = buf.get(start..end)?;
    if flags & NON_ASCII != 0 && simdutf8::basic::from_utf8(body).is_err() {
        return None;
    }
    if flags & ESCAPED != 0 {
        let mut j = 0usize;
        while let Some(k) = body.get(j..).and_then(|rest| memchr::memchr(b'\\', rest)) {
            let escaped = j.wrapping_add(k).wrapping_add(1);
            match body.get(escaped) {
                Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => {}
                _ => {
                    unescape_into(buf, start, end, flags, scratch).ok()?;
                    return Some((after, true));
                }
            }
            j = escaped.wrapping_add(1);
        }
    }
    Some((after, false))
}

/// The value of the number at `at` when it is a plain integer that fits `i64` (what the
/// executor reads as an integer), and the position after it.
#[inline(always)]
pub(crate) fn plain_integer(buf: &[u8], at: usize) -> Option<(i64, usize)> {
    match number(buf, at) {
        Ok((end, Some(v))) => Some((v, end)),
        _ => None,
    }
}

/// The position after `true` or `false` at `at`, with its value.
#[inline(always)]
pub(crate) fn boolean(buf: &[u8], at: usize) -> Option<(bool, usize)> {
    match buf.get(at) {
        Some(b't') => literal(buf, at, b"true").ok().map(|end| (true, end)),
        Some(b'f') => literal(buf, at, b"false").ok().map(|end| (false, end)),
        _ => None,
    }
}

/// The position after `null` at `at`.
#[inline(always)]
pub(crate) fn null(buf: &[u8], at: usize) -> Option<usize> {
    literal(buf, at, b"null").ok()
}
