//! JSON strings: finding a string's end in one pass that notes quotes, backslashes, control
//! bytes and non-ASCII bytes together (16 bytes at a time with SSE2 on x86-64), UTF-8
//! validation, and decoding escapes into the arena (or only checking them, for skipped
//! values).
//!
//! Positions step over bytes just read with `wrapping_add`, which cannot wrap (see
//! `scan.rs` on positions); bytes are read with `get`.

use std::mem::MaybeUninit;

use bumpalo::Bump;

use super::simd::{string_end, Level};
use crate::bytes::{byte_mask, BLOCK};
use crate::decode::common::Pending;
use crate::error::ErrorKind;

/// The string held a backslash escape.
pub(super) const ESCAPED: u8 = 1;
/// The string held a byte >= 0x80 (UTF-8 must be validated).
pub(super) const NON_ASCII: u8 = 2;
/// With [`ESCAPED`]: every escape of the string is one of the two-byte ones (`\"`, `\\`,
/// `\/`, `\b`, `\f`, `\n`, `\r`, `\t`), which the scan has seen, so the escapes are valid
/// and a skip need not look at them again (`\u` escapes are checked by [`escape`]).
pub(super) const SIMPLE_ESCAPES: u8 = 4;

/// Masks of the special bytes (`"`, `\`, < 0x20) and of the non-ASCII bytes in 16 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks16(chunk: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; the load is unaligned and reads exactly
    // the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        let special = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        (
            _mm_movemask_epi8(special) as u32,
            _mm_movemask_epi8(v) as u32,
        )
    }
}

/// Masks of the special bytes and of the non-ASCII bytes in 8 bytes (one bit per byte, at
/// the byte's high bit). Only the lowest set bit of the special mask is exact, which is all
/// the caller uses.
#[cfg(all(test, not(target_arch = "x86_64")))]
fn masks8(chunk: &[u8; 8]) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let x = u64::from_le_bytes(*chunk);
    let zero = |y: u64| y.wrapping_sub(ONES) & !y & HIGH;
    let quote = zero(x ^ (ONES * b'"' as u64));
    let backslash = zero(x ^ (ONES * b'\\' as u64));
    let control = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
    (quote | backslash | control, x & HIGH)
}

/// The position of the next `"`, `\` or control byte at or after `i` (or `buf.len()`), noting
/// in `flags` whether a non-ASCII byte came before it.
#[cfg(test)]
fn next_special(buf: &[u8], mut i: usize, flags: &mut u8) -> usize {
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = buf.get(i..).and_then(|s| s.first_chunk::<16>()) {
        let (special, high) = masks16(chunk);
        if special != 0 {
            // `k < 16`, so `1 << k` is at least 1.
            let k = special.trailing_zeros();
            if high & (1u32 << k).wrapping_sub(1) != 0 {
                *flags |= NON_ASCII;
            }
            return i.wrapping_add(k as usize);
        }
        if high != 0 {
            *flags |= NON_ASCII;
        }
        i = i.wrapping_add(16);
    }
    #[cfg(not(target_arch = "x86_64"))]
    while let Some(chunk) = buf.get(i..).and_then(|s| s.first_chunk::<8>()) {
        let (special, high) = masks8(chunk);
        if special != 0 {
            // `k < 8`, so the shift is below 64 and `1 << 8k` is at least 1.
            let k = special.trailing_zeros() / 8;
            if high & (1u64 << k.wrapping_mul(8)).wrapping_sub(1) != 0 {
                *flags |= NON_ASCII;
            }
            return i.wrapping_add(k as usize);
        }
        if high != 0 {
            *flags |= NON_ASCII;
        }
        i = i.wrapping_add(8);
    }
    while let Some(&c) = buf.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        if c >= 0x80 {
            *flags |= NON_ASCII;
        }
        i = i.wrapping_add(1);
    }
    i
}

/// Finds the end of the string whose body starts at `i` (its opening quote is at `open`):
/// returns the position of the closing quote and the [`ESCAPED`] / [`NON_ASCII`] /
/// [`SIMPLE_ESCAPES`] flags.
/// Control bytes are rejected here; escapes are checked when they are decoded.
///
/// A string that ends within its first 96 bytes without an escape (most keys and values of
/// state data: names, IDs, ARNs) takes at most six inline 16-byte SSE2 steps; any other goes
/// on in the 64-byte scanner of `simd.rs` from the first step not taken, which steps over
/// escapes without stopping (F41 and F46 in `perf/optimizations.md`).
#[inline(always)]
pub(super) fn scan_string(buf: &[u8], i: usize, open: usize) -> Result<(usize, u8), Pending> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut j = i;
        let mut flags = 0;
        // Six 16-byte steps: strings up to 95 bytes.
        for _ in 0..6 {
            let Some(chunk) = buf.get(j..).and_then(|s| s.first_chunk::<16>()) else {
                break;
            };
            let (special, high) = masks16(chunk);
            if special == 0 {
                if high != 0 {
                    flags = NON_ASCII;
                }
                j = j.wrapping_add(16);
                continue;
            }
            // `k < 16` when `special != 0`, so `1 << k` is at least 1.
            let k = special.trailing_zeros();
            if chunk.get(k as usize) != Some(&b'"') {
                break;
            }
            if high & (1u32 << k).wrapping_sub(1) != 0 {
                flags = NON_ASCII;
            }
            return Ok((j.wrapping_add(k as usize), flags));
        }
        // The block scanner goes on from the first step it did not take (the bytes before
        // are plain: no escape is pending at `j`), with the flag of what those held.
        string_end(Level::current(), buf, j, open).map(|(end, more)| (end, more | flags))
    }
    #[cfg(not(target_arch = "x86_64"))]
    string_end(Level::current(), buf, i, open)
}

/// [`scan_string`] one special byte at a time (the reference the block scanners are tested
/// against).
#[cfg(test)]
pub(super) fn scan_string_bytewise(
    buf: &[u8],
    mut i: usize,
    open: usize,
) -> Result<(usize, u8), Pending> {
    let mut flags = 0;
    let mut other_escape = false;
    loop {
        i = next_special(buf, i, &mut flags);
        match buf.get(i) {
            Some(b'"') if flags & ESCAPED != 0 && !other_escape => {
                return Ok((i, flags | SIMPLE_ESCAPES))
            }
            Some(b'"') => return Ok((i, flags)),
            Some(b'\\') => {
                flags |= ESCAPED;
                other_escape |= buf
                    .get(i.wrapping_add(1))
                    .map_or(NOT_SIMPLE, |&c| simple_escape(c))
                    == NOT_SIMPLE;
                // Past the backslash and the byte it escapes (at most one past the end).
                i = i.wrapping_add(2);
            }
            Some(&c) => return Err(control(c, i)),
            None => return Err(unterminated(open)),
        }
    }
}

/// The body `buf[start..end]` of a scanned string as `&str`: UTF-8-validated when it held
/// non-ASCII bytes, unescaped into the arena when it held escapes.
#[inline(always)]
pub(super) fn string_body<'a>(
    buf: &'a [u8],
    start: usize,
    end: usize,
    flags: u8,
    bump: &'a Bump,
) -> Result<&'a str, Pending> {
    let Some(raw) = buf.get(start..end) else {
        return Err(unterminated(start));
    };
    let s = if flags & NON_ASCII != 0 {
        utf8(raw, start)?
    } else {
        // SAFETY: every byte is ASCII (the scan saw none >= 0x80), so this is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(raw) }
    };
    if flags & ESCAPED != 0 {
        unescape(s, start, bump)
    } else {
        Ok(s)
    }
}

/// The body `buf[start..end]` of a scanned string with escapes, unescaped into `out` (cleared
/// first): the visitor's strings, which are not kept.
pub(super) fn unescape_into(
    buf: &[u8],
    start: usize,
    end: usize,
    flags: u8,
    out: &mut String,
) -> Result<(), Pending> {
    out.clear();
    let Some(raw) = buf.get(start..end) else {
        return Err(unterminated(start));
    };
    if flags & NON_ASCII != 0 {
        utf8(raw, start)?;
    }
    let mut j = 0usize;
    while let Some(k) = raw.get(j..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let slash = j.wrapping_add(k);
        // The run before the backslash: whole UTF-8 characters (a backslash is ASCII).
        out.push_str(std::str::from_utf8(raw.get(j..slash).unwrap_or_default()).unwrap_or(""));
        let (c, used) = escape(raw, slash, start)?;
        out.push(c);
        j = slash.wrapping_add(used);
    }
    out.push_str(std::str::from_utf8(raw.get(j..).unwrap_or_default()).unwrap_or(""));
    Ok(())
}

/// Checks the string body `buf[start..end]` without building it (for skipped values).
pub(super) fn check_string_body(
    buf: &[u8],
    start: usize,
    end: usize,
    flags: u8,
) -> Result<(), Pending> {
    let Some(raw) = buf.get(start..end) else {
        return Err(unterminated(start));
    };
    if flags & NON_ASCII != 0 {
        utf8(raw, start)?;
    }
    if flags & (ESCAPED | SIMPLE_ESCAPES) == ESCAPED {
        let mut j = 0usize;
        while let Some(k) = raw.get(j..).and_then(|rest| memchr::memchr(b'\\', rest)) {
            // `j + k` is a backslash of `raw`; an escape uses at most 12 bytes.
            let (_, used) = escape(raw, j.wrapping_add(k), start)?;
            j = j.wrapping_add(k).wrapping_add(used);
        }
    }
    Ok(())
}

/// UTF-8 validation (the caller has seen a non-ASCII byte); the error points at the first
/// invalid byte.
#[inline]
pub(super) fn utf8(bytes: &[u8], at: usize) -> Result<&str, Pending> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(_) => Err(invalid_utf8(bytes, at)),
    }
}

#[cold]
#[inline(never)]
fn invalid_utf8(bytes: &[u8], at: usize) -> Pending {
    let bad = simdutf8::compat::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |_| 0);
    Pending::new(
        ErrorKind::InvalidUtf8,
        at.saturating_add(bad),
        "string is not valid UTF-8".into(),
    )
}

/// Decodes the escapes of `s` (a string body starting at input offset `at`) into the arena.
///
/// Copies 32 bytes at a time, stopping only at backslashes; the one-byte escapes (`\n`,
/// `\"`, `\\`, …) are written inline, `\u` escapes decoded out of line. Every escape is at
/// least as long as what it decodes to, so the output never outruns the input, and a buffer
/// of the input's length plus 32 takes the whole-block stores. The buffer is not zero-filled
/// first: only the bytes written are read.
#[inline(never)]
fn unescape<'a>(s: &str, at: usize, bump: &'a Bump) -> Result<&'a str, Pending> {
    let raw = s.as_bytes();
    let n = raw.len();
    // (`n` is at most `isize::MAX`, so `n + 32` cannot wrap; `w <= r <= n` throughout, and
    // the `r`/`w` steps below move over bytes just read and written.)
    let dst = bump.alloc_slice_fill_with(n.wrapping_add(BLOCK), |_| MaybeUninit::<u8>::uninit());
    // Every write below goes through `out`, derived once: `dst` is not used again, so no
    // reborrow of it can invalidate the pointer (Stacked and Tree Borrows alike).
    let out = Out {
        ptr: dst.as_mut_ptr().cast::<u8>(),
        cap: dst.len(),
    };
    let src = raw.as_ptr();
    let (mut r, mut w) = (0usize, 0usize);
    loop {
        // Whole blocks, with one bounds check each: copy 32 bytes, then keep those before the
        // first backslash.
        while r.wrapping_add(BLOCK) <= n {
            // SAFETY: `r + 32 <= n`: the 32 bytes at `r` are inside `raw`. `w <= r`, so the 32
            // bytes at `w` are inside `dst`, which is `n + 32` bytes long; they are written,
            // never read, so their being uninitialised does not matter.
            let block = unsafe { src.add(r).cast::<[u8; BLOCK]>().read_unaligned() };
            // SAFETY: as above.
            unsafe { out.ptr.add(w).cast::<[u8; BLOCK]>().write_unaligned(block) };
            let m = byte_mask(&block, b'\\');
            if m == 0 {
                r = r.wrapping_add(BLOCK);
                w = w.wrapping_add(BLOCK);
                continue;
            }
            let k = m.trailing_zeros() as usize;
            r = r.wrapping_add(k);
            w = w.wrapping_add(k);
            // The escape at `r`; the common ones, one byte for two, inline.
            let simple = raw
                .get(r.wrapping_add(1))
                .map_or(NOT_SIMPLE, |&c| simple_escape(c));
            if simple != NOT_SIMPLE {
                // SAFETY: `w <= r < n`: inside the buffer of `n + 32` bytes.
                unsafe { out.ptr.add(w).write(simple) };
                r = r.wrapping_add(2);
                w = w.wrapping_add(1);
                continue;
            }
            (r, w) = unicode_escape(raw, r, at, out, w)?;
        }
        // The tail, byte by byte.
        while let Some(&c) = raw.get(r).filter(|&&c| c != b'\\') {
            out.write(w, &[c], at)?;
            r = r.wrapping_add(1);
            w = w.wrapping_add(1);
        }
        if r >= n {
            break;
        }
        let simple = raw
            .get(r.wrapping_add(1))
            .map_or(NOT_SIMPLE, |&c| simple_escape(c));
        if simple != NOT_SIMPLE {
            out.write(w, &[simple], at)?;
            r = r.wrapping_add(2);
            w = w.wrapping_add(1);
            continue;
        }
        (r, w) = unicode_escape(raw, r, at, out, w)?;
    }
    if w > out.cap {
        return Err(overrun(at));
    }
    // SAFETY: `w <= cap`: the bytes `0..w` are inside the allocation, and all were written
    // (blocks and bytes are stored at `w` before `w` moves past them), so reading them as
    // `u8` is sound; the arena keeps them for `'a`, and nothing writes them again. They are
    // UTF-8: `s` is, the bytes copied run between backslashes (ASCII, so character
    // boundaries), and every escape wrote a whole UTF-8-encoded `char`.
    Ok(unsafe {
        let bytes = std::slice::from_raw_parts(out.ptr.cast_const(), w);
        std::str::from_utf8_unchecked(bytes)
    })
}

/// The unescaped string's buffer: `cap` bytes of the arena at `ptr`, written through this
/// pointer only.
#[derive(Clone, Copy)]
struct Out {
    ptr: *mut u8,
    cap: usize,
}

impl Out {
    /// Writes `bytes` at `w`, or fails when they would not fit (which an escape never makes
    /// happen: it is never shorter than what it decodes to).
    #[inline(always)]
    fn write(self, w: usize, bytes: &[u8], at: usize) -> Result<(), Pending> {
        match w.checked_add(bytes.len()) {
            Some(end) if end <= self.cap => {
                // SAFETY: `w + len <= cap`: the destination is inside the buffer, which does
                // not overlap `bytes` (a fresh arena allocation, not yet handed out).
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(w), bytes.len())
                };
                Ok(())
            }
            _ => Err(overrun(at)),
        }
    }
}

/// [`simple_escape`]'s answer for a byte that does not make a one-byte escape.
pub(super) const NOT_SIMPLE: u8 = 0xff;

/// What `\c` decodes to for the one-byte escapes (`\"`, `\\`, `\/`, `\n`, `\t`, `\r`,
/// `\b`, `\f`), else [`NOT_SIMPLE`].
#[inline(always)]
pub(super) fn simple_escape(c: u8) -> u8 {
    // In bounds: every index is a byte below 256, the table's length; and this runs at
    // compile time, where an out-of-bounds index would fail the build, not a decode.
    #[allow(clippy::indexing_slicing)]
    static TABLE: [u8; 256] = {
        let mut t = [NOT_SIMPLE; 256];
        t[b'"' as usize] = b'"';
        t[b'\\' as usize] = b'\\';
        t[b'/' as usize] = b'/';
        t[b'n' as usize] = b'\n';
        t[b't' as usize] = b'\t';
        t[b'r' as usize] = b'\r';
        t[b'b' as usize] = 0x08;
        t[b'f' as usize] = 0x0c;
        t
    };
    // (A `u8` indexes the 256 entries: the check compiles away.)
    TABLE.get(usize::from(c)).copied().unwrap_or(NOT_SIMPLE)
}

/// A `\u` escape (or an invalid one) at `raw[r]`, written at `out[w]`: the positions after it.
#[inline(never)]
fn unicode_escape(
    raw: &[u8],
    r: usize,
    at: usize,
    out: Out,
    w: usize,
) -> Result<(usize, usize), Pending> {
    let (c, used) = escape(raw, r, at)?;
    let mut utf8 = [0u8; 4];
    let encoded = c.encode_utf8(&mut utf8).as_bytes();
    out.write(w, encoded, at)?;
    Ok((r.wrapping_add(used), w.wrapping_add(encoded.len())))
}

/// The escape at `raw[j]` (a backslash): the character and the bytes it used.
#[inline(always)]
pub(super) fn escape(raw: &[u8], j: usize, at: usize) -> Result<(char, usize), Pending> {
    // The escape's bytes, from its backslash.
    let e = raw.get(j..).unwrap_or_default();
    let c = match e.get(1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            let hi = hex4(e.get(2..6)).ok_or_else(|| bad_escape(raw, j, at))?;
            return match hi {
                0xd800..=0xdbff => {
                    let lo = match e.get(6..8) {
                        Some(b"\\u") => hex4(e.get(8..12)),
                        _ => None,
                    };
                    match lo {
                        Some(lo @ 0xdc00..=0xdfff) => {
                            // Both halves in their ranges: no wrap, at most 0x10ffff.
                            let high = hi.wrapping_sub(0xd800) << 10;
                            let c = high.wrapping_add(lo.wrapping_sub(0xdc00));
                            let c = c.wrapping_add(0x10000);
                            Ok((char::from_u32(c).unwrap_or('\u{fffd}'), 12))
                        }
                        _ => Err(surrogate(hi, at.saturating_add(j))),
                    }
                }
                0xdc00..=0xdfff => Err(surrogate(hi, at.saturating_add(j))),
                c => Ok((char::from_u32(c).unwrap_or('\u{fffd}'), 6)),
            };
        }
        _ => return Err(bad_escape(raw, j, at)),
    };
    Ok((c, 2))
}

/// The value of four hex digits.
fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let mut v = 0u32;
    for &d in digits? {
        v = (v << 4) | (d as char).to_digit(16)?;
    }
    Some(v)
}

#[cold]
fn bad_escape(raw: &[u8], j: usize, at: usize) -> Pending {
    let e = raw.get(j..).unwrap_or_default();
    let text = String::from_utf8_lossy(e.get(..6).unwrap_or(e));
    let text = match e.get(1) {
        Some(b'u') => text.into_owned(),
        _ => text.chars().take(2).collect(),
    };
    Pending::new(
        ErrorKind::InvalidUtf8,
        at.saturating_add(j),
        format!("invalid escape {text:?} in string"),
    )
}

/// The unescaped text outgrew its buffer: impossible (an escape is never shorter than what
/// it decodes to), but an error rather than a panic.
#[cold]
#[inline(never)]
fn overrun(at: usize) -> Pending {
    Pending::new(
        ErrorKind::Syntax,
        at,
        "internal: unescaped string overran its buffer".into(),
    )
}

#[cold]
fn surrogate(v: u32, at: usize) -> Pending {
    Pending::new(
        ErrorKind::InvalidUtf8,
        at,
        format!("lone surrogate \\u{v:04x} in string"),
    )
}

#[cold]
pub(super) fn control(c: u8, at: usize) -> Pending {
    let msg = format!("control character 0x{c:02x} in string (it must be escaped)");
    Pending::new(ErrorKind::Syntax, at, msg)
}

#[cold]
pub(super) fn unterminated(open: usize) -> Pending {
    Pending::new(
        ErrorKind::Eof,
        open,
        "unexpected end of input in a string".into(),
    )
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests;
