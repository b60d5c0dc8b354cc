//! `tfwire::skip_json` against serde_json and `tfwire::skip_msgpack` against rmpv: the length
//! of the value at the start of the input, or the same rejection. `[mode][bytes]`: mode bit 0
//! clear is JSON, set is MessagePack; with JSON, mode bit 1 set puts the bytes in an array
//! after a 300-byte string (`["xx…",BYTES]`), so that a short input reaches the two-stage skip
//! that `skip_json` runs on containers of more than 256 bytes (`decode/json/token_skip.rs`).
//! The other bits are ignored.
//!
//! JSON. serde_json's `StreamDeserializer` gives the end of the first value (a scalar must be
//! followed by whitespace, `"[]{},:` or the end, as `skip_json` requires too), and
//! `from_slice::<IgnoredAny>` the whole-input verdict (one value, whitespace around it). Two
//! documented differences are modelled, not excluded: serde_json's `IgnoredAny` reads neither
//! the UTF-8 of a string's bytes nor the pairing of its `\u` surrogate escapes ("we don't care
//! if the codepoint is valid", `ignore_escape` in serde_json's `read.rs`: `"\ud800"` and
//! `"\xff"` are accepted), while `skip_json` checks both as a decode does (`InvalidUtf8`); and
//! `IgnoredAny` walks any nesting without a limit, while `skip_json` stops at `MAX_DEPTH`
//! (512) levels (`Limit`). So: where serde_json reads a value of `n` bytes whose strings are
//! valid UTF-8 with paired surrogates and whose nesting is at most `MAX_DEPTH`, `skip_json`
//! is `Ok(n)`; with a bad string it is `InvalidUtf8`, with deeper nesting `Limit` (either, if
//! both). Conversely wherever `skip_json` is `Ok(n)`, serde_json reads a value of exactly `n`
//! bytes there (or, after a number or literal followed by a byte serde_json's stream does not
//! take there, such as a control byte, at least on those bytes alone: the third documented
//! difference), and on those `n` bytes alone; if the rest is whitespace it accepts the whole
//! input.
//!
//! MessagePack. rmpv's `read_value_ref` reads any well-formed value but keeps a `str` that is
//! not UTF-8 (tfwire: `InvalidUtf8`) and reads the reserved marker 0xc1 as nil (tfwire:
//! `Syntax`; the MessagePack spec says 0xc1 is never used). Both are modelled by `mp_walk`
//! below, a plain iterative walk of the spec, which is checked against rmpv (same length where
//! rmpv reads a value and the walk finds no bad string or 0xc1; a bad string exactly where rmpv
//! kept one; an end of input wherever rmpv met one) and against which `skip_msgpack` is checked
//! exactly: the same length, or the same error kind, and for `Syntax` and `InvalidUtf8` the
//! same offset (the marker of the faulty item). Which fault a malformed input is named by
//! follows tfwire's documented rule that a count claiming more items than bytes remain is
//! `Eof` at once (`limits.rs`), even with a bad str or 0xc1 before the input runs out. rmpv recurses with a depth limit (about 511
//! nested containers); deeper inputs are compared with the walk only.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::de::IgnoredAny;
use tfwire::{ErrorKind, MAX_DEPTH};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, d)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 && mode & 2 != 0 {
        let mut wrapped = Vec::with_capacity(d.len() + 305);
        wrapped.extend_from_slice(b"[\"");
        wrapped.extend(std::iter::repeat_n(b'x', 300));
        wrapped.extend_from_slice(b"\",");
        wrapped.extend_from_slice(d);
        wrapped.push(b']');
        json(&wrapped);
    } else if mode & 1 == 0 {
        json(d);
    } else {
        msgpack(d);
    }
});

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The end of serde_json's first value in `d` (its byte offset), if it reads one.
fn serde_first(d: &[u8]) -> Option<usize> {
    let mut it = serde_json::Deserializer::from_slice(d).into_iter::<IgnoredAny>();
    match it.next() {
        Some(Ok(_)) => Some(it.byte_offset()),
        _ => None,
    }
}

/// What serde_json's `IgnoredAny` does not check, in a JSON text it accepted: the deepest
/// bracket nesting (brackets in strings ignored) and whether a string holds a `\u` surrogate
/// escape that is not half of a high-low pair. (Robust on any bytes.)
fn json_facts(d: &[u8]) -> (usize, bool) {
    let (mut depth, mut max, mut lone) = (0usize, 0usize, false);
    let mut i = 0;
    while i < d.len() {
        match d[i] {
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'"' => {
                i += 1;
                // A high surrogate escape waiting for its low half.
                let mut high = false;
                while i < d.len() && d[i] != b'"' {
                    if d[i] == b'\\' && i + 1 < d.len() {
                        if d[i + 1] == b'u' {
                            let cu = d
                                .get(i + 2..i + 6)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u16::from_str_radix(h, 16).ok());
                            i += 6;
                            match cu {
                                Some(0xd800..=0xdbff) => {
                                    lone |= high;
                                    high = true;
                                }
                                Some(0xdc00..=0xdfff) => {
                                    lone |= !high;
                                    high = false;
                                }
                                _ => {
                                    lone |= high;
                                    high = false;
                                }
                            }
                            continue;
                        }
                        i += 2;
                    } else {
                        i += 1;
                    }
                    lone |= high;
                    high = false;
                }
                lone |= high;
                i += 1;
            }
            _ => i += 1,
        }
    }
    (max, lone)
}

fn json(d: &[u8]) {
    let got = tfwire::skip_json(d).map_err(|e| e.kind());
    let show = || format!("input (hex) {} = {:?}", hex(d), String::from_utf8_lossy(d));

    // serde_json reads a value: skip_json agrees, up to what IgnoredAny does not check.
    if let Some(end) = serde_first(d) {
        let v = &d[..end];
        let (depth, lone) = json_facts(v);
        let bad_string = std::str::from_utf8(v).is_err() || lone;
        let deep = depth > MAX_DEPTH as usize;
        let ok = match got {
            Ok(n) => !bad_string && !deep && n == end,
            Err(ErrorKind::InvalidUtf8) => bad_string,
            Err(ErrorKind::Limit) => deep,
            Err(_) => false,
        };
        assert!(
            ok,
            "skip_json = {got:?} where serde_json reads a value of {end} bytes (depth {depth}, \
             lone surrogate {lone}, UTF-8 {}); {}",
            std::str::from_utf8(v).is_ok(),
            show()
        );
        // The brief's whole-input form: serde_json accepts `d`, so skip_json must leave only
        // whitespace (implied by the above; kept as its own statement).
        if !bad_string && !deep && serde_json::from_slice::<IgnoredAny>(d).is_ok() {
            assert!(
                matches!(got, Ok(n) if n > 0 && !is_ws(d[n - 1]) && d[n..].iter().all(|&b| is_ws(b))),
                "serde_json accepts the whole input, skip_json = {got:?}; {}",
                show()
            );
        }
    }

    // skip_json reads a value: serde_json reads the same one, and it stands alone.
    if let Ok(n) = got {
        let first = serde_first(d);
        // What may follow a number or a literal differs: serde_json's stream wants whitespace,
        // one of `"[]{},:` or the end; skip_json takes any byte that cannot continue the token
        // (not `[A-Za-z0-9.+_-]`, its `scan::WORD`), so `-2865\x01` is `Ok(5)` there and
        // "trailing characters" in serde_json's stream. Then serde_json must read those `n`
        // bytes alone as the scalar (the assertion after this one).
        let scalar = matches!(d.iter().find(|&&b| !is_ws(b)), Some(c) if !b"\"[{".contains(c));
        let other_end = scalar
            && first.is_none()
            && d.get(n).is_some_and(|&c| {
                let serde_end = is_ws(c) || b"\"[]{},:".contains(&c);
                let continues = c.is_ascii_alphanumeric() || b".+-_".contains(&c);
                !serde_end && !continues
            });
        assert!(
            first == Some(n) || other_end,
            "skip_json = Ok({n}), serde_json's first value ends at {first:?}; {}",
            show()
        );
        assert!(
            serde_json::from_slice::<IgnoredAny>(&d[..n]).is_ok(),
            "skip_json = Ok({n}), serde_json rejects those {n} bytes alone; {}",
            show()
        );
        let again = tfwire::skip_json(&d[..n]).map_err(|e| e.kind());
        assert!(
            again == Ok(n),
            "skip_json = Ok({n}), on those {n} bytes alone {again:?}; {}",
            show()
        );
        if d[n..].iter().all(|&b| is_ws(b)) {
            assert!(
                serde_json::from_slice::<IgnoredAny>(d).is_ok(),
                "skip_json = Ok({n}) with only whitespace after it, serde_json rejects the \
                 input; {}",
                show()
            );
        }
    }
}

/// The MessagePack spec as a plain iterative walk: the end of the first value, or the first
/// fault in input order: `Eof`, `Syntax` at a 0xc1 marker, `InvalidUtf8` at the marker of a
/// `str` whose bytes are not UTF-8; with tfwire's early `Eof` for counts beyond the input.
fn mp_walk(d: &[u8]) -> Result<usize, (ErrorKind, usize)> {
    let mut pos = 0usize;
    let mut pending: u64 = 1;
    let be = |pos: &mut usize, k: usize| -> Option<usize> {
        let b = d.get(*pos..*pos + k)?;
        *pos += k;
        Some(b.iter().fold(0usize, |a, &x| (a << 8) | x as usize))
    };
    while pending > 0 {
        pending -= 1;
        let at = pos;
        let eof = (ErrorKind::Eof, at);
        let m = *d.get(pos).ok_or(eof)?;
        pos += 1;
        // (payload bytes, is a str)
        let (n, is_str) = match m {
            0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (0, false),
            0x80..=0x8f => {
                pending += 2 * u64::from(m & 0x0f);
                (0, false)
            }
            0x90..=0x9f => {
                pending += u64::from(m & 0x0f);
                (0, false)
            }
            0xa0..=0xbf => (usize::from(m & 0x1f), true),
            0xc1 => return Err((ErrorKind::Syntax, at)),
            0xc4 => (be(&mut pos, 1).ok_or(eof)?, false),
            0xc5 => (be(&mut pos, 2).ok_or(eof)?, false),
            0xc6 => (be(&mut pos, 4).ok_or(eof)?, false),
            0xc7 => (be(&mut pos, 1).ok_or(eof)? + 1, false),
            0xc8 => (be(&mut pos, 2).ok_or(eof)? + 1, false),
            0xc9 => (be(&mut pos, 4).ok_or(eof)? + 1, false),
            0xca => (4, false),
            0xcb => (8, false),
            0xcc | 0xd0 => (1, false),
            0xcd | 0xd1 => (2, false),
            0xce | 0xd2 => (4, false),
            0xcf | 0xd3 => (8, false),
            0xd4 => (2, false),
            0xd5 => (3, false),
            0xd6 => (5, false),
            0xd7 => (9, false),
            0xd8 => (17, false),
            0xd9 => (be(&mut pos, 1).ok_or(eof)?, true),
            0xda => (be(&mut pos, 2).ok_or(eof)?, true),
            0xdb => (be(&mut pos, 4).ok_or(eof)?, true),
            0xdc => {
                pending += be(&mut pos, 2).ok_or(eof)? as u64;
                (0, false)
            }
            0xdd => {
                pending += be(&mut pos, 4).ok_or(eof)? as u64;
                (0, false)
            }
            0xde => {
                pending += 2 * be(&mut pos, 2).ok_or(eof)? as u64;
                (0, false)
            }
            0xdf => {
                pending += 2 * be(&mut pos, 4).ok_or(eof)? as u64;
                (0, false)
            }
        };
        let payload = d.get(pos..pos.saturating_add(n)).ok_or(eof)?;
        if is_str && std::str::from_utf8(payload).is_err() {
            return Err((ErrorKind::InvalidUtf8, at));
        }
        pos += n;
        // tfwire's rule for lengths read from the input (`limits.rs`): every pending item
        // needs at least one byte, so a claim beyond the input is `Eof` at once, before a
        // bad string or 0xc1 further on (`[94 01 a1 c3]`: `Eof`, not the bad str at 2).
        if pending > (d.len() - pos) as u64 {
            return Err((ErrorKind::Eof, at));
        }
    }
    Ok(pos)
}

/// Whether a value rmpv read holds a `str` that is not UTF-8 (iterative: values may be
/// hundreds of levels deep).
fn has_bad_str(v: &rmpv::ValueRef) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            rmpv::ValueRef::String(s) if s.is_err() => return true,
            rmpv::ValueRef::Array(a) => stack.extend(a.iter()),
            rmpv::ValueRef::Map(m) => {
                for (k, v) in m {
                    stack.push(k);
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    false
}

fn msgpack(d: &[u8]) {
    let walk = mp_walk(d);
    let show = || format!("input (hex) {}", hex(d));

    // The walk against rmpv (the walk is what skip_msgpack is held to below).
    let mut rest = d;
    match rmpv::decode::read_value_ref(&mut rest) {
        Ok(v) => {
            let used = d.len() - rest.len();
            let ok = match walk {
                Ok(n) => n == used && !has_bad_str(&v),
                // rmpv keeps a bad str, and reads 0xc1 as nil.
                Err((ErrorKind::InvalidUtf8, _)) => has_bad_str(&v),
                Err((ErrorKind::Syntax, at)) => d[at] == 0xc1,
                Err(_) => false,
            };
            assert!(
                ok,
                "reference walk = {walk:?} where rmpv reads {used} bytes ({}a bad str); {}",
                if has_bad_str(&v) { "with " } else { "without " },
                show()
            );
        }
        Err(rmpv::decode::Error::DepthLimitExceeded) => {}
        // rmpv's only other errors are the end of the input (a slice never fails otherwise).
        Err(e) => assert!(
            matches!(
                walk,
                Err((
                    ErrorKind::Eof | ErrorKind::Syntax | ErrorKind::InvalidUtf8,
                    _
                ))
            ),
            "reference walk = {walk:?} where rmpv fails: {e:?}; {}",
            show()
        ),
    }

    // skip_msgpack against the walk: exactly.
    let got = tfwire::skip_msgpack(d).map_err(|e| (e.kind(), e.offset().unwrap_or(usize::MAX)));
    let ok = match (got, walk) {
        (Ok(a), Ok(b)) => a == b,
        (Err((ErrorKind::Eof, _)), Err((ErrorKind::Eof, _))) => true,
        (Err(a), Err(b)) => a == b,
        _ => false,
    };
    assert!(
        ok,
        "skip_msgpack = {got:?}, reference walk = {walk:?} (rmpv: 0xc1 is nil, a bad str kept); {}",
        show()
    );
    if let Ok(n) = got {
        let again = tfwire::skip_msgpack(&d[..n]).map_err(|e| e.kind());
        assert!(
            again == Ok(n),
            "skip_msgpack = Ok({n}), on those {n} bytes alone {again:?}; {}",
            show()
        );
    }
}
