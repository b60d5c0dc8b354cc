//! The MessagePack executor's item readers: scalars inline, container headers, keys,
//! unknowns and dynamic wrappers; and the error constructor that renders the value path.

use super::dyncache::Lookup;
use super::frame::{Frame, Item, Kind, Pending};
use super::mp_reader::{is_ext, is_str_or_bin, marker_name, SkipError};
use super::msgpack::Vm;
use super::refine::{self, Target};
use crate::error::ErrorKind;
use crate::number::{is_valid_decimal, Number};
use crate::program::{Op, OpId, Program};
use crate::value::Value;

/// Arena bytes of a value slot and of a map entry.
const VALUE: usize = std::mem::size_of::<Value>();
const ENTRY: usize = std::mem::size_of::<(&str, Value)>();

impl<'a> Vm<'a> {
    /// Decodes one value of op `op` (`code` is its instruction): a scalar at once, a container
    /// as a new frame to fill.
    #[inline(always)]
    pub(super) fn item(&mut self, code: Op, op: OpId) -> Result<Item<'a>, Pending> {
        let at = self.r.pos;
        let Some(&m) = self.r.buf.get(at) else {
            return Err(eof(at));
        };
        // The expected encodings first; nil and unknown after.
        match code {
            Op::String
                if (0xa0..=0xbf).contains(&m)
                    && (m as u32 & 0x1f) <= self.b.options.limits.max_string_len =>
            {
                let len = m as usize & 0x1f;
                // Past the marker just read (`at < buf.len()`).
                let start = at.wrapping_add(1);
                if let Some(s) = short_ascii(self.r.buf, start, len) {
                    // `short_ascii` read these `len` bytes: `start + len <= buf.len()`.
                    self.r.pos = start.wrapping_add(len);
                    return Ok(Item::Done(Value::String(s)));
                }
                self.r.pos = start;
                let bytes = self.take(len, at)?;
                return Ok(Item::Done(Value::String(utf8(bytes, at)?)));
            }
            Op::Number if m <= 0x7f || m >= 0xe0 => {
                self.r.skip1();
                return Ok(Item::Done(Value::Number(Number::Int((m as i8) as i64))));
            }
            Op::Bool if m == 0xc2 || m == 0xc3 => {
                self.r.skip1();
                return Ok(Item::Done(Value::Bool(m == 0xc3)));
            }
            _ => {}
        }
        if m == 0xc0 {
            self.r.skip1();
            return Ok(Item::Done(Value::Null));
        }
        if is_ext(m) {
            return self.unknown(op, at).map(Item::Done);
        }
        match code {
            Op::String => self.string(m, at).map(|s| Item::Done(Value::String(s))),
            Op::Number => self.number(m, at).map(|n| Item::Done(Value::Number(n))),
            Op::Bool => Err(mismatch("bool", m, at)),
            Op::List { elem, items } | Op::Set { elem, items } => {
                let set = matches!(code, Op::Set { .. });
                let len = self.array_len(m, at, if set { "set" } else { "list" })?;
                self.b.charge(len, VALUE, at)?;
                let out = self.b.bump.alloc_slice_fill_copy(len as usize, Value::Null);
                let kind = Kind::Seq {
                    out,
                    elem,
                    set,
                    items,
                };
                Ok(Item::Push(Frame::new(kind, len, at)))
            }
            Op::Tuple { elems } => {
                let len = self.array_len(m, at, "tuple")?;
                if len != elems.len {
                    let msg = format!("a tuple of length {} is required ({len} given)", elems.len);
                    return Err(Pending::new(ErrorKind::WrongLength, at, msg));
                }
                self.b.charge(len, VALUE, at)?;
                let out = self.b.bump.alloc_slice_fill_copy(len as usize, Value::Null);
                Ok(Item::Push(Frame::new(Kind::Tuple { out, elems }, len, at)))
            }
            Op::Map { elem } => {
                let len = self.map_len(m, at, "map")?;
                self.b.charge(len, ENTRY, at)?;
                let out = self
                    .b
                    .bump
                    .alloc_slice_fill_copy(len as usize, ("", Value::Null));
                Ok(Item::Push(Frame::new(Kind::Map { out, elem }, len, at)))
            }
            Op::Object { attrs } => {
                let len = self.map_len(m, at, "object")?;
                Ok(Item::Push(self.b.object_frame(op, attrs, len, at)?))
            }
            Op::Dynamic => self.dynamic(m, at).map(Item::Push),
        }
    }

    #[inline(always)]
    fn take(&mut self, len: usize, at: usize) -> Result<&'a [u8], Pending> {
        self.r.take(len).ok_or_else(|| eof(at))
    }

    /// Reads a str or bin payload (the marker `m` not yet consumed), checking its length.
    #[inline]
    fn str_bytes(&mut self, m: u8, at: usize) -> Result<&'a [u8], Pending> {
        self.r.skip1();
        let len = self.r.str_len(m).ok_or_else(|| eof(at))?;
        let max = self.b.options.limits.max_string_len;
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

    #[inline(always)]
    fn number(&mut self, m: u8, at: usize) -> Result<Number<'a>, Pending> {
        if is_str_or_bin(m) {
            let bytes = self.str_bytes(m, at)?;
            if !is_valid_decimal(bytes) {
                let text = String::from_utf8_lossy(bytes.get(..40).unwrap_or(bytes)).into_owned();
                let msg = format!("{text:?} is not a valid number");
                return Err(Pending::new(ErrorKind::InvalidNumber, at, msg));
            }
            return Ok(Number::Decimal(self.b.bump.alloc(utf8(bytes, at)?)));
        }
        let r = &mut self.r;
        r.skip1();
        let n = match m {
            0x00..=0x7f => Some(Number::Int(m as i64)),
            0xe0..=0xff => Some(Number::Int((m as i8) as i64)),
            0xcc => r.u8().map(|v| Number::UInt(v as u64)),
            0xcd => r.be_u16().map(|v| Number::UInt(v as u64)),
            0xce => r.be_u32().map(|v| Number::UInt(v as u64)),
            0xcf => r.be_u64().map(Number::UInt),
            0xd0 => r.u8().map(|v| Number::Int((v as i8) as i64)),
            0xd1 => r.be_u16().map(|v| Number::Int((v as i16) as i64)),
            0xd2 => r.be_u32().map(|v| Number::Int((v as i32) as i64)),
            0xd3 => r.be_u64().map(|v| Number::Int(v as i64)),
            0xca => r.be_u32().map(|v| Number::Float(f32::from_bits(v) as f64)),
            0xcb => r.be_u64().map(|v| Number::Float(f64::from_bits(v))),
            _ => {
                r.pos = at;
                return Err(mismatch("number", m, at));
            }
        };
        let n = n.ok_or_else(|| eof(at))?;
        if matches!(n, Number::Float(f) if f.is_nan()) {
            return Err(Pending::new(
                ErrorKind::InvalidNumber,
                at,
                "NaN is not a number".into(),
            ));
        }
        Ok(n)
    }

    /// An extension value: unknown. Code 12 with a payload of 2+ bytes carries refinements.
    fn unknown(&mut self, op: OpId, at: usize) -> Result<Value<'a>, Pending> {
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
        self.b.unknowns = self.b.unknowns.saturating_add(1);
        if code != 12 || len <= 1 {
            return Ok(Value::Unknown(None));
        }
        let max = self.b.options.limits.max_refinement_len;
        if len > max as usize {
            let msg =
                format!("refinement payload of {len} bytes exceeds max_refinement_len ({max})");
            return Err(Pending::new(ErrorKind::Limit, at, msg));
        }
        let target = match self.b.prog.op(op) {
            Op::String => Target::String,
            Op::Number => Target::Number,
            Op::List { .. } | Op::Set { .. } | Op::Map { .. } => Target::Collection,
            Op::Dynamic => Target::Dynamic,
            _ => Target::Other,
        };
        match refine::parse(payload, payload_at, target, self.b.bump) {
            Ok(None) => Ok(Value::Unknown(None)),
            Ok(Some(r)) => Ok(Value::Unknown(Some(self.b.bump.alloc(r)))),
            Err(e) => Err(Pending::new(
                ErrorKind::InvalidRefinement,
                e.offset,
                e.message,
            )),
        }
    }

    /// A dynamic wrapper `[type JSON, value]`: looks the type up (compiling it on first sight)
    /// and returns a frame whose one child is decoded with the concrete type's program.
    fn dynamic(&mut self, m: u8, at: usize) -> Result<Frame<'a>, Pending> {
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
        let limit = self.b.options.limits.max_type_json_len;
        if tlen > limit as usize {
            let msg = format!("type JSON of {tlen} bytes exceeds max_type_json_len ({limit})");
            return Err(Pending::new(ErrorKind::Limit, type_at, msg));
        }
        let type_json = self.take(tlen, type_at)?;
        let root: &'a Program = self.b.root;
        let max_types = self.b.options.limits.max_dynamic_types;
        let sub = match root.dyn_cache.get_or_compile(type_json, max_types) {
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
        self.b.dynamic_opened(sub);
        let kind = Kind::Dynamic {
            outer: self.b.prog,
            sub,
            value: Value::Null,
        };
        Ok(Frame::new(kind, 1, at))
    }

    /// Array header for a list, set or tuple; the count must fit in the bytes that remain.
    fn array_len(&mut self, m: u8, at: usize, what: &str) -> Result<u32, Pending> {
        self.header_len(m, at, what, Header::Array)
    }

    /// Map header for a map or object; two items per entry must fit in what remains.
    fn map_len(&mut self, m: u8, at: usize, what: &str) -> Result<u32, Pending> {
        self.header_len(m, at, what, Header::Map)
    }

    /// The entry count of an array or map header (fix, 16- or 32-bit form), checked against
    /// the bytes that remain and the container limit.
    #[inline(always)]
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

    #[inline(always)]
    fn check_claim(&self, items: u64, n: u32, at: usize) -> Result<(), Pending> {
        if items > self.r.remaining() as u64 {
            let msg = format!(
                "header claims {items} items but only {} bytes remain",
                self.r.remaining()
            );
            return Err(Pending::new(ErrorKind::Eof, at, msg));
        }
        let max = self.b.options.limits.max_container_len;
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

    /// Reads the next object key: `Some((attribute index, op))`, or `None` when the key was
    /// unknown and its value skipped (with the drift option).
    #[inline(always)]
    pub(super) fn object_key(
        &mut self,
        cur: &mut Frame<'a>,
    ) -> Result<Option<(u32, OpId, Op)>, Pending> {
        let prog = self.b.prog;
        let Kind::Object { attrs, next, .. } = &mut cur.kind else {
            return Ok(None);
        };
        let at = self.r.pos;
        // Fast path: the key expected after the last match, pre-encoded.
        let mut found = None;
        // (Not when a name may exceed `max_string_len`: the slow path checks every length.)
        if *next < attrs.len && !self.b.check_key_lengths {
            // An index into `prog.attrs` (`next < len`, the span the compiler built), so far
            // below `usize::MAX`; a bad one would only miss the `get`.
            let k = (attrs.start as usize).wrapping_add(*next as usize);
            if let Some(key) = prog.attrs.get(k) {
                if key.matches(self.r.buf, at) {
                    // The key's bytes are at `at`: `at + key.len() <= buf.len()`.
                    self.r.pos = at.wrapping_add(key.len());
                    found = Some(*next);
                }
            }
        }
        let j = match found {
            Some(j) => j,
            None => {
                let m = self.r.peek().ok_or_else(|| eof(at))?;
                if !is_str_or_bin(m) {
                    let msg = format!(
                        "object keys must be strings, found msgpack {}",
                        marker_name(m)
                    );
                    return Err(Pending::new(reserved_or(m, ErrorKind::InvalidKey), at, msg));
                }
                let key = self.str_bytes(m, at)?;
                let names = prog.attr_names.get(attrs.range()).unwrap_or_default();
                match names.binary_search_by(|n| n.as_bytes().cmp(key)) {
                    Ok(j) => j as u32,
                    Err(_) => {
                        let key = utf8(key, at)?;
                        if !self.b.options.skip_unknown_attributes {
                            let msg = format!("unsupported attribute {key:?}");
                            return Err(Pending::new(ErrorKind::UnknownAttribute, at, msg));
                        }
                        self.b.skipping_unknown_key(cur, key);
                        let vat = self.r.pos;
                        match self.r.skip_value() {
                            Ok(()) => {}
                            Err(SkipError::Eof) => return Err(eof(vat)),
                            Err(SkipError::Reserved(p)) => {
                                return Err(Pending::new(
                                    ErrorKind::Syntax,
                                    p,
                                    "reserved msgpack byte 0xc1".into(),
                                ))
                            }
                        }
                        // `index < len` (the caller's loop): cannot wrap.
                        cur.index = cur.index.wrapping_add(1);
                        cur.in_value = false;
                        return Ok(None);
                    }
                }
            }
        };
        let (op, code) = self.b.accept_attr(cur, j, at)?;
        Ok(Some((j, op, code)))
    }
}

/// The `len` bytes at `buf[start..]` as a string if `len <= 16`, 16 bytes are readable there
/// and the string is ASCII: one load, one mask, one test.
#[inline(always)]
fn short_ascii(buf: &[u8], start: usize, len: usize) -> Option<&str> {
    let chunk = buf.get(start..)?.first_chunk::<16>()?;
    if len > 16 {
        return None;
    }
    // `len <= 16`: the shift is 0..=128 bits, computed without overflow.
    let shift = 128u32.wrapping_sub((len as u32).wrapping_mul(8));
    let word = u128::from_le_bytes(*chunk) & (u128::MAX.checked_shr(shift).unwrap_or(0));
    if word & 0x8080_8080_8080_8080_8080_8080_8080_8080 != 0 {
        return None;
    }
    let bytes = chunk.get(..len)?;
    // SAFETY: the mask test above proved all `len` bytes ASCII, and ASCII is valid UTF-8.
    Some(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// The two container headers.
#[derive(Clone, Copy)]
enum Header {
    Array,
    Map,
}

/// UTF-8 validation with an ASCII fast path.
#[inline(always)]
fn utf8(bytes: &[u8], at: usize) -> Result<&str, Pending> {
    if bytes.is_ascii() {
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
fn eof(at: usize) -> Pending {
    Pending::new(ErrorKind::Eof, at, "unexpected end of input".into())
}

/// The reserved byte `0xc1` is not MessagePack at all: a syntax error wherever it appears.
#[cold]
fn reserved_or(m: u8, kind: ErrorKind) -> ErrorKind {
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
