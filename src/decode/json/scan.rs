//! Shared byte-level helpers of the JSON executor: whitespace, the literals `true`, `false`
//! and `null`, the colon after a key, the bytes that continue a token, and the errors for
//! unexpected bytes, separators, the end of the input and nesting.
//!
//! The rest of the scanning lives beside it: [`string`](super::string) (strings and
//! escapes), [`json_number`](super::json_number) (the number grammar),
//! [`json_skip`](super::json_skip) (validating skips) and [`json_extent`](super::json_extent)
//! (value extents without validation). Every function takes the input and a position and
//! returns the position after what it read; errors are [`Pending`]s with the offset of the
//! offending byte (or, when the input ended, of the item that was cut short).
//!
//! Positions never panic: bytes are read with `get`, and a position is at most a few bytes
//! past the end of the input (a backslash at the very end skips two), while the input is at
//! most `isize::MAX` bytes long. So `i + n` for a small constant `n`, or for the length of
//! bytes just read at `i`, cannot wrap: it is written `i.wrapping_add(n)`, which compiles to
//! the same add and spells out that it cannot panic.

use crate::bytes::{byte_mask, BLOCK};
use crate::decode::common::Pending;
use crate::error::ErrorKind;

/// Skips JSON whitespace from `i`; returns the position of the next other byte (or the end).
/// No whitespace (go-cty's compact form) costs one compare; a run (an indented document's
/// newline and indentation) goes 32 bytes at a time.
#[inline(always)]
pub(super) fn ws(buf: &[u8], i: usize) -> usize {
    ws_then::<false>(buf, i)
}

/// [`ws`] with an indentation's spaces counted inline (one 32-byte compare), [`ws_run`]
/// called when those spaces do not end at a token (other whitespace after them, 32 or more
/// of them, or fewer than 32 bytes left): for the loops that mostly meet indented input
/// once they meet whitespace at all (the straight DUMP's).
#[inline(always)]
pub(super) fn ws_indented(buf: &[u8], i: usize) -> usize {
    ws_then::<true>(buf, i)
}

/// [`ws_run`] with the spaces of one 32-byte block counted inline first.
#[inline(always)]
fn spaces_inline(buf: &[u8], i: usize) -> usize {
    if let Some(block) = buf.get(i..).and_then(|s| s.first_chunk::<BLOCK>()) {
        // (At most 32, and `i + 32` is within `buf`.)
        let end = i.wrapping_add(byte_mask(block, b' ').trailing_ones() as usize);
        if buf.get(end).is_some_and(|&c| c > b' ') {
            return end;
        }
        // (Whitespace other than a space, or the end: the run goes on from there.)
        return ws_run(buf, end);
    }
    ws_run(buf, i)
}

/// [`ws`], a run of two or more whitespace bytes left to [`spaces_inline`] when `INLINE`,
/// else to [`ws_run`] (from its second byte).
#[inline(always)]
fn ws_then<const INLINE: bool>(buf: &[u8], i: usize) -> usize {
    match buf.get(i) {
        Some(&c) if c > b' ' => i,
        None => i,
        Some(&c) if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') => i,
        // One whitespace byte (the space after an indented document's colons), or a run.
        Some(_) => {
            let next = i.wrapping_add(1);
            match buf.get(next) {
                Some(&c) if c > b' ' => next,
                None => next,
                Some(_) if INLINE => spaces_inline(buf, next),
                Some(_) => ws_run(buf, next),
            }
        }
    }
}

/// [`ws`] from a byte that may be whitespace. An indented document's run is a newline and
/// spaces: the spaces are counted first with one compare per block, and only a run that
/// stops at other whitespace (a tab, a blank line) goes on with the four-way compare.
#[inline(never)]
fn ws_run(buf: &[u8], i: usize) -> usize {
    if let Some(block) = buf.get(i..).and_then(|s| s.first_chunk::<BLOCK>()) {
        let spaces = byte_mask(block, b' ');
        if spaces != u32::MAX {
            // (At most 31: the block holds a byte that is not a space.)
            let end = i.wrapping_add(spaces.trailing_ones() as usize);
            if buf.get(end).is_some_and(|&c| c > b' ') {
                return end;
            }
            return ws_any(buf, end);
        }
        return ws_any(buf, i.wrapping_add(BLOCK));
    }
    ws_bytewise(buf, i)
}

/// [`ws`] over any whitespace, 32 bytes at a time.
fn ws_any(buf: &[u8], mut i: usize) -> usize {
    while let Some(block) = buf.get(i..).and_then(|s| s.first_chunk::<BLOCK>()) {
        let spaces = byte_mask(block, b' ')
            | byte_mask(block, b'\n')
            | byte_mask(block, b'\r')
            | byte_mask(block, b'\t');
        if spaces != u32::MAX {
            // (At most 31: the block holds a byte that is not whitespace.)
            return i.wrapping_add(spaces.trailing_ones() as usize);
        }
        i = i.wrapping_add(BLOCK);
    }
    ws_bytewise(buf, i)
}

/// [`ws`] one byte at a time (the tail of the input, and the reference the block loop is
/// tested against).
pub(super) fn ws_bytewise(buf: &[u8], mut i: usize) -> usize {
    while let Some(&c) = buf.get(i) {
        if c > b' ' || !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            break;
        }
        i = i.wrapping_add(1);
    }
    i
}

/// Bytes that may not directly follow a number or a literal (they would continue the token).
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        // In bounds: `c < 256`, the table's length; and this runs at compile time, where an
        // out-of-bounds index would fail the build, not a decode.
        #[allow(clippy::indexing_slicing)]
        {
            t[c] = b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_');
        }
        c += 1;
    }
    t
};

/// True for a byte that may not directly follow a number or a literal ([`WORD`]).
#[inline(always)]
pub(super) fn is_word(c: u8) -> bool {
    // (A `u8` indexes the 256 entries: the check compiles away.)
    WORD.get(usize::from(c)) == Some(&true)
}

/// Checks the literal `word` (`true`, `false`, `null`) at `at`; returns its end.
#[inline(always)]
pub(super) fn literal(buf: &[u8], at: usize, word: &'static [u8]) -> Result<usize, Pending> {
    let end = at.wrapping_add(word.len());
    if buf.get(at..end) == Some(word) && !buf.get(end).is_some_and(|&c| is_word(c)) {
        return Ok(end);
    }
    Err(bad_literal(buf, at, word))
}

#[cold]
#[inline(never)]
fn bad_literal(buf: &[u8], at: usize, word: &[u8]) -> Pending {
    let rest = buf.get(at..).unwrap_or_default();
    if rest.len() < word.len() && word.starts_with(rest) {
        return Pending::new(
            ErrorKind::Eof,
            at,
            "unexpected end of input in a literal".into(),
        );
    }
    unexpected(buf, at)
}

/// A byte that cannot start a JSON value (or the end of the input).
#[cold]
#[inline(never)]
pub(super) fn unexpected(buf: &[u8], at: usize) -> Pending {
    match buf.get(at) {
        None => eof(at),
        Some(&c) if !is_word(c) => Pending::new(
            ErrorKind::Syntax,
            at,
            format!("expected a JSON value, found {}", show_byte(c)),
        ),
        Some(_) => {
            // The word bytes from `at` (the first is one), at most 20.
            let rest = buf.get(at..).unwrap_or_default();
            let n = rest.iter().take(20).take_while(|&&c| is_word(c)).count();
            let token = String::from_utf8_lossy(rest.get(..n).unwrap_or_default());
            Pending::new(
                ErrorKind::Syntax,
                at,
                format!("expected a JSON value, found {token:?}"),
            )
        }
    }
}

#[cold]
pub(super) fn eof(at: usize) -> Pending {
    Pending::new(ErrorKind::Eof, at, "unexpected end of input".into())
}

/// What came where a separator was expected: the end, or a byte.
#[cold]
#[inline(never)]
pub(super) fn bad_separator(buf: &[u8], at: usize, close: u8) -> Pending {
    match buf.get(at) {
        None => eof(at),
        Some(&c) => {
            let msg = format!(
                "expected ',' or '{}' after a value, found {}",
                close as char,
                show_byte(c)
            );
            Pending::new(ErrorKind::Syntax, at, msg)
        }
    }
}

/// `':'` after an object key at `at`; returns the position after it.
#[inline(always)]
pub(super) fn colon(buf: &[u8], at: usize) -> Result<usize, Pending> {
    let i = ws(buf, at);
    match buf.get(i) {
        Some(b':') => Ok(i.wrapping_add(1)),
        _ => Err(expected(buf, i, "':' after an object key")),
    }
}

/// `what` was expected at `at`.
#[cold]
#[inline(never)]
pub(super) fn expected(buf: &[u8], at: usize, what: &str) -> Pending {
    match buf.get(at) {
        None => eof(at),
        Some(&c) => Pending::new(
            ErrorKind::Syntax,
            at,
            format!("expected {what}, found {}", show_byte(c)),
        ),
    }
}

pub(super) fn show_byte(c: u8) -> String {
    if c.is_ascii_graphic() {
        format!("'{}'", c as char)
    } else {
        format!("byte 0x{c:02x}")
    }
}

#[cold]
pub(super) fn too_deep(at: usize, max_depth: u32) -> Pending {
    let msg = format!("nesting deeper than max_depth ({max_depth})");
    Pending::new(ErrorKind::Limit, at, msg)
}

/// The element count of a list of scalars whose first element is at `i` (the list is known
/// not to be empty): the commas before its `]`, plus one, found 32 bytes at a time. `None`
/// when a quote, a bracket or a brace comes before the `]` (a string, a container, or not
/// JSON: the caller then collects the elements as they come), or the input ends first.
///
/// When the elements then decode as numbers, bools or nulls, which hold no comma, this is
/// exactly their number; a list that does not parse fails before its count matters.
#[inline]
pub(super) fn scalar_list_len(buf: &[u8], mut i: usize) -> Option<u32> {
    let mut commas: u32 = 0;
    loop {
        let rest = buf.get(i..)?;
        let block = match rest.first_chunk::<BLOCK>() {
            Some(block) => *block,
            None => {
                // The tail, padded with quotes: a list cut short answers `None`.
                let mut block = [b'"'; BLOCK];
                block.get_mut(..rest.len())?.copy_from_slice(rest);
                block
            }
        };
        let comma = byte_mask(&block, b',');
        let close = byte_mask(&block, b']');
        let other = byte_mask(&block, b'"')
            | byte_mask(&block, b'[')
            | byte_mask(&block, b'{')
            | byte_mask(&block, b'}');
        let stop = close | other;
        if stop != 0 {
            let first = stop & stop.wrapping_neg();
            if first & close == 0 {
                return None;
            }
            let before = comma & first.wrapping_sub(1);
            return commas.checked_add(before.count_ones())?.checked_add(1);
        }
        commas = commas.checked_add(comma.count_ones())?;
        i = i.wrapping_add(BLOCK);
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;

    /// The count `scalar_list_len` must give, byte by byte.
    fn naive(buf: &[u8], i: usize) -> Option<u32> {
        let rest = &buf[i..];
        let stop = rest.iter().position(|c| b"]\"[{}".contains(c))?;
        if rest[stop] != b']' {
            return None;
        }
        Some(rest[..stop].iter().filter(|&&c| c == b',').count() as u32 + 1)
    }

    #[test]
    fn ws_and_ws_indented_equal_the_bytewise_skip() {
        let pieces: [&[u8]; 6] = [b" ", b"\n", b"\r", b"\t", b"x", b"\x0b"];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..120 {
            for _ in 0..30 {
                let mut text = Vec::new();
                while text.len() < len {
                    crate::test_rng::next(&mut x);
                    // Mostly whitespace, now and then another byte; every other text mostly
                    // spaces (an indented document's runs).
                    let k = (x % 50) as usize;
                    let piece = match k {
                        46.. => 4 + k % 2,
                        _ if len % 2 == 1 && k < 40 => 0,
                        _ => k % 4,
                    };
                    text.extend_from_slice(pieces[piece]);
                }
                for i in 0..=text.len() {
                    let want = ws_bytewise(&text, i);
                    assert_eq!(ws(&text, i), want, "{text:?} {i}");
                    assert_eq!(ws_indented(&text, i), want, "{text:?} {i}");
                }
            }
        }
        // An indentation's spaces ending at a token, at whitespace, or at the end, inside
        // one block and past it.
        for text in [
            format!("\n{}x", " ".repeat(31)),
            format!("\n{}x", " ".repeat(32)),
            format!("\n{}\n  x", " ".repeat(32)),
            format!("\n{}\r\n x", " ".repeat(12)),
            format!("\n{}", " ".repeat(40)),
        ] {
            let text = text.into_bytes();
            for i in 0..=text.len() {
                let want = ws_bytewise(&text, i);
                assert_eq!(ws(&text, i), want, "{text:?} {i}");
                assert_eq!(ws_indented(&text, i), want, "{text:?} {i}");
            }
        }
    }

    #[test]
    fn scalar_list_len_equals_the_naive_count() {
        let pieces: [&[u8]; 9] = [
            b"1", b",", b" ", b"-2.5e3", b"null", b"]", b"\"", b"[", b"}",
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in 0..200 {
            for _ in 0..20 {
                let mut text = Vec::new();
                while text.len() < len {
                    crate::test_rng::next(&mut x);
                    // Mostly elements and commas, now and then a stop byte.
                    let k = (x % 40) as usize;
                    text.extend_from_slice(pieces[if k < 36 { k % 5 } else { k - 31 }]);
                }
                for start in [0, text.len() / 2] {
                    assert_eq!(
                        scalar_list_len(&text, start),
                        naive(&text, start),
                        "{:?} from {start}",
                        String::from_utf8_lossy(&text)
                    );
                }
            }
        }
        assert_eq!(scalar_list_len(b"1,2,3]", 0), Some(3));
        assert_eq!(scalar_list_len(b"1,2,3", 0), None);
        assert_eq!(scalar_list_len(b"1,\"2\",3]", 0), None);
        let long = [&b"12,"[..]; 40].concat();
        assert_eq!(scalar_list_len(&[&long[..], b"7]"].concat(), 0), Some(41));
    }
}
