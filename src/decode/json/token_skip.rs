//! The validating skip of a JSON container in two stages, as simdjson parses, with no
//! branch per token: stage 1 classifies 64 bytes at a time into masks (quotes,
//! backslashes, each structural character, whitespace, control, non-ASCII and digit bytes),
//! drops escaped quotes with carries, marks the bytes of strings with a prefix XOR (one
//! carry-less multiplication where the CPU has it), and checks on whole blocks what the
//! bytes must be: no control byte but whitespace outside strings, every escape one JSON
//! has, UTF-8 over each run of non-ASCII bytes. Its tokens are the structural characters
//! outside strings, the opening quotes and the first byte of each scalar.
//!
//! Stage 2 checks the grammar on the masks too: a loop over the block's brackets (usually
//! none or two) follows the nesting, matches each closing bracket, and marks where the
//! innermost container is an object; then which token may follow which is checked with
//! additions (the bit after each token, carried across the bytes that are no token to the
//! next one: [`follow`]): after `{` a key or `}`, after a key its colon, after a value a
//! comma or a closing bracket, and so on. A literal or an unsigned integer whole in its
//! block is checked by one 4-byte compare and the digit mask; any other scalar by the
//! executor's own scanner.
//!
//! It answers only "valid, ending here" or "not sure": anything odd (an error, nesting past
//! 64, a scalar the block's end cuts) gives `None`, and the caller runs the careful skip
//! (`skip.rs`), which names the fault. What this skip accepts, the careful skip accepts with
//! the same end: a property test (`token_skip/tests.rs`) on valid and mutated containers, and
//! the `skip_differential` fuzz target against serde_json.
//!
//! It runs only where `TFWIRE_JSON_SKIP=two-stage` is in the environment and the CPU's
//! [`Level`] is AVX-512BW (with PCLMULQDQ); anywhere else `container_end` is "not sure" and
//! the careful skip runs. Below AVX-512 it measured slower than the careful skip (S11 in
//! `perf/optimizations.md`), and at AVX-512 too, on a Zen 5 (S39: 0.4–0.7× the careful skip);
//! CI runs the JSON suite once with it chosen. A naive classifier (a byte loop) is the tests'
//! oracle, and what Miri runs.

#[cfg(target_arch = "x86_64")]
use super::extent::Clmul;
use super::extent::PrefixXor;
#[cfg(test)]
use super::extent::Shifts;
use super::number::number;
use super::scan::literal;
use super::simd::{escaped_bytes, Isa, Level};
use super::string::escape;
#[cfg(target_arch = "x86_64")]
use std::sync::OnceLock;

/// Deepest nesting this skip follows (one bit per open container); deeper is "not sure".
const MAX_NESTING: u32 = 64;

/// The end of the container opening at `at` (after its closing bracket) when it is valid
/// JSON nested at most `max_depth` (and 64) deep; `None` when it is not, or when this skip
/// cannot tell (the careful skip decides).
pub(super) fn container_end(buf: &[u8], at: usize, max_depth: usize) -> Option<usize> {
    if !matches!(buf.get(at), Some(b'[' | b'{')) {
        return None;
    }
    let depth = u32::try_from(max_depth)
        .unwrap_or(u32::MAX)
        .min(MAX_NESTING);
    match Level::current().isa() {
        // (Every AVX-512 CPU has PCLMULQDQ; checked all the same, once: the check is cached.)
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if two_stage_chosen() && std::arch::is_x86_feature_detected!("pclmulqdq") => {
            // SAFETY: a `Level` is made only for an instruction set the CPU has, and
            // PCLMULQDQ was checked just now.
            unsafe { skip_avx512(buf, at, depth) }
        }
        // Below AVX-512 this skip measured slower than the careful one (AVX2: 2,069 MB/s
        // against 2,420 on `aws_instance`; SSE2: 1,249), and unless chosen: not sure, so the
        // careful one runs.
        _ => None,
    }
}

/// Whether `TFWIRE_JSON_SKIP=two-stage` is in the environment (read once): the two-stage
/// skip measured slower than the careful one on every CPU it was last measured on (a Zen 5
/// at AVX-512: 3,831 MB/s against 5,818 on `aws_instance`, 2,321 against 5,686 on a 330 MB
/// state), so it runs only where chosen.
#[cfg(target_arch = "x86_64")]
fn two_stage_chosen() -> bool {
    static CHOSEN: OnceLock<bool> = OnceLock::new();
    *CHOSEN.get_or_init(|| std::env::var_os("TFWIRE_JSON_SKIP").is_some_and(|v| v == "two-stage"))
}

/// Bit `k` set when byte `k` of a 64-byte block is a quote / a backslash / a colon / a
/// comma / `{` / `[` / `}` / `]` / JSON whitespace / below 0x20 / at or above 0x80 / an
/// ASCII digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Masks {
    quote: u64,
    backslash: u64,
    colon: u64,
    comma: u64,
    open_object: u64,
    open_array: u64,
    close_object: u64,
    close_array: u64,
    ws: u64,
    control: u64,
    high: u64,
    digit: u64,
}

/// The state carried from one block to the next.
#[derive(Default)]
struct Carry {
    /// The next block's first byte is escaped.
    escaped: bool,
    /// All ones when a string goes on into the next block.
    inside: u64,
    /// 1 when the last byte was part of a scalar.
    scalar: u64,
    /// The bytes before this are checked UTF-8 (it is an ASCII byte's position, or the end).
    utf8_upto: usize,
    /// The `\u` escapes before this were checked as part of a surrogate pair.
    unicode_upto: usize,
    /// Per [`follow`]: 1 when a token of the last block has its follower in the next one.
    follow: [u64; 6],
    /// A bit per open container, 1 for an object; the innermost is bit 0.
    stack: u64,
    depth: u32,
}

/// The tokens that follow a token of `x` (the next token after each, in this block or, through
/// `carry`, at the start of the next): the bit after each token, carried by an addition to
/// the end of the run of `filler` (the bytes that are no token) it falls in. `carry` is 1
/// when a token of the last block had its follower in this one, and is set so for the next.
///
/// (LLVM keeps a block's six of these in vector registers: written with `_addcarry_u64`, or
/// with the carries packed in one word, they stayed in general registers and the skip was
/// 20% slower; `perf/optimizations.md`, S6.)
#[inline(always)]
fn follow(x: u64, filler: u64, carry: &mut u64) -> u64 {
    let after = (x << 1) | *carry;
    let (sum, overflow) = filler.overflowing_add(after & filler);
    *carry = (x >> 63) | u64::from(overflow);
    (sum | after) & !filler
}

/// The bits below `k` (`k < 64`).
#[inline(always)]
fn below(k: u32) -> u64 {
    (1u64 << k).wrapping_sub(1)
}

/// One block at `base` (masks `m`): `Err(())` when something is not valid (or not sure),
/// `Ok(Some(end))` when the container closes in it, `Ok(None)` when it goes on.
#[inline(always)]
fn block<P: PrefixXor>(
    c: &mut Carry,
    buf: &[u8],
    base: usize,
    m: &Masks,
    max: u32,
) -> Result<Option<usize>, ()> {
    // Stage 1: strings, and the checks of their bytes.
    let escaped = if m.backslash != 0 || c.escaped {
        escaped_bytes(m.backslash, &mut c.escaped)
    } else {
        0
    };
    let quotes = m.quote & !escaped;
    // From an opening quote up to, not including, its closing quote.
    let inside = P::prefix_xor(quotes) ^ c.inside;
    c.inside = ((inside as i64) >> 63) as u64;
    let string = inside | quotes;
    let outside = !string;
    // Control bytes: only whitespace, and only outside strings.
    if m.control & !(m.ws & outside) != 0 {
        return Err(());
    }
    let escapes = escaped & inside;
    if escapes != 0 {
        check_escapes(c, buf, base, escapes).ok_or(())?;
    }
    if m.high != 0 && base.wrapping_add(64) > c.utf8_upto {
        check_utf8(c, buf, base, m.high).ok_or(())?;
    }
    // The tokens.
    let open_object = m.open_object & outside;
    let open_array = m.open_array & outside;
    let close_object = m.close_object & outside;
    let close_array = m.close_array & outside;
    let colon = m.colon & outside;
    let comma = m.comma & outside;
    let opening = quotes & inside;
    let structural = open_object | open_array | close_object | close_array | colon | comma;
    let scalar_bytes = outside & !(structural | m.ws);
    let scalars = scalar_bytes & !((scalar_bytes << 1) | c.scalar);
    c.scalar = scalar_bytes >> 63;
    let filler = !(structural | opening | scalars);

    // The brackets, in order: the nesting, the closing brackets matched, and where the
    // innermost container is an object (`object`: its commas precede keys).
    let mut object = 0u64;
    let mut from = 0u32;
    let mut brackets = open_object | open_array | close_object | close_array;
    let mut end = None;
    let (mut unmatched, mut deepest) = (0u64, 0u32);
    while brackets != 0 {
        let k = brackets.trailing_zeros();
        brackets &= brackets.wrapping_sub(1);
        // Bytes `from..k` are in the container open before this bracket.
        object |= (below(k) & !below(from)) & (c.stack & 1).wrapping_neg();
        from = k;
        // Without a branch on the kind of bracket (which nothing predicts).
        let is_object = ((open_object | close_object) >> k) & 1;
        let is_open = ((open_object | open_array) >> k) & 1;
        unmatched |= (is_open ^ 1) & ((c.stack & 1) ^ is_object);
        c.stack = if is_open == 1 {
            (c.stack << 1) | is_object
        } else {
            c.stack >> 1
        };
        // (At most 64 deep: no wrap.)
        c.depth = c.depth.wrapping_add((is_open as u32) << 1).wrapping_sub(1);
        deepest = deepest.max(c.depth);
        if c.depth == 0 {
            end = Some(k);
            break;
        }
    }
    if unmatched != 0 || deepest > max {
        return Err(());
    }
    if end.is_none() {
        object |= !below(from) & (c.stack & 1).wrapping_neg();
    }

    // The grammar, as which token may follow which.
    let value = opening | scalars | open_object | open_array;
    let closing = close_object | close_array;
    let [f0, f1, f2, f3, f4, f5] = &mut c.follow;
    let after_open_object = follow(open_object, filler, f0);
    let after_key_comma = follow(comma & object, filler, f1);
    let after_colon_or_comma = follow(colon | (comma & !object), filler, f2);
    let after_open_array = follow(open_array, filler, f3);
    let keys = (after_open_object | after_key_comma) & opening;
    let strings = (after_colon_or_comma | after_open_array) & opening;
    let after_key = follow(keys, filler, f4);
    let after_value = follow(strings | scalars | closing, filler, f5);
    let bad = (after_open_object & !(opening | close_object))
        | (after_key_comma & !opening)
        | (after_colon_or_comma & !value)
        | (after_open_array & !(value | close_array))
        | (after_key & !colon)
        | (after_value & !(comma | closing));
    let within = match end {
        // Bits up to the closing bracket (`k < 64`).
        Some(k) => below(k) | (1u64 << k),
        None => !0,
    };
    if bad & within != 0 {
        return Err(());
    }
    let mut scalars = scalars & within;
    while scalars != 0 {
        let k = scalars.trailing_zeros();
        scalars &= scalars.wrapping_sub(1);
        // The scalar's bytes in this block (it may go on into the next one).
        let run = (!(scalar_bytes >> k)).trailing_zeros();
        let p = base.wrapping_add(k as usize);
        if k.saturating_add(run) >= 64 || !short_scalar(buf, p, run, (m.digit >> k) & below(run)) {
            scalar(buf, p).ok_or(())?;
        }
    }
    Ok(end.map(|k| base.wrapping_add(k as usize).wrapping_add(1)))
}

/// The escaped bytes of strings (bit `k`: byte `base + k`, right after its backslash) are
/// each one of JSON's escapes; a `\u` escape is four hex digits of a code point (both
/// halves of a surrogate pair).
#[inline(never)]
fn check_escapes(c: &mut Carry, buf: &[u8], base: usize, mut escapes: u64) -> Option<()> {
    while escapes != 0 {
        let p = base.wrapping_add(escapes.trailing_zeros() as usize);
        escapes &= escapes.wrapping_sub(1);
        match buf.get(p)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
            b'u' if p < c.unicode_upto => {}
            b'u' => {
                // (An escaped byte follows its backslash: `p >= 1`.)
                let backslash = p.wrapping_sub(1);
                let (_, used) = escape(buf, backslash, 0).ok()?;
                c.unicode_upto = backslash.saturating_add(used);
            }
            _ => return None,
        }
    }
    Some(())
}

/// The block at `base` (whose non-ASCII bytes are `high`) holds a non-ASCII byte not yet
/// checked: checks from the first one to the first ASCII byte at or after the block's end,
/// a run that starts and ends on character boundaries.
#[inline(never)]
fn check_utf8(c: &mut Carry, buf: &[u8], base: usize, high: u64) -> Option<()> {
    // `utf8_upto < base + 64`, so the shift is under 64.
    let skip = c.utf8_upto.saturating_sub(base);
    let high = high & (!0u64).checked_shl(u32::try_from(skip).ok()?).unwrap_or(0);
    if high == 0 {
        return Some(());
    }
    let start = base.wrapping_add(high.trailing_zeros() as usize);
    let mut end = base.saturating_add(64).min(buf.len());
    while buf.get(end).is_some_and(|&b| b >= 0x80) {
        end = end.wrapping_add(1);
    }
    simdutf8::basic::from_utf8(buf.get(start..end)?).ok()?;
    c.utf8_upto = end;
    Some(())
}

/// Whether the scalar at `at`, whose `run` bytes (under 64) lie in one block and are digits
/// where `digits` has a bit, is a literal or an integer without a sign: what state JSON has
/// but for a few numbers. `false` says only "not sure": [`scalar`] decides those.
#[inline(always)]
fn short_scalar(buf: &[u8], at: usize, run: u32, digits: u64) -> bool {
    // (The byte after the run is whitespace, a structural character or a quote: no byte of
    // a scalar.)
    let Some(word) = buf.get(at..).and_then(|s| s.first_chunk::<4>()) else {
        return false;
    };
    match (word, run) {
        (b"true" | b"null", 4) => true,
        (b"fals", 5) => buf.get(at.wrapping_add(4)) == Some(&b'e'),
        // Digits only, and no leading zero.
        _ => digits == below(run) && (word[0] != b'0' || run == 1),
    }
}

/// The number or literal at `at` is one, and nothing glues onto it (the byte after it is
/// whitespace, a structural character, a quote or the end).
#[inline(never)]
fn scalar(buf: &[u8], at: usize) -> Option<()> {
    let end = match *buf.get(at)? {
        b't' => literal(buf, at, b"true").ok()?,
        b'f' => literal(buf, at, b"false").ok()?,
        b'n' => literal(buf, at, b"null").ok()?,
        b'-' | b'0'..=b'9' => number(buf, at).ok()?.0,
        _ => return None,
    };
    match buf.get(end) {
        None | Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}' | b':' | b'"') => Some(()),
        Some(_) => None,
    }
}

/// The skip over a classifier expression `$classify(block) -> Masks`. The last, partial
/// block is classified from a copy padded with spaces (which are no tokens).
macro_rules! skip_blocks {
    ($buf:ident, $at:ident, $max:ident, $classify:expr, $prefix:ty) => {{
        let mut c = Carry::default();
        let mut base = $at;
        loop {
            let m: Masks = match $buf.get(base..).and_then(|s| s.first_chunk::<64>()) {
                Some(block) => $classify(block),
                None => {
                    let rest = $buf.get(base..).filter(|r| !r.is_empty())?;
                    let mut pad = [b' '; 64];
                    pad.get_mut(..rest.len())?.copy_from_slice(rest);
                    $classify(&pad)
                }
            };
            if let Some(end) = block::<$prefix>(&mut c, $buf, base, &m, $max).ok()? {
                return Some(end);
            }
            base = base.wrapping_add(64);
        }
    }};
}

/// The skip with the naive classifier: the oracle of the tests, and what Miri runs of
/// [`block`].
#[cfg(test)]
fn skip_scalar(buf: &[u8], at: usize, max: u32) -> Option<usize> {
    skip_blocks!(buf, at, max, classify_scalar, Shifts)
}

/// The naive classifier (the oracle of the tests).
#[cfg(test)]
fn classify_scalar(block: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (k, &c) in block.iter().enumerate() {
        let bit = 1u64 << k;
        let set = |mask: &mut u64, on: bool| *mask |= if on { bit } else { 0 };
        set(&mut m.quote, c == b'"');
        set(&mut m.backslash, c == b'\\');
        set(&mut m.colon, c == b':');
        set(&mut m.comma, c == b',');
        set(&mut m.open_object, c == b'{');
        set(&mut m.open_array, c == b'[');
        set(&mut m.close_object, c == b'}');
        set(&mut m.close_array, c == b']');
        set(&mut m.ws, matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
        set(&mut m.control, c < 0x20);
        set(&mut m.high, c >= 0x80);
        set(&mut m.digit, c.is_ascii_digit());
    }
    m
}

/// The skip with AVX-512BW's classifier.
///
/// # Safety
/// The CPU supports AVX-512BW (and so POPCNT and BMI1) and PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,popcnt,bmi1,pclmulqdq")]
// (Not inlined into its caller: inlined, the skip measured 8% slower, `perf/optimizations.md`.)
#[inline(never)]
unsafe fn skip_avx512(buf: &[u8], at: usize, max: u32) -> Option<usize> {
    skip_blocks!(buf, at, max, classify_avx512, Clmul)
}

/// [`classify_scalar`]'s masks with AVX-512BW, one compare each.
///
/// # Safety
/// A safe `#[target_feature]` function: callers without the feature enabled must call it in
/// an `unsafe` block, having made sure that the CPU supports AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn classify_avx512(block: &[u8; 64]) -> Masks {
    use std::arch::x86_64::*;
    // SAFETY: `block` is 64 bytes, and the load is unaligned.
    let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
    let eq = |b: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8));
    Masks {
        quote: eq(b'"'),
        backslash: eq(b'\\'),
        colon: eq(b':'),
        comma: eq(b','),
        open_object: eq(b'{'),
        open_array: eq(b'['),
        close_object: eq(b'}'),
        close_array: eq(b']'),
        ws: eq(b' ') | eq(b'\t') | eq(b'\n') | eq(b'\r'),
        control: _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f)),
        high: _mm512_movepi8_mask(v),
        digit: _mm512_cmplt_epu8_mask(
            _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)),
            _mm512_set1_epi8(10),
        ),
    }
}

#[cfg(test)]
mod tests;
