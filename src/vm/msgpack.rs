//! The MessagePack executor: runs a [`Program`] over borrowed MessagePack bytes in one forward
//! pass, recursing once per container under the depth cap, building [`Value`]s in a bumpalo
//! arena.
//!
//! Each container kind is one function with its loop state in locals; scalar children are
//! decoded inline in that loop (`mp_items.rs`), and only a child container is a call. Object
//! keys are compared with the key expected after the last match (go-cty writes keys sorted, so
//! this almost always hits: one masked wide compare against the pre-encoded key) and the slots
//! are written in order; the first key out of order moves the object to a slower loop with a
//! binary search and a bitmap of the attributes seen. An error is returned up the calls, and
//! each container it passes adds its step to the value path (cold code).

use bumpalo::Bump;

use super::frame::{bit_of, check_consistent, internal, item_count_message, Pending};
use super::mp_items::{eof, reserved_or, utf8};
use super::mp_reader::{is_str_or_bin, marker_name, Reader, SkipError};
use super::slots::Slots;
use crate::error::{DecodeError, ErrorKind};
use crate::key::AttrEntry;
use crate::limits::MAX_DEPTH;
use crate::program::{DecodeOptions, ItemLimits, Op, OpId, Program, Span};
use crate::value::Value;

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
    let root = program.root;
    let value = d
        .value(program, program.op(root), root)
        .map_err(Pending::into_error)?;
    if d.r.remaining() > 0 {
        let msg = format!("{} bytes after the value", d.r.remaining());
        return Err(Pending::new(ErrorKind::TrailingBytes, d.r.pos, msg).into_error());
    }
    Ok(value)
}

/// The state of one decode: the cursor and what the limits count.
pub(super) struct Decoder<'a> {
    pub(super) r: Reader<'a>,
    pub(super) bump: &'a Bump,
    /// The program of the whole decode (its dynamic-type cache serves every wrapper).
    pub(super) root: &'a Program,
    pub(super) options: DecodeOptions,
    /// Containers (and dynamic wrappers) that may still open inside the current one:
    /// `min(max_depth, MAX_DEPTH)` at the start, as each one is a call.
    depth_left: u32,
    /// Levels `max_depth` allows beyond [`MAX_DEPTH`]: only a chain of `"dynamic"` wrappers,
    /// followed in a loop without calls, may use them.
    depth_beyond_cap: u32,
    /// Unknown values decoded so far: a LIST/SET block holds an unknown (and skips the
    /// item-count check) when the count moved while it was decoded.
    pub(super) unknowns: u64,
    /// Values and container arena bytes allocated so far (`Limits::max_values`,
    /// `Limits::max_arena_bytes`).
    values: u64,
    arena_bytes: u64,
    /// True once a program of this decode has an attribute name longer than
    /// `max_string_len`: only then does a key that names an attribute need its length checked
    /// (and the in-order fast path, which does not read the key's length, is not taken).
    pub(super) check_key_lengths: bool,
    /// Open dynamic wrappers whose type holds `dynamic`: only the outermost reads through
    /// (`read_through.rs`), once.
    pub(super) open_read_through: u32,
    /// Longest fixstr the inline string path takes: `min(31, max_string_len)`.
    pub(super) fixstr_max: usize,
}

impl<'a> Decoder<'a> {
    fn new(program: &'a Program, input: &'a [u8], bump: &'a Bump, options: &DecodeOptions) -> Self {
        Decoder {
            r: Reader::new(input),
            bump,
            root: program,
            options: *options,
            depth_left: options.limits.max_depth.min(MAX_DEPTH),
            depth_beyond_cap: options.limits.max_depth.saturating_sub(MAX_DEPTH),
            unknowns: 0,
            values: 0,
            arena_bytes: 0,
            check_key_lengths: program.longest_attr_name > options.limits.max_string_len,
            open_read_through: 0,
            fixstr_max: options.limits.max_string_len.min(31) as usize,
        }
    }

    /// One level deeper, by a call (a container or wrapper whose header is at `at` opens).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn enter(&mut self, at: usize) -> Result<(), Pending> {
        if self.depth_left == 0 {
            return Err(self.too_deep(at));
        }
        self.depth_left = self.depth_left.wrapping_sub(1);
        Ok(())
    }

    /// One level back up.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn leave(&mut self) {
        self.depth_left = self.depth_left.wrapping_add(1);
    }

    /// One level deeper without a call (a wrapper of type `"dynamic"` in a chain): taken from
    /// the levels `max_depth` allows beyond [`MAX_DEPTH`] first, so that it costs the calls
    /// below it nothing while there are such levels. Returns whether it took one of those.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn enter_chained(&mut self, at: usize) -> Result<bool, Pending> {
        if self.depth_beyond_cap > 0 {
            self.depth_beyond_cap = self.depth_beyond_cap.wrapping_sub(1);
            return Ok(true);
        }
        self.enter(at)?;
        Ok(false)
    }

    /// Chained levels back up: `beyond` of them taken beyond the cap, `within` within it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn leave_chained(&mut self, beyond: u32, within: u32) {
        self.depth_beyond_cap = self.depth_beyond_cap.wrapping_add(beyond);
        self.depth_left = self.depth_left.wrapping_add(within);
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self, at: usize) -> Pending {
        let max = self.options.limits.max_depth;
        let msg = if max <= MAX_DEPTH {
            format!("nesting deeper than max_depth ({max})")
        } else {
            format!("nesting deeper than MAX_DEPTH ({MAX_DEPTH}), the executors' recursion cap")
        };
        Pending::new(ErrorKind::Limit, at, msg)
    }

    /// Charges a container of `n` values of `size` bytes each against `max_values` and
    /// `max_arena_bytes`, before it is allocated.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn charge(&mut self, n: u32, size: usize, at: usize) -> Result<(), Pending> {
        // No overflow: `n × size` is below 2³² × 2⁶, and every charge but the last was
        // allocated, so the sums stay below the address space plus one charge.
        self.values = self.values.wrapping_add(n as u64);
        let bytes = (n as u64).wrapping_mul(size as u64);
        self.arena_bytes = self.arena_bytes.wrapping_add(bytes);
        let limits = &self.options.limits;
        if self.values > limits.max_values || self.arena_bytes > limits.max_arena_bytes {
            return Err(self.over_budget(at));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn over_budget(&self, at: usize) -> Pending {
        let limits = &self.options.limits;
        let msg = if self.values > limits.max_values {
            format!("more than max_values ({}) values", limits.max_values)
        } else {
            format!(
                "more than max_arena_bytes ({}) bytes of containers",
                limits.max_arena_bytes
            )
        };
        Pending::new(ErrorKind::Limit, at, msg)
    }

    /// A list or set of `elem` (header marker `m` at `at`, not yet consumed).
    #[inline(never)]
    pub(super) fn seq(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        items: ItemLimits,
        set: bool,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let len = self.array_len(m, at, if set { "set" } else { "list" })?;
        self.charge(len, VALUE, at)?;
        let mut out = Slots::new(self.bump, len);
        self.enter(at)?;
        let unknowns_at_start = self.unknowns;
        let code = prog.op(elem);
        // Lists of scalars get a loop of their own, the element's decoding folded in.
        self.fill_seq(prog, code, elem, &mut out)?;
        self.leave();
        let out = out.finish(Value::Null);
        if self.options.check_item_counts && !items.is_none() && self.unknowns == unknowns_at_start
        {
            let n = out.len() as u64;
            if n < items.min || (items.max > 0 && n > items.max) {
                let msg = item_count_message(n, items);
                return Err(Pending::new(ErrorKind::ItemCount, at, msg));
            }
        }
        if matches!(code, Op::Dynamic) {
            check_consistent(out.iter(), at)?;
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

    /// A tuple of the element ops `elems`.
    #[inline(never)]
    pub(super) fn tuple(
        &mut self,
        prog: &'a Program,
        elems: Span,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let len = self.array_len(m, at, "tuple")?;
        if len != elems.len {
            let msg = format!("a tuple of length {} is required ({len} given)", elems.len);
            return Err(Pending::new(ErrorKind::WrongLength, at, msg));
        }
        self.charge(len, VALUE, at)?;
        let mut out = Slots::new(self.bump, len);
        self.enter(at)?;
        // (A span the compiler built; an impossible one reads as no elements, not a panic.)
        let ops = prog.tuple_elems.get(elems.range()).unwrap_or_default();
        for (i, &op) in ops.iter().enumerate() {
            self.value_with(prog, prog.op(op), op, |v| out.push(v))
                .map_err(|e| e.in_index(i))?;
        }
        self.leave();
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
        self.charge(len, ENTRY, at)?;
        let mut out = Slots::new(self.bump, len);
        self.enter(at)?;
        let code = prog.op(elem);
        self.fill_map(prog, code, elem, &mut out)?;
        self.leave();
        let out = out.finish(("", Value::Null));
        if matches!(code, Op::Dynamic) {
            check_consistent(out.iter().map(|(_, v)| v), at)?;
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
        self.charge(attrs.len, VALUE, at)?;
        let mut out = Slots::new(self.bump, attrs.len);
        self.enter(at)?;
        let table = AttrTable::of(prog, attrs);
        let mut i = 0usize;
        // Keys in order: key `i` is attribute `i`'s pre-encoded key, and goes to slot `i` (so
        // `i == out.written()` throughout). (Not when a name may exceed `max_string_len`: the
        // slow loop checks every key's length.)
        if !self.check_key_lengths {
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
        self.leave();
        Ok(Value::Object {
            op,
            attrs: out.finish(Value::Null),
        })
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
        let seen = self.bump.alloc_slice_fill_copy(n.div_ceil(64), 0u64);
        for j in 0..next {
            if let Some(word) = seen.get_mut(j / 64) {
                *word |= bit_of(j as u32);
            }
        }
        out.fill_rest(Value::Null);
        while i < len {
            i = i.wrapping_add(1);
            let at = self.r.pos;
            let expected = table.entries.get(next).filter(|_| !self.check_key_lengths);
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
            let Some(word) = seen.get_mut(j / 64) else {
                return Err(internal(at));
            };
            if *word & bit_of(j as u32) != 0 {
                let msg = format!("duplicate attribute {:?}", table.name(j));
                return Err(Pending::new(ErrorKind::DuplicateKey, at, msg).in_attr(table.name(j)));
            }
            *word |= bit_of(j as u32);
            next = j.wrapping_add(1);
            let Some(entry) = table.entries.get(j) else {
                return Err(internal(at));
            };
            let v = self
                .value(prog, entry.code, entry.op)
                .map_err(|e| e.in_attr(table.name(j)))?;
            out.set(j, v);
        }
        if !self.options.missing_attributes_null {
            let missing =
                (0..n).find(|&j| seen.get(j / 64).is_none_or(|w| w & bit_of(j as u32) == 0));
            if let Some(j) = missing {
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
        if let Ok(j) = table.names.binary_search_by(|n| n.as_bytes().cmp(key)) {
            return Ok(Some(j));
        }
        let key = utf8(key, at)?;
        if !self.options.skip_unknown_attributes {
            let msg = format!("unsupported attribute {key:?}");
            return Err(Pending::new(ErrorKind::UnknownAttribute, at, msg));
        }
        let vat = self.r.pos;
        match self.r.skip_value() {
            Ok(()) => Ok(None),
            Err(SkipError::Eof) => Err(eof(vat).in_attr(key)),
            Err(SkipError::Reserved(p)) => {
                Err(
                    Pending::new(ErrorKind::Syntax, p, "reserved msgpack byte 0xc1".into())
                        .in_attr(key),
                )
            }
        }
    }
}

/// An object op's dispatch entries and names, looked up once per object.
pub(super) struct AttrTable<'a> {
    pub(super) entries: &'a [AttrEntry],
    pub(super) names: &'a [Box<str>],
}

impl<'a> AttrTable<'a> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn of(prog: &'a Program, attrs: Span) -> AttrTable<'a> {
        // (A span the compiler built; an impossible one reads as no attributes.)
        AttrTable {
            entries: prog.attrs.get(attrs.range()).unwrap_or_default(),
            names: prog.attr_names.get(attrs.range()).unwrap_or_default(),
        }
    }

    /// The name of attribute `j` (for messages and paths).
    #[cold]
    pub(super) fn name(&self, j: usize) -> &'a str {
        self.names.get(j).map_or("", |n| n)
    }
}

#[cold]
#[inline(never)]
fn missing_attribute(name: &str, at: usize) -> Pending {
    let msg = format!("attribute {name:?} is required");
    Pending::new(ErrorKind::MissingAttribute, at, msg)
}
