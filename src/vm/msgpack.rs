//! The MessagePack executor: runs a [`Program`] over borrowed MessagePack bytes in one forward
//! pass with an explicit stack, building [`Value`]s in a bumpalo arena.
//!
//! The frame being filled lives in a local (`cur`), its ancestors on the stack. Each container
//! kind has a tight loop that decodes scalar children inline and stops only to push a child
//! container. Object keys are first compared with the key expected after the last match
//! (go-cty writes keys sorted, so this almost always hits: one masked wide compare against
//! the pre-encoded key); a miss falls back to a binary search over the sorted names.

use bumpalo::Bump;

use super::mp_reader::Reader;
use crate::error::{DecodeError, ErrorKind};
use crate::program::{DecodeOptions, ItemLimits, Op, OpId, Program, Span};
use crate::value::{Dynamic, Value};

/// Decodes exactly one value: trailing bytes are an error.
pub(crate) fn decode<'a>(
    program: &'a Program,
    input: &'a [u8],
    bump: &'a Bump,
    options: &DecodeOptions,
) -> Result<Value<'a>, DecodeError> {
    let mut vm = Vm {
        r: Reader::new(input),
        bump,
        root: program,
        prog: program,
        stack: Vec::new(),
        seen_bits: Vec::new(),
        options: *options,
    };
    let mut cur = Frame::new(Kind::Root { value: Value::Null }, 1, 0);
    let value = match vm.run(&mut cur) {
        Ok(v) => v,
        Err(p) => return Err(vm.fail(&cur, p)),
    };
    if vm.r.remaining() > 0 {
        let p = Pending::new(
            ErrorKind::TrailingBytes,
            vm.r.pos,
            format!("{} bytes after the value", vm.r.remaining()),
        );
        return Err(vm.fail(&Frame::new(Kind::Root { value }, 1, 0), p));
    }
    Ok(value)
}

/// An error found in the hot loop, turned into a [`DecodeError`] (with its path) once the
/// frames are no longer borrowed. One word.
pub(super) struct Pending(pub(super) Box<(ErrorKind, usize, String)>);

impl Pending {
    #[cold]
    #[inline(never)]
    pub(super) fn new(kind: ErrorKind, at: usize, message: String) -> Pending {
        Pending(Box::new((kind, at, message)))
    }
}

/// A container under construction.
pub(super) enum Kind<'a> {
    /// The bottom frame: its one child is the whole value.
    Root { value: Value<'a> },
    /// List or set: `elem` for every element.
    Seq {
        out: &'a mut [Value<'a>],
        elem: OpId,
        set: bool,
        items: ItemLimits,
    },
    Tuple {
        out: &'a mut [Value<'a>],
        elems: Span,
    },
    Map {
        out: &'a mut [(&'a str, Value<'a>)],
        elem: OpId,
    },
    Object {
        out: &'a mut [Value<'a>],
        op: OpId,
        attrs: Span,
        /// Index of the attribute expected next (keys arrive sorted).
        next: u32,
        /// Attribute being decoded (for paths), `u32::MAX` for an unknown key being skipped.
        current: u32,
        /// Offset in `seen_bits` once keys arrived out of order, else `u32::MAX`.
        bits: u32,
        /// An unknown key being skipped, for paths.
        raw_key: &'a str,
    },
    /// A dynamic wrapper: the value inside runs in `sub`; `outer` is restored after it.
    Dynamic {
        outer: &'a Program,
        sub: &'a Program,
        value: Value<'a>,
    },
}

pub(super) struct Frame<'a> {
    pub(super) kind: Kind<'a>,
    /// Entries read so far.
    pub(super) index: u32,
    /// Entries on the wire.
    pub(super) len: u32,
    /// Offset of the container's header.
    pub(super) start: usize,
    /// An unknown value was seen inside (for the item-count check).
    pub(super) unknown_inside: bool,
    /// A map's or object's key has been read and its value is being decoded (for paths).
    pub(super) in_value: bool,
}

impl<'a> Frame<'a> {
    pub(super) fn new(kind: Kind<'a>, len: u32, start: usize) -> Frame<'a> {
        Frame {
            kind,
            index: 0,
            len,
            start,
            unknown_inside: false,
            in_value: false,
        }
    }
}

pub(super) struct Vm<'a> {
    pub(super) r: Reader<'a>,
    pub(super) bump: &'a Bump,
    pub(super) root: &'a Program,
    pub(super) prog: &'a Program,
    pub(super) stack: Vec<Frame<'a>>,
    pub(super) seen_bits: Vec<u64>,
    pub(super) options: DecodeOptions,
}

/// A child value: finished, or a container frame to fill.
pub(super) enum Item<'a> {
    Done(Value<'a>),
    Push(Frame<'a>),
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
                Kind::Root { .. } | Kind::Dynamic { .. } => self.fill_single(cur)?,
            };
            match child {
                Some(frame) => {
                    if self.stack.len() >= self.options.limits.max_depth as usize {
                        return Err(Pending::new(
                            ErrorKind::Limit,
                            frame.start,
                            format!(
                                "nesting deeper than max_depth ({})",
                                self.options.limits.max_depth
                            ),
                        ));
                    }
                    self.stack.push(std::mem::replace(cur, frame));
                }
                None => {
                    self.check_complete(cur)?;
                    let Some(parent) = self.stack.pop() else {
                        let Kind::Root { value } = cur.kind else {
                            unreachable!("the bottom frame is the root")
                        };
                        return Ok(value);
                    };
                    let done = std::mem::replace(cur, parent);
                    let value = self.build(done);
                    if self.options.check_item_counts && matches!(value, Value::Unknown(_)) {
                        cur.unknown_inside = true;
                    }
                    store(cur, value);
                }
            }
        }
    }

    /// Decodes elements of a list or set until one is a container.
    #[inline(always)]
    fn fill_seq(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        let Kind::Seq { out, elem, .. } = &mut cur.kind else {
            return Ok(None);
        };
        let (elem, code) = (*elem, self.prog.op(*elem));
        while let Some(slot) = out.get_mut(cur.index as usize) {
            match self.item(code, elem)? {
                Item::Done(v) => {
                    if self.options.check_item_counts && matches!(v, Value::Unknown(_)) {
                        cur.unknown_inside = true;
                    }
                    *slot = v;
                    cur.index += 1;
                }
                Item::Push(f) => return Ok(Some(f)),
            }
        }
        Ok(None)
    }

    #[inline(always)]
    fn fill_tuple(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        let Kind::Tuple { out, elems } = &mut cur.kind else {
            return Ok(None);
        };
        let prog = self.prog;
        let ops = &prog.tuple_elems[elems.range()];
        while let (Some(slot), Some(&op)) = (out.get_mut(cur.index as usize), ops.get(cur.index as usize)) {
            match self.item(prog.op(op), op)? {
                Item::Done(v) => {
                    if self.options.check_item_counts && matches!(v, Value::Unknown(_)) {
                        cur.unknown_inside = true;
                    }
                    *slot = v;
                    cur.index += 1;
                }
                Item::Push(f) => return Ok(Some(f)),
            }
        }
        Ok(None)
    }

    #[inline(always)]
    fn fill_map(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        let Kind::Map { out, elem } = &mut cur.kind else {
            return Ok(None);
        };
        let (elem, code) = (*elem, self.prog.op(*elem));
        while let Some(slot) = out.get_mut(cur.index as usize) {
            slot.0 = self.map_key()?;
            cur.in_value = true;
            match self.item(code, elem)? {
                Item::Done(v) => {
                    if self.options.check_item_counts && matches!(v, Value::Unknown(_)) {
                        cur.unknown_inside = true;
                    }
                    slot.1 = v;
                    cur.index += 1;
                    cur.in_value = false;
                }
                Item::Push(f) => return Ok(Some(f)),
            }
        }
        Ok(None)
    }

    #[inline(always)]
    fn fill_object(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        while cur.index < cur.len {
            let Some((j, op)) = self.object_key(cur)? else {
                continue; // an unknown key was skipped
            };
            let code = self.prog.op(op);
            match self.item(code, op)? {
                Item::Done(v) => {
                    if self.options.check_item_counts && matches!(v, Value::Unknown(_)) {
                        cur.unknown_inside = true;
                    }
                    if let Kind::Object { out, .. } = &mut cur.kind {
                        if let Some(slot) = out.get_mut(j as usize) {
                            *slot = v;
                        }
                    }
                    cur.index += 1;
                    cur.in_value = false;
                }
                Item::Push(f) => return Ok(Some(f)),
            }
        }
        Ok(None)
    }

    /// The root's or a dynamic wrapper's single child.
    fn fill_single(&mut self, cur: &mut Frame<'a>) -> Result<Option<Frame<'a>>, Pending> {
        if cur.index >= cur.len {
            return Ok(None);
        }
        let op = match cur.kind {
            Kind::Dynamic { sub, .. } => {
                self.prog = sub;
                sub.root
            }
            _ => self.prog.root,
        };
        match self.item(self.prog.op(op), op)? {
            Item::Done(v) => {
                store(cur, v);
                Ok(None)
            }
            Item::Push(f) => Ok(Some(f)),
        }
    }

    /// Checks that may fail once a container is complete; the frame is still `cur`, so an
    /// error gets the container's path.
    fn check_complete(&mut self, cur: &Frame<'a>) -> Result<(), Pending> {
        match &cur.kind {
            Kind::Seq { out, elem, items, .. } => {
                if self.options.check_item_counts && !items.is_none() && !cur.unknown_inside {
                    let n = out.len() as u64;
                    if n < items.min || (items.max > 0 && n > items.max) {
                        let msg = item_count_message(n, *items);
                        return Err(Pending::new(ErrorKind::ItemCount, cur.start, msg));
                    }
                }
                if matches!(self.prog.op(*elem), Op::Dynamic) {
                    check_consistent(out.iter(), cur.start)?;
                }
            }
            Kind::Map { out, elem } => {
                if matches!(self.prog.op(*elem), Op::Dynamic) {
                    check_consistent(out.iter().map(|(_, v)| v), cur.start)?;
                }
            }
            Kind::Object { .. } => self.object_complete(cur)?,
            _ => {}
        }
        Ok(())
    }

    /// Turns a complete frame into its value.
    fn build(&mut self, frame: Frame<'a>) -> Value<'a> {
        if frame.unknown_inside {
            if let Some(parent) = self.stack.last_mut() {
                parent.unknown_inside = true;
            }
        }
        match frame.kind {
            Kind::Seq { out, set: false, .. } => Value::List(out),
            Kind::Seq { out, set: true, .. } => Value::Set(out),
            Kind::Tuple { out, .. } => Value::Tuple(out),
            Kind::Map { out, .. } => Value::Map(out),
            Kind::Object { out, op, bits, .. } => {
                if bits != u32::MAX {
                    self.seen_bits.truncate(bits as usize);
                }
                Value::Object { op, attrs: out }
            }
            Kind::Dynamic { outer, sub, value } => {
                self.prog = outer;
                match value {
                    // A typed null or unknown loses its type, as in the DUMP.
                    Value::Null | Value::Unknown(_) => value,
                    v => Value::Dynamic(self.bump.alloc(Dynamic {
                        program: sub,
                        value: v,
                    })),
                }
            }
            Kind::Root { value } => value,
        }
    }
}

/// Stores a finished child container's value in the frame that was waiting for it.
fn store<'a>(top: &mut Frame<'a>, value: Value<'a>) {
    let i = top.index as usize;
    match &mut top.kind {
        Kind::Seq { out, .. } | Kind::Tuple { out, .. } => {
            if let Some(slot) = out.get_mut(i) {
                *slot = value;
            }
        }
        Kind::Map { out, .. } => {
            if let Some(slot) = out.get_mut(i) {
                slot.1 = value;
            }
        }
        Kind::Object { out, current, .. } => {
            if let Some(slot) = out.get_mut(*current as usize) {
                *slot = value;
            }
        }
        Kind::Dynamic { value: v, .. } | Kind::Root { value: v } => *v = value,
    }
    top.index += 1;
    top.in_value = false;
}

/// Elements of a collection of dynamic values must share one concrete type.
fn check_consistent<'v, 'a: 'v>(
    values: impl Iterator<Item = &'v Value<'a>>,
    at: usize,
) -> Result<(), Pending> {
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
                    return Err(Pending::new(ErrorKind::InconsistentTypes, at, msg));
                }
            }
        }
    }
    Ok(())
}

fn item_count_message(n: u64, items: ItemLimits) -> String {
    if n < items.min {
        format!("at least {} blocks are required ({n} given)", items.min)
    } else {
        format!("at most {} blocks are allowed ({n} given)", items.max)
    }
}
