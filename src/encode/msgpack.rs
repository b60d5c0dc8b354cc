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

use super::number::{written, Written, MAX_PLAIN_DIGITS};
use super::order::sorted_keys;
use super::{EncodeError, MAX_NESTING};
use crate::number::Number;
use crate::program::key::write_msgpack_str;
use crate::program::{Op, OpId, Program};
use crate::value::{Refinements, Value};

/// Writes values into a caller's buffer; holds the scratch that sorting map keys needs, so a
/// reused encoder allocates nothing per value once warm.
#[derive(Default)]
pub struct MsgpackEncoder {
    order: Vec<u32>,
    /// Values open on the recursion: bounded by [`MAX_NESTING`], as decodes are.
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
        self.value(program, root, &program.op(root), &value, out)
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
                _ => return self.composite(prog, op, *code, *v, out),
            },
            Op::Number => match v {
                Value::Int(i) => int(*i, out),
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, op, *code, *v, out),
            },
            Op::Bool => match v {
                Value::Bool(b) => out.push(0xc2 | *b as u8),
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, op, *code, *v, out),
            },
            _ => match v {
                Value::Null => out.push(0xc0),
                _ => return self.composite(prog, op, *code, *v, out),
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
        op: OpId,
        code: Op,
        v: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        if self.depth >= MAX_NESTING {
            return Err(EncodeError::too_deep());
        }
        self.depth += 1;
        let result = self.composite_at_depth(prog, op, code, v, out);
        self.depth -= 1;
        result
    }

    fn composite_at_depth(
        &mut self,
        prog: &Program,
        op: OpId,
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
            (Op::List { elem, .. }, Value::List(e)) | (Op::Set { elem, .. }, Value::Set(e)) => {
                array_header(e.len(), out);
                let elem_code = prog.op(elem);
                for (i, x) in e.iter().enumerate() {
                    self.value(prog, elem, &elem_code, x, out)
                        .map_err(|e| e.in_index(i))?;
                }
            }
            (Op::Tuple { elems }, Value::Tuple(e)) => {
                let ops = prog.code.tuple_elems.get(elems.range()).unwrap_or_default();
                if ops.len() != e.len() {
                    let msg = format!(
                        "a tuple of {} elements for a type of {}",
                        e.len(),
                        ops.len()
                    );
                    return Err(EncodeError::new(msg));
                }
                array_header(e.len(), out);
                for (i, (o, x)) in ops.iter().zip(e).enumerate() {
                    self.value(prog, *o, &prog.op(*o), x, out)
                        .map_err(|e| e.in_index(i))?;
                }
            }
            (Op::Map { elem }, Value::Map(entries)) => {
                let base = sorted_keys(entries, &mut self.order);
                map_header(self.order.len() - base, out);
                let elem_code = prog.op(elem);
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
            (Op::Object { attrs }, Value::Object(object)) if object.op() == op => {
                let entries = prog.code.attrs.get(attrs.range()).unwrap_or_default();
                map_header(entries.len(), out);
                for (i, (entry, x)) in entries.iter().zip(object.attrs()).enumerate() {
                    // One reservation for the key block and a short scalar after it.
                    out.reserve(2 * KEY_BLOCK);
                    entry.write_msgpack(out);
                    if let Err(e) = self.value(prog, entry.op, &entry.code, x, out) {
                        let name = prog.attr_names(op).get(i).map_or("", |n| &**n);
                        return Err(e.in_attr(name));
                    }
                }
            }
            (Op::Dynamic, Value::Dynamic(d)) => {
                out.push(0x92);
                type_json(d.program, out);
                let root = d.program.root();
                self.value(d.program, root, &d.program.op(root), &d.value, out)?;
            }
            (_, v) => return Err(EncodeError::mismatch(code, v)),
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
    if i >= 0 {
        let u = i as u64;
        if u <= 0x7f {
            out.push(u as u8);
        } else if u <= 0xff {
            out.extend_from_slice(&[0xcc, u as u8]);
        } else if u <= 0xffff {
            out.push(0xcd);
            out.extend_from_slice(&(u as u16).to_be_bytes());
        } else if u <= 0xffff_ffff {
            out.push(0xce);
            out.extend_from_slice(&(u as u32).to_be_bytes());
        } else {
            out.push(0xcf);
            out.extend_from_slice(&u.to_be_bytes());
        }
    } else if i >= -32 {
        out.push(i as u8);
    } else if i >= -128 {
        out.extend_from_slice(&[0xd0, i as u8]);
    } else if i >= -32768 {
        out.push(0xd1);
        out.extend_from_slice(&(i as i16).to_be_bytes());
    } else if i >= i32::MIN as i64 {
        out.push(0xd2);
        out.extend_from_slice(&(i as i32).to_be_bytes());
    } else {
        out.push(0xd3);
        out.extend_from_slice(&i.to_be_bytes());
    }
}

/// The bytes an attribute's key block (and a fixstr with its header) take at most.
const KEY_BLOCK: usize = 32;

/// A string: fixstr, str8, str16 or str32. A fixstr (up to 31 bytes) goes into 32 bytes
/// appended at once (a fixed-size store), written in place from two overlapping reads of the
/// string's own bytes, the slack then cut off: no call to `memcpy` for the short strings that
/// dominate states, and no block assembled on the stack and read back (a store-forwarding
/// stall).
#[cfg_attr(not(debug_assertions), inline(always))]
fn str(s: &str, out: &mut Vec<u8>) {
    let b = s.as_bytes();
    let n = b.len();
    if n > 31 {
        if n < 64 {
            medium_str(b, out);
        } else {
            write_msgpack_str(s, out);
        }
        return;
    }
    let len = out.len();
    out.extend_from_slice(&[0u8; 32]);
    if let Some(block) = out.get_mut(len..).and_then(|t| t.first_chunk_mut::<32>()) {
        block[0] = 0xa0 | n as u8;
        let body = &mut block[1..];
        if n >= 16 {
            overlapping::<16>(b, body);
        } else if n >= 8 {
            overlapping::<8>(b, body);
        } else if n >= 4 {
            overlapping::<4>(b, body);
        } else {
            for (slot, &c) in body.iter_mut().zip(b) {
                *slot = c;
            }
        }
    }
    out.truncate(len + 1 + n);
}

/// A str8 of 32 to 63 bytes (ARNs, IDs), as [`str`] writes a fixstr: 66 bytes appended at
/// once, the string written from two overlapping 32-byte reads, the slack cut off.
#[cfg_attr(not(debug_assertions), inline(always))]
fn medium_str(b: &[u8], out: &mut Vec<u8>) {
    let n = b.len();
    let len = out.len();
    out.extend_from_slice(&[0u8; 66]);
    if let Some(block) = out.get_mut(len..).and_then(|t| t.first_chunk_mut::<66>()) {
        block[0] = 0xd9;
        block[1] = n as u8;
        overlapping::<32>(b, &mut block[2..]);
    }
    out.truncate(len + 2 + n);
}

/// Copies `src` (`W..=2W` bytes) to the front of `dst` as its first `W` and last `W` bytes
/// (they overlap when `src` is shorter than `2W`).
#[cfg_attr(not(debug_assertions), inline(always))]
fn overlapping<const W: usize>(src: &[u8], dst: &mut [u8]) {
    let n = src.len();
    if let (Some(head), Some(tail)) = (src.first_chunk::<W>(), src.last_chunk::<W>()) {
        if let Some(d) = dst.first_chunk_mut::<W>() {
            *d = *head;
        }
        if let Some(d) = dst.get_mut(n - W..).and_then(|d| d.first_chunk_mut::<W>()) {
            *d = *tail;
        }
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
fn array_header(n: usize, out: &mut Vec<u8>) {
    if n <= 15 {
        out.push(0x90 | n as u8);
    } else if n <= 0xffff {
        out.push(0xdc);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(0xdd);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

/// A map header: fixmap, map16 or map32.
fn map_header(n: usize, out: &mut Vec<u8>) {
    if n <= 15 {
        out.push(0x80 | n as u8);
    } else if n <= 0xffff {
        out.push(0xde);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(0xdf);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}
