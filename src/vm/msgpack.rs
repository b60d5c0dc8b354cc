//! The MessagePack executor: runs a [`Program`] over borrowed MessagePack bytes in one forward
//! pass with an explicit stack, building [`Value`]s in a bumpalo arena.
//!
//! The frame being filled lives in a local (`cur`), its ancestors on the stack. Each container
//! kind has a tight loop that decodes scalar children inline and stops only to push a child
//! container. Object keys are first compared with the key expected after the last match
//! (go-cty writes keys sorted, so this almost always hits: one masked wide compare against
//! the pre-encoded key); a miss falls back to a binary search over the sorted names.

use bumpalo::Bump;

use super::frame::{store, Builder, Frame, Item, Kind, Pending};
use super::mp_reader::Reader;
use crate::error::{DecodeError, ErrorKind};
use crate::program::{DecodeOptions, Program};
use crate::value::Value;

/// Decodes exactly one value: trailing bytes are an error.
pub(crate) fn decode<'a>(
    program: &'a Program,
    input: &'a [u8],
    bump: &'a Bump,
    options: &DecodeOptions,
) -> Result<Value<'a>, DecodeError> {
    let mut vm = Vm {
        r: Reader::new(input),
        b: Builder::new(program, bump, options),
    };
    let mut cur = Frame::new(Kind::Root { value: Value::Null }, 1, 0);
    let value = match vm.run(&mut cur) {
        Ok(v) => v,
        Err(p) => return Err(vm.b.fail(&cur, p)),
    };
    if vm.r.remaining() > 0 {
        let p = Pending::new(
            ErrorKind::TrailingBytes,
            vm.r.pos,
            format!("{} bytes after the value", vm.r.remaining()),
        );
        return Err(vm.b.fail(&Frame::new(Kind::Root { value }, 1, 0), p));
    }
    Ok(value)
}

pub(super) struct Vm<'a> {
    pub(super) r: Reader<'a>,
    pub(super) b: Builder<'a>,
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
                Some(frame) => self.b.push(cur, frame)?,
                None => {
                    if let Some(value) = self.b.complete(cur)? {
                        return Ok(value);
                    }
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
        let (elem, code) = (*elem, self.b.prog.op(*elem));
        while let Some(slot) = out.get_mut(cur.index as usize) {
            match self.item(code, elem)? {
                Item::Done(v) => {
                    *slot = v;
                    // `index < out.len() <= u32::MAX`: cannot wrap.
                    cur.index = cur.index.wrapping_add(1);
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
        let prog = self.b.prog;
        // (A span the compiler built; an impossible one reads as no elements, not a panic.)
        let ops = prog.tuple_elems.get(elems.range()).unwrap_or_default();
        while let (Some(slot), Some(&op)) =
            (out.get_mut(cur.index as usize), ops.get(cur.index as usize))
        {
            match self.item(prog.op(op), op)? {
                Item::Done(v) => {
                    *slot = v;
                    // `index < out.len() <= u32::MAX`: cannot wrap.
                    cur.index = cur.index.wrapping_add(1);
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
        let (elem, code) = (*elem, self.b.prog.op(*elem));
        while let Some(slot) = out.get_mut(cur.index as usize) {
            slot.0 = self.map_key()?;
            cur.in_value = true;
            match self.item(code, elem)? {
                Item::Done(v) => {
                    slot.1 = v;
                    // `index < out.len() <= u32::MAX`: cannot wrap.
                    cur.index = cur.index.wrapping_add(1);
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
            let Some((j, op, code)) = self.object_key(cur)? else {
                continue; // an unknown key was skipped
            };
            match self.item(code, op)? {
                Item::Done(v) => {
                    if let Kind::Object { out, .. } = &mut cur.kind {
                        if let Some(slot) = out.get_mut(j as usize) {
                            *slot = v;
                        }
                    }
                    // `index < len`: cannot wrap.
                    cur.index = cur.index.wrapping_add(1);
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
                self.b.prog = sub;
                sub.root
            }
            _ => self.b.prog.root,
        };
        match self.item(self.b.prog.op(op), op)? {
            Item::Done(v) => {
                store(cur, v);
                Ok(None)
            }
            Item::Push(f) => Ok(Some(f)),
        }
    }
}
