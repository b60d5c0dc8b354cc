//! The JSON executor: runs a [`Program`] over borrowed JSON bytes in one forward pass,
//! recursing once per container under the depth cap, building [`Value`]s in a bumpalo arena.
//! The same shape as the MessagePack executor (`msgpack.rs`): one function per container kind
//! with its loop state in locals, scalars decoded inline (`items.rs`), an error's value
//! path added by each container it unwinds through.
//!
//! JSON gives no element counts, so the elements of open lists, sets and maps are collected
//! in two scratch vectors in the arena (each open container owns the top of its vector) and
//! copied into one arena slice when the container closes. Tuples and objects know their size
//! from the type and get their slots at the opening bracket. Object keys are compared, quoted
//! and with their colon, with the key expected after the last match (go-cty writes keys sorted
//! and compact), so an expected key is never scanned; any other key is read in full and looked
//! up; a projection's objects compare keys with the whole key order of the type they were
//! projected from and step over the values not selected (`key_order.rs`). Dynamic wrappers
//! live in `dynamic.rs`.
//!
//! Semantics follow go-cty's `cty/json` with the design's §4 (the shared checkout's `DESIGN.md`): missing attributes are null,
//! unknown attributes and duplicate keys are errors, the go-cty coercions (number from a
//! string, bool from `"true"`/`"false"`/`"1"`/`"0"`, string from a number or bool) apply, and
//! anything that is not JSON (trailing bytes included) is rejected.

mod counted;
mod dynamic;
mod extent;
mod items;
mod key_order;
mod number;
pub(crate) mod pairs;
mod picks;
pub(crate) mod plain;
mod scan;
mod simd;
mod skip;
mod string;
mod token_skip;
pub(crate) mod tokens;
mod visit;

use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;

use crate::decode::common::{
    duplicate_attribute, internal, map_complete, seq_complete, AttrTable, Counters, Pending, Seen,
};
use crate::decode::slots::Slots;
use crate::error::{DecodeError, ErrorKind};
use crate::program::key::AttrEntry;
use crate::program::{DecodeOptions, ItemsId, Op, OpId, Program, Span};
use crate::value::{Object, Value};
use dynamic::TypeMemo;
use extent::Memo;
use scan::{bad_separator, ws};
pub(crate) use simd::{Isa, Level};
pub(crate) use visit::visit;

/// Arena bytes of a value slot and of a map entry.
const VALUE: usize = std::mem::size_of::<Value>();
const ENTRY: usize = std::mem::size_of::<(&str, Value)>();

/// Decodes exactly one JSON value (whitespace around it is allowed; other trailing bytes are
/// an error).
pub(crate) fn decode<'a>(
    program: &'a Program,
    input: &'a [u8],
    bump: &'a Bump,
    options: &DecodeOptions,
) -> Result<Value<'a>, DecodeError> {
    let (value, end) = decode_prefix(program, input, bump, options)?;
    let end = ws(input, end);
    if end < input.len() {
        let msg = format!("{} bytes after the value", input.len().saturating_sub(end));
        return Err(Pending::new(ErrorKind::TrailingBytes, end, msg).into_error());
    }
    Ok(value)
}

/// Decodes the JSON value at the start of `input` (whitespace allowed before it); returns it
/// and the position just after it. The bytes after it are not read.
pub(crate) fn decode_prefix<'a>(
    program: &'a Program,
    input: &'a [u8],
    bump: &'a Bump,
    options: &DecodeOptions,
) -> Result<(Value<'a>, usize), DecodeError> {
    let mut d = Decoder::new(program, input, bump, options);
    let root = program.code.root;
    let value = d
        .value(program, program.op(root), root)
        .map_err(Pending::into_error)?;
    Ok((value, d.pos))
}

/// The state of one decode.
pub(super) struct Decoder<'a> {
    buf: &'a [u8],
    /// The read position.
    pos: usize,
    bump: &'a Bump,
    /// The program of the whole decode (its dynamic-type cache serves every wrapper).
    root: &'a Program,
    options: DecodeOptions,
    c: Counters,
    /// Elements of the open lists and sets, innermost last. (This scratch space lives in the
    /// arena: warm decodes make no heap allocation.)
    seq: BumpVec<'a, Value<'a>>,
    /// Entries of the open maps, innermost last.
    map: BumpVec<'a, (&'a str, Value<'a>)>,
    /// How each open wrapper of a chain of `"dynamic"` wrappers ends, and where it began.
    dyns: BumpVec<'a, (dynamic::DynEnd, usize)>,
    /// The validating skip's container stack, reused.
    skip_stack: BumpVec<'a, bool>,
    /// Extents of the containers in skipped dynamic values.
    memo: Memo<'a>,
    /// The dynamic types of this decode, before the program's shared cache.
    types: TypeMemo<'a>,
}

impl<'a> Decoder<'a> {
    /// A decode of `input` under `program`, at its start.
    fn new(
        program: &'a Program,
        input: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Decoder<'a> {
        Decoder {
            buf: input,
            pos: 0,
            bump,
            root: program,
            options: *options,
            c: Counters::new(program, &options.limits),
            seq: BumpVec::new_in(bump),
            map: BumpVec::new_in(bump),
            dyns: BumpVec::new_in(bump),
            skip_stack: BumpVec::new_in(bump),
            memo: Memo::new_in(bump),
            types: TypeMemo::new(),
        }
    }

    /// Just after an opening bracket: true if an element follows, false (the `close` consumed)
    /// for an empty container. Leaves `pos` at the element.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn first(&mut self, close: u8) -> bool {
        let at = ws(self.buf, self.pos);
        if self.buf.get(at) == Some(&close) {
            // (Past the byte just read: see `scan.rs` on positions.)
            self.pos = at.wrapping_add(1);
            return false;
        }
        self.pos = at;
        true
    }

    /// After an element: `,` (true: another element follows) or `close` (false: the container
    /// ended; both consumed). Anything else is an error at the container's path.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next(&mut self, close: u8) -> Result<bool, Pending> {
        // go-cty's compact form: the separator right after the value.
        let mut at = self.pos;
        let mut c = self.buf.get(at).copied();
        if c.is_some_and(|c| c <= b' ') {
            at = ws(self.buf, at);
            c = self.buf.get(at).copied();
        }
        match c {
            Some(b',') => {
                self.pos = at.wrapping_add(1);
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos = at.wrapping_add(1);
                Ok(false)
            }
            _ => Err(bad_separator(self.buf, at, close)),
        }
    }

    /// The element count limit, before element `n` (at `pos`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_len(&self, n: u32) -> Result<(), Pending> {
        let max = self.options.limits.max_container_len;
        if n >= max {
            return Err(too_many_elements(max, self.pos));
        }
        Ok(())
    }

    /// A list or set of `elem` whose `[` is at `at`.
    #[inline(never)]
    pub(super) fn seq(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        items: ItemsId,
        set: bool,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        self.pos = at.wrapping_add(1);
        self.c.enter(at)?;
        let code = prog.op(elem);
        let out = if !self.first(b']') {
            &[]
        } else {
            // A list of numbers or bools is counted first (its commas, 32 bytes at a time) and
            // filled in place; anything else is collected in the scratch vector.
            let counted = match code {
                Op::Number | Op::Bool => scan::scalar_list_len(self.buf, self.pos)
                    .filter(|&n| n <= self.options.limits.max_container_len),
                _ => None,
            };
            match counted {
                Some(n) => self.counted_seq(prog, code, elem, n, at)?,
                None => self.collected_seq(prog, code, elem, at)?,
            }
        };
        self.c.leave();
        let check_items = self.options.check_item_counts;
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

    /// The elements of the list at `at` (not empty; `pos` at its first element), collected
    /// in the scratch vector, then moved into the arena.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn collected_seq(
        &mut self,
        prog: &'a Program,
        code: Op,
        elem: OpId,
        at: usize,
    ) -> Result<&'a [Value<'a>], Pending> {
        let start = self.seq.len();
        let mut n = 0u32;
        loop {
            self.check_len(n)?;
            self.value_with(prog, code, elem, |d, v| d.seq.push(v))
                .map_err(|e| e.in_index(n as usize))?;
            // `n < max_container_len` (`check_len`): cannot wrap.
            n = n.wrapping_add(1);
            if !self.next(b']')? {
                break;
            }
        }
        self.seal_seq(start, n, at)
    }

    /// The `n` elements (counted by `scalar_list_len`, at most `max_container_len`) of the
    /// list at `at`, written straight into their arena slots. Charged after they are read,
    /// as [`collected_seq`](Decoder::collected_seq) charges, so errors come in the same order.
    #[inline(never)]
    fn counted_seq(
        &mut self,
        prog: &'a Program,
        code: Op,
        elem: OpId,
        n: u32,
        at: usize,
    ) -> Result<&'a [Value<'a>], Pending> {
        let mut out = Slots::new(self.bump, n);
        if matches!(code, Op::Number) {
            self.number_elements(prog, elem, &mut out)?;
        } else {
            loop {
                let i = out.written();
                self.value_with(prog, code, elem, |_, v| out.push(v))
                    .map_err(|e| e.in_index(i))?;
                if !self.next(b']')? {
                    break;
                }
            }
        }
        if out.written() != n as usize {
            // Numbers, bools and nulls hold no comma: a list that parsed has one element per
            // comma, plus one.
            return Err(internal(at));
        }
        self.c.charge(n, VALUE, at)?;
        Ok(out.finish(Value::Null))
    }

    /// The `n` elements of the list at `at`, from `start` in the scratch vector, charged and
    /// moved into the arena. (Out of line in debug builds: a small recursion frame.)
    #[cfg_attr(debug_assertions, inline(never))]
    fn seal_seq(&mut self, start: usize, n: u32, at: usize) -> Result<&'a [Value<'a>], Pending> {
        if n == 0 {
            return Ok(&[]);
        }
        self.c.charge(n, VALUE, at)?;
        let out = self
            .bump
            .alloc_slice_copy(self.seq.get(start..).unwrap_or_default());
        self.seq.truncate(start);
        Ok(out)
    }

    /// The `n` entries of the map at `at`, from `start` in the scratch vector, charged and
    /// moved into the arena.
    #[cfg_attr(debug_assertions, inline(never))]
    fn seal_map(
        &mut self,
        start: usize,
        n: u32,
        at: usize,
    ) -> Result<&'a [(&'a str, Value<'a>)], Pending> {
        if n == 0 {
            return Ok(&[]);
        }
        self.c.charge(n, ENTRY, at)?;
        let out = self
            .bump
            .alloc_slice_copy(self.map.get(start..).unwrap_or_default());
        self.map.truncate(start);
        Ok(out)
    }

    /// A map of `elem` whose `{` is at `at`.
    #[inline(never)]
    pub(super) fn map(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        self.pos = at.wrapping_add(1);
        self.c.enter(at)?;
        let code = prog.op(elem);
        let start = self.map.len();
        let mut n = 0u32;
        if self.first(b'}') {
            loop {
                self.check_len(n)?;
                let key = self.map_key()?;
                self.value_with(prog, code, elem, |d, v| d.map.push((key, v)))
                    .map_err(|e| e.in_key(key))?;
                // `n < max_container_len` (`check_len`): cannot wrap.
                n = n.wrapping_add(1);
                if !self.next(b'}')? {
                    break;
                }
            }
        }
        let out = self.seal_map(start, n, at)?;
        self.c.leave();
        if matches!(code, Op::Dynamic) {
            map_complete(out, at)?;
        }
        Ok(Value::Map(out))
    }

    /// An object of op `op` (attributes `attrs`) whose `{` is at `at`. Attributes missing
    /// from the input are null (go-cty's JSON rule).
    #[inline(never)]
    pub(super) fn object(
        &mut self,
        prog: &'a Program,
        op: OpId,
        attrs: Span,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        self.pos = at.wrapping_add(1);
        self.c.charge(attrs.len, VALUE, at)?;
        let mut out = Slots::new(self.bump, attrs.len);
        self.c.enter(at)?;
        let table = AttrTable::of(prog, attrs);
        let mut keys = 0u32;
        let mut more = self.first(b'}');
        // A projection's object: keys compared with its type's whole key order
        // (`key_order.rs`).
        let mut in_order = !self.c.check_key_lengths;
        if prog.code.projected && in_order && more {
            if let Some((m, k)) = self.key_order_walk(prog, op, &mut out)? {
                (more, keys, in_order) = (m, k, false);
            }
        }
        // Keys in order, as go-cty writes them: key `i` of the input is the expected attribute
        // `i`, compared quoted with its colon, and goes to slot `i`.
        // (Not when a name may exceed `max_string_len`: the slow path checks every length.)
        if in_order {
            while more {
                let i = out.written();
                let Some(entry) = table.entries.get(i) else {
                    break;
                };
                let Some(value_at) = entry
                    .match_json_compact(self.buf, self.pos)
                    .or_else(|| self.indented_key(entry))
                else {
                    break;
                };
                // `keys <= i < entries.len()`, a `u32`: cannot wrap.
                keys = keys.wrapping_add(1);
                self.pos = value_at;
                // SAFETY: `i` slots are written and `i < entries.len()`, the number of slots
                // (both are the span `attrs`, or `entries` is empty).
                self.value_with(prog, entry.code, entry.op, |_, v| unsafe {
                    out.push_unchecked(v)
                })
                .map_err(|e| e.in_attr(table.name(i)))?;
                more = self.next(b'}')?;
            }
        }
        if more {
            self.object_rest(prog, &table, &mut out, keys)?;
        }
        self.c.leave();
        Ok(Value::Object(Object::from_slice(
            op,
            out.finish(Value::Null),
        )))
    }

    /// [`Decoder::object`]'s keys after the first that is not the next attribute quoted with
    /// its colon, up to the object's end. (Out of line: it keeps the recursive `object`
    /// small.)
    #[inline(never)]
    fn object_rest(
        &mut self,
        prog: &'a Program,
        table: &AttrTable<'a>,
        out: &mut Slots<'a, Value<'a>>,
        mut keys: u32,
    ) -> Result<(), Pending> {
        let mut more = true;
        // Set once an object leaves attributes out (or goes out of order): the attributes
        // present.
        let mut seen: Option<Seen<'a>> = None;
        // In order still, but with whitespace before a colon, or with a few attributes left
        // out (a state's schema newer than the state, [`key_after_gap`]).
        while more && !self.c.check_key_lengths {
            let i = out.written();
            let at = ws(self.buf, self.pos);
            let Some((j, entry, value_at)) = key_after_gap(table, i, self.buf, at) else {
                self.pos = at;
                break;
            };
            if j > i || seen.is_some() {
                skip_to(self.bump, table.entries.len(), out, &mut seen, j);
            }
            // `keys <= i <= j < entries.len()`, a `u32`: cannot wrap.
            keys = keys.wrapping_add(1);
            self.pos = value_at;
            // SAFETY: `j` slots are written and `j < entries.len()`, the number of slots
            // (both are the span `attrs`, or `entries` is empty).
            self.value_with(prog, entry.code, entry.op, |_, v| unsafe {
                out.push_unchecked(v)
            })
            .map_err(|e| e.in_attr(table.name(j)))?;
            more = self.next(b'}')?;
        }
        // The loop above may also end because a dynamic value's program turned on the key
        // length checks: after a gap, the slots not yet written must be null before
        // `object_entry` writes by index (it would drop values written to unfilled slots).
        if seen.is_some() {
            out.fill_rest(Value::Null);
        }
        // Any other key, and every key after it: read in full and looked up; after the first
        // key out of order, every slot is filled with null and a bitmap marks those set.
        while more {
            // A key count fits a `u32`, as a MessagePack map's does.
            if keys == u32::MAX {
                return Err(too_many_keys(self.pos));
            }
            keys = keys.wrapping_add(1);
            self.object_entry(prog, table, out, &mut seen)?;
            more = self.next(b'}')?;
        }
        Ok(())
    }

    /// The expected key `entry` after whitespace (an indented document's): the position
    /// after its colon; `pos` moves past the whitespace either way.
    #[inline(never)]
    fn indented_key(&mut self, entry: &AttrEntry) -> Option<usize> {
        let at = ws(self.buf, self.pos);
        if at == self.pos {
            return None;
        }
        self.pos = at;
        entry.match_json_compact(self.buf, at)
    }

    /// An object entry whose key is not the expected one in compact form: read the key in
    /// full, then its value, in order or not.
    fn object_entry(
        &mut self,
        prog: &'a Program,
        table: &AttrTable<'a>,
        out: &mut Slots<'a, Value<'a>>,
        seen: &mut Option<Seen<'a>>,
    ) -> Result<(), Pending> {
        let next = match seen {
            None => out.written(),
            Some(_) => usize::MAX,
        };
        let at = ws(self.buf, self.pos);
        let Some(j) = self.object_key(table, next, at)? else {
            return Ok(()); // an unknown key, skipped with its value
        };
        let Some(entry) = table.entries.get(j) else {
            return Err(crate::decode::common::internal(at));
        };
        if seen.is_none() && j == out.written() {
            return self
                .value_with(prog, entry.code, entry.op, |_, v| out.push(v))
                .map_err(|e| e.in_attr(table.name(j)));
        }
        let seen = match seen {
            Some(s) => s,
            None => {
                let first = out.written();
                out.fill_rest(Value::Null);
                seen.insert(Seen::new(self.bump, table.entries.len(), first))
            }
        };
        if !seen.insert(j) {
            return Err(duplicate_attribute(table.name(j), at));
        }
        self.value_with(prog, entry.code, entry.op, |_, v| out.set(j, v))
            .map_err(|e| e.in_attr(table.name(j)))
    }
}

/// The key at `at` when it is not the expected attribute `i` in compact form: attribute `i`
/// with whitespace before its colon, or one of the few attributes after it, in order (a
/// state's schema newer than the state leaves some out): its index, entry and value position.
#[inline(never)]
fn key_after_gap<'t>(
    table: &'t AttrTable<'_>,
    i: usize,
    buf: &[u8],
    at: usize,
) -> Option<(usize, &'t crate::program::key::AttrEntry, usize)> {
    const LOOKAHEAD: usize = 8;
    let from = table.entries.get(i..)?;
    from.iter()
        .take(LOOKAHEAD.wrapping_add(1))
        .enumerate()
        .find_map(|(k, e)| Some((i.wrapping_add(k), e, e.match_json(buf, at)?)))
}

/// Attribute `j` comes next in order, after attributes the input left out (from the first
/// not written): those are null, and `seen` (made at the first gap) marks the attributes
/// present, in case a key comes out of order later. (Out of line: it keeps the recursive
/// `object`'s frame small.)
#[inline(never)]
fn skip_to<'a>(
    bump: &'a Bump,
    n: usize,
    out: &mut Slots<'a, Value<'a>>,
    seen: &mut Option<Seen<'a>>,
    j: usize,
) {
    let seen = seen.get_or_insert_with(|| Seen::new(bump, n, out.written()));
    while out.written() < j {
        out.push(Value::Null);
    }
    seen.insert(j);
}

/// The element count limit (before an element at `at`).
#[cold]
#[inline(never)]
fn too_many_elements(max: u32, at: usize) -> Pending {
    let msg = format!("more than max_container_len ({max}) elements");
    Pending::new(ErrorKind::Limit, at, msg)
}

/// An object with more keys than a `u32` counts (over 4 × 10⁹: tens of gigabytes).
#[cold]
#[inline(never)]
fn too_many_keys(at: usize) -> Pending {
    let msg = format!("more than {} keys in one object", u32::MAX);
    Pending::new(ErrorKind::Limit, at, msg)
}

#[cfg(test)]
mod tests {
    /// Every value case of `test_values` through the JSON executor (and items.rs, string.rs, simd.rs, tokens.rs, the dynamic-type cache); run under Miri by `.ci/miri`.
    #[test]
    fn value_cases() {
        crate::test_values::check_all();
    }
}
