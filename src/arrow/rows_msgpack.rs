//! One row read from MessagePack straight into the columns (`rows.rs` says when): a map
//! holding the type's attributes in its order (as go-cty writes objects), strings checked
//! UTF-8 and copied into their column, integers and floats into theirs, lists, sets and
//! maps (keys in order) into their offsets and children, nil as nulls all the way down.
//! Anything else (an unknown, a `bin`, a `uint64`, a key out of order, a fault) answers
//! `None` and the row is left to the general decode, which reads it or names the fault.

use super::columns::Column;
use super::keys::Key;
use super::leaves::end_items;

/// Reads the row at the start of `buf` (the whole input) into `columns`, whose attributes'
/// keys are `keys`.
pub(super) fn row(columns: &mut [Column], keys: &[Key], buf: &[u8]) -> Option<()> {
    let end = object(columns, keys, buf, 0)?;
    (end == buf.len()).then_some(())
}

/// An object at `at`, of attributes `keys`: the position after it.
fn object(children: &mut [Column], keys: &[Key], buf: &[u8], at: usize) -> Option<usize> {
    let (n, mut pos) = map_len(buf, at)?;
    if n != keys.len() {
        return None;
    }
    for (c, k) in children.iter_mut().zip(keys) {
        pos = value(c, buf, k.at(buf, pos)?)?;
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
            let (x, end) = number(buf, at, m)?;
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
            let end = object(children, &keys.msgpack, buf, at)?;
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
    let utf8 = crate::bytes::is_ascii(bytes) || simdutf8::basic::from_utf8(bytes).is_ok();
    utf8.then_some((bytes, end))
}

/// The number (marker `m`) at `at` as the general decode gives it to a `Float64` column
/// (an integer of at most 63 bits, or a float that is not NaN nor infinite), and the
/// position after it.
#[inline(always)]
fn number(buf: &[u8], at: usize, m: u8) -> Option<(f64, usize)> {
    let body = at.wrapping_add(1);
    let (x, n) = match m {
        0x00..=0x7f => (f64::from(m), 0),
        0xe0..=0xff => (f64::from(m as i8), 0),
        0xcc => (be(buf, body, 1)? as f64, 1),
        0xcd => (be(buf, body, 2)? as f64, 2),
        0xce => (be(buf, body, 4)? as f64, 4),
        0xd0 => (f64::from(be(buf, body, 1)? as u8 as i8), 1),
        0xd1 => (f64::from(be(buf, body, 2)? as u16 as i16), 2),
        0xd2 => (f64::from(be(buf, body, 4)? as u32 as i32), 4),
        0xd3 => (be(buf, body, 8)? as i64 as f64, 8),
        0xca => (f64::from(f32::from_bits(be(buf, body, 4)? as u32)), 4),
        0xcb => (f64::from_bits(be(buf, body, 8)?), 8),
        _ => return None,
    };
    x.is_finite().then_some((x, body.wrapping_add(n)))
}

/// A map header at `at`: its entry count and the position after it.
#[inline(always)]
fn map_len(buf: &[u8], at: usize) -> Option<(usize, usize)> {
    let m = *buf.get(at)?;
    let body = at.wrapping_add(1);
    let (n, header) = match m {
        0x80..=0x8f => (u64::from(m & 0x0f), 0),
        0xde => (be(buf, body, 2)?, 2),
        0xdf => (be(buf, body, 4)?, 4),
        _ => return None,
    };
    Some((usize::try_from(n).ok()?, body.wrapping_add(header)))
}

/// An array header at `at`: its item count and the position after it.
#[inline(always)]
fn array_len(buf: &[u8], at: usize) -> Option<(usize, usize)> {
    let m = *buf.get(at)?;
    let body = at.wrapping_add(1);
    let (n, header) = match m {
        0x90..=0x9f => (u64::from(m & 0x0f), 0),
        0xdc => (be(buf, body, 2)?, 2),
        0xdd => (be(buf, body, 4)?, 4),
        _ => return None,
    };
    Some((usize::try_from(n).ok()?, body.wrapping_add(header)))
}
