//! Dynamic wrappers in JSON, `{"type": T, "value": V}` in either order: the type looked up
//! (compiled on first sight; a per-decode memo before the program's shared cache), the value
//! decoded under it. With the value first (go-cty's order), the value is skipped to find the
//! type, then read again. A chain of wrappers of type `"dynamic"` is followed in a loop.

use super::extent::skip_fast;
use super::scan::{bad_separator, colon, eof, expected, ws};
use super::Decoder;
use crate::decode::common::Pending;
use crate::decode::read_through::dynamic_program;
use crate::error::ErrorKind;
use crate::program::dyncache::Lookup;
use crate::program::{Op, Program};
use crate::schema::Type;
use crate::value::Value;

/// Where a dynamic wrapper's decode continues once its value is complete.
#[derive(Clone, Copy)]
pub(super) enum DynEnd {
    /// `"type"` came first: the value ends the wrapper (only `}` may follow).
    TypeFirst,
    /// `"value"` came first: it ends at `value_end`; the wrapper ends at `resume`.
    ValueFirst { value_end: usize, resume: usize },
}

impl<'a> Decoder<'a> {
    /// A dynamic wrapper whose `{` is at `at`: its value under its type. A wrapper of type
    /// `"dynamic"` is its inner value itself; a chain of them is read in a loop (each
    /// counts against `max_depth`, none takes stack).
    #[inline(never)]
    pub(super) fn dynamic(&mut self, at: usize) -> Result<Value<'a>, Pending> {
        let chain = self.dyns.len();
        let (mut at, mut beyond, mut within) = (at, 0u32, 0u32);
        let value = loop {
            let (sub, end) = self.wrapper_header(at)?;
            if sub.code.root_type != Type::Dynamic {
                break self.wrapped(sub, end, at)?;
            }
            self.c.wrapper_opened(sub);
            // (At most `max_depth` levels in all: neither count can wrap.)
            if self.c.enter_chained(at)? {
                beyond = beyond.wrapping_add(1);
            } else {
                within = within.wrapping_add(1);
            }
            self.dyns.push((end, at));
            let vat = ws(self.buf, self.pos);
            match self.buf.get(vat) {
                Some(b'{') => at = vat,
                _ => break self.value(sub, Op::Dynamic, sub.code.root)?,
            }
        };
        // The chain's wrappers end, innermost first.
        while self.dyns.len() > chain {
            let Some((end, at)) = self.dyns.pop() else {
                break;
            };
            self.wrapper_end(end, at)?;
        }
        self.c.leave_chained(beyond, within);
        Ok(value)
    }

    /// The value of a wrapper of type `sub` (never `"dynamic"`) whose `{` is at `at`, and
    /// the rest of the wrapper.
    fn wrapped(&mut self, sub: &'a Program, end: DynEnd, at: usize) -> Result<Value<'a>, Pending> {
        let reads_through = self.c.wrapper_opened(sub);
        self.c.enter(at)?;
        let mut value = Value::Null;
        self.value_with(sub, sub.op(sub.code.root), sub.code.root, |_, v| value = v)?;
        self.c.leave();
        self.wrapper_end(end, at)?;
        self.c
            .wrapper_value(self.root, self.bump, sub, value, reads_through, at)
    }

    /// Reads a wrapper's keys and type (the `{` at `at`): its type's program and how it ends,
    /// with `pos` at the value.
    pub(super) fn wrapper_header(&mut self, at: usize) -> Result<(&'a Program, DynEnd), Pending> {
        self.pos = at.wrapping_add(1);
        match self.dyn_key(at, None)? {
            DynKey::Type => {
                let sub = self.dyn_type()?;
                if self.dyn_next_key(at, DynKey::Type)?.is_none() {
                    return Err(missing(at, "value"));
                }
                Ok((sub, DynEnd::TypeFirst))
            }
            DynKey::Value => {
                let value_at = ws(self.buf, self.pos);
                self.pos = value_at;
                // Decoded (and validated) later, where it must end at `value_end`.
                let value_end = self.skip_unchecked()?;
                self.pos = value_end;
                if self.dyn_next_key(at, DynKey::Value)?.is_none() {
                    return Err(missing(at, "type"));
                }
                let sub = self.dyn_type()?;
                self.dyn_close(at)?;
                let end = DynEnd::ValueFirst {
                    value_end,
                    resume: self.pos,
                };
                self.pos = value_at;
                Ok((sub, end))
            }
            DynKey::Both => Err(missing(at, "type")),
        }
    }

    /// The wrapper (its `{` at `open`) has its value: reads the rest of it (type first), or
    /// jumps past it (value first).
    pub(super) fn wrapper_end(&mut self, end: DynEnd, open: usize) -> Result<(), Pending> {
        match end {
            DynEnd::ValueFirst { value_end, resume } => {
                if self.pos != value_end {
                    // The value's extent was found without checking it: the decode, which
                    // checks, must end at the same byte.
                    let msg = "the dynamic value does not end where its extent did".to_string();
                    return Err(Pending::new(ErrorKind::Syntax, self.pos, msg));
                }
                self.pos = resume;
                Ok(())
            }
            DynEnd::TypeFirst => self.dyn_close(open),
        }
    }

    /// Finds the end of the value at `pos` (a wrapper's value, or type JSON) without
    /// validating it (see [`skip_fast`] for when that is sound); one more level is open.
    fn skip_unchecked(&mut self) -> Result<usize, Pending> {
        let depth = self.c.skip_depth(1);
        let max = self.options.limits.max_depth;
        skip_fast(self.buf, self.pos, depth, max, &mut self.memo)
    }

    /// After one entry of a wrapper (`seen`, or `Both` when both were read): `}` gives
    /// `None`; `,` and the other key (and its colon) give it. Repeated or other keys are
    /// errors.
    fn dyn_next_key(&mut self, open: usize, seen: DynKey) -> Result<Option<DynKey>, Pending> {
        let at = ws(self.buf, self.pos);
        match self.buf.get(at) {
            Some(b'}') => {
                self.pos = at.wrapping_add(1);
                Ok(None)
            }
            Some(b',') => {
                self.pos = at.wrapping_add(1);
                self.dyn_key(open, Some(seen)).map(Some)
            }
            _ => Err(bad_separator(self.buf, at, b'}')),
        }
    }

    /// The end of a wrapper whose two keys were read: only `}` may follow.
    fn dyn_close(&mut self, open: usize) -> Result<(), Pending> {
        match self.dyn_next_key(open, DynKey::Both)? {
            None => Ok(()),
            // `dyn_key` rejects every key once both were read; kept as an error regardless.
            Some(_) => {
                let msg = "a dynamically-typed value has exactly two keys".to_string();
                Err(Pending::new(ErrorKind::InvalidDynamic, self.pos, msg))
            }
        }
    }

    /// A key of a wrapper and its colon. `seen` is the key already read (`Both` when both
    /// were). An empty wrapper `{}` is missing its type.
    fn dyn_key(&mut self, open: usize, seen: Option<DynKey>) -> Result<DynKey, Pending> {
        let at = ws(self.buf, self.pos);
        match self.buf.get(at) {
            Some(b'"') => {}
            Some(b'}') if seen.is_none() => return Err(missing(open, "type")),
            _ => return Err(expected(self.buf, at, "a string key")),
        }
        let key = match self.string(at)? {
            "type" => DynKey::Type,
            "value" => DynKey::Value,
            k => {
                let msg = format!("invalid key {k:?} in dynamically-typed value");
                return Err(Pending::new(ErrorKind::InvalidDynamic, at, msg));
            }
        };
        if seen == Some(key) || seen == Some(DynKey::Both) {
            let name = if key == DynKey::Type { "type" } else { "value" };
            let msg = format!("duplicate key {name:?} in dynamically-typed value");
            return Err(Pending::new(ErrorKind::DuplicateKey, at, msg));
        }
        self.pos = colon(self.buf, self.pos)?;
        Ok(key)
    }

    /// The type JSON at `pos` (its exact bytes are the cache key), compiled on first sight.
    fn dyn_type(&mut self) -> Result<&'a Program, Pending> {
        let type_at = ws(self.buf, self.pos);
        self.pos = type_at;
        // Compared byte for byte with validated type JSON, or parsed (validated) on a miss.
        let type_end = self.skip_unchecked()?;
        let limit = self.options.limits.max_type_json_len;
        let len = type_end.saturating_sub(type_at);
        if len > limit as usize {
            let msg = format!("type JSON of {len} bytes exceeds max_type_json_len ({limit})");
            return Err(Pending::new(ErrorKind::Limit, type_at, msg));
        }
        let Some(type_json) = self.buf.get(type_at..type_end) else {
            return Err(eof(type_at));
        };
        self.pos = type_end;
        if let Some(p) = self.types.get(type_json) {
            return Ok(p);
        }
        let root: &'a Program = self.root;
        let max_types = self.options.limits.max_dynamic_types;
        match dynamic_program(root, type_json, max_types) {
            Lookup::Found(p) => {
                self.types.insert(type_json, p);
                Ok(p)
            }
            Lookup::Full => {
                let msg =
                    format!("more than max_dynamic_types ({max_types}) distinct dynamic types");
                Err(Pending::new(ErrorKind::Limit, type_at, msg))
            }
            Lookup::Invalid(msg) => {
                let msg = format!("invalid dynamic type: {msg}");
                Err(Pending::new(ErrorKind::InvalidType, type_at, msg))
            }
        }
    }
}

/// The dynamic types of one decode, before the program's shared cache: a direct-mapped table
/// keyed by the type JSON's bytes (hashing only its length and its first and last 32 bytes:
/// type JSON can be kilobytes), compared in full. It lives in the executor, so a decode
/// allocates nothing for it; a collision or a miss costs one shared-cache lookup.
pub(super) struct TypeMemo<'a> {
    slots: [Option<(&'a [u8], &'a Program)>; TYPE_MEMO_SLOTS],
}

const TYPE_MEMO_SLOTS: usize = 64;
const TYPE_MEMO_MASK: usize = 63;

impl<'a> TypeMemo<'a> {
    pub(super) fn new() -> TypeMemo<'a> {
        TypeMemo {
            slots: [None; TYPE_MEMO_SLOTS],
        }
    }

    fn slot(key: &[u8]) -> usize {
        use std::hash::Hasher;
        let mut h = rustc_hash::FxHasher::default();
        h.write_usize(key.len());
        h.write(key.get(..32).unwrap_or(key));
        h.write(key.get(key.len().saturating_sub(32)..).unwrap_or(key));
        h.finish() as usize & TYPE_MEMO_MASK
    }

    fn get(&self, key: &[u8]) -> Option<&'a Program> {
        match self.slots.get(Self::slot(key)) {
            Some(Some((k, p))) if *k == key => Some(p),
            _ => None,
        }
    }

    fn insert(&mut self, key: &'a [u8], program: &'a Program) {
        if let Some(slot) = self.slots.get_mut(Self::slot(key)) {
            *slot = Some((key, program));
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DynKey {
    Type,
    Value,
    Both,
}

#[cold]
fn missing(at: usize, what: &str) -> Pending {
    let msg = format!("missing {what} in dynamically-typed value");
    Pending::new(ErrorKind::InvalidDynamic, at, msg)
}
