//! The validating skip of a whole JSON value (an unknown attribute's, or a discarded one):
//! every string, number and literal checked as a decode would, without recursion and without
//! building anything. [`skip_whole`], for values that may be large (a whole document, a state's
//! values), tries the two-stage skip (`token_skip.rs`) on containers first; when that one is
//! not sure, [`skip`] walks the value again and names the fault.

use super::counted::container_end_counted;
use super::number::number;
use super::scan::{bad_separator, colon, expected, literal, too_deep, unexpected, ws};
use super::string::{check_string_body, scan_string};
use super::token_skip::container_end;
use crate::decode::common::Pending;
use bumpalo::collections::Vec as BumpVec;

/// [`skip`], with the two-stage skip first for a container of more than [`SMALL`] bytes.
pub(super) fn skip_whole(
    buf: &[u8],
    i: usize,
    stack: &mut BumpVec<'_, bool>,
    depth: usize,
    max_depth: u32,
) -> Result<usize, Pending> {
    let i = ws(buf, i);
    if !small(buf, i) {
        if let Some(end) = container_end(buf, i, depth) {
            return Ok(end);
        }
    }
    skip(buf, i, stack, depth, max_depth)
}

/// Bytes under which a container is skipped by [`skip`] alone: the two-stage skip's setup (a
/// whole block classified, the grammar's masks) costs more than it saves on less.
const SMALL: usize = 256;

/// Whether the value at `i` is a scalar, a string, or a container whose brackets close
/// within [`SMALL`] bytes (counted, not checked: four blocks of `counted.rs`'s scan).
#[inline]
fn small(buf: &[u8], i: usize) -> bool {
    if !matches!(buf.get(i), Some(b'[' | b'{')) {
        return true;
    }
    // (The scan starts after the bracket: four whole blocks.)
    let window = buf
        .get(..i.saturating_add(SMALL).saturating_add(1))
        .unwrap_or(buf);
    container_end_counted(window, i).is_some()
}

/// Skips the whole JSON value at `i` (whitespace allowed before it), validating it, without
/// recursion, a token at a time (strings a block at a time): `stack` (reused) holds one entry
/// per open container (`true` for an object). Opening more than `depth` containers is a
/// [`ErrorKind::Limit`] error (`max_depth` is the limit named in the message). Returns the
/// position after the value.
///
/// [`ErrorKind::Limit`]: crate::error::ErrorKind::Limit
pub(super) fn skip(
    buf: &[u8],
    mut i: usize,
    stack: &mut BumpVec<'_, bool>,
    depth: usize,
    max_depth: u32,
) -> Result<usize, Pending> {
    stack.clear();
    'value: loop {
        i = ws(buf, i);
        // (A string, most values of a state, tested first: a branch that predicts well
        // rather than the match's jump table.)
        if buf.get(i) == Some(&b'"') {
            i = skip_string(buf, i)?;
        } else {
            match buf.get(i) {
                Some(b'-' | b'0'..=b'9') => i = number(buf, i)?.0,
                Some(b't') => i = literal(buf, i, b"true")?,
                Some(b'f') => i = literal(buf, i, b"false")?,
                Some(b'n') => i = literal(buf, i, b"null")?,
                Some(&c @ (b'[' | b'{')) => {
                    if stack.len() >= depth {
                        return Err(too_deep(i, max_depth));
                    }
                    let object = c == b'{';
                    stack.push(object);
                    // (Steps over bytes just read: see `scan.rs` on positions.)
                    i = ws(buf, i.wrapping_add(1));
                    if buf.get(i) == Some(if object { &b'}' } else { &b']' }) {
                        stack.pop();
                        i = i.wrapping_add(1);
                    } else {
                        if object {
                            i = skip_key(buf, i)?;
                        }
                        continue 'value;
                    }
                }
                _ => return Err(unexpected(buf, i)),
            }
        }
        // After a value: separators and closing brackets.
        loop {
            let Some(&object) = stack.last() else {
                return Ok(i);
            };
            i = ws(buf, i);
            let close = if object { b'}' } else { b']' };
            match buf.get(i) {
                Some(b',') => {
                    i = i.wrapping_add(1);
                    if object {
                        i = skip_key(buf, ws(buf, i))?;
                    }
                    continue 'value;
                }
                Some(&c) if c == close => {
                    stack.pop();
                    i = i.wrapping_add(1);
                }
                _ => return Err(bad_separator(buf, i, close)),
            }
        }
    }
}

/// A key and its colon, in a skipped object.
#[cfg_attr(not(debug_assertions), inline(always))]
fn skip_key(buf: &[u8], i: usize) -> Result<usize, Pending> {
    if buf.get(i) != Some(&b'"') {
        return Err(expected(buf, i, "a string key"));
    }
    colon(buf, skip_string(buf, i)?)
}

/// [`skip`] of one value, with the scalars (a string first: most values stepped over,
/// unknown and unselected attributes) and the empty `[]` and `{}` taken inline, without the
/// general skip's call and stack; [`skip_whole`] is the other door, for values that may be
/// large.
#[inline(always)]
pub(super) fn skip_value(
    buf: &[u8],
    i: usize,
    stack: &mut BumpVec<'_, bool>,
    depth: usize,
    max_depth: u32,
) -> Result<usize, Pending> {
    let v = ws(buf, i);
    // (Strings first, by a branch of their own, as in `skip`.)
    if buf.get(v) == Some(&b'"') {
        return skip_string(buf, v);
    }
    match buf.get(v) {
        Some(b'n') => literal(buf, v, b"null"),
        Some(b'f') => literal(buf, v, b"false"),
        Some(b't') => literal(buf, v, b"true"),
        Some(b'-' | b'0'..=b'9') => Ok(number(buf, v)?.0),
        // An empty list or object in compact form (`[]`, `{}`: a container opened and
        // closed, within any depth limit that lets a value be skipped at all).
        Some(b'[') if buf.get(v.wrapping_add(1)) == Some(&b']') && depth > 0 => {
            Ok(v.wrapping_add(2))
        }
        Some(b'{') if buf.get(v.wrapping_add(1)) == Some(&b'}') && depth > 0 => {
            Ok(v.wrapping_add(2))
        }
        _ => skip(buf, v, stack, depth, max_depth),
    }
}

/// Skips and checks the string whose opening quote is at `at`.
#[inline(always)]
fn skip_string(buf: &[u8], at: usize) -> Result<usize, Pending> {
    let start = at.wrapping_add(1);
    let (end, flags) = scan_string(buf, start, at)?;
    if flags != 0 {
        check_string_body(buf, start, end, flags)?;
    }
    // `end` is the closing quote's position.
    Ok(end.wrapping_add(1))
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn skips() {
        let bump = bumpalo::Bump::new();
        let mut st = BumpVec::new_in(&bump);
        let sk = |s: &str, st: &mut BumpVec<'_, bool>| {
            skip(s.as_bytes(), 0, st, 10, 10).map_err(|p| (p.0 .0, p.0 .1))
        };
        assert_eq!(sk(r#" {"a":[1,{"b":"]"}],"c":{}} x"#, &mut st), Ok(27));
        assert_eq!(sk("[[],[[]]]", &mut st), Ok(9));
        assert_eq!(sk("[1 2]", &mut st), Err((ErrorKind::Syntax, 3)));
        assert_eq!(sk("{\"a\" 1}", &mut st), Err((ErrorKind::Syntax, 5)));
        assert_eq!(sk("{1:1}", &mut st), Err((ErrorKind::Syntax, 1)));
        assert_eq!(sk("[1,]", &mut st), Err((ErrorKind::Syntax, 3)));
        assert_eq!(sk("[1}", &mut st), Err((ErrorKind::Syntax, 2)));
        assert_eq!(sk("[\"\\q\"]", &mut st), Err((ErrorKind::InvalidUtf8, 2)));
        // Long strings (the 64-byte scanner): two-byte escapes taken as seen there, any
        // other checked after it.
        let long = "x".repeat(40);
        let ok = format!("[\"{long}\\\"\\\\\\n\\/\\u00e9\"]");
        assert_eq!(sk(&ok, &mut st), Ok(ok.len()));
        let bad = format!("[\"{long}\\\"\\q\"]");
        assert_eq!(sk(&bad, &mut st), Err((ErrorKind::InvalidUtf8, 44)));
        let bad = format!("[\"{long}\\\"\\u12x4\"]");
        assert_eq!(sk(&bad, &mut st), Err((ErrorKind::InvalidUtf8, 44)));
        assert_eq!(sk("[[", &mut st), Err((ErrorKind::Eof, 2)));
        assert_eq!(sk(&"[".repeat(11), &mut st), Err((ErrorKind::Limit, 10)));
    }
}
