//! A projection's picks in JSON ([`Op::Pick`]): the elements of a list or tuple at the picked
//! indexes, the entries of a map at the picked keys, decoded; every other element stepped
//! over by the validating skip (`skip.rs`), as an unselected attribute is. Tuples, picked or
//! not, are read here (`tuple`).

use super::scan::ws;
use super::skip::skip_value;
use super::{Decoder, VALUE};
use crate::decode::common::{map_complete, seq_complete, Pending};
use crate::decode::slots::Slots;
use crate::error::ErrorKind;
use crate::program::{
    tuple_arity, tuple_element, ItemLimits, Op, OpId, PickId, Picks, Program, Span,
};
use crate::value::Value;

impl<'a> Decoder<'a> {
    /// The container whose first byte `c` is at `at`, picked from by pick `picks` over the
    /// collection op `of`.
    #[inline(never)]
    pub(super) fn pick(
        &mut self,
        prog: &'a Program,
        of: OpId,
        picks: PickId,
        c: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let Some(picks) = prog.picks(picks) else {
            return Err(crate::decode::common::internal(at));
        };
        match (prog.op(of), c) {
            (Op::List { elem, .. }, b'[') => self.picked_list(prog, elem, picks, at),
            (Op::Tuple { elems }, b'[') => self.tuple(prog, elems, Some(picks), at),
            (Op::Map { elem }, b'{') => self.picked_map(prog, elem, picks, at),
            (code, _) => Err(self.mismatch(code, c, at)),
        }
    }

    /// A tuple of the element ops `elems` whose `[` is at `at`: every element, or (a pick's
    /// tuple, one op per pick) those `picks` picks, the others stepped over; its length is
    /// checked either way.
    #[inline(never)]
    pub(super) fn tuple(
        &mut self,
        prog: &'a Program,
        elems: Span,
        picks: Option<&Picks>,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let arity = tuple_arity(picks, elems);
        self.pos = at.wrapping_add(1);
        self.c.charge(elems.len, VALUE, at)?;
        let mut out = Slots::new(self.bump, elems.len);
        self.c.enter(at)?;
        let ops = prog.code.tuple_elems.get(elems.range()).unwrap_or_default();
        let mut n = 0u32;
        if self.first(b']') {
            loop {
                if n >= arity {
                    let at = ws(self.buf, self.pos);
                    let msg = format!("too many tuple elements (need {arity})");
                    return Err(Pending::new(ErrorKind::WrongLength, at, msg));
                }
                match tuple_element(picks, ops, n) {
                    Some(op) => self.value_with(prog, prog.op(op), op, |_, v| out.push(v)),
                    None => self.skip_element(),
                }
                .map_err(|e| e.in_index(n as usize))?;
                // `n < arity`: cannot wrap.
                n = n.wrapping_add(1);
                if !self.next(b']')? {
                    break;
                }
            }
        }
        if n < arity {
            let msg = format!("not enough tuple elements (need {arity})");
            // (At the `]` just read.)
            let at = self.pos.saturating_sub(1);
            return Err(Pending::new(ErrorKind::WrongLength, at, msg));
        }
        self.c.leave();
        Ok(Value::Tuple(out.finish(Value::Null)))
    }

    /// Steps over the value at `pos` (an error in it is the caller's to place).
    #[inline]
    pub(super) fn skip_element(&mut self) -> Result<(), Pending> {
        let depth = self.c.skip_depth(0);
        let max_depth = self.options.limits.max_depth;
        self.pos = skip_value(self.buf, self.pos, &mut self.skip_stack, depth, max_depth)?;
        Ok(())
    }

    /// A list whose `[` is at `at`: its elements at the picked indexes.
    fn picked_list(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        picks: &Picks,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        self.pos = at.wrapping_add(1);
        self.c.enter(at)?;
        let code = prog.op(elem);
        let start = self.seq.len();
        let (mut n, mut kept) = (0u32, 0u32);
        if self.first(b']') {
            loop {
                self.check_len(n)?;
                if picks.index_position(u64::from(n)).is_some() {
                    self.value_with(prog, code, elem, |d, v| d.seq.push(v))
                        .map_err(|e| e.in_index(n as usize))?;
                    // `kept <= n < max_container_len`: cannot wrap.
                    kept = kept.wrapping_add(1);
                } else {
                    self.skip_element().map_err(|e| e.in_index(n as usize))?;
                }
                // `n < max_container_len` (`check_len`): cannot wrap.
                n = n.wrapping_add(1);
                if !self.next(b']')? {
                    break;
                }
            }
        }
        let out = self.seal_seq(start, kept, at)?;
        self.c.leave();
        if matches!(code, Op::Dynamic) {
            seq_complete(out, ItemLimits::default(), false, true, at)?;
        }
        Ok(Value::List(out))
    }

    /// A map whose `{` is at `at`: its entries at the picked keys.
    fn picked_map(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        picks: &Picks,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        self.pos = at.wrapping_add(1);
        self.c.enter(at)?;
        let code = prog.op(elem);
        let start = self.map.len();
        let (mut n, mut kept) = (0u32, 0u32);
        if self.first(b'}') {
            loop {
                self.check_len(n)?;
                let key = self.map_key()?;
                if picks.has_key(key) {
                    self.value_with(prog, code, elem, |d, v| d.map.push((key, v)))
                        .map_err(|e| e.in_key(key))?;
                    // `kept <= n < max_container_len`: cannot wrap.
                    kept = kept.wrapping_add(1);
                } else {
                    self.skip_element().map_err(|e| e.in_key(key))?;
                }
                // `n < max_container_len` (`check_len`): cannot wrap.
                n = n.wrapping_add(1);
                if !self.next(b'}')? {
                    break;
                }
            }
        }
        let out = self.seal_map(start, kept, at)?;
        self.c.leave();
        if matches!(code, Op::Dynamic) {
            map_complete(out, at)?;
        }
        Ok(Value::Map(out))
    }
}
