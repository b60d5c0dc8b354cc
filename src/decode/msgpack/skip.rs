//! The validating skip of one MessagePack value: [`Reader::skip_value`] and the walks it runs.
//! [`value_end`] is the skip walk's loop (`src/cli/skip_walk.rs`) with each string's UTF-8
//! checked; [`deferred_value_end`] walks by parts with the UTF-8 checks deferred to one count
//! a part (`deferred.rs`), and leaves to [`value_end`]'s walk the pieces of a part whose
//! counts differ; either leaves a fault to the careful [`Reader::skip_items`] (`reader.rs`),
//! which names it.

use super::deferred::{count_non_ascii, is_one_byte, marked_walk, WalkState};
use super::reader::{valid_text, Reader, SkipError};
use crate::bytes::{first, non_ascii_mask, BLOCK};

/// The skips of [`Reader`] that take a whole value.
impl Reader<'_> {
    /// Skips one complete value: headers and lengths checked, and the UTF-8 of every string
    /// (not of bin). A scalar or a short ASCII string (most skipped values) in a few
    /// instructions, from one 32-byte load; anything else by [`Self::skip_nested`].
    #[inline(always)]
    pub fn skip_value(&mut self) -> Result<(), SkipError> {
        let at = self.pos;
        if let Some(block) = self.buf.get(at..).and_then(|s| s.first_chunk::<BLOCK>()) {
            let m = block[0];
            if is_one_byte(m) {
                self.skip1();
                return Ok(());
            }
            if let Some(end) = short_ascii_end(block, at) {
                self.pos = end;
                return Ok(());
            }
            if let Some((start, n)) = match m {
                0xa0..=0xbf => Some((1, usize::from(m & 0x1f))),
                0xd9 => Some((2, usize::from(block[1]))),
                _ => None,
            } {
                // A longer string (an ARN, a DNS name): its bytes checked here.
                let start = at.wrapping_add(start);
                let end = start.wrapping_add(n);
                valid_text(self.buf.get(start..end).ok_or(SkipError::Eof)?, at)?;
                self.pos = end;
                return Ok(());
            }
        }
        self.skip_nested(true)
    }

    /// [`Self::skip_value`] without the UTF-8 checks (what go-cty does for an unknown
    /// refinement).
    pub fn skip_unchecked(&mut self) -> Result<(), SkipError> {
        self.skip_nested(false)
    }

    /// [`Self::skip_value`] of any value: [`deferred_value_end`] when the value is
    /// well-formed, else the careful [`Self::skip_items`], which names the fault. Without
    /// `utf8` (refinements), the careful stepper alone.
    #[inline(never)]
    fn skip_nested(&mut self, utf8: bool) -> Result<(), SkipError> {
        if utf8 {
            if let Some(end) = deferred_value_end(self.buf, self.pos) {
                self.pos = end;
                return Ok(());
            }
        }
        self.skip_items(1, utf8)
    }
}

/// The end of the MessagePack value at `at` when it is well-formed and its strings are
/// UTF-8; `None` on any fault ([`Reader::skip_items`] then names it). The skip walk's loop
/// (`src/cli/skip_walk.rs`) with the UTF-8 checks: each item's header read from one 32-byte
/// load, a short string's bytes checked from that load with one mask, no error to build;
/// the items that start within 32 bytes of the input's end are left to the careful stepper.
#[inline(never)]
pub(crate) fn value_end(buf: &[u8], at: usize) -> Option<usize> {
    value_end_from(buf, at, 1)
}

/// [`value_end`] of `pending` items from `at`.
#[inline(always)]
fn value_end_from(buf: &[u8], at: usize, pending: u64) -> Option<usize> {
    checked_walk::<false>(buf, at, pending, 0).map(|(end, _)| end)
}

/// [`value_end_from`]; when `BOUNDED`, it stops too before the first item at or past `limit`
/// that is not a fixstr or a one-byte value, as the marked walk does, except that nil and the
/// booleans stop it too. The position and the items still pending.
#[inline(always)]
fn checked_walk<const BOUNDED: bool>(
    buf: &[u8],
    at: usize,
    mut pending: u64,
    limit: usize,
) -> Option<(usize, u64)> {
    let mut pos = at;
    while pending > 0 {
        let Some(head) = buf.get(pos..).and_then(|s| s.first_chunk::<BLOCK>()) else {
            // Within 32 bytes of the end: the careful stepper takes the items left.
            let mut tail = Reader { buf, pos };
            return tail.skip_items(pending, true).ok().map(|()| (tail.pos, 0));
        };
        pending = pending.wrapping_sub(1);
        // Past the marker at once, as in the marked walk (P65).
        let at = pos;
        pos = pos.wrapping_add(1);
        let m = head[0];
        if !(0xc0..0xe0).contains(&m) {
            // A fixint, fixmap, fixarray or fixstr (most items): the header is the marker,
            // and a fixstr's bytes lie inside `head`, so `pos` stays within the input.
            let (n, items) = match m >> 4 {
                0x8 => (0, u64::from(m & 0x0f) << 1),
                0x9 => (0, u64::from(m & 0x0f)),
                0xa | 0xb => (usize::from(m & 0x1f), 0),
                _ => (0, 0),
            };
            if n > 0 && short_ascii_end(head, at).is_none() {
                valid_text(buf.get(pos..pos.wrapping_add(n))?, at).ok()?;
            }
            pos = pos.wrapping_add(n);
            if items > 0 {
                // A part ends before a container too (as the marked walk's parts do).
                if BOUNDED && at >= limit {
                    return Some((at, pending.wrapping_add(1)));
                }
                // (`pos <= at + 32 <= len`.) A claim beyond the input gives up at once.
                pending = pending.wrapping_add(items);
                if pending > buf.len().wrapping_sub(pos) as u64 {
                    return None;
                }
            }
        } else {
            // A part ends before an item of a longer header (strings and one-byte values run
            // on: a part is a unit of work, not an exact size). Nil and the booleans end it
            // too, where the marked walk runs on: letting them run on here too cost
            // `number_heavy` 13%.
            if BOUNDED && at >= limit {
                return Some((at, pending.wrapping_add(1)));
            }
            let be16 = |h: &[u8; BLOCK]| usize::from(u16::from_be_bytes([h[1], h[2]]));
            let be32 = |h: &[u8; BLOCK]| u32::from_be_bytes([h[1], h[2], h[3], h[4]]) as usize;
            // (header bytes, payload bytes, items added)
            let (header, payload, items): (usize, usize, u64) = match m {
                0xc0 | 0xc2 | 0xc3 => (1, 0, 0),
                0xd9 => (2, usize::from(head[1]), 0),
                0xda => (3, be16(head), 0),
                0xdb => (5, be32(head), 0),
                0xc4 => (2, usize::from(head[1]), 0),
                0xc5 => (3, be16(head), 0),
                0xc6 => (5, be32(head), 0),
                // The ext payload and its type byte.
                0xc7 => (3, usize::from(head[1]), 0),
                0xc8 => (4, be16(head), 0),
                0xc9 => (6, be32(head), 0),
                0xcc | 0xd0 => (2, 0, 0),
                0xcd | 0xd1 => (3, 0, 0),
                0xca | 0xce | 0xd2 => (5, 0, 0),
                0xcb | 0xcf | 0xd3 => (9, 0, 0),
                0xd4 => (3, 0, 0),
                0xd5 => (4, 0, 0),
                0xd6 => (6, 0, 0),
                0xd7 => (10, 0, 0),
                0xd8 => (18, 0, 0),
                0xdc => (3, 0, be16(head) as u64),
                0xdd => (5, 0, be32(head) as u64),
                0xde => (3, 0, (be16(head) as u64) << 1),
                0xdf => (5, 0, (be32(head) as u64) << 1),
                _ => return None, // 0xc1, reserved
            };
            // `at + 32 <= len <= isize::MAX`, `header <= 18` and `payload < 2³²`: no
            // overflow on a 64-bit target, and a saturated sum is past the end anyway.
            pos = at.saturating_add(header).saturating_add(payload);
            if matches!(m, 0xd9..=0xdb) && short_ascii_end(head, at).is_none() {
                valid_text(buf.get(at.wrapping_add(header)..pos)?, at).ok()?;
            }
            // `pending <= len` before, `items < 2³³`: far from overflowing.
            pending = pending.saturating_add(items);
            // Every pending item needs at least one byte (and `pos <= len`).
            if pending > buf.len().checked_sub(pos)? as u64 {
                return None;
            }
        }
    }
    Some((pos, pending))
}

/// For a fixstr, or a str8 of at most 30 bytes, whose header starts `block` (at offset `at`)
/// and whose bytes are all ASCII: the offset after it. `None` for anything else, whose UTF-8
/// the caller checks the long way.
#[inline(always)]
fn short_ascii_end(block: &[u8; BLOCK], at: usize) -> Option<usize> {
    let m = block[0];
    let (header, n): (usize, usize) = match m {
        0xa0..=0xbf => (1, usize::from(m & 0x1f)),
        0xd9 if block[1] <= 30 => (2, usize::from(block[1])),
        _ => return None,
    };
    // The string's bytes are bits `header..header + n` of the block (`header + n <= 32`).
    // (`header + n <= 32`: small numbers.)
    let end = header.wrapping_add(n);
    let text = first(end) & !first(header);
    (non_ascii_mask(block) & text == 0).then(|| at.wrapping_add(end))
}

/// The end of the value at `at` as [`value_end`] finds it, most strings' UTF-8 checked in
/// bulk: the marked walk (`deferred.rs`) by parts of about [`PART`] bytes, which reads no
/// string's bytes, then one count of the part's bytes at or above 0x80 against its marks;
/// equal counts mean every string byte of the part is ASCII. Where they differ, each piece
/// of about [`PIECE`] bytes between the places the marked walk recorded is counted on its
/// own, and a piece whose counts differ (a string that is not ASCII) is walked again by
/// [`value_end`]'s checking walk (P69). A part that the marked walk does not take (binaries,
/// long extensions, 32-bit containers, a fault), or whose pieces mostly fail, is a failed
/// try: the checking walk takes the part (unless its pieces were checked) and the next
/// parts, a number that doubles with each failed try and halves with each that succeeds
/// (from [`BACK_OFF`]); past [`MAX_BACK_OFF`] the checking walk takes the rest of the value. A part mostly of numbers ([`DENSE`]),
/// where the marks cost more than the checks they spare, sends the next [`BACK_OFF`] parts
/// to the checking walk. (P64 in `perf/optimizations.md`.)
#[inline(never)]
pub(crate) fn deferred_value_end(buf: &[u8], at: usize) -> Option<usize> {
    let (mut pos, mut pending) = (at, 1u64);
    // Parts still to walk checking each string before the marked walk is tried again, and
    // how many the next failed try adds.
    let (mut wait, mut back_off) = (0u32, BACK_OFF);
    while pending > 0 {
        if wait == 0 {
            let mut starts = [(usize::MAX, 0, 0); PIECES];
            let shift = PIECE.trailing_zeros();
            let limit = pos.saturating_add(PART);
            // Whether this try's part is checked already, its pieces mostly failing.
            let mut part_checked = false;
            if let Some(walked) =
                marked_walk::<true>(buf, pos, pending, 0, limit, (&mut starts, shift))
            {
                let last = (walked.end, walked.pending, walked.marks);
                let failed = match count_non_ascii(buf, pos, walked.end) == Some(walked.marks) {
                    true => Some(0),
                    false => check_pieces(buf, (pos, pending, 0), &starts, last),
                };
                if let Some(failed) = failed {
                    // The part is checked (its failed pieces too): not walked again.
                    let dense =
                        walked.long_headers.saturating_mul(DENSE) > walked.end.wrapping_sub(pos);
                    (pos, pending) = (walked.end, walked.pending);
                    if failed <= PIECES / 2 {
                        if dense {
                            wait = BACK_OFF;
                        }
                        back_off = (back_off / 2).max(BACK_OFF);
                        continue;
                    }
                    part_checked = true;
                }
            }
            if back_off > MAX_BACK_OFF {
                // Strings that are not ASCII, binaries or long extensions all through: the
                // rest of the value by the checking walk, unbounded. (Not `checked_part` with
                // no limit: its part checks cost `unknown_heavy` 2–3%.)
                return value_end_from(buf, pos, pending);
            }
            wait = back_off;
            back_off = back_off.saturating_mul(2);
            if part_checked {
                // (It stands for the part the checking walk would have taken first.)
                continue;
            }
        } else {
            wait = wait.wrapping_sub(1);
        }
        (pos, pending) = checked_part(buf, pos, pending, pos.saturating_add(PART))?;
    }
    Some(pos)
}

/// The pieces of a part whose count differs from its marks, between the places where the
/// marked walk recorded its state (`starts`, unused ones at `usize::MAX`) from `first` to
/// `last`: each piece's count against its marks, and the checking walk over each piece whose
/// counts differ, bounded by the next recorded place. Every item of the piece starts before
/// that bound and the item there is a map, a list or a longer header, so the checking walk
/// must stop exactly there. How many pieces it walked; `None` on a fault in one, or an end
/// not the marked walk's (the checking walk left the value's last 32 bytes to the careful
/// stepper).
#[inline(never)]
fn check_pieces(
    buf: &[u8],
    first: WalkState,
    starts: &[WalkState; PIECES],
    last: WalkState,
) -> Option<usize> {
    let mut failed = 0usize;
    let mut from = first;
    let recorded = starts.iter().copied().filter(|start| start.0 != usize::MAX);
    for to in recorded.chain([last]) {
        let ((start, pending, before), (end, left, after)) = (from, to);
        if count_non_ascii(buf, start, end)? != after.wrapping_sub(before) {
            failed = failed.wrapping_add(1);
            if checked_part(buf, start, pending, end)? != (end, left) {
                return None;
            }
        }
        from = to;
    }
    Some(failed)
}

/// One part of [`deferred_value_end`] by [`value_end`]'s checking walk: from `pos`, until the
/// first header longer than one byte at or past `limit`. The position and the items left.
#[inline(never)]
fn checked_part(buf: &[u8], pos: usize, pending: u64, limit: usize) -> Option<(usize, u64)> {
    checked_walk::<true>(buf, pos, pending, limit)
}

/// The bytes of a part of [`deferred_value_end`], after which the walk stops at the next
/// header longer than one byte. Under cargo-fuzz a part is short, so that inputs of a few
/// hundred bytes reach every change of walk.
const PART: usize = if cfg!(fuzzing) { 64 } else { 4096 };
/// The pieces of a part, each counted on its own when the part's count differs.
const PIECES: usize = 8;
/// The bytes of a piece (a power of two).
const PIECE: usize = PART / PIECES;
/// A part is mostly numbers when it holds more than one item of a header longer than one
/// byte in `DENSE` bytes: the state workloads have at most 75 in a part of 4,096 bytes,
/// `number_heavy` 455 in most.
const DENSE: usize = 32;
/// Parts walked by the checking walk after the first failed try of the marked walk (and the
/// fewest after any).
const BACK_OFF: u32 = 8;
/// The most parts walked by the checking walk between two tries of the marked walk.
const MAX_BACK_OFF: u32 = 64;

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::{checked_walk, deferred_value_end, value_end, BACK_OFF, MAX_BACK_OFF, PART};
    use crate::decode::msgpack::deferred::{count_non_ascii, marked_walk};
    use crate::decode::msgpack::reader::tests::{outcome, random_input};
    use crate::decode::msgpack::reader::Reader;
    use crate::test_rng::{next, rounds};

    /// An array16 of `n` fixmaps, each of three pairs whose values are drawn from `kinds`:
    /// 0 an ASCII fixstr, 1 an ASCII str8 of 40 bytes, 2 a fixstr with "é", 3 a float64 of
    /// random bytes, 4 a uint16, 5 nil, 6 a bin8 of random bytes, 7 a fixext4 (which the
    /// marked walk takes), 8 an array32 of one fixint, 9 a fixext8 of random bytes (which it
    /// does not).
    fn large_value(seed: &mut u64, n: u16, kinds: &[u8]) -> Vec<u8> {
        let mut v = vec![0xdc];
        v.extend_from_slice(&n.to_be_bytes());
        for _ in 0..n {
            v.extend_from_slice(&[0x83]); // (a fixmap of three pairs)
            for key in [b'a', b'b', b'c'] {
                v.extend_from_slice(&[0xa1, key]);
                match kinds[next(seed) as usize % kinds.len()] {
                    0 => v.extend_from_slice(&[0xa5, b'v', b'a', b'l', b'u', b'e']),
                    1 => {
                        v.extend_from_slice(&[0xd9, 40]);
                        v.extend_from_slice(&[b'x'; 40]);
                    }
                    2 => v.extend_from_slice(&[0xa3, b'x', 0xc3, 0xa9]),
                    3 => {
                        v.push(0xcb);
                        v.extend_from_slice(&next(seed).to_le_bytes());
                    }
                    4 => v.extend_from_slice(&[0xcd, next(seed) as u8, 0xff]),
                    5 => v.push(0xc0),
                    6 => {
                        v.extend_from_slice(&[0xc4, 8]);
                        v.extend_from_slice(&next(seed).to_le_bytes());
                    }
                    7 => v.extend_from_slice(&[0xd6, 1, 0xff, 0x80, b'a', 0x90]),
                    8 => v.extend_from_slice(&[0xdd, 0, 0, 0, 1, 0x07]),
                    _ => {
                        v.extend_from_slice(&[0xd7, 0x81]);
                        v.extend_from_slice(&next(seed).to_le_bytes());
                    }
                }
            }
        }
        v
    }

    /// The walk by parts agrees with the careful stepper on values of many parts: ASCII
    /// strings only, with numbers' bytes dense, with strings that are not ASCII, binaries,
    /// short and long extensions and 32-bit containers here and there (each part kind and
    /// each way back to the checking walk), whole, with one string made invalid at a random
    /// place, and cut.
    #[test]
    fn deferred_value_end_matches_careful_skip() {
        let mixes: [&[u8]; 6] = [
            &[0, 1, 5],
            &[3, 3, 3, 4, 0],
            &[0, 1, 0, 1, 0, 1, 0, 1, 0, 2],
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
            &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 9, 6],
            &[2],
        ];
        let mut seed = 0xdefe_u64;
        let n = if cfg!(miri) { 450 } else { 1500 };
        // (Under Miri, which runs the count's SSE2 loads, one mix: the others take minutes.)
        let mixes = if cfg!(miri) { &mixes[..1] } else { &mixes[..] };
        for _ in 0..rounds(40, 1) {
            for &kinds in mixes {
                let whole = large_value(&mut seed, n, kinds);
                assert!(whole.len() > 2 * PART, "{} bytes", whole.len());
                assert_eq!(
                    deferred_value_end(&whole, 0),
                    Some(whole.len()),
                    "kinds {kinds:?}"
                );
                // One string's "value" made "val\xffe" somewhere: a fault for both.
                let mut bad = whole.clone();
                let from = next(&mut seed) as usize % bad.len();
                if let Some(at) = bad[from..].windows(5).position(|w| w == b"value") {
                    bad[from + at + 3] = 0xff;
                }
                let mut careful = Reader::new(&bad);
                let c = outcome(careful.skip_items(1, true), &careful);
                let d = deferred_value_end(&bad, 0);
                assert_eq!(d.map(|end| (0, end)).unwrap_or(c), c, "kinds {kinds:?}");
                assert_eq!(d.is_some(), c.0 == 0, "kinds {kinds:?}");
                let mut skip = Reader::new(&bad);
                assert_eq!(outcome(skip.skip_value(), &skip), c, "kinds {kinds:?}");
                // Cut short anywhere: no end.
                let cut = next(&mut seed) as usize % whole.len();
                assert_eq!(deferred_value_end(&whole[..cut], 0), None, "cut {cut}");
            }
        }
    }

    /// Both walks end a part at the same item, before the first header longer than one byte
    /// at or past the limit, and leave the same items pending (in values without nil, before
    /// which the checking walk stops too); the marked walk's marks are the part's bytes at or
    /// above 0x80 exactly when its strings are ASCII. Walked part by part to the value's end
    /// at random limits. Each place the marked walk recorded is a map's or a list's, in its
    /// piece of the part, with the marks before it, and the checking walk from there ends
    /// the part where the marked walk did.
    #[test]
    fn both_walks_end_a_part_at_the_same_item() {
        let mut seed = 0xba4d_u64;
        let n = if cfg!(miri) { 40 } else { 400 };
        for _ in 0..rounds(20, 1) {
            for kinds in [&[0u8, 1, 3, 4, 7][..], &[0, 2, 4]] {
                // (32 bytes after the value, within which the checking walk would leave the
                // rest to the careful stepper.)
                let mut value = large_value(&mut seed, n, kinds);
                let end = value.len();
                value.extend_from_slice(&[0; 32]);
                let (mut pos, mut pending, mut parts) = (0, 1, 0);
                while pending > 0 {
                    let limit = pos + next(&mut seed) as usize % 300;
                    let mut starts = [(usize::MAX, 0, 0); 8];
                    let shift = 5;
                    let marked =
                        marked_walk::<true>(&value, pos, pending, 0, limit, (&mut starts, shift))
                            .unwrap();
                    let checked = checked_walk::<true>(&value, pos, pending, limit);
                    assert_eq!(Some((marked.end, marked.pending)), checked, "from {pos}");
                    assert!(marked.end >= limit || marked.pending == 0, "from {pos}");
                    // (A float's random bytes are no string's: the string "xé" by its header.)
                    let ascii = |to: usize| {
                        let e = [0xa3, b'x', 0xc3, 0xa9];
                        value[pos..to].windows(4).all(|w| w != e)
                    };
                    let high = count_non_ascii(&value, pos, marked.end).unwrap();
                    assert_eq!(marked.marks == high, ascii(marked.end), "from {pos}");
                    for (i, &(at, left, marks)) in starts.iter().enumerate() {
                        if at == usize::MAX {
                            continue;
                        }
                        assert_eq!((at - pos) >> shift, i, "from {pos}");
                        assert!(matches!(value[at], 0x80..=0x9f), "from {pos}");
                        let high = count_non_ascii(&value, pos, at).unwrap();
                        assert_eq!(marks == high, ascii(at), "from {pos} to {at}");
                        let rest = checked_walk::<true>(&value, at, left, marked.end);
                        assert_eq!(rest, checked, "from {pos} and {at}");
                    }
                    (pos, pending, parts) = (marked.end, marked.pending, parts + 1);
                }
                // (A part runs past its limit only by a map's short items: 300 bytes and a few.)
                assert_eq!((pos, parts > end / 400), (end, true));
            }
        }
    }

    /// The fast walk and the careful stepper agree on every input (memchr's way: the fast
    /// path against the naive one), and so does the reader's skip, which uses both.
    #[test]
    fn value_end_matches_careful_skip() {
        let mut seed = 0x5eed_u64;
        for _ in 0..rounds(200_000, 400) {
            let input = random_input(&mut seed);
            let mut careful = Reader::new(&input);
            let c = careful.skip_items(1, true);
            let c = outcome(c, &careful);
            // The fast walk finds the same end, or leaves the input to the careful one: for a
            // fault, or an item within 32 bytes of the end.
            match value_end(&input, 0) {
                Some(end) => assert_eq!(c, (0, end), "input {input:02x?}"),
                None => assert!(c.0 != 0 || input.len() < c.1 + 32, "input {input:02x?}"),
            }
            let mut skip = Reader::new(&input);
            assert_eq!(outcome(skip.skip_value(), &skip), c, "input {input:02x?}");
        }
    }

    /// A value whose every part holds a string that is not ASCII: the tries of the marked
    /// walk fail until the checking walk takes the rest, which still finds a fault at the end.
    #[test]
    #[cfg_attr(miri, ignore = "half a megabyte: minutes under Miri")]
    fn failed_tries_leave_the_rest_to_the_checking_walk() {
        // Parts until the give-up: a try and its back-off, doubling up to the last.
        let (mut parts, mut back_off) = (0, BACK_OFF);
        while back_off <= MAX_BACK_OFF {
            parts += 1 + back_off as usize;
            back_off *= 2;
        }
        let mut value = large_value(&mut 1, 30_000, &[2]);
        assert!(value.len() > (parts + 2) * PART, "{} bytes", value.len());
        assert_eq!(deferred_value_end(&value, 0), Some(value.len()));
        let last = value.len() - 2;
        assert_eq!(&value[last..], [0xc3, 0xa9]);
        value[last] = 0xff;
        assert_eq!(deferred_value_end(&value, 0), None);
    }

    /// A list of maps with strings (ASCII and not) far from the end and near it.
    #[test]
    fn fast_skip_exact_ends() {
        let mut bytes = vec![0x92, 0x81, 0xa1, b'k', 0xa3, b'a', 0xc3, 0xa9, 0x82, 0xa2];
        bytes.extend_from_slice(b"ab");
        bytes.extend_from_slice(&[0xd9, 12]);
        bytes.extend_from_slice(b"twelve bytes");
        bytes.extend_from_slice(&[0xa1, b'x', 0x2a]);
        let end = bytes.len();
        bytes.extend_from_slice(&[0; 20]);
        let mut r = Reader::new(&bytes);
        assert!(r.skip_nested(true).is_ok());
        assert_eq!(r.pos, end);
        // 0xc3 0xa9 is "é": valid. A lone 0xff in a fixstr is not, named at its header.
        let bad = [0x91, 0xa2, b'a', 0xff, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut r = Reader::new(&bad);
        assert_eq!(outcome(r.skip_nested(true), &r), (3, 1));
        let mut r = Reader::new(&bad);
        assert_eq!(outcome(r.skip_nested(false), &r), (0, 4));
    }
}
