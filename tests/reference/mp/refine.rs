//! Refinements of unknown values (MessagePack extension 12) for the reference decoder.

use std::collections::HashSet;

use tfwire::ErrorKind;

use super::super::{num, Opts, RNum, RRef, Target};
use super::{is_str, D, R};

/// A refinement payload: a map (or nil) of integer keys. `None`: malformed or inconsistent.
/// Keys 1–6 may appear once each and only where the type admits them; other keys are
/// skipped. Bytes after the map are ignored. A dynamic target keeps nothing.
pub(super) fn refinements(payload: &[u8], t: Target) -> Option<Option<RRef>> {
    let mut d = D {
        buf: payload,
        pos: 0,
        opts: Opts::default(),
        types: HashSet::new(),
        values: 0,
        arena_bytes: 0,
    };
    let n = match d.byte().ok()? {
        0xc0 => 0,
        m @ 0x80..=0x8f => (m & 0x0f) as u64,
        0xde => d.be(2).ok()?,
        0xdf => d.be(4).ok()?,
        _ => return None,
    };
    if n.saturating_mul(2) > d.remaining() as u64 {
        return None;
    }
    let mut r = RRef::default();
    let mut seen = [false; 7];
    for _ in 0..n {
        let m = d.peek().ok()?;
        let key = match d.int_or_float(m)?.ok()? {
            RNum::Int(i) => i as i128,
            RNum::UInt(u) => u as i128,
            RNum::Float(_) | RNum::Dec(_) => return None,
        };
        if (1..=6).contains(&key) {
            if seen[key as usize] {
                return None;
            }
            seen[key as usize] = true;
        }
        let allowed = match key {
            2 => matches!(t, Target::String | Target::Dynamic),
            3 | 4 => matches!(t, Target::Number | Target::Dynamic),
            5 | 6 => matches!(t, Target::Collection | Target::Dynamic),
            _ => true,
        };
        if !allowed {
            return None;
        }
        match key {
            1 => {
                r.nullness = Some(match d.byte().ok()? {
                    0xc2 => false,
                    0xc3 => true,
                    _ => return None,
                })
            }
            2 => {
                if !is_str(d.peek().ok()?) {
                    return None;
                }
                let b = d.str_payload().ok()?;
                r.prefix = Some(std::str::from_utf8(b).ok()?.to_string());
            }
            3 | 4 => {
                let len = d.array_len_any().ok()?;
                if len != 2 {
                    return None;
                }
                let m = d.peek().ok()?;
                let x = if is_str(m) {
                    let b = d.str_payload().ok()?;
                    if !num::valid_decimal(b) {
                        return None;
                    }
                    RNum::Dec(String::from_utf8(b.to_vec()).ok()?)
                } else {
                    d.int_or_float(m)?.ok()?
                };
                if matches!(x, RNum::Float(f) if f.is_nan()) {
                    return None;
                }
                let inclusive = match d.byte().ok()? {
                    0xc2 => false,
                    0xc3 => true,
                    _ => return None,
                };
                if key == 3 {
                    r.lower = Some((x, inclusive));
                } else {
                    r.upper = Some((x, inclusive));
                }
            }
            5 | 6 => {
                let m = d.peek().ok()?;
                let x = match d.int_or_float(m)?.ok()? {
                    RNum::Int(i) => u64::try_from(i).ok()?,
                    RNum::UInt(u) => u,
                    _ => return None,
                };
                if key == 5 {
                    r.len_lo = Some(x);
                } else {
                    r.len_hi = Some(x);
                }
            }
            _ => d.skip(false).ok()?,
        }
    }
    if let (Some((lo, li)), Some((hi, hi_inc))) = (&r.lower, &r.upper) {
        let order = num::cmp(lo, hi);
        if order.is_gt() || (order.is_eq() && !(*li && *hi_inc)) {
            return None;
        }
    }
    if let (Some(lo), Some(hi)) = (r.len_lo, r.len_hi) {
        if lo > hi {
            return None;
        }
    }
    let others = r.prefix.is_some()
        || r.lower.is_some()
        || r.upper.is_some()
        || r.len_lo.is_some()
        || r.len_hi.is_some();
    if r.nullness == Some(true) && others {
        return None;
    }
    if t == Target::Dynamic || r == RRef::default() {
        return Some(None);
    }
    Some(Some(r))
}

impl D<'_> {
    /// An array header of any form, without the claim check (refinement bounds).
    fn array_len_any(&mut self) -> R<u64> {
        match self.byte()? {
            m @ 0x90..=0x9f => Ok((m & 0x0f) as u64),
            0xdc => self.be(2),
            0xdd => self.be(4),
            _ => Err(ErrorKind::InvalidRefinement),
        }
    }
}
