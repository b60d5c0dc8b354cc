//! The validating skip of a JSON array or object at SIMD pace (simdjson's stage 1 with a
//! validating walk over its tokens, building nothing): [`container_end`].
//!
//! Each 64-byte block is classified into masks of quotes, backslashes, control bytes, bytes
//! at or above 0x80, structural bytes (`{}[]:,`) and whitespace, by the best classifier the
//! CPU has (AVX-512BW, AVX2, SSE2, or a portable loop; [`Level`], capped by `TFWIRE_SIMD`).
//! Escaped quotes are dropped with carries, the bytes inside strings are the prefix XOR of
//! the remaining quotes, and then only the tokens are visited: structural bytes outside
//! strings, quotes, and the first byte of each run of other bytes (a number or a literal,
//! checked by the same functions the careful skip uses). A grammar walk over those tokens
//! checks the structure; control bytes inside strings, backslashes outside them and every
//! escape are checked from the masks, UTF-8 once over the whole value with simdutf8.
//!
//! It gives up — `None` — on anything it does not accept: a fault of any kind, a `\u`
//! escape of a surrogate (pairs are the careful skip's), an escaped backslash followed by
//! a byte that could not follow a backslash, nesting deeper than asked, an input that ends
//! first. The caller then runs the careful skip (`skip.rs`), which accepts exactly
//! what this accepts and more, and names the fault. Tests check that every input either
//! gives the careful skip's end here or is given up.

use super::number::number;
use super::scan::literal;
use super::simd::{escaped_bytes, Isa, Level};

/// Bit `k` set when byte `k` of a 64-byte block is of the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Masks {
    pub(crate) quote: u64,
    pub(crate) backslash: u64,
    /// Below 0x20.
    pub(crate) control: u64,
    /// At or above 0x80.
    pub(crate) high: u64,
    /// `{`, `}`, `[`, `]`, `:` or `,`.
    pub(crate) structural: u64,
    /// Space, tab, line feed or carriage return.
    pub(crate) space: u64,
}

/// The deepest nesting the walk tracks (its stack is a bit per level).
const MAX_TRACKED: usize = 256;

// Grammar states of the walk over the tokens (a `u8`, to index [`TRANSITION`]).
/// A value.
const VALUE: u8 = 0;
/// A value or `]` (just after `[`).
const FIRST_VALUE: u8 = 1;
/// A key (after `,` in an object).
const KEY: u8 = 2;
/// A key or `}` (just after `{`).
const FIRST_KEY: u8 = 3;
/// The closing quote of a string value.
const VALUE_QUOTE: u8 = 4;
/// The closing quote of a key.
const KEY_QUOTE: u8 = 5;
/// The colon after a key.
const COLON: u8 = 6;
/// `,` or the closing bracket of the innermost container.
const NEXT: u8 = 7;

// Transitions that do more than move to a state (every value below `ACTIONS` is a state).
const ACTIONS: u8 = 8;
const PUSH_OBJECT: u8 = 8;
const PUSH_ARRAY: u8 = 9;
const POP_OBJECT: u8 = 10;
const POP_ARRAY: u8 = 11;
/// `,`: a key next in an object, a value in an array.
const COMMA: u8 = 12;
/// A number or a literal, checked in place.
const SCALAR: u8 = 13;
const FAIL: u8 = 14;

/// The class of a token's first byte: `{ [ } ] : , "` are 0 to 6, anything else (a scalar's
/// first byte) 7.
const CLASS: [u8; 256] = {
    let mut t = [7u8; 256];
    t[b'{' as usize] = 0;
    t[b'[' as usize] = 1;
    t[b'}' as usize] = 2;
    t[b']' as usize] = 3;
    t[b':' as usize] = 4;
    t[b',' as usize] = 5;
    t[b'"' as usize] = 6;
    t
};

/// `TRANSITION[state * 8 + class]`: the next state, or an action.
const TRANSITION: [u8; 64] = {
    let mut t = [FAIL; 64];
    let value = [
        PUSH_OBJECT,
        PUSH_ARRAY,
        FAIL,
        FAIL,
        FAIL,
        FAIL,
        VALUE_QUOTE,
        SCALAR,
    ];
    let mut class = 0;
    while class < 8 {
        t[VALUE as usize * 8 + class] = value[class];
        t[FIRST_VALUE as usize * 8 + class] = value[class];
        class += 1;
    }
    t[FIRST_VALUE as usize * 8 + 3] = POP_ARRAY;
    t[KEY as usize * 8 + 6] = KEY_QUOTE;
    t[FIRST_KEY as usize * 8 + 6] = KEY_QUOTE;
    t[FIRST_KEY as usize * 8 + 2] = POP_OBJECT;
    t[VALUE_QUOTE as usize * 8 + 6] = NEXT;
    t[KEY_QUOTE as usize * 8 + 6] = COLON;
    t[COLON as usize * 8 + 4] = VALUE;
    t[NEXT as usize * 8 + 5] = COMMA;
    t[NEXT as usize * 8 + 2] = POP_OBJECT;
    t[NEXT as usize * 8 + 3] = POP_ARRAY;
    t
};

/// The position after the array or object whose `[` or `{` is at `at`, validated as the
/// careful skip would (at most `depth` containers open at once), or `None` when this walk
/// gives up (see the module docs).
pub(crate) fn container_end(buf: &[u8], at: usize, depth: usize) -> Option<usize> {
    container_end_with(Level::current(), buf, at, depth)
}

/// [`container_end`] with the classifier of `level`.
pub(crate) fn container_end_with(
    level: Level,
    buf: &[u8],
    at: usize,
    depth: usize,
) -> Option<usize> {
    if !matches!(buf.get(at), Some(b'[' | b'{')) {
        return None;
    }
    match level.isa() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Level` is made only for an instruction set the CPU has (see `Level`).
        Isa::Avx512 => unsafe { walk_avx512(buf, at, depth) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Isa::Avx2 => unsafe { walk_avx2(buf, at, depth) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of the x86-64 baseline.
        Isa::Sse2 => unsafe { walk_sse2(buf, at, depth) },
        _ => walk(buf, at, depth, classify_scalar),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn walk_avx512(buf: &[u8], at: usize, depth: usize) -> Option<usize> {
    // (The classifier's features are this function's: a safe call.)
    walk(buf, at, depth, |b| classify_avx512(b))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn walk_avx2(buf: &[u8], at: usize, depth: usize) -> Option<usize> {
    // (The classifier's features are this function's: a safe call.)
    walk(buf, at, depth, |b| classify_avx2(b))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn walk_sse2(buf: &[u8], at: usize, depth: usize) -> Option<usize> {
    // (The classifier's features are this function's: a safe call.)
    walk(buf, at, depth, |b| classify_sse2(b))
}

/// The walk over the blocks from `at`, with the classifier `classify`.
#[inline(always)]
fn walk(
    buf: &[u8],
    at: usize,
    depth: usize,
    classify: impl Fn(&[u8; 64]) -> Masks,
) -> Option<usize> {
    let depth = depth.min(MAX_TRACKED);
    // A bit per open container, set for an object; `open` of them.
    let mut stack = [0u64; MAX_TRACKED / 64];
    let mut open = 0usize;
    let mut expect = VALUE;
    let mut escape_carry = false;
    // All ones when the block starts inside a string.
    let mut in_string_carry = 0u64;
    // The last byte of the block before was an "other" byte (of a number or a literal).
    let mut other_carry = 0u64;
    let mut high_seen = 0u64;
    // The last, partial block is padded with spaces (no token).
    let mut padded = [b' '; 64];
    let mut pos = at;
    loop {
        let rest = buf.get(pos..)?;
        let (block, last) = match rest.first_chunk::<64>() {
            Some(block) => (block, false),
            None if rest.is_empty() => return None,
            None => {
                padded.get_mut(..rest.len())?.copy_from_slice(rest);
                (&padded, true)
            }
        };
        let m = classify(block);
        let escaped = escaped_bytes(m.backslash, &mut escape_carry);
        let quotes = m.quote & !escaped;
        let in_string = prefix_xor(quotes) ^ in_string_carry;
        in_string_carry = ((in_string as i64) >> 63) as u64;
        // No control byte inside a string, no backslash outside one.
        if (m.control & in_string) | (m.backslash & !in_string) != 0 {
            return None;
        }
        // Escapes: a backslash is followed by one of `"\/bfnrt`, or by `u` and four hex
        // digits. (Every backslash is checked so, also the second of `\\`, whose next byte
        // may be any: then the careful skip decides.)
        let mut escapes = m.backslash & !escaped;
        while escapes != 0 {
            let k = escapes.trailing_zeros() as usize;
            escapes &= escapes.wrapping_sub(1);
            let at = pos.wrapping_add(k);
            match *buf.get(at.wrapping_add(1))? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                b'u' => {
                    // Four hex digits naming no surrogate (a pair is the careful skip's).
                    let hex = buf.get(at.wrapping_add(2)..at.wrapping_add(6))?;
                    let text = std::str::from_utf8(hex).ok()?;
                    let unit = u16::from_str_radix(text, 16).ok()?;
                    if text.starts_with('+') || (0xd800..=0xdfff).contains(&unit) {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        high_seen |= m.high;
        let structural = m.structural & !in_string;
        let other = !(m.structural | m.space | m.quote) & !in_string;
        let scalar_starts = other & !((other << 1) | other_carry);
        other_carry = other >> 63;
        let mut tokens = structural | quotes | scalar_starts;
        while tokens != 0 {
            let k = tokens.trailing_zeros() as usize;
            tokens &= tokens.wrapping_sub(1);
            let c = *block.get(k)?;
            let class = *CLASS.get(usize::from(c))?;
            let action = *TRANSITION.get(usize::from(expect) * 8 + usize::from(class))?;
            if action < ACTIONS {
                // A plain move (most tokens: quotes, colons).
                expect = action;
                continue;
            }
            let p = pos.wrapping_add(k);
            expect = match action {
                PUSH_OBJECT | PUSH_ARRAY => {
                    if open >= depth {
                        return None;
                    }
                    let object = u64::from(action == PUSH_OBJECT);
                    let w = stack.get_mut(open / 64)?;
                    *w = (*w & !(1 << (open % 64))) | (object << (open % 64));
                    open = open.wrapping_add(1);
                    if action == PUSH_OBJECT {
                        FIRST_KEY
                    } else {
                        FIRST_VALUE
                    }
                }
                POP_OBJECT | POP_ARRAY => {
                    if top_is_object(&stack, open)? != (action == POP_OBJECT) {
                        return None;
                    }
                    open = open.wrapping_sub(1);
                    if open == 0 {
                        return finish(buf, at, p, high_seen);
                    }
                    NEXT
                }
                COMMA => match top_is_object(&stack, open)? {
                    true => KEY,
                    false => VALUE,
                },
                SCALAR => {
                    let end = match c {
                        b't' => literal(buf, p, b"true").ok()?,
                        b'f' => literal(buf, p, b"false").ok()?,
                        b'n' => literal(buf, p, b"null").ok()?,
                        b'-' | b'0'..=b'9' => number(buf, p).ok()?.0,
                        _ => return None,
                    };
                    // The run of other bytes is exactly the scalar.
                    if !matches!(
                        buf.get(end),
                        Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}')
                    ) {
                        return None;
                    }
                    NEXT
                }
                _ => return None,
            };
        }
        if last {
            return None;
        }
        pos = pos.wrapping_add(64);
    }
}

/// Whether the innermost open container is an object.
#[inline(always)]
fn top_is_object(stack: &[u64; MAX_TRACKED / 64], open: usize) -> Option<bool> {
    let i = open.checked_sub(1)?;
    Some(stack.get(i / 64)? >> (i % 64) & 1 == 1)
}

/// The end after the closing bracket at `close`, once the value's UTF-8 is checked (only when
/// a byte at or above 0x80 was seen).
#[inline(always)]
fn finish(buf: &[u8], at: usize, close: usize, high_seen: u64) -> Option<usize> {
    let end = close.wrapping_add(1);
    if high_seen != 0 {
        simdutf8::basic::from_utf8(buf.get(at..end)?).ok()?;
    }
    Some(end)
}

/// Bit `k` of the result is the XOR of bits `0..=k` of `x`: the bytes from an opening quote
/// up to (not including) its closing quote.
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

/// The masks of a block, a byte at a time (the portable classifier, and the tests' oracle).
pub(crate) fn classify_scalar(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (k, &b) in block.iter().enumerate() {
        let bit = 1u64 << k;
        let set = |mask: &mut u64, yes: bool| *mask |= if yes { bit } else { 0 };
        set(&mut m.quote, b == b'"');
        set(&mut m.backslash, b == b'\\');
        set(&mut m.control, b < 0x20);
        set(&mut m.high, b >= 0x80);
        set(
            &mut m.structural,
            matches!(b, b'{' | b'}' | b'[' | b']' | b':' | b','),
        );
        set(&mut m.space, matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    }
    m
}

/// The masks of a block with SSE2's 16-byte vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
// Not inlined: LLVM otherwise turns the movemask results into vectors of booleans and
// back, byte by byte (hundreds of instructions a block; perf/optimizations.md).
#[inline(never)]
fn classify_sse2(block: &[u8; 64]) -> Masks {
    let [a, b, c, d] = [0usize, 16, 32, 48].map(|at| {
        let chunk = block
            .get(at..at.wrapping_add(16))
            .and_then(|c| c.first_chunk::<16>());
        chunk.map_or(Lanes::default(), |chunk| lanes_sse2(chunk))
    });
    // (Each lane mask is 16 bits: the four fill 64.)
    let join = |f: fn(&Lanes) -> u32| {
        u64::from(f(&a)) | u64::from(f(&b)) << 16 | u64::from(f(&c)) << 32 | u64::from(f(&d)) << 48
    };
    Masks {
        quote: join(|l| l.quote),
        backslash: join(|l| l.backslash),
        control: join(|l| l.control),
        high: join(|l| l.high),
        structural: join(|l| l.structural),
        space: join(|l| l.space),
    }
}

/// The masks of one vector (16 or 32 bytes), before they are joined into a block's.
#[derive(Default)]
struct Lanes {
    quote: u32,
    backslash: u32,
    control: u32,
    high: u32,
    structural: u32,
    space: u32,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn lanes_sse2(chunk: &[u8; 16]) -> Lanes {
    use std::arch::x86_64::*;
    // SAFETY: `chunk` is 16 bytes, and the load is unaligned.
    let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
    let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
    let low = _mm_set1_epi8(0x1f);
    // `[`/`]` are `{`/`}` with bit 5 clear.
    let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    let fold_eq = |b: u8| _mm_cmpeq_epi8(folded, _mm_set1_epi8(b as i8));
    let mask = |x: __m128i| _mm_movemask_epi8(x) as u32 & 0xffff;
    let brackets = _mm_or_si128(fold_eq(b'{'), fold_eq(b'}'));
    let punct = _mm_or_si128(eq(b':'), eq(b','));
    let space = _mm_or_si128(
        _mm_or_si128(eq(b' '), eq(b'\t')),
        _mm_or_si128(eq(b'\n'), eq(b'\r')),
    );
    Lanes {
        quote: mask(eq(b'"')),
        backslash: mask(eq(b'\\')),
        control: mask(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low)),
        high: mask(v),
        structural: mask(_mm_or_si128(brackets, punct)),
        space: mask(space),
    }
}

/// The masks of a block with AVX2's 32-byte vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
// Not inlined: LLVM otherwise turns the movemask results into vectors of booleans and
// back, byte by byte (hundreds of instructions a block; perf/optimizations.md).
#[inline(never)]
fn classify_avx2(block: &[u8; 64]) -> Masks {
    let [lo, hi] = [0usize, 32].map(|at| {
        let chunk = block
            .get(at..at.wrapping_add(32))
            .and_then(|c| c.first_chunk::<32>());
        chunk.map_or(Lanes::default(), |chunk| lanes_avx2(chunk))
    });
    let join = |f: fn(&Lanes) -> u32| u64::from(f(&lo)) | u64::from(f(&hi)) << 32;
    Masks {
        quote: join(|l| l.quote),
        backslash: join(|l| l.backslash),
        control: join(|l| l.control),
        high: join(|l| l.high),
        structural: join(|l| l.structural),
        space: join(|l| l.space),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn lanes_avx2(chunk: &[u8; 32]) -> Lanes {
    use std::arch::x86_64::*;
    // SAFETY: `chunk` is 32 bytes, and the load is unaligned.
    let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
    let eq = |b: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8));
    let low = _mm256_set1_epi8(0x1f);
    let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
    let fold_eq = |b: u8| _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b as i8));
    let mask = |x: __m256i| _mm256_movemask_epi8(x) as u32;
    let brackets = _mm256_or_si256(fold_eq(b'{'), fold_eq(b'}'));
    let punct = _mm256_or_si256(eq(b':'), eq(b','));
    let space = _mm256_or_si256(
        _mm256_or_si256(eq(b' '), eq(b'\t')),
        _mm256_or_si256(eq(b'\n'), eq(b'\r')),
    );
    Lanes {
        quote: mask(eq(b'"')),
        backslash: mask(eq(b'\\')),
        control: mask(_mm256_cmpeq_epi8(_mm256_max_epu8(v, low), low)),
        high: mask(v),
        structural: mask(_mm256_or_si256(brackets, punct)),
        space: mask(space),
    }
}

/// [`classify_sse2`] with AVX-512BW's 64-byte vectors.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
// Not inlined: LLVM otherwise turns the movemask results into vectors of booleans and
// back, byte by byte (hundreds of instructions a block; perf/optimizations.md).
#[inline(never)]
fn classify_avx512(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::*;
    // SAFETY: `block` is 64 bytes, and the load is unaligned.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
    let eq = |b: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8));
    let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    let fold_eq = |b: u8| _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8(b as i8));
    Masks {
        quote: eq(b'"'),
        backslash: eq(b'\\'),
        control: _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f)),
        high: _mm512_movepi8_mask(v),
        structural: fold_eq(b'{') | fold_eq(b'}') | eq(b':') | eq(b','),
        space: eq(b' ') | eq(b'\t') | eq(b'\n') | eq(b'\r'),
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::*;
    use crate::test_rng::{next, rounds};
    use bumpalo::collections::Vec as BumpVec;

    /// The careful skip's end of the value at 0 (depth 10), or `None` for a fault.
    fn careful(buf: &[u8]) -> Option<usize> {
        let bump = bumpalo::Bump::new();
        let mut stack = BumpVec::new_in(&bump);
        super::super::skip::skip_careful(buf, 0, &mut stack, 10, 10).ok()
    }

    /// A random JSON value (depth at most 4): strings with escapes, `\u` escapes, UTF-8 and
    /// lengths across the 64-byte blocks, numbers, literals, whitespace.
    fn value(seed: &mut u64, depth: u32, out: &mut String) {
        let ws = |seed: &mut u64, out: &mut String| {
            if next(seed) % 4 == 0 {
                out.push_str([" ", "\n  ", "\t", "\r\n"][(next(seed) % 4) as usize]);
            }
        };
        ws(seed, out);
        match next(seed) % if depth == 0 { 4 } else { 6 } {
            0 => {
                out.push('"');
                for _ in 0..next(seed) % 80 {
                    out.push_str(
                        [
                            "a", "é", "\\\"", "\\\\", "\\n", "\\u00e9", "\\u003c", "{", "]", ":",
                            ",", "€", " ",
                        ][(next(seed) % 13) as usize],
                    );
                }
                out.push('"');
            }
            1 => out.push_str(
                ["0", "-12", "3.25", "1e9", "-0.5E-3", "123456789012"][(next(seed) % 6) as usize],
            ),
            2 => out.push_str(["true", "false", "null"][(next(seed) % 3) as usize]),
            3 => out.push_str("\"\""),
            4 => {
                out.push('[');
                for k in 0..next(seed) % 5 {
                    if k > 0 {
                        out.push(',');
                    }
                    value(seed, depth - 1, out);
                }
                ws(seed, out);
                out.push(']');
            }
            _ => {
                out.push('{');
                for k in 0..next(seed) % 5 {
                    if k > 0 {
                        out.push(',');
                    }
                    ws(seed, out);
                    out.push_str(&format!("\"k{k}\""));
                    ws(seed, out);
                    out.push(':');
                    value(seed, depth - 1, out);
                }
                ws(seed, out);
                out.push('}');
            }
        }
        ws(seed, out);
    }

    /// Every classifier gives the portable one's masks.
    #[test]
    fn classifiers_equal_the_scalar_one() {
        let mut seed = 7u64;
        for _ in 0..rounds(2_000, 20) {
            let mut block = [0u8; 64];
            for b in &mut block {
                *b = match next(&mut seed) % 3 {
                    0 => {
                        b"{}[]:,\" \t\n\r\\\x01\x1f\x20\x7f\x80\xff["
                            [(next(&mut seed) % 19) as usize]
                    }
                    _ => next(&mut seed) as u8,
                };
            }
            let want = classify_scalar(&block);
            for level in Level::all_available() {
                let got = match level.isa() {
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: `level` is available on this CPU.
                    Isa::Avx512 => unsafe { classify_avx512(&block) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: as above.
                    Isa::Avx2 => unsafe { classify_avx2(&block) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: SSE2 is part of the x86-64 baseline.
                    Isa::Sse2 => unsafe { classify_sse2(&block) },
                    _ => classify_scalar(&block),
                };
                assert_eq!(got, want, "{level:?} {block:02x?}");
            }
        }
    }

    /// At every level, on generated values, their prefixes and their mutations: the walk
    /// finds the careful skip's end or gives up, and it gives up on no generated value
    /// without a surrogate escape or an escaped backslash.
    #[test]
    fn walk_agrees_with_the_careful_skip() {
        let mut seed = 11u64;
        let mut accepted = 0;
        for round in 0..rounds(3_000, 30) {
            let mut text = String::from(if round % 2 == 0 { "[" } else { "{\"a\":" });
            value(&mut seed, 4, &mut text);
            text.push_str(if round % 2 == 0 { "]" } else { "}" });
            text.push_str(" ,tail");
            let mut inputs = vec![text.clone().into_bytes()];
            let bytes = text.as_bytes();
            let cut = (next(&mut seed) as usize) % bytes.len();
            inputs.push(bytes[..cut].to_vec());
            let mut mutated = bytes.to_vec();
            let at = (next(&mut seed) as usize) % mutated.len();
            mutated[at] = b"{}[]:,\"\\ 0a\x01\xff"[(next(&mut seed) % 13) as usize];
            inputs.push(mutated);
            for (k, input) in inputs.iter().enumerate() {
                let want = careful(input);
                for level in Level::all_available() {
                    let got = container_end_with(level, input, 0, 10);
                    if let Some(end) = got {
                        assert_eq!(
                            Some(end),
                            want,
                            "{level:?} {:?}",
                            String::from_utf8_lossy(input)
                        );
                    } else if k == 0 && !text.contains("\\\\") {
                        panic!("{level:?} gave up on {text:?}");
                    }
                    if k == 0 && got.is_some() {
                        accepted += 1;
                    }
                }
            }
        }
        assert!(accepted > 0);
    }

    /// Hand-picked cases: escapes across blocks, scalars at block ends, depth, faults.
    #[test]
    fn cases() {
        let long = "x".repeat(70);
        let ok = [
            format!(r#"[{long:?},"\"",{{"k":[1,true,null,-2.5e3]}}] "#),
            format!("[\"{}\\\"\"]", "y".repeat(62)),
            format!("{{\"{}\":123456}}", "z".repeat(58)),
            "[\"\\u00e9\\/\\b\\f\\n\\r\\t\"]".to_string(),
            "[[[[[[[[[[]]]]]]]]]]".to_string(),
        ];
        for text in &ok {
            for level in Level::all_available() {
                let got = container_end_with(level, text.as_bytes(), 0, 10);
                assert_eq!(got, careful(text.as_bytes()), "{level:?} {text}");
                assert_eq!(got, Some(text.trim_end().len()), "{level:?} {text}");
            }
        }
        let faults = [
            "[1 2]",
            "[1,]",
            "{\"a\" 1}",
            "{1:1}",
            "[1}",
            "[\"\\q\"]",
            "[\"\\ud800\"]",
            "[[",
            "[01]",
            "[tru]",
            "[1x]",
            "[\"a\u{1}\"]",
            "[[[[[[[[[[[]]]]]]]]]]]",
            "[\\]",
            "{\"a\":}",
        ];
        for text in faults {
            for level in Level::all_available() {
                assert_eq!(
                    container_end_with(level, text.as_bytes(), 0, 10),
                    None,
                    "{level:?} {text}"
                );
            }
        }
        // Not UTF-8 inside a string.
        let bad = b"[\"\xff\"]";
        assert_eq!(container_end(bad, 0, 10), None);
    }
}
