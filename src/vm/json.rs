//! The JSON executor: runs a [`Program`] over borrowed JSON bytes in one forward pass with an
//! explicit stack, building [`Value`]s in a bumpalo arena. Same architecture as the
//! MessagePack executor (`msgpack.rs`): the frame being filled lives in a local (`cur`), its
//! ancestors on the [`Builder`]'s stack, and each container kind has a tight loop that decodes
//! scalar children inline and stops only to push a child container.
//!
//! JSON gives no element counts, so the elements of open lists, sets and maps are collected
//! in two scratch vectors shared by all frames (each open frame owns the top `index` entries
//! of its vector) and copied into one arena slice when the container closes. Tuples and
//! objects know their size from the type and get their slot array at the opening bracket.
//!
//! Object keys are compared with the key expected after the last match first (go-cty writes
//! keys sorted), then binary-searched. A dynamic wrapper `{"type": T, "value": V}` may come
//! in either order: with the value first (go-cty's order), the value is skipped, the type
//! read, then the decoder seeks back to the value and, once it is decoded, jumps past the
//! wrapper's closing brace.
//!
//! Semantics follow go-cty's `cty/json` with DESIGN.md §4: missing attributes are null,
//! unknown attributes and duplicate keys are errors, the go-cty coercions (number from a
//! string, bool from `"true"`/`"false"`/`"1"`/`"0"`, string from a number or bool) apply, and
//! anything that is not JSON (trailing bytes included) is rejected.

use bumpalo::collections::Vec as BumpVec;
use bumpalo::Bump;

use super::frame::{store, Builder, Frame, Kind, Pending};
use super::json_extent::Memo;
use super::json_items::TypeMemo;
use super::json_scan::{bad_separator, ws};
use crate::error::{DecodeError, ErrorKind};
use crate::program::{DecodeOptions, Program};
use crate::value::Value;

/// Decodes exactly one JSON value (whitespace around it is allowed; other trailing bytes are
/// an error).
pub(crate) fn decode<'a>(
    program: &'a Program,
    input: &'a [u8],
    bump: &'a Bump,
    options: &DecodeOptions,
) -> Result<Value<'a>, DecodeError> {
    let mut vm = Vm {
        buf: input,
        pos: 0,
        b: Builder::new(program, bump, options),
        seq: BumpVec::new_in(bump),
        map: BumpVec::new_in(bump),
        dyns: BumpVec::new_in(bump),
        skip_stack: BumpVec::new_in(bump),
        memo: Memo::new_in(bump),
        types: TypeMemo::new(),
    };
    // JSON objects read missing attributes as null (go-cty's JSON rule), always.
    vm.b.options.missing_attributes_null = true;
    let mut cur = Frame::new(Kind::Root { value: Value::Null }, 1, 0);
    let value = match vm.run(&mut cur) {
        Ok(v) => v,
        Err(p) => {
            vm.materialize_maps(&mut cur);
            return Err(vm.b.fail(&cur, p));
        }
    };
    let end = ws(input, vm.pos);
    if end < input.len() {
        let p = Pending::new(
            ErrorKind::TrailingBytes,
            end,
            format!("{} bytes after the value", input.len().saturating_sub(end)),
        );
        return Err(vm.b.fail(&Frame::new(Kind::Root { value }, 1, 0), p));
    }
    Ok(value)
}

/// Where a dynamic wrapper's decode continues once its value is complete.
#[derive(Clone, Copy)]
pub(super) enum DynEnd {
    /// `"type"` came first: the value ends the wrapper (only `}` may follow).
    TypeFirst,
    /// `"value"` came first: it ends at `value_end`; the wrapper ends at `resume`.
    ValueFirst { value_end: usize, resume: usize },
}

pub(super) struct Vm<'a> {
    pub(super) buf: &'a [u8],
    /// The read position.
    pub(super) pos: usize,
    pub(super) b: Builder<'a>,
    /// Elements of the open lists and sets, innermost last. (This scratch space lives in the
    /// arena, like the builder's stack: warm decodes make no heap allocation.)
    pub(super) seq: BumpVec<'a, Value<'a>>,
    /// Entries of the open maps, innermost last (a key waiting for its value holds null).
    pub(super) map: BumpVec<'a, (&'a str, Value<'a>)>,
    /// One entry per open dynamic wrapper.
    pub(super) dyns: BumpVec<'a, DynEnd>,
    /// The skip's container stack, reused.
    pub(super) skip_stack: BumpVec<'a, bool>,
    /// Extents of the containers in skipped dynamic values.
    pub(super) memo: Memo<'a>,
    /// The dynamic types of this decode, before the program's shared cache.
    pub(super) types: TypeMemo<'a>,
}

impl<'a> Vm<'a> {
    /// Fills frames until the root is complete. On error, `cur` is the innermost frame.
    fn run(&mut self, cur: &mut Frame<'a>) -> Result<Value<'a>, Pending> {
        loop {
            let child = match cur.kind {
                Kind::Seq { .. } => self.fill_seq(cur)?,
                Kind::Object { .. } => self.fill_object(cur)?,
                Kind::Map { .. } => self.fill_map(cur)?,
                Kind::Tuple { .. } => self.fill_tuple(cur)?,
                Kind::Dynamic { .. } => self.fill_dynamic(cur)?,
                Kind::Root { .. } => self.fill_root(cur)?,
            };
            match child {
                Some(frame) => self.b.push(cur, frame)?,
                None => {
                    self.seal(cur)?;
                    let (value, root) = self.b.complete_take(cur)?;
                    if root {
                        return Ok(value);
                    }
                    match &mut cur.kind {
                        // (`index < max_container_len` was checked before the element.)
                        Kind::Seq { .. } => {
                            self.seq.push(value);
                            cur.index = cur.index.wrapping_add(1);
                        }
                        Kind::Map { .. } => {
                            if let Some(last) = self.map.last_mut() {
                                last.1 = value;
                            }
                            cur.index = cur.index.wrapping_add(1);
                            cur.in_value = false;
                        }
                        _ => store(cur, value),
                    }
                }
            }
        }
    }

    /// A list's or map's elements move from the scratch vector into its arena slice (and
    /// its length becomes known, so errors of the complete container stop at its path).
    #[inline(always)]
    fn seal(&mut self, cur: &mut Frame<'a>) -> Result<(), Pending> {
        let n = cur.index as usize;
        cur.len = cur.index;
        match &mut cur.kind {
            Kind::Seq { out, .. } => {
                self.b.charge(cur.index, size_of::<Value>(), cur.start)?;
                // The frame's `n` elements are the vector's last (`n <= len`).
                let start = self.seq.len().saturating_sub(n);
                *out = self
                    .b
                    .bump
                    .alloc_slice_copy(self.seq.get(start..).unwrap_or_default());
                self.seq.truncate(start);
            }
            Kind::Map { out, .. } => {
                self.b
                    .charge(cur.index, size_of::<(&str, Value)>(), cur.start)?;
                let start = self.map.len().saturating_sub(n);
                *out = self
                    .b
                    .bump
                    .alloc_slice_copy(self.map.get(start..).unwrap_or_default());
                self.map.truncate(start);
            }
            _ => {}
        }
        Ok(())
    }

    /// On error: gives the open maps their entries so far, so the error path shows the key.
    #[cold]
    #[inline(never)]
    fn materialize_maps(&mut self, cur: &mut Frame<'a>) {
        let bump = self.b.bump;
        let mut top = self.map.len();
        let map = &self.map;
        for frame in std::iter::once(cur).chain(self.b.stack.iter_mut().rev()) {
            if let Kind::Map { out, .. } = &mut frame.kind {
                if out.is_empty() {
                    let n = (frame.index as usize)
                        .saturating_add(frame.in_value as usize)
                        .min(top);
                    let from = top.saturating_sub(n);
                    *out = bump.alloc_slice_copy(map.get(from..top).unwrap_or_default());
                    top = from;
                }
            }
        }
    }

    /// Skips whitespace; returns the position of the next byte (also stored in `pos`).
    #[inline(always)]
    pub(super) fn ws(&mut self) -> usize {
        self.pos = ws(self.buf, self.pos);
        self.pos
    }

    /// After an element: `,` (true: another element follows) or `close` (false: the container
    /// ended; both consumed). Anything else is an error at the container's path.
    #[inline(always)]
    fn next(&mut self, cur: &mut Frame<'a>, close: u8) -> Result<bool, Pending> {
        let at = self.ws();
        match self.buf.get(at) {
            // (Past the byte just read: see `json_scan` on positions.)
            Some(b',') => {
                self.pos = at.wrapping_add(1);
                Ok(true)
            }
            Some(&c) if c == close => {
                self.pos = at.wrapping_add(1);
                Ok(false)
            }
            _ => Err(self.container_error(cur, bad_separator(self.buf, at, close))),
        }
    }

    /// An error about the container `cur` itself, not its element `index`: its path stops at
    /// the container.
    #[cold]
    #[inline(never)]
    pub(super) fn container_error(&self, cur: &mut Frame<'a>, p: Pending) -> Pending {
        cur.len = cur.index;
        cur.in_value = false;
        p
    }

    /// An object with more keys than a `u32` counts (over 4 × 10⁹: tens of gigabytes).
    #[cold]
    #[inline(never)]
    fn too_many_keys(&self, cur: &mut Frame<'a>) -> Pending {
        let msg = format!("more than {} keys in one object", u32::MAX);
        let p = Pending::new(ErrorKind::Limit, self.pos, msg);
        self.container_error(cur, p)
    }

    /// The element count limit.
    #[inline(always)]
    fn check_len(&self, cur: &mut Frame<'a>) -> Result<(), Pending> {
        let max = self.b.options.limits.max_container_len;
        if cur.index >= max {
            let msg = format!("more than max_container_len ({max}) elements");
            let p = Pending::new(ErrorKind::Limit, self.pos, msg);
            return Err(self.container_error(cur, p));
        }
        Ok(())
    }

    /// Whether the container `cur` has another element. Just after its opening bracket (no
    /// element yet) that is anything but `close`; after an element, `,` (see
    /// [`next`](Vm::next)). A `close` ending the container is consumed.
    #[inline(always)]
    fn another(&mut self, cur: &mut Frame<'a>, close: u8) -> Result<bool, Pending> {
        if cur.index > 0 {
            return self.next(cur, close);
        }
        let at = self.ws();
        if self.buf.get(at) == Some(&close) {
            self.pos = at.wrapping_add(1);
            return Ok(false);
        }
        Ok(true)
    }

    /// Elements of a list or set, until one is a container.
    #[inline(always)]
    fn fill_seq(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        let Kind::Seq { elem, .. } = cur.kind else {
            return Ok(None);
        };
        let code = self.b.prog.op(elem);
        if !self.another(cur, b']')? {
            return Ok(None);
        }
        loop {
            self.check_len(cur)?;
            if let Some(f) = self.item(code, elem, |vm, v| vm.seq.push(v))? {
                return Ok(Some(f));
            }
            // `index < max_container_len` (`check_len`): cannot wrap.
            cur.index = cur.index.wrapping_add(1);
            if !self.next(cur, b']')? {
                return Ok(None);
            }
        }
    }

    #[inline(always)]
    fn fill_tuple(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        let Kind::Tuple { elems, .. } = cur.kind else {
            return Ok(None);
        };
        let prog = self.b.prog;
        let ops = prog.tuple_elems.get(elems.range()).unwrap_or_default();
        if !self.another(cur, b']')? {
            return self.tuple_end(cur, elems.len);
        }
        loop {
            let Some(&op) = ops.get(cur.index as usize) else {
                let at = self.ws();
                let msg = format!("too many tuple elements (need {})", elems.len);
                return Err(
                    self.container_error(cur, Pending::new(ErrorKind::WrongLength, at, msg))
                );
            };
            let i = cur.index as usize;
            let Kind::Tuple { out, .. } = &mut cur.kind else {
                return Ok(None);
            };
            let put = |_: &mut Self, v| {
                if let Some(slot) = out.get_mut(i) {
                    *slot = v;
                }
            };
            if let Some(f) = self.item(prog.op(op), op, put)? {
                return Ok(Some(f));
            }
            // `index < ops.len()`: cannot wrap.
            cur.index = cur.index.wrapping_add(1);
            if !self.next(cur, b']')? {
                return self.tuple_end(cur, elems.len);
            }
        }
    }

    /// The tuple's `]` was read: all its elements must have arrived.
    fn tuple_end(&mut self, cur: &mut Frame<'a>, need: u32) -> Result<Option<Frame<'a>>, Pending> {
        if cur.index < need {
            let msg = format!("not enough tuple elements (need {need})");
            // (At the `]` just read.)
            let p = Pending::new(ErrorKind::WrongLength, self.pos.saturating_sub(1), msg);
            return Err(self.container_error(cur, p));
        }
        Ok(None)
    }

    #[inline(always)]
    fn fill_map(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        let Kind::Map { elem, .. } = cur.kind else {
            return Ok(None);
        };
        let code = self.b.prog.op(elem);
        if !self.another(cur, b'}')? {
            return Ok(None);
        }
        loop {
            self.check_len(cur)?;
            let key = self.map_key()?;
            self.map.push((key, Value::Null));
            cur.in_value = true;
            let put = |vm: &mut Self, v| {
                if let Some(last) = vm.map.last_mut() {
                    last.1 = v;
                }
            };
            if let Some(f) = self.item(code, elem, put)? {
                return Ok(Some(f));
            }
            // `index < max_container_len` (`check_len`): cannot wrap.
            cur.index = cur.index.wrapping_add(1);
            cur.in_value = false;
            if !self.next(cur, b'}')? {
                return Ok(None);
            }
        }
    }

    #[inline(always)]
    fn fill_object(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        if !self.another(cur, b'}')? {
            return Ok(None);
        }
        loop {
            // A key count fits the frame's `u32` index, as a MessagePack map's does: then
            // `index < u32::MAX` while a key and its value are decoded, and no increment of
            // it (here, for a skipped key, or in `store`) can wrap.
            if cur.index == u32::MAX {
                return Err(self.too_many_keys(cur));
            }
            if let Some((j, op, code)) = self.object_key(cur)? {
                let Kind::Object { out, .. } = &mut cur.kind else {
                    return Ok(None);
                };
                let put = |_: &mut Self, v| {
                    if let Some(slot) = out.get_mut(j as usize) {
                        *slot = v;
                    }
                };
                if let Some(f) = self.item(code, op, put)? {
                    return Ok(Some(f));
                }
                // `index < u32::MAX` (above): cannot wrap.
                cur.index = cur.index.wrapping_add(1);
                cur.in_value = false;
            }
            if !self.next(cur, b'}')? {
                return Ok(None);
            }
        }
    }

    /// The whole value.
    fn fill_root(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        if cur.index >= cur.len {
            return Ok(None);
        }
        let op = self.b.prog.root;
        let mut done = None;
        let child = self.item(self.b.prog.op(op), op, |_, v| done = Some(v))?;
        if let Some(v) = done {
            store(cur, v);
        }
        Ok(child)
    }

    /// A dynamic wrapper's value (decoded with the concrete type's program), then the end of
    /// the wrapper.
    fn fill_dynamic(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        if cur.index == 0 {
            let Kind::Dynamic { sub, .. } = cur.kind else {
                return Ok(None);
            };
            self.b.prog = sub;
            let mut done = None;
            let child = self.item(sub.op(sub.root), sub.root, |_, v| done = Some(v))?;
            match done {
                Some(v) => store(cur, v),
                None => return Ok(child),
            }
        }
        self.dynamic_end(cur)?;
        Ok(None)
    }
}
