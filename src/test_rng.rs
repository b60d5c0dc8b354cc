//! The unit tests' pseudo-random inputs (xorshift64 from a fixed seed per test, so every run
//! checks the same inputs), and their loop sizes under Miri.

/// Steps the xorshift64 state `x` (shifts 13, 7, 17) and returns the new value.
pub(crate) fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// `full` iterations, or `miri` under Miri (which runs about a thousand times slower): the
/// unit tests that Miri runs (`.ci/miri`, listed in `SAFETY.md`) shrink their loops with it.
pub(crate) const fn rounds(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}
