//! The MessagePack executor's item readers: the dispatch on an op with scalars inline,
//! container headers, keys, unknowns and dynamic wrappers.

use super::reader::{is_ext, is_str_or_bin, marker_name};
use super::refine::{self, Target};
use super::Decoder;
use crate::bytes::{first, is_ascii, is_plain_decimal, non_ascii_mask, BLOCK};
use crate::decode::common::Pending;
use crate::decode::read_through::dynamic_program;
use crate::decode::restrict::restrict_dynamic;
use crate::error::ErrorKind;
use crate::number::is_valid_decimal;
use crate::program::dyncache::Lookup;
use crate::program::{Op, OpId, Program};
use crate::schema::Type;
use crate::value::Value;

impl<'a> Decoder<'a> {
    /// Decodes one value of op `op` (`code` is its instruction, `prog` its program): scalars
    /// inline, a container by a call to its loop. One dispatch on the op; within it, the
    /// encoding go-cty writes for that type is tried first, then nil, then unknown.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn value_with(
        &mut self,
        prog: &'a Program,
        code: Op,
        op: OpId,
        put: impl FnOnce(Value<'a>),
    ) -> Result<(), Pending> {
        let at = self.r.pos;
        let Some(&m) = self.r.buf.get(at) else {
            return Err(eof(at));
        };
        match code {
            Op::String => self.string_item(m, at, put),
            Op::Number => self.number_item(m, at, put),
            Op::Bool => self.bool_item(m, at, put),
            _ if m == 0xc0 => {
                self.r.skip1();
                put(Value::Null);
                Ok(())
            }
            _ => emit(put, self.container(prog, code, op, m, at)),
        }
    }

    /// A string value (marker `m` at `at`). The arms of [`value_with`](Decoder::value_with)
    /// are functions of their own only in debug builds, to keep the frame that recursion
    /// stacks up small.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn string_item(
        &mut self,
        m: u8,
        at: usize,
        put: impl FnOnce(Value<'a>),
    ) -> Result<(), Pending> {
        // A fixstr (0xa0..=0xbf) within `max_string_len`; other markers wrap past 31.
        let len = m.wrapping_sub(0xa0) as usize;
        if len <= self.fixstr_max {
            // Past the marker just read (`at < buf.len()`).
            let start = at.wrapping_add(1);
            if let Some(s) = short_ascii(self.r.buf, start, len) {
                // `short_ascii` read these `len` bytes: `start + len <= buf.len()`.
                self.r.pos = start.wrapping_add(len);
                put(Value::String(s));
                return Ok(());
            }
        }
        if m == 0xc0 {
            self.r.skip1();
            put(Value::Null);
            return Ok(());
        }
        emit(put, self.string_value(m, at))
    }

    /// A number value (marker `m` at `at`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn number_item(
        &mut self,
        m: u8,
        at: usize,
        put: impl FnOnce(Value<'a>),
    ) -> Result<(), Pending> {
        if m <= 0x7f || m >= 0xe0 {
            self.r.skip1();
            put(Value::Int((m as i8) as i64));
            return Ok(());
        }
        if let Some(n) = fixed_width_number(self.r.buf, at, m) {
            // `fixed_width_number` read the marker and `width(m)` bytes after it.
            self.r.pos = at.wrapping_add(1).wrapping_add(width(m));
            put(n);
            return Ok(());
        }
        if m == 0xc0 {
            self.r.skip1();
            put(Value::Null);
            return Ok(());
        }
        emit(put, self.number_value(m, at))
    }

    /// A bool value (marker `m` at `at`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bool_item(&mut self, m: u8, at: usize, put: impl FnOnce(Value<'a>)) -> Result<(), Pending> {
        if m == 0xc2 || m == 0xc3 {
            self.r.skip1();
            put(Value::Bool(m == 0xc3));
            return Ok(());
        }
        emit(put, self.absent(Op::Bool, m, at, "bool"))
    }

    /// A value of a container op (or `dynamic`): unknown, or the container's loop. (Its own
    /// function only in debug builds, to keep the frames that recursion stacks up small.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn container(
        &mut self,
        prog: &'a Program,
        code: Op,
        op: OpId,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        match code {
            _ if is_ext(m) => self.unknown(prog.resolve(code), at),
            Op::List { elem, items } => self.seq(prog, elem, items, false, m, at),
            Op::Set { elem, items } => self.seq(prog, elem, items, true, m, at),
            Op::Tuple { elems } => self.tuple(prog, elems, None, m, at),
            Op::Map { elem } => self.map(prog, elem, m, at),
            Op::Object { attrs } => self.object(prog, op, attrs, m, at),
            Op::Dynamic => self.dynamic(m, at),
            Op::Pick { of, picks } => self.pick(prog, of, picks, m, at),
            Op::DynamicSelect { selection } => {
                let value = self.dynamic(m, at)?;
                let max_types = self.options.limits.max_dynamic_types;
                restrict_dynamic(self.root, self.bump, prog, selection, value, max_types)
                    .map_err(|(kind, msg)| Pending::new(kind, at, msg))
            }
            Op::String | Op::Number | Op::Bool => self.absent(code, m, at, "container"),
        }
    }

    /// [`value_with`](Decoder::value_with), returning the value.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn value(
        &mut self,
        prog: &'a Program,
        code: Op,
        op: OpId,
    ) -> Result<Value<'a>, Pending> {
        let mut out = Value::Null;
        self.value_with(prog, code, op, |v| out = v)?;
        Ok(out)
    }

    /// A string value that is not a short ASCII fixstr: any str or bin, or unknown.
    #[inline(never)]
    fn string_value(&mut self, m: u8, at: usize) -> Result<Value<'a>, Pending> {
        if is_ext(m) {
            return self.unknown(Op::String, at);
        }
        self.string(m, at).map(Value::String)
    }

    /// A number value that is not a fixint: any int, float or decimal text, or unknown.
    #[inline(never)]
    fn number_value(&mut self, m: u8, at: usize) -> Result<Value<'a>, Pending> {
        if is_ext(m) {
            return self.unknown(Op::Number, at);
        }
        self.number(m, at)
    }

    /// Nil, unknown, or a type mismatch for a value of op `code` (named `what`).
    #[inline(never)]
    fn absent(&mut self, code: Op, m: u8, at: usize, what: &str) -> Result<Value<'a>, Pending> {
        if m == 0xc0 {
            self.r.skip1();
            return Ok(Value::Null);
        }
        if is_ext(m) {
            return self.unknown(code, at);
        }
        Err(mismatch(what, m, at))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn take(&mut self, len: usize, at: usize) -> Result<&'a [u8], Pending> {
        self.r.take(len).ok_or_else(|| eof(at))
    }

    /// Reads a str or bin payload (the marker `m` not yet consumed), checking its length.
    #[inline]
    pub(super) fn str_bytes(&mut self, m: u8, at: usize) -> Result<&'a [u8], Pending> {
        self.r.skip1();
        let len = self.r.str_len(m).ok_or_else(|| eof(at))?;
        let max = self.options.limits.max_string_len;
        if len > max as usize {
            let msg = format!("string of {len} bytes exceeds max_string_len ({max})");
            return Err(Pending::new(ErrorKind::Limit, at, msg));
        }
        self.take(len, at)
    }

    fn string(&mut self, m: u8, at: usize) -> Result<&'a str, Pending> {
        if !is_str_or_bin(m) {
            return Err(mismatch("string", m, at));
        }
        let bytes = self.str_bytes(m, at)?;
        utf8(bytes, at)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn number(&mut self, m: u8, at: usize) -> Result<Value<'a>, Pending> {
        if is_str_or_bin(m) {
            let bytes = self.str_bytes(m, at)?;
            if is_plain_decimal(bytes) {
                // SAFETY: a plain decimal is ASCII (digits, sign, point), so valid UTF-8.
                let text = unsafe { std::str::from_utf8_unchecked(bytes) };
                return Ok(Value::Decimal(text));
            }
            if !is_valid_decimal(bytes) {
                let text = String::from_utf8_lossy(bytes.get(..40).unwrap_or(bytes)).into_owned();
                let msg = format!("{text:?} is not a valid number");
                return Err(Pending::new(ErrorKind::InvalidNumber, at, msg));
            }
            return Ok(Value::Decimal(utf8(bytes, at)?));
        }
        let r = &mut self.r;
        r.skip1();
        let n = match m {
            0x00..=0x7f => Some(Value::Int(m as i64)),
            0xe0..=0xff => Some(Value::Int((m as i8) as i64)),
            0xcc => r.u8().map(|v| Value::UInt(v as u64)),
            0xcd => r.be_u16().map(|v| Value::UInt(v as u64)),
            0xce => r.be_u32().map(|v| Value::UInt(v as u64)),
            0xcf => r.be_u64().map(Value::UInt),
            0xd0 => r.u8().map(|v| Value::Int((v as i8) as i64)),
            0xd1 => r.be_u16().map(|v| Value::Int((v as i16) as i64)),
            0xd2 => r.be_u32().map(|v| Value::Int((v as i32) as i64)),
            0xd3 => r.be_u64().map(|v| Value::Int(v as i64)),
            0xca => r.be_u32().map(|v| Value::Float(f32::from_bits(v) as f64)),
            0xcb => r.be_u64().map(|v| Value::Float(f64::from_bits(v))),
            _ => {
                r.pos = at;
                return Err(mismatch("number", m, at));
            }
        };
        let n = n.ok_or_else(|| eof(at))?;
        if matches!(n, Value::Float(f) if f.is_nan()) {
            return Err(Pending::new(
                ErrorKind::InvalidNumber,
                at,
                "NaN is not a number".into(),
            ));
        }
        Ok(n)
    }

    /// An extension value: unknown. Code 12 with a payload of 2+ bytes carries refinements.
    fn unknown(&mut self, target_op: Op, at: usize) -> Result<Value<'a>, Pending> {
        Ok(match self.unknown_refinements(target_op, at)? {
            None => Value::Unknown(None),
            Some(r) => Value::Unknown(Some(self.bump.alloc(r))),
        })
    }

    /// An extension value (unknown): its refinements, if it has any.
    pub(super) fn unknown_refinements(
        &mut self,
        target_op: Op,
        at: usize,
    ) -> Result<Option<crate::value::Refinements<'a>>, Pending> {
        let r = &mut self.r;
        let m = r.u8().ok_or_else(|| eof(at))?;
        let len = match m {
            0xd4 => Some(1),
            0xd5 => Some(2),
            0xd6 => Some(4),
            0xd7 => Some(8),
            0xd8 => Some(16),
            0xc7 => r.u8().map(|v| v as usize),
            0xc8 => r.be_u16().map(|v| v as usize),
            _ => r.be_u32().map(|v| v as usize),
        };
        let len = len.ok_or_else(|| eof(at))?;
        let code = r.u8().ok_or_else(|| eof(at))?;
        let payload_at = r.pos;
        let payload = self.take(len, at)?;
        self.unknowns = self.unknowns.saturating_add(1);
        if code != 12 || len <= 1 {
            return Ok(None);
        }
        let max = self.options.limits.max_refinement_len;
        if len > max as usize {
            let msg =
                format!("refinement payload of {len} bytes exceeds max_refinement_len ({max})");
            return Err(Pending::new(ErrorKind::Limit, at, msg));
        }
        let target = match target_op {
            Op::String => Target::String,
            Op::Number => Target::Number,
            Op::List { .. } | Op::Set { .. } | Op::Map { .. } => Target::Collection,
            Op::Dynamic => Target::Dynamic,
            _ => Target::Other,
        };
        match refine::parse(payload, payload_at, target) {
            Ok(r) => Ok(r),
            Err(e) => Err(Pending::new(
                ErrorKind::InvalidRefinement,
                e.offset,
                e.message,
            )),
        }
    }

    /// A dynamic wrapper `[type JSON, value]`: looks the type up (compiling it on first sight)
    /// and decodes the value with the concrete type's program.
    #[inline(never)]
    fn dynamic(&mut self, m: u8, at: usize) -> Result<Value<'a>, Pending> {
        let (mut m, mut at) = (m, at);
        let (mut beyond, mut within) = (0u32, 0u32);
        let value = loop {
            let sub = self.wrapper_type(m, at)?;
            if sub.code.root_type != Type::Dynamic {
                break self.wrapped(sub, at)?;
            }
            // `["dynamic", V]` is V itself: a chain of them is followed here in a loop (each
            // counts against `max_depth`, none takes stack), up to a V that is not a wrapper.
            // (At most `max_depth` levels in all: neither count can wrap.)
            if self.c.enter_chained(at)? {
                beyond = beyond.wrapping_add(1);
            } else {
                within = within.wrapping_add(1);
            }
            let vat = self.r.pos;
            match self.r.buf.get(vat) {
                Some(&vm) if vm != 0xc0 && !is_ext(vm) => (m, at) = (vm, vat),
                _ => break self.value(sub, Op::Dynamic, sub.code.root)?,
            }
        };
        self.c.leave_chained(beyond, within);
        Ok(value)
    }

    /// Reads a wrapper's header and type JSON: the program of its type (compiled on first
    /// sight and cached in the root program).
    pub(super) fn wrapper_type(&mut self, m: u8, at: usize) -> Result<&'a Program, Pending> {
        let len = match m {
            0x90..=0x9f | 0xdc | 0xdd => self.array_len(m, at, "dynamic")?,
            _ => {
                let msg = format!(
                    "expected a dynamic value [type, value], found msgpack {}",
                    marker_name(m)
                );
                return Err(Pending::new(
                    reserved_or(m, ErrorKind::InvalidDynamic),
                    at,
                    msg,
                ));
            }
        };
        if len != 2 {
            let msg = format!("dynamic value array must have exactly two elements ({len} given)");
            return Err(Pending::new(ErrorKind::InvalidDynamic, at, msg));
        }
        let type_at = self.r.pos;
        let tm = self.r.peek().ok_or_else(|| eof(type_at))?;
        if !is_str_or_bin(tm) {
            let msg = format!(
                "dynamic value type must be JSON in bin or str, found msgpack {}",
                marker_name(tm)
            );
            return Err(Pending::new(
                reserved_or(tm, ErrorKind::InvalidDynamic),
                type_at,
                msg,
            ));
        }
        self.r.skip1();
        let tlen = self.r.str_len(tm).ok_or_else(|| eof(type_at))?;
        let limit = self.options.limits.max_type_json_len;
        if tlen > limit as usize {
            let msg = format!("type JSON of {tlen} bytes exceeds max_type_json_len ({limit})");
            return Err(Pending::new(ErrorKind::Limit, type_at, msg));
        }
        let type_json = self.take(tlen, type_at)?;
        let root: &'a Program = self.root;
        let max_types = self.options.limits.max_dynamic_types;
        let sub = match dynamic_program(root, type_json, max_types) {
            Lookup::Found(p) => p,
            Lookup::Full => {
                let msg =
                    format!("more than max_dynamic_types ({max_types}) distinct dynamic types");
                return Err(Pending::new(ErrorKind::Limit, type_at, msg));
            }
            Lookup::Invalid(msg) => {
                let msg = format!("invalid dynamic type: {msg}");
                return Err(Pending::new(ErrorKind::InvalidType, type_at, msg));
            }
        };
        Ok(sub)
    }

    /// The value of a wrapper of type `sub` (never `"dynamic"`), whose header is at `at`.
    fn wrapped(&mut self, sub: &'a Program, at: usize) -> Result<Value<'a>, Pending> {
        let reads_through = self.c.wrapper_opened(sub);
        self.c.enter(at)?;
        let value = self.value(sub, sub.op(sub.code.root), sub.code.root)?;
        self.c.leave();
        self.c
            .wrapper_value(self.root, self.bump, sub, value, reads_through, at)
    }

    /// Array header for a list, set or tuple; the count must fit in the bytes that remain.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn array_len(&mut self, m: u8, at: usize, what: &str) -> Result<u32, Pending> {
        self.header_len(m, at, what, Header::Array)
    }

    /// Map header for a map or object; two items per entry must fit in what remains.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn map_len(&mut self, m: u8, at: usize, what: &str) -> Result<u32, Pending> {
        self.header_len(m, at, what, Header::Map)
    }

    /// The entry count of an array or map header (fix, 16- or 32-bit form), checked against
    /// the bytes that remain and the container limit.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn header_len(&mut self, m: u8, at: usize, what: &str, h: Header) -> Result<u32, Pending> {
        let (fix, wide, items_per_entry) = match h {
            Header::Array => (0x90, 0xdc, 1),
            Header::Map => (0x80, 0xde, 2),
        };
        // (The 32-bit forms are `wide | 1`: 0xdd, 0xdf.)
        let n = if m & 0xf0 == fix {
            self.r.skip1();
            (m & 0x0f) as u32
        } else if m == wide {
            self.r.skip1();
            self.r.be_u16().ok_or_else(|| eof(at))? as u32
        } else if m == wide | 1 {
            self.r.skip1();
            self.r.be_u32().ok_or_else(|| eof(at))?
        } else {
            return Err(mismatch(what, m, at));
        };
        // At most 2 × (2³² − 1) items: no overflow in a u64.
        self.check_claim((n as u64).wrapping_mul(items_per_entry), n, at)?;
        Ok(n)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_claim(&self, items: u64, n: u32, at: usize) -> Result<(), Pending> {
        if items > self.r.remaining() as u64 {
            let msg = format!(
                "header claims {items} items but only {} bytes remain",
                self.r.remaining()
            );
            return Err(Pending::new(ErrorKind::Eof, at, msg));
        }
        let max = self.options.limits.max_container_len;
        if n > max {
            let msg = format!("{n} elements exceed max_container_len ({max})");
            return Err(Pending::new(ErrorKind::Limit, at, msg));
        }
        Ok(())
    }

    /// Reads a map key: a str or bin holding UTF-8.
    #[inline]
    pub(super) fn map_key(&mut self) -> Result<&'a str, Pending> {
        let at = self.r.pos;
        let m = self.r.peek().ok_or_else(|| eof(at))?;
        if !is_str_or_bin(m) {
            let msg = format!("map keys must be strings, found msgpack {}", marker_name(m));
            return Err(Pending::new(reserved_or(m, ErrorKind::InvalidKey), at, msg));
        }
        let bytes = self.str_bytes(m, at)?;
        utf8(bytes, at)
    }
}

/// The `len` bytes at `buf[start..]` as a string if `len <= 32`, 32 bytes are readable there
/// and the string is ASCII: one block load, one mask, one test.
#[cfg_attr(not(debug_assertions), inline(always))]
fn short_ascii(buf: &[u8], start: usize, len: usize) -> Option<&str> {
    let block = buf.get(start..)?.first_chunk::<BLOCK>()?;
    if non_ascii_mask(block) & first(len) != 0 {
        return None;
    }
    let bytes = block.get(..len)?;
    // SAFETY: the mask test above proved all `len` bytes ASCII, and ASCII is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// Payload bytes of the fixed-width number markers `0xca..=0xd3` (float32, float64, uint8–64,
/// int8–64), indexed by `marker - 0xca`.
const NUMBER_WIDTHS: [u8; 10] = [4, 8, 1, 2, 4, 8, 1, 2, 4, 8];

/// The payload width of a fixed-width number marker (0 for any other byte).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn width(m: u8) -> usize {
    NUMBER_WIDTHS
        .get(m.wrapping_sub(0xca) as usize)
        .map_or(0, |&w| w as usize)
}

/// A fixed-width int or float at `buf[at]` (marker `m`), read with one 8-byte big-endian load
/// when 8 bytes follow the marker; `None` for anything else (the caller's general path takes
/// it, NaN and the end of the input included).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn fixed_width_number<'a>(buf: &[u8], at: usize, m: u8) -> Option<Value<'a>> {
    let kind = m.wrapping_sub(0xca);
    let bits = u32::from(*NUMBER_WIDTHS.get(kind as usize)?).wrapping_mul(8);
    let word = buf.get(at.wrapping_add(1)..)?.first_chunk::<8>()?;
    let raw = u64::from_be_bytes(*word);
    // `8 <= bits <= 64`: the shift is 0..=56.
    let shift = 64u32.wrapping_sub(bits);
    let n = match kind {
        0 => Value::Float(f32::from_bits((raw >> shift) as u32) as f64),
        1 => Value::Float(f64::from_bits(raw)),
        2..=5 => Value::UInt(raw >> shift),
        _ => Value::Int((raw as i64) >> shift),
    };
    if matches!(n, Value::Float(f) if f.is_nan()) {
        return None;
    }
    Some(n)
}

/// Hands a decoded value to `put`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn emit<'a>(put: impl FnOnce(Value<'a>), value: Result<Value<'a>, Pending>) -> Result<(), Pending> {
    put(value?);
    Ok(())
}

/// The two container headers.
#[derive(Clone, Copy)]
enum Header {
    Array,
    Map,
}

/// UTF-8 validation with an ASCII fast path.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn utf8(bytes: &[u8], at: usize) -> Result<&str, Pending> {
    if is_ascii(bytes) {
        // SAFETY: every ASCII byte sequence is valid UTF-8. Skipping the second check here
        // measured +7% on `aws_states` (std's `from_utf8` is not elided after `is_ascii`).
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    simdutf8::basic::from_utf8(bytes).map_err(|_| {
        Pending::new(
            ErrorKind::InvalidUtf8,
            at,
            "string is not valid UTF-8".into(),
        )
    })
}

#[cold]
pub(super) fn eof(at: usize) -> Pending {
    Pending::new(ErrorKind::Eof, at, "unexpected end of input".into())
}

/// The reserved byte `0xc1` is not MessagePack at all: a syntax error wherever it appears.
#[cold]
pub(super) fn reserved_or(m: u8, kind: ErrorKind) -> ErrorKind {
    if m == 0xc1 {
        ErrorKind::Syntax
    } else {
        kind
    }
}

#[cold]
fn mismatch(expected: &str, m: u8, at: usize) -> Pending {
    let msg = format!("expected {expected}, found msgpack {}", marker_name(m));
    let kind = if m == 0xc1 {
        ErrorKind::Syntax
    } else {
        ErrorKind::TypeMismatch
    };
    Pending::new(kind, at, msg)
}
