//! Where one MessagePack value ends, found without decoding it: the framing of concatenated
//! MessagePack values. A resumable skip-walk (marker by marker, a count of values still to
//! step over, no recursion): when the bytes run out it says so and remembers where the value
//! it was in started, so that a value arriving in many reads is walked once in all, not once
//! per read.

/// What the walk found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extent {
    /// The value is this many bytes long.
    Complete(usize),
    /// The value runs past the bytes given: read more and call again.
    Incomplete,
    /// The reserved byte 0xc1 at this offset: no MessagePack value is there.
    Invalid(usize),
}

/// The walk's state: where the next element starts and how many elements remain.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ExtentScan {
    pos: usize,
    pending: u64,
}

impl ExtentScan {
    /// A walk from the start of a value.
    pub(crate) fn new() -> ExtentScan {
        ExtentScan { pos: 0, pending: 1 }
    }

    /// Goes on over `buf` (the value's bytes so far, from its first byte).
    pub(crate) fn resume(&mut self, buf: &[u8]) -> Extent {
        let be = |at: usize, n: usize| -> Option<u64> {
            let bytes = buf.get(at..at.checked_add(n)?)?;
            Some(bytes.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b)))
        };
        while self.pending > 0 {
            let at = self.pos;
            let Some(&m) = buf.get(at) else {
                return Extent::Incomplete;
            };
            // (`at` indexes a byte of `buf`: cannot wrap.)
            let body = at.wrapping_add(1);
            // (`None` below: the element's header is not all here yet.)
            let (header, skip, more): (usize, Option<u64>, u64) = match m {
                0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (0, Some(0), 0),
                0x80..=0x8f => (0, Some(0), 2 * u64::from(m & 0x0f)),
                0x90..=0x9f => (0, Some(0), u64::from(m & 0x0f)),
                0xa0..=0xbf => (0, Some(u64::from(m & 0x1f)), 0),
                0xc4 | 0xd9 => (1, be(body, 1), 0),
                0xc5 | 0xda => (2, be(body, 2), 0),
                0xc6 | 0xdb => (4, be(body, 4), 0),
                0xc7 => (2, be(body, 1), 0),
                0xc8 => (3, be(body, 2), 0),
                0xc9 => (5, be(body, 4), 0),
                0xcc | 0xd0 => (0, Some(1), 0),
                0xcd | 0xd1 => (0, Some(2), 0),
                0xca | 0xce | 0xd2 => (0, Some(4), 0),
                0xcb | 0xcf | 0xd3 => (0, Some(8), 0),
                0xd4 => (0, Some(2), 0),
                0xd5 => (0, Some(3), 0),
                0xd6 => (0, Some(5), 0),
                0xd7 => (0, Some(9), 0),
                0xd8 => (0, Some(17), 0),
                0xdc => match be(body, 2) {
                    Some(n) => (2, Some(0), n),
                    None => (2, None, 0),
                },
                0xdd => match be(body, 4) {
                    Some(n) => (4, Some(0), n),
                    None => (4, None, 0),
                },
                0xde => match be(body, 2) {
                    Some(n) => (2, Some(0), n.saturating_mul(2)),
                    None => (2, None, 0),
                },
                0xdf => match be(body, 4) {
                    Some(n) => (4, Some(0), n.saturating_mul(2)),
                    None => (4, None, 0),
                },
                0xc1 => return Extent::Invalid(at),
            };
            let Some(skip) = skip else {
                return Extent::Incomplete;
            };
            // The element ends here; its bytes need not be here yet for the walk to go on,
            // but it only moves past what is here, so a claimed length is never trusted.
            let end = u64::try_from(body)
                .unwrap_or(u64::MAX)
                .saturating_add(header as u64)
                .saturating_add(skip);
            if end > buf.len() as u64 {
                return Extent::Incomplete;
            }
            self.pos = end as usize;
            // (Claims add up without wrapping: a stream of headers that claim more than
            // 2^64 elements saturates, and ends truncated.)
            self.pending = self.pending.saturating_sub(1).saturating_add(more);
        }
        Extent::Complete(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every prefix of a value is incomplete, the whole is complete, and fed in pieces the
    /// walk agrees with one pass.
    #[test]
    fn prefixes_and_pieces() {
        // {"a": [1, "xyz", nil], "b": bin8(2), "c": ext8 len 3} then a trailing byte.
        let v = [
            0x83, 0xa1, b'a', 0x93, 0x01, 0xa3, b'x', b'y', b'z', 0xc0, 0xa1, b'b', 0xc4, 0x02, 0,
            0, 0xa1, b'c', 0xc7, 0x03, 0x0c, 1, 2, 3, 0x2a,
        ];
        let n = v.len() - 1;
        for cut in 0..n {
            assert_eq!(
                ExtentScan::new().resume(&v[..cut]),
                Extent::Incomplete,
                "{cut}"
            );
        }
        assert_eq!(ExtentScan::new().resume(&v), Extent::Complete(n));
        for step in 1..n {
            let mut scan = ExtentScan::new();
            let mut got = Extent::Incomplete;
            let mut len = 0;
            while got == Extent::Incomplete {
                len = (len + step).min(v.len());
                got = scan.resume(&v[..len]);
            }
            assert_eq!(got, Extent::Complete(n), "step {step}");
        }
        assert_eq!(
            ExtentScan::new().resume(&[0x92, 0x01, 0xc1]),
            Extent::Invalid(2)
        );
        // A hostile length is a wait for bytes, never trusted.
        assert_eq!(
            ExtentScan::new().resume(&[0xdb, 0xff, 0xff, 0xff, 0xff, b'a']),
            Extent::Incomplete
        );
        assert_eq!(
            ExtentScan::new().resume(&[0xdf, 0xff, 0xff, 0xff, 0xff, 0x01]),
            Extent::Incomplete
        );
    }
}
