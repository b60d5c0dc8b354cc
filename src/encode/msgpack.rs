//! The MessagePack encoder: a value of a program's type → the bytes go-cty's `msgpack.Marshal`
//! writes for it (`../shared/research/reference-semantics.md` §1.6).
//!
//! Object attributes in name order (the program's order, bytewise) with every attribute
//! written; map keys sorted bytewise (a key the wire repeated is written once, with its last
//! value, as go-cty's map holds it); integers in the smallest format, non-negative ones in the
//! uint formats; numbers as go-cty chooses between int, float64 and decimal text
//! (`encode/number.rs`); a value at a `dynamic` position as `[bin(type JSON), value]`; an
//! unknown as `d4 00 00`, or extension 12 with its refinements in go-cty's order; sets in the
//! order they hold.
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use super::number::{written, Written, MAX_PLAIN_DIGITS};
use super::order::sorted_keys;
use super::{deeper, tuple_ops, EncodeError};
use crate::number::Number;
use crate::program::key::{write_msgpack_str, AttrEntry};
use crate::program::{Op, OpId, Program, Span};
use crate::spare::Spare;
use crate::value::{Refinements, Value};

/// Writes values into a caller's buffer; holds the scratch that sorting map keys needs, so a
/// reused encoder allocates nothing per value once warm.
#[derive(Default)]
pub struct MsgpackEncoder {
    order: Vec<u32>,
    /// Values open on the recursion: bounded by [`MAX_VALUE_DEPTH`](crate::MAX_VALUE_DEPTH), as decodes are.
    depth: usize,
}

impl MsgpackEncoder {
    /// A new encoder.
    pub fn new() -> MsgpackEncoder {
        MsgpackEncoder::default()
    }

    /// Appends the encoding of `value`, a value of `program`'s type, to `out`.
    pub fn encode(
        &mut self,
        program: &Program,
        value: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let root = program.root();
        self.value(program, root, &program.op_type(root), &value, out)
    }

    /// One value at op `op` (`code` is its instruction): the common scalars here, inlined
    /// into the container loops; everything else in [`Self::composite`].
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn value(
        &mut self,
        prog: &Program,
        op: OpId,
        code: &Op,
        v: &Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        // (Both by reference: the attribute loop reads only the tags it needs, instead of
        // copying a 12-byte op and a 24-byte value through the stack.)
        // The op's kind first: it follows the schema, so an object's attributes repeat the
        // same sequence of branches (which predictors learn), where the values' own tags vary
        // with the data; then the value's tag, within the few kinds the op admits.
        match code {
            Op::String => match v {
                Value::String(s) => str(s, out),
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, *code, *v, out),
            },
            Op::Number => match v {
                Value::Int(i) => int(*i, out),
                Value::UInt(u) if *u <= i64::MAX as u64 => int(*u as i64, out),
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, *code, *v, out),
            },
            Op::Bool => match v {
                Value::Bool(b) => out.push(0xc2 | *b as u8),
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, *code, *v, out),
            },
            Op::List { elem, .. } => match v {
                Value::List(elems) => return self.list(prog, *elem, elems, out),
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, *code, *v, out),
            },
            Op::Set { elem, .. } => match v {
                Value::Set(elems) => return self.list(prog, *elem, elems, out),
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, *code, *v, out),
            },
            Op::Object { attrs } => match v {
                Value::Object(object) if object.op() == op => {
                    return self.object(prog, op, *attrs, object.attrs(), out);
                }
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, *code, *v, out),
            },
            _ => match v {
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, *code, *v, out),
            },
        }
        Ok(())
    }

    /// Containers, dynamic wrappers, unknowns, other numbers, and mismatches; the recursion's
    /// depth is counted here.
    #[inline(never)]
    fn composite(
        &mut self,
        prog: &Program,
        code: Op,
        v: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        self.depth = deeper(self.depth)?;
        let result = self.composite_at_depth(prog, code, v, out);
        self.depth -= 1;
        result
    }

    fn composite_at_depth(
        &mut self,
        prog: &Program,
        code: Op,
        v: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        match (code, v) {
            (Op::Dynamic, Value::Unknown(_)) => out.extend_from_slice(&[0xd4, 0, 0]),
            (_, Value::Unknown(r)) => unknown(code, r, out)?,
            (Op::Number, Value::UInt(u)) => number(&Number::UInt(u), out)?,
            (Op::Number, Value::Float(f)) => number(&Number::Float(f), out)?,
            (Op::Number, Value::Decimal(t)) => number(&Number::Decimal(t), out)?,
            (Op::Tuple { elems }, Value::Tuple(e)) => {
                let ops = tuple_ops(prog, elems, e.len())?;
                array_header(e.len(), out);
                for (i, (o, x)) in ops.iter().zip(e).enumerate() {
                    self.value(prog, *o, &prog.op_type(*o), x, out)
                        .map_err(|e| e.in_index(i))?;
                }
            }
            (Op::Map { elem }, Value::Map(entries)) => {
                let base = sorted_keys(entries, &mut self.order);
                map_header(self.order.len() - base, out);
                let elem_code = prog.op_type(elem);
                let mut result = Ok(());
                for j in base..self.order.len() {
                    let i = self.order.get(j).copied().unwrap_or(0);
                    let Some((k, x)) = entries.get(i as usize) else {
                        continue;
                    };
                    str(k, out);
                    result = self
                        .value(prog, elem, &elem_code, x, out)
                        .map_err(|e| e.in_key(k));
                    if result.is_err() {
                        break;
                    }
                }
                self.order.truncate(base);
                result?;
            }
            (Op::Dynamic, Value::Dynamic(d)) => {
                out.push(0x92);
                type_json(d.program, out);
                let root = d.program.root();
                self.value(d.program, root, &d.program.op_type(root), &d.value, out)?;
            }
            (_, v) => return Err(EncodeError::mismatch(code, v)),
        }
        Ok(())
    }

    /// A list's or a set's elements (of op `elem`), its depth counted as
    /// [`Self::composite`] counts a container's: straight from [`Self::value`].
    #[inline(never)]
    fn list(
        &mut self,
        prog: &Program,
        elem: OpId,
        elems: &[Value<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        array_header(elems.len(), out);
        if elems.is_empty() {
            return Ok(());
        }
        self.depth = deeper(self.depth)?;
        let elem_code = prog.op_type(elem);
        let mut result = Ok(());
        for (i, x) in elems.iter().enumerate() {
            result = self.value(prog, elem, &elem_code, x, out);
            if let Err(e) = result {
                result = Err(e.in_index(i));
                break;
            }
        }
        self.depth -= 1;
        result
    }

    /// An object of op `op` (attributes `attrs`), its depth counted as [`Self::composite`]
    /// counts a container's: straight from [`Self::value`], objects being the most common
    /// container.
    #[inline(never)]
    fn object(
        &mut self,
        prog: &Program,
        op: OpId,
        attrs: Span,
        values: &[Value<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        self.depth = deeper(self.depth)?;
        let entries = prog.code.attrs.get(attrs.range()).unwrap_or_default();
        let result = self.attrs(prog, op, entries, values, out);
        self.depth -= 1;
        result
    }

    /// An object's attributes, in the program's order: each key as its pre-encoded block and
    /// each short value (null, bool, integer, string under 64 bytes) written straight into
    /// room reserved once per attribute; anything else through [`Self::value`].
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn attrs(
        &mut self,
        prog: &Program,
        op: OpId,
        entries: &[AttrEntry],
        values: &[Value<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        map_header(entries.len(), out);
        let mut spare = Spare::new(out);
        for (entry, x) in entries.iter().zip(values) {
            spare.reserve(ATTR_ROOM);
            match entry.msgpack_block() {
                // SAFETY: `ATTR_ROOM` (reserved above) holds the 32-byte block.
                Ok((block, used)) => unsafe { spare.block(block, used) },
                Err(key) => {
                    spare.with_vec(|out| out.extend_from_slice(key));
                    spare.reserve(ATTR_ROOM);
                }
            }
            // SAFETY: at least `ATTR_ROOM - 32 = SHORT_VALUE` bytes are left (the key took at
            // most 32 bytes of the room), and a short value takes at most `SHORT_VALUE`.
            if unsafe { short_value(&mut spare, &entry.code, x) } {
                continue;
            }
            let written =
                spare.with_vec(|out| self.value(prog, entry.op, &prog.resolve(entry.code), x, out));
            if let Err(e) = written {
                let i = entries.iter().position(|e| std::ptr::eq(e, entry));
                let name = i.and_then(|i| prog.attr_names(op).get(i));
                return Err(e.in_attr(name.map_or("", |n| &**n)));
            }
        }
        Ok(())
    }
}

/// An unknown of op `code` (not dynamic): extension 12 with the refinements go-cty writes,
/// `d4 00 00` when there are none. A "definitely null" refinement is go-cty's known null.
fn unknown(code: Op, r: Option<&Refinements<'_>>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let Some(r) = r else {
        out.extend_from_slice(&[0xd4, 0, 0]);
        return Ok(());
    };
    if r.nullness == Some(true) {
        out.push(0xc0);
        return Ok(());
    }
    // The payload is written in place, after a one-byte map header (at most six entries: a
    // fixmap) patched once they are counted; the extension header goes in front after that.
    let start = out.len();
    out.push(0x80);
    let mut entries = 0u8;
    if r.nullness == Some(false) {
        out.extend_from_slice(&[0x01, 0xc2]);
        entries += 1;
    }
    match code {
        Op::String => {
            if let Some(prefix) = r.string_prefix.filter(|p| !p.is_empty()) {
                out.push(0x02);
                str(prefix, out);
                entries += 1;
            }
        }
        Op::Number => {
            for (key, bound) in [(0x03, r.number_lower), (0x04, r.number_upper)] {
                if let Some((n, inclusive)) = bound.filter(|(n, _)| !n.is_infinite()) {
                    out.extend_from_slice(&[key, 0x92]);
                    number(&n, out)?;
                    out.push(if inclusive { 0xc3 } else { 0xc2 });
                    entries += 1;
                }
            }
        }
        Op::List { .. } | Op::Set { .. } | Op::Map { .. } => {
            // go-cty's bounds are Go ints: a lower bound past `int64` is clamped to its
            // largest, and an upper bound at or past it is no bound (go-cty's default).
            if let Some(lower) = r.length_lower.filter(|&l| l != 0) {
                out.push(0x05);
                int(i64::try_from(lower).unwrap_or(i64::MAX), out);
                entries += 1;
            }
            if let Some(upper) = r.length_upper.filter(|&u| u < i64::MAX as u64) {
                out.push(0x06);
                int(upper as i64, out);
                entries += 1;
            }
        }
        _ => {}
    }
    if entries == 0 {
        out.truncate(start);
        out.extend_from_slice(&[0xd4, 0, 0]);
        return Ok(());
    }
    if let Some(header) = out.get_mut(start) {
        *header = 0x80 | entries;
    }
    let n = out.len() - start;
    let mut header = [0u8; 6];
    let used = match n {
        1 | 2 | 4 | 8 | 16 => {
            header[0] = 0xd4 + n.trailing_zeros() as u8;
            1
        }
        n if n <= 0xff => {
            header[..2].copy_from_slice(&[0xc7, n as u8]);
            2
        }
        n if n <= 0xffff => {
            header[0] = 0xc8;
            header[1..3].copy_from_slice(&(n as u16).to_be_bytes());
            3
        }
        n => {
            header[0] = 0xc9;
            header[1..5].copy_from_slice(&(n as u32).to_be_bytes());
            5
        }
    };
    header[used] = 0x0c;
    insert(out, start, &header[..=used]);
    Ok(())
}

/// A number as go-cty writes it.
fn number(n: &Number<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    match written(n) {
        Written::Int(i) => int(i, out),
        Written::Float(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
        }
        Written::Text(t) => str(&t, out),
        Written::TooLong => {
            let msg = format!("{n} has more than {MAX_PLAIN_DIGITS} digits written out");
            return Err(EncodeError::new(msg));
        }
    }
    Ok(())
}

/// Inserts `bytes` at `at` (a header in front of what was just written), shifting the rest:
/// no allocation beyond the buffer's own growth (`Vec::splice` would collect).
fn insert(out: &mut Vec<u8>, at: usize, bytes: &[u8]) {
    let end = out.len();
    out.extend_from_slice(bytes);
    out.copy_within(at..end, at + bytes.len());
    if let Some(front) = out.get_mut(at..at + bytes.len()) {
        front.copy_from_slice(bytes);
    }
}

/// An integer in the smallest format, non-negative values in the uint formats.
fn int(i: i64, out: &mut Vec<u8>) {
    let mut spare = Spare::new(out);
    spare.reserve(9);
    // SAFETY: an integer takes at most 9 bytes, reserved above.
    unsafe { raw_int(&mut spare, i) }
}

/// [`int`] into spare capacity.
///
/// # Safety
/// At least 9 bytes of spare capacity follow the cursor.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn raw_int(spare: &mut Spare<'_>, i: i64) {
    // SAFETY (every write below): at most 9 bytes, the caller's contract.
    unsafe {
        if i >= 0 {
            let u = i as u64;
            if u <= 0x7f {
                spare.byte(u as u8);
            } else if u <= 0xff {
                spare.block(&[0xcc, u as u8], 2);
            } else if u <= 0xffff {
                spare.byte(0xcd);
                spare.block(&(u as u16).to_be_bytes(), 2);
            } else if u <= 0xffff_ffff {
                spare.byte(0xce);
                spare.block(&(u as u32).to_be_bytes(), 4);
            } else {
                spare.byte(0xcf);
                spare.block(&u.to_be_bytes(), 8);
            }
        } else if i >= -32 {
            spare.byte(i as u8);
        } else if i >= -128 {
            spare.block(&[0xd0, i as u8], 2);
        } else if i >= -32768 {
            spare.byte(0xd1);
            spare.block(&(i as i16).to_be_bytes(), 2);
        } else if i >= i32::MIN as i64 {
            spare.byte(0xd2);
            spare.block(&(i as i32).to_be_bytes(), 4);
        } else {
            spare.byte(0xd3);
            spare.block(&i.to_be_bytes(), 8);
        }
    }
}

/// The bytes an object attribute's key takes at most when it is written as a block.
const KEY_BLOCK: usize = 32;

/// The bytes a short value ([`short_value`]) takes at most: a str8 of 63 bytes.
const SHORT_VALUE: usize = 65;

/// The room reserved for one object attribute: its key block and a short value.
const ATTR_ROOM: usize = KEY_BLOCK + SHORT_VALUE;

/// Writes `v`, a value at an op of instruction `code`, when it is short (null, a bool, an
/// integer, a string under 64 bytes) and of the op's kind; returns false (nothing written)
/// otherwise, for the general path to write or reject.
///
/// # Safety
/// At least [`SHORT_VALUE`] bytes of spare capacity follow the cursor.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn short_value(spare: &mut Spare<'_>, code: &Op, v: &Value<'_>) -> bool {
    // SAFETY (every write below): within `SHORT_VALUE` bytes, the caller's contract.
    unsafe {
        match (code, v) {
            (_, Value::Null) => spare.byte(0xc0),
            (Op::String, Value::String(s)) if s.len() < 64 => raw_str(spare, s.as_bytes()),
            (Op::Number, Value::Int(i)) => raw_int(spare, *i),
            (Op::Number, Value::UInt(u)) if *u <= i64::MAX as u64 => raw_int(spare, *u as i64),
            (Op::Bool, Value::Bool(b)) => spare.byte(0xc2 | *b as u8),
            _ => return false,
        }
    }
    true
}

/// A string: fixstr, str8, str16 or str32. Strings under 64 bytes (the ones that dominate
/// states) go through [`raw_str`]: fixed-size copies, no call to `memcpy`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn str(s: &str, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    if b.len() < 64 {
        let mut spare = Spare::new(out);
        spare.reserve(SHORT_VALUE);
        // SAFETY: a string under 64 bytes takes at most `SHORT_VALUE`, reserved above.
        unsafe { raw_str(&mut spare, b) }
    } else {
        write_msgpack_str(s, out);
    }
}

/// A string under 64 bytes: a fixstr (up to 31 bytes) or a str8, its bytes written from two
/// overlapping reads of 4, 8, 16 or 32 bytes (or one at a time under 4).
///
/// # Safety
/// `b` is shorter than 64 bytes, and at least `b.len() + 2` bytes of spare capacity follow
/// the cursor.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn raw_str(spare: &mut Spare<'_>, b: &[u8]) {
    let n = b.len();
    debug_assert!(n < 64);
    // SAFETY (every write below): a header of 1 or 2 bytes and the `n` bytes of `b`, the
    // caller's contract.
    unsafe {
        if n >= 32 {
            spare.block(&[0xd9, n as u8], 2);
        } else {
            spare.byte(0xa0 | n as u8);
        }
        spare.short(b);
    }
}

/// The compact type JSON of `program`'s type (made once per program) as bin8, bin16 or bin32.
fn type_json(program: &Program, out: &mut Vec<u8>) {
    let json = program.type_json().as_bytes();
    let n = json.len();
    if n <= 0xff {
        out.extend_from_slice(&[0xc4, n as u8]);
    } else if n <= 0xffff {
        out.push(0xc5);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(0xc6);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
    out.extend_from_slice(json);
}

/// An array header: fixarray, array16 or array32.
#[cfg_attr(not(debug_assertions), inline(always))]
fn array_header(n: usize, out: &mut Vec<u8>) {
    header(n, [0x90, 0xdc, 0xdd], out);
}

/// A map header: fixmap, map16 or map32.
#[cfg_attr(not(debug_assertions), inline(always))]
fn map_header(n: usize, out: &mut Vec<u8>) {
    header(n, [0x80, 0xde, 0xdf], out);
}

/// A container header of `n` entries: the fix form (`fix | n`), the 16-bit or the 32-bit form
/// (`formats`, in that order).
#[cfg_attr(not(debug_assertions), inline(always))]
fn header(n: usize, [fix, wide16, wide32]: [u8; 3], out: &mut Vec<u8>) {
    let mut spare = Spare::new(out);
    spare.reserve(5);
    // SAFETY (every write below): at most 5 bytes, reserved above.
    unsafe {
        if n <= 15 {
            spare.byte(fix | n as u8);
        } else if n <= 0xffff {
            spare.byte(wide16);
            spare.block(&(n as u16).to_be_bytes(), 2);
        } else {
            spare.byte(wide32);
            spare.block(&(n as u32).to_be_bytes(), 4);
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every value case of `test_values` through the MessagePack encoder (and spare.rs, program/key.rs's string writer); run under Miri by `.ci/miri`.
    #[test]
    fn value_cases() {
        crate::test_values::check_all();
    }
}
