//! The MessagePack executor: runs a [`Program`] over borrowed MessagePack bytes in one forward
//! pass, recursing once per container under the depth cap, building [`Value`]s in a bumpalo
//! arena.
//!
//! Each container kind is one function with its loop state in locals; scalar children are
//! decoded inline in that loop (`items.rs`), and only a child container is a call. Object
//! keys are compared with the key expected after the last match (go-cty writes keys sorted, so
//! this almost always hits: one masked wide compare against the pre-encoded key) and the slots
//! are written in order; the first key out of order moves the object to a slower loop with a
//! binary search and a bitmap of the attributes seen. A projected program's objects, whose
//! keys are mostly ones it does not select, have a loop of their own (`projected.rs`). An
//! error is returned up the calls, and each container it passes adds its step to the value
//! path (cold code).

mod deferred;
mod items;
mod picks;
mod projected;
pub(crate) mod reader;
mod refine;
mod run;
mod skip;
mod visit;

use bumpalo::Bump;

use crate::bytes::is_ascii;
use crate::decode::common::{
    duplicate_attribute, find_name, internal, map_complete, missing_attribute, seq_complete,
    AttrTable, Counters, Pending, Seen,
};
use crate::decode::slots::Slots;
use crate::error::{DecodeError, ErrorKind};
use crate::program::{
    tuple_arity, tuple_element, DecodeOptions, ItemsId, Op, OpId, Picks, Program, Span,
};
use crate::value::{Object, Value};
use items::{eof, reserved_or, utf8};
use reader::{is_str_or_bin, marker_name, Reader, SkipError};
pub(crate) use visit::visit;

/// Arena bytes of a value slot and of a map entry.
pub(super) const VALUE: usize = std::mem::size_of::<Value>();
pub(super) const ENTRY: usize = std::mem::size_of::<(&str, Value)>();

/// Decodes exactly one value: trailing bytes are an error.
pub(crate) fn decode<'a>(
    program: &'a Program,
    input: &'a [u8],
    bump: &'a Bump,
    options: &DecodeOptions,
) -> Result<Value<'a>, DecodeError> {
    let mut d = Decoder::new(program, input, bump, options);
    let root = program.code.root;
    let value = d
        .value(program, program.op(root), root)
        .map_err(Pending::into_error)?;
    if d.r.remaining() > 0 {
        let msg = format!("{} bytes after the value", d.r.remaining());
        return Err(Pending::new(ErrorKind::TrailingBytes, d.r.pos, msg).into_error());
    }
    Ok(value)
}

/// [`crate::skip_msgpack`]: the reader's skip of one value, its error located.
pub(crate) fn skip(input: &[u8]) -> Result<usize, DecodeError> {
    let mut r = Reader::new(input);
    match r.skip_value() {
        Ok(()) => Ok(r.pos),
        Err(e) => Err(skip_error(e, 0).into_error()),
    }
}

/// The state of one decode: the cursor and what the limits count.
pub(super) struct Decoder<'a> {
    r: Reader<'a>,
    bump: &'a Bump,
    /// The program of the whole decode (its dynamic-type cache serves every wrapper).
    root: &'a Program,
    options: DecodeOptions,
    c: Counters,
    /// Unknown values decoded so far: a LIST/SET block holds an unknown (and skips the
    /// item-count check) when the count moved while it was decoded.
    unknowns: u64,
    /// Longest fixstr the inline string path takes: `min(31, max_string_len)`.
    fixstr_max: usize,
}

impl<'a> Decoder<'a> {
    fn new(program: &'a Program, input: &'a [u8], bump: &'a Bump, options: &DecodeOptions) -> Self {
        Decoder {
            r: Reader::new(input),
            bump,
            root: program,
            options: *options,
            c: Counters::new(program, &options.limits),
            unknowns: 0,
            fixstr_max: options.limits.max_string_len.min(31) as usize,
        }
    }

    /// A list or set of `elem` (header marker `m` at `at`, not yet consumed).
    #[inline(never)]
    pub(super) fn seq(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        items: ItemsId,
        set: bool,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let len = self.array_len(m, at, if set { "set" } else { "list" })?;
        self.c.charge(len, VALUE, at)?;
        let mut out = Slots::new(self.bump, len);
        self.c.enter(at)?;
        let unknowns_at_start = self.unknowns;
        let code = prog.op(elem);
        // Lists of scalars get a loop of their own, the element's decoding folded in.
        self.fill_seq(prog, code, elem, &mut out)?;
        self.c.leave();
        let out = out.finish(Value::Null);
        let check_items = self.options.check_item_counts && self.unknowns == unknowns_at_start;
        let dynamic = matches!(code, Op::Dynamic);
        if check_items || dynamic {
            seq_complete(out, prog.item_limits(items), check_items, dynamic, at)?;
        }
        Ok(if set {
            Value::Set(out)
        } else {
            Value::List(out)
        })
    }

    /// Decodes an element of `code` into each of the slots of `out` (none written yet).
    #[inline(always)]
    fn fill_seq(
        &mut self,
        prog: &'a Program,
        code: Op,
        elem: OpId,
        out: &mut Slots<'a, Value<'a>>,
    ) -> Result<(), Pending> {
        let len = out.unwritten();
        for i in 0..len {
            // SAFETY: `len` slots were unwritten; one push per iteration of `0..len`.
            self.value_with(prog, code, elem, |v| unsafe { out.push_unchecked(v) })
                .map_err(|e| e.in_index(i))?;
        }
        Ok(())
    }

    /// Decodes a key and a value of `code` into each of the slots of `out` (none written yet).
    #[inline(always)]
    fn fill_map(
        &mut self,
        prog: &'a Program,
        code: Op,
        elem: OpId,
        out: &mut Slots<'a, (&'a str, Value<'a>)>,
    ) -> Result<(), Pending> {
        let len = out.unwritten();
        for _ in 0..len {
            let key = self.map_key()?;
            // SAFETY: `len` slots were unwritten; one push per iteration of `0..len`.
            self.value_with(prog, code, elem, |v| unsafe {
                out.push_unchecked((key, v))
            })
            .map_err(|e| e.in_key(key))?;
        }
        Ok(())
    }

    /// A tuple of the element ops `elems`: every element, or (a pick's tuple, one op per
    /// pick) those `picks` picks, the others stepped over; its length is checked either way.
    #[inline(never)]
    pub(super) fn tuple(
        &mut self,
        prog: &'a Program,
        elems: Span,
        picks: Option<&Picks>,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let arity = tuple_arity(picks, elems);
        let len = self.array_len(m, at, "tuple")?;
        if len != arity {
            let msg = format!("a tuple of length {arity} is required ({len} given)");
            return Err(Pending::new(ErrorKind::WrongLength, at, msg));
        }
        self.c.charge(elems.len, VALUE, at)?;
        let mut out = Slots::new(self.bump, elems.len);
        self.c.enter(at)?;
        // (A span the compiler built; an impossible one reads as no elements, not a panic.)
        let ops = prog.code.tuple_elems.get(elems.range()).unwrap_or_default();
        for i in 0..len {
            match tuple_element(picks, ops, i) {
                Some(op) => self.value_with(prog, prog.op(op), op, |v| out.push(v)),
                None => self.skip_element(),
            }
            .map_err(|e| e.in_index(i as usize))?;
        }
        self.c.leave();
        Ok(Value::Tuple(out.finish(Value::Null)))
    }

    /// A map of `elem`.
    #[inline(never)]
    pub(super) fn map(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let len = self.map_len(m, at, "map")?;
        self.c.charge(len, ENTRY, at)?;
        let mut out = Slots::new(self.bump, len);
        self.c.enter(at)?;
        let code = prog.op(elem);
        self.fill_map(prog, code, elem, &mut out)?;
        self.c.leave();
        let out = out.finish(("", Value::Null));
        if matches!(code, Op::Dynamic) {
            map_complete(out, at)?;
        }
        Ok(Value::Map(out))
    }

    /// An object of op `op` whose attributes are `attrs`.
    #[inline(never)]
    pub(super) fn object(
        &mut self,
        prog: &'a Program,
        op: OpId,
        attrs: Span,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let len = self.map_len(m, at, "object")?;
        self.c.charge(attrs.len, VALUE, at)?;
        let mut out = Slots::new(self.bump, attrs.len);
        self.c.enter(at)?;
        let table = AttrTable::of(prog, attrs);
        if table.projected && !self.c.check_key_lengths {
            self.object_projected(prog, op, &table, &mut out, len, at)?;
            self.c.leave();
            return Ok(Value::Object(Object::from_slice(
                op,
                out.finish(Value::Null),
            )));
        }
        let mut i = 0usize;
        // Keys in order: key `i` is attribute `i`'s pre-encoded key, and goes to slot `i` (so
        // `i == out.written()` throughout). (Not when a name may exceed `max_string_len`: the
        // slow loop checks every key's length.)
        if !self.c.check_key_lengths {
            let in_order = (len as usize).min(table.entries.len());
            while i < in_order {
                let Some(entry) = table.entries.get(i) else {
                    break;
                };
                if !entry.matches(self.r.buf, self.r.pos) {
                    break;
                }
                // The key's bytes are at `pos`: `pos + key.len() <= buf.len()`.
                self.r.pos = self.r.pos.wrapping_add(entry.len());
                // SAFETY: `i` slots are written and `i < entries.len()`, which is the number
                // of slots (both are the span `attrs`, or `entries` is empty).
                self.value_with(prog, entry.code, entry.op, |v| unsafe {
                    out.push_unchecked(v)
                })
                .map_err(|e| e.in_attr(table.name(i)))?;
                i = i.wrapping_add(1);
            }
        }
        let i = i as u32;
        if i < len {
            self.object_unordered(prog, &table, &mut out, (i, len), at)?;
        } else if out.written() < table.entries.len() && !self.options.missing_attributes_null {
            return Err(missing_attribute(table.name(out.written()), at));
        }
        self.c.leave();
        Ok(Value::Object(Object::from_slice(
            op,
            out.finish(Value::Null),
        )))
    }

    /// The rest of an object once a key did not follow the last in order (keys `i..len` of
    /// the input remain): binary search, a bitmap of the attributes seen, unknown keys skipped
    /// or refused, duplicates refused, missing attributes refused or null.
    fn object_unordered(
        &mut self,
        prog: &'a Program,
        table: &AttrTable<'a>,
        out: &mut Slots<'a, Value<'a>>,
        (mut i, len): (u32, u32),
        at_object: usize,
    ) -> Result<(), Pending> {
        let n = table.entries.len();
        let mut next = out.written();
        let mut seen = Seen::new(self.bump, n, next);
        out.fill_rest(Value::Null);
        while i < len {
            i = i.wrapping_add(1);
            let at = self.r.pos;
            // A short ASCII key no attribute has (most keys of a projection's objects): key
            // and value stepped over here, without the general key path.
            if let Some((key, end)) = self.unknown_short_key(table, at) {
                self.r.pos = end;
                self.skip_unknown_value(|| key)?;
                continue;
            }
            let expected = table
                .entries
                .get(next)
                .filter(|_| !self.c.check_key_lengths);
            let j = match expected {
                Some(entry) if entry.matches(self.r.buf, at) => {
                    self.r.pos = at.wrapping_add(entry.len());
                    next
                }
                _ => match self.object_key(table, at)? {
                    Some(j) => j,
                    None => continue, // an unknown key, skipped with its value
                },
            };
            next = j.wrapping_add(1);
            self.attribute(prog, table, out, &mut seen, j, at)?;
        }
        self.all_present(table, &seen, at_object)
    }

    /// The value of attribute `j` (its key at `at` just read) into its slot, unless the
    /// object had it already.
    #[inline(always)]
    fn attribute(
        &mut self,
        prog: &'a Program,
        table: &AttrTable<'a>,
        out: &mut Slots<'a, Value<'a>>,
        seen: &mut Seen<'_>,
        j: usize,
        at: usize,
    ) -> Result<(), Pending> {
        if !seen.insert(j) {
            return Err(duplicate_attribute(table.name(j), at));
        }
        let Some(entry) = table.entries.get(j) else {
            return Err(internal(at));
        };
        let v = self
            .value(prog, entry.code, entry.op)
            .map_err(|e| e.in_attr(table.name(j)))?;
        out.set(j, v);
        Ok(())
    }

    /// Every attribute was `seen`, or the option reads a missing one as null.
    fn all_present(
        &self,
        table: &AttrTable<'a>,
        seen: &Seen<'_>,
        at_object: usize,
    ) -> Result<(), Pending> {
        if !self.options.missing_attributes_null {
            if let Some(j) = seen.first_missing(table.entries.len()) {
                return Err(missing_attribute(table.name(j), at_object));
            }
        }
        Ok(())
    }

    /// Reads an object key that is not the one expected: `Some(attribute index)`, or `None`
    /// when the key is unknown and its value was skipped (with the drift option).
    fn object_key(&mut self, table: &AttrTable<'a>, at: usize) -> Result<Option<usize>, Pending> {
        let m = self.r.peek().ok_or_else(|| eof(at))?;
        if !is_str_or_bin(m) {
            let msg = format!(
                "object keys must be strings, found msgpack {}",
                marker_name(m)
            );
            return Err(Pending::new(reserved_or(m, ErrorKind::InvalidKey), at, msg));
        }
        let key = self.str_bytes(m, at)?;
        if let Some(j) = find_name(table.names, key) {
            return Ok(Some(j));
        }
        let key = utf8(key, at)?;
        if !(self.options.skip_unknown_attributes || table.projected) {
            let msg = format!("unsupported attribute {key:?}");
            return Err(Pending::new(ErrorKind::UnknownAttribute, at, msg));
        }
        self.skip_unknown_value(|| key)?;
        Ok(None)
    }

    /// With the drift option (or in a projection), a fixstr key at `at` of at most
    /// `max_string_len` ASCII bytes that names no attribute: the key, and the position of its
    /// value. `None` for any other key (the general path reads it).
    #[inline(always)]
    fn unknown_short_key(&self, table: &AttrTable<'a>, at: usize) -> Option<(&'a str, usize)> {
        if !(self.options.skip_unknown_attributes || table.projected) {
            return None;
        }
        let buf = self.r.buf;
        let m = *buf.get(at)?;
        if !(0xa0..=0xbf).contains(&m) {
            return None;
        }
        let len = usize::from(m & 0x1f);
        let start = at.wrapping_add(1);
        let key = buf.get(start..start.wrapping_add(len))?;
        if len > self.options.limits.max_string_len as usize
            || !is_ascii(key)
            || find_name(table.names, key).is_some()
        {
            return None;
        }
        // SAFETY: ASCII, checked just above, is UTF-8.
        let key = unsafe { std::str::from_utf8_unchecked(key) };
        Some((key, start.wrapping_add(len)))
    }

    /// Steps over the value of an unknown attribute (checked as MessagePack, its strings
    /// UTF-8); an error in it names the attribute, `key()`.
    #[inline(always)]
    fn skip_unknown_value(&mut self, key: impl FnOnce() -> &'a str) -> Result<(), Pending> {
        let vat = self.r.pos;
        match self.r.skip_value() {
            Ok(()) => Ok(()),
            Err(e) => Err(skip_error(e, vat).in_attr(key())),
        }
    }
}

/// The error of a skip that started at `at`.
#[cold]
fn skip_error(e: SkipError, at: usize) -> Pending {
    match e {
        SkipError::Eof => eof(at),
        SkipError::Reserved(p) => {
            Pending::new(ErrorKind::Syntax, p, "reserved msgpack byte 0xc1".into())
        }
        SkipError::InvalidUtf8(p) => Pending::new(
            ErrorKind::InvalidUtf8,
            p,
            "string is not valid UTF-8".into(),
        ),
    }
}

/// The number (marker `m`) at `at` as the nearest `f64`, when it is one the decode reads
/// without its general path — a fixint, or a fixed-width int or float (not NaN, which the
/// decode rejects) with 8 bytes after its marker —, and the position after it. For the
/// Arrow row reader (`arrow/rows_msgpack.rs`), whose `Float64` columns hold numbers so.
#[cfg(feature = "arrow")]
#[inline(always)]
pub(crate) fn number_f64(buf: &[u8], at: usize, m: u8) -> Option<(f64, usize)> {
    let next = at.wrapping_add(1);
    let x = match m {
        0x00..=0x7f => return Some((f64::from(m), next)),
        0xe0..=0xff => return Some((f64::from(m as i8), next)),
        _ => items::fixed_width_number(buf, at, m)?.as_f64()?,
    };
    Some((x, next.wrapping_add(items::width(m))))
}

#[cfg(test)]
mod tests {
    /// Every value case of `test_values` through the MessagePack executor (and items.rs, the program's key matching, the dynamic-type cache); run under Miri by `.ci/miri`.
    #[test]
    fn value_cases() {
        crate::test_values::check_all();
    }

    /// Unknown keys stepped over by the unordered-object loop's short-key path (ASCII keys
    /// as `str` unchecked) and by the general path (a non-ASCII key, a str8 value): with the
    /// drift option and in a projection; run under Miri by `.ci/miri`.
    #[test]
    fn unknown_keys_stepped_over() {
        use crate::schema::Selection;
        use crate::{DecodeOptions, Program};
        let full = Program::from_type_json(r#"["object",{"a":"number","b":"string"}]"#).unwrap();
        let projected = full.select(&Selection::parse(["a"]).unwrap()).unwrap();
        // {"zz": "x", "a": 1, "é": [1, "é"], "b": "long…" (str8)}
        let mut input = vec![0x84, 0xa2, b'z', b'z', 0xa1, b'x', 0xa1, b'a', 0x01];
        input.extend_from_slice(&[0xa2, 0xc3, 0xa9, 0x92, 0x01, 0xa2, 0xc3, 0xa9]);
        input.extend_from_slice(&[0xa1, b'b', 0xd9, 40]);
        input.extend_from_slice(&[b'y'; 40]);
        let bump = bumpalo::Bump::new();
        let drift = DecodeOptions::default().with_skip_unknown_attributes(true);
        let v = full.decode_msgpack_with(&input, &bump, &drift).unwrap();
        assert_eq!(v.attr(&full, "a").and_then(|v| v.as_i64()), Some(1));
        assert_eq!(
            v.attr(&full, "b").and_then(|v| v.as_str()).map(str::len),
            Some(40)
        );
        let v = projected.decode_msgpack(&input, &bump).unwrap();
        assert_eq!(crate::dump::to_string(&projected, v).unwrap(), r#"{"a":1}"#);
        // Without the option, the full program refuses the first unknown key.
        let e = full.decode_msgpack(&input, &bump).unwrap_err();
        assert_eq!(
            (e.kind(), e.message()),
            (
                crate::ErrorKind::UnknownAttribute,
                r#"unsupported attribute "zz""#
            )
        );
    }
}
