//! Long JSON strings, 64 bytes per step: masks of quotes, backslashes, control bytes and
//! non-ASCII bytes, escaped quotes dropped with carries (simdjson's method), so a string full
//! of escapes is scanned without stopping at each one. The bytes those carries mark as
//! escaped are checked against the two-byte escapes on the way (`SIMPLE_ESCAPES`), so a skip
//! need not look at such a string's escapes again.
//!
//! Four classifiers give the same masks: AVX-512BW (one 64-byte compare each), AVX2 (two
//! 32-byte), SSE2 (four 16-byte; the x86-64 baseline) and a portable byte loop. The fastest
//! the CPU has is chosen once, at the first long string — AVX-512 only on CPUs that also have
//! VBMI2 (as simdjson chooses; see `Level::avx512_preferred`), else AVX2;
//! `TFWIRE_SIMD=scalar|sse2|avx2|avx512` in the environment sets the choice (never above what
//! the CPU has), so the test suite can run on every path (`.ci/run` does), and
//! [`Level::all_available`] lets a test compare them.

use std::sync::atomic::{AtomicU8, Ordering};

use super::string::{
    control, simple_escape, unterminated, ESCAPED, NON_ASCII, NOT_SIMPLE, SIMPLE_ESCAPES,
};
use crate::decode::common::Pending;

/// An instruction set a classifier uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Isa {
    Scalar = 1,
    Sse2 = 2,
    Avx2 = 3,
    Avx512 = 4,
}

/// A classifier this CPU can run. Only [`Level::current`] and [`Level::all_available`] make
/// one (the field is private to this module), so holding a `Level` proves that its
/// instructions are available: that is what makes [`string_end`] safe to call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Level(Isa);

/// The chosen level (0: not chosen yet).
static LEVEL: AtomicU8 = AtomicU8::new(0);

impl Level {
    /// The level in use: the best the CPU has (AVX-512 only where preferred), or the one
    /// `TFWIRE_SIMD` names when the CPU has it.
    #[inline(always)]
    pub(crate) fn current() -> Level {
        // Only `choose` stores a level, and only one of `all_available`'s.
        match LEVEL.load(Ordering::Relaxed) {
            1 => Level(Isa::Scalar),
            2 => Level(Isa::Sse2),
            3 => Level(Isa::Avx2),
            4 => Level(Isa::Avx512),
            _ => Level::choose(),
        }
    }

    /// The instruction set.
    pub(crate) fn isa(self) -> Isa {
        self.0
    }

    #[cold]
    #[inline(never)]
    fn choose() -> Level {
        let cap = match std::env::var("TFWIRE_SIMD").as_deref() {
            Ok("scalar") => Isa::Scalar,
            Ok("sse2") => Isa::Sse2,
            Ok("avx2") => Isa::Avx2,
            Ok("avx512") => Isa::Avx512,
            _ if Level::avx512_preferred() => Isa::Avx512,
            _ => Isa::Avx2,
        };
        // The best available level not above the cap (the scalar one is always available).
        let level = Level::all_available()
            .into_iter()
            .filter(|l| l.0 <= cap)
            .max()
            .unwrap_or(Level(Isa::Scalar));
        LEVEL.store(level.0 as u8, Ordering::Relaxed);
        level
    }

    /// Whether AVX-512 is the default on this CPU: only with AVX-512 VBMI2 too (Ice Lake and
    /// later, AMD Zen 4 and later), as simdjson picks its AVX-512 kernel. The CPUs with
    /// AVX-512BW but not VBMI2 (Skylake-SP, Cascade Lake) lower their clock for 512-bit work,
    /// and there the AVX2 path measured faster on every JSON workload
    /// (`perf/optimizations.md`, S38); `TFWIRE_SIMD=avx512` still chooses it.
    fn avx512_preferred() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vbmi2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Every level this CPU can run.
    pub(crate) fn all_available() -> Vec<Level> {
        let mut levels = vec![Level(Isa::Scalar)];
        #[cfg(target_arch = "x86_64")]
        {
            levels.push(Level(Isa::Sse2));
            // (The AVX2 and AVX-512 paths may use BMI1, BMI2, LZCNT and POPCNT too: every CPU
            // with AVX2 has them, and the check keeps that a fact rather than an assumption.)
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("lzcnt")
                && std::arch::is_x86_feature_detected!("popcnt");
            if avx2 {
                levels.push(Level(Isa::Avx2));
            }
            if avx2 && std::arch::is_x86_feature_detected!("avx512bw") {
                levels.push(Level(Isa::Avx512));
            }
        }
        levels
    }
}

/// Bit `k` set when byte `k` of a 64-byte block is a quote / a backslash / below 0x20 /
/// at or above 0x80.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrMasks {
    pub(crate) quote: u64,
    pub(crate) backslash: u64,
    pub(crate) control: u64,
    pub(crate) high: u64,
}

/// The end of the string whose body starts at `i` (its quote at `open`), as
/// `string::scan_string` defines it, with the classifier of `level` (which the CPU must
/// have: [`Level::current`] or one of [`Level::all_available`]).
pub(crate) fn string_end(
    level: Level,
    buf: &[u8],
    i: usize,
    open: usize,
) -> Result<(usize, u8), Pending> {
    match level.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Level` is made only for an instruction set the CPU has (see `Level`).
        Isa::Avx512 => unsafe { string_end_avx512(buf, i, open) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 => unsafe { string_end_avx2(buf, i, open) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of the x86-64 baseline.
        Isa::Sse2 => unsafe { string_end_sse2(buf, i, open) },
        _ => string_end_scalar(buf, i, open),
    }
}

/// The body of a scanner, over a classifier expression `$classify(block)`.
macro_rules! scan_blocks {
    ($buf:ident, $i:ident, $open:ident, $classify:expr) => {{
        let mut i = $i;
        let mut flags = 0u8;
        let mut carry = false;
        // An escape not of the two-byte kind was seen (a `\\u` one, or a bad one).
        let mut other_escape = false;
        // The last, partial block is padded with a byte that is none of the four.
        let mut padded = [b'a'; 64];
        loop {
            let rest = $buf.get(i..).unwrap_or_default();
            let (block, last) = match rest.first_chunk::<64>() {
                Some(block) => (block, false),
                None if rest.is_empty() => return Err(unterminated($open)),
                None => {
                    if let Some(head) = padded.get_mut(..rest.len()) {
                        head.copy_from_slice(rest);
                    }
                    (&padded, true)
                }
            };
            let m: StrMasks = $classify(block);
            let escaped = escaped_bytes(m.backslash, &mut carry);
            let quotes = m.quote & !escaped;
            // The bytes before the first real quote (all of them without one).
            let before = if quotes == 0 {
                u64::MAX
            } else {
                (quotes & quotes.wrapping_neg()).wrapping_sub(1)
            };
            let ctrl = m.control & !escaped & before;
            if ctrl != 0 {
                // (`k < 64`: inside the block.)
                let at = i.wrapping_add(ctrl.trailing_zeros() as usize);
                return Err(control($buf.get(at).copied().unwrap_or(0), at));
            }
            if m.backslash & before != 0 {
                flags |= ESCAPED;
            }
            // The bytes escaped by a backslash (after a run of odd length: an even run is
            // escaped backslashes, always valid) that belong to the string.
            let escapes = escaped & before;
            if escapes != 0 {
                other_escape |= !simple_escapes(block, escapes);
            }
            if m.high & before != 0 {
                flags |= NON_ASCII;
            }
            if quotes != 0 {
                if flags & ESCAPED != 0 && !other_escape {
                    flags |= SIMPLE_ESCAPES;
                }
                return Ok((i.wrapping_add(quotes.trailing_zeros() as usize), flags));
            }
            if last {
                return Err(unterminated($open));
            }
            i = i.wrapping_add(64);
        }
    }};
}

fn string_end_scalar(buf: &[u8], i: usize, open: usize) -> Result<(usize, u8), Pending> {
    scan_blocks!(buf, i, open, classify_scalar)
}

/// [`string_end`] with the SSE2 classifier.
///
/// # Safety
/// The CPU supports SSE2 (the x86-64 baseline: always).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
unsafe fn string_end_sse2(buf: &[u8], i: usize, open: usize) -> Result<(usize, u8), Pending> {
    scan_blocks!(buf, i, open, classify_sse2)
}

/// [`string_end`] with the AVX2 classifier.
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn string_end_avx2(buf: &[u8], i: usize, open: usize) -> Result<(usize, u8), Pending> {
    scan_blocks!(buf, i, open, classify_avx2)
}

/// [`string_end`] with the AVX-512BW classifier.
///
/// # Safety
/// The CPU supports AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
unsafe fn string_end_avx512(buf: &[u8], i: usize, open: usize) -> Result<(usize, u8), Pending> {
    scan_blocks!(buf, i, open, classify_avx512)
}

/// Whether every byte of `block` marked in `escapes` may follow a backslash in a two-byte
/// escape.
#[inline(always)]
fn simple_escapes(block: &[u8; 64], mut escapes: u64) -> bool {
    while escapes != 0 {
        // (`trailing_zeros() < 64`: inside the block.)
        let k = escapes.trailing_zeros() as usize;
        if block.get(k).map_or(NOT_SIMPLE, |&c| simple_escape(c)) == NOT_SIMPLE {
            return false;
        }
        escapes &= escapes.wrapping_sub(1);
    }
    true
}

/// The naive classifier (also the oracle of the tests).
pub(crate) fn classify_scalar(block: &[u8; 64]) -> StrMasks {
    let mut m = StrMasks {
        quote: 0,
        backslash: 0,
        control: 0,
        high: 0,
    };
    for (k, &c) in block.iter().enumerate() {
        let bit = 1u64 << k;
        if c == b'"' {
            m.quote |= bit;
        }
        if c == b'\\' {
            m.backslash |= bit;
        }
        if c < 0x20 {
            m.control |= bit;
        }
        if c >= 0x80 {
            m.high |= bit;
        }
    }
    m
}

/// [`classify_scalar`]'s masks with SSE2 instructions.
///
/// # Safety
/// A safe `#[target_feature]` function: callers without the feature enabled must call it
/// in an `unsafe` block, having made sure that the CPU supports SSE2 (the x86-64 baseline: always).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn classify_sse2(block: &[u8; 64]) -> StrMasks {
    use std::arch::x86_64::*;
    let mut m = StrMasks {
        quote: 0,
        backslash: 0,
        control: 0,
        high: 0,
    };
    for (k, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: `chunk` is 16 bytes (`chunks_exact(16)`), and the load is unaligned.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let low = _mm_set1_epi8(0x1f);
        let lane = |x: __m128i| u64::from(_mm_movemask_epi8(x) as u16);
        // `k < 4`: a shift of 0, 16, 32 or 48 bits.
        let shift = k.wrapping_mul(16);
        m.quote |= lane(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) << shift;
        m.backslash |= lane(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))) << shift;
        m.control |= lane(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low)) << shift;
        m.high |= lane(v) << shift;
    }
    m
}

/// [`classify_scalar`]'s masks with AVX2 instructions.
///
/// # Safety
/// A safe `#[target_feature]` function: callers without the feature enabled must call it
/// in an `unsafe` block, having made sure that the CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn classify_avx2(block: &[u8; 64]) -> StrMasks {
    use std::arch::x86_64::*;
    let mut m = StrMasks {
        quote: 0,
        backslash: 0,
        control: 0,
        high: 0,
    };
    for (k, chunk) in block.chunks_exact(32).enumerate() {
        // SAFETY: `chunk` is 32 bytes (`chunks_exact(32)`), and the load is unaligned.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
        let low = _mm256_set1_epi8(0x1f);
        let lane = |x: __m256i| u64::from(_mm256_movemask_epi8(x) as u32);
        // `k < 2`: a shift of 0 or 32 bits.
        let shift = k.wrapping_mul(32);
        m.quote |= lane(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8))) << shift;
        m.backslash |= lane(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8))) << shift;
        m.control |= lane(_mm256_cmpeq_epi8(_mm256_max_epu8(v, low), low)) << shift;
        m.high |= lane(v) << shift;
    }
    m
}

/// [`classify_scalar`]'s masks with AVX-512BW instructions.
///
/// # Safety
/// A safe `#[target_feature]` function: callers without the feature enabled must call it
/// in an `unsafe` block, having made sure that the CPU supports AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn classify_avx512(block: &[u8; 64]) -> StrMasks {
    use std::arch::x86_64::*;
    // SAFETY: `block` is 64 bytes, and the load is unaligned.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
    StrMasks {
        quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
        backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
        control: _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f)),
        high: _mm512_movepi8_mask(v),
    }
}

/// The bytes escaped by a backslash that are not backslashes themselves (those right after
/// an odd-length run of backslashes), given the backslashes of a 64-byte block; `carry` says
/// whether the block's first byte is escaped (updated for the next block). simdjson's
/// `find_odd_backslash_sequences`. Valid JSON has backslashes only inside strings, where this
/// is exact.
#[inline(always)]
pub(super) fn escaped_bytes(backslash: u64, carry: &mut bool) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    const ODD: u64 = !EVEN;
    let prev = *carry as u64;
    let starts = backslash & !(backslash << 1);
    let even_start_mask = EVEN ^ prev;
    let even_starts = starts & even_start_mask;
    let odd_starts = starts & !even_start_mask;
    let even_carries = backslash.wrapping_add(even_starts);
    let (odd_carries, overflow) = backslash.overflowing_add(odd_starts);
    let odd_carries = odd_carries | prev;
    *carry = overflow;
    let even_carry_ends = even_carries & !backslash;
    let odd_carry_ends = odd_carries & !backslash;
    (even_carry_ends & ODD) | (odd_carry_ends & EVEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random strings mixing plain bytes, escapes, quotes, control and UTF-8 bytes.
    fn samples() -> Vec<Vec<u8>> {
        let pieces: [&[u8]; 11] = [
            b"a",
            b"\\u00e9",
            b"\\\"",
            b"\\\\",
            b"\\n",
            b"\"",
            b"\x01",
            "é".as_bytes(),
            b"xyz0123",
            b"\\",
            b" ",
        ];
        let mut out = Vec::new();
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for len in (0..300).step_by(crate::test_rng::rounds(1, 7)) {
            let mut s = Vec::new();
            for _ in 0..len % 97 {
                crate::test_rng::next(&mut x);
                // Mostly plain bytes, so strings get long.
                let k = (x % 40) as usize;
                s.extend_from_slice(pieces[if k < pieces.len() { k } else { 0 }]);
            }
            out.push(s);
        }
        out
    }

    fn result(r: Result<(usize, u8), Pending>) -> Result<(usize, u8), (crate::ErrorKind, usize)> {
        r.map_err(|p| (p.0 .0, p.0 .1))
    }

    #[test]
    fn every_level_equals_the_scalar_scan_and_the_byte_scan() {
        for s in samples() {
            for start in [0usize, 1, 5] {
                let mut buf = vec![b'"'; start];
                buf.extend_from_slice(&s);
                let open = start.saturating_sub(1);
                let want = result(super::super::string::scan_string_bytewise(
                    &buf, start, open,
                ));
                for level in Level::all_available() {
                    let got = result(string_end(level, &buf, start, open));
                    assert_eq!(got, want, "{level:?} {buf:?}");
                }
                let fast = result(super::super::string::scan_string(&buf, start, open));
                assert_eq!(fast, want, "inline steps {buf:?}");
            }
        }
    }

    /// Strings whose first special byte comes after a plain stretch of every length around
    /// the inline steps' reach (96 bytes), with a non-ASCII character in that stretch or not:
    /// the inline steps hand over to the block scanner mid-string, and the flags of the
    /// stretch they read are kept.
    #[test]
    fn long_plain_stretches_then_a_special_byte() {
        let step = crate::test_rng::rounds(1, 5);
        for plain in (60usize..140).step_by(step) {
            for accent in [
                None,
                Some(0),
                Some(plain / 2),
                Some(plain.saturating_sub(2)),
            ] {
                for tail in [&b"\"x\""[..], b"\\\\\\u00e9\"", b"\x01\"", b"\"", b"\\q\""] {
                    let mut buf = vec![b'"'];
                    let mut body = vec![b'p'; plain];
                    if let Some(at) = accent {
                        body.splice(at..at + 2, "é".bytes());
                    }
                    buf.extend_from_slice(&body);
                    buf.extend_from_slice(tail);
                    buf.extend_from_slice(&[b' '; 70]);
                    let want = result(super::super::string::scan_string_bytewise(&buf, 1, 0));
                    let fast = result(super::super::string::scan_string(&buf, 1, 0));
                    assert_eq!(fast, want, "{plain} {accent:?} {tail:?}");
                }
            }
        }
    }

    #[test]
    fn classifiers_equal_the_naive_one() {
        let mut block = [0u8; 64];
        for seed in 0..crate::test_rng::rounds(64, 4) as u64 {
            for (k, b) in block.iter_mut().enumerate() {
                *b = ((k as u64 * 37 + seed * 101) % 256) as u8;
            }
            let want = classify_scalar(&block);
            #[cfg(target_arch = "x86_64")]
            for level in Level::all_available() {
                // SAFETY: `level` is available on this CPU.
                let got = unsafe {
                    match level.isa() {
                        Isa::Sse2 => classify_sse2(&block),
                        Isa::Avx2 => classify_avx2(&block),
                        Isa::Avx512 => classify_avx512(&block),
                        Isa::Scalar => classify_scalar(&block),
                    }
                };
                assert_eq!(got, want, "{level:?}");
            }
        }
    }
}
