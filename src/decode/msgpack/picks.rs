//! A projection's picks in MessagePack ([`Op::Pick`]): the elements of a list or tuple at the
//! picked indexes, the entries of a map at the picked keys, decoded; every other element
//! stepped over by the reader's skip (headers, lengths and UTF-8 checked), as an unselected
//! attribute is.

use super::{skip_error, Decoder, ENTRY, VALUE};
use crate::decode::common::{map_complete, seq_complete, Pending};
use crate::decode::slots::Slots;
use crate::program::{ItemLimits, Op, OpId, PickId, Picks, Program};
use crate::value::Value;

impl<'a> Decoder<'a> {
    /// The container whose marker `m` is at `at`, picked from by pick `picks` over the
    /// collection op `of`.
    #[inline(never)]
    pub(super) fn pick(
        &mut self,
        prog: &'a Program,
        of: OpId,
        picks: PickId,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let Some(picks) = prog.picks(picks) else {
            return Err(crate::decode::common::internal(at));
        };
        match prog.op(of) {
            Op::List { elem, .. } => self.picked_list(prog, elem, picks, m, at),
            Op::Tuple { elems } => self.tuple(prog, elems, Some(picks), m, at),
            Op::Map { elem } => self.picked_map(prog, elem, picks, m, at),
            _ => Err(crate::decode::common::internal(at)),
        }
    }

    /// Steps over the element at the read position (an error in it is the caller's to
    /// place).
    pub(super) fn skip_element(&mut self) -> Result<(), Pending> {
        let at = self.r.pos;
        self.r.skip_value().map_err(|e| skip_error(e, at))
    }

    /// A list (marker `m` at `at`): its elements at the picked indexes.
    fn picked_list(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        picks: &Picks,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let len = self.array_len(m, at, "list")?;
        let kept = picks.kept_of(len);
        self.c.charge(kept, VALUE, at)?;
        let mut out = Slots::new(self.bump, kept);
        self.c.enter(at)?;
        let code = prog.op(elem);
        for i in 0..len {
            if picks.index_position(u64::from(i)).is_some() {
                self.value_with(prog, code, elem, |v| out.push(v))
                    .map_err(|e| e.in_index(i as usize))?;
            } else {
                self.skip_element().map_err(|e| e.in_index(i as usize))?;
            }
        }
        self.c.leave();
        let out = out.finish(Value::Null);
        if matches!(code, Op::Dynamic) {
            seq_complete(out, ItemLimits::default(), false, true, at)?;
        }
        Ok(Value::List(out))
    }

    /// A map (marker `m` at `at`): its entries at the picked keys (a key the input repeats,
    /// each time, as the full decode keeps them).
    fn picked_map(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        picks: &Picks,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let len = self.map_len(m, at, "map")?;
        // Charged and allocated as the full decode's map is: the picked keys may repeat.
        self.c.charge(len, ENTRY, at)?;
        let mut out = Slots::new(self.bump, len);
        self.c.enter(at)?;
        let code = prog.op(elem);
        for _ in 0..len {
            let key = self.map_key()?;
            if picks.has_key(key) {
                self.value_with(prog, code, elem, |v| out.push((key, v)))
                    .map_err(|e| e.in_key(key))?;
            } else {
                self.skip_element().map_err(|e| e.in_key(key))?;
            }
        }
        self.c.leave();
        let out = out.finish_written();
        if matches!(code, Op::Dynamic) {
            map_complete(out, at)?;
        }
        Ok(Value::Map(out))
    }
}
