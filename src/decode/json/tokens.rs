//! The JSON executor's scanner for readers of the JSON around values: the state envelope
//! reader (`crate::state::reader`) reads keys, strings, numbers and skipped values with the
//! same code the executor uses, and asks whether a value is complete in a buffer that holds
//! only part of a file.
//!
//! Errors are [`DecodeError`]s with an empty path and the offset in the buffer given; an
//! input that ends inside what was read is an [`ErrorKind::Eof`] error (the caller reads
//! more and tries again).

use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;

use super::counted::container_end_counted;
use super::extent::{skip_fast, Memo};
use super::number::number as number_at;
use super::scan::{self, colon, expected, unexpected};
use super::skip::skip_whole;
use super::string::{scan_string, string_body};
use crate::bytes::{byte_mask, json_escape_mask, non_ascii_mask, BLOCK};
use crate::decode::common::Pending;
use crate::error::{DecodeError, ErrorKind};
use crate::limits::MAX_DEPTH;

/// Skips JSON whitespace from `i`; the position of the next other byte (or the end).
#[inline]
pub(crate) fn ws(buf: &[u8], i: usize) -> usize {
    scan::ws(buf, i)
}

/// The string whose opening quote is at `at` (escapes decoded into `bump`, UTF-8 checked)
/// and the position after its closing quote.
pub(crate) fn string<'a>(
    buf: &'a [u8],
    at: usize,
    bump: &'a Bump,
) -> Result<(&'a str, usize), DecodeError> {
    if buf.get(at) != Some(&b'"') {
        return Err(expected(buf, at, "a string").into_error());
    }
    let start = at.wrapping_add(1);
    let (end, flags) = scan_string(buf, start, at).map_err(Pending::into_error)?;
    let s = string_body(buf, start, end, flags, bump).map_err(Pending::into_error)?;
    Ok((s, end.wrapping_add(1)))
}

/// The string whose opening quote is at `at` when it is short, ASCII and free of escapes
/// (and of `<`, `>`, `&`: the bytes Go escapes): one 32-byte block holds it and its closing
/// quote. The string and the position after that quote; `None` for any other string, or
/// fewer than 32 bytes after the quote (read those with [`string`], which reads these the
/// same).
#[inline]
pub(crate) fn plain_string(buf: &[u8], at: usize) -> Option<(&str, usize)> {
    // (Callers try it on any value: one byte tells a string before the block is classified.)
    if buf.get(at) != Some(&b'"') {
        return None;
    }
    let start = at.wrapping_add(1);
    let block = buf.get(start..)?.first_chunk::<BLOCK>()?;
    let quote = byte_mask(block, b'"');
    // Quotes, backslashes, control bytes, Go's escaped bytes, and every byte not ASCII.
    let stop = json_escape_mask(block) | non_ascii_mask(block);
    if quote == 0 || stop.trailing_zeros() != quote.trailing_zeros() {
        return None;
    }
    let len = quote.trailing_zeros() as usize;
    let body = block.get(..len)?;
    debug_assert!(body.is_ascii());
    // SAFETY: every byte of `body` is ASCII: `non_ascii_mask` marks none before the quote.
    let s = unsafe { std::str::from_utf8_unchecked(body) };
    // `start + len + 1`: inside the block just read.
    Some((s, start.wrapping_add(len).wrapping_add(1)))
}

/// An object key at `at` (whitespace allowed before it) and its colon: the key and the
/// position after the colon.
pub(crate) fn key<'a>(
    buf: &'a [u8],
    at: usize,
    bump: &'a Bump,
) -> Result<(&'a str, usize), DecodeError> {
    let at = ws(buf, at);
    if buf.get(at) != Some(&b'"') {
        return Err(expected(buf, at, "a string key").into_error());
    }
    let (k, end) = string(buf, at, bump)?;
    Ok((k, colon(buf, end).map_err(Pending::into_error)?))
}

/// The number at `at` by JSON's grammar: its text and the position after it.
pub(crate) fn number(buf: &[u8], at: usize) -> Result<(&str, usize), DecodeError> {
    let end = match buf.get(at) {
        Some(b'-' | b'0'..=b'9') => number_at(buf, at).map_err(Pending::into_error)?.0,
        _ => return Err(unexpected(buf, at).into_error()),
    };
    let text = buf.get(at..end).unwrap_or_default();
    // (The grammar admits only ASCII.)
    Ok((std::str::from_utf8(text).unwrap_or_default(), end))
}

/// The literal `word` (`true`, `false`, `null`) at `at`: the position after it.
pub(crate) fn literal(buf: &[u8], at: usize, word: &'static [u8]) -> Result<usize, DecodeError> {
    scan::literal(buf, at, word).map_err(Pending::into_error)
}

/// Skips the JSON value at `at` (whitespace allowed before it), validating it as a decode
/// would (nesting up to [`MAX_DEPTH`]); the position after it. `scratch` holds the
/// container stack (reset it between units).
pub(crate) fn skip(buf: &[u8], at: usize, scratch: &Bump) -> Result<usize, DecodeError> {
    let mut stack = BumpVec::new_in(scratch);
    let depth = MAX_DEPTH as usize;
    skip_whole(buf, at, &mut stack, depth, MAX_DEPTH).map_err(Pending::into_error)
}

/// The end of the object at `at` found by counting brackets outside strings, with no limit on
/// the nesting and nothing checked (for a unit read afterwards: a state's resource); `None`
/// when `buf` ends first or `at` is not a `{`.
pub(crate) fn object_end_counted(buf: &[u8], at: usize) -> Option<usize> {
    match buf.get(at) {
        Some(b'{') => container_end_counted(buf, at),
        _ => None,
    }
}

/// Whether the value at `at` (whitespace allowed before it) ends inside `buf`, found without
/// validating it (strings jumped over, brackets counted): `false` when `buf` ends first,
/// which for a number or a literal includes ending at the last byte (more digits could
/// follow). A value that is not JSON counts as complete when its brackets close.
pub(crate) fn is_complete(buf: &[u8], at: usize, scratch: &Bump) -> bool {
    let mut memo = Memo::new_in(scratch);
    match skip_fast(buf, at, MAX_DEPTH as usize, MAX_DEPTH, &mut memo) {
        Ok(end) => end < buf.len() || matches!(buf.get(ws(buf, at)), Some(b'"' | b'[' | b'{')),
        Err(e) => e.0 .0 != ErrorKind::Eof,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let bump = Bump::new();
        let b = br#" "a\n" : 12.5e1, tru"#;
        assert_eq!(key(b, 0, &bump).unwrap(), ("a\n", 8));
        assert_eq!(number(b, 9).unwrap(), ("12.5e1", 15));
        let e = literal(b, 17, b"true").unwrap_err();
        assert_eq!((e.kind(), e.byte()), (ErrorKind::Eof, 17));
        assert_eq!(skip(br#"[1,{"x":null}] "#, 0, &bump).unwrap(), 14);
        let e = skip(b"[1,}", 0, &bump).unwrap_err();
        assert_eq!((e.kind(), e.byte()), (ErrorKind::Syntax, 3));
    }

    #[test]
    fn plain_strings_read_as_strings_read() {
        let bump = Bump::new();
        let pieces: [&[u8]; 9] = [
            b"a",
            b"Z9_-.",
            b" ",
            b"\\\"",
            b"<",
            b"\xc3\xa9",
            b"\x01",
            b"\"",
            b"\\n",
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut taken = 0;
        for _ in 0..crate::test_rng::rounds(20_000, 200) {
            let mut text = b"\"".to_vec();
            while text.len() < 40 {
                crate::test_rng::next(&mut x);
                // Mostly plain bytes, now and then one of the others.
                let k = (x % 40) as usize;
                text.extend_from_slice(pieces[if k < 32 { k % 3 } else { k - 31 }]);
            }
            if let Some(fast) = plain_string(&text, 0) {
                taken += 1;
                assert_eq!(Some(fast), string(&text, 0, &bump).ok(), "{text:?}");
            }
        }
        assert!(taken > crate::test_rng::rounds(1_000, 10), "{taken}");
        let text = br#""managed",                                "#;
        assert_eq!(plain_string(text, 0), Some(("managed", 9)));
        // Not a quote at `at`; too few bytes after it; an escape before the quote.
        assert_eq!(plain_string(text, 1), None);
        assert_eq!(plain_string(br#""managed""#, 0), None);
        assert_eq!(
            plain_string(br#""a\"b",                              "#, 0),
            None
        );
    }

    #[test]
    fn completeness() {
        let bump = Bump::new();
        for (text, complete) in [
            (&br#"{"a":[1,"]"]}"#[..], true),
            (br#"{"a":[1,"]"]"#, false),
            (br#"{"a":"}"#, false),
            (b"12", false),
            (b"12,", true),
            (b"nul", false),
            (b"null", false),
            (b"null}", true),
            (br#""ab"#, false),
            (br#""ab""#, true),
            (b"{]", true),
            (b"  ", false),
        ] {
            assert_eq!(
                is_complete(text, 0, &bump),
                complete,
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }
}
