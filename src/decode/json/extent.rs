//! The extent of a JSON value found without validating it (simdjson-style masks, 64 bytes at
//! a time), for values that are decoded or compared afterwards: a dynamic wrapper's value
//! that precedes its type, and type JSON. [`Memo`] keeps the container extents found, so a
//! nested wrapper is not rescanned. Its block masks ([`Masks64`]), the strings carried from
//! block to block ([`StringState`]) and the prefix XOR they take ([`PrefixXor`]: shifts, or
//! one carry-less multiplication) serve the other block scans too (`counted.rs`,
//! `token_skip.rs`).
//!
//! Positions step over bytes just read with `wrapping_add`, which cannot wrap (see
//! `scan.rs` on positions).

use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;

use super::scan::{eof, too_deep, ws};
use super::simd::escaped_bytes;
use super::string::scan_string;
use crate::decode::common::Pending;

/// Container extents found by [`skip_fast`], kept for the whole decode: a value-first
/// dynamic wrapper nested in another one's value is skipped again when the outer value is
/// decoded, and finds its end here instead of rescanning (which would cost the nesting depth
/// times the size).
/// In the arena, like the rest of the decode's scratch space: warm decodes allocate nothing.
pub(super) struct Memo<'a> {
    /// `(start, end)` of every container a skip passed, in order of `start`.
    ends: BumpVec<'a, (usize, usize)>,
    /// Indexes in `ends` of the containers open during a skip.
    open: BumpVec<'a, usize>,
}

impl<'a> Memo<'a> {
    pub(super) fn new_in(bump: &'a Bump) -> Memo<'a> {
        Memo {
            ends: BumpVec::new_in(bump),
            open: BumpVec::new_in(bump),
        }
    }

    /// The end of the container starting at `i`, if a skip passed it.
    #[inline]
    fn end_of(&self, i: usize) -> Option<usize> {
        let k = self.ends.binary_search_by_key(&i, |e| e.0).ok()?;
        self.ends.get(k).map(|e| e.1)
    }
}

/// Finds the end of the JSON value at `i` (whitespace allowed before it) without validating
/// it: strings are jumped over, brackets counted, scalars end at the next delimiter. Only
/// for values that are decoded afterwards (which validates them, and must end at the same
/// byte) or compared byte for byte with validated text: a dynamic wrapper's value that
/// precedes its type, and type JSON. Nesting deeper than `depth` is a
/// [`ErrorKind::Limit`] error; an input that ends first is an [`ErrorKind::Eof`] error.
///
/// [`ErrorKind::Limit`]: crate::error::ErrorKind::Limit
/// [`ErrorKind::Eof`]: crate::error::ErrorKind::Eof
pub(super) fn skip_fast(
    buf: &[u8],
    i: usize,
    depth: usize,
    max_depth: u32,
    memo: &mut Memo<'_>,
) -> Result<usize, Pending> {
    let i = ws(buf, i);
    match buf.get(i) {
        None => Err(eof(i)),
        Some(b'"') => Ok(string_end_fast(buf, i.wrapping_add(1))?.wrapping_add(1)),
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
                j = j.wrapping_add(1);
            }
            Ok(j.max(i.wrapping_add(1)))
        }
    }
}

/// The position of the closing quote of the string whose body starts at `i` (control bytes
/// are rejected on the way, as the decode would).
#[inline(always)]
fn string_end_fast(buf: &[u8], i: usize) -> Result<usize, Pending> {
    // (`i` is just past the opening quote, so at least 1.)
    scan_string(buf, i, i.wrapping_sub(1)).map(|(end, _)| end)
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
    memo: &mut Memo<'_>,
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
    let mut i = at.wrapping_add(1);
    let mut state = StringState::default();
    while let Some(block) = buf.get(i..).and_then(|s| s.first_chunk::<64>()) {
        let m = Masks64::of(block);
        let inside = state.strings::<Shifts>(block, &m);
        let mut brackets = (m.open | m.close) & !inside;
        while brackets != 0 {
            let p = i.wrapping_add(brackets.trailing_zeros() as usize);
            if let Some(end) = d.bracket(buf, memo, p)? {
                return Ok(end);
            }
            // Clears the lowest set bit (`brackets != 0`).
            brackets &= brackets.wrapping_sub(1);
        }
        i = i.wrapping_add(64);
    }
    // The tail, byte by byte.
    while let Some(&c) = buf.get(i) {
        let inside = state.step(c);
        if !inside && matches!(c, b'[' | b']' | b'{' | b'}') {
            if let Some(end) = d.bracket(buf, memo, i)? {
                return Ok(end);
            }
        }
        i = i.wrapping_add(1);
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
    fn bracket(
        &mut self,
        buf: &[u8],
        memo: &mut Memo<'_>,
        p: usize,
    ) -> Result<Option<usize>, Pending> {
        if matches!(buf.get(p), Some(b'[' | b'{')) {
            // At most `depth + 1`.
            self.open = self.open.saturating_add(1);
            if self.open > self.depth {
                return Err(too_deep(p, self.max_depth));
            }
            // Only what a later skip can start at: the value of a dynamic wrapper (after
            // `"value":`, compact as go-cty writes it). Its entry notes its nesting level,
            // which its closing bracket finds again.
            if self.record && p.checked_sub(8).and_then(|s| buf.get(s..p)) == Some(b"\"value\":") {
                memo.open.push(memo.ends.len());
                memo.ends.push((p, self.open));
            }
            return Ok(None);
        }
        let end = p.wrapping_add(1);
        if self.record {
            if let Some(&k) = memo.open.last() {
                if let Some(e) = memo.ends.get_mut(k).filter(|e| e.1 == self.open) {
                    // (Its level, replaced by its end.)
                    e.1 = end;
                    memo.open.pop();
                }
            }
        }
        // A closing bracket: the first bracket opened, so `open >= 1` here.
        self.open = self.open.saturating_sub(1);
        Ok((self.open == 0).then_some(end))
    }
}

/// Whether a scan is inside a string, and whether the next byte is escaped.
#[derive(Clone, Copy, Default)]
pub(super) struct StringState {
    inside: bool,
    escaped: bool,
}

impl StringState {
    /// Advances over `c`; true if `c` is part of a string (its quotes included, except the
    /// closing one).
    #[inline(always)]
    pub(super) fn step(&mut self, c: u8) -> bool {
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

    /// The mask of the bytes of `block` (whose masks are `m`) that are part of strings, the
    /// state carried to the next block.
    #[inline(always)]
    pub(super) fn strings<P: PrefixXor>(&mut self, block: &[u8; 64], m: &Masks64) -> u64 {
        if m.backslash == 0 && !self.escaped {
            let inside = P::prefix_xor(m.quote) ^ if self.inside { !0 } else { 0 };
            self.inside = inside >> 63 == 1;
            return inside;
        }
        let before = *self;
        let quotes = m.quote & !escaped_bytes(m.backslash, &mut self.escaped);
        let inside = P::prefix_xor(quotes) ^ if before.inside { !0 } else { 0 };
        self.inside = inside >> 63 == 1;
        if m.backslash & !inside == 0 {
            return inside;
        }
        // A backslash outside a string (not JSON): it escapes nothing there, which the masks
        // above assumed; walk this block byte by byte instead, so that the extent never
        // depends on where the 64-byte blocks fall.
        *self = before;
        self.walk(block)
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

/// The naive oracle of the block scans: the end of the container at `b[0]`, walking byte by
/// byte (brackets outside strings counted, whatever their kind); `None` when `b` ends first.
#[cfg(test)]
pub(super) fn byte_walk_end(b: &[u8]) -> Option<usize> {
    let (mut open, mut st) = (0usize, StringState::default());
    for (i, &c) in b.iter().enumerate() {
        if !st.step(c) && matches!(c, b'[' | b']' | b'{' | b'}') {
            if matches!(c, b'[' | b'{') {
                open = open.wrapping_add(1);
            } else {
                open = open.wrapping_sub(1);
                if open == 0 {
                    return Some(i.wrapping_add(1));
                }
            }
        }
    }
    None
}

/// Bit `k` set when byte `k` is a quote / a backslash / an opening / a closing bracket.
pub(super) struct Masks64 {
    pub(super) quote: u64,
    pub(super) backslash: u64,
    pub(super) open: u64,
    pub(super) close: u64,
}

impl Masks64 {
    /// The masks with the x86-64 baseline's SSE2 (a byte loop elsewhere).
    #[inline(always)]
    pub(super) fn of(block: &[u8; 64]) -> Masks64 {
        let mut m = Masks64 {
            quote: 0,
            backslash: 0,
            open: 0,
            close: 0,
        };
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let chunk: &[u8; 16] = chunk.try_into().unwrap_or(&[0; 16]);
            let [q, b, o, c] = masks16_structural(chunk);
            // `k < 4`: a shift of 0, 16, 32 or 48 bits.
            let shift = k.wrapping_mul(16);
            m.quote |= (q as u64) << shift;
            m.backslash |= (b as u64) << shift;
            m.open |= (o as u64) << shift;
            m.close |= (c as u64) << shift;
        }
        m
    }
}

/// Bit `k` set for every byte at or after an odd number of set bits up to `k` (inclusive):
/// from an opening quote up to, not including, its closing quote.
#[inline(always)]
pub(super) fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// How a block scan computes a prefix XOR: with shifts, or with one carry-less
/// multiplication where the CPU has it.
pub(super) trait PrefixXor {
    /// Bit `k` set for every byte at or after an odd number of set bits up to `k`
    /// (inclusive).
    fn prefix_xor(x: u64) -> u64;
}

/// [`PrefixXor`] with six shifts and XORs ([`prefix_xor`]).
pub(super) struct Shifts;

impl PrefixXor for Shifts {
    #[inline(always)]
    fn prefix_xor(x: u64) -> u64 {
        prefix_xor(x)
    }
}

/// [`PrefixXor`] with `pclmulqdq` (a multiplication by all ones), for the functions compiled
/// with that feature: only those may use it.
#[cfg(target_arch = "x86_64")]
pub(super) struct Clmul;

#[cfg(target_arch = "x86_64")]
impl PrefixXor for Clmul {
    #[inline(always)]
    fn prefix_xor(x: u64) -> u64 {
        // SAFETY: `Clmul` is used only by functions compiled with `pclmulqdq`, which are
        // called only where the CPU has it (`token_skip::container_end`,
        // `counted::container_end_counted_at`).
        unsafe { prefix_xor_clmul(x) }
    }
}

/// [`prefix_xor`] with a carry-less multiplication.
///
/// # Safety
/// A safe `#[target_feature]` function: callers without the feature enabled must call it
/// in an `unsafe` block, having made sure that the CPU supports `pclmulqdq`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq,sse2")]
#[inline]
fn prefix_xor_clmul(x: u64) -> u64 {
    use std::arch::x86_64::*;
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// Masks of quotes, backslashes, opening and closing brackets in 16 bytes.
#[inline(always)]
fn masks16_structural(chunk: &[u8; 16]) -> [u32; 4] {
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
            [
                _mm_movemask_epi8(quote) as u32,
                _mm_movemask_epi8(backslash) as u32,
                _mm_movemask_epi8(open) as u32,
                _mm_movemask_epi8(close) as u32,
            ]
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut q, mut b, mut o, mut s) = (0, 0, 0, 0);
        for (k, &c) in chunk.iter().enumerate() {
            q |= ((c == b'"') as u32) << k;
            b |= ((c == b'\\') as u32) << k;
            o |= (matches!(c, b'[' | b'{') as u32) << k;
            s |= (matches!(c, b']' | b'}') as u32) << k;
        }
        [q, b, o, s]
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    use super::super::skip::skip;
    use super::*;
    use crate::error::ErrorKind;

    fn fresh_memo(bump: &Bump) -> Memo<'_> {
        Memo::new_in(bump)
    }

    /// A fresh skip from the start of every container `memo` recorded ends where it recorded.
    #[track_caller]
    fn assert_recorded_ends_refound(b: &[u8], memo: &Memo<'_>, text: &str) {
        for &(start, end) in &memo.ends {
            let bump = Bump::new();
            let mut fresh = fresh_memo(&bump);
            assert_eq!(
                skip_fast(b, start, 10, 10, &mut fresh).ok(),
                Some(end),
                "{text} at {start}"
            );
        }
    }

    #[test]
    fn fast_skips_find_the_same_ends() {
        let bump = Bump::new();
        let mut st = BumpVec::new_in(&bump);
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
            let mut memo = fresh_memo(&bump);
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
            assert_recorded_ends_refound(b, &memo, v);
            // Every truncation of a container fails with Eof.
            if v.trim_start().starts_with(['[', '{']) {
                let end = want.unwrap();
                for cut in 0..end {
                    let got =
                        skip_fast(&b[..cut], 0, 10, 10, &mut fresh_memo(&bump)).map_err(|p| p.0 .0);
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
        for pad in (0..140).step_by(crate::test_rng::rounds(1, 11)) {
            for (k, piece) in pieces.iter().enumerate() {
                let filler = "a".repeat(pad);
                let text = format!(
                    r#"[{{"k{k}":"{filler}{piece}{filler}"}},["{piece}",[]],"{piece}"] tail"#
                );
                let b = text.as_bytes();
                let want = skip(b, 0, &mut st, 10, 10).map_err(|p| p.0 .0);
                let mut memo = fresh_memo(&bump);
                let got = skip_fast(b, 0, 10, 10, &mut memo).map_err(|p| p.0 .0);
                assert_eq!(got, want, "{text}");
                assert_recorded_ends_refound(b, &memo, &text);
            }
        }
        // Malformed input with backslashes and quotes outside strings: the same extent at
        // every alignment as a byte-by-byte walk.
        for pad in (0..70).step_by(crate::test_rng::rounds(1, 11)) {
            for bad in [r#"\"]"#, r#"]\\"["#, r#"\\\"{"#, r#""\"]\"#, r#"\["#] {
                let text = format!(
                    r#"[{}{bad}"x",["\\",{{"a":"]"}}],"{}",[] ]]]]"#,
                    " ".repeat(pad),
                    "y".repeat(pad)
                );
                let b = text.as_bytes();
                let got = skip_fast(b, 0, 64, 64, &mut fresh_memo(&bump)).ok();
                assert_eq!(got, byte_walk_end(b), "{text}");
            }
        }
        let deep = "[".repeat(11);
        let mut memo = fresh_memo(&bump);
        assert_eq!(
            skip_fast(deep.as_bytes(), 0, 10, 10, &mut memo).map_err(|p| (p.0 .0, p.0 .1)),
            Err((ErrorKind::Limit, 10))
        );
        assert_eq!(
            skip_fast(b"[]", 0, 0, 10, &mut fresh_memo(&bump)).map_err(|p| p.0 .0),
            Err(ErrorKind::Limit)
        );
    }

    #[test]
    fn escaped_bytes_match_a_byte_walk() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..crate::test_rng::rounds(20_000, 100) {
            // Backslash-heavy blocks, two in a row so that runs cross the boundary.
            let mut bytes = [0u8; 128];
            for b in bytes.iter_mut() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                *b = if rng.is_multiple_of(3) { b'a' } else { b'\\' };
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
}
