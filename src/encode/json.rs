//! The JSON encoder: a value of a program's type → the bytes go-cty's `ctyjson.Marshal`
//! writes for it (`../shared/research/reference-semantics.md` §2.2).
//!
//! Compact; object attributes in name order and map keys sorted bytewise (a repeated key
//! written once, with its last value); strings escaped as Go's `encoding/json` does (HTML
//! characters included, `json_escape.rs`); numbers as `Text('f', -1)` prints them, never with
//! an exponent: a float64 as its shortest round-trip digits, decimal text as its exact value;
//! a value at a `dynamic` position as `{"value":…,"type":…}`; sets in the order they hold. An
//! unknown (JSON has no form for it) or an infinity is an error naming its path.

use super::number::{plain_decimal, Written, MAX_PLAIN_DIGITS};
use super::order::sorted_keys;
use super::shortest::write_f64;
use super::{deeper, tuple_ops, EncodeError};
use crate::json_escape::write_go_json_string;
use crate::program::{Op, OpId, Program, Span};
use crate::value::{Object, Value};

/// Writes values as JSON into a caller's buffer; holds the scratch that sorting map keys
/// needs, so a reused encoder allocates nothing per value once warm.
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::{JsonEncoder, Program};
///
/// let program = Program::from_type_json(r#"["map","number"]"#).unwrap();
/// let bump = Bump::new();
/// let mut encoder = JsonEncoder::new();
/// let mut out = Vec::new();
/// for input in [&br#"{"b": 2.50, "a": -0}"#[..], br#"{"x": 1e21}"#] {
///     let value = program.decode_json(input, &bump).unwrap();
///     out.clear();
///     encoder.encode(&program, value, &mut out).unwrap();
///     println!("{}", String::from_utf8_lossy(&out));
/// }
/// assert_eq!(out, b"{\"x\":1000000000000000000000}");
/// ```
#[derive(Default)]
pub struct JsonEncoder {
    order: Vec<u32>,
    /// Values open on the recursion: bounded by [`MAX_VALUE_DEPTH`](crate::MAX_VALUE_DEPTH).
    depth: usize,
}

impl JsonEncoder {
    /// A new encoder.
    pub fn new() -> JsonEncoder {
        JsonEncoder::default()
    }

    /// Appends the encoding of `value`, a value of `program`'s type, to `out`. On an error,
    /// `out` holds part of the value.
    pub fn encode(
        &mut self,
        program: &Program,
        value: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        self.value(program, program.root(), value, out)
    }

    /// One value at op `op`: the common scalars here, inlined into the container loops;
    /// everything else in [`Self::composite`].
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn value(
        &mut self,
        prog: &Program,
        op: OpId,
        v: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let code = prog.op_type(op);
        match (code, v) {
            (Op::String, Value::String(s)) => write_go_json_string(s, out),
            (Op::Number, Value::Int(i)) => {
                out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes())
            }
            (Op::Bool, Value::Bool(b)) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            (_, Value::Null) => out.extend_from_slice(b"null"),
            _ => return self.composite(prog, op, code, v, out),
        }
        Ok(())
    }

    /// Containers, dynamic wrappers, unknowns, other numbers and mismatches; the recursion's
    /// depth is counted here (containers and wrappers, as the decoders count).
    #[inline(never)]
    fn composite(
        &mut self,
        prog: &Program,
        op: OpId,
        code: Op,
        v: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        self.depth = deeper(self.depth)?;
        let result = self.composite_at_depth(prog, op, code, v, out);
        // (Back to where it was.)
        self.depth = self.depth.wrapping_sub(1);
        result
    }

    /// One composite value, below the cap: each kind in its own function, so that a debug
    /// build's frame on the recursion holds one kind's locals, not all of them (in a release
    /// build they are inlined back into one).
    fn composite_at_depth(
        &mut self,
        prog: &Program,
        op: OpId,
        code: Op,
        v: Value<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        match (code, v) {
            (Op::List { elem, .. }, Value::List(e)) | (Op::Set { elem, .. }, Value::Set(e)) => {
                self.list(prog, elem, e, out)
            }
            (Op::Tuple { elems }, Value::Tuple(e)) => self.tuple(prog, elems, e, out),
            (Op::Map { elem }, Value::Map(entries)) => self.map(prog, elem, entries, out),
            (Op::Object { attrs }, Value::Object(object)) if object.op() == op => {
                self.object(prog, op, attrs, object, out)
            }
            (Op::Dynamic, Value::Dynamic(d)) => {
                out.extend_from_slice(b"{\"value\":");
                self.value(d.program, d.program.root(), d.value, out)?;
                out.extend_from_slice(b",\"type\":");
                type_json(d.program, out);
                out.push(b'}');
                Ok(())
            }
            (code, v) => leaf(code, v, out),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn list(
        &mut self,
        prog: &Program,
        elem: OpId,
        e: &[Value<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        out.push(b'[');
        for (i, x) in e.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            self.value(prog, elem, *x, out).map_err(|e| e.in_index(i))?;
        }
        out.push(b']');
        Ok(())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn tuple(
        &mut self,
        prog: &Program,
        elems: Span,
        e: &[Value<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let ops = tuple_ops(prog, elems, e.len())?;
        out.push(b'[');
        for (i, (o, x)) in ops.iter().zip(e).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            self.value(prog, *o, *x, out).map_err(|e| e.in_index(i))?;
        }
        out.push(b']');
        Ok(())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn map(
        &mut self,
        prog: &Program,
        elem: OpId,
        entries: &[(&str, Value<'_>)],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let base = sorted_keys(entries, &mut self.order);
        out.push(b'{');
        let mut result = Ok(());
        for j in base..self.order.len() {
            let i = self.order.get(j).copied().unwrap_or(0);
            let Some((k, x)) = entries.get(i as usize) else {
                continue;
            };
            if j > base {
                out.push(b',');
            }
            write_go_json_string(k, out);
            out.push(b':');
            result = self.value(prog, elem, *x, out).map_err(|e| e.in_key(k));
            if result.is_err() {
                break;
            }
        }
        self.order.truncate(base);
        result?;
        out.push(b'}');
        Ok(())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn object(
        &mut self,
        prog: &Program,
        op: OpId,
        attrs: Span,
        object: Object<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let names = prog.attr_names(op);
        let entries = prog.code.attrs.get(attrs.range()).unwrap_or_default();
        out.push(b'{');
        for (i, ((name, entry), x)) in names.iter().zip(entries).zip(object.attrs()).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match entry.go_json() {
                Some(key) => out.extend_from_slice(key),
                None => {
                    write_go_json_string(name, out);
                    out.push(b':');
                }
            }
            self.value(prog, entry.op, *x, out)
                .map_err(|e| e.in_attr(name))?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// A value that holds no other: null, unknown (an error), a bool, a number or a string; or a
/// value of the wrong kind for its op (an error).
#[inline(never)]
fn leaf(code: Op, v: Value<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    match (code, v) {
        (_, Value::Null) => out.extend_from_slice(b"null"),
        (_, Value::Unknown(_)) => {
            return Err(EncodeError::new("value is not known".to_string()));
        }
        (Op::Bool, Value::Bool(b)) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        (Op::Number, Value::Int(i)) => {
            out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes())
        }
        (Op::Number, Value::UInt(u)) => {
            out.extend_from_slice(itoa::Buffer::new().format(u).as_bytes())
        }
        (Op::Number, Value::Float(f)) => float(f, out)?,
        (Op::Number, Value::Decimal(t)) => match plain_decimal(t) {
            Written::Text(text) => out.extend_from_slice(text.as_bytes()),
            Written::Float(f) => float(f, out)?,
            Written::Int(i) => out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
            Written::TooLong => {
                let msg = format!("{t} has more than {MAX_PLAIN_DIGITS} digits written out");
                return Err(EncodeError::new(msg));
            }
        },
        (Op::String, Value::String(s)) => write_go_json_string(s, out),
        (_, v) => return Err(EncodeError::mismatch(code, v)),
    }
    Ok(())
}

/// A float64 as `Text('f', -1)` prints it at 53 bits (`shortest.rs`). ±Inf is an error.
fn float(f: f64, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    if f.is_infinite() {
        return Err(EncodeError::new(
            "cannot serialize infinity as JSON".to_string(),
        ));
    }
    write_f64(f, out);
    Ok(())
}

/// The compact type JSON of `program`'s type (made once per program).
fn type_json(program: &Program, out: &mut Vec<u8>) {
    out.extend_from_slice(program.type_json().as_bytes());
}
