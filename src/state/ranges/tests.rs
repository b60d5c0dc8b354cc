//! Unit tests of when a state is read as a stream rather than in parts.

use super::*;

/// `n` parts of 4 MiB; `with` holds the indexes of the parts with a resource start. The
/// answer, and the parts searched in order.
fn spanned(n: u64, with: &[u64]) -> (bool, Vec<u64>) {
    let parts: Vec<Range<u64>> = (0..n).map(|k| k * (4 << 20)..(k + 1) * (4 << 20)).collect();
    let mut probed = Vec::new();
    let answer = resources_span_parts(&parts, |r| {
        assert_eq!(
            r.end - r.start,
            PROBE_BYTES,
            "only the part's first MiB is searched"
        );
        probed.push(r.start >> 22);
        with.contains(&(r.start >> 22))
    });
    (answer, probed)
}

#[test]
fn a_state_is_read_as_a_stream_when_most_parts_hold_no_resource_start() {
    // Ten parts: eight of the nine after the first searched, the answer known after
    // five with a resource start, or four without.
    assert_eq!(
        spanned(10, &[1, 2, 3, 4, 5, 6, 7, 8, 9]),
        (false, vec![1, 2, 3, 4, 5])
    );
    assert_eq!(spanned(10, &[]), (true, vec![1, 2, 3, 4]));
    assert_eq!(
        spanned(10, &[2, 4, 6, 8]),
        (true, vec![1, 2, 3, 4, 5, 6, 7])
    );
    assert_eq!(
        spanned(10, &[1, 2, 4, 6, 8]),
        (false, vec![1, 2, 3, 4, 5, 6, 7, 8])
    );
    // A hundred parts: the eight searched spread over the state.
    let all: Vec<u64> = (1..100).collect();
    assert_eq!(spanned(100, &all), (false, vec![1, 13, 25, 38, 50]));
    assert_eq!(spanned(100, &[]), (true, vec![1, 13, 25, 38]));
    // Two parts: the second decides.
    assert_eq!(spanned(2, &[1]), (false, vec![1]));
    assert_eq!(spanned(2, &[]), (true, vec![1]));
    // No part after the first: nothing to decide (the caller reads one part anyway).
    let one: Vec<Range<u64>> = std::iter::once(0..10).collect();
    assert!(!resources_span_parts(&one, |_| unreachable!()));
}
