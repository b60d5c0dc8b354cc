//! Byte-level JSON scanning for the JSON executor: whitespace, strings (one pass that finds
//! quotes, backslashes, control bytes and non-ASCII bytes together, 16 bytes at a time with
//! SSE2 on x86-64), unescaping into the arena, the number grammar, literals, and a validating
//! non-recursive skip of a whole value.
//!
//! Every function takes the input and a position and returns the position after what it read;
//! errors are [`Pending`]s with the offset of the offending byte (or, when the input ended,
//! of the item that was cut short).

use bumpalo::Bump;

use super::frame::Pending;
use crate::error::ErrorKind;

/// The string held a backslash escape.
pub(super) const ESCAPED: u8 = 1;
/// The string held a byte >= 0x80 (UTF-8 must be validated).
pub(super) const NON_ASCII: u8 = 2;

/// Skips JSON whitespace from `i`; returns the position of the next other byte (or the end).
#[inline(always)]
pub(super) fn ws(buf: &[u8], mut i: usize) -> usize {
    while let Some(&c) = buf.get(i) {
        if c > b' ' || !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            break;
        }
        i += 1;
    }
    i
}

/// Bytes that may not directly follow a number or a literal (they would continue the token).
static WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_');
        c += 1;
    }
    t
};

/// Masks of the special bytes (`"`, `\`, < 0x20) and of the non-ASCII bytes in 16 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks16(chunk: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; the load is unaligned and reads exactly
    // the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        let special = _mm_or_si128(_mm_or_si128(quote, backslash), control);
        (
            _mm_movemask_epi8(special) as u32,
            _mm_movemask_epi8(v) as u32,
        )
    }
}

/// Masks of the special bytes and of the non-ASCII bytes in 8 bytes (one bit per byte, at
/// the byte's high bit). Only the lowest set bit of the special mask is exact, which is all
/// the caller uses.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn masks8(chunk: &[u8; 8]) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let x = u64::from_le_bytes(*chunk);
    let zero = |y: u64| y.wrapping_sub(ONES) & !y & HIGH;
    let quote = zero(x ^ (ONES * b'"' as u64));
    let backslash = zero(x ^ (ONES * b'\\' as u64));
    let control = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
    (quote | backslash | control, x & HIGH)
}

/// The position of the next `"`, `\` or control byte at or after `i` (or `buf.len()`), noting
/// in `flags` whether a non-ASCII byte came before it.
#[inline(always)]
fn next_special(buf: &[u8], mut i: usize, flags: &mut u8) -> usize {
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = buf.get(i..).and_then(|s| s.first_chunk::<16>()) {
        let (special, high) = masks16(chunk);
        if special != 0 {
            let k = special.trailing_zeros();
            if high & ((1u32 << k) - 1) != 0 {
                *flags |= NON_ASCII;
            }
            return i + k as usize;
        }
        if high != 0 {
            *flags |= NON_ASCII;
        }
        i += 16;
    }
    #[cfg(not(target_arch = "x86_64"))]
    while let Some(chunk) = buf.get(i..).and_then(|s| s.first_chunk::<8>()) {
        let (special, high) = masks8(chunk);
        if special != 0 {
            let k = special.trailing_zeros() / 8;
            if high & ((1u64 << (8 * k)) - 1) != 0 {
                *flags |= NON_ASCII;
            }
            return i + k as usize;
        }
        if high != 0 {
            *flags |= NON_ASCII;
        }
        i += 8;
    }
    while let Some(&c) = buf.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        if c >= 0x80 {
            *flags |= NON_ASCII;
        }
        i += 1;
    }
    i
}

/// Finds the end of the string whose body starts at `i` (its opening quote is at `open`):
/// returns the position of the closing quote and the [`ESCAPED`] / [`NON_ASCII`] flags.
/// Control bytes are rejected here; escapes are checked when they are decoded.
#[inline(always)]
pub(super) fn scan_string(buf: &[u8], mut i: usize, open: usize) -> Result<(usize, u8), Pending> {
    let mut flags = 0;
    loop {
        i = next_special(buf, i, &mut flags);
        match buf.get(i) {
            Some(b'"') => return Ok((i, flags)),
            Some(b'\\') => {
                flags |= ESCAPED;
                i += 2;
            }
            Some(&c) => return Err(control(c, i)),
            None => return Err(unterminated(open)),
        }
    }
}

/// The body `buf[start..end]` of a scanned string as `&str`: UTF-8-validated when it held
/// non-ASCII bytes, unescaped into the arena when it held escapes.
#[inline(always)]
pub(super) fn string_body<'a>(
    buf: &'a [u8],
    start: usize,
    end: usize,
    flags: u8,
    bump: &'a Bump,
) -> Result<&'a str, Pending> {
    let raw = &buf[start..end];
    let s = if flags & NON_ASCII != 0 {
        utf8(raw, start)?
    } else {
        // SAFETY: every byte is ASCII (the scan saw none >= 0x80), so this is valid UTF-8.
        unsafe { std::str::from_utf8_unchecked(raw) }
    };
    if flags & ESCAPED != 0 {
        unescape(s, start, bump)
    } else {
        Ok(s)
    }
}

/// Checks the string body `buf[start..end]` without building it (for skipped values).
pub(super) fn check_string_body(
    buf: &[u8],
    start: usize,
    end: usize,
    flags: u8,
) -> Result<(), Pending> {
    let raw = &buf[start..end];
    if flags & NON_ASCII != 0 {
        utf8(raw, start)?;
    }
    if flags & ESCAPED != 0 {
        let mut j = 0;
        while let Some(k) = memchr::memchr(b'\\', &raw[j..]) {
            let (_, used) = escape(raw, j + k, start)?;
            j += k + used;
        }
    }
    Ok(())
}

/// UTF-8 validation (the caller has seen a non-ASCII byte); the error points at the first
/// invalid byte.
#[inline]
pub(super) fn utf8(bytes: &[u8], at: usize) -> Result<&str, Pending> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(_) => Err(invalid_utf8(bytes, at)),
    }
}

#[cold]
#[inline(never)]
fn invalid_utf8(bytes: &[u8], at: usize) -> Pending {
    let bad = simdutf8::compat::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |_| 0);
    Pending::new(
        ErrorKind::InvalidUtf8,
        at + bad,
        "string is not valid UTF-8".into(),
    )
}

/// Decodes the escapes of `s` (a string body starting at input offset `at`) into the arena.
///
/// Copies 16 bytes at a time, stopping only at backslashes. Every escape is at least as long
/// as what it decodes to, so the output never outruns the input and a buffer of the input's
/// length plus 16 takes the whole-chunk stores.
#[inline(never)]
fn unescape<'a>(s: &str, at: usize, bump: &'a Bump) -> Result<&'a str, Pending> {
    let raw = s.as_bytes();
    let n = raw.len();
    let dst = bump.alloc_slice_fill_copy(n + 16, 0u8);
    let (mut r, mut w) = (0, 0);
    loop {
        while let (Some(chunk), Some(out)) = (
            raw.get(r..).and_then(|c| c.first_chunk::<16>()),
            dst.get_mut(w..).and_then(|o| o.first_chunk_mut::<16>()),
        ) {
            *out = *chunk;
            let m = backslashes16(chunk);
            if m == 0 {
                r += 16;
                w += 16;
                continue;
            }
            let k = m.trailing_zeros() as usize;
            r += k;
            w += k;
            break;
        }
        if r + 16 > n {
            // The tail, byte by byte.
            while let Some(&c) = raw.get(r).filter(|&&c| c != b'\\') {
                dst[w] = c;
                r += 1;
                w += 1;
            }
            if r >= n {
                break;
            }
        }
        let (c, used) = escape(raw, r, at)?;
        w += c.encode_utf8(&mut dst[w..w + 4]).len();
        r += used;
    }
    let out: &'a [u8] = dst;
    // SAFETY: `s` is UTF-8; the bytes copied run between backslashes (ASCII, so character
    // boundaries) and every escape wrote a whole UTF-8-encoded `char`.
    Ok(unsafe { std::str::from_utf8_unchecked(&out[..w]) })
}

/// The positions of the backslashes in 16 bytes, one bit each.
#[inline(always)]
fn backslashes16(chunk: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads exactly `chunk`.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0;
        for (i, &c) in chunk.iter().enumerate() {
            m |= ((c == b'\\') as u32) << i;
        }
        m
    }
}

/// The escape at `raw[j]` (a backslash): the character and the bytes it used.
#[inline(always)]
fn escape(raw: &[u8], j: usize, at: usize) -> Result<(char, usize), Pending> {
    let c = match raw.get(j + 1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            let hi = hex4(raw, j + 2).ok_or_else(|| bad_escape(raw, j, at))?;
            return match hi {
                0xd800..=0xdbff => {
                    let lo = match raw.get(j + 6..j + 8) {
                        Some(b"\\u") => hex4(raw, j + 8),
                        _ => None,
                    };
                    match lo {
                        Some(lo @ 0xdc00..=0xdfff) => {
                            let c = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
                            Ok((char::from_u32(c).unwrap_or('\u{fffd}'), 12))
                        }
                        _ => Err(surrogate(hi, at + j)),
                    }
                }
                0xdc00..=0xdfff => Err(surrogate(hi, at + j)),
                c => Ok((char::from_u32(c).unwrap_or('\u{fffd}'), 6)),
            };
        }
        _ => return Err(bad_escape(raw, j, at)),
    };
    Ok((c, 2))
}

fn hex4(raw: &[u8], i: usize) -> Option<u32> {
    let digits = raw.get(i..i + 4)?;
    let mut v = 0;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

#[cold]
fn bad_escape(raw: &[u8], j: usize, at: usize) -> Pending {
    let end = (j + 6).min(raw.len());
    let text = String::from_utf8_lossy(&raw[j..end]);
    let text = match raw.get(j + 1) {
        Some(b'u') => text.into_owned(),
        _ => text.chars().take(2).collect(),
    };
    Pending::new(
        ErrorKind::InvalidUtf8,
        at + j,
        format!("invalid escape {text:?} in string"),
    )
}

#[cold]
fn surrogate(v: u32, at: usize) -> Pending {
    Pending::new(
        ErrorKind::InvalidUtf8,
        at,
        format!("lone surrogate \\u{v:04x} in string"),
    )
}

#[cold]
fn control(c: u8, at: usize) -> Pending {
    let msg = format!("control character 0x{c:02x} in string (it must be escaped)");
    Pending::new(ErrorKind::Syntax, at, msg)
}

#[cold]
fn unterminated(open: usize) -> Pending {
    Pending::new(
        ErrorKind::Eof,
        open,
        "unexpected end of input in a string".into(),
    )
}

/// Reads a number at `at` (its first byte is `-` or a digit) following JSON's grammar
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Returns the end and, for a plain
/// integer that fits `i64`, its value.
#[inline(always)]
pub(super) fn number(buf: &[u8], at: usize) -> Result<(usize, Option<i64>), Pending> {
    let mut i = at;
    let neg = buf.get(i) == Some(&b'-');
    i += neg as usize;
    let int_start = i;
    match buf.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = skip_digits(buf, i + 1),
        _ => return Err(bad_number(buf, at, i)),
    }
    let int_end = i;
    let mut plain = true;
    if buf.get(i) == Some(&b'.') {
        plain = false;
        i = digits(buf, at, i + 1)?;
    }
    if matches!(buf.get(i), Some(b'e' | b'E')) {
        plain = false;
        i += 1;
        if matches!(buf.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = digits(buf, at, i)?;
    }
    if let Some(&c) = buf.get(i) {
        if WORD[c as usize] {
            return Err(bad_number(buf, at, i));
        }
    }
    // Up to 19 digits fit a u64 (10^19 - 1 < 2^64).
    if !plain || int_end - int_start > 19 {
        return Ok((i, None));
    }
    let mut v: u64 = 0;
    for &d in &buf[int_start..int_end] {
        v = v.wrapping_mul(10).wrapping_add((d - b'0') as u64);
    }
    let int = if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    };
    Ok((i, int))
}

/// The end of the run of digits from `i`, eight bytes at a time.
#[inline(always)]
fn skip_digits(buf: &[u8], mut i: usize) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = buf.get(i..).and_then(|s| s.first_chunk::<8>()) {
        let x = u64::from_le_bytes(*chunk);
        // A byte's high bit ends up set if it is above '9' (+0x46 carries into bit 7), below
        // '0' (the subtraction wraps) or non-ASCII. Carries and borrows move only upward, so
        // the lowest flagged byte is exact.
        let other =
            (x.wrapping_add(0x4646_4646_4646_4646) | x.wrapping_sub(0x3030_3030_3030_3030) | x)
                & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while buf.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// One or more digits from `i`.
#[inline(always)]
fn digits(buf: &[u8], at: usize, i: usize) -> Result<usize, Pending> {
    let end = skip_digits(buf, i);
    if end == i {
        return Err(bad_number(buf, at, i));
    }
    Ok(end)
}

#[cold]
#[inline(never)]
fn bad_number(buf: &[u8], at: usize, i: usize) -> Pending {
    if i >= buf.len() {
        return Pending::new(
            ErrorKind::Eof,
            at,
            "unexpected end of input in a number".into(),
        );
    }
    // The number and the word characters glued to it.
    let mut end = i;
    while end < buf.len() && end - at < 40 && WORD[buf[end] as usize] {
        end += 1;
    }
    let text = String::from_utf8_lossy(&buf[at..end]);
    Pending::new(ErrorKind::Syntax, at, format!("invalid number {text:?}"))
}

/// Checks the literal `word` (`true`, `false`, `null`) at `at`; returns its end.
#[inline(always)]
pub(super) fn literal(buf: &[u8], at: usize, word: &'static [u8]) -> Result<usize, Pending> {
    let end = at + word.len();
    if buf.get(at..end) == Some(word) && !buf.get(end).is_some_and(|&c| WORD[c as usize]) {
        return Ok(end);
    }
    Err(bad_literal(buf, at, word))
}

#[cold]
#[inline(never)]
fn bad_literal(buf: &[u8], at: usize, word: &[u8]) -> Pending {
    let rest = &buf[at..];
    if rest.len() < word.len() && word.starts_with(rest) {
        return Pending::new(
            ErrorKind::Eof,
            at,
            "unexpected end of input in a literal".into(),
        );
    }
    unexpected(buf, at)
}

/// A byte that cannot start a JSON value (or the end of the input).
#[cold]
#[inline(never)]
pub(super) fn unexpected(buf: &[u8], at: usize) -> Pending {
    match buf.get(at) {
        None => eof(at),
        Some(&c) if !WORD[c as usize] => Pending::new(
            ErrorKind::Syntax,
            at,
            format!("expected a JSON value, found {}", show_byte(c)),
        ),
        Some(_) => {
            let mut end = at + 1;
            while end < buf.len() && end - at < 20 && WORD[buf[end] as usize] {
                end += 1;
            }
            let token = String::from_utf8_lossy(&buf[at..end]);
            Pending::new(
                ErrorKind::Syntax,
                at,
                format!("expected a JSON value, found {token:?}"),
            )
        }
    }
}

#[cold]
pub(super) fn eof(at: usize) -> Pending {
    Pending::new(ErrorKind::Eof, at, "unexpected end of input".into())
}

/// What came where a separator was expected: the end, or a byte.
#[cold]
#[inline(never)]
pub(super) fn bad_separator(buf: &[u8], at: usize, close: u8) -> Pending {
    match buf.get(at) {
        None => eof(at),
        Some(&c) => {
            let msg = format!(
                "expected ',' or '{}' after a value, found {}",
                close as char,
                show_byte(c)
            );
            Pending::new(ErrorKind::Syntax, at, msg)
        }
    }
}

/// `':'` after an object key at `at`; returns the position after it.
#[inline(always)]
pub(super) fn colon(buf: &[u8], at: usize) -> Result<usize, Pending> {
    let i = ws(buf, at);
    match buf.get(i) {
        Some(b':') => Ok(i + 1),
        _ => Err(expected(buf, i, "':' after an object key")),
    }
}

/// `what` was expected at `at`.
#[cold]
#[inline(never)]
pub(super) fn expected(buf: &[u8], at: usize, what: &str) -> Pending {
    match buf.get(at) {
        None => eof(at),
        Some(&c) => Pending::new(
            ErrorKind::Syntax,
            at,
            format!("expected {what}, found {}", show_byte(c)),
        ),
    }
}

pub(super) fn show_byte(c: u8) -> String {
    if c.is_ascii_graphic() {
        format!("'{}'", c as char)
    } else {
        format!("byte 0x{c:02x}")
    }
}

/// Skips the whole JSON value at `i` (whitespace allowed before it), validating it, without
/// recursion: `stack` (reused) holds one entry per open container (`true` for an object).
/// Opening more than `depth` containers is a [`ErrorKind::Limit`] error (`max_depth` is the
/// limit named in the message). Returns the position after the value.
pub(super) fn skip(
    buf: &[u8],
    mut i: usize,
    stack: &mut Vec<bool>,
    depth: usize,
    max_depth: u32,
) -> Result<usize, Pending> {
    stack.clear();
    'value: loop {
        i = ws(buf, i);
        match buf.get(i) {
            Some(b'"') => i = skip_string(buf, i)?,
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
                i = ws(buf, i + 1);
                if buf.get(i) == Some(if object { &b'}' } else { &b']' }) {
                    stack.pop();
                    i += 1;
                } else {
                    if object {
                        i = skip_key(buf, i)?;
                    }
                    continue 'value;
                }
            }
            _ => return Err(unexpected(buf, i)),
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
                    i += 1;
                    if object {
                        i = skip_key(buf, ws(buf, i))?;
                    }
                    continue 'value;
                }
                Some(&c) if c == close => {
                    stack.pop();
                    i += 1;
                }
                _ => return Err(bad_separator(buf, i, close)),
            }
        }
    }
}

/// Container extents found by [`skip_fast`], kept for the whole decode: a value-first
/// dynamic wrapper nested in another one's value is skipped again when the outer value is
/// decoded, and finds its end here instead of rescanning (which would cost the nesting depth
/// times the size).
#[derive(Default)]
pub(super) struct Memo {
    /// `(start, end)` of every container a skip passed, in order of `start`.
    ends: Vec<(usize, usize)>,
    /// Indexes in `ends` of the containers open during a skip.
    open: Vec<usize>,
}

impl Memo {
    /// The end of the container starting at `i`, if a skip passed it.
    #[inline]
    fn end_of(&self, i: usize) -> Option<usize> {
        let k = self.ends.binary_search_by_key(&i, |e| e.0).ok()?;
        Some(self.ends[k].1)
    }
}

/// Finds the end of the JSON value at `i` (whitespace allowed before it) without validating
/// it: strings are jumped over, brackets counted, scalars end at the next delimiter. Only
/// for values that are decoded afterwards (which validates them, and must end at the same
/// byte) or compared byte for byte with validated text: a dynamic wrapper's value that
/// precedes its type, and type JSON. Nesting deeper than `depth` is a
/// [`ErrorKind::Limit`] error; an input that ends first is an [`ErrorKind::Eof`] error.
pub(super) fn skip_fast(
    buf: &[u8],
    i: usize,
    depth: usize,
    max_depth: u32,
    memo: &mut Memo,
) -> Result<usize, Pending> {
    let i = ws(buf, i);
    match buf.get(i) {
        None => Err(eof(i)),
        Some(b'"') => Ok(string_end_fast(buf, i + 1)? + 1),
        Some(b'[' | b'{') => {
            if let Some(end) = memo.end_of(i) {
                return Ok(end);
            }
            if depth == 0 {
                return Err(too_deep(i, max_depth));
            }
            // Record only past the last recorded container, keeping `ends` sorted.
            let record = memo.ends.last().is_none_or(|e| e.0 < i);
            containers_end_fast(buf, i, depth, max_depth, memo, record)
        }
        Some(_) => {
            let mut j = i;
            while buf.get(j).is_some_and(|&c| {
                !matches!(c, b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t' | b':')
            }) {
                j += 1;
            }
            Ok(j.max(i + 1))
        }
    }
}

/// The position of the closing quote of the string whose body starts at `i` (control bytes
/// are rejected on the way, as the decode would).
#[inline(always)]
fn string_end_fast(buf: &[u8], i: usize) -> Result<usize, Pending> {
    scan_string(buf, i, i - 1).map(|(end, _)| end)
}

/// The end of the container opening at `at`, recording every container's extent in `memo`
/// when `record`.
///
/// simdjson's approach, 64 bytes at a time: masks of quotes, backslashes and brackets; the
/// quotes escaped by backslash runs are dropped with carries; the bytes inside strings are
/// the prefix XOR of the quote mask; then only the brackets outside strings are visited.
/// The result is exactly that of the byte-by-byte walk of the tail (a backslash escapes the
/// next byte inside a string and means nothing outside one), wherever the blocks fall.
fn containers_end_fast(
    buf: &[u8],
    at: usize,
    depth: usize,
    max_depth: u32,
    memo: &mut Memo,
    record: bool,
) -> Result<usize, Pending> {
    memo.open.clear();
    let mut d = Nesting {
        open: 0,
        depth,
        max_depth,
        record,
    };
    d.bracket(buf, memo, at)?;
    let mut i = at + 1;
    let mut state = StringState::default();
    while let Some(block) = buf.get(i..).and_then(|s| s.first_chunk::<64>()) {
        let m = Masks64::of(block);
        let inside = if m.backslash == 0 && !state.escaped {
            let inside = prefix_xor(m.quote) ^ if state.inside { !0 } else { 0 };
            state.inside = inside >> 63 == 1;
            inside
        } else {
            let before = state;
            let quotes = m.quote & !escaped_bytes(m.backslash, &mut state.escaped);
            let inside = prefix_xor(quotes) ^ if before.inside { !0 } else { 0 };
            state.inside = inside >> 63 == 1;
            if m.backslash & !inside == 0 {
                inside
            } else {
                // A backslash outside a string (not JSON): it escapes nothing there, which
                // the masks above assumed; walk this block byte by byte instead, so that the
                // extent never depends on where the 64-byte blocks fall.
                state = before;
                state.walk(block)
            }
        };
        let mut brackets = m.bracket & !inside;
        while brackets != 0 {
            let p = i + brackets.trailing_zeros() as usize;
            if let Some(end) = d.bracket(buf, memo, p)? {
                return Ok(end);
            }
            brackets &= brackets - 1;
        }
        i += 64;
    }
    // The tail, byte by byte.
    while let Some(&c) = buf.get(i) {
        let inside = state.step(c);
        if !inside && matches!(c, b'[' | b']' | b'{' | b'}') {
            if let Some(end) = d.bracket(buf, memo, i)? {
                return Ok(end);
            }
        }
        i += 1;
    }
    Err(eof(buf.len()))
}

/// The open containers of a fast skip.
struct Nesting {
    open: usize,
    depth: usize,
    max_depth: u32,
    record: bool,
}

impl Nesting {
    /// The bracket at `p` (outside strings): returns the end once the outermost container
    /// closed.
    #[inline(always)]
    fn bracket(&mut self, buf: &[u8], memo: &mut Memo, p: usize) -> Result<Option<usize>, Pending> {
        if matches!(buf[p], b'[' | b'{') {
            self.open += 1;
            if self.open > self.depth {
                return Err(too_deep(p, self.max_depth));
            }
            if self.record {
                memo.open.push(memo.ends.len());
                memo.ends.push((p, 0));
            }
            return Ok(None);
        }
        self.open -= 1;
        if self.record {
            if let Some(k) = memo.open.pop() {
                memo.ends[k].1 = p + 1;
            }
        }
        Ok((self.open == 0).then_some(p + 1))
    }
}

/// Whether a scan is inside a string, and whether the next byte is escaped.
#[derive(Clone, Copy, Default)]
struct StringState {
    inside: bool,
    escaped: bool,
}

impl StringState {
    /// Advances over `c`; true if `c` is part of a string (its quotes included, except the
    /// closing one).
    #[inline(always)]
    fn step(&mut self, c: u8) -> bool {
        if !self.inside {
            self.inside = c == b'"';
            return self.inside;
        }
        if self.escaped {
            self.escaped = false;
        } else if c == b'\\' {
            self.escaped = true;
        } else if c == b'"' {
            self.inside = false;
            return false;
        }
        true
    }

    /// The mask of the bytes of `block` that are part of strings, byte by byte.
    #[cold]
    #[inline(never)]
    fn walk(&mut self, block: &[u8; 64]) -> u64 {
        let mut inside = 0;
        for (k, &c) in block.iter().enumerate() {
            inside |= (self.step(c) as u64) << k;
        }
        inside
    }
}

/// The bytes escaped by a backslash that are not backslashes themselves (those right after
/// an odd-length run of backslashes), given the backslashes of a 64-byte block; `carry` says whether the block's first byte is
/// escaped (updated for the next block). simdjson's `find_odd_backslash_sequences`. Valid
/// JSON has backslashes only inside strings, where this is exact; elsewhere the decode that
/// follows rejects the input anyway.
#[inline(always)]
fn escaped_bytes(backslash: u64, carry: &mut bool) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    const ODD: u64 = !EVEN;
    let prev = *carry as u64;
    let starts = backslash & !(backslash << 1);
    let even_start_mask = EVEN ^ prev;
    let even_starts = starts & even_start_mask;
    let odd_starts = starts & !even_start_mask;
    let even_carries = backslash.wrapping_add(even_starts);
    let (odd_carries, overflow) = backslash.overflowing_add(odd_starts);
    let odd_carries = odd_carries | prev;
    *carry = overflow;
    let even_carry_ends = even_carries & !backslash;
    let odd_carry_ends = odd_carries & !backslash;
    (even_carry_ends & ODD) | (odd_carry_ends & EVEN)
}

/// Bit `k` set when byte `k` is a quote / a backslash / a bracket.
struct Masks64 {
    quote: u64,
    backslash: u64,
    bracket: u64,
}

impl Masks64 {
    #[inline(always)]
    fn of(block: &[u8; 64]) -> Masks64 {
        let mut m = Masks64 {
            quote: 0,
            backslash: 0,
            bracket: 0,
        };
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let chunk: &[u8; 16] = chunk.try_into().unwrap_or(&[0; 16]);
            let (q, b, s) = masks16_structural(chunk);
            m.quote |= (q as u64) << (16 * k);
            m.backslash |= (b as u64) << (16 * k);
            m.bracket |= (s as u64) << (16 * k);
        }
        m
    }
}

/// Bit `k` set for every byte at or after an odd number of set bits up to `k` (inclusive):
/// from an opening quote up to, not including, its closing quote.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Masks of quotes, backslashes and brackets in 16 bytes.
#[inline(always)]
fn masks16_structural(chunk: &[u8; 16]) -> (u32, u32, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads exactly `chunk`.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            // '[' 0x5b, ']' 0x5d, '{' 0x7b, '}' 0x7d: clear bit 5, then match 0x5b or 0x5d.
            let folded = _mm_and_si128(v, _mm_set1_epi8(!0x20u8 as i8));
            let open = _mm_cmpeq_epi8(folded, _mm_set1_epi8(0x5b));
            let close = _mm_cmpeq_epi8(folded, _mm_set1_epi8(0x5d));
            (
                _mm_movemask_epi8(quote) as u32,
                _mm_movemask_epi8(backslash) as u32,
                _mm_movemask_epi8(_mm_or_si128(open, close)) as u32,
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut q, mut b, mut s) = (0, 0, 0);
        for (k, &c) in chunk.iter().enumerate() {
            q |= ((c == b'"') as u32) << k;
            b |= ((c == b'\\') as u32) << k;
            s |= (matches!(c, b'[' | b']' | b'{' | b'}') as u32) << k;
        }
        (q, b, s)
    }
}

/// A key and its colon, in a skipped object.
fn skip_key(buf: &[u8], i: usize) -> Result<usize, Pending> {
    if buf.get(i) != Some(&b'"') {
        return Err(expected(buf, i, "a string key"));
    }
    colon(buf, skip_string(buf, i)?)
}

/// Skips and checks the string whose opening quote is at `at`.
#[inline]
fn skip_string(buf: &[u8], at: usize) -> Result<usize, Pending> {
    let (end, flags) = scan_string(buf, at + 1, at)?;
    if flags != 0 {
        check_string_body(buf, at + 1, end, flags)?;
    }
    Ok(end + 1)
}

#[cold]
pub(super) fn too_deep(at: usize, max_depth: u32) -> Pending {
    let msg = format!("nesting deeper than max_depth ({max_depth})");
    Pending::new(ErrorKind::Limit, at, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(s: &str) -> Result<(usize, u8), ErrorKind> {
        scan_string(s.as_bytes(), 1, 0).map_err(|p| p.0 .0)
    }

    #[test]
    fn string_scan_at_every_alignment() {
        for pad in 0..40 {
            let body = "x".repeat(pad);
            assert_eq!(scan(&format!("\"{body}\" tail")), Ok((pad + 1, 0)));
            assert_eq!(scan(&format!("\"{body}\\\"\"")), Ok((pad + 3, ESCAPED)));
            assert_eq!(scan(&format!("\"{body}é\"")), Ok((pad + 3, NON_ASCII)));
            // Non-ASCII after the closing quote does not count.
            assert_eq!(scan(&format!("\"{body}\"é")), Ok((pad + 1, 0)));
            assert_eq!(scan(&format!("\"{body}\n\"")), Err(ErrorKind::Syntax));
            assert_eq!(scan(&format!("\"{body}")), Err(ErrorKind::Eof));
            assert_eq!(scan(&format!("\"{body}\\")), Err(ErrorKind::Eof));
        }
    }

    #[test]
    fn digit_runs() {
        for len in 0..30 {
            for stop in [b' ', b'/', b':', b'a', 0x80, 0xff, b'.', 0] {
                let mut text = vec![b'7'; len];
                text.push(stop);
                text.extend_from_slice(b"123456789");
                assert_eq!(skip_digits(&text, 0), len, "{len} {stop}");
                assert_eq!(skip_digits(&text[..len], 0), len);
            }
        }
    }

    #[test]
    fn numbers() {
        let ok = |s: &str| number(s.as_bytes(), 0).map_err(|p| p.0 .0);
        assert_eq!(ok("0"), Ok((1, Some(0))));
        assert_eq!(ok("-0"), Ok((2, Some(0))));
        assert_eq!(ok("9223372036854775807"), Ok((19, Some(i64::MAX))));
        assert_eq!(ok("9223372036854775808"), Ok((19, None)));
        assert_eq!(ok("-9223372036854775808"), Ok((20, Some(i64::MIN))));
        assert_eq!(ok("-9223372036854775809"), Ok((20, None)));
        assert_eq!(ok("99999999999999999999999"), Ok((23, None)));
        assert_eq!(ok("1.5e-3,"), Ok((6, None)));
        assert_eq!(ok("1E+2]"), Ok((4, None)));
        for bad in ["01", "-01", "1.e3", "1x", "1.5.", "-a", "00", "1e5.0"] {
            assert_eq!(ok(bad), Err(ErrorKind::Syntax), "{bad}");
        }
        for cut in ["1.", "1e", "1e+", "-", "1.5e-"] {
            assert_eq!(ok(cut), Err(ErrorKind::Eof), "{cut}");
        }
    }

    #[test]
    fn escapes() {
        let bump = Bump::new();
        let un = |s: &'static str| {
            string_body(s.as_bytes(), 0, s.len(), ESCAPED, &bump)
                .map(|s| s.to_string())
                .map_err(|p| (p.0 .0, p.0 .1))
        };
        assert_eq!(
            un(r#"a\"b\\c\/d\b\f\n\r\t"#),
            Ok("a\"b\\c/d\u{8}\u{c}\n\r\t".to_string())
        );
        assert_eq!(un(r"\u00e9\ud83d\ude00x"), Ok("é😀x".to_string()));
        assert_eq!(un(r"ab\x"), Err((ErrorKind::InvalidUtf8, 2)));
        assert_eq!(un(r"\u12g4"), Err((ErrorKind::InvalidUtf8, 0)));
        assert_eq!(un(r"a\ud83d"), Err((ErrorKind::InvalidUtf8, 1)));
        assert_eq!(un(r"a\ud83dx\ude00"), Err((ErrorKind::InvalidUtf8, 1)));
        assert_eq!(un(r"a\ude00"), Err((ErrorKind::InvalidUtf8, 1)));
        assert_eq!(un(r"\ud83d\u0041"), Err((ErrorKind::InvalidUtf8, 0)));
    }

    #[test]
    fn unescape_at_every_alignment() {
        let bump = Bump::new();
        let pieces = [
            "a",
            "\\n",
            "\\u00e9",
            "é",
            "\\ud83d\\ude00",
            "\\\"",
            "xyz",
            "\\\\",
        ];
        for len in 0..60 {
            // A pseudo-random mix of plain bytes and escapes of every length.
            let mut json = String::new();
            let mut k = len * 7 + 3;
            for _ in 0..len {
                k = (k * 31 + 11) % 97;
                json.push_str(pieces[k % pieces.len()]);
            }
            let want: String = serde_json::from_str(&format!("\"{json}\"")).unwrap();
            let got = string_body(json.as_bytes(), 0, json.len(), ESCAPED | NON_ASCII, &bump);
            let got = got.unwrap_or_else(|p| panic!("{json}: {}", p.0 .2));
            assert_eq!(got, want, "{json}");
        }
    }

    #[test]
    fn fast_skips_find_the_same_ends() {
        let mut st = Vec::new();
        let values = [
            r#" {"a":[1,{"b":"]}\"{"}],"c":{}} x"#,
            "[[],[[]]],",
            r#""a\"b\\"]"#,
            "123.5e+7,",
            "true}",
            "null ",
            r#"[{"k":"0123456789abcdef0123456789abcdef\\","l":["[","{"]},[[[[[]]]]]]  "#,
        ];
        for v in values {
            let b = v.as_bytes();
            let want = skip(b, 0, &mut st, 10, 10).map_err(|p| p.0 .0);
            let mut memo = Memo::default();
            assert_eq!(
                skip_fast(b, 0, 10, 10, &mut memo).map_err(|p| p.0 .0),
                want,
                "{v}"
            );
            // Again, from the memo; and every inner container from the memo too.
            assert_eq!(
                skip_fast(b, 0, 10, 10, &mut memo).map_err(|p| p.0 .0),
                want,
                "{v}"
            );
            for &(start, end) in &memo.ends {
                let mut fresh = Memo::default();
                assert_eq!(
                    skip_fast(b, start, 10, 10, &mut fresh).ok(),
                    Some(end),
                    "{v} at {start}"
                );
            }
            // Every truncation of a container fails with Eof.
            if v.trim_start().starts_with(['[', '{']) {
                let end = want.unwrap();
                for cut in 0..end {
                    let got =
                        skip_fast(&b[..cut], 0, 10, 10, &mut Memo::default()).map_err(|p| p.0 .0);
                    assert_eq!(got, Err(ErrorKind::Eof), "{v} at {cut}");
                }
            }
        }
        // Escapes, quotes and brackets at every offset around the 64-byte blocks.
        let pieces = [
            r#"\""#,
            r#"\\"#,
            r#"\\\""#,
            "[",
            "]",
            "{",
            "}",
            "x",
            r#"\u005d"#,
        ];
        for pad in 0..140 {
            for (k, piece) in pieces.iter().enumerate() {
                let filler = "a".repeat(pad);
                let text = format!(
                    r#"[{{"k{k}":"{filler}{piece}{filler}"}},["{piece}",[]],"{piece}"] tail"#
                );
                let b = text.as_bytes();
                let want = skip(b, 0, &mut st, 10, 10).map_err(|p| p.0 .0);
                let mut memo = Memo::default();
                let got = skip_fast(b, 0, 10, 10, &mut memo).map_err(|p| p.0 .0);
                assert_eq!(got, want, "{text}");
                for &(start, end) in &memo.ends {
                    let mut fresh = Memo::default();
                    assert_eq!(
                        skip_fast(b, start, 10, 10, &mut fresh).ok(),
                        Some(end),
                        "{text} at {start}"
                    );
                }
            }
        }
        // Malformed input with backslashes and quotes outside strings: the same extent at
        // every alignment as a byte-by-byte walk.
        let walk_end = |b: &[u8]| -> Option<usize> {
            let (mut open, mut st) = (0usize, StringState::default());
            for (i, &c) in b.iter().enumerate() {
                if !st.step(c) && matches!(c, b'[' | b']' | b'{' | b'}') {
                    if matches!(c, b'[' | b'{') {
                        open += 1;
                    } else {
                        open -= 1;
                        if open == 0 {
                            return Some(i + 1);
                        }
                    }
                }
            }
            None
        };
        for pad in 0..70 {
            for bad in [r#"\"]"#, r#"]\\"["#, r#"\\\"{"#, r#""\"]\"#, r#"\["#] {
                let text = format!(
                    r#"[{}{bad}"x",["\\",{{"a":"]"}}],"{}",[] ]]]]"#,
                    " ".repeat(pad),
                    "y".repeat(pad)
                );
                let b = text.as_bytes();
                let got = skip_fast(b, 0, 64, 64, &mut Memo::default()).ok();
                assert_eq!(got, walk_end(b), "{text}");
            }
        }
        let deep = "[".repeat(11);
        let mut memo = Memo::default();
        assert_eq!(
            skip_fast(deep.as_bytes(), 0, 10, 10, &mut memo).map_err(|p| (p.0 .0, p.0 .1)),
            Err((ErrorKind::Limit, 10))
        );
        assert_eq!(
            skip_fast(b"[]", 0, 0, 10, &mut Memo::default()).map_err(|p| p.0 .0),
            Err(ErrorKind::Limit)
        );
    }

    #[test]
    fn escaped_bytes_match_a_byte_walk() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            // Backslash-heavy blocks, two in a row so that runs cross the boundary.
            let mut bytes = [0u8; 128];
            for b in bytes.iter_mut() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                *b = if rng % 3 == 0 { b'a' } else { b'\\' };
            }
            let mut carry = false;
            let mut walking = false;
            for half in 0..2 {
                let block = &bytes[64 * half..64 * half + 64];
                let mut mask = 0u64;
                let mut want = 0u64;
                for (k, &c) in block.iter().enumerate() {
                    if walking {
                        want |= 1 << k;
                        walking = false;
                    } else if c == b'\\' {
                        walking = true;
                    }
                    mask |= ((c == b'\\') as u64) << k;
                }
                // Only the byte ending a run is reported (escaped backslashes within a run
                // are not quotes, all that matters).
                let got = escaped_bytes(mask, &mut carry);
                assert_eq!(got, want & !mask, "{:?}", String::from_utf8_lossy(block));
                assert_eq!(carry, walking);
            }
        }
    }

    #[test]
    fn skips() {
        let mut st = Vec::new();
        let sk = |s: &str, st: &mut Vec<bool>| {
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
        assert_eq!(sk("[[", &mut st), Err((ErrorKind::Eof, 2)));
        assert_eq!(sk(&"[".repeat(11), &mut st), Err((ErrorKind::Limit, 10)));
    }
}
