//! The projection's runs (`projected.rs` calls them): the pairs of a projected object
//! between two selected names stepped over in one loop. A key whose fixstr length no
//! selected key has is known by its marker (`Code::key_markers`), any other is compared
//! with the name; a fixstr or one-byte value is stepped over in the loop itself, any other
//! by [`marked_value_end`]. The UTF-8 checks are deferred
//! (`deferred.rs`): a run counts the bytes at or above 0x80 of its headers, then those of
//! all it stepped over; when they differ a string held one, and the caller steps over the
//! same pairs again by [`stepped_over_run`], which checks each as it goes ([`value_end`]).

use super::deferred::{count_non_ascii, is_one_byte, marked_value_end};
use super::skip::value_end;
use crate::bytes::{first, non_ascii_mask, BLOCK};
use crate::program::key::AttrEntry;

/// A key order and its markers ([`Program::key_order`], [`Program::key_markers`]).
///
/// [`Program::key_order`]: crate::program::Program::key_order
/// [`Program::key_markers`]: crate::program::Program::key_markers
#[derive(Clone, Copy)]
pub(super) struct Keys<'k> {
    pub order: &'k [AttrEntry],
    pub markers: &'k [u8],
}

/// Where a run is: the cursor, the next name of the key order and the pairs left.
#[derive(Clone, Copy)]
pub(super) struct RunAt {
    pub pos: usize,
    pub k: usize,
    pub pairs: u32,
}

/// Steps over pairs from `at.pos` while the key there is name `at.k` of the key order
/// `keys` (then `k + 1`, …) and a name stepped over — known by its marker alone where the
/// order's markers have one ([`Code::key_markers`]: no selected key has its length), else
/// compared in its block — and its value is one this walk takes; at most `at.pairs` of
/// them. The UTF-8 checks are deferred (`deferred.rs`): the result's second item is true
/// when the bytes stepped over hold no byte at or above 0x80 but headers, so every string
/// is ASCII; when false the caller steps over the same pairs again by
/// [`stepped_over_run`], which checks each in turn. Builds no error. Where the run ends:
/// the position, name and pairs left after the last pair stepped over.
///
/// [`Code::key_markers`]: crate::program::Code::key_markers
#[inline(always)]
pub(super) fn marker_run(buf: &[u8], keys: Keys<'_>, at: RunAt) -> (RunAt, bool) {
    // The names the run can reach (`Code::validate`: a marker per name).
    let last = keys
        .markers
        .len()
        .min(at.k.saturating_add(at.pairs as usize));
    let (pos, k, marks) = pairs_run(buf, keys, at.pos, at.k, last);
    let clean = count_non_ascii(buf, at.pos, pos) == Some(marks);
    // (`k - at.k <= pairs`.)
    let pairs = at.pairs.wrapping_sub(k.wrapping_sub(at.k) as u32);
    (RunAt { pos, k, pairs }, clean)
}

/// The pairs of names `k..last` of `keys` from `pos`, while each is one [`marker_run`]
/// takes. The position and the next name after the last pair taken, and the bytes at or
/// above 0x80 stepped over that are not a string's (`deferred.rs`).
#[inline(always)]
fn pairs_run(
    buf: &[u8],
    keys: Keys<'_>,
    mut pos: usize,
    mut k: usize,
    last: usize,
) -> (usize, usize, usize) {
    let mut marks = 0usize;
    while k < last {
        // The pairs whose key has a marker and whose value is a fixstr or one byte: a fixstr
        // key and a fixstr value lie in 64 bytes. (Each kind of value its own branch: the
        // next pair's position then waits on the value's marker only for a fixstr.)
        let mut fast = 0usize;
        for &marker in keys.markers.get(k..last).unwrap_or_default() {
            let Some(chunk) = buf.get(pos..).and_then(|s| s.first_chunk::<64>()) else {
                break;
            };
            if marker == 0 || marker != chunk[0] {
                break;
            }
            // (A marker is a fixstr's, at or above 0x80: the keys' count below relies on it.)
            debug_assert!((0xa0..=0xbf).contains(&marker));
            let key_end = usize::from(marker & 0x1f).wrapping_add(1);
            let vm = chunk.get(key_end).copied().unwrap_or(0xc1);
            // Past the value's marker, beside its load: a fixstr's end is then one addition
            // after the load (P66, `perf/optimizations.md`).
            let after_marker = pos.wrapping_add(key_end).wrapping_add(1);
            if vm & 0xe0 == 0xa0 {
                // (A fixstr's marker is at or above 0x80.)
                marks = marks.wrapping_add(1);
                pos = after_marker.wrapping_add(usize::from(vm & 0x1f));
            } else if is_one_byte(vm) {
                // (Its marker when not ASCII; the keys' markers are counted below.)
                marks = marks.wrapping_add(usize::from(vm >> 7));
                pos = after_marker;
            } else {
                // A longer value: the walk, the key not read again.
                let value_at = pos.wrapping_add(key_end);
                let Some((end, with_value)) = marked_value_end(buf, value_at, marks) else {
                    // (The pair path would fail the same way: the run ends before the pair.)
                    return (pos, k.wrapping_add(fast), marks.wrapping_add(fast));
                };
                (pos, marks) = (end, with_value);
            }
            fast = fast.wrapping_add(1);
        }
        k = k.wrapping_add(fast);
        marks = marks.wrapping_add(fast);
        // One pair of any other kind: a key compared with the name, a longer value.
        let Some(block) = buf.get(pos..).and_then(|s| s.first_chunk::<BLOCK>()) else {
            break;
        };
        // (`high`: the key's bytes at or above 0x80.)
        let (key_end, high) = match keys.markers.get(k).copied().unwrap_or(0) {
            _ if k >= last => break,
            0 => match keys.order.get(k) {
                // (A key of 32 bytes or more is compared past its block too.)
                Some(entry) if entry.stepped_over && entry.matches_block(block, buf, pos) => {
                    (entry.len(), entry.high_bytes())
                }
                _ => break,
            },
            marker if marker == block[0] => (usize::from(marker & 0x1f).wrapping_add(1), 1),
            _ => break,
        };
        // (The marks of a value the walk does not take are not kept.)
        let value_at = pos.wrapping_add(key_end);
        let Some((end, with_value)) = marked_value_end(buf, value_at, marks.wrapping_add(high))
        else {
            break;
        };
        (pos, marks) = (end, with_value);
        k = k.wrapping_add(1);
    }
    (pos, k, marks)
}

/// Steps over pairs from `pos` while the key there is that of name `k` of `order` (then
/// `k + 1`, …), a name stepped over and shorter than 32 bytes, and its value is short enough
/// to be checked in the key's block ([`short_value_end`]) or well-formed for [`value_end`];
/// at most `pairs` of them. Builds no error. The position, name and pairs left after the last
/// pair stepped over.
#[inline(always)]
pub(super) fn stepped_over_run(
    buf: &[u8],
    mut pos: usize,
    order: &[AttrEntry],
    mut k: usize,
    mut pairs: u32,
) -> (usize, usize, u32) {
    while pairs > 0 {
        let (Some(entry), Some(block)) = (
            order.get(k),
            buf.get(pos..).and_then(|s| s.first_chunk::<BLOCK>()),
        ) else {
            break;
        };
        if !entry.stepped_over || !entry.matches_short_block(block) {
            break;
        }
        let key_end = entry.len();
        let end = match short_value_end(block, key_end, 0, pos) {
            Some(end) => end,
            None => match value_end(buf, pos.wrapping_add(key_end)) {
                Some(end) => end,
                None => break,
            },
        };
        pos = end;
        k = k.wrapping_add(1);
        pairs = pairs.wrapping_sub(1);
    }
    (pos, k, pairs)
}

/// The value at `key_end` of `block` (the 32 bytes at `at`) when it lies in the block: a
/// one-byte value (a scalar, an empty list or map), or a fixstr of ASCII bytes; its end in
/// the input, else `None`. `key_text`: the bits of the key's bytes that must be ASCII
/// too (none for a key already matched).
#[inline(always)]
pub(super) fn short_value_end(
    block: &[u8; BLOCK],
    key_end: usize,
    key_text: u32,
    at: usize,
) -> Option<usize> {
    let vm = *block.get(key_end)?;
    // (Fixstrs first: most values of a state. `end <= 32`: the shifts are small.)
    let (end, text) = if (0xa0..=0xbf).contains(&vm) {
        let end = key_end.wrapping_add(1).wrapping_add(usize::from(vm & 0x1f));
        if end > BLOCK {
            return None;
        }
        (end, first(end) & !first(key_end.wrapping_add(1)))
    } else if is_one_byte(vm) {
        (key_end.wrapping_add(1), 0)
    } else {
        // (A str8 is 32 bytes or more when its encoder is go-cty's, or any other that writes
        // the shortest form: never in the block. The walk takes the others.)
        return None;
    };
    (non_ascii_mask(block) & (text | key_text) == 0).then(|| at.wrapping_add(end))
}
