//! The MessagePack executor's visit ([`Program::visit`](crate::Program::visit)): the
//! decoder's walk under a program, telling a [`Visitor`] each value instead of building it.
//! Scalars are the decoder's own (strings borrow from the input; an unknown's refinements
//! are read into a local); headers, keys, wrappers and skips too. The only allocation is a
//! flag per attribute of the open objects (bounded by the input's nesting, not its size).

use bumpalo::Bump;

use super::items::eof;
use super::reader::is_ext;
use super::Decoder;
use crate::decode::common::{duplicate_attribute, missing_attribute, AttrTable, Pending};
use crate::decode::restrict::visit_program;
use crate::decode::visit::{Container, Silent, Visitor};
use crate::error::{DecodeError, ErrorKind};
use crate::program::{
    tuple_arity, tuple_element, DecodeOptions, Op, OpId, Picks, Program, SelectionId, Span,
};
use crate::value::Value;

/// [`Program::visit`](crate::Program::visit) of MessagePack: exactly one value.
pub(crate) fn visit<V: Visitor + ?Sized>(
    program: &Program,
    input: &[u8],
    visitor: &mut V,
    options: &DecodeOptions,
) -> Result<(), DecodeError> {
    // (Nothing is allocated in it: the decoder's scalar paths build no value there.)
    let unused = Bump::new();
    let mut d = Decoder::new(program, input, &unused, options);
    let mut walk = Walk {
        d: &mut d,
        v: visitor,
        present: Vec::new(),
    };
    let root = program.code.root;
    walk.value(program, program.op(root), root)
        .map_err(Pending::into_error)?;
    if d.r.remaining() > 0 {
        let msg = format!("{} bytes after the value", d.r.remaining());
        return Err(Pending::new(ErrorKind::TrailingBytes, d.r.pos, msg).into_error());
    }
    Ok(())
}

/// A visit in progress.
struct Walk<'w, 'a, V: ?Sized> {
    d: &'w mut Decoder<'a>,
    v: &'w mut V,
    /// Which attributes each open object has had, innermost last.
    present: Vec<bool>,
}

impl<'a, V: Visitor + ?Sized> Walk<'_, 'a, V> {
    /// The value at the read position, of op `op` (`code` its instruction).
    fn value(&mut self, prog: &'a Program, code: Op, op: OpId) -> Result<(), Pending> {
        let at = self.d.r.pos;
        let Some(&m) = self.d.r.buf.get(at) else {
            return Err(eof(at));
        };
        if is_ext(m) {
            let refinements = self.d.unknown_refinements(prog.resolve(code), at)?;
            self.v.scalar(Value::Unknown(refinements.as_ref()));
            return Ok(());
        }
        if m == 0xc0 {
            self.d.r.skip1();
            self.v.scalar(Value::Null);
            return Ok(());
        }
        match code {
            Op::String | Op::Number | Op::Bool => {
                let v = &mut *self.v;
                self.d.value_with(prog, code, op, |value| v.scalar(value))
            }
            Op::List { elem, .. } => self.seq(prog, elem, Container::List, None, m, at),
            Op::Set { elem, .. } => self.seq(prog, elem, Container::Set, None, m, at),
            Op::Tuple { elems } => self.tuple(prog, elems, None, m, at),
            Op::Map { elem } => self.map(prog, elem, None, m, at),
            Op::Object { attrs } => self.object(prog, attrs, m, at),
            Op::Dynamic => self.dynamic(prog, None, m, at),
            Op::DynamicSelect { selection } => self.dynamic(prog, Some(selection), m, at),
            Op::Pick { of, picks } => {
                let Some(picks) = prog.picks(picks) else {
                    return Err(crate::decode::common::internal(at));
                };
                match prog.op(of) {
                    Op::List { elem, .. } => {
                        self.seq(prog, elem, Container::List, Some(picks), m, at)
                    }
                    Op::Tuple { elems } => self.tuple(prog, elems, Some(picks), m, at),
                    Op::Map { elem } => self.map(prog, elem, Some(picks), m, at),
                    _ => Err(crate::decode::common::internal(at)),
                }
            }
        }
    }

    /// A list or set (marker `m` at `at`) of `elem`: every element, or those `picks` picks.
    fn seq(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        kind: Container<'_>,
        picks: Option<&Picks>,
        m: u8,
        at: usize,
    ) -> Result<(), Pending> {
        let what = if matches!(kind, Container::Set) {
            "set"
        } else {
            "list"
        };
        let len = self.d.array_len(m, at, what)?;
        self.d.c.enter(at)?;
        self.v.begin(kind);
        let code = prog.op(elem);
        for i in 0..len {
            if picks.is_none_or(|p| p.index_position(u64::from(i)).is_some()) {
                self.value(prog, code, elem)
            } else {
                self.d.skip_element()
            }
            .map_err(|e| e.in_index(i as usize))?;
        }
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// A tuple (marker `m` at `at`) of the element ops `elems`: every element, or (one op per
    /// pick) those `picks` picks; its length checked either way.
    fn tuple(
        &mut self,
        prog: &'a Program,
        elems: Span,
        picks: Option<&Picks>,
        m: u8,
        at: usize,
    ) -> Result<(), Pending> {
        let ops = prog.code.tuple_elems.get(elems.range()).unwrap_or_default();
        let arity = tuple_arity(picks, elems);
        let len = self.d.array_len(m, at, "tuple")?;
        if len != arity {
            let msg = format!("a tuple of length {arity} is required ({len} given)");
            return Err(Pending::new(ErrorKind::WrongLength, at, msg));
        }
        self.d.c.enter(at)?;
        self.v.begin(Container::Tuple);
        for i in 0..len {
            match tuple_element(picks, ops, i) {
                Some(op) => self.value(prog, prog.op(op), op),
                None => self.d.skip_element(),
            }
            .map_err(|e| e.in_index(i as usize))?;
        }
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// A map (marker `m` at `at`) of `elem`: every entry, or those `picks` picks.
    fn map(
        &mut self,
        prog: &'a Program,
        elem: OpId,
        picks: Option<&Picks>,
        m: u8,
        at: usize,
    ) -> Result<(), Pending> {
        let len = self.d.map_len(m, at, "map")?;
        self.d.c.enter(at)?;
        self.v.begin(Container::Map);
        let code = prog.op(elem);
        for _ in 0..len {
            let key = self.d.map_key()?;
            if picks.is_none_or(|p| p.has_key(key)) {
                self.v.key(key);
                self.value(prog, code, elem)
            } else {
                self.d.skip_element()
            }
            .map_err(|e| e.in_key(key))?;
        }
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// An object (marker `m` at `at`) of the attributes `attrs`: those present in input
    /// order, then the missing ones as nulls (with `missing_attributes_null`; else refused);
    /// unknown keys refused, or stepped over (the drift option, a projection); duplicates
    /// refused.
    fn object(&mut self, prog: &'a Program, attrs: Span, m: u8, at: usize) -> Result<(), Pending> {
        let len = self.d.map_len(m, at, "object")?;
        let table = AttrTable::of(prog, attrs);
        self.d.c.enter(at)?;
        self.v.begin(Container::Object);
        let base = self.present.len();
        self.present
            .resize(base.saturating_add(table.entries.len()), false);
        for _ in 0..len {
            let kat = self.d.r.pos;
            let Some(j) = self.d.object_key(&table, kat)? else {
                continue; // an unknown key, stepped over with its value
            };
            let slot = self.present.get_mut(base.wrapping_add(j));
            if slot.as_deref() == Some(&true) {
                return Err(duplicate_attribute(table.name(j), kat));
            }
            if let Some(slot) = slot {
                *slot = true;
            }
            let (Some(entry), name) = (table.entries.get(j), table.name(j)) else {
                return Err(crate::decode::common::internal(kat));
            };
            self.v.attr(name);
            self.value(prog, entry.code, entry.op)
                .map_err(|e| e.in_attr(name))?;
        }
        for j in 0..table.entries.len() {
            if self.present.get(base.wrapping_add(j)) != Some(&true) {
                if !self.d.options.missing_attributes_null {
                    return Err(missing_attribute(table.name(j), at));
                }
                self.v.attr(table.name(j));
                self.v.scalar(Value::Null);
            }
        }
        self.present.truncate(base);
        self.d.c.leave();
        self.v.end();
        Ok(())
    }

    /// A dynamic wrapper `[type JSON, value]` (marker `m` at `at`): its value under the type
    /// it writes, told as a [`Container::Dynamic`]; at a selection of `prog`, under that
    /// type's projection (or null, stepped over, when the type has none of the paths).
    fn dynamic(
        &mut self,
        prog: &'a Program,
        selection: Option<SelectionId>,
        m: u8,
        at: usize,
    ) -> Result<(), Pending> {
        let sub = self.d.wrapper_type(m, at)?;
        self.d.c.enter(at)?;
        // A null or unknown value has no parts to select: told as it is.
        let whole = matches!(self.d.r.peek(), Some(v) if v == 0xc0 || is_ext(v));
        let max_types = self.d.options.limits.max_dynamic_types;
        let program = visit_program(self.d.root, prog, selection, sub, whole, max_types)
            .map_err(|(kind, msg)| Pending::new(kind, at, msg))?;
        // Selected inside: first walked under its own type telling nothing, so that its
        // faults are the decode's (which decodes it whole), then from its start again under
        // the projection (or told as null).
        let start = self.d.r.pos;
        if selection.is_some() && !whole {
            let mut silent = Walk {
                d: &mut *self.d,
                v: &mut Silent,
                present: Vec::new(),
            };
            silent.value(sub, sub.op(sub.code.root), sub.code.root)?;
        }
        match program {
            Some(p) => {
                self.d.r.pos = start;
                self.v.begin(Container::Dynamic(p));
                self.value(p, p.op(p.code.root), p.code.root)?;
                self.v.end();
            }
            None => self.v.scalar(Value::Null),
        }
        self.d.c.leave();
        Ok(())
    }
}
