//! The DUMP: a canonical JSON rendering of a decoded value under its type, the contract of
//! the CLI and of the conformance suite (the design's §5, in the shared checkout's `DESIGN.md`).
//!
//! - null → `null`; unknown → `{"$unknown":{…}}` with the refinements present (`null`,
//!   `prefix`, `lower`/`upper` as `[number, inclusive]`, `len_min`/`len_max`);
//! - bool, string → JSON; number → a JSON number literal of its exact value (±Inf as the
//!   strings `"+Inf"`/`"-Inf"`);
//! - list, set, tuple → array; map, object → object with sorted keys (a map's repeated key
//!   shows its last value);
//! - a known value at a dynamic position → `{"type": <type JSON>, "value": <DUMP>}`.
//!
//! ```
//! use bumpalo::Bump;
//! use tfwire::{dump, Program};
//!
//! let program = Program::from_type_json(r#"["object",{"a":"number","b":["list","string"]}]"#).unwrap();
//! let bump = Bump::new();
//! let input = [0x82, 0xa1, b'a', 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xa1, b'b', 0x91, 0xa1, b'x'];
//! let value = program.decode_msgpack(&input, &bump).unwrap();
//! assert_eq!(dump::to_string(&program, value)?, r#"{"a":1.5,"b":["x"]}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A value that `program` did not decode (or build) is an error where it shows: an object whose
//! op is not an object of `program` with as many attributes; and so is a value built by hand
//! deeper than [`MAX_VALUE_DEPTH`].
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use std::fmt::Write;

pub(crate) mod straight;
mod straight_run;

use crate::encode::EncodeError;
use crate::limits::MAX_VALUE_DEPTH;
use crate::number::Number;
use crate::program::Program;
use crate::spare::Spare;
use crate::value::{Object, Refinements, Value};

/// Renders the DUMP of `value`, which `program` decoded or built.
pub fn to_string(program: &Program, value: Value<'_>) -> Result<String, EncodeError> {
    let mut out = String::new();
    write(&mut out, program, value)?;
    Ok(out)
}

/// Appends the DUMP of `value` to `out` (on an error, `out` holds what was written before
/// it).
pub fn write(out: &mut String, program: &Program, value: Value<'_>) -> Result<(), EncodeError> {
    write_at(out, program, value, 0)
}

/// Writes the DUMP of `value` to `writer`, through a buffer of its own (a bad value is an
/// [`std::io::ErrorKind::InvalidData`] error carrying the [`EncodeError`]).
///
/// ```
/// # use bumpalo::Bump;
/// # use tfwire::{dump, Program};
/// let program = Program::from_type_json(r#"["list","string"]"#)?;
/// let bump = Bump::new();
/// let value = program.decode_json(br#"["a","b"]"#, &bump)?;
/// let mut out = Vec::new();
/// dump::to_writer(&mut out, &program, value)?;
/// assert_eq!(out, br#"["a","b"]"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_writer<W: std::io::Write>(
    writer: W,
    program: &Program,
    value: Value<'_>,
) -> std::io::Result<()> {
    crate::encode::write_encoded(writer, |out| {
        out.extend_from_slice(to_string(program, value)?.as_bytes());
        Ok(())
    })
}

/// [`write`] at nesting `depth` (containers and dynamic wrappers open around `value`).
fn write_at(
    out: &mut String,
    program: &Program,
    value: Value<'_>,
    depth: u32,
) -> Result<(), EncodeError> {
    // Scalars first, without the depth check: only a container or a wrapper opens a level.
    match value {
        Value::Null => out.push_str("null"),
        Value::Unknown(r) => unknown(out, r),
        Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => {
            if let Some(n) = value.as_number() {
                number(out, n)
            }
        }
        Value::String(s) => string(out, s),
        _ => return nested(out, program, value, depth),
    }
    Ok(())
}

/// [`write_at`] for a container or a dynamic wrapper, one level deeper than `depth`.
// (Inlined in release builds only: in a debug build the bigger frame would not fit
// `MAX_VALUE_DEPTH` levels on a 1 MiB stack.)
#[cfg_attr(not(debug_assertions), inline(always))]
fn nested(
    out: &mut String,
    program: &Program,
    value: Value<'_>,
    depth: u32,
) -> Result<(), EncodeError> {
    if depth >= MAX_VALUE_DEPTH {
        return Err(EncodeError::too_deep());
    }
    let inner = depth.wrapping_add(1);
    match value {
        Value::List(e) | Value::Set(e) | Value::Tuple(e) => {
            out.push('[');
            for (i, v) in e.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_at(out, program, *v, inner).map_err(|e| e.in_index(i))?;
            }
            out.push(']');
        }
        // go-cty writes a map's keys sorted: then they are written as they are, without
        // the sorting vector.
        Value::Map(entries) if entries.windows(2).all(|w| w[0].0 < w[1].0) => {
            map_entries(out, program, entries, inner)?
        }
        Value::Map(entries) => {
            let mut sorted: Vec<(&str, Value<'_>)> = Vec::with_capacity(entries.len());
            // Last of repeated keys wins: a stable sort keeps wire order among equal keys.
            sorted.extend(entries.iter().copied());
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            map_entries(out, program, &sorted, inner)?
        }
        Value::Object(object) => object_attrs(out, program, object, inner)?,
        // A typed null or unknown shows bare.
        Value::Dynamic(d) if matches!(d.value, Value::Null | Value::Unknown(_)) => {
            write_at(out, d.program, d.value, inner)?
        }
        Value::Dynamic(d) => {
            let _ = write!(out, "{{\"type\":{},\"value\":", d.program.root_type());
            write_at(out, d.program, d.value, inner)?;
            out.push('}');
        }
        // (`write_at` sends only containers and wrappers here.)
        scalar => write_at(out, program, scalar, depth)?,
    }
    Ok(())
}

/// The bytes one attribute takes at most on the fast path: a comma, its key block and a short
/// value (a string under 64 bytes with its quotes; an integer's 20 digits and sign).
const ATTR_ROOM: usize = 1 + 32 + SHORT_VALUE;

/// The bytes a short value takes at most: a string of 63 bytes with its quotes.
const SHORT_VALUE: usize = 65;

/// An object's attributes as a JSON object, in the program's order (sorted by name). Each key
/// is the program's pre-quoted `"name":` copied as a 32-byte block, and a short value (null,
/// a bool, an integer, a string under 64 bytes with nothing to escape) is written straight
/// into room reserved once per attribute; anything else through [`write`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn object_attrs(
    out: &mut String,
    program: &Program,
    object: Object<'_>,
    depth: u32,
) -> Result<(), EncodeError> {
    let Some((names, entries)) = program
        .attr_names_and_entries(object.op())
        .filter(|(names, _)| names.len() == object.attrs().len())
    else {
        return Err(EncodeError::not_of_program());
    };
    // SAFETY: everything written through the `Vec` below is UTF-8: ASCII punctuation and
    // digits, the program's keys (`str`s) and values' `str`s copied whole.
    let mut spare = Spare::new(unsafe { out.as_mut_vec() });
    let mut lead = b'{';
    for ((name, entry), v) in names.iter().zip(entries).zip(object.attrs()) {
        spare.reserve(ATTR_ROOM);
        // SAFETY: `ATTR_ROOM` holds the lead byte, a 32-byte key block and a short value.
        unsafe { spare.byte(lead) };
        lead = b',';
        match entry.json_block() {
            // SAFETY: as above.
            Some((block, used)) => unsafe { spare.block(block, used) },
            None => {
                drop(spare);
                string(out, name);
                out.push(':');
                // SAFETY: as for the first cursor.
                spare = Spare::new(unsafe { out.as_mut_vec() });
                spare.reserve(ATTR_ROOM);
            }
        }
        // SAFETY: at least `ATTR_ROOM - 33 = SHORT_VALUE` bytes are left for the value.
        if unsafe { short_value(&mut spare, v) } {
            continue;
        }
        drop(spare);
        write_at(out, program, *v, depth).map_err(|e| e.in_attr(name))?;
        // SAFETY: as above.
        spare = Spare::new(unsafe { out.as_mut_vec() });
    }
    spare.reserve(2);
    // SAFETY: reserved just above; the closing brace, and the opening one of an object
    // without attributes.
    unsafe {
        if lead == b'{' {
            spare.byte(b'{');
        }
        spare.byte(b'}');
    }
    Ok(())
}

/// Writes `v` when it is short (null, a bool, an integer, a string under 64 bytes with
/// nothing to escape); returns false (nothing written) otherwise.
///
/// # Safety
/// At least [`SHORT_VALUE`] bytes of spare capacity follow the cursor.
#[inline(always)]
unsafe fn short_value(spare: &mut Spare<'_>, v: &Value<'_>) -> bool {
    // SAFETY (every write below): at most `SHORT_VALUE` bytes, the caller's contract.
    unsafe {
        match v {
            Value::Null => spare.block(b"null", 4),
            Value::Bool(true) => spare.block(b"true", 4),
            Value::Bool(false) => spare.block(b"false", 5),
            Value::Int(i) => spare.short(itoa::Buffer::new().format(*i).as_bytes()),
            Value::String(s) if s.len() < 64 && first_special(s.as_bytes()) == s.len() => {
                spare.byte(b'"');
                spare.short(s.as_bytes());
                spare.byte(b'"');
            }
            _ => return false,
        }
    }
    true
}

/// A map's entries, sorted by key, as a JSON object; of repeated keys the last is written.
fn map_entries(
    out: &mut String,
    program: &Program,
    sorted: &[(&str, Value<'_>)],
    depth: u32,
) -> Result<(), EncodeError> {
    out.push('{');
    let mut first = true;
    for (i, (k, v)) in sorted.iter().enumerate() {
        if sorted.get(i + 1).is_some_and(|next| next.0 == *k) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        string(out, k);
        out.push(':');
        write_at(out, program, *v, depth).map_err(|e| e.in_key(k))?;
    }
    out.push('}');
    Ok(())
}

fn number(out: &mut String, n: Number<'_>) {
    match n {
        Number::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Number::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        Number::Decimal(text) if !text.ends_with("Inf") && !text.ends_with("inf") => {
            out.push_str(&crate::number::normalize_decimal(text))
        }
        _ => {
            let text = n.to_decimal_string();
            if text.ends_with("Inf") {
                out.push('"');
                out.push_str(&text);
                out.push('"');
            } else {
                out.push_str(&text);
            }
        }
    }
}

/// Appends `s` as a JSON string, escaped as the DUMP escapes strings (serde_json's rules:
/// `"`, `\\` and control characters only; the encoders follow Go's rules instead).
///
/// ```
/// let mut out = String::new();
/// tfwire::dump::write_string(&mut out, "a \"b\"\n<c>");
/// assert_eq!(out, r#""a \"b\"\n<c>""#);
/// ```
pub fn write_string(out: &mut String, s: &str) {
    string(out, s)
}

/// `s` quoted and escaped; one capacity check and fixed-size copies when it has nothing to
/// escape and is short (a name, an identifier).
fn string(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let special = first_special(bytes);
    if special < bytes.len() {
        out.push('"');
        escape_into(out, s, special);
        out.push('"');
        return;
    }
    // SAFETY: the bytes written are `s`'s, whole, and two quotes: UTF-8.
    let mut spare = Spare::new(unsafe { out.as_mut_vec() });
    spare.reserve(bytes.len().max(SHORT_VALUE) + 2);
    // SAFETY: room for the quotes and the bytes was reserved just above; `short` takes fewer
    // than 64 bytes.
    unsafe {
        spare.byte(b'"');
        if bytes.len() < 64 {
            spare.short(bytes);
        } else {
            spare.slice(bytes);
        }
        spare.byte(b'"');
    }
}

/// Whether the DUMP escapes `b`.
#[inline]
fn is_special(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The index of the first byte of `bytes` the DUMP escapes, or `bytes.len()`: 16 bytes at a
/// time with SSE2 (the x86-64 baseline), the last 16 overlapping what came before; shorter
/// strings 8 bytes at a time as a word (a string is usually an identifier or a name).
#[inline]
fn first_special(bytes: &[u8]) -> usize {
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= 16 {
        while let Some(chunk) = bytes.get(i..i + 16) {
            let mask = special_mask16(chunk);
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
        if i == bytes.len() {
            return i;
        }
        // The last 16 bytes; the ones already checked are shifted out of the mask.
        let start = bytes.len() - 16;
        let mask = special_mask16(bytes.get(start..).unwrap_or_default()) >> (i - start);
        return if mask != 0 {
            i + mask.trailing_zeros() as usize
        } else {
            bytes.len()
        };
    }
    while let Some(chunk) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        if word_has_special(word) {
            break;
        }
        i += 8;
    }
    bytes
        .iter()
        .skip(i)
        .position(|&b| is_special(b))
        .map_or(bytes.len(), |p| i + p)
}

/// True if a byte of `word` is below 0x20, `"` or `\\` (exact as a yes or no: a borrow
/// can mark a byte after a real match, never make one up).
#[inline]
fn word_has_special(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    (below(word, 0x20)
        | zero(word ^ (ONES * u64::from(b'"')))
        | zero(word ^ (ONES * u64::from(b'\\'))))
        != 0
}

/// A bit per byte of the 16-byte `chunk` (fewer bytes: 0) the DUMP escapes.
#[cfg(target_arch = "x86_64")]
#[inline]
fn special_mask16(chunk: &[u8]) -> u32 {
    use std::arch::x86_64::*;
    let Ok(block) = <&[u8; 16]>::try_from(chunk) else {
        return 0;
    };
    // SAFETY: SSE2 is part of the x86-64 baseline, always enabled for this target; `block`
    // is 16 readable bytes and the load is unaligned.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        let low = _mm_set1_epi8(0x1f);
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))) as u32
    }
}

/// The body of `s` escaped as serde_json escapes it; `first` is the index of its first byte
/// to escape ([`first_special`]). Room for the worst case (six bytes a byte) is reserved
/// once; plain runs are copied 16 bytes at a time and escapes written as 6-byte blocks, each
/// keeping only the bytes it needs.
#[cold]
fn escape_into(out: &mut String, s: &str, first: usize) {
    let bytes = s.as_bytes();
    // SAFETY: what is written below is `s`'s bytes, cut only next to an ASCII byte, and ASCII
    // escapes: UTF-8 as `s` is.
    let mut spare = Spare::new(unsafe { out.as_mut_vec() });
    // Every byte read becomes at most six written (`\u001f`), and a write passes the bytes it
    // keeps by at most 16.
    spare.reserve(bytes.len().saturating_mul(6).saturating_add(16));
    // SAFETY: `first <= bytes.len()` bytes, within the room reserved.
    unsafe { spare.slice(bytes.get(..first).unwrap_or_default()) };
    let mut i = first;
    while let Some(&b) = bytes.get(i) {
        if is_special(b) {
            let (escape, used) = escape_of(b);
            // SAFETY: `i < bytes.len()` bytes read, at most `6 * i` written: the six bytes
            // fit in the room reserved.
            unsafe { spare.block(&escape, used) };
            i += 1;
            continue;
        }
        match bytes.get(i..).and_then(|r| r.first_chunk::<16>()) {
            Some(chunk) => {
                let run = (chunk_special_mask(chunk) | 1 << 16).trailing_zeros() as usize;
                // SAFETY: `i + 16 <= bytes.len()` bytes read, at most `6 * i` written.
                unsafe { spare.block(chunk, run) };
                i += run;
            }
            None => {
                let rest = bytes.get(i..).unwrap_or_default();
                let run = rest
                    .iter()
                    .position(|&c| is_special(c))
                    .unwrap_or(rest.len());
                // SAFETY: `run` bytes of those read at `i`, with at most `6 * i` written.
                unsafe { spare.slice(rest.get(..run).unwrap_or_default()) };
                i += run;
            }
        }
    }
}

/// The DUMP's escape of the byte `b` ([`is_special`]) as a 6-byte block and the bytes of it
/// used: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, or `\u00xx`.
#[inline]
fn escape_of(b: u8) -> ([u8; 6], usize) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => {
            let hex = |n: u8| HEX.get(usize::from(n & 15)).copied().unwrap_or(b'0');
            return ([b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b)], 6);
        }
    };
    ([b'\\', short, 0, 0, 0, 0], 2)
}

/// A bit per byte of `chunk` the DUMP escapes.
#[inline]
fn chunk_special_mask(chunk: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        special_mask16(chunk)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0;
        for (k, &c) in chunk.iter().enumerate() {
            if is_special(c) {
                m |= 1 << k;
            }
        }
        m
    }
}

fn unknown(out: &mut String, r: Option<&Refinements<'_>>) {
    out.push_str("{\"$unknown\":{");
    if let Some(r) = r {
        let mut parts: Vec<String> = Vec::new();
        if let Some(n) = r.nullness {
            parts.push(format!("\"null\":{n}"));
        }
        if let Some(p) = r.string_prefix {
            let mut s = String::from("\"prefix\":");
            string(&mut s, p);
            parts.push(s);
        }
        for (name, bound) in [("lower", r.number_lower), ("upper", r.number_upper)] {
            if let Some((n, inclusive)) = bound {
                let mut s = format!("\"{name}\":[");
                number(&mut s, n);
                let _ = write!(s, ",{inclusive}]");
                parts.push(s);
            }
        }
        if let Some(n) = r.length_lower {
            parts.push(format!("\"len_min\":{n}"));
        }
        if let Some(n) = r.length_upper {
            parts.push(format!("\"len_max\":{n}"));
        }
        out.push_str(&parts.join(","));
    }
    out.push_str("}}");
}

#[cfg(test)]
mod tests;
