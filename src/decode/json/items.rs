//! The JSON executor's item readers: the dispatch on an op with scalars inline (and go-cty's
//! coercions out of line), map and object keys, and the skip of an unknown attribute's value.
//!
//! Positions step over bytes just read with `wrapping_add`, which cannot wrap (see
//! `scan.rs` on positions).

use super::number::{number, short_number};
use super::scan::{colon, eof, expected, literal, unexpected, ws};
use super::skip::skip_value;
use super::string::{scan_string, string_body, ESCAPED, NON_ASCII};
use super::Decoder;
use crate::decode::common::{find_name, AttrTable, Pending};
use crate::decode::restrict::restrict_dynamic;
use crate::decode::slots::Slots;
use crate::error::ErrorKind;
use crate::number::is_valid_decimal;
use crate::program::{Op, OpId, Program};
use crate::value::Value;

impl<'a> Decoder<'a> {
    /// Decodes one value of op `op` (`code` is its instruction, `prog` its program),
    /// whitespace before it skipped, and hands it to `put` (inlined, so each kind of value is
    /// stored straight where it goes). One dispatch on the op; the JSON kind go-cty writes for
    /// it is tried first, then `null`, then containers and coercions.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn value_with(
        &mut self,
        prog: &'a Program,
        code: Op,
        op: OpId,
        put: impl FnOnce(&mut Self, Value<'a>),
    ) -> Result<(), Pending> {
        // go-cty's compact form: the value right at `pos`.
        let mut at = self.pos;
        let Some(mut c) = self.buf.get(at).copied() else {
            return Err(eof(at));
        };
        if c <= b' ' {
            at = ws(self.buf, at);
            c = match self.buf.get(at) {
                Some(&c) => c,
                None => return Err(eof(at)),
            };
        }
        match code {
            Op::String if c == b'"' => self.string_item(at, put),
            Op::Number if c == b'-' || c.is_ascii_digit() => self.number_item(at, put),
            _ if c == b'n' => self.null_item(at, put),
            _ => self.other_item(prog, code, op, c, at, put),
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
        self.value_with(prog, code, op, |_, v| out = v)?;
        Ok(out)
    }

    /// A string value whose quote is at `at`. (The arms of the dispatch are functions of
    /// their own only in debug builds, to keep the frame that recursion stacks up small.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn string_item(
        &mut self,
        at: usize,
        put: impl FnOnce(&mut Self, Value<'a>),
    ) -> Result<(), Pending> {
        let s = self.string(at)?;
        put(self, Value::String(s));
        Ok(())
    }

    /// A number value (a JSON number literal) at `at`: an `i64` when it is one, else its text.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn number_item(
        &mut self,
        at: usize,
        put: impl FnOnce(&mut Self, Value<'a>),
    ) -> Result<(), Pending> {
        let (end, int) = number(self.buf, at)?;
        self.pos = end;
        let v = match int {
            Some(i) => Value::Int(i),
            // SAFETY: `number` just read `at..end`.
            None => Value::Decimal(unsafe { self.number_text(at, end) }),
        };
        put(self, v);
        Ok(())
    }

    /// The elements of a list of numbers, from `pos` (its first element) through its `]`,
    /// into `out`: number literals and compact separators in a loop of their own, with the
    /// position in a register; anything else (whitespace, `null`, an error) through the
    /// general [`value_with`](Decoder::value_with) and [`next`](Decoder::next), so values,
    /// errors and their offsets are exactly theirs.
    #[inline(never)]
    pub(super) fn number_elements(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        out: &mut Slots<'a, Value<'a>>,
    ) -> Result<(), Pending> {
        let buf = self.buf;
        let mut pos = self.pos;
        loop {
            match buf.get(pos) {
                Some(&c) if c == b'-' || c.is_ascii_digit() => {
                    let (end, int) = match short_number(buf, pos) {
                        Some(found) => found,
                        None => number(buf, pos).map_err(|e| e.in_index(out.written()))?,
                    };
                    out.push(match int {
                        Some(i) => Value::Int(i),
                        // SAFETY: `short_number` or `number` just read `pos..end`.
                        None => Value::Decimal(unsafe { number_text(buf, pos, end) }),
                    });
                    pos = end;
                }
                _ => {
                    self.pos = pos;
                    let i = out.written();
                    self.value_with(prog, Op::Number, elem, |_, v| out.push(v))
                        .map_err(|e| e.in_index(i))?;
                    pos = self.pos;
                }
            }
            match buf.get(pos) {
                // (Past the byte just read: see `scan.rs` on positions.)
                Some(b',') => pos = pos.wrapping_add(1),
                Some(b']') => {
                    self.pos = pos.wrapping_add(1);
                    return Ok(());
                }
                _ => {
                    self.pos = pos;
                    let more = self.next(b']')?;
                    pos = self.pos;
                    if !more {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// `null` at `at`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn null_item(
        &mut self,
        at: usize,
        put: impl FnOnce(&mut Self, Value<'a>),
    ) -> Result<(), Pending> {
        self.pos = literal(self.buf, at, b"null")?;
        put(self, Value::Null);
        Ok(())
    }

    /// Everything but a string, a number literal for a number, and `null`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn other_item(
        &mut self,
        prog: &'a Program,
        code: Op,
        op: OpId,
        c: u8,
        at: usize,
        put: impl FnOnce(&mut Self, Value<'a>),
    ) -> Result<(), Pending> {
        let v = self.other(prog, code, op, c, at)?;
        put(self, v);
        Ok(())
    }

    /// Bools, containers, go-cty's coercions, mismatches.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn other(
        &mut self,
        prog: &'a Program,
        code: Op,
        op: OpId,
        c: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        match (code, c) {
            (Op::Bool, b't' | b'f') => self.bool_value(c, at),
            (Op::List { elem, items }, b'[') => self.seq(prog, elem, items, false, at),
            (Op::Set { elem, items }, b'[') => self.seq(prog, elem, items, true, at),
            (Op::Tuple { elems }, b'[') => self.tuple(prog, elems, None, at),
            (Op::Map { elem }, b'{') => self.map(prog, elem, at),
            (Op::Object { attrs }, b'{') => self.object(prog, op, attrs, at),
            (Op::Dynamic, b'{') => self.dynamic(at),
            _ => self.rare(prog, code, c, at),
        }
    }

    /// A projection's picks and selected dynamic values, go-cty's coercions, mismatches:
    /// out of line, so that the dispatch every value goes through stays as small as it was.
    #[inline(never)]
    fn rare(
        &mut self,
        prog: &'a Program,
        code: Op,
        c: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        match (code, c) {
            (Op::Pick { of, picks }, _) => self.pick(prog, of, picks, c, at),
            (Op::DynamicSelect { selection }, b'{') => {
                let value = self.dynamic(at)?;
                let max_types = self.options.limits.max_dynamic_types;
                restrict_dynamic(self.root, self.bump, prog, selection, value, max_types)
                    .map_err(|(kind, msg)| Pending::new(kind, at, msg))
            }
            _ => self.coerce(code, c, at),
        }
    }

    /// `true` or `false` at `at` (`c` is its first byte).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bool_value(&mut self, c: u8, at: usize) -> Result<Value<'a>, Pending> {
        let word: &'static [u8] = if c == b't' { b"true" } else { b"false" };
        self.pos = literal(self.buf, at, word)?;
        Ok(Value::Bool(c == b't'))
    }

    /// go-cty's coercions (a number or bool from a string, a string from a number or bool),
    /// or a mismatch.
    #[inline(always)]
    fn coerce(&mut self, code: Op, c: u8, at: usize) -> Result<Value<'a>, Pending> {
        match (code, c) {
            (Op::Number, b'"') => {
                let s = self.string(at)?;
                if !is_valid_decimal(s.as_bytes()) {
                    let text: String = s.chars().take(40).collect();
                    let msg = format!("{text:?} is not a valid number");
                    return Err(Pending::new(ErrorKind::InvalidNumber, at, msg));
                }
                Ok(Value::Decimal(s))
            }
            (Op::Bool, b'"') => match self.string(at)? {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                s => {
                    let text: String = s.chars().take(40).collect();
                    let msg = format!("expected bool, found JSON string {text:?}");
                    Err(Pending::new(ErrorKind::TypeMismatch, at, msg))
                }
            },
            (Op::String, b'-' | b'0'..=b'9') => {
                let (end, _) = number(self.buf, at)?;
                self.pos = end;
                // SAFETY: `number` just read `at..end`.
                Ok(Value::String(unsafe { self.number_text(at, end) }))
            }
            (Op::String, b't') => {
                self.pos = literal(self.buf, at, b"true")?;
                Ok(Value::String("true"))
            }
            (Op::String, b'f') => {
                self.pos = literal(self.buf, at, b"false")?;
                Ok(Value::String("false"))
            }
            _ => Err(self.mismatch(code, c, at)),
        }
    }

    /// The text of the number at `at..end`.
    ///
    /// # Safety
    /// The number scan read `at..end` (so it is ASCII), or the range is not in the input.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn number_text(&self, at: usize, end: usize) -> &'a str {
        // SAFETY: the caller's contract is `number_text`'s.
        unsafe { number_text(self.buf, at, end) }
    }

    /// A value of the wrong JSON kind for `code` (after validating that it starts like JSON).
    #[cold]
    #[inline(never)]
    pub(super) fn mismatch(&self, code: Op, c: u8, at: usize) -> Pending {
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
            // (`pick` reports a mismatch with its collection's op.)
            Op::Pick { .. } => (ErrorKind::TypeMismatch, "a collection"),
            Op::Dynamic | Op::DynamicSelect { .. } => (
                ErrorKind::InvalidDynamic,
                "a dynamic value {\"type\": T, \"value\": V}",
            ),
        };
        Pending::new(kind, at, format!("expected {what}, found JSON {found}"))
    }

    /// A string whose opening quote is at `at`: borrowed from the input, or unescaped into
    /// the arena.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn string(&mut self, at: usize) -> Result<&'a str, Pending> {
        let start = at.wrapping_add(1);
        let (end, flags) = scan_string(self.buf, start, at)?;
        self.pos = end.wrapping_add(1);
        let s = string_body(self.buf, start, end, flags, self.bump)?;
        let max = self.options.limits.max_string_len;
        if s.len() > max as usize {
            return Err(string_limit(s.len(), max, at));
        }
        Ok(s)
    }

    /// A map key and its colon.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn map_key(&mut self) -> Result<&'a str, Pending> {
        let at = ws(self.buf, self.pos);
        if self.buf.get(at) != Some(&b'"') {
            return Err(expected(self.buf, at, "a string key"));
        }
        let key = self.string(at)?;
        self.pos = colon(self.buf, self.pos)?;
        Ok(key)
    }

    /// Reads the object key at `at` and its colon, `next` being the attribute expected (or
    /// `usize::MAX`): `Some(attribute index)`, or `None` when the key was unknown and its
    /// value skipped (with the drift option).
    pub(super) fn object_key(
        &mut self,
        table: &AttrTable<'a>,
        next: usize,
        at: usize,
    ) -> Result<Option<usize>, Pending> {
        if self.buf.get(at) != Some(&b'"') {
            return Err(expected(self.buf, at, "a string key"));
        }
        let (end, flags) = scan_string(self.buf, at.wrapping_add(1), at)?;
        let raw = self.buf.get(at.wrapping_add(1)..end).unwrap_or_default();
        let plain = flags & (ESCAPED | NON_ASCII) == 0;
        let j = match table.names.get(next) {
            Some(name) if flags & ESCAPED == 0 && name.as_bytes() == raw => Some(next),
            _ if plain => find_name(table.names, raw),
            _ => self.find_attr(table.names, at, end, flags)?,
        };
        self.pos = colon(self.buf, end.wrapping_add(1))?;
        match j {
            // A plain ASCII key no attribute has (most keys of a projection's objects), within
            // `max_string_len`: its value stepped over here.
            None if plain
                && (self.options.skip_unknown_attributes || table.projected)
                && raw.len() <= self.options.limits.max_string_len as usize =>
            {
                // (`skip_value` itself, not `skip_element`'s call: most keys of a
                // projection's objects come here.)
                let depth = self.c.skip_depth(0);
                let max_depth = self.options.limits.max_depth;
                self.pos = skip_value(self.buf, self.pos, &mut self.skip_stack, depth, max_depth)
                    .map_err(|e| e.in_attr(&String::from_utf8_lossy(raw)))?;
                Ok(None)
            }
            Some(j) => {
                if self.c.check_key_lengths {
                    let max = self.options.limits.max_string_len;
                    let len = table.name(j).len();
                    if len > max as usize {
                        return Err(string_limit(len, max, at));
                    }
                }
                Ok(Some(j))
            }
            None => {
                self.unknown_attr(at, end, flags, table.projected)?;
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
    ) -> Result<Option<usize>, Pending> {
        let start = at.wrapping_add(1);
        let key: &[u8] = if flags & ESCAPED != 0 {
            string_body(self.buf, start, end, flags, self.bump)?.as_bytes()
        } else {
            self.buf.get(start..end).unwrap_or_default()
        };
        Ok(find_name(names, key))
    }

    /// A key the object type does not have: an error, or (with the drift option) its value
    /// is skipped (an error in it has the key's path).
    #[cold]
    #[inline(never)]
    fn unknown_attr(
        &mut self,
        at: usize,
        end: usize,
        flags: u8,
        projected: bool,
    ) -> Result<(), Pending> {
        let key = string_body(self.buf, at.wrapping_add(1), end, flags, self.bump)?;
        if !(self.options.skip_unknown_attributes || projected) {
            let msg = format!("unsupported attribute {key:?}");
            return Err(Pending::new(ErrorKind::UnknownAttribute, at, msg));
        }
        let max = self.options.limits.max_string_len;
        if key.len() > max as usize {
            return Err(string_limit(key.len(), max, at));
        }
        self.skip_element().map_err(|e| e.in_attr(key))?;
        Ok(())
    }
}

#[cold]
pub(super) fn string_limit(len: usize, max: u32, at: usize) -> Pending {
    let msg = format!("string of {len} bytes exceeds max_string_len ({max})");
    Pending::new(ErrorKind::Limit, at, msg)
}

/// The text of the number literal at `at..end` of `buf` (empty if the range is not in `buf`).
///
/// # Safety
/// The number scan read `buf[at..end]`: the number grammar admits only ASCII bytes, so it is
/// valid UTF-8.
#[inline(always)]
unsafe fn number_text(buf: &[u8], at: usize, end: usize) -> &str {
    let bytes = buf.get(at..end).unwrap_or_default();
    // SAFETY: the caller's contract.
    unsafe { std::str::from_utf8_unchecked(bytes) }
}
