//! A zero-copy MessagePack reader over `&'a [u8]`: markers, lengths, and a skip that walks a
//! value of any depth iteratively — [`value_end`], at the skip walk's pace with no error
//! paths, and the careful [`Reader::skip_items`] that names a fault (`deferred.rs` has a
//! third, with the UTF-8 checks left to its caller). Returns `None` at end of input; callers
//! attach offsets.
//!
//! Every read goes through `get`, so a position past the end is never a panic, only `None`.
//! `pos <= buf.len() <= isize::MAX` holds after every successful read, so stepping over bytes
//! just read (`pos + n` where `pos + n <= buf.len()`) uses `wrapping_add`: it cannot wrap.

use rmp::Marker;

use super::deferred::is_one_byte;
use crate::bytes::{first, non_ascii_mask, BLOCK};

/// Cursor over borrowed bytes.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

/// What a skip can run into.
pub(crate) enum SkipError {
    /// The input ended.
    Eof,
    /// The reserved byte `0xc1` at this offset.
    Reserved(usize),
    /// A string (its header at this offset) that is not UTF-8.
    InvalidUtf8(usize),
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    #[inline(always)]
    pub fn remaining(&self) -> usize {
        // `pos <= buf.len()` (see the module docs): cannot wrap.
        self.buf.len().wrapping_sub(self.pos)
    }

    #[inline(always)]
    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    #[inline(always)]
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    /// Steps over the byte at `pos`, which the caller has just read (so `pos < buf.len()`).
    #[inline(always)]
    pub fn skip1(&mut self) {
        self.pos = self.pos.wrapping_add(1);
    }

    #[inline(always)]
    pub fn u8(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.skip1();
        Some(b)
    }

    /// The next `N` bytes, consumed.
    #[inline(always)]
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let end = self.pos.checked_add(N)?;
        let a = *self.buf.get(self.pos..end)?.first_chunk::<N>()?;
        self.pos = end;
        Some(a)
    }

    #[inline(always)]
    pub fn be_u16(&mut self) -> Option<u16> {
        self.array().map(u16::from_be_bytes)
    }

    #[inline(always)]
    pub fn be_u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_be_bytes)
    }

    #[inline(always)]
    pub fn be_u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_be_bytes)
    }

    /// After a str or bin marker `m` has been consumed: the payload length.
    #[inline(always)]
    pub fn str_len(&mut self, m: u8) -> Option<usize> {
        Some(match m {
            0xa0..=0xbf => (m & 0x1f) as usize,
            0xd9 | 0xc4 => self.u8()? as usize,
            0xda | 0xc5 => self.be_u16()? as usize,
            _ => self.be_u32()? as usize,
        })
    }

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

    /// [`Self::skip_value`] of any value: [`value_end`] when the value is well-formed, else
    /// the careful [`Self::skip_items`], which names the fault. Without `utf8` (refinements), the
    /// careful stepper alone.
    #[inline(never)]
    fn skip_nested(&mut self, utf8: bool) -> Result<(), SkipError> {
        if utf8 {
            if let Some(end) = value_end(self.buf, self.pos) {
                self.pos = end;
                return Ok(());
            }
        }
        self.skip_items(1, utf8)
    }

    /// The careful stepper: steps over `pending` items, each read through the checked
    /// cursor, and names the first fault. [`value_end`] is checked against it. (`pending` stays
    /// below `remaining() + 2³³`, far from overflowing; the additions saturate regardless.)
    #[inline(never)]
    pub(super) fn skip_items(&mut self, mut pending: u64, utf8: bool) -> Result<(), SkipError> {
        while pending > 0 {
            pending = pending.saturating_sub(1);
            let at = self.pos;
            let m = self.u8().ok_or(SkipError::Eof)?;
            let eof = |_| SkipError::Eof;
            let skip = match m {
                0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => 0,
                0x80..=0x8f => {
                    pending = pending.saturating_add(u64::from(m & 0x0f).saturating_mul(2));
                    0
                }
                0x90..=0x9f => {
                    pending = pending.saturating_add((m & 0x0f) as u64);
                    0
                }
                0xa0..=0xbf => (m & 0x1f) as usize,
                0xc1 => return Err(SkipError::Reserved(at)),
                0xc4 | 0xd9 => self.u8().ok_or(SkipError::Eof)? as usize,
                0xc5 | 0xda => self.be_u16().ok_or(SkipError::Eof)? as usize,
                0xc6 | 0xdb => self.be_u32().ok_or(SkipError::Eof)? as usize,
                // The ext payload and its type byte (a saturated length fails in `take`).
                0xc7 => (self.u8().ok_or(SkipError::Eof)? as usize).saturating_add(1),
                0xc8 => (self.be_u16().ok_or(SkipError::Eof)? as usize).saturating_add(1),
                0xc9 => (self.be_u32().ok_or(SkipError::Eof)? as usize).saturating_add(1),
                0xca => 4,
                0xcb => 8,
                0xcc | 0xd0 => 1,
                0xcd | 0xd1 => 2,
                0xce | 0xd2 => 4,
                0xcf | 0xd3 => 8,
                0xd4 => 2,
                0xd5 => 3,
                0xd6 => 5,
                0xd7 => 9,
                0xd8 => 17,
                0xdc => {
                    let n = self.be_u16().ok_or(SkipError::Eof)? as u64;
                    pending = pending.saturating_add(n);
                    0
                }
                0xdd => {
                    let n = self.be_u32().ok_or(SkipError::Eof)? as u64;
                    pending = pending.saturating_add(n);
                    0
                }
                0xde => {
                    let n = self.be_u16().ok_or(SkipError::Eof)? as u64;
                    pending = pending.saturating_add(n.saturating_mul(2));
                    0
                }
                0xdf => {
                    let n = self.be_u32().ok_or(SkipError::Eof)? as u64;
                    pending = pending.saturating_add(n.saturating_mul(2));
                    0
                }
            };
            let bytes = self.take(skip).ok_or(()).map_err(eof)?;
            if utf8 && matches!(m, 0xa0..=0xbf | 0xd9..=0xdb) {
                valid_text(bytes, at)?;
            }
            // Every pending item needs at least one byte: a claim beyond the input is EOF.
            if pending > self.remaining() as u64 {
                return Err(SkipError::Eof);
            }
        }
        Ok(())
    }
}

/// The end of the MessagePack value at `at` when it is well-formed and its strings are
/// UTF-8; `None` on any fault ([`Reader::skip_items`] then names it). The skip walk's loop
/// (`src/cli/skip_walk.rs`) with the UTF-8 checks: each item's header read from one 32-byte
/// load, a short string's bytes checked from that load with one mask, no error to build;
/// the items that start within 32 bytes of the input's end are left to the careful stepper.
#[inline(never)]
pub(crate) fn value_end(buf: &[u8], at: usize) -> Option<usize> {
    let mut pos = at;
    let mut pending: u64 = 1;
    while pending > 0 {
        let Some(head) = buf.get(pos..).and_then(|s| s.first_chunk::<BLOCK>()) else {
            // Within 32 bytes of the end: the careful stepper takes the items left.
            let mut tail = Reader { buf, pos };
            return tail.skip_items(pending, true).ok().map(|()| tail.pos);
        };
        pending = pending.wrapping_sub(1);
        let at = pos;
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
                let start = at.wrapping_add(1);
                valid_text(buf.get(start..start.wrapping_add(n))?, at).ok()?;
            }
            pos = at.wrapping_add(1).wrapping_add(n);
            if items > 0 {
                // (`pos <= at + 32 <= len`.) A claim beyond the input gives up at once.
                pending = pending.wrapping_add(items);
                if pending > buf.len().wrapping_sub(pos) as u64 {
                    return None;
                }
            }
        } else {
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
    Some(pos)
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

/// A skipped string's bytes (whose header is at `at`) must be UTF-8.
#[inline(always)]
fn valid_text(bytes: &[u8], at: usize) -> Result<(), SkipError> {
    if crate::bytes::is_utf8(bytes) {
        return Ok(());
    }
    Err(SkipError::InvalidUtf8(at))
}

/// A MessagePack marker's name for messages (`fixstr`, `array16`, `nil`, …).
pub(crate) fn marker_name(b: u8) -> &'static str {
    match Marker::from_u8(b) {
        Marker::FixPos(_) => "positive fixint",
        Marker::FixNeg(_) => "negative fixint",
        Marker::Null => "nil",
        Marker::True => "true",
        Marker::False => "false",
        Marker::U8 => "uint8",
        Marker::U16 => "uint16",
        Marker::U32 => "uint32",
        Marker::U64 => "uint64",
        Marker::I8 => "int8",
        Marker::I16 => "int16",
        Marker::I32 => "int32",
        Marker::I64 => "int64",
        Marker::F32 => "float32",
        Marker::F64 => "float64",
        Marker::FixStr(_) => "fixstr",
        Marker::Str8 => "str8",
        Marker::Str16 => "str16",
        Marker::Str32 => "str32",
        Marker::Bin8 => "bin8",
        Marker::Bin16 => "bin16",
        Marker::Bin32 => "bin32",
        Marker::FixArray(_) => "fixarray",
        Marker::Array16 => "array16",
        Marker::Array32 => "array32",
        Marker::FixMap(_) => "fixmap",
        Marker::Map16 => "map16",
        Marker::Map32 => "map32",
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => "ext",
        Marker::Reserved => "reserved byte 0xc1",
    }
}

/// True for str and bin markers.
#[inline(always)]
pub(crate) fn is_str_or_bin(m: u8) -> bool {
    matches!(m, 0xa0..=0xbf | 0xd9..=0xdb | 0xc4..=0xc6)
}

/// True for extension markers (unknown values).
#[inline(always)]
pub(crate) fn is_ext(m: u8) -> bool {
    matches!(m, 0xc7..=0xc9 | 0xd4..=0xd8)
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
pub(super) mod tests {
    use super::{value_end, Reader, SkipError};
    use crate::test_rng::{next, rounds};

    /// The outcome of a skip: the end position, or the error with its offset.
    pub(crate) fn outcome(r: Result<(), SkipError>, reader: &Reader<'_>) -> (u8, usize) {
        match r {
            Ok(()) => (0, reader.pos),
            Err(SkipError::Eof) => (1, 0),
            Err(SkipError::Reserved(p)) => (2, p),
            Err(SkipError::InvalidUtf8(p)) => (3, p),
        }
    }

    /// Random MessagePack-ish bytes: markers biased to containers, short strings (some with
    /// bytes above 0x7f) and headers, so every arm of both steppers is reached.
    pub(crate) fn random_input(seed: &mut u64) -> Vec<u8> {
        const MARKERS: [u8; 24] = [
            0x01, 0x82, 0x93, 0xa3, 0xa9, 0xbf, 0xc0, 0xc1, 0xc4, 0xc7, 0xca, 0xcb, 0xcd, 0xd4,
            0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe5, 0x80,
        ];
        let len = (next(seed) % 96) as usize;
        (0..len)
            .map(|_| match next(seed) % 4 {
                0 => MARKERS[next(seed) as usize % MARKERS.len()],
                1 => 0x61,
                2 => 0,
                _ => next(seed) as u8,
            })
            .collect()
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
