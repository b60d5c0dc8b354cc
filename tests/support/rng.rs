//! A small deterministic generator (xorshift64*) for the tests that draw random cases: a
//! failure replays from its seed.

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// An index into a slice of `len` elements (0 when it is empty).
    #[allow(dead_code)] // (not every test that includes this module picks indexes)
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}
