//! The bare MessagePack skip-walk: the floor under every msgpack decoder in `tfwire bench`.
//! It steps over one value's bytes, marker by marker, building nothing and checking nothing
//! (no UTF-8, no types, no ext codes): what any decoder must at least do to find the end of a
//! value. No decoder reaches its speed; the target is a fraction of it.
//!
//! Shared by `src/cli/bench.rs` and the criterion bench `benches/msgpack.rs` (`#[path]`);
//! checked against rmpv by `tests/skip_walk.rs`.

/// The length of the one MessagePack value at the start of `buf`, or `None` if it is
/// truncated or holds the reserved byte 0xc1.
pub fn skip_walk(buf: &[u8]) -> Option<usize> {
    let mut pos = 0usize;
    // Values still to step over (array elements, map keys and values).
    let mut pending: u64 = 1;
    let be = |at: usize, n: usize| -> Option<usize> {
        let bytes = buf.get(at..at.checked_add(n)?)?;
        Some(bytes.iter().fold(0usize, |acc, b| acc << 8 | *b as usize))
    };
    while pending > 0 {
        pending -= 1;
        let m = *buf.get(pos)?;
        pos += 1;
        let skip = match m {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => 0,
            0x80..=0x8f => {
                pending += 2 * (m & 0x0f) as u64;
                0
            }
            0x90..=0x9f => {
                pending += (m & 0x0f) as u64;
                0
            }
            0xa0..=0xbf => (m & 0x1f) as usize,
            0xc4 | 0xd9 => 1 + be(pos, 1)?,
            0xc5 | 0xda => 2 + be(pos, 2)?,
            0xc6 | 0xdb => 4 + be(pos, 4)?,
            0xc7 => 2 + be(pos, 1)?,
            0xc8 => 3 + be(pos, 2)?,
            0xc9 => 5 + be(pos, 4)?,
            0xcc | 0xd0 => 1,
            0xcd | 0xd1 => 2,
            0xca | 0xce | 0xd2 => 4,
            0xcb | 0xcf | 0xd3 => 8,
            0xd4 => 2,
            0xd5 => 3,
            0xd6 => 5,
            0xd7 => 9,
            0xd8 => 17,
            0xdc | 0xdd => {
                let width = if m == 0xdc { 2 } else { 4 };
                pending += be(pos, width)? as u64;
                width
            }
            0xde | 0xdf => {
                let width = if m == 0xde { 2 } else { 4 };
                pending += 2 * be(pos, width)? as u64;
                width
            }
            0xc1 => return None,
        };
        pos = pos.checked_add(skip)?;
    }
    (pos <= buf.len()).then_some(pos)
}
