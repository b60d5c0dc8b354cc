//! A zero-copy MessagePack reader over `&'a [u8]`: markers, lengths, and the careful skip,
//! [`Reader::skip_items`], which walks a value of any depth iteratively and names a fault.
//! The fast skips that leave faults to it are in `skip.rs` (the whole-value skips of
//! [`Reader`]) and `deferred.rs` (the walk that defers the UTF-8 checks). Returns `None` at
//! end of input; callers attach offsets.
//!
//! Every read goes through `get`, so a position past the end is never a panic, only `None`.
//! `pos <= buf.len() <= isize::MAX` holds after every successful read, so stepping over bytes
//! just read (`pos + n` where `pos + n <= buf.len()`) uses `wrapping_add`: it cannot wrap.

use rmp::Marker;

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

/// A skipped string's bytes (whose header is at `at`) must be UTF-8.
#[inline(always)]
pub(crate) fn valid_text(bytes: &[u8], at: usize) -> Result<(), SkipError> {
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
    use super::{Reader, SkipError};
    use crate::test_rng::next;

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
}
