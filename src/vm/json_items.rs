//! The JSON executor's item readers: scalars inline (with go-cty's coercions), container
//! openings, map and object keys, and dynamic wrappers.
//!
//! Positions step over bytes just read with `wrapping_add`, which cannot wrap (see
//! `json_scan` on positions).

use super::dyncache::Lookup;
use super::frame::{Frame, Item, Kind, Pending};
use super::json::{DynEnd, Vm};
use super::json_extent::skip_fast;
use super::json_number::number;
use super::json_scan::{bad_separator, colon, eof, expected, literal, unexpected};
use super::json_skip::skip;
use super::json_string::{scan_string, string_body, ESCAPED};
use crate::error::ErrorKind;
use crate::number::{is_valid_decimal, Number};
use crate::program::{Op, OpId, Program};
use crate::value::Value;

impl<'a> Vm<'a> {
    /// Decodes one value of op `op` (`code` is its instruction), whitespace before it
    /// skipped: a scalar at once, handed to `put`; a container as a new frame to fill.
    ///
    /// Scalars go to `put` from each arm rather than back through a returned `Value`: the
    /// arms then store the value's parts straight into the destination (an element slot),
    /// instead of writing a tag byte to a stack temporary that is then re-read as a word
    /// (a store-forwarding stall that measured 15% of the profile).
    #[inline(always)]
    pub(super) fn item<P>(
        &mut self,
        code: Op,
        op: OpId,
        put: P,
    ) -> Result<Option<Frame<'a>>, Pending>
    where
        P: FnOnce(&mut Self, Value<'a>),
    {
        let at = self.ws();
        let Some(&c) = self.buf.get(at) else {
            return Err(eof(at));
        };
        // The expected encodings first.
        match (code, c) {
            (Op::String, b'"') => {
                let s = self.string(at)?;
                put(self, Value::String(s));
            }
            (Op::Number, b'-' | b'0'..=b'9') => {
                let (end, int) = number(self.buf, at)?;
                self.pos = end;
                match int {
                    Some(i) => put(self, Value::Number(Number::Int(i))),
                    None => {
                        let text = self.b.bump.alloc(self.number_text(at, end));
                        put(self, Value::Number(Number::Decimal(text)))
                    }
                }
            }
            (Op::Bool, b't') => {
                self.pos = literal(self.buf, at, b"true")?;
                put(self, Value::Bool(true));
            }
            (Op::Bool, b'f') => {
                self.pos = literal(self.buf, at, b"false")?;
                put(self, Value::Bool(false));
            }
            (_, b'n') => {
                self.pos = literal(self.buf, at, b"null")?;
                put(self, Value::Null);
            }
            _ => match self.item_other(code, op, c, at)? {
                Item::Done(v) => put(self, v),
                Item::Push(f) => return Ok(Some(f)),
            },
        }
        Ok(None)
    }

    /// Containers, coercions and mismatches.
    #[inline(never)]
    fn item_other(&mut self, code: Op, op: OpId, c: u8, at: usize) -> Result<Item<'a>, Pending> {
        match (code, c) {
            (Op::List { elem, items } | Op::Set { elem, items }, b'[') => {
                self.pos = at.wrapping_add(1);
                let set = matches!(code, Op::Set { .. });
                let kind = Kind::Seq {
                    out: Default::default(),
                    elem,
                    set,
                    items,
                };
                Ok(Item::Push(Frame::new(kind, u32::MAX, at)))
            }
            (Op::Tuple { elems }, b'[') => {
                self.pos = at.wrapping_add(1);
                self.b.charge(elems.len, size_of::<Value>(), at)?;
                let out = self
                    .b
                    .bump
                    .alloc_slice_fill_copy(elems.len as usize, Value::Null);
                Ok(Item::Push(Frame::new(
                    Kind::Tuple { out, elems },
                    elems.len,
                    at,
                )))
            }
            (Op::Map { elem }, b'{') => {
                self.pos = at.wrapping_add(1);
                let kind = Kind::Map {
                    out: Default::default(),
                    elem,
                };
                Ok(Item::Push(Frame::new(kind, u32::MAX, at)))
            }
            (Op::Object { attrs }, b'{') => {
                self.pos = at.wrapping_add(1);
                Ok(Item::Push(self.b.object_frame(op, attrs, u32::MAX, at)?))
            }
            (Op::Dynamic, b'{') => self.dynamic(at).map(Item::Push),
            // go-cty's coercions.
            (Op::Number, b'"') => {
                let s = self.string(at)?;
                if !is_valid_decimal(s.as_bytes()) {
                    let text: String = s.chars().take(40).collect();
                    let msg = format!("{text:?} is not a valid number");
                    return Err(Pending::new(ErrorKind::InvalidNumber, at, msg));
                }
                Ok(Item::Done(Value::Number(Number::Decimal(
                    self.b.bump.alloc(s),
                ))))
            }
            (Op::Bool, b'"') => match self.string(at)? {
                "true" | "1" => Ok(Item::Done(Value::Bool(true))),
                "false" | "0" => Ok(Item::Done(Value::Bool(false))),
                s => {
                    let text: String = s.chars().take(40).collect();
                    let msg = format!("expected bool, found JSON string {text:?}");
                    Err(Pending::new(ErrorKind::TypeMismatch, at, msg))
                }
            },
            (Op::String, b'-' | b'0'..=b'9') => {
                let (end, _) = number(self.buf, at)?;
                self.pos = end;
                Ok(Item::Done(Value::String(self.number_text(at, end))))
            }
            (Op::String, b't') => {
                self.pos = literal(self.buf, at, b"true")?;
                Ok(Item::Done(Value::String("true")))
            }
            (Op::String, b'f') => {
                self.pos = literal(self.buf, at, b"false")?;
                Ok(Item::Done(Value::String("false")))
            }
            _ => Err(self.mismatch(code, c, at)),
        }
    }

    /// The text of the number at `at..end` (ASCII, checked by the number scan).
    #[inline(always)]
    fn number_text(&self, at: usize, end: usize) -> &'a str {
        // (The number scan read `at..end`; empty if it somehow did not.)
        let bytes: &'a [u8] = self.buf.get(at..end).unwrap_or_default();
        // SAFETY: the number grammar admits only ASCII bytes.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// A value of the wrong JSON kind for `code` (after validating that it starts like JSON).
    #[cold]
    #[inline(never)]
    fn mismatch(&self, code: Op, c: u8, at: usize) -> Pending {
        let found = match c {
            b'"' => "string",
            b'-' | b'0'..=b'9' => "number",
            b't' | b'f' => "bool",
            b'[' => "array",
            b'{' => "object",
            _ => return unexpected(self.buf, at),
        };
        // A malformed token is a syntax error before it is a mismatch.
        let check = match c {
            b'-' | b'0'..=b'9' => number(self.buf, at).map(|_| ()),
            b't' => literal(self.buf, at, b"true").map(|_| ()),
            b'f' => literal(self.buf, at, b"false").map(|_| ()),
            _ => Ok(()),
        };
        if let Err(p) = check {
            return p;
        }
        let (kind, what) = match code {
            Op::Bool => (ErrorKind::TypeMismatch, "bool"),
            Op::Number => (ErrorKind::TypeMismatch, "number"),
            Op::String => (ErrorKind::TypeMismatch, "string"),
            Op::List { .. } => (ErrorKind::TypeMismatch, "list (a JSON array)"),
            Op::Set { .. } => (ErrorKind::TypeMismatch, "set (a JSON array)"),
            Op::Tuple { .. } => (ErrorKind::TypeMismatch, "tuple (a JSON array)"),
            Op::Map { .. } => (ErrorKind::TypeMismatch, "map (a JSON object)"),
            Op::Object { .. } => (ErrorKind::TypeMismatch, "object (a JSON object)"),
            Op::Dynamic => (
                ErrorKind::InvalidDynamic,
                "a dynamic value {\"type\": T, \"value\": V}",
            ),
        };
        Pending::new(kind, at, format!("expected {what}, found JSON {found}"))
    }

    /// A string whose opening quote is at `at`: borrowed from the input, or unescaped into
    /// the arena.
    #[inline(always)]
    pub(super) fn string(&mut self, at: usize) -> Result<&'a str, Pending> {
        let start = at.wrapping_add(1);
        let (end, flags) = scan_string(self.buf, start, at)?;
        self.pos = end.wrapping_add(1);
        let s = string_body(self.buf, start, end, flags, self.b.bump)?;
        let max = self.b.options.limits.max_string_len;
        if s.len() > max as usize {
            return Err(string_limit(s.len(), max, at));
        }
        Ok(s)
    }

    /// A map key and its colon.
    #[inline(always)]
    pub(super) fn map_key(&mut self) -> Result<&'a str, Pending> {
        let at = self.ws();
        if self.buf.get(at) != Some(&b'"') {
            return Err(expected(self.buf, at, "a string key"));
        }
        let key = self.string(at)?;
        self.pos = colon(self.buf, self.pos)?;
        Ok(key)
    }

    /// Reads the next object key and its colon: `Some((attribute index, op, its code))`, or `None` when
    /// the key was unknown and its value skipped (with the drift option).
    #[inline(always)]
    pub(super) fn object_key(
        &mut self,
        cur: &mut Frame<'a>,
    ) -> Result<Option<(u32, OpId, Op)>, Pending> {
        let prog = self.b.prog;
        let Kind::Object { attrs, next, .. } = cur.kind else {
            return Ok(None);
        };
        let at = self.ws();
        if self.buf.get(at) != Some(&b'"') {
            return Err(expected(self.buf, at, "a string key"));
        }
        let (end, flags) = scan_string(self.buf, at.wrapping_add(1), at)?;
        let raw = self.buf.get(at.wrapping_add(1)..end).unwrap_or_default();
        let names = prog.attr_names.get(attrs.range()).unwrap_or_default();
        // Fast path: the key expected after the last match, compared as raw bytes.
        let j = match names.get(next as usize) {
            Some(name) if flags & ESCAPED == 0 && eq_short(name.as_bytes(), raw) => Some(next),
            _ => self.find_attr(names, at, end, flags)?,
        };
        self.pos = colon(self.buf, end.wrapping_add(1))?;
        match j {
            Some(j) => {
                if self.b.check_key_lengths {
                    self.b.check_key_len(attrs, j, at)?;
                }
                let (op, code) = self.b.accept_attr(cur, j, at)?;
                Ok(Some((j, op, code)))
            }
            None => {
                self.unknown_attr(cur, at, end, flags)?;
                Ok(None)
            }
        }
    }

    /// Binary search for a key (unescaped first if it has escapes).
    #[inline(never)]
    fn find_attr(
        &mut self,
        names: &[Box<str>],
        at: usize,
        end: usize,
        flags: u8,
    ) -> Result<Option<u32>, Pending> {
        let start = at.wrapping_add(1);
        let key: &[u8] = if flags & ESCAPED != 0 {
            string_body(self.buf, start, end, flags, self.b.bump)?.as_bytes()
        } else {
            self.buf.get(start..end).unwrap_or_default()
        };
        Ok(names
            .binary_search_by(|n| n.as_bytes().cmp(key))
            .ok()
            .map(|j| j as u32))
    }

    /// A key the object type does not have: an error, or (with the drift option) its value
    /// is skipped.
    #[cold]
    #[inline(never)]
    fn unknown_attr(
        &mut self,
        cur: &mut Frame<'a>,
        at: usize,
        end: usize,
        flags: u8,
    ) -> Result<(), Pending> {
        let key = string_body(self.buf, at.wrapping_add(1), end, flags, self.b.bump)?;
        if !self.b.options.skip_unknown_attributes {
            let msg = format!("unsupported attribute {key:?}");
            return Err(Pending::new(ErrorKind::UnknownAttribute, at, msg));
        }
        if key.len() > self.b.options.limits.max_string_len as usize {
            return Err(string_limit(
                key.len(),
                self.b.options.limits.max_string_len,
                at,
            ));
        }
        self.b.skipping_unknown_key(cur, key);
        self.pos = self.skip_value(0)?;
        // `index < u32::MAX` (`fill_object` checks it before every key): cannot wrap.
        cur.index = cur.index.wrapping_add(1);
        cur.in_value = false;
        Ok(())
    }

    /// Skips and validates the value at `pos`; `extra` more levels are open above the
    /// innermost frame. Returns the position after it.
    fn skip_value(&mut self, extra: usize) -> Result<usize, Pending> {
        let max = self.b.options.limits.max_depth;
        let depth = (max as usize).saturating_sub(self.b.stack.len().saturating_add(extra));
        skip(self.buf, self.pos, &mut self.skip_stack, depth, max)
    }

    /// Finds the end of the value at `pos` without validating it (see
    /// [`skip_fast`] for when that is sound).
    fn skip_unchecked(&mut self, extra: usize) -> Result<usize, Pending> {
        let max = self.b.options.limits.max_depth;
        let depth = (max as usize).saturating_sub(self.b.stack.len().saturating_add(extra));
        skip_fast(self.buf, self.pos, depth, max, &mut self.memo)
    }

    /// A dynamic wrapper `{"type": T, "value": V}` (either order) whose `{` is at `at`: looks
    /// the type up (compiling it on first sight) and returns a frame whose one child is
    /// decoded with the concrete type's program, positioned at the value.
    fn dynamic(&mut self, at: usize) -> Result<Frame<'a>, Pending> {
        self.pos = at.wrapping_add(1);
        let sub;
        let end;
        match self.dyn_key(at, None)? {
            DynKey::Type => {
                sub = self.dyn_type()?;
                match self.dyn_next_key(at, DynKey::Type)? {
                    Some(_) => {}
                    None => return Err(missing(at, "value")),
                }
                end = DynEnd::TypeFirst;
            }
            DynKey::Value => {
                self.ws();
                let value_at = self.pos;
                // Decoded (and validated) below, where it must end at `value_end`.
                let value_end = self.skip_unchecked(1)?;
                self.pos = value_end;
                match self.dyn_next_key(at, DynKey::Value)? {
                    Some(_) => {}
                    None => return Err(missing(at, "type")),
                }
                sub = self.dyn_type()?;
                self.dyn_close(at)?;
                end = DynEnd::ValueFirst {
                    value_end,
                    resume: self.pos,
                };
                self.pos = value_at;
            }
            DynKey::Both => return Err(missing(at, "type")),
        }
        self.dyns.push(end);
        self.b.dynamic_opened(sub);
        let kind = Kind::Dynamic {
            outer: self.b.prog,
            sub,
            value: Value::Null,
        };
        Ok(Frame::new(kind, 1, at))
    }

    /// After one entry of a dynamic wrapper (`seen`, or `Both` when both were read): `}`
    /// gives `None`; `,` and the other key (and its colon) give it. Repeated or other keys
    /// are errors.
    fn dyn_next_key(&mut self, open: usize, seen: DynKey) -> Result<Option<DynKey>, Pending> {
        let at = self.ws();
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

    /// A key of a dynamic wrapper and its colon. `seen` is the key already read (`Both` when
    /// both were). An empty wrapper `{}` gives `Both` (the caller reports what is missing).
    fn dyn_key(&mut self, open: usize, seen: Option<DynKey>) -> Result<DynKey, Pending> {
        let at = self.ws();
        match self.buf.get(at) {
            Some(b'"') => {}
            Some(b'}') if seen.is_none() => {
                return Err(missing(open, "type"));
            }
            _ => return Err(expected(self.buf, at, "a string key")),
        }
        let key = self.string(at)?;
        let key = match key {
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
        let type_at = self.ws();
        // Compared byte for byte with validated type JSON, or parsed (validated) on a miss.
        let type_end = self.skip_unchecked(1)?;
        let limit = self.b.options.limits.max_type_json_len;
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
        let root: &'a Program = self.b.root;
        let max_types = self.b.options.limits.max_dynamic_types;
        match root.dyn_cache.get_or_compile(type_json, max_types) {
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

    /// The dynamic wrapper `cur` has its value: reads the rest of the wrapper (type first),
    /// or jumps past it (value first).
    pub(super) fn dynamic_end(&mut self, cur: &mut Frame<'a>) -> Result<(), Pending> {
        match self.dyns.pop() {
            Some(DynEnd::ValueFirst { value_end, resume }) => {
                if self.pos != value_end {
                    // The value's extent was found without checking it: the decode, which
                    // checks, must end at the same byte.
                    let msg = "the dynamic value does not end where its extent did".to_string();
                    return Err(Pending::new(ErrorKind::Syntax, self.pos, msg));
                }
                self.pos = resume;
                Ok(())
            }
            _ => self.dyn_close(cur.start),
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

#[cold]
fn string_limit(len: usize, max: u32, at: usize) -> Pending {
    let msg = format!("string of {len} bytes exceeds max_string_len ({max})");
    Pending::new(ErrorKind::Limit, at, msg)
}

/// Byte equality tuned for short keys: a length check, then two overlapping word compares
/// (no `memcmp` call, which measured 5% of the JSON profile on `aws_states`).
#[inline(always)]
fn eq_short(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // The first and last `N` bytes of each (the length checks compile away in each arm).
    fn ends<const N: usize>(a: &[u8], b: &[u8]) -> bool {
        a.first_chunk::<N>() == b.first_chunk::<N>() && a.last_chunk::<N>() == b.last_chunk::<N>()
    }
    match n {
        0 => true,
        1..=3 => a.first() == b.first() && a.get(n / 2) == b.get(n / 2) && a.last() == b.last(),
        4..=7 => ends::<4>(a, b),
        8..=16 => ends::<8>(a, b),
        _ => a == b,
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)] // (clippy.toml allows the other panic lints in tests)
mod tests {
    #[test]
    fn eq_short_matches_slice_equality() {
        let text = b"abcdefghijklmnopqrstuvwxyz0123456789";
        for n in 0..text.len() {
            let a = &text[..n];
            assert!(super::eq_short(a, a));
            for i in 0..n {
                let mut b = a.to_vec();
                b[i] ^= 1;
                assert!(!super::eq_short(a, &b), "{n} {i}");
            }
            assert!(!super::eq_short(a, &text[..n + 1]));
        }
    }
}
