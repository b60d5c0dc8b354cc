//! The bare skip-walk of `tfwire bench` (`src/cli/skip_walk.rs`) finds the end of a value
//! exactly where rmpv does, and fails on every truncation.

#[path = "../src/cli/skip_walk.rs"]
mod skip_walk;

use skip_walk::skip_walk;

/// Checked against rmpv, which reads the same value.
fn rmpv_len(buf: &[u8]) -> Option<usize> {
    let mut rd = buf;
    rmpv::decode::read_value_ref(&mut rd).ok()?;
    Some(buf.len() - rd.len())
}

#[test]
fn finds_the_end_of_every_value_as_rmpv_does() {
    let example = include_bytes!("data/example/aws_security_group.msgpack");
    assert_eq!(skip_walk(example), Some(example.len()));
    let samples: [&[u8]; 9] = [
        b"\xc0",
        b"\x93\x01\xa1x\xc3",
        b"\x82\xa1a\x90\xa1b\x80",
        b"\xdc\x00\x02\xcb\0\0\0\0\0\0\0\0\xd9\x03abc",
        b"\xdf\x00\x00\x00\x01\xc4\x01z\xc7\x02\x0c\x81\xc0",
        b"\xd4\x00\x00",
        b"\x92\xd8\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\xcf\0\0\0\0\0\0\0\x01",
        b"\x91\xc9\x00\x00\x00\x01\x05\xff",
        b"\xdd\x00\x00\x00\x01\xda\x00\x01q",
    ];
    for s in samples {
        assert_eq!(skip_walk(s), rmpv_len(s), "{s:02x?}");
        assert_eq!(skip_walk(s), Some(s.len()), "{s:02x?}");
        for cut in 0..s.len() {
            assert_eq!(skip_walk(&s[..cut]), None, "{s:02x?} cut at {cut}");
        }
    }
    assert_eq!(skip_walk(b"\x91\xc1"), None);
    // A hostile count fails at the end of the input, without allocating.
    assert_eq!(skip_walk(b"\xdd\xff\xff\xff\xff\xc0"), None);
}
