//! The two-stage skip against the careful one (`skip.rs`) on valid and mutated containers,
//! the AVX-512 classifier against the naive one, and examples of what it accepts and leaves
//! to the careful skip.

#![allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)

use super::super::skip::skip;
use super::*;
use bumpalo::collections::Vec as BumpVec;

/// The skip of every classifier this CPU runs: the naive one, and AVX-512BW's.
fn skips(b: &[u8], depth: usize) -> Vec<(&'static str, Option<usize>)> {
    let max = u32::try_from(depth).unwrap().min(MAX_NESTING);
    let mut all = vec![("scalar", skip_scalar(b, 0, max))];
    #[cfg(target_arch = "x86_64")]
    if Level::all_available()
        .iter()
        .any(|l| l.isa() == Isa::Avx512)
        && std::arch::is_x86_feature_detected!("pclmulqdq")
    {
        // SAFETY: the CPU has AVX-512BW and PCLMULQDQ (checked above).
        all.push(("avx512", unsafe { skip_avx512(b, 0, max) }));
    }
    all
}

fn careful_end(b: &[u8], depth: usize) -> Option<usize> {
    let bump = bumpalo::Bump::new();
    let mut stack = BumpVec::new_in(&bump);
    skip(b, 0, &mut stack, depth, 512).ok()
}

/// A random JSON value: containers, keys, escapes, numbers, literals, non-ASCII text.
fn value(next: &mut impl FnMut() -> u64, depth: u32, out: &mut Vec<u8>) {
    const STRINGS: [&str; 9] = [
        "",
        "a",
        "name",
        "é",
        "日本",
        r#"q\"q"#,
        r"\\",
        r"\u00e9\n",
        r"\ud83d\ude00",
    ];
    const SCALARS: [&str; 8] = ["0", "-1", "12.5e3", "true", "false", "null", "1E-2", "7"];
    let ws = |next: &mut dyn FnMut() -> u64, out: &mut Vec<u8>| {
        if next().is_multiple_of(4) {
            out.extend_from_slice([" ", "\n  ", "\t", "\r\n"][(next() % 4) as usize].as_bytes());
        }
    };
    match next() % if depth == 0 { 3 } else { 5 } {
        0 => {
            out.push(b'"');
            for _ in 0..next() % 4 {
                out.extend_from_slice(STRINGS[(next() % 9) as usize].as_bytes());
            }
            if next().is_multiple_of(3) {
                out.extend(std::iter::repeat_n(b'x', (next() % 90) as usize));
            }
            out.push(b'"');
        }
        1 | 2 => out.extend_from_slice(SCALARS[(next() % 8) as usize].as_bytes()),
        3 => {
            out.push(b'[');
            for k in 0..next() % 6 {
                if k > 0 {
                    out.push(b',');
                }
                ws(next, out);
                value(next, depth - 1, out);
                ws(next, out);
            }
            out.push(b']');
        }
        _ => {
            out.push(b'{');
            for k in 0..next() % 6 {
                if k > 0 {
                    out.push(b',');
                }
                ws(next, out);
                out.extend_from_slice(format!("\"k{}\"", next() % 50).as_bytes());
                ws(next, out);
                out.push(b':');
                ws(next, out);
                value(next, depth - 1, out);
                ws(next, out);
            }
            out.push(b'}');
        }
    }
}

/// On valid containers every level finds the careful skip's end; on the same containers
/// with a byte changed, removed or doubled, whatever a level accepts the careful skip
/// accepts with the same end (memchr's naive-oracle style).
#[test]
fn accepts_only_what_the_careful_skip_accepts() {
    let mut rng = 0x853c_49e6_748f_ea9bu64;
    let mut next = || crate::test_rng::next(&mut rng);
    let nasty = *b"\"\\{}[]:, \n\x01\x7fu0aeE.-+\xc3\xa9\xff";
    let mut accepted = 0;
    for round in 0..crate::test_rng::rounds(4_000, 10) {
        let mut b = Vec::new();
        while !matches!(b.first(), Some(b'[' | b'{')) {
            b.clear();
            // (Under Miri, shallower containers: Tree Borrows took over 10 minutes at 6.)
            value(&mut next, if cfg!(miri) { 3 } else { 6 }, &mut b);
        }
        let depth = if round % 7 == 0 { 3 } else { 512 };
        let want = careful_end(&b, depth);
        for (level, got) in skips(&b, depth) {
            let text = String::from_utf8_lossy(&b);
            assert!(got.is_none() || got == want, "{level} {text:?}");
            if depth == 512 {
                assert_eq!(got, want, "{level} {text:?}");
            }
        }
        accepted += usize::from(want.is_some());
        // Mutants.
        for _ in 0..8 {
            let mut m = b.clone();
            let k = (next() % m.len() as u64) as usize;
            match next() % 3 {
                0 => m[k] = nasty[(next() % nasty.len() as u64) as usize],
                1 => {
                    m.remove(k);
                }
                _ => m.insert(k, m[k]),
            }
            if m.first().is_none_or(|c| !matches!(c, b'[' | b'{')) {
                continue;
            }
            let want = careful_end(&m, depth);
            for (level, got) in skips(&m, depth) {
                let text = String::from_utf8_lossy(&m);
                assert!(
                    got.is_none() || got == want,
                    "{level} {got:?} {want:?} {text:?}"
                );
            }
        }
    }
    assert!(accepted > 0);
}

#[test]
fn classifiers_equal_the_naive_one() {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..crate::test_rng::rounds(2_000, 20) {
        let mut block = [0u8; 64];
        for b in block.iter_mut() {
            *b = crate::test_rng::next(&mut rng) as u8;
        }
        let want = classify_scalar(&block);
        #[cfg(target_arch = "x86_64")]
        if Level::all_available()
            .iter()
            .any(|l| l.isa() == Isa::Avx512)
        {
            // SAFETY: the CPU has AVX-512BW (checked above).
            assert_eq!(unsafe { classify_avx512(&block) }, want);
        }
    }
}

#[test]
fn examples() {
    let cases: [(&str, Option<usize>); 12] = [
        (r#"{"a":[1,"\u00e9"]} ,next"#, Some(18)),
        (r#"{"a":[1,]}"#, None),
        (r#"[1 2]"#, None),
        (r#"{"a" 1}"#, None),
        (r#"["\q"]"#, None),
        (r#"["\ud800"]"#, None),
        (r#"["\ud83d\ude00"]"#, Some(16)),
        ("[\"\x01\"]", None),
        (r#"[1x]"#, None),
        (r#"[tru]"#, None),
        (r#"[[[]]]"#, Some(6)),
        (r#"[[[]]"#, None),
    ];
    let deep = "[".repeat(64) + &"]".repeat(64);
    let deeper = "[".repeat(65) + &"]".repeat(65);
    let cases = cases.iter().map(|&(text, want)| (text, 512, want)).chain([
        (deep.as_str(), 512, Some(128)),
        (&deep, 63, None),
        (&deeper, 512, None),
    ]);
    for (text, depth, want) in cases {
        for (level, got) in skips(text.as_bytes(), depth) {
            assert_eq!(got, want, "{level} {text}");
        }
    }
}
