//! The state's bytes asked of memory ahead of the walk ([`Ahead`]): a software prefetch of
//! the cache lines up to 8 KiB past the unit being read. A state file streams from memory
//! once, and the hardware's prefetchers do not cross a 4 KiB page: without this, each
//! instance's first bytes waited on memory (`perf annotate`: the straight DUMP's first loads
//! of each window were its hottest instructions), and `tfwire state --jobs 1` on a 330 MB
//! state took 14–31% longer at the median of interleaved rounds (its fastest rounds the
//! same: `perf/optimizations.md`, F36).

/// How far ahead of the unit being read the lines are asked for.
const AHEAD: usize = 8192;

/// A cache line's bytes.
const LINE: usize = 64;

/// How far the lines of a buffer have been asked for.
#[derive(Debug, Default)]
pub(super) struct Ahead {
    /// The lines before this position (of the current buffer) have been asked for.
    done: usize,
}

impl Ahead {
    /// Asks for the lines of `buf` from `at` (the unit about to be read) to `AHEAD` bytes
    /// past it that were not asked for yet: after a unit of a few hundred bytes, a few lines.
    #[inline]
    pub(super) fn before(&mut self, buf: &[u8], at: usize) {
        let end = at.saturating_add(AHEAD).min(buf.len());
        let mut k = self.done.max(at);
        while k < end {
            prefetch(buf, k);
            k = k.saturating_add(LINE);
        }
        self.done = self.done.max(k);
    }

    /// The buffer's bytes moved (a refill): nothing of it asked for yet.
    pub(super) fn moved(&mut self) {
        self.done = 0;
    }
}

/// Asks for the cache line of `buf[k]` (nothing past `buf`'s end).
#[inline(always)]
fn prefetch(buf: &[u8], k: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(b) = buf.get(k) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch only hints the cache, never faults and writes nothing; the
        // pointer is to a byte of `buf` (SSE, which has it, is part of the x86-64 baseline).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(b).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (buf, k);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines asked for reach `AHEAD` bytes past the unit, each line once, never past the
    /// buffer (buffers of every length around the distance, under Miri too); a buffer that
    /// moved is asked for again from the unit.
    #[test]
    fn lines_are_asked_for_ahead_once_and_within_the_buffer() {
        let big = vec![7u8; 3 * AHEAD + 100];
        let step = if cfg!(miri) { 997 } else { 61 };
        for len in (0..big.len()).step_by(step) {
            let buf = &big[..len];
            let mut ahead = Ahead::default();
            let mut last = 0;
            for at in (0..=len).step_by(step.max(150)) {
                ahead.before(buf, at);
                // (Every line from `at` to `AHEAD` past it, or to the buffer's end.)
                assert!(ahead.done >= (at + AHEAD).min(len), "{len} {at}");
                assert!(
                    ahead.done < (at + AHEAD).min(len).max(last) + LINE,
                    "{len} {at}"
                );
                last = ahead.done;
            }
            ahead.moved();
            assert_eq!(ahead.done, 0);
            ahead.before(buf, 0);
            assert_eq!(ahead.done, AHEAD.min(len).div_ceil(LINE) * LINE);
        }
    }
}
