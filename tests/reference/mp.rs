//! The reference MessagePack decoder: recursive over the [`Type`], one function per rule.
//!
//! Policy (DESIGN.md §4 and the VM's documented rules): nil is null and any extension is an
//! unknown at every type; code 12 with 2+ payload bytes carries refinements; str and bin are
//! interchangeable; numbers are any int, float32/64 (not NaN) or decimal text; a container
//! header's claim must fit in the bytes that remain (one byte per item) before anything else;
//! objects need exactly their attributes (unless the drift options say otherwise), keys are
//! str/bin, repeated keys are errors; a tuple's length must match; a dynamic value is
//! `[type JSON, value]` and a null or unknown inside loses its type; the elements of a
//! list/set/map of dynamic must share one type; bytes after the value are an error;
//! nesting beyond `max_depth` containers is a limit; so is a container that takes the
//! decode's values or container arena bytes past `max_values` or `max_arena_bytes`.

use std::collections::HashSet;

use tfwire::{ErrorKind, Type};

use super::{num, target, Opts, RNum, Target, RV};

mod refine;

use refine::refinements;

type R<T> = Result<T, ErrorKind>;

/// Arena bytes of a value slot (`size_of::<Value>()`) and of a map entry (`(&str, Value)`),
/// as `Limits::max_arena_bytes` documents them.
const VALUE: u64 = 24;
const ENTRY: u64 = 40;

struct D<'a> {
    buf: &'a [u8],
    pos: usize,
    opts: Opts,
    /// Valid dynamic type JSONs seen (the VM's cache of one fresh program).
    types: HashSet<Vec<u8>>,
    /// Values and container arena bytes charged so far (`max_values`, `max_arena_bytes`).
    values: u64,
    arena_bytes: u64,
}

/// Decodes `input` (exactly one value) under `ty`.
pub fn decode(ty: &Type, input: &[u8], opts: &Opts) -> R<RV> {
    let mut d = D {
        buf: input,
        pos: 0,
        opts: *opts,
        types: HashSet::new(),
        values: 0,
        arena_bytes: 0,
    };
    let v = d.value(ty, 0)?;
    if d.pos < input.len() {
        return Err(ErrorKind::TrailingBytes);
    }
    Ok(v)
}

fn is_str(m: u8) -> bool {
    matches!(m, 0xa0..=0xbf | 0xd9..=0xdb | 0xc4..=0xc6)
}

fn is_ext(m: u8) -> bool {
    matches!(m, 0xc7..=0xc9 | 0xd4..=0xd8)
}

/// The kind of a marker that is not what was expected: 0xc1 is never MessagePack.
fn wrong(m: u8, kind: ErrorKind) -> ErrorKind {
    if m == 0xc1 {
        ErrorKind::Syntax
    } else {
        kind
    }
}

impl D<'_> {
    fn byte(&mut self) -> R<u8> {
        let b = *self.buf.get(self.pos).ok_or(ErrorKind::Eof)?;
        self.pos += 1;
        Ok(b)
    }

    fn bytes(&mut self, n: usize) -> R<&[u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or(ErrorKind::Eof)?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn be(&mut self, n: usize) -> R<u64> {
        Ok(self.bytes(n)?.iter().fold(0u64, |a, &b| a << 8 | b as u64))
    }

    fn peek(&self) -> R<u8> {
        self.buf.get(self.pos).copied().ok_or(ErrorKind::Eof)
    }

    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Entering a container at `level` (1 for the outermost).
    fn enter(&self, level: u32) -> R<()> {
        if level > self.opts.limits.max_depth {
            return Err(ErrorKind::Limit);
        }
        Ok(())
    }

    /// A container of `n` values of `size` arena bytes each: charged against `max_values`
    /// and `max_arena_bytes` for the whole decode (lists, sets, tuples: an element each, maps:
    /// an entry each, objects: every attribute of the type, whatever the input holds). The VM
    /// charges before it allocates: after the header's claim (and a tuple's length), before
    /// the depth check.
    fn charge(&mut self, n: u64, size: u64) -> R<()> {
        self.values = self.values.saturating_add(n);
        self.arena_bytes = self.arena_bytes.saturating_add(n.saturating_mul(size));
        let l = &self.opts.limits;
        if self.values > l.max_values || self.arena_bytes > l.max_arena_bytes {
            return Err(ErrorKind::Limit);
        }
        Ok(())
    }

    fn value(&mut self, ty: &Type, level: u32) -> R<RV> {
        let m = self.peek()?;
        if m == 0xc0 {
            self.pos += 1;
            return Ok(RV::Null);
        }
        if is_ext(m) {
            return self.unknown(target(ty));
        }
        match ty {
            Type::Bool => match m {
                0xc2 | 0xc3 => {
                    self.pos += 1;
                    Ok(RV::Bool(m == 0xc3))
                }
                _ => Err(wrong(m, ErrorKind::TypeMismatch)),
            },
            Type::String => {
                if !is_str(m) {
                    return Err(wrong(m, ErrorKind::TypeMismatch));
                }
                let b = self.str_payload()?;
                let s = std::str::from_utf8(b).map_err(|_| ErrorKind::InvalidUtf8)?;
                Ok(RV::Str(s.to_string()))
            }
            Type::Number => self.number().map(RV::Num),
            Type::List(t) | Type::Set(t) => {
                let n = self.array_header(ErrorKind::TypeMismatch)?;
                self.charge(n, VALUE)?; // the claim, then the charge, then the depth
                self.enter(level + 1)?;
                let mut out = Vec::new();
                for _ in 0..n {
                    out.push(self.value(t, level + 1)?);
                }
                consistent(t, out.iter())?;
                Ok(if matches!(ty, Type::Set(_)) {
                    RV::Set(out)
                } else {
                    RV::List(out)
                })
            }
            Type::Tuple(ts) => {
                let n = self.array_header(ErrorKind::TypeMismatch)?;
                if n != ts.len() as u64 {
                    return Err(ErrorKind::WrongLength);
                }
                self.charge(n, VALUE)?; // the length, then the charge, then the depth
                self.enter(level + 1)?;
                let mut out = Vec::new();
                for t in ts {
                    out.push(self.value(t, level + 1)?);
                }
                Ok(RV::Tuple(out))
            }
            Type::Map(t) => {
                let n = self.map_header(ErrorKind::TypeMismatch)?;
                self.charge(n, ENTRY)?; // the claim, then the charge, then the depth
                self.enter(level + 1)?;
                let mut out = Vec::new();
                for _ in 0..n {
                    let k = self.key()?;
                    out.push((k.to_string(), self.value(t, level + 1)?));
                }
                consistent(t, out.iter().map(|(_, v)| v))?;
                Ok(RV::Map(out))
            }
            Type::Object(o) => {
                let n = self.map_header(ErrorKind::TypeMismatch)?;
                // Every attribute of the type, whatever the input holds.
                self.charge(o.attrs().len() as u64, VALUE)?;
                self.enter(level + 1)?;
                let mut slots: Vec<Option<RV>> = vec![None; o.attrs().len()];
                for _ in 0..n {
                    let k = self.key_bytes()?;
                    let Some(j) = o.attrs().iter().position(|(name, _)| name.as_bytes() == k)
                    else {
                        std::str::from_utf8(k).map_err(|_| ErrorKind::InvalidUtf8)?;
                        if !self.opts.skip_unknown {
                            return Err(ErrorKind::UnknownAttribute);
                        }
                        self.skip(true)?;
                        continue;
                    };
                    if slots[j].is_some() {
                        return Err(ErrorKind::DuplicateKey);
                    }
                    slots[j] = Some(self.value(&o.attrs()[j].1, level + 1)?);
                }
                if slots.iter().any(Option::is_none) && !self.opts.missing_null {
                    return Err(ErrorKind::MissingAttribute);
                }
                let names = o.attrs().iter().map(|(n, _)| n.clone());
                Ok(RV::Object(
                    names
                        .zip(slots)
                        .map(|(n, v)| (n, v.unwrap_or(RV::Null)))
                        .collect(),
                ))
            }
            Type::Dynamic => {
                if !matches!(m, 0x90..=0x9f | 0xdc | 0xdd) {
                    return Err(wrong(m, ErrorKind::InvalidDynamic));
                }
                if self.array_header(ErrorKind::InvalidDynamic)? != 2 {
                    return Err(ErrorKind::InvalidDynamic);
                }
                let tm = self.peek()?;
                if !is_str(tm) {
                    return Err(wrong(tm, ErrorKind::InvalidDynamic));
                }
                self.pos += 1;
                let n = self.str_len(tm)?;
                if n > self.opts.limits.max_type_json_len as u64 {
                    return Err(ErrorKind::Limit);
                }
                let json = self.bytes(n as usize)?.to_vec();
                let t = self.dynamic_type(json)?;
                self.enter(level + 1)?;
                let v = self.value(&t, level + 1)?;
                super::wrapper(t, v)
            }
        }
    }

    /// The type of a dynamic wrapper, through a cache as bounded as the VM's.
    fn dynamic_type(&mut self, json: Vec<u8>) -> R<Type> {
        let known = self.types.contains(&json);
        if !known && self.types.len() >= self.opts.limits.max_dynamic_types as usize {
            return Err(ErrorKind::Limit);
        }
        let t = Type::from_json_bytes(&json).map_err(|_| ErrorKind::InvalidType)?;
        self.types.insert(json);
        Ok(t)
    }

    /// After a str/bin marker: the payload length.
    fn str_len(&mut self, m: u8) -> R<u64> {
        match m {
            0xa0..=0xbf => Ok((m & 0x1f) as u64),
            0xd9 | 0xc4 => self.be(1),
            0xda | 0xc5 => self.be(2),
            _ => self.be(4),
        }
    }

    /// A str/bin payload (marker at `pos`), within `max_string_len`.
    fn str_payload(&mut self) -> R<&[u8]> {
        let m = self.byte()?;
        let n = self.str_len(m)?;
        if n > self.opts.limits.max_string_len as u64 {
            return Err(ErrorKind::Limit);
        }
        self.bytes(n as usize)
    }

    fn key_bytes(&mut self) -> R<&[u8]> {
        let m = self.peek()?;
        if !is_str(m) {
            return Err(wrong(m, ErrorKind::InvalidKey));
        }
        self.str_payload()
    }

    fn key(&mut self) -> R<&str> {
        std::str::from_utf8(self.key_bytes()?).map_err(|_| ErrorKind::InvalidUtf8)
    }

    /// An array header; `kind` if the marker is not an array. The count must fit.
    fn array_header(&mut self, kind: ErrorKind) -> R<u64> {
        let m = self.peek()?;
        let n = match m {
            0x90..=0x9f => {
                self.pos += 1;
                (m & 0x0f) as u64
            }
            0xdc | 0xdd => {
                self.pos += 1;
                self.be(if m == 0xdc { 2 } else { 4 })?
            }
            _ => return Err(wrong(m, kind)),
        };
        self.claim(n, n)
    }

    fn map_header(&mut self, kind: ErrorKind) -> R<u64> {
        let m = self.peek()?;
        let n = match m {
            0x80..=0x8f => {
                self.pos += 1;
                (m & 0x0f) as u64
            }
            0xde | 0xdf => {
                self.pos += 1;
                self.be(if m == 0xde { 2 } else { 4 })?
            }
            _ => return Err(wrong(m, kind)),
        };
        self.claim(2 * n, n)
    }

    /// `items` items need at least as many bytes; then the container length limit.
    fn claim(&self, items: u64, n: u64) -> R<u64> {
        if items > self.remaining() as u64 {
            return Err(ErrorKind::Eof);
        }
        if n > self.opts.limits.max_container_len as u64 {
            return Err(ErrorKind::Limit);
        }
        Ok(n)
    }

    fn number(&mut self) -> R<RNum> {
        let m = self.peek()?;
        if is_str(m) {
            let b = self.str_payload()?;
            if !num::valid_decimal(b) {
                return Err(ErrorKind::InvalidNumber);
            }
            return Ok(RNum::Dec(
                String::from_utf8(b.to_vec()).map_err(|_| ErrorKind::InvalidUtf8)?,
            ));
        }
        let n = self
            .int_or_float(m)
            .ok_or(wrong(m, ErrorKind::TypeMismatch))??;
        match n {
            RNum::Float(f) if f.is_nan() => Err(ErrorKind::InvalidNumber),
            n => Ok(n),
        }
    }

    /// An int or float at `pos` (marker `m`); `None` (nothing consumed) for other markers.
    fn int_or_float(&mut self, m: u8) -> Option<R<RNum>> {
        let width = match m {
            0x00..=0x7f | 0xe0..=0xff => 0,
            0xcc | 0xd0 => 1,
            0xcd | 0xd1 => 2,
            0xce | 0xd2 | 0xca => 4,
            0xcf | 0xd3 | 0xcb => 8,
            _ => return None,
        };
        self.pos += 1;
        let v = match self.be(width) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        let shift = 64 - 8 * width as u32;
        Some(Ok(match m {
            0x00..=0x7f => RNum::Int(m as i64),
            0xe0..=0xff => RNum::Int(m as i8 as i64),
            0xcc..=0xcf => RNum::UInt(v),
            0xd0..=0xd3 => RNum::Int(((v << shift) as i64) >> shift),
            0xca => RNum::Float(f32::from_bits(v as u32) as f64),
            _ => RNum::Float(f64::from_bits(v)),
        }))
    }

    /// An extension: an unknown; code 12 with 2+ bytes carries refinements for `t`.
    fn unknown(&mut self, t: Target) -> R<RV> {
        let m = self.byte()?;
        let len = match m {
            0xd4..=0xd8 => 1u64 << (m - 0xd4),
            0xc7 => self.be(1)?,
            0xc8 => self.be(2)?,
            _ => self.be(4)?,
        };
        let code = self.byte()?;
        let max = self.opts.limits.max_refinement_len as u64;
        let payload = self.bytes(len as usize)?;
        if code != 12 || len <= 1 {
            return Ok(RV::Unknown(None));
        }
        if len > max {
            return Err(ErrorKind::Limit);
        }
        let r = refinements(payload, t).ok_or(ErrorKind::InvalidRefinement)?;
        Ok(RV::Unknown(r))
    }

    /// Skips one value without decoding it (an unknown attribute with the drift option, or
    /// in a projection; an unknown refinement). Iterative: skipped values have no depth
    /// limit. A claim of more items than bytes left is the end of the input. With `utf8`
    /// (attributes; not refinements, which go-cty skips unread) every string must be UTF-8.
    fn skip(&mut self, utf8: bool) -> R<()> {
        let mut pending: u64 = 1;
        while pending > 0 {
            pending -= 1;
            let m = self.byte()?;
            let n: u64 = match m {
                0x80..=0x8f => {
                    pending += 2 * (m & 0x0f) as u64;
                    0
                }
                0x90..=0x9f => {
                    pending += (m & 0x0f) as u64;
                    0
                }
                0xa0..=0xbf => (m & 0x1f) as u64,
                0xc1 => return Err(ErrorKind::Syntax),
                0xc4 | 0xd9 => self.be(1)?,
                0xc5 | 0xda => self.be(2)?,
                0xc6 | 0xdb => self.be(4)?,
                0xc7 => self.be(1)? + 1,
                0xc8 => self.be(2)? + 1,
                0xc9 => self.be(4)? + 1,
                0xca | 0xce | 0xd2 => 4,
                0xcb | 0xcf | 0xd3 => 8,
                0xcc | 0xd0 => 1,
                0xcd | 0xd1 => 2,
                0xd4..=0xd8 => 1 + (1 << (m - 0xd4)),
                0xdc | 0xdd => {
                    pending += self.be(if m == 0xdc { 2 } else { 4 })?;
                    0
                }
                0xde | 0xdf => {
                    pending += 2 * self.be(if m == 0xde { 2 } else { 4 })?;
                    0
                }
                _ => 0,
            };
            let text = self.bytes(n as usize)?;
            if utf8 && matches!(m, 0xa0..=0xbf | 0xd9..=0xdb) {
                std::str::from_utf8(text).map_err(|_| ErrorKind::InvalidUtf8)?;
            }
            if pending > self.remaining() as u64 {
                return Err(ErrorKind::Eof);
            }
        }
        Ok(())
    }
}

/// The elements of a collection of dynamic share one concrete type.
fn consistent<'v>(elem: &Type, values: impl Iterator<Item = &'v RV>) -> R<()> {
    if *elem != Type::Dynamic {
        return Ok(());
    }
    let mut first: Option<&Type> = None;
    for v in values {
        if let RV::Dynamic(t, _) = v {
            match first {
                Some(f) if f != t => return Err(ErrorKind::InconsistentTypes),
                _ => first = Some(t),
            }
        }
    }
    Ok(())
}
