//! A projection's picks in MessagePack ([`Op::Pick`]): the elements of a list or tuple at the
//! picked indexes, the entries of a map at the picked keys, decoded; every other element
//! stepped over by the reader's skip (headers, lengths and UTF-8 checked), as an unselected
//! attribute is.

use super::{skip_error, Decoder, ENTRY, VALUE};
use crate::decode::common::{map_complete, seq_complete, Pending};
use crate::decode::slots::Slots;
use crate::error::ErrorKind;
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
            Op::Tuple { elems } => {
                let ops = prog.code.tuple_elems.get(elems.range()).unwrap_or_default();
                self.picked_tuple(prog, ops, picks, m, at)
            }
            Op::Map { elem } => self.picked_map(prog, elem, picks, m, at),
            _ => Err(crate::decode::common::internal(at)),
        }
    }

    /// Steps over the element at the read position (an error in it is the caller's to
    /// place).
    fn skip_element(&mut self) -> Result<(), Pending> {
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

    /// A tuple (marker `m` at `at`): its elements at the picked indexes, of the ops `ops` (one
    /// per pick); the tuple's length is checked.
    fn picked_tuple(
        &mut self,
        prog: &'a Program,
        ops: &'a [OpId],
        picks: &Picks,
        m: u8,
        at: usize,
    ) -> Result<Value<'a>, Pending> {
        let arity = match picks {
            Picks::Indexes { arity, .. } => arity.unwrap_or(0),
            Picks::Keys(_) => 0,
        };
        let len = self.array_len(m, at, "tuple")?;
        if len != arity {
            let msg = format!("a tuple of length {arity} is required ({len} given)");
            return Err(Pending::new(ErrorKind::WrongLength, at, msg));
        }
        let kept = u32::try_from(ops.len()).unwrap_or(u32::MAX);
        self.c.charge(kept, VALUE, at)?;
        let mut out = Slots::new(self.bump, kept);
        self.c.enter(at)?;
        for i in 0..len {
            match picks.index_position(u64::from(i)).and_then(|k| ops.get(k)) {
                Some(&op) => self
                    .value_with(prog, prog.op(op), op, |v| out.push(v))
                    .map_err(|e| e.in_index(i as usize))?,
                None => self.skip_element().map_err(|e| e.in_index(i as usize))?,
            }
        }
        self.c.leave();
        Ok(Value::Tuple(out.finish(Value::Null)))
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

#[cfg(test)]
mod tests {
    use bumpalo::Bump;

    use crate::schema::Selection;
    use crate::Program;

    /// Picks of a list, a tuple and a map (a key the input repeats is kept each time, and the
    /// DUMP writes the last, as go-cty keeps it):
    /// the DUMP of what they keep, and an error in an element stepped over at its path.
    #[test]
    fn picks_keep_the_picked_elements() {
        let full = Program::from_type_json(
            r#"["object",{"l":["list","string"],"t":["tuple",["bool","string","number"]],"m":["map","number"]}]"#,
        )
        .unwrap();
        let program = full
            .select(&Selection::parse(["l[1]", "l[5]", "t[2]", "t[0]", r#"m["k"]"#]).unwrap())
            .unwrap();
        let bump = Bump::new();
        // {"l":["a","b","c"],"t":[true,"x",7],"m":{"j":1,"k":2,"k":3}}
        let input = [
            0x83, 0xa1, b'l', 0x93, 0xa1, b'a', 0xa1, b'b', 0xa1, b'c', 0xa1, b't', 0x93, 0xc3,
            0xa1, b'x', 0x07, 0xa1, b'm', 0x83, 0xa1, b'j', 0x01, 0xa1, b'k', 0x02, 0xa1, b'k',
            0x03,
        ];
        let value = program.decode_msgpack(&input, &bump).unwrap();
        assert_eq!(
            crate::dump::to_string(&program, value).unwrap(),
            r#"{"l":["b"],"m":{"k":3},"t":[true,7]}"#
        );
        // The skipped `"a"`'s header claims more bytes than there are.
        let e = program
            .decode_msgpack(&[0x81, 0xa1, b'l', 0x92, 0xa5, b'a'], &bump)
            .unwrap_err();
        assert_eq!((e.path(), e.offset()), (".l[0]", Some(4)), "{e}");
    }
}
