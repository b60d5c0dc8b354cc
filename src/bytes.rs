//! Byte-mask primitives over 32-byte blocks, the building blocks of the executors' fast
//! paths: which bytes of two blocks are equal, which bytes of a block are not ASCII. SSE2 on
//! x86_64 (part of its baseline, so no run-time detection is needed), a portable loop
//! elsewhere; tests check both against a naive oracle.

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

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks() -> Vec<[u8; BLOCK]> {
        let mut out = vec![[0u8; BLOCK], [0xff; BLOCK], [0x7f; BLOCK], [0x80; BLOCK]];
        let mut x = 0x9e37_79b9_u32;
        for _ in 0..200 {
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
            for b in all.iter().take(20) {
                let mut c = *a;
                c[..16].copy_from_slice(&b[..16]);
                assert_eq!(eq_mask(a, b), eq_mask_naive(a, b));
                assert_eq!(eq_mask(a, &c), eq_mask_naive(a, &c));
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
