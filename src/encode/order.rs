//! The order go-cty writes a map in: keys sorted bytewise, a key the wire repeated written
//! once, with its last value (go-cty's map holds only that one). Shared by both encoders.
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects)]

use crate::value::Value;

/// Pushes the indices of `entries` in go-cty's order onto the end of `order` (a scratch
/// shared by the maps open on the recursion: each pushes its run after its parent's and
/// truncates back to `base` when done) and returns `base`, where this map's run starts.
/// An unstable sort by key and then index: no allocation once the scratch is warm.
pub(super) fn sorted_keys(entries: &[(&str, Value<'_>)], order: &mut Vec<u32>) -> usize {
    let key = |i: u32| {
        entries
            .get(i as usize)
            .map_or(&b""[..], |(k, _)| k.as_bytes())
    };
    let base = order.len();
    order.extend(0..entries.len() as u32);
    let Some(run) = order.get_mut(base..) else {
        return base;
    };
    if run.len() < 2 {
        return base;
    }
    run.sort_unstable_by(|a, b| key(*a).cmp(key(*b)).then(a.cmp(b)));
    // Keep the last index of each key: compact the run in place.
    let mut kept = 0;
    for j in 0..run.len() {
        let this = run.get(j).copied().unwrap_or(0);
        let next_same = run.get(j + 1).is_some_and(|&n| key(n) == key(this));
        if !next_same {
            if let Some(slot) = run.get_mut(kept) {
                *slot = this;
            }
            kept += 1;
        }
    }
    order.truncate(base + kept);
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_bytewise_last_repeat_kept_after_the_parent_run() {
        let v = |i| Value::Int(i);
        let entries = [
            ("b", v(0)),
            ("a", v(1)),
            ("é", v(2)),
            ("b", v(3)),
            ("Z", v(4)),
        ];
        let mut order = vec![7, 8];
        let base = sorted_keys(&entries, &mut order);
        assert_eq!(base, 2);
        assert_eq!(order, [7, 8, 4, 1, 3, 2]);
        let mut empty = Vec::new();
        assert_eq!(sorted_keys(&[], &mut empty), 0);
        assert!(empty.is_empty());
    }
}
