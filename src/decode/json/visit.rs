//! The JSON executor's visit ([`Program::visit`](crate::Program::visit)): the decoder's walk
//! under a program, telling a [`Visitor`] each value instead of building it. Strings borrow
//! from the input, or are unescaped into one reused buffer; numbers, literals, wrappers,
//! separators and skips are the decoder's own; the only allocations are that buffer, a flag
//! per attribute of the open objects, and the skip's stack (all bounded by the input's
//! nesting, not its size).

use bumpalo::Bump;

use super::items::string_limit;
use super::number::number;
use super::scan::{eof, expected, literal, ws};
use super::string::{scan_string, unescape_into, utf8, ESCAPED, NON_ASCII};
use super::Decoder;
use crate::decode::common::{duplicate_attribute, find_name, AttrTable, Pending};
use crate::decode::restrict::visit_program;
use crate::decode::visit::{Container, Silent, Visitor};
use crate::error::{DecodeError, ErrorKind};
use crate::number::is_valid_decimal;
use crate::program::{
    tuple_arity, tuple_element, DecodeOptions, Op, OpId, Picks, Program, SelectionId, Span,
};
use crate::value::Value;

/// [`Program::visit`](crate::Program::visit) of JSON: the whole input, whitespace around the
/// value allowed.
pub(crate) fn visit<V: Visitor + ?Sized>(
    program: &Program,
    input: &[u8],
    visitor: &mut V,
    options: &DecodeOptions,
) -> Result<(), DecodeError> {
    let scratch = Bump::new();
    let mut d = Decoder::new(program, input, &scratch, options);
    let mut walk = Walk {
        d: &mut d,
        v: visitor,
        text: String::new(),
        present: Vec::new(),
    };
    let root = program.code.root;
    walk.value(program, program.op(root), root)
        .map_err(Pending::into_error)?;
    let end = ws(input, d.pos);
    if end < input.len() {
        let msg = format!("{} bytes after the value", input.len().saturating_sub(end));
        return Err(Pending::new(ErrorKind::TrailingBytes, end, msg).into_error());
    }
    Ok(())
}

/// A visit in progress.
struct Walk<'w, 'a, V: ?Sized> {
    d: &'w mut Decoder<'a>,
    v: &'w mut V,
    /// The last string with escapes, unescaped.
    text: String,
    /// Which attributes each open object has had, innermost last.
    present: Vec<bool>,
}

/// The string `text` (of [`Walk::string`]) points at, `unescaped` being [`Walk::text`].
fn resolve<'s>(unescaped: &'s str, text: &Text<'s>) -> &'s str {
    match text {
        Text::Input(s) => s,
        Text::Unescaped => unescaped,
    }
}

/// `text` as an owned string only when it is in the reused buffer (for an error path that
/// must outlive the next string).
fn kept<'a>(unescaped: &str, text: &Text<'a>) -> std::borrow::Cow<'a, str> {
    match text {
        Text::Input(s) => std::borrow::Cow::Borrowed(s),
        Text::Unescaped => std::borrow::Cow::Owned(unescaped.to_owned()),
    }
}

/// An object key read: its quote's position, its end and its scan flags.
type ScannedKey = (usize, usize, u8);

/// Where a string read by [`Walk::string`] is.
enum Text<'a> {
    /// In the input.
    Input(&'a str),
    /// In [`Walk::text`].
    Unescaped,
}

impl<'a, V: Visitor + ?Sized> Walk<'_, 'a, V> {
    /// The value at `pos` (whitespace before it skipped), of op `op` (`code` its instruction).
    fn value(&mut self, prog: &'a Program, code: Op, _op: OpId) -> Result<(), Pending> {
        let at = ws(self.d.buf, self.d.pos);
        let Some(&c) = self.d.buf.get(at) else {
            return Err(eof(at));
        };
        match (code, c) {
            (_, b'n') => {
                self.d.pos = literal(self.d.buf, at, b"null")?;
                self.v.scalar(Value::Null);
            }
            (Op::String, b'"') => {
                let text = self.string(at)?;
                self.v.scalar(Value::String(resolve(&self.text, &text)));
            }
            (Op::Number, b'-' | b'0'..=b'9') => {
                let (end, int) = number(self.d.buf, at)?;
                self.d.pos = end;
                self.v.scalar(match int {
                    Some(i) => Value::Int(i),
                    None => Value::Decimal(self.number_text(at, end)),
                });
            }
            (Op::Bool, b't' | b'f') => {
                let word: &'static [u8] = if c == b't' { b"true" } else { b"false" };
                self.d.pos = literal(self.d.buf, at, word)?;
                self.v.scalar(Value::Bool(c == b't'));
            }
            (Op::List { elem, .. }, b'[') => self.seq(prog, elem, Container::List, None, at)?,
            (Op::Set { elem, .. }, b'[') => self.seq(prog, elem, Container::Set, None, at)?,
            (Op::Tuple { elems }, b'[') => self.tuple(prog, elems, None, at)?,
            (Op::Map { elem }, b'{') => self.map(prog, elem, None, at)?,
            (Op::Object { attrs }, b'{') => self.object(prog, attrs, at)?,
            (Op::Dynamic, b'{') => self.dynamic(prog, None, at)?,
            (Op::DynamicSelect { selection }, b'{') => self.dynamic(prog, Some(selection), at)?,
            (Op::Pick { of, picks }, b'[' | b'{') => {
                let Some(picks) = prog.picks(picks) else {
                    return Err(crate::decode::common::internal(at));
                };
                match (prog.op(of), c) {
                    (Op::List { elem, .. }, b'[') => {
                        self.seq(prog, elem, Container::List, Some(picks), at)?
                    }
                    (Op::Tuple { elems }, b'[') => self.tuple(prog, elems, Some(picks), at)?,
                    (Op::Map { elem }, b'{') => self.map(prog, elem, Some(picks), at)?,
                    (of, _) => return Err(self.d.mismatch(of, c, at)),
                }
            }
            _ => self.coerce(prog.resolve(code), c, at)?,
        }
        Ok(())
    }

    /// go-cty's coercions (a number or bool from a string, a string from a number or bool),
    /// or a mismatch.
    fn coerce(&mut self, code: Op, c: u8, at: usize) -> Result<(), Pending> {
        match (code, c) {
            (Op::Number, b'"') => {
                let text = self.string(at)?;
                let s = resolve(&self.text, &text);
                if !is_valid_decimal(s.as_bytes()) {
                    let text: String = s.chars().take(40).collect();
                    let msg = format!("{text:?} is not a valid number");
                    return Err(Pending::new(ErrorKind::InvalidNumber, at, msg));
                }
                self.v.scalar(Value::Decimal(s));
            }
            (Op::Bool, b'"') => {
                let text = self.string(at)?;
                let b = match resolve(&self.text, &text) {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    s => {
                        let text: String = s.chars().take(40).collect();
                        let msg = format!("expected bool, found JSON string {text:?}");
                        return Err(Pending::new(ErrorKind::TypeMismatch, at, msg));
                    }
                };
                self.v.scalar(Value::Bool(b));
            }
            (Op::String, b'-' | b'0'..=b'9') => {
                let (end, _) = number(self.d.buf, at)?;
                self.d.pos = end;
                self.v.scalar(Value::String(self.number_text(at, end)));
            }
            (Op::String, b't' | b'f') => {
                let word: &'static str = if c == b't' { "true" } else { "false" };
                self.d.pos = literal(self.d.buf, at, word.as_bytes())?;
                self.v.scalar(Value::String(word));
            }
            _ => return Err(self.d.mismatch(code, c, at)),
        }
        Ok(())
    }

    /// The text of the number literal just read at `at..end` (ASCII).
    fn number_text(&self, at: usize, end: usize) -> &'a str {
        let buf: &'a [u8] = self.d.buf;
        std::str::from_utf8(buf.get(at..end).unwrap_or_default()).unwrap_or_default()
    }

    /// The string whose quote is at `at`, checked (escapes, UTF-8, `max_string_len`).
    fn string(&mut self, at: usize) -> Result<Text<'a>, Pending> {
        let buf: &'a [u8] = self.d.buf;
        let start = at.wrapping_add(1);
        let (end, flags) = scan_string(buf, start, at)?;
        self.d.pos = end.wrapping_add(1);
        let (text, len) = if flags & ESCAPED != 0 {
            unescape_into(buf, start, end, flags, &mut self.text)?;
            (Text::Unescaped, self.text.len())
        } else {
            let raw = buf.get(start..end).unwrap_or_default();
            let s = match flags & NON_ASCII {
                0 => std::str::from_utf8(raw).unwrap_or_default(),
                _ => utf8(raw, start)?,
            };
            (Text::Input(s), s.len())
        };
        let max = self.d.options.limits.max_string_len;
        if len > max as usize {
            return Err(string_limit(len, max, at));
        }
        Ok(text)
    }

    /// A list or set (`[` at `at`) of `elem`: every element, or those `picks` picks.
    fn seq(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        kind: Container<'_>,
        picks: Option<&Picks>,
        at: usize,
    ) -> Result<(), Pending> {
        self.d.pos = at.wrapping_add(1);
        self.d.c.enter(at)?;
        self.v.begin(kind);
        let code = prog.op(elem);
        let mut n = 0u32;
        if self.d.first(b']') {
            loop {
                self.d.check_len(n)?;
                let i = n as usize;
                if picks.is_none_or(|p| p.index_position(u64::from(n)).is_some()) {
                    self.value(prog, code, elem).map_err(|e| e.in_index(i))?;
                } else {
                    self.d.skip_element().map_err(|e| e.in_index(i))?;
                }
                // `n < max_container_len` (`check_len`): cannot wrap.
                n = n.wrapping_add(1);
                if !self.d.next(b']')? {
                    break;
                }
            }
        }
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// A tuple (`[` at `at`) of the element ops `elems`: every element, or (one op per pick)
    /// those `picks` picks; its length checked either way.
    fn tuple(
        &mut self,
        prog: &'a Program,
        elems: Span,
        picks: Option<&Picks>,
        at: usize,
    ) -> Result<(), Pending> {
        let ops = prog.code.tuple_elems.get(elems.range()).unwrap_or_default();
        let arity = tuple_arity(picks, elems);
        self.d.pos = at.wrapping_add(1);
        self.d.c.enter(at)?;
        self.v.begin(Container::Tuple);
        let mut n = 0u32;
        if self.d.first(b']') {
            loop {
                if n >= arity {
                    let at = ws(self.d.buf, self.d.pos);
                    let msg = format!("too many tuple elements (need {arity})");
                    return Err(Pending::new(ErrorKind::WrongLength, at, msg));
                }
                match tuple_element(picks, ops, n) {
                    Some(op) => self.value(prog, prog.op(op), op),
                    None => self.d.skip_element(),
                }
                .map_err(|e| e.in_index(n as usize))?;
                // `n < arity`: cannot wrap.
                n = n.wrapping_add(1);
                if !self.d.next(b']')? {
                    break;
                }
            }
        }
        if n < arity {
            let msg = format!("not enough tuple elements (need {arity})");
            // (At the `]` just read.)
            let at = self.d.pos.saturating_sub(1);
            return Err(Pending::new(ErrorKind::WrongLength, at, msg));
        }
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// The key at `pos` (after whitespace) and its colon.
    fn key(&mut self) -> Result<(Text<'a>, usize), Pending> {
        let at = ws(self.d.buf, self.d.pos);
        if self.d.buf.get(at) != Some(&b'"') {
            return Err(expected(self.d.buf, at, "a string key"));
        }
        let key = self.string(at)?;
        self.d.pos = super::scan::colon(self.d.buf, self.d.pos)?;
        Ok((key, at))
    }

    /// A map (`{` at `at`) of `elem`: every entry, or those `picks` picks.
    fn map(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        picks: Option<&Picks>,
        at: usize,
    ) -> Result<(), Pending> {
        self.d.pos = at.wrapping_add(1);
        self.d.c.enter(at)?;
        self.v.begin(Container::Map);
        let code = prog.op(elem);
        let mut n = 0u32;
        if self.d.first(b'}') {
            loop {
                self.d.check_len(n)?;
                let (key, _) = self.key()?;
                let name = resolve(&self.text, &key);
                let picked = picks.is_none_or(|p| p.has_key(name));
                if picked {
                    self.v.key(name);
                }
                let key = kept(&self.text, &key);
                match picked {
                    true => self.value(prog, code, elem),
                    false => self.d.skip_element(),
                }
                .map_err(|e| e.in_key(&key))?;
                // `n < max_container_len` (`check_len`): cannot wrap.
                n = n.wrapping_add(1);
                if !self.d.next(b'}')? {
                    break;
                }
            }
        }
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// An object (`{` at `at`) of the attributes `attrs`: those present in input order, then
    /// the missing ones as nulls; unknown keys refused, or stepped over (the drift option, a
    /// projection); duplicates refused.
    fn object(&mut self, prog: &'a Program, attrs: Span, at: usize) -> Result<(), Pending> {
        let table = AttrTable::of(prog, attrs);
        self.d.pos = at.wrapping_add(1);
        self.d.c.enter(at)?;
        self.v.begin(Container::Object);
        let base = self.present.len();
        self.present
            .resize(base.saturating_add(table.entries.len()), false);
        if self.d.first(b'}') {
            loop {
                let (j, key) = self.object_key(&table)?;
                let kat = key.0;
                match j {
                    Some(j) => {
                        let max = self.d.options.limits.max_string_len;
                        let len = table.name(j).len();
                        if len > max as usize {
                            return Err(string_limit(len, max, kat));
                        }
                        let slot = self.present.get_mut(base.wrapping_add(j));
                        if slot.as_deref() == Some(&true) {
                            return Err(duplicate_attribute(table.name(j), kat));
                        }
                        if let Some(slot) = slot {
                            *slot = true;
                        }
                        let (Some(entry), name) = (table.entries.get(j), table.name(j)) else {
                            return Err(crate::decode::common::internal(kat));
                        };
                        self.v.attr(name);
                        self.value(prog, entry.code, entry.op)
                            .map_err(|e| e.in_attr(name))?;
                    }
                    None => self.unknown_attr(&table, key)?,
                }
                if !self.d.next(b'}')? {
                    break;
                }
            }
        }
        // The attributes left out: null (go-cty's JSON rule).
        for j in 0..table.entries.len() {
            if self.present.get(base.wrapping_add(j)) != Some(&true) {
                self.v.attr(table.name(j));
                self.v.scalar(Value::Null);
            }
        }
        self.present.truncate(base);
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// An object's key and its colon, checked in the decoder's order (`object_key`): the
    /// attribute it names (its escapes decoded into [`Walk::text`]), or `None`; and the key's
    /// quote, its end and its scan flags (for [`Walk::unknown_attr`], so it is scanned once).
    fn object_key(
        &mut self,
        table: &AttrTable<'a>,
    ) -> Result<(Option<usize>, ScannedKey), Pending> {
        let buf: &'a [u8] = self.d.buf;
        let kat = ws(buf, self.d.pos);
        if buf.get(kat) != Some(&b'"') {
            return Err(expected(buf, kat, "a string key"));
        }
        let start = kat.wrapping_add(1);
        let (end, flags) = scan_string(buf, start, kat)?;
        let j = match flags & ESCAPED {
            0 => find_name(table.names, buf.get(start..end).unwrap_or_default()),
            _ => {
                unescape_into(buf, start, end, flags, &mut self.text)?;
                find_name(table.names, self.text.as_bytes())
            }
        };
        self.d.pos = super::scan::colon(buf, end.wrapping_add(1))?;
        Ok((j, (kat, end, flags)))
    }

    /// The value of a key (at `kat`, just read) that names no attribute: an error, or (the
    /// drift option, a projection) stepped over, in the decoder's order (`unknown_attr`).
    fn unknown_attr(
        &mut self,
        table: &AttrTable<'a>,
        (kat, end, flags): ScannedKey,
    ) -> Result<(), Pending> {
        let buf: &'a [u8] = self.d.buf;
        let start = kat.wrapping_add(1);
        let raw = buf.get(start..end).unwrap_or_default();
        let key: std::borrow::Cow<'a, str> = match flags & (ESCAPED | NON_ASCII) {
            0 => std::str::from_utf8(raw).unwrap_or_default().into(),
            f if f & ESCAPED != 0 => self.text.clone().into(),
            _ => utf8(raw, start)?.into(),
        };
        if !(self.d.options.skip_unknown_attributes || table.projected) {
            let msg = format!("unsupported attribute {key:?}");
            return Err(Pending::new(ErrorKind::UnknownAttribute, kat, msg));
        }
        let max = self.d.options.limits.max_string_len;
        if key.len() > max as usize {
            return Err(string_limit(key.len(), max, kat));
        }
        self.d.skip_element().map_err(|e| e.in_attr(&key))
    }

    /// A dynamic wrapper (`{` at `at`): its value under the type it writes, told as a
    /// [`Container::Dynamic`]; at a selection of `prog`, under that type's projection (or
    /// null, stepped over, when the type has none of the paths).
    fn dynamic(
        &mut self,
        prog: &'a Program,
        selection: Option<SelectionId>,
        at: usize,
    ) -> Result<(), Pending> {
        let (sub, end) = self.d.wrapper_header(at)?;
        self.d.c.enter(at)?;
        // A null value has no parts to select: told as it is.
        let whole = self.d.buf.get(ws(self.d.buf, self.d.pos)) == Some(&b'n');
        let max_types = self.d.options.limits.max_dynamic_types;
        let program = visit_program(self.d.root, prog, selection, sub, whole, max_types)
            .map_err(|(kind, msg)| Pending::new(kind, at, msg))?;
        // Selected inside: first walked under its own type telling nothing, so that its
        // faults are the decode's (which decodes it whole), then from its start again under
        // the projection (or told as null).
        let start = self.d.pos;
        if selection.is_some() && !whole {
            let mut silent = Walk {
                d: &mut *self.d,
                v: &mut Silent,
                text: String::new(),
                present: Vec::new(),
            };
            silent.value(sub, sub.op(sub.code.root), sub.code.root)?;
        }
        match program {
            Some(p) => {
                self.d.pos = start;
                self.v.begin(Container::Dynamic(p));
                self.value(p, p.op(p.code.root), p.code.root)?;
                self.v.end();
            }
            None => self.v.scalar(Value::Null),
        }
        self.d.c.leave();
        self.d.wrapper_end(end, at)
    }
}
