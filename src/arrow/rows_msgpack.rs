//! One row read from MessagePack straight into the columns (`rows.rs` says when): a map
//! holding the type's attributes in its order (as go-cty writes objects), strings checked
//! UTF-8 and copied into their column, integers and floats into theirs, lists, sets and
//! maps (keys in order) into their offsets and children, nil as nulls all the way down.
//! Anything else (an unknown, a `bin`, a decimal string, a key out of order, a fault) answers
//! `None` and the row is left to the general decode, which reads it or names the fault.

use super::columns::Column;
use super::leaves::end_items;
use crate::bytes::is_utf8;
use crate::decode::msgpack::number_f64;
use crate::program::key::AttrEntry;

/// Reads the row at the start of `buf` (the whole input) into `columns`, whose attributes'
/// keys are `keys`.
pub(super) fn row(columns: &mut [Column], keys: &[AttrEntry], buf: &[u8]) -> Option<()> {
    let end = object(columns, keys, buf, 0)?;
    (end == buf.len()).then_some(())
}

/// An object at `at`, of attributes `keys`: the position after it.
fn object(children: &mut [Column], keys: &[AttrEntry], buf: &[u8], at: usize) -> Option<usize> {
    let (n, mut pos) = map_len(buf, at)?;
    if n != keys.len() {
        return None;
    }
    for (c, k) in children.iter_mut().zip(keys) {
        if !k.matches(buf, pos) {
            return None;
        }
        pos = value(c, buf, pos.checked_add(k.len())?)?;
    }
    Some(pos)
}

/// The value at `at` into column `c`: the position after it.
fn value(c: &mut Column, buf: &[u8], at: usize) -> Option<usize> {
    let m = *buf.get(at)?;
    let next = at.wrapping_add(1);
    if m == 0xc0 {
        c.append_nulls();
        return Some(next);
    }
    match c {
        Column::Utf8(t) => {
            let (bytes, end) = text(buf, at, m)?;
            t.append_checked(bytes);
            Some(end)
        }
        Column::Bool(b) => {
            match m {
                0xc2 => b.append(false),
                0xc3 => b.append(true),
                _ => return None,
            }
            Some(next)
        }
        Column::Float64(f) => {
            let (x, end) = number_f64(buf, at, m)?;
            f.append(x);
            Some(end)
        }
        Column::List {
            offsets,
            nulls,
            child,
            ..
        } => {
            let (n, mut pos) = array_len(buf, at)?;
            for _ in 0..n {
                pos = value(child, buf, pos)?;
            }
            end_items(offsets, nulls, n)?;
            Some(pos)
        }
        Column::Map {
            offsets,
            nulls,
            keys,
            values,
            ..
        } => {
            let (n, mut pos) = map_len(buf, at)?;
            let mut last: Option<&[u8]> = None;
            for _ in 0..n {
                let k = *buf.get(pos)?;
                let (key, end) = text(buf, pos, k)?;
                // Keys in order and none repeated (else go-cty's sort and last-wins, there).
                if last.is_some_and(|l| l >= key) {
                    return None;
                }
                last = Some(key);
                keys.append_checked(key);
                pos = value(values, buf, end)?;
            }
            end_items(offsets, nulls, n)?;
            Some(pos)
        }
        Column::Struct {
            nulls,
            children,
            keys: Some(keys),
            ..
        } => {
            let end = object(children, &keys.0, buf, at)?;
            nulls.append_non_null();
            Some(end)
        }
        _ => None,
    }
}

/// `n` bytes big-endian at `at`.
#[inline(always)]
fn be(buf: &[u8], at: usize, n: usize) -> Option<u64> {
    let bytes = buf.get(at..at.checked_add(n)?)?;
    Some(bytes.iter().fold(0u64, |v, b| v << 8 | u64::from(*b)))
}

/// The UTF-8 bytes of the `str` (marker `m`) at `at`, and the position after it.
#[inline(always)]
fn text(buf: &[u8], at: usize, m: u8) -> Option<(&[u8], usize)> {
    let (header, len) = match m {
        0xa0..=0xbf => (1, u64::from(m & 0x1f)),
        0xd9 => (2, be(buf, at.wrapping_add(1), 1)?),
        0xda => (3, be(buf, at.wrapping_add(1), 2)?),
        0xdb => (5, be(buf, at.wrapping_add(1), 4)?),
        _ => return None,
    };
    let start = at.checked_add(header)?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    let bytes = buf.get(start..end)?;
    is_utf8(bytes).then_some((bytes, end))
}

/// A map header at `at`: its entry count and the position after it.
#[inline(always)]
fn map_len(buf: &[u8], at: usize) -> Option<(usize, usize)> {
    container_len(buf, at, 0x80, 0xde)
}

/// An array header at `at`: its item count and the position after it.
#[inline(always)]
fn array_len(buf: &[u8], at: usize) -> Option<(usize, usize)> {
    container_len(buf, at, 0x90, 0xdc)
}

/// A container header at `at` of the kind whose fix form is `fix` (`0x80`, `0x90`) and
/// whose 16-bit form is `wide` (`0xde`, `0xdc`; the 32-bit form follows it): the count and
/// the position after the header.
#[inline(always)]
fn container_len(buf: &[u8], at: usize, fix: u8, wide: u8) -> Option<(usize, usize)> {
    let m = *buf.get(at)?;
    let body = at.wrapping_add(1);
    let (n, header) = if m & 0xf0 == fix {
        (u64::from(m & 0x0f), 0)
    } else if m == wide {
        (be(buf, body, 2)?, 2)
    } else if m == wide.wrapping_add(1) {
        (be(buf, body, 4)?, 4)
    } else {
        return None;
    };
    Some((usize::try_from(n).ok()?, body.wrapping_add(header)))
}
