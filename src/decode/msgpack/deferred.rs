//! The skip walk with its UTF-8 checks deferred, for the projection's runs
//! (`projected.rs`, `run.rs`) and the validating skip's parts (`skip.rs`), which step over
//! many values before they look at the result; and which markers are a whole value
//! ([`is_one_byte`]). [`marked_walk`] walks as `value_end` (`skip.rs`) does but reads no
//! string's bytes: it counts the bytes at or above 0x80 that are not a string's (markers, a
//! str8's length, a number's bytes, a container's count, a short extension's bytes). The
//! caller then counts the bytes at or above 0x80 of everything stepped over in one pass
//! ([`count_non_ascii`]): as the walk splits those bytes into others and string bytes, the
//! two counts are equal exactly when every string byte is ASCII, so UTF-8. When they
//! differ, the caller walks the same bytes again with each string checked.

#[cfg(target_arch = "x86_64")]
use crate::bytes::Avx2Mask;
use crate::bytes::{first, AsciiMask, BaselineMask, BLOCK, GROUP};
#[cfg(target_arch = "x86_64")]
use crate::decode::json::Isa;
use crate::decode::json::Level;

/// The end of the value at `at`, when it is well-formed with every item one this walk
/// takes: fixed-size items (fixints, nil, booleans, numbers, fixexts of 1, 2 or 4 bytes, so
/// unknown values), strings, fixmaps, fixarrays, and 16-bit maps and arrays. `None` for any
/// fault and for the items it leaves to the careful walk (binaries and the longer
/// extensions, whose bytes it would have to read, and 32-bit containers).
/// With the end, `marks` plus the value's bytes at or above 0x80 that are not string
/// bytes; its strings are UTF-8 when its bytes hold no others ([`count_non_ascii_with`]).
#[inline(always)]
pub(crate) fn marked_value_end(buf: &[u8], at: usize, marks: usize) -> Option<(usize, usize)> {
    let walked = marked_walk::<false>(buf, at, 1, marks, 0, (&mut [], 0))?;
    Some((walked.end, walked.marks))
}

/// Where [`marked_walk`] stopped, and what it counted.
pub(crate) struct Walked {
    /// The position after the last item walked.
    pub end: usize,
    /// The items still to walk (0 at the end of the value).
    pub pending: u64,
    /// The marks: the bytes at or above 0x80 that are not a string's.
    pub marks: usize,
    /// The items walked whose header is longer than one byte (numbers above all, whose
    /// bytes the marks count).
    pub long_headers: usize,
}

/// Where the walk was before an item: the position, the items pending, the marks.
pub(crate) type WalkState = (usize, u64, usize);

/// [`marked_value_end`] over `pending` items from `pos`; when `BOUNDED`, it stops too before
/// the first item at or past `limit` that is not a fixstr or a one-byte value, and records
/// in `starts[i]` the state before the last fixmap or fixarray that starts `i << shift` to
/// `(i + 1) << shift` bytes after `pos` (where there is one): places from which a walk can
/// start again, at the cost of three stores a map (P69, `perf/optimizations.md`).
#[inline(always)]
pub(crate) fn marked_walk<const BOUNDED: bool>(
    buf: &[u8],
    mut pos: usize,
    mut pending: u64,
    mut marks: usize,
    limit: usize,
    (starts, shift): (&mut [WalkState], u32),
) -> Option<Walked> {
    let mut long_headers = 0usize;
    let base = pos;
    while pending > 0 {
        let m = *buf.get(pos)?;
        // Past the marker at once, as every item is: a fixstr's end is then one addition
        // after the marker's load, not two (P65, `perf/optimizations.md`).
        let at = pos;
        pos = pos.wrapping_add(1);
        // (`pos <= buf.len()`: the sums below are small and cannot wrap.)
        // A one-byte header by branches, not a table: the next position then waits on the
        // marker only for a fixstr (P61).
        if m & 0xe0 == 0xa0 {
            // A fixstr, its bytes not read; its marker is one of the marks.
            pending = pending.wrapping_sub(1);
            marks = marks.wrapping_add(1);
            pos = pos.wrapping_add(usize::from(m & 0x1f));
            continue;
        }
        if is_one_byte(m) {
            // A fixint, nil, a boolean, an empty fixmap or fixarray (a mark at or above
            // 0x80: `m >> 7` is 0 or 1).
            pending = pending.wrapping_sub(1);
            marks = marks.wrapping_add(usize::from(m >> 7));
            continue;
        }
        // A part ends before a header longer than its marker or a container (the short
        // items above run on: a part is a unit of work, not an exact size).
        if BOUNDED && at >= limit {
            pos = at;
            break;
        }
        if m & 0xe0 == 0x80 {
            // A fixmap's keys and values, a fixarray's elements.
            if BOUNDED {
                if let Some(start) = starts.get_mut(at.wrapping_sub(base) >> shift) {
                    *start = (at, pending, marks);
                }
            }
            pending = pending.wrapping_sub(1);
            marks = marks.wrapping_add(1);
            let n = u64::from(m & 0x0f);
            pending = pending.wrapping_add(if m < 0x90 { n << 1 } else { n });
            continue;
        }
        // Every other marker is at or above 0x80, a mark.
        long_headers = long_headers.wrapping_add(1);
        pending = pending.wrapping_sub(1);
        marks = marks.wrapping_add(1);
        // The eight bytes after the marker, zeros past the input's end: a header read
        // from them that runs past the end puts `pos` past it, and the walk fails there.
        let word = match buf.get(pos..).and_then(|s| s.first_chunk::<8>()) {
            Some(word) => u64::from_le_bytes(*word),
            None => padded_word(buf, pos),
        };
        let be16 = usize::from((word as u16).swap_bytes());
        let be32 = (word as u32).swap_bytes() as usize;
        // (header bytes after the marker, payload bytes, which of `word`'s bytes are the
        // header's)
        let (header, payload, keep): (usize, usize, u64) = match m {
            0xd9 => (1, usize::from(word as u8), 0xff),
            0xda => (2, be16, 0xffff),
            0xdb => (4, be32, 0xffff_ffff),
            0xcc | 0xd0 => (1, 0, 0xff),
            0xcd | 0xd1 => (2, 0, 0xffff),
            0xca | 0xce | 0xd2 => (4, 0, 0xffff_ffff),
            0xcb | 0xcf | 0xd3 => (8, 0, u64::MAX),
            // A fixext of 1, 2 or 4 bytes (an unknown value is `d4 00 00`): its type byte and
            // data are no string's, marks where at or above 0x80.
            0xd4 => (2, 0, 0xffff),
            0xd5 => (3, 0, 0xff_ffff),
            0xd6 => (5, 0, 0xff_ffff_ffff),
            0xdc | 0xde => {
                let n = be16 as u64;
                pending = pending.saturating_add(if m == 0xdc { n } else { n << 1 });
                (2, 0, 0xffff)
            }
            _ => return None,
        };
        // The header's bytes after the marker at or above 0x80 (a length, a number, a
        // count): each byte of `high` is 0 or 1, and the multiplication sums them into
        // the top byte (no POPCNT needed).
        let high = (word & keep & 0x8080_8080_8080_8080) >> 7;
        marks = marks.wrapping_add((high.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize);
        // (`payload < 2³²`: a sum past the end saturates, and the end is checked.)
        pos = pos.wrapping_add(header).saturating_add(payload);
    }
    (pos <= buf.len()).then_some(Walked {
        end: pos,
        pending,
        marks,
        long_headers,
    })
}

/// The (fewer than eight) bytes of `buf` from `from` as a little-endian word, zeros after.
#[cold]
fn padded_word(buf: &[u8], from: usize) -> u64 {
    let mut word = [0u8; 8];
    let tail = buf.get(from..).unwrap_or_default();
    for (w, b) in word.iter_mut().zip(tail) {
        *w = *b;
    }
    u64::from_le_bytes(word)
}

/// True for a marker that is the whole value: a fixint, nil, a boolean, an empty fixarray or
/// fixmap.
#[inline(always)]
pub(crate) const fn is_one_byte(m: u8) -> bool {
    m <= 0x7f || m >= 0xe0 || matches!(m, 0xc0 | 0xc2 | 0xc3 | 0x80 | 0x90)
}

/// The bytes at or above 0x80 in `buf[start..end]` ([`count_non_ascii_with`]), by AVX2 and
/// POPCNT where the CPU has them, by SSE2 else.
#[inline(always)]
pub(crate) fn count_non_ascii(buf: &[u8], start: usize, end: usize) -> Option<usize> {
    match Level::current().isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 => {
            // SAFETY: a `Level` of AVX2 or above exists only on a CPU with AVX2, BMI1, BMI2,
            // LZCNT and POPCNT (`Level::all_available`).
            unsafe { count_non_ascii_avx2(buf, start, end) }
        }
        _ => count_non_ascii_baseline(buf, start, end),
    }
}

/// [`count_non_ascii`] for the baseline instruction set.
#[inline(never)]
fn count_non_ascii_baseline(buf: &[u8], start: usize, end: usize) -> Option<usize> {
    count_non_ascii_with(buf, start, end, BaselineMask)
}

/// [`count_non_ascii`] compiled for AVX2 and POPCNT: groups of 128 bytes in byte lanes, the
/// rest's blocks each in one `vpmovmskb`, counted by `popcnt`.
///
/// # Safety
/// The CPU supports AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline(never)]
unsafe fn count_non_ascii_avx2(buf: &[u8], start: usize, end: usize) -> Option<usize> {
    // SAFETY: the CPU has AVX2 (this function's contract).
    count_non_ascii_with(buf, start, end, unsafe { Avx2Mask::new() })
}

/// The bytes at or above 0x80 in `buf[start..end]`, 128 at a time by `masks`' lane count,
/// then 32 at a time by its masks; `None` when the range is not in `buf`. A last part
/// shorter than a block is read within a block that ends at `end` or starts at `start`, so
/// every byte is counted once with no copy.
#[inline(always)]
fn count_non_ascii_with<M: AsciiMask>(
    buf: &[u8],
    start: usize,
    end: usize,
    masks: M,
) -> Option<usize> {
    let bytes = buf.get(start..end)?;
    let (groups, rest) = bytes.as_chunks::<GROUP>();
    let mut n = masks.count_non_ascii(groups);
    let (blocks, tail) = rest.as_chunks::<BLOCK>();
    for block in blocks {
        n = n.wrapping_add(masks.non_ascii(block).count_ones() as usize);
    }
    let rest = tail.len();
    if rest == 0 {
        return Some(n);
    }
    let last = match bytes.last_chunk::<BLOCK>() {
        // (The last block's first `BLOCK - rest` bytes were counted: its top `rest` bits.)
        Some(block) => (masks.non_ascii(block) >> BLOCK.wrapping_sub(rest)).count_ones() as usize,
        None => match buf.get(start..).and_then(|s| s.first_chunk::<BLOCK>()) {
            Some(block) => (masks.non_ascii(block) & first(rest)).count_ones() as usize,
            None => bytes.iter().filter(|b| !b.is_ascii()).count(),
        },
    };
    Some(n.wrapping_add(last))
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::{count_non_ascii_with, marked_value_end};
    use crate::bytes::{AsciiMask, BaselineMask};
    use crate::decode::msgpack::reader::tests::{outcome, random_input};
    use crate::decode::msgpack::reader::Reader;
    use crate::test_rng::{next, rounds};

    /// Every marker, followed by zero bytes: the marked walk ends where the careful stepper
    /// does, counting the marker as a mark when it is at or above 0x80, or leaves the value
    /// to the careful walk (binaries, extensions but fixexts of 1, 2 or 4 bytes, 32-bit
    /// containers, the reserved 0xc1).
    #[test]
    fn every_marker_steps_as_the_careful_stepper() {
        for m in 0..=255u8 {
            let mut input = vec![m];
            input.extend_from_slice(&[0; 64]);
            let mut careful = Reader::new(&input);
            let end = careful.skip_items(1, false).ok().map(|()| careful.pos);
            let left = matches!(m, 0xc1 | 0xc4..=0xc9 | 0xd7 | 0xd8 | 0xdd | 0xdf);
            match marked_value_end(&input, 0, 0) {
                Some((at, marks)) => {
                    assert!(!left, "marker {m:#04x}");
                    assert_eq!(Some(at), end, "marker {m:#04x}");
                    assert_eq!(marks, usize::from(m >= 0x80), "marker {m:#04x}");
                }
                None => assert!(left, "marker {m:#04x}"),
            }
        }
    }

    /// The marked walk agrees with the careful stepper wherever it answers: the same end,
    /// and as many marks as the value has bytes at or above 0x80 only where the careful
    /// stepper finds its strings UTF-8 (memchr's way: the fast path against the naive one).
    #[test]
    fn marked_value_end_matches_careful_skip() {
        let mut seed = 0xa5c1_u64;
        let (mut answered, mut flagged) = (0, 0);
        for _ in 0..rounds(200_000, 400) {
            let input = random_input(&mut seed);
            let mut careful = Reader::new(&input);
            let c = careful.skip_items(1, true);
            let c = outcome(c, &careful);
            let mut lax = Reader::new(&input);
            let without_utf8 = lax.skip_items(1, false).ok().map(|()| lax.pos);
            if let Some((end, marks)) = marked_value_end(&input, 0, 0) {
                answered += 1;
                assert_eq!(without_utf8, Some(end), "input {input:02x?}");
                let high = input[..end].iter().filter(|b| !b.is_ascii()).count();
                assert!(marks <= high, "input {input:02x?}");
                match marks == high {
                    true => assert_eq!(c, (0, end), "input {input:02x?}"),
                    false => flagged += 1,
                }
            }
        }
        assert!(answered > 0 && flagged > 0);
        // Strings of every kind it walks, ASCII and not: a fixstr, a short and a long str8, a
        // str16, beside a uint16 whose bytes are not ASCII and a map16's count.
        let mut list = vec![0x96, 0xa2, 0xc3, 0xa9, 0xd9, 3, b'a', b'b', 0xff, 0xd9, 200];
        list.extend_from_slice(&[b'x'; 200]);
        list.extend_from_slice(&[0xcd, 0xff, 0x80, 0xde, 0, 0, 0xda, 0x01, 0x00]);
        list.extend_from_slice(&[b'y'; 256]);
        let high = list.iter().filter(|b| !b.is_ascii()).count();
        // Marks: the list, the fixstr, two str8s (and the length 200), the uint16 (and its
        // two bytes), the map16 and the str16: 10. The bytes: those and "é", 0xff: 13.
        assert_eq!(marked_value_end(&list, 0, 0), Some((list.len(), 10)));
        assert_eq!(high, 13);
        list[2..4].copy_from_slice(b"ok");
        list[8] = b'c';
        assert_eq!(marked_value_end(&list, 0, 0), Some((list.len(), 10)));
        // Cut short anywhere: no end.
        for cut in 1..list.len() {
            assert_eq!(marked_value_end(&list[..cut], 0, 0), None, "cut {cut}");
        }
    }

    /// The count of bytes at or above 0x80 of every range of random inputs, at every length
    /// and offset (a tail read within the last block, the first, or byte by byte), equals
    /// the naive count, with both masks the CPU has.
    #[test]
    fn count_non_ascii_equals_the_naive_count() {
        fn check<M: AsciiMask>(masks: M) {
            let mut seed = 0xc0de_u64;
            for _ in 0..rounds(2_000, 50) {
                let len = (next(&mut seed) % 200) as usize;
                let buf: Vec<u8> = (0..len).map(|_| next(&mut seed) as u8).collect();
                let start = (next(&mut seed) as usize) % (len + 1);
                let end = start + (next(&mut seed) as usize) % (len - start + 1);
                let naive = buf[start..end].iter().filter(|b| **b >= 0x80).count();
                assert_eq!(
                    count_non_ascii_with(&buf, start, end, masks),
                    Some(naive),
                    "{start}..{end} of {}",
                    buf.len()
                );
            }
            assert_eq!(count_non_ascii_with(&[0x80; 4], 2, 5, masks), None);
        }
        check(BaselineMask);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            check(unsafe { crate::bytes::Avx2Mask::new() });
        }
    }
}
