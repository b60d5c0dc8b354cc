//! The end of a JSON container found by counting brackets outside strings, 64 bytes at a
//! time, for a unit that is read (and checked) afterwards: the resources of a state split
//! among workers, the instances of types a state walk does not want (`crate::state`). The
//! masks of quotes, backslashes and brackets are those of `extent.rs` (simdjson's method),
//! from the classifier of the CPU's [`Level`](super::simd::Level) (AVX-512BW or AVX2, with
//! the strings' prefix XOR by one carry-less multiplication where the CPU has PCLMULQDQ, else
//! the baseline classifier and shifts); a block's brackets are visited one by one only when
//! its closing brackets could close the container. No nesting limit, nothing recorded,
//! nothing checked.

#[cfg(target_arch = "x86_64")]
use super::extent::Clmul;
use super::extent::{Masks64, Shifts, StringState};
use super::simd::{Isa, Level};

/// The end of the container opening at `at` (after its closing bracket); `None` when `buf`
/// ends first or `at` opens nothing.
pub(super) fn container_end_counted(buf: &[u8], at: usize) -> Option<usize> {
    container_end_counted_at(Level::current(), buf, at)
}

/// [`container_end_counted`] with the classifier of `level` (which the CPU has: a `Level`
/// is made only so).
pub(super) fn container_end_counted_at(level: Level, buf: &[u8], at: usize) -> Option<usize> {
    if !matches!(buf.get(at), Some(b'[' | b'{')) {
        return None;
    }
    match level.isa() {
        // (Every AVX2 CPU made has PCLMULQDQ; checked all the same: the check is cached.)
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("pclmulqdq") => {
            // SAFETY: a `Level` is made only for an instruction set the CPU has, and
            // PCLMULQDQ was checked just now.
            unsafe { counted_avx512(buf, at) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 if std::arch::is_x86_feature_detected!("pclmulqdq") => {
            // SAFETY: as above (AVX-512BW implies AVX2).
            unsafe { counted_avx2(buf, at) }
        }
        _ => counted_baseline(buf, at),
    }
}

/// The scan, over a classifier expression `$classify(block) -> Masks64` and a
/// [`PrefixXor`](super::extent::PrefixXor) `$prefix`.
macro_rules! counted_blocks {
    ($buf:ident, $at:ident, $classify:expr, $prefix:ty) => {{
        // Containers open; at most the bytes read, so it cannot overflow.
        let mut open: u64 = 1;
        let mut i = $at.wrapping_add(1);
        let mut state = StringState::default();
        while let Some(block) = $buf.get(i..).and_then(|s| s.first_chunk::<64>()) {
            let m: Masks64 = $classify(block);
            let inside = state.strings::<$prefix>(block, &m);
            let (opens, closes) = (m.open & !inside, m.close & !inside);
            let closing = u64::from(closes.count_ones());
            if closing < open {
                // The container stays open through this block.
                open = open
                    .wrapping_add(u64::from(opens.count_ones()))
                    .wrapping_sub(closing);
            } else {
                // The depth after each closing bracket, in order: the containers open before
                // the block, plus the opening brackets before it, minus the closing ones up
                // to it. (No branch on the kind of each bracket.)
                let mut rest = closes;
                let mut closed: u64 = 0;
                while rest != 0 {
                    let k = rest.trailing_zeros();
                    let below = (1u64 << k).wrapping_sub(1);
                    closed = closed.wrapping_add(1);
                    let depth = open
                        .wrapping_add(u64::from((opens & below).count_ones()))
                        .wrapping_sub(closed);
                    if depth == 0 {
                        return Some(i.wrapping_add(k as usize).wrapping_add(1));
                    }
                    // Clears the lowest set bit (`rest != 0`).
                    rest &= rest.wrapping_sub(1);
                }
                open = open
                    .wrapping_add(u64::from(opens.count_ones()))
                    .wrapping_sub(closing);
            }
            i = i.wrapping_add(64);
        }
        // The tail, byte by byte.
        while let Some(&c) = $buf.get(i) {
            if !state.step(c) {
                match c {
                    b'[' | b'{' => open = open.wrapping_add(1),
                    b']' | b'}' => {
                        open = open.wrapping_sub(1);
                        if open == 0 {
                            return Some(i.wrapping_add(1));
                        }
                    }
                    _ => {}
                }
            }
            i = i.wrapping_add(1);
        }
        None
    }};
}

fn counted_baseline(buf: &[u8], at: usize) -> Option<usize> {
    counted_blocks!(buf, at, Masks64::of, Shifts)
}

/// The scan with the AVX2 classifier, strings by a carry-less multiplication.
///
/// # Safety
/// The CPU supports AVX2 (and so POPCNT, which every AVX2 CPU has) and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,pclmulqdq")]
unsafe fn counted_avx2(buf: &[u8], at: usize) -> Option<usize> {
    counted_blocks!(buf, at, classify_avx2, Clmul)
}

/// The scan with the AVX-512BW classifier, strings by a carry-less multiplication.
///
/// # Safety
/// The CPU supports AVX-512BW (and so POPCNT) and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,popcnt,pclmulqdq")]
unsafe fn counted_avx512(buf: &[u8], at: usize) -> Option<usize> {
    counted_blocks!(buf, at, classify_avx512, Clmul)
}

/// [`Masks64::of`]'s masks with AVX2 (two 32-byte halves).
///
/// # Safety
/// A safe `#[target_feature]` function: callers without the feature enabled must call it in
/// an `unsafe` block, having made sure that the CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn classify_avx2(block: &[u8; 64]) -> Masks64 {
    use std::arch::x86_64::*;
    let mut m = Masks64 {
        quote: 0,
        backslash: 0,
        open: 0,
        close: 0,
    };
    for (k, half) in block.chunks_exact(32).enumerate() {
        // SAFETY: `half` is 32 bytes (`chunks_exact(32)`), and the load is unaligned.
        let v = unsafe { _mm256_loadu_si256(half.as_ptr().cast::<__m256i>()) };
        let lane = |x: __m256i| u64::from(_mm256_movemask_epi8(x) as u32);
        // '[' 0x5b, ']' 0x5d, '{' 0x7b, '}' 0x7d: clear bit 5, then match 0x5b or 0x5d.
        let folded = _mm256_and_si256(v, _mm256_set1_epi8(!0x20u8 as i8));
        // `k < 2`: a shift of 0 or 32 bits.
        let shift = k.wrapping_mul(32);
        m.quote |= lane(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8))) << shift;
        m.backslash |= lane(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8))) << shift;
        m.open |= lane(_mm256_cmpeq_epi8(folded, _mm256_set1_epi8(0x5b))) << shift;
        m.close |= lane(_mm256_cmpeq_epi8(folded, _mm256_set1_epi8(0x5d))) << shift;
    }
    m
}

/// [`Masks64::of`]'s masks with AVX-512BW (one compare each).
///
/// # Safety
/// A safe `#[target_feature]` function: callers without the feature enabled must call it in
/// an `unsafe` block, having made sure that the CPU supports AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn classify_avx512(block: &[u8; 64]) -> Masks64 {
    use std::arch::x86_64::*;
    // SAFETY: `block` is 64 bytes, and the load is unaligned.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
    let folded = _mm512_and_si512(v, _mm512_set1_epi8(!0x20u8 as i8));
    Masks64 {
        quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
        backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
        open: _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8(0x5b)),
        close: _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8(0x5d)),
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::super::extent::byte_walk_end;
    use super::*;

    /// The counted container end against a byte-by-byte walk (memchr style) on random
    /// bracket-, quote- and backslash-heavy input of random lengths, at every level.
    #[test]
    fn counted_ends_match_a_byte_walk() {
        let alphabet = *br#"[]{}\"aaa ,:"#;
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || crate::test_rng::next(&mut rng);
        for _ in 0..crate::test_rng::rounds(3_000, 30) {
            let len = (next() % 400) as usize;
            let opens = next() % 4;
            let mut b: Vec<u8> = (0..len)
                .map(|_| match next() % 8 {
                    // Deep runs of opening brackets, so that blocks open more than they close.
                    0 if opens > 0 => b'[',
                    _ => alphabet[(next() % alphabet.len() as u64) as usize],
                })
                .collect();
            if let Some(first) = b.first_mut() {
                *first = b'{';
            }
            for level in Level::all_available() {
                assert_eq!(
                    container_end_counted_at(level, &b, 0),
                    byte_walk_end(&b),
                    "{level:?} {:?}",
                    String::from_utf8_lossy(&b)
                );
            }
        }
    }
}
