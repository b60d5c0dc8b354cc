//! One row read from JSON straight into the columns (`rows.rs` says when): an object
//! holding the type's attributes in its order (as go-cty writes objects), strings without
//! escapes (checked UTF-8), integers that fit `i64` (not `-0`), `true`, `false` and `null`, lists, sets
//! and maps (keys in order), whitespace anywhere JSON allows it. Anything else (an escape, a
//! fraction, an attribute missing or out of order, a fault) answers `None` and the row is
//! left to the general decode, which reads it or names the fault.

use super::columns::Column;
use super::leaves::end_items;
use crate::decode::json::plain::{boolean, null, plain_integer, plain_string, skip_ws};
use crate::program::key::AttrEntry;

/// Reads the row that is the whole of `buf` into `columns`, whose attributes' keys are
/// `keys`.
pub(super) fn row(columns: &mut [Column], keys: &[AttrEntry], buf: &[u8]) -> Option<()> {
    let end = object(columns, keys, buf, skip_ws(buf, 0))?;
    (skip_ws(buf, end) == buf.len()).then_some(())
}

/// The byte at `i` is `byte`: the position after it.
#[inline(always)]
fn expect(buf: &[u8], i: usize, byte: u8) -> Option<usize> {
    (buf.get(i) == Some(&byte)).then(|| i.wrapping_add(1))
}

/// An object at `at`, of attributes `keys`: the position after it.
fn object(children: &mut [Column], keys: &[AttrEntry], buf: &[u8], at: usize) -> Option<usize> {
    let mut i = skip_ws(buf, expect(buf, at, b'{')?);
    for (n, (c, k)) in children.iter_mut().zip(keys).enumerate() {
        if n > 0 {
            i = skip_ws(buf, expect(buf, i, b',')?);
        }
        // (go-cty's compact `"name":` in one compare; else whitespace before the colon.)
        let after = k
            .match_json_compact(buf, i)
            .or_else(|| k.match_json(buf, i));
        i = skip_ws(buf, after?);
        i = skip_ws(buf, value(c, buf, i)?);
    }
    expect(buf, i, b'}')
}

/// The value at `i` (not whitespace) into column `c`: the position after it.
fn value(c: &mut Column, buf: &[u8], i: usize) -> Option<usize> {
    if buf.get(i) == Some(&b'n') {
        let end = null(buf, i)?;
        c.append_nulls();
        return Some(end);
    }
    match c {
        Column::Utf8(t) => {
            let (body, end) = plain_string(buf, i)?;
            t.append_checked(body);
            Some(end)
        }
        Column::Bool(b) => {
            let (x, end) = boolean(buf, i)?;
            b.append(x);
            Some(end)
        }
        Column::Float64(f) => {
            let (x, end) = plain_integer(buf, i)?;
            f.append(x as f64);
            Some(end)
        }
        Column::List {
            offsets,
            nulls,
            child,
            ..
        } => {
            let (n, end) = items(buf, i, b'[', b']', |i| value(child, buf, i))?;
            end_items(offsets, nulls, n)?;
            Some(end)
        }
        Column::Map {
            offsets,
            nulls,
            keys,
            values,
            ..
        } => {
            let mut last: Option<&[u8]> = None;
            let (n, end) = items(buf, i, b'{', b'}', |i| {
                let (key, end) = plain_string(buf, i)?;
                // Keys in order and none repeated (else go-cty's sort and last-wins, there).
                if last.is_some_and(|l| l >= key) {
                    return None;
                }
                last = Some(key);
                keys.append_checked(key);
                let i = skip_ws(buf, expect(buf, skip_ws(buf, end), b':')?);
                value(values, buf, i)
            })?;
            end_items(offsets, nulls, n)?;
            Some(end)
        }
        Column::Struct {
            nulls,
            children,
            keys: Some(keys),
            ..
        } => {
            let end = object(children, &keys.0, buf, i)?;
            nulls.append_non_null();
            Some(end)
        }
        _ => None,
    }
}

/// The items of a list (`open` `[`) or the entries of a map (`{`) at `at`, each read by
/// `item` at its first byte (whitespace and commas stepped over here): their count and the
/// position after the closing bracket.
#[inline(always)]
fn items(
    buf: &[u8],
    at: usize,
    open: u8,
    close: u8,
    mut item: impl FnMut(usize) -> Option<usize>,
) -> Option<(usize, usize)> {
    let mut i = skip_ws(buf, expect(buf, at, open)?);
    let mut n = 0usize;
    if buf.get(i) != Some(&close) {
        loop {
            i = skip_ws(buf, item(i)?);
            n = n.wrapping_add(1);
            match buf.get(i) {
                Some(b',') => i = skip_ws(buf, i.wrapping_add(1)),
                Some(&c) if c == close => break,
                _ => return None,
            }
        }
    }
    Some((n, i.wrapping_add(1)))
}
