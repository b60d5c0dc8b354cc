//! Runs of an object's pairs in compact form (`"key":value,`), stepped over a 64-byte window
//! at a time: the window's quotes and its stop bytes (backslashes, control bytes, bytes not
//! ASCII) are classified once, and each pair is then found from the quote mask by bit steps —
//! no string scanned on its own, no load waiting on the last string's end. The values taken
//! are the plain ones that make up most of a state: a string of plain ASCII, `null`, `true`,
//! `false`, a non-negative integer without fraction or exponent, and the empty `[]` and `{}`,
//! each followed by a comma and the next key's quote, or by the object's `}` (which the run
//! takes too). A run stops at a key it cannot read (an escape, a byte not ASCII, whitespace
//! before the colon, a pair across the input's last 64 bytes), or after a plain key whose
//! value it does not take (any other value, or one followed by anything else), and the
//! caller's own loop reads on from there and, if the input is faulty, names the fault.
//! Everything stepped over is valid JSON as serde_json reads it. The classifiers serve the
//! straight DUMP's runs too (`dump/straight_run.rs`).

use super::simd::{Isa, Level};

/// Bytes classified at a time.
pub(crate) const WINDOW: usize = 64;

/// Where a run of pairs ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RunEnd {
    /// At the opening quote of a key the run did not read (or at whatever byte stands where
    /// a key should): the caller reads the pair.
    Key(usize),
    /// At the value of a pair whose key (plain, quoted, with its colon) the run read, when
    /// the value is not one it steps over, or is not followed by a comma and a key's quote
    /// or by `}`; the value may be anything, or faulty, and the caller reads it.
    Value(usize),
    /// After the `}` that closes the object, its last pair stepped over.
    Closed(usize),
}

/// How a run classifies its windows: an instruction set.
pub(crate) trait Classifier: Copy {
    /// The window's quotes and its stop bytes (`\`, bytes below 0x20, bytes from 0x80), bit
    /// `i` for byte `i`.
    fn masks(self, w: &[u8; WINDOW]) -> (u64, u64);
}

/// The classifier for code not compiled for AVX2 (the straight DUMP's runs,
/// `dump/straight_run.rs`): SSE2, inlined, unless `TFWIRE_SIMD=scalar` chose the byte loop,
/// so that the JSON suite runs both.
#[derive(Clone, Copy)]
pub(crate) struct Inlined {
    portable: bool,
}

impl Inlined {
    /// The classifier for the level in use.
    pub(crate) fn current() -> Inlined {
        Inlined {
            portable: Level::current().isa() == Isa::Scalar,
        }
    }
}

impl Classifier for Inlined {
    #[inline(always)]
    fn masks(self, w: &[u8; WINDOW]) -> (u64, u64) {
        if self.portable {
            window_masks_naive(w)
        } else {
            window_masks(w)
        }
    }
}

/// The classifier every CPU has: SSE2 on x86-64 (its baseline), a byte loop elsewhere.
#[derive(Clone, Copy)]
pub(crate) struct Baseline;

impl Classifier for Baseline {
    #[inline(always)]
    fn masks(self, w: &[u8; WINDOW]) -> (u64, u64) {
        window_masks(w)
    }
}

/// The byte loop (the scalar level, `TFWIRE_SIMD=scalar`, and the oracle of the others).
#[derive(Clone, Copy)]
pub(crate) struct Portable;

impl Classifier for Portable {
    #[inline(always)]
    fn masks(self, w: &[u8; WINDOW]) -> (u64, u64) {
        window_masks_naive(w)
    }
}

/// The AVX2 classifier: a value exists only where the CPU has AVX2 ([`Avx2::new`]).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Avx2(());

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// The AVX2 classifier.
    ///
    /// # Safety
    /// The CPU supports AVX2.
    pub(super) unsafe fn new() -> Avx2 {
        Avx2(())
    }
}

#[cfg(target_arch = "x86_64")]
impl Classifier for Avx2 {
    #[inline(always)]
    fn masks(self, w: &[u8; WINDOW]) -> (u64, u64) {
        // SAFETY: an `Avx2` is made only where the CPU has AVX2 (`Avx2::new`).
        unsafe { window_masks_avx2(w) }
    }
}

/// Steps over the pairs of an object in compact form from `at` (after `{` or a comma, where
/// a key's quote should be: anything else ends the run at once) while each is a pair with a
/// plain key and a plain value followed by a comma or the object's `}`; `empty` says whether
/// `[]` and `{}` may be stepped over (not at the depth limit); `classifier` classifies the
/// windows. Returns where the run ends and the number of pairs stepped over (not counting the
/// one whose value [`RunEnd::Value`] leaves to the caller).
#[inline(always)]
pub(super) fn compact_pairs<C: Classifier>(
    buf: &[u8],
    mut at: usize,
    empty: bool,
    classifier: C,
) -> (RunEnd, u32) {
    let mut pairs = 0u32;
    while let Some(w) = buf.get(at..).and_then(|s| s.first_chunk::<WINDOW>()) {
        let (quotes, stops) = classifier.masks(w);
        let (taken, n, end) = window_pairs(w, quotes, stops, empty);
        pairs = pairs.wrapping_add(n);
        // Positions in the window (at most 64): within `buf`'s length.
        match end {
            WindowEnd::Pair if taken > 0 => at = at.wrapping_add(taken),
            WindowEnd::Pair => break,
            WindowEnd::Value(v) => return (RunEnd::Value(at.wrapping_add(v)), pairs),
            WindowEnd::Closed(c) => return (RunEnd::Closed(at.wrapping_add(c)), pairs),
        }
    }
    (RunEnd::Key(at), pairs)
}

/// Where the pairs of one window end (positions in the window).
#[derive(Clone, Copy)]
enum WindowEnd {
    /// At a pair not read (the window may end before it).
    Pair,
    /// [`RunEnd::Value`].
    Value(usize),
    /// [`RunEnd::Closed`].
    Closed(usize),
}

/// The pairs of window `w` from its start: bytes taken (the position of the first pair not
/// stepped over), pairs stepped over, and how they end; `quotes` and `stops` are the window's
/// masks.
#[inline(always)]
fn window_pairs(
    w: &[u8; WINDOW],
    mut quotes: u64,
    stops: u64,
    empty: bool,
) -> (usize, u32, WindowEnd) {
    // Positions below are at most 65 (`trailing_zeros` of an empty mask is 64): no overflow.
    // Every byte before `limit` is plain ASCII outside the stop bytes.
    let limit = stops.trailing_zeros() as usize;
    let mut p = 0usize;
    let mut n = 0u32;
    // (A key's quote first.)
    if quotes & 1 == 0 {
        return (p, n, WindowEnd::Pair);
    }
    loop {
        // The key: the quote at `p` (the lowest left in `quotes`: every quote before it was
        // taken, and a pair taken ends with a quote at its next `p`) and the next one, plain,
        // then the colon.
        debug_assert_eq!(quotes.trailing_zeros() as usize, p);
        quotes &= quotes.wrapping_sub(1);
        let key_end = quotes.trailing_zeros() as usize;
        quotes &= quotes.wrapping_sub(1);
        if key_end >= limit || w.get(key_end.wrapping_add(1)) != Some(&b':') {
            break;
        }
        let v = key_end.wrapping_add(2);
        let after = match w.get(v) {
            // (That quote is the lowest left: `v - 1` is the colon after the key's.)
            Some(b'"') => {
                quotes &= quotes.wrapping_sub(1);
                let end = quotes.trailing_zeros() as usize;
                quotes &= quotes.wrapping_sub(1);
                if end == WINDOW && p > 0 {
                    // (Past the window: the pair again from the next window's start.)
                    break;
                }
                // (Longer than a window, or a stop byte before the closing quote.)
                if end >= limit {
                    return (p, n, WindowEnd::Value(v));
                }
                end.wrapping_add(1)
            }
            Some(b'n') if w.get(v..v.wrapping_add(4)) == Some(b"null") => v.wrapping_add(4),
            Some(b't') if w.get(v..v.wrapping_add(4)) == Some(b"true") => v.wrapping_add(4),
            Some(b'f') if w.get(v..v.wrapping_add(5)) == Some(b"false") => v.wrapping_add(5),
            Some(b'0') => v.wrapping_add(1),
            Some(b'1'..=b'9') => {
                let mut e = v.wrapping_add(1);
                while w.get(e).is_some_and(u8::is_ascii_digit) {
                    e = e.wrapping_add(1);
                }
                e
            }
            Some(b'[') if empty && w.get(v.wrapping_add(1)) == Some(&b']') => v.wrapping_add(2),
            Some(b'{') if empty && w.get(v.wrapping_add(1)) == Some(&b'}') => v.wrapping_add(2),
            // (Perhaps a plain value cut by the window's end: from the next window's start.)
            _ if p > 0 && v.wrapping_add(6) > WINDOW => break,
            _ => return (p, n, WindowEnd::Value(v)),
        };
        // The value's end (strings: their closing quote before any stop byte), then a comma
        // and the next key's quote, or the object's end.
        match w.get(after) {
            Some(b',') if w.get(after.wrapping_add(1)) == Some(&b'"') => {
                n = n.wrapping_add(1);
                p = after.wrapping_add(1);
            }
            Some(b'}') => {
                return (
                    p,
                    n.wrapping_add(1),
                    WindowEnd::Closed(after.wrapping_add(1)),
                );
            }
            _ if p > 0 && after.wrapping_add(2) > WINDOW => break,
            // (The value's end seen, what follows not: the value again by the caller.)
            _ => return (p, n, WindowEnd::Value(v)),
        }
    }
    (p, n, WindowEnd::Pair)
}

/// The window's quotes and its stop bytes (`\`, bytes below 0x20, bytes from 0x80), bit `i`
/// for byte `i`.
#[cfg(target_arch = "x86_64")]
#[cfg_attr(not(debug_assertions), inline(always))]
fn window_masks(w: &[u8; WINDOW]) -> (u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    let mut quotes = 0u64;
    let mut stops = 0u64;
    for (k, part) in w.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of the x86_64 baseline; `part` is 16 bytes long, and
        // unaligned loads are allowed.
        let (q, s) = unsafe {
            let x = _mm_loadu_si128(part.as_ptr().cast::<__m128i>());
            let q = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            // `min(x, 0x1f) == x`: x <= 0x1f, unsigned.
            let control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
            let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            // (A byte from 0x80 has its high bit set, as the compares' matches have.)
            let s = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(control, backslash), x));
            (_mm_movemask_epi8(q), s)
        };
        // (Each mask holds 16 bits; `k` < 4.)
        let shift = k.wrapping_mul(16) as u32;
        quotes |= u64::from(q as u16) << shift;
        stops |= u64::from(s as u16) << shift;
    }
    (quotes, stops)
}

/// [`window_masks`] with two 32-byte AVX2 compares of each kind.
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn window_masks_avx2(w: &[u8; WINDOW]) -> (u64, u64) {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8,
    };
    // SAFETY: the CPU has AVX2 (the caller's contract); the loads read the window's two
    // halves (offsets 0 and 32 of 64 bytes), and unaligned loads are allowed.
    unsafe {
        let lo = _mm256_loadu_si256(w.as_ptr().cast::<__m256i>());
        let hi = _mm256_loadu_si256(w.as_ptr().add(32).cast::<__m256i>());
        let quote = _mm256_set1_epi8(b'"' as i8);
        let backslash = _mm256_set1_epi8(b'\\' as i8);
        let top_control = _mm256_set1_epi8(0x1f);
        // (No closure: a closure would not inherit the target feature.)
        let q_lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, quote)) as u32;
        let q_hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, quote)) as u32;
        // `min(x, 0x1f) == x`: x <= 0x1f, unsigned; a byte from 0x80 has its high bit set.
        let s_lo = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_cmpeq_epi8(_mm256_min_epu8(lo, top_control), lo),
                _mm256_cmpeq_epi8(lo, backslash),
            ),
            lo,
        );
        let s_hi = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_cmpeq_epi8(_mm256_min_epu8(hi, top_control), hi),
                _mm256_cmpeq_epi8(hi, backslash),
            ),
            hi,
        );
        let s_lo = _mm256_movemask_epi8(s_lo) as u32;
        let s_hi = _mm256_movemask_epi8(s_hi) as u32;
        (
            u64::from(q_lo) | u64::from(q_hi) << 32,
            u64::from(s_lo) | u64::from(s_hi) << 32,
        )
    }
}

/// The window's quotes and its stop bytes (without SSE2: a byte at a time).
#[cfg(not(target_arch = "x86_64"))]
fn window_masks(w: &[u8; WINDOW]) -> (u64, u64) {
    window_masks_naive(w)
}

/// [`window_masks`] a byte at a time (its oracle).
fn window_masks_naive(w: &[u8; WINDOW]) -> (u64, u64) {
    let (mut quotes, mut stops) = (0u64, 0u64);
    for (i, &b) in w.iter().enumerate() {
        quotes |= u64::from(b == b'"') << i;
        stops |= u64::from(b == b'\\' || !(0x20..0x80).contains(&b)) << i;
    }
    (quotes, stops)
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;
    use crate::test_rng::{next, rounds};

    /// Whether `b` is a byte a plain string may hold.
    fn plain(b: u8) -> bool {
        b != b'\\' && b != b'"' && (0x20..0x80).contains(&b)
    }

    /// The closing quote of the plain string whose opening quote is at `open` in `w`, if
    /// the window holds it and every byte before it is plain.
    fn plain_end(w: &[u8], open: usize) -> Option<usize> {
        let mut i = open + 1;
        while i < w.len() && plain(w[i]) {
            i += 1;
        }
        (i < w.len() && w[i] == b'"').then_some(i)
    }

    /// [`compact_pairs`] a byte at a time, windows and all: the oracle.
    fn naive(buf: &[u8], mut at: usize, empty: bool) -> (RunEnd, u32) {
        let mut pairs = 0u32;
        'windows: while buf.len() >= at + WINDOW {
            let w = &buf[at..at + WINDOW];
            let mut p = 0;
            while let Some(key_end) = (w.get(p) == Some(&b'"')).then(|| plain_end(w, p)).flatten() {
                if w.get(key_end + 1) != Some(&b':') {
                    break;
                }
                let v = key_end + 2;
                let value = RunEnd::Value(at + v);
                let after = match w.get(v) {
                    Some(b'"') => match plain_end(w, v) {
                        Some(end) => end + 1,
                        None if p > 0 && !w[v + 1..].contains(&b'"') => break,
                        None => return (value, pairs),
                    },
                    _ if w[v..].starts_with(b"null") || w[v..].starts_with(b"true") => v + 4,
                    _ if w[v..].starts_with(b"false") => v + 5,
                    Some(b'0') => v + 1,
                    Some(b'1'..=b'9') => {
                        let digits = w[v..].iter().take_while(|b| b.is_ascii_digit()).count();
                        v + digits
                    }
                    _ if empty && (w[v..].starts_with(b"[]") || w[v..].starts_with(b"{}")) => v + 2,
                    _ if p > 0 && v + 6 > WINDOW => break,
                    _ => return (value, pairs),
                };
                match (w.get(after), w.get(after + 1)) {
                    (Some(b','), Some(b'"')) => {
                        pairs += 1;
                        p = after + 1;
                    }
                    (Some(b'}'), _) => return (RunEnd::Closed(at + after + 1), pairs + 1),
                    _ if p > 0 && after + 2 > WINDOW => break,
                    _ => return (value, pairs),
                }
            }
            if p == 0 {
                break 'windows;
            }
            at += p;
        }
        (RunEnd::Key(at), pairs)
    }

    #[test]
    fn window_masks_match_the_oracle() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut w = [0u8; WINDOW];
        for _ in 0..rounds(20_000, 50) {
            for b in &mut w {
                // Mostly the bytes that matter, some of any value.
                let r = next(&mut x);
                *b = match r % 8 {
                    0 => b'"',
                    1 => b'\\',
                    2 => (r >> 8) as u8 & 0x3f,
                    3 => 0x7f + ((r >> 8) as u8 & 3),
                    _ => (r >> 8) as u8,
                };
            }
            assert_eq!(window_masks(&w), window_masks_naive(&w), "{w:?}");
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just now).
                let avx2 = unsafe { Avx2::new() };
                assert_eq!(avx2.masks(&w), window_masks_naive(&w), "{w:?}");
            }
        }
    }

    /// Pieces of objects: keys, values and what follows them, plain and not.
    const KEYS: [&str; 9] = [
        "\"id\":",
        "\"\":",
        "\"instance_type\":",
        "\"a_rather_long_attribute_name_of_forty_bytes\":",
        "\"k\" :",
        "\"e\\u00e9\":",
        "\"caf\u{e9}\":",
        "\"tab\t\":",
        "\"x\"",
    ];
    const VALUES: [&str; 24] = [
        "\"v\"",
        "\"\"",
        "\"t3.nano\"",
        "\"arn:aws:ec2:eu-west-3:047081014315:instance/i-0d3650a23f4e45dc0\"",
        "\"esc\\\"aped\"",
        "\"h\u{e9}\"",
        "null",
        "true",
        "false",
        "nul",
        "0",
        "01",
        "7",
        "100",
        "1.5",
        "-1",
        "2e3",
        "[]",
        "{}",
        "[1]",
        "{\"a\":1}",
        " \"v\"",
        "[ ]",
        "tru",
    ];
    const AFTER: [&str; 6] = [",", ",", ",", "}", ", ", "]"];

    #[test]
    fn runs_match_the_oracle() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for round in 0..rounds(20_000, 40) {
            let mut s = String::new();
            let pairs = next(&mut x) % 12;
            for _ in 0..=pairs {
                let r = next(&mut x);
                // Plain pieces most of the time, so that runs get long.
                let key = if r.is_multiple_of(4) {
                    KEYS[(r >> 8) as usize % KEYS.len()]
                } else {
                    KEYS[(r >> 8) as usize % 4]
                };
                let value = if r.is_multiple_of(3) {
                    VALUES[(r >> 16) as usize % VALUES.len()]
                } else {
                    VALUES[(r >> 16) as usize % 4]
                };
                let after = if r.is_multiple_of(5) {
                    AFTER[(r >> 24) as usize % AFTER.len()]
                } else {
                    ","
                };
                s.push_str(key);
                s.push_str(value);
                s.push_str(after);
            }
            // Room for the windows, and a pad that moves the input across them.
            let pad = " ".repeat(round % 7);
            let buf = format!("{pad}{s}{}", " ".repeat(WINDOW));
            let at = pad.len();
            let empty = round % 3 != 0;
            let b = buf.as_bytes();
            assert_eq!(
                compact_pairs(b, at, empty, Baseline),
                naive(b, at, empty),
                "{buf}"
            );
        }
    }

    #[test]
    fn runs_end_where_they_must() {
        let run = |s: &str, empty: bool| {
            let buf = format!("{s}{}", " ".repeat(WINDOW));
            compact_pairs(buf.as_bytes(), 0, empty, Baseline)
        };
        // Every plain kind of value, then the object's end.
        let all = r#""a":"x","b":null,"c":true,"d":false,"e":0,"f":123,"g":[],"h":{}}"#;
        assert_eq!(run(all, true), (RunEnd::Closed(all.len()), 8));
        // At the depth limit the empty containers are the caller's.
        assert_eq!(run(all, false), (RunEnd::Value(54), 6));
        // A container, a float, whitespace, an escape: left at the value or the key.
        assert_eq!(run(r#""a":1,"b":[1],"#, true), (RunEnd::Value(10), 1));
        assert_eq!(run(r#""a":1,"b":1.5,"#, true), (RunEnd::Value(10), 1));
        assert_eq!(run(r#""a":1,"b": 1,"#, true), (RunEnd::Value(10), 1));
        assert_eq!(run(r#""a":1,"b\"":1,"#, true), (RunEnd::Key(6), 1));
        assert_eq!(run(r#""a":1, "b":1,"#, true), (RunEnd::Value(4), 0));
        // A value past the window's end, and pairs across windows.
        let long = format!(r#""a":"{}","b":1,"#, "x".repeat(70));
        assert_eq!(run(&long, true), (RunEnd::Value(4), 0));
        let many = r#""key":"value","#.repeat(20);
        let (end, n) = run(&format!("{many}\"z\":0}}"), true);
        assert_eq!((end, n), (RunEnd::Closed(many.len() + 6), 21));
    }
}
