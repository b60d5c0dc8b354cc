//! The validating skip of a whole JSON value (an unknown attribute's, or a discarded one):
//! every string, number and literal checked as a decode would, without recursion and without
//! building anything. [`skip_whole`], for values that may be large (a whole document, a state's
//! values), tries the two-stage skip (`token_skip.rs`) on containers first where it is chosen
//! (`TFWIRE_JSON_SKIP=two-stage`); when that one is not sure, or not chosen, [`skip`] walks the
//! value and names any fault. [`skip`] steps over an object's compact pairs of plain values a
//! window at a time (`pairs.rs`) and over anything else a token at a time.

use super::counted::container_end_counted;
use super::number::number;
#[cfg(target_arch = "x86_64")]
use super::pairs::Avx2;
use super::pairs::{compact_pairs, Baseline, Classifier, Portable, RunEnd};
use super::scan::{bad_separator, colon, expected, literal, too_deep, unexpected, ws};
use super::simd::{Isa, Level};
use super::string::{check_string_body, scan_string};
use super::token_skip::container_end;
use crate::decode::common::Pending;
use bumpalo::collections::Vec as BumpVec;

/// [`skip`], with the two-stage skip first for a container of more than [`SMALL`] bytes.
pub(super) fn skip_whole(
    buf: &[u8],
    i: usize,
    stack: &mut BumpVec<'_, bool>,
    depth: usize,
    max_depth: u32,
) -> Result<usize, Pending> {
    let i = ws(buf, i);
    if !small(buf, i) {
        if let Some(end) = container_end(buf, i, depth) {
            return Ok(end);
        }
    }
    skip(buf, i, stack, depth, max_depth)
}

/// Bytes under which a container is skipped by [`skip`] alone: the two-stage skip's setup (a
/// whole block classified, the grammar's masks) costs more than it saves on less.
const SMALL: usize = 256;

/// Whether the value at `i` is a scalar, a string, or a container whose brackets close
/// within [`SMALL`] bytes (counted, not checked: four blocks of `counted.rs`'s scan).
#[inline]
fn small(buf: &[u8], i: usize) -> bool {
    if !matches!(buf.get(i), Some(b'[' | b'{')) {
        return true;
    }
    // (The scan starts after the bracket: four whole blocks.)
    let window = buf
        .get(..i.saturating_add(SMALL).saturating_add(1))
        .unwrap_or(buf);
    container_end_counted(window, i).is_some()
}

/// Skips the whole JSON value at `i` (whitespace allowed before it), validating it, without
/// recursion, a token at a time (strings a block at a time; an object's compact pairs of
/// plain values a window at a time, `pairs.rs`): `stack` (reused) holds one entry
/// per open container (`true` for an object). Opening more than `depth` containers is a
/// [`ErrorKind::Limit`] error (`max_depth` is the limit named in the message). Returns the
/// position after the value.
///
/// [`ErrorKind::Limit`]: crate::error::ErrorKind::Limit
pub(super) fn skip(
    buf: &[u8],
    i: usize,
    stack: &mut BumpVec<'_, bool>,
    depth: usize,
    max_depth: u32,
) -> Result<usize, Pending> {
    let limits = (depth, max_depth);
    match Level::current().isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 => {
            // SAFETY: a `Level` of AVX2 or above exists only on a CPU with AVX2, BMI1, BMI2
            // and LZCNT (`Level::all_available`).
            unsafe { skip_avx2(buf, i, stack, limits) }
        }
        // (`TFWIRE_SIMD=scalar`: no SIMD in the windows either.)
        Isa::Scalar => skip_body(buf, i, stack, limits, Portable),
        _ => skip_body(buf, i, stack, limits, Baseline),
    }
}

/// [`skip`] compiled for AVX2 (the window classification and the bit steps of `pairs.rs`
/// gain most: `perf/optimizations.md`, S43); `limits` is `(depth, max_depth)`.
///
/// # Safety
/// The CPU supports AVX2, BMI1, BMI2 and LZCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
unsafe fn skip_avx2(
    buf: &[u8],
    i: usize,
    stack: &mut BumpVec<'_, bool>,
    limits: (usize, u32),
) -> Result<usize, Pending> {
    // SAFETY: the CPU has AVX2 (this function's contract).
    let avx2 = unsafe { Avx2::new() };
    skip_body(buf, i, stack, limits, avx2)
}

/// The body of [`skip`], compiled once per instruction set (`classifier`'s for the windows
/// of pairs); `limits` is `(depth, max_depth)`.
#[inline(always)]
fn skip_body<C: Classifier>(
    buf: &[u8],
    mut i: usize,
    stack: &mut BumpVec<'_, bool>,
    limits: (usize, u32),
    classifier: C,
) -> Result<usize, Pending> {
    let (depth, max_depth) = limits;
    stack.clear();
    'value: loop {
        i = ws(buf, i);
        // (A string, most values of a state, tested first: a branch that predicts well
        // rather than the match's jump table.)
        if buf.get(i) == Some(&b'"') {
            i = skip_string(buf, i)?;
        } else {
            match buf.get(i) {
                Some(b'-' | b'0'..=b'9') => i = number(buf, i)?.0,
                Some(b't') => i = literal(buf, i, b"true")?,
                Some(b'f') => i = literal(buf, i, b"false")?,
                Some(b'n') => i = literal(buf, i, b"null")?,
                Some(&c @ (b'[' | b'{')) => {
                    if stack.len() >= depth {
                        return Err(too_deep(i, max_depth));
                    }
                    let object = c == b'{';
                    stack.push(object);
                    let open = i;
                    // (Steps over bytes just read: see `scan.rs` on positions.)
                    i = ws(buf, i.wrapping_add(1));
                    if buf.get(i) == Some(if object { &b'}' } else { &b']' }) {
                        stack.pop();
                        i = i.wrapping_add(1);
                    } else if object {
                        let compact = i == open.wrapping_add(1);
                        match object_pairs(buf, i, compact, stack.len() < depth, classifier)? {
                            Next::Value(v) => {
                                i = v;
                                continue 'value;
                            }
                            Next::Closed(c) => {
                                stack.pop();
                                i = c;
                            }
                        }
                    } else {
                        continue 'value;
                    }
                }
                _ => return Err(unexpected(buf, i)),
            }
        }
        // After a value: separators and closing brackets.
        loop {
            let Some(&object) = stack.last() else {
                return Ok(i);
            };
            i = ws(buf, i);
            let close = if object { b'}' } else { b']' };
            match buf.get(i) {
                Some(b',') => {
                    i = i.wrapping_add(1);
                    if object {
                        let compact = buf.get(i) == Some(&b'"');
                        match object_pairs(buf, i, compact, stack.len() < depth, classifier)? {
                            Next::Value(v) => i = v,
                            Next::Closed(c) => {
                                stack.pop();
                                i = c;
                                continue;
                            }
                        }
                    }
                    continue 'value;
                }
                Some(&c) if c == close => {
                    stack.pop();
                    i = i.wrapping_add(1);
                }
                _ => return Err(bad_separator(buf, i, close)),
            }
        }
    }
}

/// Where [`object_pairs`] leaves a skipped object.
enum Next {
    /// At a pair's value (its key read).
    Value(usize),
    /// After the object's `}`.
    Closed(usize),
}

/// The pairs of a skipped object from `i` (a key, after `{` or a comma; whitespace allowed
/// before it): in `compact` form (the key's quote right after the bracket or comma) a run of
/// plain pairs a window at a time (`pairs.rs`), then the key the run stops at, if any, read
/// here; `empty` says whether `[]` and `{}` are within the depth limit.
#[inline(always)]
fn object_pairs<C: Classifier>(
    buf: &[u8],
    i: usize,
    compact: bool,
    empty: bool,
    classifier: C,
) -> Result<Next, Pending> {
    let end = if compact {
        compact_pairs(buf, i, empty, classifier).0
    } else {
        RunEnd::Key(i)
    };
    Ok(match end {
        RunEnd::Key(k) => Next::Value(skip_key(buf, ws(buf, k))?),
        RunEnd::Value(v) => Next::Value(v),
        RunEnd::Closed(c) => Next::Closed(c),
    })
}

/// A key and its colon, in a skipped object.
#[cfg_attr(not(debug_assertions), inline(always))]
fn skip_key(buf: &[u8], i: usize) -> Result<usize, Pending> {
    if buf.get(i) != Some(&b'"') {
        return Err(expected(buf, i, "a string key"));
    }
    colon(buf, skip_string(buf, i)?)
}

/// [`skip`] of one value, with the scalars (a string first: most values stepped over,
/// unknown and unselected attributes) and the empty `[]` and `{}` taken inline, without the
/// general skip's call and stack; [`skip_whole`] is the other door, for values that may be
/// large.
#[inline(always)]
pub(super) fn skip_value(
    buf: &[u8],
    i: usize,
    stack: &mut BumpVec<'_, bool>,
    depth: usize,
    max_depth: u32,
) -> Result<usize, Pending> {
    let v = ws(buf, i);
    // (Strings first, by a branch of their own, as in `skip`.)
    if buf.get(v) == Some(&b'"') {
        return skip_string(buf, v);
    }
    match buf.get(v) {
        Some(b'n') => literal(buf, v, b"null"),
        Some(b'f') => literal(buf, v, b"false"),
        Some(b't') => literal(buf, v, b"true"),
        Some(b'-' | b'0'..=b'9') => Ok(number(buf, v)?.0),
        // An empty list or object in compact form (`[]`, `{}`: a container opened and
        // closed, within any depth limit that lets a value be skipped at all).
        Some(b'[') if buf.get(v.wrapping_add(1)) == Some(&b']') && depth > 0 => {
            Ok(v.wrapping_add(2))
        }
        Some(b'{') if buf.get(v.wrapping_add(1)) == Some(&b'}') && depth > 0 => {
            Ok(v.wrapping_add(2))
        }
        _ => skip(buf, v, stack, depth, max_depth),
    }
}

/// Skips and checks the string whose opening quote is at `at`.
#[inline(always)]
fn skip_string(buf: &[u8], at: usize) -> Result<usize, Pending> {
    let start = at.wrapping_add(1);
    let (end, flags) = scan_string(buf, start, at)?;
    if flags != 0 {
        check_string_body(buf, start, end, flags)?;
    }
    // `end` is the closing quote's position.
    Ok(end.wrapping_add(1))
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::test_rng::next;

    #[test]
    fn skips() {
        let bump = bumpalo::Bump::new();
        let mut st = BumpVec::new_in(&bump);
        let sk = |s: &str, st: &mut BumpVec<'_, bool>| {
            skip(s.as_bytes(), 0, st, 10, 10).map_err(|p| (p.0 .0, p.0 .1))
        };
        assert_eq!(sk(r#" {"a":[1,{"b":"]"}],"c":{}} x"#, &mut st), Ok(27));
        assert_eq!(sk("[[],[[]]]", &mut st), Ok(9));
        assert_eq!(sk("[1 2]", &mut st), Err((ErrorKind::Syntax, 3)));
        assert_eq!(sk("{\"a\" 1}", &mut st), Err((ErrorKind::Syntax, 5)));
        assert_eq!(sk("{1:1}", &mut st), Err((ErrorKind::Syntax, 1)));
        assert_eq!(sk("[1,]", &mut st), Err((ErrorKind::Syntax, 3)));
        assert_eq!(sk("[1}", &mut st), Err((ErrorKind::Syntax, 2)));
        assert_eq!(sk("[\"\\q\"]", &mut st), Err((ErrorKind::InvalidUtf8, 2)));
        // Long strings (the 64-byte scanner): two-byte escapes taken as seen there, any
        // other checked after it.
        let long = "x".repeat(40);
        let ok = format!("[\"{long}\\\"\\\\\\n\\/\\u00e9\"]");
        assert_eq!(sk(&ok, &mut st), Ok(ok.len()));
        let bad = format!("[\"{long}\\\"\\q\"]");
        assert_eq!(sk(&bad, &mut st), Err((ErrorKind::InvalidUtf8, 44)));
        let bad = format!("[\"{long}\\\"\\u12x4\"]");
        assert_eq!(sk(&bad, &mut st), Err((ErrorKind::InvalidUtf8, 44)));
        assert_eq!(sk("[[", &mut st), Err((ErrorKind::Eof, 2)));
        assert_eq!(sk(&"[".repeat(11), &mut st), Err((ErrorKind::Limit, 10)));
    }

    /// Objects long enough for the runs of compact pairs (`pairs.rs`): the same ends and the
    /// same faults, at the same offsets, as a pair at a time.
    #[test]
    fn runs_of_pairs_skip_as_pairs_at_a_time_do() {
        let bump = bumpalo::Bump::new();
        let mut st = BumpVec::new_in(&bump);
        let mut sk = |s: &str, depth: usize| {
            skip(s.as_bytes(), 0, &mut st, depth, 10).map_err(|p| (p.0 .0, p.0 .1))
        };
        let pairs = r#""ami":"ami-0697b068b80d79421","count":1,"zero":0,"gone":null,"#.to_owned()
            + r#""on":true,"off":false,"list":[],"map":{},"arn":"arn:aws:ec2:eu-west-3:0470"#
            + r#"81014315:instance/i-0d3650a23f4e45dc0","nested":[{"a":"b","c":[1,2]}],"#;
        let pad = " ".repeat(70);
        let ok = format!("{{{pairs}\"last\":\"x\"}}");
        // The same objects with a space after each comma (no run), as the reference.
        let spaced = ok.replace(",\"", ", \"");
        for (text, expect) in [(&ok, ok.len()), (&spaced, spaced.len())] {
            assert_eq!(sk(&format!("{text}{pad}"), 10), Ok(expect), "{text}");
            assert_eq!(sk(&format!("[{text},{text}]{pad}"), 10), Ok(2 * expect + 3));
        }
        // Faults inside what a run would take, found where they are.
        let at = |s: &str, needle: &str| s.find(needle).unwrap();
        for (bad, kind, offset) in [
            (
                ok.replace("ami-06", "ami\u{1}06"),
                ErrorKind::Syntax,
                "\u{1}",
            ),
            (ok.replace(":null", ":nul "), ErrorKind::Syntax, "nul "),
            (ok.replace(":1,", ":01,"), ErrorKind::Syntax, "01,"),
            (ok.replace(":true", ":tru"), ErrorKind::Syntax, "tru"),
            (ok.replace("\"on\":", "\"on\" "), ErrorKind::Syntax, "true"),
            (ok.replace(",\"off", ",,\"off"), ErrorKind::Syntax, ",\"off"),
            (
                ok.replace("\"map\":{}", "\"map\":{]"),
                ErrorKind::Syntax,
                "],\"arn",
            ),
        ] {
            let found = sk(&format!("{bad}{pad}"), 10);
            let want = at(&bad, offset);
            assert_eq!(found.map_err(|e| e.0), Err(kind), "{bad}");
            assert_eq!(found.unwrap_err().1, want, "{bad}");
        }
        // At the depth limit an empty list inside the object is one level too deep.
        assert_eq!(
            sk(&format!("{ok}{pad}"), 1),
            Err((ErrorKind::Limit, at(&ok, "[]")))
        );
        let flat = ok.replace("[{\"a\":\"b\",\"c\":[1,2]}]", "2");
        assert_eq!(sk(&format!("{flat}{pad}"), 2), Ok(flat.len()));
    }

    /// A classifier that finds nothing: every run ends where it starts, so the skip reads a
    /// token at a time, as it did before the runs (the reference of the test below).
    #[derive(Clone, Copy)]
    struct NoRun;

    impl Classifier for NoRun {
        fn masks(self, _: &[u8; 64]) -> (u64, u64) {
            (0, u64::MAX)
        }
    }

    /// A random JSON value in compact form, mostly what the runs take, some of what they
    /// leave to the skip.
    fn value(x: &mut u64, depth: u32, out: &mut String) {
        const SCALARS: [&str; 16] = [
            "\"v\"",
            "\"\"",
            "\"t3.nano\"",
            "null",
            "true",
            "false",
            "0",
            "7",
            "100",
            "[]",
            "{}",
            "-1",
            "1.5",
            "\"caf\u{e9}\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
        ];
        let r = next(x);
        match r % 8 {
            0 | 1 if depth > 0 => {
                out.push('{');
                for k in 0..(r >> 8) % 7 {
                    if k > 0 {
                        out.push(',');
                    }
                    let key = (r >> (12 + k)) % 5;
                    out.push_str(&format!("\"key_{}\":", "x".repeat(key as usize * 3)));
                    value(x, depth - 1, out);
                }
                out.push('}');
            }
            2 if depth > 0 => {
                out.push('[');
                for k in 0..(r >> 8) % 4 {
                    if k > 0 {
                        out.push(',');
                    }
                    value(x, depth - 1, out);
                }
                out.push(']');
            }
            3 => out.push_str(&format!("\"{}\"", "s".repeat((r >> 8) as usize % 90))),
            _ => out.push_str(SCALARS[(r >> 8) as usize % SCALARS.len()]),
        }
    }

    /// The skip with its runs (each classifier) against the skip without them, on random
    /// documents and their mutants: the same end, or the same fault at the same offset.
    #[test]
    fn runs_change_no_outcome() {
        let mut x = 0x853c_49e6_748f_ea9bu64;
        let bytes = [
            b'"', b'\\', b',', b'}', b']', b':', b' ', 0x01, 0xff, b'0', b'{',
        ];
        for _ in 0..crate::test_rng::rounds(4_000, 20) {
            let mut doc = String::new();
            value(&mut x, 4, &mut doc);
            let mut doc = doc.into_bytes();
            if next(&mut x).is_multiple_of(2) && !doc.is_empty() {
                let at = next(&mut x) as usize % doc.len();
                doc[at] = bytes[next(&mut x) as usize % bytes.len()];
            }
            doc.extend_from_slice(&[b' '; 70]);
            let depth = 1 + next(&mut x) as usize % 4;
            let reference = run_with(&doc, depth, NoRun);
            let text = String::from_utf8_lossy(&doc);
            assert_eq!(run_with(&doc, depth, Baseline), reference, "{text}");
            assert_eq!(run_with(&doc, depth, Portable), reference);
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just now).
                let avx2 = unsafe { crate::decode::json::pairs::Avx2::new() };
                assert_eq!(run_with(&doc, depth, avx2), reference);
            }
        }
    }

    /// [`skip_body`] of `doc` with classifier `c`: its end, or its fault's kind and offset.
    fn run_with<C: Classifier>(
        doc: &[u8],
        depth: usize,
        c: C,
    ) -> Result<usize, (ErrorKind, usize)> {
        let bump = bumpalo::Bump::new();
        let mut st = BumpVec::new_in(&bump);
        skip_body(doc, 0, &mut st, (depth, 9), c).map_err(|p| (p.0 .0, p.0 .1))
    }
}
