//! The MessagePack executor: runs a [`Program`] over borrowed MessagePack bytes in one forward
//! pass with an explicit stack, building [`Value`]s in a bumpalo arena.
//!
//! Object keys are first compared with the key expected after the last match (go-cty writes
//! keys sorted, so this almost always hits: one length-and-bytes compare against the
//! pre-encoded key); a miss falls back to a binary search over the sorted attribute names.

use bumpalo::Bump;

use super::mp_reader::{is_ext, Reader};
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
    let value = vm.run(program.root)?;
    if vm.r.remaining() > 0 {
        return Err(vm.fail(
            ErrorKind::TrailingBytes,
            vm.r.pos,
            format!("{} bytes after the value", vm.r.remaining()),
        ));
    }
    Ok(value)
}

/// A container under construction.
pub(super) enum Kind<'a> {
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
        /// Attribute being decoded (for paths), `u32::MAX` between entries.
        current: u32,
        /// Offset in `seen_bits` once keys arrived out of order, else `u32::MAX`.
        bits: u32,
        /// Object key being skipped or rejected, for paths.
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
    /// Offset of the container's header (item-count errors point there).
    pub(super) start: usize,
    /// An unknown value was seen inside (for the item-count check).
    pub(super) unknown_inside: bool,
    /// A map's or object's key has been read and its value is being decoded (for paths).
    pub(super) in_value: bool,
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

/// The result of starting a value: done, or a container pushed on the stack.
pub(super) enum Start<'a> {
    Done(Value<'a>),
    Pushed,
}

impl<'a> Vm<'a> {
    fn run(&mut self, root: OpId) -> Result<Value<'a>, DecodeError> {
        let mut op = root;
        loop {
            let mut value = match self.start(op)? {
                Start::Done(v) => v,
                Start::Pushed => match self.next_child()? {
                    Some(next) => {
                        op = next;
                        continue;
                    }
                    None => self.finish()?,
                },
            };
            // Store the finished value in its parent; finish parents that are complete.
            loop {
                let Some(top) = self.stack.last_mut() else {
                    return Ok(value);
                };
                if self.options.check_item_counts && matches!(value, Value::Unknown(_)) {
                    top.unknown_inside = true;
                }
                store(top, value);
                match self.next_child()? {
                    Some(next) => {
                        op = next;
                        break;
                    }
                    None => value = self.finish()?,
                }
            }
        }
    }

    /// Reads the header of a value of op `op`: a scalar is decoded at once, a container is
    /// pushed.
    #[inline]
    fn start(&mut self, op: OpId) -> Result<Start<'a>, DecodeError> {
        let at = self.r.pos;
        let Some(m) = self.r.peek() else {
            return Err(self.eof(at));
        };
        if m == 0xc0 {
            self.r.pos += 1;
            return Ok(Start::Done(Value::Null));
        }
        if is_ext(m) {
            return self.unknown(op, at).map(Start::Done);
        }
        let code = self.prog.op(op);
        match code {
            Op::String => self.string(m, at).map(|s| Start::Done(Value::String(s))),
            Op::Number => self.number(m, at).map(|n| Start::Done(Value::Number(n))),
            Op::Bool => match m {
                0xc2 | 0xc3 => {
                    self.r.pos += 1;
                    Ok(Start::Done(Value::Bool(m == 0xc3)))
                }
                _ => Err(self.mismatch("bool", m, at)),
            },
            Op::List { elem, items } | Op::Set { elem, items } => {
                let set = matches!(code, Op::Set { .. });
                let len = self.array_len(m, at, if set { "set" } else { "list" })?;
                let out = self.bump.alloc_slice_fill_copy(len as usize, Value::Null);
                self.push(Kind::Seq { out, elem, set, items }, len, at)
            }
            Op::Tuple { elems } => {
                let len = self.array_len(m, at, "tuple")?;
                if len != elems.len {
                    return Err(self.fail(
                        ErrorKind::WrongLength,
                        at,
                        format!("a tuple of length {} is required ({len} given)", elems.len),
                    ));
                }
                let out = self.bump.alloc_slice_fill_copy(len as usize, Value::Null);
                self.push(Kind::Tuple { out, elems }, len, at)
            }
            Op::Map { elem } => {
                let len = self.map_len(m, at, "map")?;
                let out = self
                    .bump
                    .alloc_slice_fill_copy(len as usize, ("", Value::Null));
                self.push(Kind::Map { out, elem }, len, at)
            }
            Op::Object { attrs } => {
                let len = self.map_len(m, at, "object")?;
                let out = self
                    .bump
                    .alloc_slice_fill_copy(attrs.len as usize, Value::Null);
                let kind = Kind::Object {
                    out,
                    op,
                    attrs,
                    next: 0,
                    current: u32::MAX,
                    bits: u32::MAX,
                    raw_key: "",
                };
                self.push(kind, len, at)
            }
            Op::Dynamic => self.dynamic(m, at),
        }
    }

    pub(super) fn push(&mut self, kind: Kind<'a>, len: u32, start: usize) -> Result<Start<'a>, DecodeError> {
        let limits = self.options.limits;
        if self.stack.len() >= limits.max_depth as usize {
            let msg = format!("nesting deeper than max_depth ({})", limits.max_depth);
            return Err(self.fail(ErrorKind::Limit, start, msg));
        }
        if len > limits.max_container_len {
            let msg = format!(
                "{len} elements exceed max_container_len ({})",
                limits.max_container_len
            );
            return Err(self.fail(ErrorKind::Limit, start, msg));
        }
        self.stack.push(Frame {
            kind,
            index: 0,
            len,
            start,
            unknown_inside: false,
            in_value: false,
        });
        Ok(Start::Pushed)
    }

    /// The op of the next child of the top frame, reading an object's or map's key first;
    /// `None` when the container is complete.
    #[inline]
    fn next_child(&mut self) -> Result<Option<OpId>, DecodeError> {
        let prog = self.prog;
        let Some(top) = self.stack.last_mut() else {
            return Ok(None);
        };
        if top.index >= top.len {
            return Ok(None);
        }
        match &mut top.kind {
            Kind::Seq { elem, .. } => Ok(Some(*elem)),
            Kind::Tuple { elems, .. } => Ok(prog
                .tuple_elems
                .get(elems.start as usize + top.index as usize)
                .copied()),
            Kind::Map { elem, .. } => {
                let elem = *elem;
                let key = self.map_key()?;
                if let Some(Frame {
                    kind: Kind::Map { out, .. },
                    index,
                    in_value,
                    ..
                }) = self.stack.last_mut()
                {
                    if let Some(slot) = out.get_mut(*index as usize) {
                        slot.0 = key;
                    }
                    *in_value = true;
                }
                Ok(Some(elem))
            }
            Kind::Object { .. } => self.object_key(),
            Kind::Dynamic { sub, .. } => {
                let sub = *sub;
                self.prog = sub;
                Ok(Some(sub.root))
            }
        }
    }

    /// Pops the complete top frame and builds its value.
    fn finish(&mut self) -> Result<Value<'a>, DecodeError> {
        if let Some(frame) = self.stack.last() {
            // Checks that may fail run while the frame is still on the stack (for the path).
            match &frame.kind {
                Kind::Seq {
                    out, elem, items, ..
                } => {
                    if self.options.check_item_counts && !items.is_none() && !frame.unknown_inside {
                        let n = out.len() as u64;
                        if n < items.min || (items.max > 0 && n > items.max) {
                            let msg = item_count_message(n, *items);
                            return Err(self.fail(ErrorKind::ItemCount, frame.start, msg));
                        }
                    }
                    if matches!(self.prog.op(*elem), Op::Dynamic) {
                        self.check_consistent(out.iter(), frame.start)?;
                    }
                }
                Kind::Map { out, elem } => {
                    if matches!(self.prog.op(*elem), Op::Dynamic) {
                        self.check_consistent(out.iter().map(|(_, v)| v), frame.start)?;
                    }
                }
                Kind::Object { .. } => self.object_complete()?,
                _ => {}
            }
        }
        let Some(frame) = self.stack.pop() else {
            return Ok(Value::Null);
        };
        if frame.unknown_inside {
            if let Some(parent) = self.stack.last_mut() {
                parent.unknown_inside = true;
            }
        }
        Ok(match frame.kind {
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
        })
    }
}

/// Stores a finished child value in the frame that is waiting for it.
#[inline(always)]
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
            *current = u32::MAX;
        }
        Kind::Dynamic { value: v, .. } => *v = value,
    }
    top.index += 1;
    top.in_value = false;
}

fn item_count_message(n: u64, items: ItemLimits) -> String {
    if n < items.min {
        format!("at least {} blocks are required ({n} given)", items.min)
    } else {
        format!("at most {} blocks are allowed ({n} given)", items.max)
    }
}
