//! Refinements of unknown values: the payload of MessagePack extension 12, a map with integer
//! keys (1 nullness, 2 string prefix, 3/4 number bounds, 5/6 collection length bounds).
//! Unknown keys are skipped (the spec's rule); malformed or inconsistent refinements are
//! errors, never panics. (Offsets are `base + r.pos`, within the input: the additions
//! saturate only to satisfy the lints.)

use super::reader::{is_str_or_bin, marker_name, Reader, SkipError};
use crate::number::{is_valid_decimal, Number};
use crate::value::Refinements;

/// Which refinements the unknown's type admits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    String,
    Number,
    Collection,
    /// Bool, object, tuple: only nullness.
    Other,
    /// Dynamic: refinements are read for well-formedness, then dropped (as go-cty does).
    Dynamic,
}

/// A failure at an absolute byte offset.
pub(crate) struct RefineError {
    pub offset: usize,
    pub message: String,
}

fn fail(offset: usize, message: impl Into<String>) -> RefineError {
    RefineError {
        offset,
        message: message.into(),
    }
}

/// The payload (whose length the extension header fixed) ends inside a refinement: malformed
/// refinements, not the end of the input.
fn eof(offset: usize) -> RefineError {
    RefineError {
        offset,
        message: "refinement payload ends early".into(),
    }
}

/// Parses a refinement payload that starts at absolute offset `base`. `None`: no refinements
/// to keep (an empty map, or a dynamic target).
pub(crate) fn parse<'a>(
    payload: &'a [u8],
    base: usize,
    target: Target,
) -> Result<Option<Refinements<'a>>, RefineError> {
    let mut r = Reader::new(payload);
    let at = |r: &Reader<'_>| base.saturating_add(r.pos);
    let m = r.u8().ok_or_else(|| eof(base))?;
    let n: usize = match m {
        0xc0 => 0,
        0x80..=0x8f => (m & 0x0f) as usize,
        0xde => r.be_u16().ok_or_else(|| eof(base))? as usize,
        0xdf => r.be_u32().ok_or_else(|| eof(base))? as usize,
        _ => {
            return Err(fail(
                base,
                format!(
                    "refinements must be a msgpack map, found {}",
                    marker_name(m)
                ),
            ))
        }
    };
    if n.saturating_mul(2) > r.remaining() {
        return Err(eof(base));
    }
    let mut out = Refinements::default();
    let mut seen = 0u8;
    for _ in 0..n {
        let key_at = at(&r);
        let key = read_int(&mut r, base)
            .map_err(|e| e.unwrap_or_else(|| fail(key_at, "non-integer key in refinement map")))?;
        let val_at = at(&r);
        if (1..=6).contains(&key) {
            let bit = 1u8 << key;
            if seen & bit != 0 {
                return Err(fail(key_at, format!("refinement key {key} repeated")));
            }
            seen |= bit;
        }
        let allowed = match key {
            2 => matches!(target, Target::String | Target::Dynamic),
            3 | 4 => matches!(target, Target::Number | Target::Dynamic),
            5 | 6 => matches!(target, Target::Collection | Target::Dynamic),
            _ => true,
        };
        if !allowed {
            let what = match key {
                2 => "string prefix refinement for non-string type",
                3 | 4 => "numeric bound refinement for non-number type",
                _ => "length bound refinement for non-collection type",
            };
            return Err(fail(key_at, what));
        }
        match key {
            1 => {
                out.nullness = Some(match r.u8() {
                    Some(0xc2) => false,
                    Some(0xc3) => true,
                    Some(m) => {
                        return Err(fail(
                            val_at,
                            format!(
                                "nullness refinement must be a bool, found {}",
                                marker_name(m)
                            ),
                        ))
                    }
                    None => return Err(eof(val_at)),
                });
            }
            2 => {
                let m = r.u8().ok_or_else(|| eof(val_at))?;
                if !is_str_or_bin(m) {
                    return Err(fail(
                        val_at,
                        format!(
                            "string prefix refinement must be a string, found {}",
                            marker_name(m)
                        ),
                    ));
                }
                let len = r.str_len(m).ok_or_else(|| eof(val_at))?;
                let bytes = r.take(len).ok_or_else(|| eof(val_at))?;
                let s = std::str::from_utf8(bytes)
                    .map_err(|_| fail(val_at, "string prefix refinement is not valid UTF-8"))?;
                out.string_prefix = Some(s);
            }
            3 | 4 => {
                let bound = read_bound(&mut r, base)?;
                if key == 3 {
                    out.number_lower = Some(bound);
                } else {
                    out.number_upper = Some(bound);
                }
            }
            5 | 6 => {
                let v = read_int(&mut r, base).map_err(|e| {
                    e.unwrap_or_else(|| fail(val_at, "length bound refinement must be an integer"))
                })?;
                let v = u64::try_from(v)
                    .map_err(|_| fail(val_at, "length bound refinement is negative"))?;
                if key == 5 {
                    out.length_lower = Some(v);
                } else {
                    out.length_upper = Some(v);
                }
            }
            // (go-cty skips an unknown refinement unread: its strings are not checked.)
            _ => r.skip_unchecked().map_err(|e| match e {
                SkipError::Eof | SkipError::InvalidUtf8(_) => eof(val_at),
                SkipError::Reserved(p) => fail(base.saturating_add(p), "reserved byte 0xc1"),
            })?,
        }
    }
    check_consistent(&out, base)?;
    if target == Target::Dynamic || out == Refinements::default() {
        return Ok(None);
    }
    Ok(Some(out))
}

/// Reads any msgpack integer. `Err(None)`: not an integer; `Err(Some(e))`: truncated.
fn read_int(r: &mut Reader<'_>, base: usize) -> Result<i128, Option<RefineError>> {
    let start = r.pos;
    let at = base.saturating_add(start);
    let m = r.u8().ok_or_else(|| Some(eof(at)))?;
    let e = || Some(eof(at));
    Ok(match m {
        0x00..=0x7f => m as i128,
        0xe0..=0xff => (m as i8) as i128,
        0xcc => r.u8().ok_or_else(e)? as i128,
        0xcd => r.be_u16().ok_or_else(e)? as i128,
        0xce => r.be_u32().ok_or_else(e)? as i128,
        0xcf => r.be_u64().ok_or_else(e)? as i128,
        0xd0 => (r.u8().ok_or_else(e)? as i8) as i128,
        0xd1 => (r.be_u16().ok_or_else(e)? as i16) as i128,
        0xd2 => (r.be_u32().ok_or_else(e)? as i32) as i128,
        0xd3 => (r.be_u64().ok_or_else(e)? as i64) as i128,
        _ => {
            r.pos = start;
            return Err(None);
        }
    })
}

/// `[number, inclusive]`.
fn read_bound<'a>(r: &mut Reader<'a>, base: usize) -> Result<(Number<'a>, bool), RefineError> {
    let at = base.saturating_add(r.pos);
    let shape = "numeric bound refinement must be a [number, bool] array";
    match r.u8() {
        Some(0x92) => {}
        Some(0xdc) if r.be_u16() == Some(2) => {}
        Some(0xdd) if r.be_u32() == Some(2) => {}
        None => return Err(eof(at)),
        _ => return Err(fail(at, shape)),
    }
    let num_at = base.saturating_add(r.pos);
    let m = r.u8().ok_or_else(|| eof(num_at))?;
    let e = || eof(num_at);
    let n = match m {
        0x00..=0x7f => Number::Int(m as i64),
        0xe0..=0xff => Number::Int((m as i8) as i64),
        0xcc => Number::UInt(r.u8().ok_or_else(e)? as u64),
        0xcd => Number::UInt(r.be_u16().ok_or_else(e)? as u64),
        0xce => Number::UInt(r.be_u32().ok_or_else(e)? as u64),
        0xcf => Number::UInt(r.be_u64().ok_or_else(e)?),
        0xd0 => Number::Int((r.u8().ok_or_else(e)? as i8) as i64),
        0xd1 => Number::Int((r.be_u16().ok_or_else(e)? as i16) as i64),
        0xd2 => Number::Int((r.be_u32().ok_or_else(e)? as i32) as i64),
        0xd3 => Number::Int(r.be_u64().ok_or_else(e)? as i64),
        0xca => Number::Float(f32::from_bits(r.be_u32().ok_or_else(e)?) as f64),
        0xcb => Number::Float(f64::from_bits(r.be_u64().ok_or_else(e)?)),
        m if is_str_or_bin(m) => {
            let len = r.str_len(m).ok_or_else(e)?;
            let bytes = r.take(len).ok_or_else(e)?;
            if !is_valid_decimal(bytes) {
                return Err(fail(
                    num_at,
                    "numeric bound refinement is not a valid number",
                ));
            }
            // The grammar is ASCII-only, so the bytes are UTF-8.
            let text = std::str::from_utf8(bytes).map_err(|_| fail(num_at, "invalid number"))?;
            Number::Decimal(text)
        }
        _ => return Err(fail(num_at, shape)),
    };
    if let Number::Float(f) = n {
        if f.is_nan() {
            return Err(fail(num_at, "numeric bound refinement is NaN"));
        }
    }
    let inclusive = match r.u8() {
        Some(0xc2) => false,
        Some(0xc3) => true,
        None => return Err(eof(base.saturating_add(r.pos))),
        _ => return Err(fail(at, shape)),
    };
    Ok((n, inclusive))
}

fn check_consistent(r: &Refinements<'_>, base: usize) -> Result<(), RefineError> {
    if let (Some((lo, lo_inc)), Some((hi, hi_inc))) = (r.number_lower, r.number_upper) {
        let order = lo.cmp_exact(&hi);
        if order.is_gt() || (order.is_eq() && !(lo_inc && hi_inc)) {
            return Err(fail(
                base,
                "number lower bound refinement is above the upper bound",
            ));
        }
    }
    if let (Some(lo), Some(hi)) = (r.length_lower, r.length_upper) {
        if lo > hi {
            return Err(fail(
                base,
                format!("collection length upper bound {hi} is less than lower bound {lo}"),
            ));
        }
    }
    if r.nullness == Some(true)
        && (r.string_prefix.is_some()
            || r.number_lower.is_some()
            || r.number_upper.is_some()
            || r.length_lower.is_some()
            || r.length_upper.is_some())
    {
        return Err(fail(
            base,
            "a definitely-null unknown cannot carry other refinements",
        ));
    }
    Ok(())
}
