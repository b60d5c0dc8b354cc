//! The MessagePack executor's item readers: scalars, keys, unknowns, dynamic wrappers, and
//! the error constructors that render the value path from the stack.

use super::dyncache::Lookup;
use super::mp_reader::{is_str_or_bin, marker_name, SkipError};
use super::msgpack::{Frame, Kind, Start, Vm};
use super::path::{render, Step};
use super::refine::{self, Target};
use crate::error::{DecodeError, ErrorKind};
use crate::number::{is_valid_decimal, Number};
use crate::program::{Op, OpId, Program};
use crate::value::Value;

impl<'a> Vm<'a> {
    /// Reads a str or bin payload as UTF-8 text.
    #[inline]
    pub(super) fn string(&mut self, m: u8, at: usize) -> Result<&'a str, DecodeError> {
        if !is_str_or_bin(m) {
            return Err(self.mismatch("string", m, at));
        }
        let bytes = self.str_bytes(m, at)?;
        self.utf8(bytes, at)
    }

    #[inline]
    fn str_bytes(&mut self, m: u8, at: usize) -> Result<&'a [u8], DecodeError> {
        self.r.pos += 1;
        let len = self.r.str_len(m).ok_or_else(|| self.eof(at))?;
        if len > self.options.limits.max_string_len as usize {
            let msg = format!(
                "string of {len} bytes exceeds max_string_len ({})",
                self.options.limits.max_string_len
            );
            return Err(self.fail(ErrorKind::Limit, at, msg));
        }
        self.r.take(len).ok_or_else(|| self.eof(at))
    }

    #[inline]
    fn utf8(&self, bytes: &'a [u8], at: usize) -> Result<&'a str, DecodeError> {
        if bytes.is_ascii() {
            // ASCII is UTF-8; `from_utf8` on it cannot fail and compiles to no check here.
            return std::str::from_utf8(bytes).map_err(|_| self.bad_utf8(at));
        }
        simdutf8::basic::from_utf8(bytes).map_err(|_| self.bad_utf8(at))
    }

    #[cold]
    fn bad_utf8(&self, at: usize) -> DecodeError {
        self.fail(ErrorKind::InvalidUtf8, at, "string is not valid UTF-8".into())
    }

    #[inline]
    pub(super) fn number(&mut self, m: u8, at: usize) -> Result<Number<'a>, DecodeError> {
        let r = &mut self.r;
        let n = match m {
            0x00..=0x7f => {
                r.pos += 1;
                Number::Int(m as i64)
            }
            0xe0..=0xff => {
                r.pos += 1;
                Number::Int((m as i8) as i64)
            }
            0xcc..=0xd3 | 0xca | 0xcb => {
                r.pos += 1;
                let n = match m {
                    0xcc => r.u8().map(|v| Number::UInt(v as u64)),
                    0xcd => r.be_u16().map(|v| Number::UInt(v as u64)),
                    0xce => r.be_u32().map(|v| Number::UInt(v as u64)),
                    0xcf => r.be_u64().map(Number::UInt),
                    0xd0 => r.u8().map(|v| Number::Int((v as i8) as i64)),
                    0xd1 => r.be_u16().map(|v| Number::Int((v as i16) as i64)),
                    0xd2 => r.be_u32().map(|v| Number::Int((v as i32) as i64)),
                    0xd3 => r.be_u64().map(|v| Number::Int(v as i64)),
                    0xca => r.be_u32().map(|v| Number::Float(f32::from_bits(v) as f64)),
                    _ => r.be_u64().map(|v| Number::Float(f64::from_bits(v))),
                };
                let n = n.ok_or_else(|| self.eof(at))?;
                if let Number::Float(f) = n {
                    if f.is_nan() {
                        return Err(self.fail(ErrorKind::InvalidNumber, at, "NaN is not a number".into()));
                    }
                }
                n
            }
            m if is_str_or_bin(m) => {
                let bytes = self.str_bytes(m, at)?;
                if !is_valid_decimal(bytes) {
                    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned();
                    return Err(self.fail(
                        ErrorKind::InvalidNumber,
                        at,
                        format!("{text:?} is not a valid number"),
                    ));
                }
                Number::Decimal(self.bump.alloc(self.utf8(bytes, at)?))
            }
            _ => return Err(self.mismatch("number", m, at)),
        };
        Ok(n)
    }

    /// An extension value: unknown. Code 12 with a payload of 2+ bytes carries refinements.
    pub(super) fn unknown(&mut self, op: OpId, at: usize) -> Result<Value<'a>, DecodeError> {
        let Some(m) = self.r.u8() else {
            return Err(self.eof(at));
        };
        let r = &mut self.r;
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
        let len = len.ok_or_else(|| self.eof(at))?;
        let code = self.r.u8().ok_or_else(|| self.eof(at))?;
        let payload_at = self.r.pos;
        let payload = self.r.take(len).ok_or_else(|| self.eof(at))?;
        if code != 12 || len <= 1 {
            return Ok(Value::Unknown(None));
        }
        if len > self.options.limits.max_refinement_len as usize {
            let msg = format!(
                "refinement payload of {len} bytes exceeds max_refinement_len ({})",
                self.options.limits.max_refinement_len
            );
            return Err(self.fail(ErrorKind::Limit, at, msg));
        }
        let target = match self.prog.op(op) {
            Op::String => Target::String,
            Op::Number => Target::Number,
            Op::List { .. } | Op::Set { .. } | Op::Map { .. } => Target::Collection,
            Op::Dynamic => Target::Dynamic,
            _ => Target::Other,
        };
        match refine::parse(payload, payload_at, target, self.bump) {
            Ok(None) => Ok(Value::Unknown(None)),
            Ok(Some(r)) => Ok(Value::Unknown(Some(self.bump.alloc(r)))),
            Err(e) => {
                let kind = if e.eof { ErrorKind::Eof } else { ErrorKind::InvalidRefinement };
                Err(self.fail(kind, e.offset, e.message))
            }
        }
    }

    /// A dynamic wrapper `[type JSON, value]`: looks the type up (compiling it on first sight)
    /// and pushes a frame whose one child is decoded with the concrete type's program.
    pub(super) fn dynamic(&mut self, m: u8, at: usize) -> Result<Start<'a>, DecodeError> {
        let len = match m {
            0x90..=0x9f => {
                self.r.pos += 1;
                (m & 0x0f) as usize
            }
            0xdc | 0xdd => {
                self.r.pos += 1;
                let n = if m == 0xdc { self.r.be_u16().map(|v| v as usize) } else { self.r.be_u32().map(|v| v as usize) };
                n.ok_or_else(|| self.eof(at))?
            }
            _ => {
                return Err(self.fail(
                    ErrorKind::InvalidDynamic,
                    at,
                    format!("expected a dynamic value [type, value], found msgpack {}", marker_name(m)),
                ))
            }
        };
        if len != 2 {
            return Err(self.fail(
                ErrorKind::InvalidDynamic,
                at,
                format!("dynamic value array must have exactly two elements ({len} given)"),
            ));
        }
        let type_at = self.r.pos;
        let tm = self.r.peek().ok_or_else(|| self.eof(type_at))?;
        if !is_str_or_bin(tm) {
            return Err(self.fail(
                ErrorKind::InvalidDynamic,
                type_at,
                format!("dynamic value type must be JSON in bin or str, found msgpack {}", marker_name(tm)),
            ));
        }
        self.r.pos += 1;
        let tlen = self.r.str_len(tm).ok_or_else(|| self.eof(type_at))?;
        let limit = self.options.limits.max_type_json_len;
        if tlen > limit as usize {
            let msg = format!("type JSON of {tlen} bytes exceeds max_type_json_len ({limit})");
            return Err(self.fail(ErrorKind::Limit, type_at, msg));
        }
        let type_json = self.r.take(tlen).ok_or_else(|| self.eof(type_at))?;
        let root: &'a Program = self.root;
        let sub = match root.dyn_cache.get_or_compile(type_json, self.options.limits.max_dynamic_types) {
            Lookup::Found(p) => p,
            Lookup::Full => {
                let msg = format!(
                    "more than max_dynamic_types ({}) distinct dynamic types",
                    self.options.limits.max_dynamic_types
                );
                return Err(self.fail(ErrorKind::Limit, type_at, msg));
            }
            Lookup::Invalid(msg) => {
                return Err(self.fail(ErrorKind::InvalidType, type_at, format!("invalid dynamic type: {msg}")))
            }
        };
        let outer = self.prog;
        self.push(
            Kind::Dynamic {
                outer,
                sub,
                value: Value::Null,
            },
            1,
            at,
        )
    }

    /// Array header for a list, set or tuple; the count must fit in the bytes that remain.
    #[inline]
    pub(super) fn array_len(&mut self, m: u8, at: usize, what: &str) -> Result<u32, DecodeError> {
        let n = match m {
            0x90..=0x9f => {
                self.r.pos += 1;
                (m & 0x0f) as u32
            }
            0xdc => {
                self.r.pos += 1;
                self.r.be_u16().ok_or_else(|| self.eof(at))? as u32
            }
            0xdd => {
                self.r.pos += 1;
                self.r.be_u32().ok_or_else(|| self.eof(at))?
            }
            _ => return Err(self.mismatch(what, m, at)),
        };
        if n as usize > self.r.remaining() {
            return Err(self.claim(n as u64, at));
        }
        Ok(n)
    }

    /// Map header for a map or object; two items per entry must fit in what remains.
    #[inline]
    pub(super) fn map_len(&mut self, m: u8, at: usize, what: &str) -> Result<u32, DecodeError> {
        let n = match m {
            0x80..=0x8f => {
                self.r.pos += 1;
                (m & 0x0f) as u32
            }
            0xde => {
                self.r.pos += 1;
                self.r.be_u16().ok_or_else(|| self.eof(at))? as u32
            }
            0xdf => {
                self.r.pos += 1;
                self.r.be_u32().ok_or_else(|| self.eof(at))?
            }
            _ => return Err(self.mismatch(what, m, at)),
        };
        if 2 * n as u64 > self.r.remaining() as u64 {
            return Err(self.claim(2 * n as u64, at));
        }
        Ok(n)
    }

    /// Reads a map key: a str or bin holding UTF-8.
    pub(super) fn map_key(&mut self) -> Result<&'a str, DecodeError> {
        let at = self.r.pos;
        let m = self.r.peek().ok_or_else(|| self.eof(at))?;
        if !is_str_or_bin(m) {
            let msg = format!("map keys must be strings, found msgpack {}", marker_name(m));
            return Err(self.fail(ErrorKind::InvalidKey, at, msg));
        }
        let bytes = self.str_bytes(m, at)?;
        self.utf8(bytes, at)
    }

    /// Reads the next object key and returns the op of its attribute; skips unknown keys when
    /// asked to. `None` when every entry has been read.
    pub(super) fn object_key(&mut self) -> Result<Option<OpId>, DecodeError> {
        let prog = self.prog;
        loop {
            let Some(Frame { kind: Kind::Object { attrs, next, .. }, index, len, .. }) = self.stack.last() else {
                return Ok(None);
            };
            if index >= len {
                return Ok(None);
            }
            let (attrs, next) = (*attrs, *next);
            let at = self.r.pos;
            // Fast path: the key expected after the last match, pre-encoded.
            let mut found = None;
            if next < attrs.len {
                let k = attrs.start as usize + next as usize;
                if let Some(key) = prog.attr_keys.get(k) {
                    if self.r.buf[at..].starts_with(key) {
                        self.r.pos += key.len();
                        found = Some(next);
                    }
                }
            }
            let j = match found {
                Some(j) => j,
                None => {
                    let m = self.r.peek().ok_or_else(|| self.eof(at))?;
                    if !is_str_or_bin(m) {
                        let msg = format!("object keys must be strings, found msgpack {}", marker_name(m));
                        return Err(self.fail(ErrorKind::InvalidKey, at, msg));
                    }
                    let key = self.str_bytes(m, at)?;
                    let names = &prog.attr_names[attrs.range()];
                    match names.binary_search_by(|n| n.as_bytes().cmp(key)) {
                        Ok(j) => j as u32,
                        Err(_) => {
                            let key = self.utf8(key, at)?;
                            if !self.options.skip_unknown_attributes {
                                return Err(self.fail(
                                    ErrorKind::UnknownAttribute,
                                    at,
                                    format!("unsupported attribute {key:?}"),
                                ));
                            }
                            self.skip_unknown_value(key)?;
                            continue;
                        }
                    }
                }
            };
            self.mark_seen(j, at)?;
            let op = prog.attr_ops[attrs.start as usize + j as usize];
            return Ok(Some(op));
        }
    }

    /// Records that attribute `j` arrived; detects duplicates once keys come out of order.
    #[inline]
    fn mark_seen(&mut self, j: u32, at: usize) -> Result<(), DecodeError> {
        let seen_bits = &mut self.seen_bits;
        let Some(Frame { kind: Kind::Object { next, current, bits, attrs, .. }, in_value, .. }) = self.stack.last_mut() else {
            return Ok(());
        };
        if *bits == u32::MAX && j != *next {
            // Out of order: from now on keep a bitmap of the attributes seen.
            let words = (attrs.len as usize).div_ceil(64);
            *bits = seen_bits.len() as u32;
            seen_bits.resize(seen_bits.len() + words, 0);
            for i in 0..*next as usize {
                seen_bits[*bits as usize + i / 64] |= 1 << (i % 64);
            }
        }
        if *bits != u32::MAX {
            let word = &mut seen_bits[*bits as usize + j as usize / 64];
            let bit = 1u64 << (j % 64);
            if *word & bit != 0 {
                *current = j;
                let name = self.prog.attr_names[attrs.start as usize + j as usize].to_string();
                return Err(self.fail(ErrorKind::DuplicateKey, at, format!("duplicate attribute {name:?}")));
            }
            *word |= bit;
        }
        *next = j + 1;
        *current = j;
        *in_value = true;
        Ok(())
    }

    fn skip_unknown_value(&mut self, key: &'a str) -> Result<(), DecodeError> {
        if let Some(Frame { kind: Kind::Object { raw_key, .. }, in_value, .. }) = self.stack.last_mut() {
            *raw_key = key;
            *in_value = true;
        }
        let at = self.r.pos;
        match self.r.skip_value() {
            Ok(()) => {}
            Err(SkipError::Eof) => return Err(self.eof(at)),
            Err(SkipError::Reserved(p)) => {
                return Err(self.fail(ErrorKind::Syntax, p, "reserved msgpack byte 0xc1".into()))
            }
        }
        if let Some(top) = self.stack.last_mut() {
            top.index += 1;
            top.in_value = false;
            if let Kind::Object { raw_key, .. } = &mut top.kind {
                *raw_key = "";
            }
        }
        Ok(())
    }

    /// At the end of an object: every attribute arrived, or missing ones may read as null.
    pub(super) fn object_complete(&mut self) -> Result<(), DecodeError> {
        let Some(Frame { kind: Kind::Object { attrs, next, bits, .. }, start, .. }) = self.stack.last() else {
            return Ok(());
        };
        let missing = if *bits == u32::MAX {
            (*next < attrs.len).then_some(*next)
        } else {
            (0..attrs.len).find(|&i| self.seen_bits[*bits as usize + i as usize / 64] & (1 << (i % 64)) == 0)
        };
        match missing {
            Some(i) if !self.options.missing_attributes_null => {
                let name = &self.prog.attr_names[attrs.start as usize + i as usize];
                let msg = format!("attribute {name:?} is required");
                Err(self.fail(ErrorKind::MissingAttribute, *start, msg))
            }
            _ => Ok(()),
        }
    }

    /// Elements of a collection of dynamic values must share one concrete type.
    pub(super) fn check_consistent<'v>(
        &self,
        values: impl Iterator<Item = &'v Value<'a>>,
        at: usize,
    ) -> Result<(), DecodeError>
    where
        'a: 'v,
    {
        let mut first: Option<&Program> = None;
        for v in values {
            if let Value::Dynamic(d) = v {
                match first {
                    None => first = Some(d.program),
                    Some(p) if std::ptr::eq(p, d.program) || p.root_type == d.program.root_type => {}
                    Some(p) => {
                        let msg = format!(
                            "elements have different types: {} and {}",
                            p.root_type, d.program.root_type
                        );
                        return Err(self.fail(ErrorKind::InconsistentTypes, at, msg));
                    }
                }
            }
        }
        Ok(())
    }

    #[cold]
    pub(super) fn eof(&self, at: usize) -> DecodeError {
        self.fail(ErrorKind::Eof, at, "unexpected end of input".into())
    }

    #[cold]
    fn claim(&self, items: u64, at: usize) -> DecodeError {
        let msg = format!(
            "header claims {items} items but only {} bytes remain",
            self.r.remaining()
        );
        self.fail(ErrorKind::Eof, at, msg)
    }

    #[cold]
    pub(super) fn mismatch(&self, expected: &str, m: u8, at: usize) -> DecodeError {
        let msg = format!("expected {expected}, found msgpack {}", marker_name(m));
        let kind = if m == 0xc1 { ErrorKind::Syntax } else { ErrorKind::TypeMismatch };
        self.fail(kind, at, msg)
    }

    /// Builds an error whose path is rendered from the stack.
    #[cold]
    #[inline(never)]
    pub(super) fn fail(&self, kind: ErrorKind, at: usize, message: String) -> DecodeError {
        let mut steps = Vec::new();
        let mut prog = self.root;
        for frame in &self.stack {
            let i = frame.index as usize;
            match &frame.kind {
                Kind::Seq { .. } | Kind::Tuple { .. } if frame.index < frame.len => {
                    steps.push(Step::Index(i))
                }
                Kind::Map { out, .. } if frame.in_value => {
                    if let Some((k, _)) = out.get(i) {
                        steps.push(Step::Key(k));
                    }
                }
                Kind::Object { attrs, current, raw_key, .. } if frame.in_value => {
                    if *current != u32::MAX {
                        let k = attrs.start as usize + *current as usize;
                        if let Some(name) = prog.attr_names.get(k) {
                            steps.push(Step::Attr(name));
                        }
                    } else {
                        steps.push(Step::Attr(raw_key));
                    }
                }
                Kind::Dynamic { sub, .. } => prog = sub,
                _ => {}
            }
        }
        DecodeError::new(kind, at, render(&steps), message)
    }
}
