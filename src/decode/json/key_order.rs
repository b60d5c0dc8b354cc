//! A projection's objects read in key order (`Code::key_orders`, [`Program::key_order`]):
//! each key is compared, quoted with its colon, with the next name of the whole attribute
//! list of the type the object was projected from — as the full decode compares it with the
//! next attribute — so that no key is read and looked up. A selected attribute's value is
//! decoded into the object's next slot; any other is stepped over (`skip_value`: checked for
//! well-formedness and UTF-8, not decoded). Names the input leaves out are passed over (a few
//! at a time, never a selected one), and a plain key no attribute has is stepped over with
//! its value (the projection's rule). Any other key (a selected attribute left out, a key out
//! of order or with escapes) hands the rest of the object to the general loop
//! (`Decoder::object_rest`).

use super::scan::{colon, ws};
use super::skip::skip_value;
use super::string::{scan_string, ESCAPED, NON_ASCII};
use super::Decoder;
use crate::decode::common::{find_name, Pending};
use crate::decode::slots::Slots;
use crate::program::key::AttrEntry;
use crate::program::{OpId, Program};
use crate::value::Value;
use bumpalo::collections::Vec as BumpVec;

/// How many names of a key order a key may pass over (attributes a state written under an
/// older schema lacks), as the full decode's `key_after_gap`.
const LOOKAHEAD: usize = 8;

impl<'a> Decoder<'a> {
    /// The keys of an object of op `op` from `pos` (its first key), selected values pushed
    /// onto `out`, when the op has a key order (else `None`): whether a key is left to the
    /// general loop (at `pos`) rather than the object ended, and the number of keys read.
    #[inline(never)]
    pub(super) fn key_order_walk(
        &mut self,
        prog: &'a Program,
        op: OpId,
        out: &mut Slots<'a, Value<'a>>,
    ) -> Result<Option<(bool, u32)>, Pending> {
        let (order, names) = prog.key_order(op);
        if order.is_empty() {
            return Ok(None);
        }
        self.walk(prog, order, names, out).map(Some)
    }

    /// [`Decoder::key_order_walk`] of the key order `order` (names `names`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn walk(
        &mut self,
        prog: &'a Program,
        order: &'a [AttrEntry],
        names: &'a [Box<str>],
        out: &mut Slots<'a, Value<'a>>,
    ) -> Result<(bool, u32), Pending> {
        let mut k = 0usize;
        // At most `order.len()` names plus the unknown keys, each a key of the input and so
        // fewer than `usize::MAX`; counted as a `u32` by the caller's rule.
        let mut keys = 0u32;
        // (The values stepped over are at this object's depth throughout.)
        let depth = self.c.skip_depth(0);
        let max_depth = self.options.limits.max_depth;
        loop {
            let run = stepped_over_run(
                self.buf,
                self.pos,
                order,
                k,
                (&mut self.skip_stack, depth, max_depth),
            );
            let (pos, next, pairs, after_value) =
                run.map_err(|(e, k)| e.in_attr(name(names, k)))?;
            (self.pos, k, keys) = (pos, next, keys.saturating_add(pairs));
            if after_value {
                if !self.next(b'}')? {
                    return Ok((false, keys));
                }
                continue;
            }
            // A selected name, or a key that is not the next name in compact form.
            let matched = order
                .get(k)
                .and_then(|e| e.match_json_compact(self.buf, self.pos));
            let value_at = match matched {
                Some(value_at) => value_at,
                None => match self.key_off_order(order, names, k)? {
                    Off::Name(j, value_at) => {
                        k = j;
                        value_at
                    }
                    Off::Unknown => {
                        keys = keys.saturating_add(1);
                        if !self.next(b'}')? {
                            return Ok((false, keys));
                        }
                        continue;
                    }
                    Off::Other => return Ok((true, keys)),
                },
            };
            let Some(entry) = order.get(k) else {
                return Err(crate::decode::common::internal(self.pos));
            };
            keys = keys.saturating_add(1);
            self.pos = value_at;
            if entry.stepped_over {
                self.pos = skip_value(self.buf, self.pos, &mut self.skip_stack, depth, max_depth)
                    .map_err(|e| e.in_attr(name(names, k)))?;
            } else {
                self.value_with(prog, entry.code, entry.op, |_, v| out.push(v))
                    .map_err(|e| e.in_attr(name(names, k)))?;
            }
            k = k.wrapping_add(1);
            if !self.next(b'}')? {
                return Ok((false, keys));
            }
        }
    }

    /// The key at `pos` (after whitespace) when it is not name `k` of `order` in compact
    /// form: one of the next names with whitespace or after names left out (passing over
    /// unselected names only), a plain key no attribute has (stepped over with its value),
    /// or any other.
    #[inline(never)]
    fn key_off_order(
        &mut self,
        order: &[AttrEntry],
        names: &[Box<str>],
        k: usize,
    ) -> Result<Off, Pending> {
        let at = ws(self.buf, self.pos);
        self.pos = at;
        for (j, entry) in order.iter().enumerate().skip(k).take(LOOKAHEAD + 1) {
            if let Some(value_at) = entry.match_json(self.buf, at) {
                return Ok(Off::Name(j, value_at));
            }
            if !entry.stepped_over {
                break;
            }
        }
        if self.buf.get(at) != Some(&b'"') {
            return Ok(Off::Other);
        }
        let (end, flags) = scan_string(self.buf, at.wrapping_add(1), at)?;
        let raw = self.buf.get(at.wrapping_add(1)..end).unwrap_or_default();
        if flags & (ESCAPED | NON_ASCII) != 0
            || raw.len() > self.options.limits.max_string_len as usize
            || find_name(names, raw).is_some()
        {
            return Ok(Off::Other);
        }
        let value_at = colon(self.buf, end.wrapping_add(1))?;
        let depth = self.c.skip_depth(0);
        let max_depth = self.options.limits.max_depth;
        self.pos = skip_value(self.buf, value_at, &mut self.skip_stack, depth, max_depth)
            .map_err(|e| e.in_attr(&String::from_utf8_lossy(raw)))?;
        Ok(Off::Unknown)
    }
}

/// Steps over pairs from `pos` while the key there is name `k` of `order` (then `k + 1`, …)
/// in compact form and a name not selected, each value followed by a comma; `skip` is the
/// skip's stack and depth limits. The position, the next name, the pairs stepped over, and
/// whether the last value stepped over is not followed by a comma (the cursor is after it,
/// at its separator: the caller reads that). A fault in a value: the error and its name.
#[inline(always)]
fn stepped_over_run(
    buf: &[u8],
    mut pos: usize,
    order: &[AttrEntry],
    mut k: usize,
    skip: (&mut BumpVec<'_, bool>, usize, u32),
) -> Result<(usize, usize, u32, bool), (Pending, usize)> {
    let (stack, depth, max_depth) = skip;
    // (At most `order.len()` pairs, each a key of the input: fewer than `u32::MAX` in any
    // input a decode accepts; saturating anyway.)
    let mut pairs = 0u32;
    while let Some(entry) = order.get(k) {
        if !entry.stepped_over {
            break;
        }
        let Some(value_at) = entry.match_json_compact(buf, pos) else {
            break;
        };
        let end = skip_value(buf, value_at, stack, depth, max_depth).map_err(|e| (e, k))?;
        k = k.wrapping_add(1);
        pairs = pairs.saturating_add(1);
        if buf.get(end) != Some(&b',') {
            return Ok((end, k, pairs, true));
        }
        // (Past the comma just read.)
        pos = end.wrapping_add(1);
    }
    Ok((pos, k, pairs, false))
}

/// What [`Decoder::key_off_order`] found.
enum Off {
    /// Name `.0` of the order, its value at `.1`.
    Name(usize, usize),
    /// A key no attribute has, stepped over with its value.
    Unknown,
    /// Another key, left to the general loop.
    Other,
}

/// Name `k` (for paths).
#[cold]
fn name(names: &[Box<str>], k: usize) -> &str {
    names.get(k).map_or("", |n| n)
}
