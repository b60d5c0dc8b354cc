//! Byte-mask primitives over 32-byte blocks, the building blocks of the executors' fast
//! paths: which bytes of two blocks are equal, which bytes of a block are not ASCII, and how
//! many of a run of 128-byte groups. SSE2 on x86_64 (part of its baseline, so no run-time
//! detection is needed), AVX2 through `Avx2Mask` where the caller has found it, a portable
//! loop elsewhere; tests check each against a naive oracle.

/// Width of a block.
pub(crate) const BLOCK: usize = 32;

/// Bit `i` set where `a[i] == b[i]`.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn eq_mask(a: &[u8; BLOCK], b: &[u8; BLOCK]) -> u32 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8};
    // SAFETY: SSE2 is part of the x86_64 baseline; each load reads 16 bytes inside a 32-byte
    // array (offsets 0 and 16), and unaligned loads are allowed.
    unsafe {
        let a0 = _mm_loadu_si128(a.as_ptr().cast::<__m128i>());
        let a1 = _mm_loadu_si128(a.as_ptr().add(16).cast::<__m128i>());
        let b0 = _mm_loadu_si128(b.as_ptr().cast::<__m128i>());
        let b1 = _mm_loadu_si128(b.as_ptr().add(16).cast::<__m128i>());
        let lo = _mm_movemask_epi8(_mm_cmpeq_epi8(a0, b0)) as u32 & 0xffff;
        let hi = _mm_movemask_epi8(_mm_cmpeq_epi8(a1, b1)) as u32 & 0xffff;
        lo | (hi << 16)
    }
}

/// Bit `i` set where `a[i] == b[i]` (portable form).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn eq_mask(a: &[u8; BLOCK], b: &[u8; BLOCK]) -> u32 {
    eq_mask_naive(a, b)
}

/// Bit `i` set where `a[i]` is not ASCII (its high bit is set).
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn non_ascii_mask(a: &[u8; BLOCK]) -> u32 {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8};
    // SAFETY: SSE2 is part of the x86_64 baseline; each load reads 16 bytes inside a 32-byte
    // array (offsets 0 and 16), and unaligned loads are allowed.
    unsafe {
        let a0 = _mm_loadu_si128(a.as_ptr().cast::<__m128i>());
        let a1 = _mm_loadu_si128(a.as_ptr().add(16).cast::<__m128i>());
        let lo = _mm_movemask_epi8(a0) as u32 & 0xffff;
        let hi = _mm_movemask_epi8(a1) as u32 & 0xffff;
        lo | (hi << 16)
    }
}

/// Bit `i` set where `a[i]` is not ASCII (portable form).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn non_ascii_mask(a: &[u8; BLOCK]) -> u32 {
    non_ascii_mask_naive(a)
}

/// Width of a group of four blocks, the unit of [`AsciiMask::count_non_ascii`].
pub(crate) const GROUP: usize = 4 * BLOCK;

/// Which bytes of a block are not ASCII, and how many in a run of groups, for code compiled
/// once per instruction set: the baseline ([`non_ascii_mask`]) or AVX2 (one 32-byte
/// `movemask`), chosen by the caller.
pub(crate) trait AsciiMask: Copy {
    /// Bit `i` set where `a[i]` is not ASCII.
    fn non_ascii(self, a: &[u8; BLOCK]) -> u32;

    /// The bytes of `groups` that are not ASCII: each block's compared bytes subtracted in
    /// byte lanes (0 or −1 a byte), the lanes summed by `psadbw` before they can wrap. No
    /// `movemask` and no `popcnt` a block: 1.5× the count of masks (P67,
    /// `perf/optimizations.md`).
    fn count_non_ascii(self, groups: &[[u8; GROUP]]) -> usize;
}

/// [`non_ascii_mask`]: SSE2 on x86-64 (its baseline), a byte loop elsewhere.
#[derive(Clone, Copy)]
pub(crate) struct BaselineMask;

impl AsciiMask for BaselineMask {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn non_ascii(self, a: &[u8; BLOCK]) -> u32 {
        non_ascii_mask(a)
    }

    #[cfg(target_arch = "x86_64")]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn count_non_ascii(self, groups: &[[u8; GROUP]]) -> usize {
        count_non_ascii_sse2(groups)
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn count_non_ascii(self, groups: &[[u8; GROUP]]) -> usize {
        groups.iter().flatten().filter(|b| !b.is_ascii()).count()
    }
}

/// [`AsciiMask::count_non_ascii`] by SSE2: four accumulators of 16 byte lanes, each taking two
/// of a group's eight 16-byte loads, so a lane counts at most 2 a group: summed every
/// [`SSE2_GROUPS`] groups.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(debug_assertions), inline(always))]
fn count_non_ascii_sse2(groups: &[[u8; GROUP]]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi64, _mm_cmplt_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_sad_epu8,
        _mm_setzero_si128, _mm_sub_epi8, _mm_unpackhi_epi64,
    };
    let mut total = 0u64;
    for run in groups.chunks(SSE2_GROUPS) {
        // SAFETY: SSE2 is part of the x86_64 baseline; the loads read 16 bytes at offsets
        // 16·i and 16·(i + 4), i < 4, inside a 128-byte array, and unaligned loads are
        // allowed.
        let (lo, hi) = unsafe {
            let zero = _mm_setzero_si128();
            let mut acc = [zero; 4];
            for group in run {
                let at = group.as_ptr().cast::<__m128i>();
                for (i, a) in (0..).zip(acc.iter_mut()) {
                    let (x, y) = (
                        _mm_loadu_si128(at.add(i)),
                        _mm_loadu_si128(at.add(i).add(4)),
                    );
                    *a = _mm_sub_epi8(*a, _mm_cmplt_epi8(x, zero));
                    *a = _mm_sub_epi8(*a, _mm_cmplt_epi8(y, zero));
                }
            }
            let sums = acc
                .into_iter()
                .fold(zero, |sum, a| _mm_add_epi64(sum, _mm_sad_epu8(a, zero)));
            let hi = _mm_unpackhi_epi64(sums, sums);
            (_mm_cvtsi128_si64(sums), _mm_cvtsi128_si64(hi))
        };
        // (Each half at most 8 · 255 · 4: no wrapping.)
        total = total.wrapping_add(lo as u64).wrapping_add(hi as u64);
    }
    total as usize
}

/// Groups in a byte lane of [`count_non_ascii_sse2`] before it could wrap (2 a group).
#[cfg(target_arch = "x86_64")]
const SSE2_GROUPS: usize = 127;
/// Groups in a byte lane of [`count_non_ascii_avx2`] before it could wrap (1 a group).
#[cfg(target_arch = "x86_64")]
const AVX2_GROUPS: usize = 255;

/// The AVX2 [`AsciiMask`]: a value exists only where the CPU has AVX2 ([`Avx2Mask::new`]).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Avx2Mask(());

#[cfg(target_arch = "x86_64")]
impl Avx2Mask {
    /// The AVX2 mask.
    ///
    /// # Safety
    /// The CPU supports AVX2.
    pub(crate) unsafe fn new() -> Avx2Mask {
        Avx2Mask(())
    }
}

#[cfg(target_arch = "x86_64")]
impl AsciiMask for Avx2Mask {
    #[inline(always)]
    fn non_ascii(self, a: &[u8; BLOCK]) -> u32 {
        // SAFETY: an `Avx2Mask` is made only where the CPU has AVX2 (`Avx2Mask::new`).
        unsafe { non_ascii_mask_avx2(a) }
    }

    #[inline(always)]
    fn count_non_ascii(self, groups: &[[u8; GROUP]]) -> usize {
        // SAFETY: an `Avx2Mask` is made only where the CPU has AVX2 (`Avx2Mask::new`).
        unsafe { count_non_ascii_avx2(groups) }
    }
}

/// [`AsciiMask::count_non_ascii`] by AVX2: four accumulators of 32 byte lanes, one block of
/// each group apiece, summed every [`AVX2_GROUPS`] groups.
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn count_non_ascii_avx2(groups: &[[u8; GROUP]]) -> usize {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_castsi256_si128, _mm256_cmpgt_epi8,
        _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_sad_epu8, _mm256_setzero_si256,
        _mm256_sub_epi8, _mm_add_epi64, _mm_cvtsi128_si64, _mm_unpackhi_epi64,
    };
    let mut total = 0u64;
    for run in groups.chunks(AVX2_GROUPS) {
        let zero = _mm256_setzero_si256();
        let mut acc = [zero; 4];
        for group in run {
            let at = group.as_ptr().cast::<__m256i>();
            for (i, a) in (0..).zip(acc.iter_mut()) {
                // SAFETY: the CPU has AVX2 (this function's contract); the load reads the 32
                // bytes at offset 32·i, i < 4, of a 128-byte array, and unaligned loads are
                // allowed.
                let x = unsafe { _mm256_loadu_si256(at.add(i)) };
                *a = _mm256_sub_epi8(*a, _mm256_cmpgt_epi8(zero, x));
            }
        }
        let sums = acc.into_iter().fold(zero, |sum, a| {
            _mm256_add_epi64(sum, _mm256_sad_epu8(a, zero))
        });
        let sums = _mm_add_epi64(
            _mm256_castsi256_si128(sums),
            _mm256_extracti128_si256::<1>(sums),
        );
        let (lo, hi) = (
            _mm_cvtsi128_si64(sums),
            _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)),
        );
        // (Each half at most 8 · 255 · 4: no wrapping.)
        total = total.wrapping_add(lo as u64).wrapping_add(hi as u64);
    }
    total as usize
}

/// [`non_ascii_mask`] in one 32-byte `movemask`.
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn non_ascii_mask_avx2(a: &[u8; BLOCK]) -> u32 {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_movemask_epi8};
    // SAFETY: the CPU has AVX2 (the caller's contract); the load reads the block's 32 bytes,
    // and unaligned loads are allowed.
    unsafe { _mm256_movemask_epi8(_mm256_loadu_si256(a.as_ptr().cast::<__m256i>())) as u32 }
}

/// Bit `i` set where `a[i] == byte`.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn byte_mask(a: &[u8; BLOCK], byte: u8) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; each load reads 16 bytes inside a 32-byte
    // array (offsets 0 and 16), and unaligned loads are allowed.
    unsafe {
        let b = _mm_set1_epi8(byte as i8);
        let a0 = _mm_loadu_si128(a.as_ptr().cast::<__m128i>());
        let a1 = _mm_loadu_si128(a.as_ptr().add(16).cast::<__m128i>());
        let lo = _mm_movemask_epi8(_mm_cmpeq_epi8(a0, b)) as u32 & 0xffff;
        let hi = _mm_movemask_epi8(_mm_cmpeq_epi8(a1, b)) as u32 & 0xffff;
        lo | (hi << 16)
    }
}

/// Bit `i` set where `a[i] == byte` (portable form).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn byte_mask(a: &[u8; BLOCK], byte: u8) -> u32 {
    eq_mask_naive(a, &[byte; BLOCK])
}

/// Bit `i` set where `a[i]` is a byte Go's JSON encoder may escape: a control byte, `"`, `\\`,
/// `<`, `>`, `&`, or 0xE2 (the lead byte of U+2028 and U+2029).
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn json_escape_mask(a: &[u8; BLOCK]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; each load reads 16 bytes inside a 32-byte
    // array (offsets 0 and 16), and unaligned loads are allowed.
    unsafe {
        let half = |x: __m128i| {
            let eq = |c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
            // `min(x, 0x1f) == x`: x <= 0x1f, unsigned.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
            let any = _mm_or_si128(
                _mm_or_si128(
                    _mm_or_si128(control, eq(b'"')),
                    _mm_or_si128(eq(b'\\'), eq(b'<')),
                ),
                _mm_or_si128(_mm_or_si128(eq(b'>'), eq(b'&')), eq(0xe2)),
            );
            _mm_movemask_epi8(any) as u32 & 0xffff
        };
        let a0 = _mm_loadu_si128(a.as_ptr().cast::<__m128i>());
        let a1 = _mm_loadu_si128(a.as_ptr().add(16).cast::<__m128i>());
        half(a0) | (half(a1) << 16)
    }
}

/// Bit `i` set where `a[i]` is a byte Go's JSON encoder may escape (portable form).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn json_escape_mask(a: &[u8; BLOCK]) -> u32 {
    json_escape_mask_naive(a)
}

/// The naive oracle of [`json_escape_mask`].
#[cfg(any(test, not(target_arch = "x86_64")))]
fn json_escape_mask_naive(a: &[u8; BLOCK]) -> u32 {
    let mut m = 0;
    for (i, &c) in a.iter().enumerate() {
        if c < 0x20 || matches!(c, b'"' | b'\\' | b'<' | b'>' | b'&' | 0xe2) {
            m |= 1 << i;
        }
    }
    m
}

/// Bits set where a byte of the block is an ASCII digit, and where it is `.`.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn digit_dot_masks(a: &[u8; BLOCK]) -> (u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_set1_epi8,
        _mm_sub_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline; each load reads 16 bytes inside a 32-byte
    // array (offsets 0 and 16), and unaligned loads are allowed.
    unsafe {
        let zero = _mm_set1_epi8(b'0' as i8);
        let nine = _mm_set1_epi8(9);
        let dot = _mm_set1_epi8(b'.' as i8);
        let mut digits = 0u32;
        let mut dots = 0u32;
        for half in 0..2 {
            // (`half` is 0 or 1: the products and shifts below stay small.)
            let shift = 16u32.wrapping_mul(half as u32);
            let x = _mm_loadu_si128(a.as_ptr().add(shift as usize).cast::<__m128i>());
            let y = _mm_sub_epi8(x, zero);
            let is_digit = _mm_cmpeq_epi8(_mm_min_epu8(y, nine), y);
            let d = _mm_movemask_epi8(is_digit) as u32 & 0xffff;
            let p = _mm_movemask_epi8(_mm_cmpeq_epi8(x, dot)) as u32 & 0xffff;
            digits |= d << shift;
            dots |= p << shift;
        }
        (digits, dots)
    }
}

/// Bits set where a byte of the block is an ASCII digit, and where it is `.` (portable form).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn digit_dot_masks(a: &[u8; BLOCK]) -> (u32, u32) {
    digit_dot_masks_naive(a)
}

/// True when `text` is a plain decimal: an optional sign, digits with at most one `.`, and at
/// least one digit (`12`, `-0.5`, `3.`, `.25`) — the form go-cty writes for numbers that do
/// not fit a float64. Every such text is valid in Go's `ParseFloat` grammar, and ASCII. (Other
/// texts may still be valid: exponents, `Inf`; the caller checks them in full.)
pub(crate) fn is_plain_decimal(text: &[u8]) -> bool {
    let rest = match text.split_first() {
        Some((b'+' | b'-', rest)) => rest,
        _ => text,
    };
    let mut dots = 0u32;
    for chunk in rest.chunks(BLOCK) {
        let mut padded = [b'0'; BLOCK];
        let block = match chunk.first_chunk::<BLOCK>() {
            Some(block) => block,
            None => {
                let tail = padded.get_mut(..chunk.len()).unwrap_or_default();
                tail.copy_from_slice(chunk);
                &padded
            }
        };
        let (digits, dot) = digit_dot_masks(block);
        if digits | dot != u32::MAX {
            return false;
        }
        dots = dots.saturating_add(dot.count_ones());
    }
    dots <= 1 && rest.len() > dots as usize
}

/// True when every byte is ASCII: 32-byte blocks at a time, the tail word-at-a-time.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(BLOCK);
    let mut high = 0u32;
    for block in &mut blocks {
        if let Some(block) = block.first_chunk::<BLOCK>() {
            high |= non_ascii_mask(block);
        }
    }
    high == 0 && blocks.remainder().is_ascii()
}

/// True when `bytes` are UTF-8: ASCII checked a block at a time first (most text), the
/// rest by simdutf8.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    is_ascii(bytes) || simdutf8::basic::from_utf8(bytes).is_ok()
}

/// The mask of the first `n` bytes of a block (`n <= 32`).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn first(n: usize) -> u32 {
    // `n <= 32`: a 64-bit shift of at most 32, then truncated.
    ((1u64 << (n & 63)).wrapping_sub(1)) as u32
}

#[cfg(any(test, not(target_arch = "x86_64")))]
fn eq_mask_naive(a: &[u8; BLOCK], b: &[u8; BLOCK]) -> u32 {
    let mut m = 0u32;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        m |= u32::from(x == y) << i;
    }
    m
}

#[cfg(any(test, not(target_arch = "x86_64")))]
fn non_ascii_mask_naive(a: &[u8; BLOCK]) -> u32 {
    let mut m = 0u32;
    for (i, x) in a.iter().enumerate() {
        m |= u32::from(*x >= 0x80) << i;
    }
    m
}

#[cfg(any(test, not(target_arch = "x86_64")))]
fn digit_dot_masks_naive(a: &[u8; BLOCK]) -> (u32, u32) {
    let (mut d, mut p) = (0u32, 0u32);
    for (i, x) in a.iter().enumerate() {
        d |= u32::from(x.is_ascii_digit()) << i;
        p |= u32::from(*x == b'.') << i;
    }
    (d, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_masks_equal_the_naive_oracle() {
        for a in blocks() {
            assert_eq!(BaselineMask.non_ascii(&a), non_ascii_mask_naive(&a));
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                let avx2 = unsafe { Avx2Mask::new() };
                assert_eq!(avx2.non_ascii(&a), non_ascii_mask_naive(&a));
            }
        }
    }

    /// The lane counts of runs of groups, of every length around the lanes' sums and with
    /// bytes of every value, equal the naive count, with both masks the CPU has.
    #[test]
    fn group_counts_equal_the_naive_count() {
        fn check<M: AsciiMask>(masks: M) {
            let mut seed = 0x9a0b_u64;
            let lens = [0, 1, 2, 3, 126, 127, 128, 254, 255, 256, 300, 520];
            let lens = if cfg!(miri) { &lens[..7] } else { &lens[..] };
            for &len in lens {
                let groups: Vec<[u8; GROUP]> = (0..len)
                    .map(|_| std::array::from_fn(|_| crate::test_rng::next(&mut seed) as u8))
                    .collect();
                let naive = groups.iter().flatten().filter(|b| **b >= 0x80).count();
                assert_eq!(masks.count_non_ascii(&groups), naive, "{len} groups");
                // Every byte 0xff: each lane at its most, summed in time.
                let full = vec![[0xff; GROUP]; len];
                assert_eq!(masks.count_non_ascii(&full), len * GROUP, "{len} groups");
            }
        }
        check(BaselineMask);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            check(unsafe { Avx2Mask::new() });
        }
    }

    #[test]
    fn digit_dot_masks_equal_the_naive_oracle() {
        for a in blocks() {
            assert_eq!(digit_dot_masks(&a), digit_dot_masks_naive(&a));
        }
        let mut b = [b'0'; BLOCK];
        b[3] = b'.';
        b[9] = b'/';
        b[10] = b':';
        b[31] = b'9';
        assert_eq!(digit_dot_masks(&b), digit_dot_masks_naive(&b));
    }

    #[test]
    fn json_escape_mask_equals_the_naive_oracle() {
        for a in blocks() {
            assert_eq!(json_escape_mask(&a), json_escape_mask_naive(&a));
        }
        // Every byte value at every position.
        for c in 0..=255u8 {
            for at in [0, 15, 16, 31] {
                let mut a = [b'a'; BLOCK];
                a[at] = c;
                assert_eq!(
                    json_escape_mask(&a),
                    json_escape_mask_naive(&a),
                    "{c:#x} at {at}"
                );
            }
        }
    }

    #[test]
    fn plain_decimals_are_valid_decimals() {
        let cases: &[&[u8]] = &[
            b"0",
            b"12",
            b"-0.5",
            b"+3.",
            b".25",
            b".",
            b"",
            b"-",
            b"1.2.3",
            b"1e5",
            b"Inf",
            b"12a",
            b"\xff1",
            b"0123456789012345678901234567890123456789.0123456789",
            b"1111111111111111111111111111111.",
            b"11111111111111111111111111111111.1",
            b"1111111111111111111111111111111111111111111111111111111111111111.",
        ];
        for &c in cases {
            let plain = is_plain_decimal(c);
            if plain {
                assert!(crate::number::is_valid_decimal(c), "{c:?}");
            }
            let naive = {
                let r = c
                    .strip_prefix(b"-")
                    .or_else(|| c.strip_prefix(b"+"))
                    .unwrap_or(c);
                let dots = r.iter().filter(|&&b| b == b'.').count();
                r.iter().all(|b| b.is_ascii_digit() || *b == b'.') && dots <= 1 && r.len() > dots
            };
            assert_eq!(plain, naive, "{c:?}");
        }
    }

    fn blocks() -> Vec<[u8; BLOCK]> {
        let mut out = vec![[0u8; BLOCK], [0xff; BLOCK], [0x7f; BLOCK], [0x80; BLOCK]];
        let mut x = 0x9e37_79b9_u32;
        for _ in 0..crate::test_rng::rounds(200, 12) {
            let mut b = [0u8; BLOCK];
            for byte in &mut b {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *byte = (x >> 8) as u8 & if x & 1 == 0 { 0x7f } else { 0xff };
            }
            out.push(b);
        }
        out
    }

    #[test]
    fn masks_equal_the_naive_oracle() {
        let all = blocks();
        for a in &all {
            assert_eq!(non_ascii_mask(a), non_ascii_mask_naive(a));
            for byte in [0u8, b'\\', b'"', 0x80, 0xff] {
                assert_eq!(byte_mask(a, byte), eq_mask_naive(a, &[byte; BLOCK]));
            }
            for b in all.iter().take(crate::test_rng::rounds(20, 3)) {
                let mut c = *a;
                c[..16].copy_from_slice(&b[..16]);
                assert_eq!(eq_mask(a, b), eq_mask_naive(a, b));
                assert_eq!(eq_mask(a, &c), eq_mask_naive(a, &c));
            }
        }
    }

    #[test]
    fn is_ascii_equals_std() {
        for len in 0..crate::test_rng::rounds(100, 40) {
            let mut v = vec![b'a'; len];
            assert!(is_ascii(&v));
            for i in 0..len {
                v[i] = 0x80;
                assert!(!is_ascii(&v), "{len} {i}");
                v[i] = b'a';
            }
        }
    }

    #[test]
    fn first_n() {
        assert_eq!(first(0), 0);
        assert_eq!(first(1), 1);
        assert_eq!(first(31), 0x7fff_ffff);
        assert_eq!(first(32), u32::MAX);
    }
}
