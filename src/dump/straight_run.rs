//! The shape the straight DUMP checks a value against ([`Node`], made from a type by
//! `straight.rs`), and its fast path through an object's pairs in compact form: runs of
//! `"name":value,` stepped over a 64-byte window at a time ([`compact_run`]), the window's
//! quotes and stop bytes classified once (the skip's classifiers, `decode/json/pairs.rs`).
//!
//! A run takes a pair only when its key is the next attribute's, compact (`"name":`, as
//! go-cty writes it), and its value one the straight DUMP copies as it is: `null`, a string
//! of plain ASCII (no escape, no control byte, within `max_string_len`) for a string
//! attribute, `true` or `false` for a bool, a non-negative integer of at most 18 digits for a
//! number, `[]` for a list or set and `{}` for a map (empty: nothing to charge against the
//! limits); each followed by a comma and the next key's quote, or by the object's `}`. Such a
//! pair's DUMP is its input, so a run writes nothing: the caller's copy goes on over it. Any
//! other pair ends the run, and the caller's loop reads it token by token as before (and
//! gives up where that gives up), so a run never takes what the token-by-token walk would
//! not.

use crate::decode::json::pairs::{Classifier, WINDOW};
use crate::program::key::AttrEntry;

/// What the straight DUMP checks at one place of the type.
pub(super) enum Node {
    String,
    Number,
    Bool,
    /// `dynamic` and tuples: only `null` is taken.
    NullOnly,
    /// A list or a set.
    Items(Box<Node>),
    Map(Box<Node>),
    /// The attributes' keys (the executors' pre-encoded keys) and parts, in the type's order.
    Object(Box<[(AttrEntry, Node)]>),
}

/// Where a run of an object's pairs ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Run {
    /// At `at`, where a key should be and the run read none (the caller reads it), the
    /// attributes before `next` read.
    Key { at: usize, next: usize },
    /// At the value of attribute `k`, whose key and colon the run read: the caller reads the
    /// value (which may be anything, whitespace first too) and what follows it.
    Value { at: usize, k: usize },
    /// At the object's `}`, the attributes before `next` read.
    Closed { brace: usize, next: usize },
}

/// The most digits of an integer a run takes: any such integer fits `i64`, which the
/// token-by-token walk copies as it is (`plain_integer`).
const MAX_DIGITS: usize = 18;

/// The pairs of an object of `attrs` from `at` (where a key should be, after `{` or a comma)
/// while each is the next attribute's from `next` on, in compact form, with a value the DUMP
/// copies as it is (see the module docs); `classifier` classifies the windows.
#[inline(always)]
pub(super) fn compact_run<C: Classifier>(
    buf: &[u8],
    mut at: usize,
    attrs: &[(AttrEntry, Node)],
    mut next: usize,
    max_string_len: usize,
    classifier: C,
) -> Run {
    // Positions in a window are at most 65 (`trailing_zeros` of an empty mask is 64), and
    // `at` plus one of them is within `buf`: no overflow.
    while let Some(w) = buf.get(at..).and_then(|s| s.first_chunk::<WINDOW>()) {
        if w.first() != Some(&b'"') {
            break;
        }
        let (mut quotes, stops) = classifier.masks(w);
        // Every byte before `limit` is plain ASCII outside the stop bytes.
        let limit = stops.trailing_zeros() as usize;
        // The pair's key at `p`: its quote is the lowest left in `quotes` (every quote before
        // it was taken, and a pair taken ends with the next key's quote).
        let mut p = 0usize;
        let cut = loop {
            let Some((entry, node)) = attrs.get(next) else {
                return Run::Key {
                    at: at.wrapping_add(p),
                    next,
                };
            };
            // (A name past `max_string_len` fails the walk: it reads the key.)
            let Some(after) = entry
                .match_json_compact(buf, at.wrapping_add(p))
                .filter(|_| entry.json_quoted_len().saturating_sub(2) <= max_string_len)
            else {
                return Run::Key {
                    at: at.wrapping_add(p),
                    next,
                };
            };
            // The value's first byte in the window (the key's name has no quote: those that
            // need escapes have no compact form).
            let v = after.wrapping_sub(at);
            if v >= WINDOW.wrapping_sub(5) {
                break p;
            }
            quotes &= quotes.wrapping_sub(1);
            quotes &= quotes.wrapping_sub(1);
            let value = Run::Value { at: after, k: next };
            let at_v = |len: usize| w.get(v..v.wrapping_add(len));
            let end = match (w.get(v), node) {
                (Some(b'n'), _) if at_v(4) == Some(b"null") => v.wrapping_add(4),
                (Some(b'"'), Node::String) => {
                    quotes &= quotes.wrapping_sub(1);
                    let close = quotes.trailing_zeros() as usize;
                    quotes &= quotes.wrapping_sub(1);
                    if close == WINDOW {
                        break p;
                    }
                    // (A stop byte before the closing quote, or a string too long.)
                    if close >= limit || close.wrapping_sub(v).wrapping_sub(1) > max_string_len {
                        return value;
                    }
                    close.wrapping_add(1)
                }
                (Some(b't'), Node::Bool) if at_v(4) == Some(b"true") => v.wrapping_add(4),
                (Some(b'f'), Node::Bool) if at_v(5) == Some(b"false") => v.wrapping_add(5),
                (Some(b'0'), Node::Number) => v.wrapping_add(1),
                (Some(b'['), Node::Items(_)) if at_v(2) == Some(b"[]") => v.wrapping_add(2),
                (Some(b'{'), Node::Map(_)) if at_v(2) == Some(b"{}") => v.wrapping_add(2),
                (Some(b'1'..=b'9'), Node::Number) => {
                    let rest = w.get(v..).unwrap_or_default();
                    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                    if v.wrapping_add(digits) == WINDOW {
                        break p;
                    }
                    if digits > MAX_DIGITS {
                        return value;
                    }
                    v.wrapping_add(digits)
                }
                _ => return value,
            };
            match (w.get(end), w.get(end.wrapping_add(1))) {
                (Some(b','), Some(b'"')) => {
                    next = next.wrapping_add(1);
                    p = end.wrapping_add(1);
                }
                (Some(b'}'), _) => {
                    return Run::Closed {
                        brace: at.wrapping_add(end),
                        next: next.wrapping_add(1),
                    }
                }
                // (What follows is past the window: the pair again from the next one.)
                (Some(b','), None) | (None, _) => break p,
                _ => return value,
            }
        };
        if cut == 0 {
            // (A pair longer than a window: the walk reads it.)
            break;
        }
        at = at.wrapping_add(cut);
    }
    Run::Key { at, next }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;
    use crate::decode::json::pairs::{Baseline, Portable};
    use crate::test_rng::{next, rounds};

    /// The attributes of the tests' objects: each kind of node, names short and long.
    fn attrs() -> Vec<(AttrEntry, Node)> {
        let names = [
            "id",
            "count",
            "on",
            "dyn",
            "a_rather_long_attribute_name_of_forty_b",
            "tags",
            "n",
            "ids",
            "s",
        ];
        names
            .iter()
            .map(|&name| {
                let node = match name {
                    "count" | "n" => Node::Number,
                    "on" => Node::Bool,
                    "dyn" => Node::NullOnly,
                    "tags" => Node::Map(Box::new(Node::String)),
                    "ids" => Node::Items(Box::new(Node::String)),
                    _ => Node::String,
                };
                (AttrEntry::key_only(name), node)
            })
            .collect()
    }

    /// The run without windows, a byte at a time: every pair it takes, the run may take;
    /// where the pairs are short, the run takes what this does.
    fn naive(
        buf: &[u8],
        mut at: usize,
        attrs: &[(AttrEntry, Node)],
        mut next: usize,
        max: usize,
    ) -> Run {
        loop {
            let Some((entry, node)) = attrs.get(next) else {
                return Run::Key { at, next };
            };
            let key = entry.json_key_with_colon().unwrap().as_bytes();
            if !buf[at..].starts_with(key) || key.len() - 3 > max {
                return Run::Key { at, next };
            }
            let v = at + key.len();
            let value = Run::Value { at: v, k: next };
            let rest = &buf[v..];
            let end = if rest.starts_with(b"null") {
                v + 4
            } else {
                match node {
                    Node::String if rest[0] == b'"' => {
                        let body = rest[1..]
                            .iter()
                            .take_while(|&&b| b != b'"' && b != b'\\' && (0x20..0x80).contains(&b))
                            .count();
                        if rest.get(1 + body) != Some(&b'"') || body > max {
                            return value;
                        }
                        v + body + 2
                    }
                    Node::Bool if rest.starts_with(b"true") => v + 4,
                    Node::Bool if rest.starts_with(b"false") => v + 5,
                    Node::Number if rest[0] == b'0' => v + 1,
                    Node::Items(_) if rest.starts_with(b"[]") => v + 2,
                    Node::Map(_) if rest.starts_with(b"{}") => v + 2,
                    Node::Number if rest[0].is_ascii_digit() => {
                        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                        if digits > MAX_DIGITS {
                            return value;
                        }
                        v + digits
                    }
                    _ => return value,
                }
            };
            match (buf.get(end), buf.get(end + 1)) {
                (Some(b','), Some(b'"')) => {
                    next += 1;
                    at = end + 1;
                }
                (Some(b'}'), _) => {
                    return Run::Closed {
                        brace: end,
                        next: next + 1,
                    }
                }
                _ => return value,
            }
        }
    }

    /// Pieces of the tests' pairs: values plain and not, what follows them.
    const VALUES: [&str; 25] = [
        "\"v\"",
        "\"\"",
        "\"i-0d3650a23f4e45dc0\"",
        "\"arn:aws:ec2:eu-west-3:047081014315:instance/i-0d3650a23f4e45dc0\"",
        "\"esc\\\"aped\"",
        "\"h\u{e9}\"",
        "null",
        "true",
        "false",
        "0",
        "01",
        "1234",
        "123456789012345678",
        "1234567890123456789",
        "1.5",
        "-1",
        "{}",
        "{\"k\":\"v\"}",
        " 7",
        "nul",
        "[]",
        "[\"a\"]",
        "[ ]",
        "{ }",
        "[",
    ];

    /// Runs over random pairs of the attributes (in order, some left out, some repeated or
    /// swapped), each classifier: the pairs taken are a prefix of the naive run's, and all of
    /// them where every pair is shorter than a window's reach.
    #[test]
    fn runs_take_what_the_naive_run_takes() {
        let attrs = attrs();
        let mut x = 0x51a1_647e_u64;
        let mut shortened = 0;
        for round in 0..rounds(20_000, 60) {
            let mut s = String::new();
            let mut k = 0;
            let mut short = true;
            while k < attrs.len() {
                let r = next(&mut x);
                // Mostly the next attribute, sometimes one left out or one again.
                k = match r % 16 {
                    0 => k + 1,
                    1 => k.saturating_sub(1),
                    _ => k,
                }
                .min(attrs.len() - 1);
                let name = attrs[k].0.json_key_with_colon().unwrap();
                let plain = match attrs[k].1 {
                    Node::String => VALUES[(r >> 8) as usize % 4],
                    Node::Number => VALUES[9 + (r >> 8) as usize % 4],
                    Node::Bool => VALUES[7 + (r >> 8) as usize % 2],
                    Node::Map(_) => VALUES[16 + (r >> 8) as usize % 2],
                    Node::Items(_) => VALUES[20 + (r >> 8) as usize % 2],
                    _ => "null",
                };
                let value = if r.is_multiple_of(5) {
                    VALUES[(r >> 16) as usize % VALUES.len()]
                } else {
                    plain
                };
                short &= name.len() + value.len() + 2 <= WINDOW - 6;
                s.push_str(name);
                s.push_str(value);
                k += 1;
                let last = k == attrs.len() || r.is_multiple_of(23);
                s.push_str(match (last, (r >> 24) % 17) {
                    (_, 0) => ", ",
                    (_, 1) => "]",
                    (true, _) => "}",
                    (false, _) => ",",
                });
                if last {
                    break;
                }
            }
            let pad = " ".repeat(round % 7);
            let buf = format!("{pad}{s}{}", " ".repeat(2 * WINDOW));
            let b = buf.as_bytes();
            let at = pad.len();
            let max = if round % 4 == 0 { 20 } else { usize::MAX };
            let want = naive(b, at, &attrs, 0, max);
            for got in [
                compact_run(b, at, &attrs, 0, max, Baseline),
                compact_run(b, at, &attrs, 0, max, Portable),
            ] {
                if short {
                    assert_eq!(got, want, "{buf}");
                    continue;
                }
                // A long pair may end a run early, at a pair's key the naive run took.
                if got != want {
                    let Run::Key { at: stop, next: n } = got else {
                        panic!("{got:?} against {want:?}: {buf}");
                    };
                    assert_eq!(naive(b, stop, &attrs, n, max), want, "{buf}");
                    shortened += 1;
                }
            }
        }
        assert!(shortened > 0 || cfg!(miri));
    }
}
