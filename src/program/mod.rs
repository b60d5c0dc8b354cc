//! The compiled form of a type: [`Program`], a flat array of [`Op`]s addressed by [`OpId`]s.
//!
//! A program's code ([`Code`]) is plain, immutable data: the compiler in `compile` builds it
//! once from a [`Type`] (or a schema block) and validates it, and every executor in `decode`
//! runs over it. Ops are 12 bytes; cold data (item limits, attribute names, tuple members)
//! sits in side tables. Object ops keep their attributes sorted by name, with each name
//! pre-encoded as the MessagePack and JSON key bytes the executors compare against. A
//! projection's object op also has its type's whole key order (`Code::key_orders`): the
//! executors match each key against the next name in it and step over the values of the
//! names not selected, as a full decode matches and decodes them.
//! Identical sub-types share one op. Beside the code, a program holds the runtime cache of
//! the programs of `dynamic` values' concrete types (`dyncache`). `Program` is `Send + Sync`.

// The executors call into this module on every value: nothing here may panic on a program
// or an id (see `src/decode/mod.rs`).

pub(crate) mod dyncache;
pub(crate) mod key;
mod validate;

use std::fmt;

use crate::limits::Limits;
use crate::schema::Type;
use dyncache::DynCache;

/// An op of a [`Program`]: what an [`Object`](crate::Object) records of the program that
/// decoded or built it ([`Program::root`] for a program's root). Opaque: the program's
/// layout is the compiler's business.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub(crate) u32);

impl OpId {
    /// The index as a `usize`.
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

/// A contiguous range in one of the program's side tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub fn range(self) -> std::ops::Range<usize> {
        let start = self.start as usize;
        start..start.saturating_add(self.len as usize)
    }
}

/// `min_items` / `max_items` of a LIST or SET block; `max == 0` means unbounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct ItemLimits {
    pub min: u64,
    pub max: u64,
}

impl ItemLimits {
    pub fn is_none(self) -> bool {
        self.min == 0 && self.max == 0
    }
}

/// Index of a LIST/SET block's [`ItemLimits`] in the program's side table (`ItemsId::NONE`
/// for a collection without limits): the limits are cold data, kept out of the 12-byte ops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct ItemsId(pub(crate) u32);

impl ItemsId {
    pub const NONE: ItemsId = ItemsId(0);
}

/// One instruction: how to decode a value of one type (12 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    String,
    Number,
    Bool,
    Dynamic,
    List {
        elem: OpId,
        items: ItemsId,
    },
    Set {
        elem: OpId,
        items: ItemsId,
    },
    Map {
        elem: OpId,
    },
    Tuple {
        elems: Span,
    },
    Object {
        attrs: Span,
    },
    /// A projection's pick ([`Program::select`] with `[N]` or `["key"]`): the list, tuple or
    /// map `of`, of which only the elements `picks` names are decoded (the others stepped
    /// over). What the value looks like is `of`'s ([`Program::op_type`]); only the decoders
    /// see this op.
    Pick {
        of: OpId,
        picks: PickId,
    },
    /// A projection's `dynamic` value with paths inside it ([`Program::select`]): decoded
    /// whole, then restricted to the paths its own type has (`decode/restrict.rs`). A value
    /// of it looks like `dynamic`'s ([`Program::op_type`]).
    DynamicSelect {
        selection: SelectionId,
    },
}

/// The length a tuple of the element ops `elems` must have in the input: theirs, or under
/// `picks` (a pick's tuple, one op per pick) the picked tuple's.
pub(crate) fn tuple_arity(picks: Option<&Picks>, elems: Span) -> u32 {
    picks.map_or(elems.len, Picks::arity)
}

/// The op of element `i` of a tuple of the element ops `ops`: `ops[i]`, or under `picks` (one
/// op per pick) the op of its pick; `None` when `picks` leaves it out.
pub(crate) fn tuple_element(picks: Option<&Picks>, ops: &[OpId], i: u32) -> Option<OpId> {
    let k = match picks {
        None => i as usize,
        Some(p) => p.index_position(u64::from(i))?,
    };
    ops.get(k).copied()
}

/// Index of a [`Op::DynamicSelect`]'s paths in the program's side table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SelectionId(pub(crate) u32);

/// Index of a pick's [`Picks`] in the program's side table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PickId(pub(crate) u32);

/// The elements a [`Op::Pick`] keeps, sorted and without repeats.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Picks {
    /// Elements of a list (or of a tuple of `arity` elements) by index.
    Indexes {
        indexes: Box<[u64]>,
        /// The tuple's length (a list has none).
        arity: Option<u32>,
    },
    /// Entries of a map by key.
    Keys(Box<[Box<str>]>),
}

impl Picks {
    /// Where index `i` is among the picked indexes (`None`: not picked).
    #[inline]
    pub(crate) fn index_position(&self, i: u64) -> Option<usize> {
        match self {
            Picks::Indexes { indexes, .. } => indexes.binary_search(&i).ok(),
            Picks::Keys(_) => None,
        }
    }

    /// Whether the map entry `key` is picked.
    #[inline]
    pub(crate) fn has_key(&self, key: &str) -> bool {
        match self {
            Picks::Keys(keys) => keys
                .binary_search_by(|k| k.as_bytes().cmp(key.as_bytes()))
                .is_ok(),
            Picks::Indexes { .. } => false,
        }
    }

    /// The length a tuple picked from must have (a list's picks have none: 0).
    pub(crate) fn arity(&self) -> u32 {
        match self {
            Picks::Indexes { arity, .. } => arity.unwrap_or(0),
            Picks::Keys(_) => 0,
        }
    }

    /// How many elements at most a container of `len` elements keeps.
    pub(crate) fn kept_of(&self, len: u32) -> u32 {
        let picked = match self {
            Picks::Indexes { indexes, .. } => indexes.partition_point(|&i| i < u64::from(len)),
            Picks::Keys(keys) => keys.len(),
        };
        u32::try_from(picked).unwrap_or(u32::MAX).min(len)
    }
}

/// A compiled type. Build once, decode many values, share across threads.
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::Program;
///
/// let program = Program::from_type_json(r#"["object",{"id":"string","port":"number"}]"#).unwrap();
/// let bump = Bump::new();
/// let input = [0x82, 0xa2, b'i', b'd', 0xa1, b'x', 0xa4, b'p', b'o', b'r', b't', 0xcd, 0x01, 0xbb];
/// let value = program.decode_msgpack(&input, &bump).unwrap();
/// assert_eq!(value.attr(&program, "port").unwrap().as_i64(), Some(443));
/// ```
pub struct Program {
    /// The compiled data: immutable once built, and validated then.
    pub(crate) code: Code,
    /// Programs of the concrete types met at `dynamic` positions: runtime state, kept beside
    /// the code (not in it) so that the code stays plain data.
    pub(crate) dyn_cache: DynCache,
    /// A number no other program of the process has: what a cache keyed by program is keyed
    /// by (an address can be a dropped program's). (Only the `arrow` module keeps such
    /// caches so far.)
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) serial: u64,
}

/// The next program's [`Program::serial`].
pub(crate) fn next_serial() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A program's compiled data. Every id in it (the root, elements, tuple members, attribute
/// ops, item-limit ids) and every span is in range: [`Code::validate`] checks it when the
/// compiler is done, so the executors index it without fallbacks.
pub(crate) struct Code {
    pub(crate) ops: Vec<Op>,
    pub(crate) attr_names: Vec<Box<str>>,
    /// Length of the longest attribute name: a decode whose `max_string_len` is at least this
    /// never checks the length of a key that names an attribute.
    pub(crate) longest_attr_name: u32,
    /// Dispatch entries of every object's attributes (objects index it with their span).
    pub(crate) attrs: Vec<crate::program::key::AttrEntry>,
    pub(crate) tuple_elems: Vec<OpId>,
    /// `min_items`/`max_items` of LIST/SET blocks, indexed by [`ItemsId`]; entry 0 is "none".
    pub(crate) item_limits: Vec<ItemLimits>,
    /// What each [`Op::Pick`] keeps, indexed by [`PickId`].
    pub(crate) picks: Vec<Picks>,
    /// The paths inside each [`Op::DynamicSelect`], indexed by [`SelectionId`].
    pub(crate) selections: Vec<crate::schema::Selection>,
    pub(crate) root: OpId,
    pub(crate) root_type: Type,
    /// `root_type` as go-cty's compact type JSON (what the encoders write in dynamic
    /// wrappers), made once.
    pub(crate) type_json: Box<str>,
    /// True when `root_type` holds no `dynamic` (a wrapper of such a type reads through).
    pub(crate) concrete: bool,
    /// A projection ([`Program::select`]): object attributes the type does not have are
    /// stepped over (validated, not decoded), whatever the options say.
    pub(crate) projected: bool,
    /// Indexed by op (empty when no op has one): the key order of a projection's object op,
    /// a span of `attrs` and `attr_names` holding every attribute of the object type it was
    /// projected from, in name order; the selected ones (its own `attrs`, in the same order)
    /// with their ops, the others marked [`AttrEntry::stepped_over`](key::AttrEntry). An
    /// empty span for every other op.
    pub(crate) key_orders: Vec<Span>,
    /// Indexed as `attrs`, for the entries of key orders (shorter or empty elsewhere): the
    /// marker of a stepped-over key that is a fixstr of a length no selected key of its
    /// order has, else 0. A key with that marker at that place of the order cannot name a
    /// selected attribute (a fixstr can stand for no other length), so the MessagePack run
    /// steps over it by its marker alone, its bytes counted with the run's strings
    /// (`msgpack/run.rs`; a marker is a fixstr's, at or above 0x80, which that count needs);
    /// one byte per name, so an object's markers share a cache line or two.
    pub(crate) key_markers: Vec<u8>,
}

/// Options for one decode (the drift options and the item-count check).
///
/// ```
/// use tfwire::{DecodeOptions, Limits};
/// let options = DecodeOptions::default()
///     .with_skip_unknown_attributes(true)
///     .with_limits(Limits::DEFAULT.with_max_depth(32));
/// assert_eq!(options.limits.max_depth, 32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// Skip object keys the type does not have, instead of failing.
    pub skip_unknown_attributes: bool,
    /// A MessagePack object missing an attribute reads it as null, instead of failing.
    pub missing_attributes_null: bool,
    /// Check LIST/SET blocks' `min_items`/`max_items` (not when the blocks hold unknowns).
    pub check_item_counts: bool,
    /// Resource limits.
    pub limits: Limits,
}

with_setters!(DecodeOptions {
    #[const] with_skip_unknown_attributes => skip_unknown_attributes: bool,
    #[const] with_missing_attributes_null => missing_attributes_null: bool,
    #[const] with_check_item_counts => check_item_counts: bool,
    #[const] with_limits => limits: Limits,
});

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            skip_unknown_attributes: false,
            missing_attributes_null: false,
            check_item_counts: false,
            limits: Limits::DEFAULT,
        }
    }
}

impl Program {
    /// The type this program decodes.
    pub fn root_type(&self) -> &Type {
        &self.code.root_type
    }

    /// The root type as go-cty's compact type JSON.
    pub(crate) fn type_json(&self) -> &str {
        &self.code.type_json
    }

    /// The root op.
    pub fn root(&self) -> OpId {
        self.code.root
    }

    /// The instruction `id`, an id taken from this program's own code (its root, an op's
    /// element, an attribute entry): [`Code::validate`] proved it in range when the program
    /// was built, so there is no fallback — an id from elsewhere is a bug in the crate, and
    /// panics instead of decoding as something else. (Ids a caller hands in, through values,
    /// go through the checked lookups `attr_names` and `attr_index`.)
    #[inline(always)]
    pub(crate) fn op(&self, id: OpId) -> Op {
        match self.code.ops.get(id.index()) {
            Some(&op) => op,
            None => foreign_id(id),
        }
    }

    /// The op `id` as a value of it looks: a pick's collection for a pick (what the encoders,
    /// the builder and the DUMP walk), any other op itself.
    #[inline]
    pub(crate) fn op_type(&self, id: OpId) -> Op {
        self.resolve(self.op(id))
    }

    /// `code` as a value of it looks: a pick's collection for a pick, any other op itself.
    #[inline]
    pub(crate) fn resolve(&self, code: Op) -> Op {
        match code {
            Op::Pick { of, .. } => self.op(of),
            Op::DynamicSelect { .. } => Op::Dynamic,
            code => code,
        }
    }

    /// What pick `id` of this program keeps (validated in range: `None` only for an id
    /// from elsewhere, which keeps nothing).
    pub(crate) fn picks(&self, id: PickId) -> Option<&Picks> {
        self.code.picks.get(id.0 as usize)
    }

    /// The paths inside the dynamic values of [`Op::DynamicSelect`] `id` (validated in
    /// range: `None` only for an id from elsewhere).
    pub(crate) fn selection(&self, id: SelectionId) -> Option<&crate::schema::Selection> {
        self.code.selections.get(id.0 as usize)
    }

    /// The item limits `id` of a LIST/SET op of this program.
    pub(crate) fn item_limits(&self, id: ItemsId) -> ItemLimits {
        // In range (validated); the default is "no limits".
        self.code
            .item_limits
            .get(id.0 as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Index of attribute `name` in object op `op`.
    pub(crate) fn attr_index(&self, op: OpId, name: &str) -> Option<usize> {
        self.attr_names(op)
            .binary_search_by(|n| n.as_bytes().cmp(name.as_bytes()))
            .ok()
    }

    /// Attribute names and entries of object op `op` (`None` when `op` is not an object op of
    /// this program).
    pub(crate) fn attr_names_and_entries(
        &self,
        op: OpId,
    ) -> Option<(&[Box<str>], &[key::AttrEntry])> {
        match self.code.ops.get(op.index()) {
            Some(Op::Object { attrs }) => Some((
                self.code.attr_names.get(attrs.range()).unwrap_or(&[]),
                self.code.attrs.get(attrs.range()).unwrap_or(&[]),
            )),
            _ => None,
        }
    }

    /// The key order of projected object op `op` ([`Code::key_orders`]): its type's whole
    /// attribute list, in name order, and their names; empty for any other op.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn key_order(&self, op: OpId) -> (&[key::AttrEntry], &[Box<str>]) {
        match self.code.key_orders.get(op.index()) {
            Some(span) if span.len != 0 => (
                self.code.attrs.get(span.range()).unwrap_or(&[]),
                self.code.attr_names.get(span.range()).unwrap_or(&[]),
            ),
            _ => (&[], &[]),
        }
    }

    /// The [`Code::key_markers`] of projected object op `op`'s key order, one per entry of
    /// [`Self::key_order`] (empty for other ops).
    pub(crate) fn key_markers(&self, op: OpId) -> &[u8] {
        match self.code.key_orders.get(op.index()) {
            Some(span) if span.len != 0 => self.code.key_markers.get(span.range()).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The attribute names of object op `op`.
    pub(crate) fn attr_names(&self, op: OpId) -> &[Box<str>] {
        match self.code.ops.get(op.index()) {
            Some(Op::Object { attrs }) => self.code.attr_names.get(attrs.range()).unwrap_or(&[]),
            _ => &[],
        }
    }
}

#[cold]
#[inline(never)]
#[allow(clippy::panic)] // (an internal invariant, not input: see `Program::op`)
fn foreign_id(id: OpId) -> ! {
    panic!("op id {id} is not in this program (ids are validated when a program is built)")
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Program({})", self.code.root_type)
    }
}

impl PartialEq for Program {
    /// Programs are equal when they decode the same type.
    fn eq(&self, other: &Program) -> bool {
        std::ptr::eq(self, other) || self.code.root_type == other.code.root_type
    }
}

/// The disassembly: one line per op, children before parents, root last.
impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "; type {}", self.code.root_type)?;
        writeln!(f, "; {} ops, root {}", self.code.ops.len(), self.code.root)?;
        for (i, op) in self.code.ops.iter().enumerate() {
            write!(f, "@{i}: ")?;
            match *op {
                Op::Bool => f.write_str("bool")?,
                Op::Number => f.write_str("number")?,
                Op::String => f.write_str("string")?,
                Op::Dynamic => f.write_str("dynamic")?,
                Op::List { elem, items } | Op::Set { elem, items } => {
                    let items = self.item_limits(items);
                    let kind = if matches!(op, Op::List { .. }) {
                        "list"
                    } else {
                        "set"
                    };
                    write!(f, "{kind} {elem}")?;
                    if !items.is_none() {
                        write!(f, " items {}..", items.min)?;
                        if items.max > 0 {
                            write!(f, "={}", items.max)?;
                        }
                    }
                }
                Op::Map { elem } => write!(f, "map {elem}")?,
                Op::Tuple { elems } => {
                    f.write_str("tuple [")?;
                    let elems = self.code.tuple_elems.get(elems.range()).unwrap_or(&[]);
                    for (j, e) in elems.iter().enumerate() {
                        if j > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{e}")?;
                    }
                    f.write_str("]")?;
                }
                Op::Object { attrs } => {
                    write!(f, "object {} attrs {{", attrs.len)?;
                    let names = self.code.attr_names.get(attrs.range()).unwrap_or(&[]);
                    let entries = self.code.attrs.get(attrs.range()).unwrap_or(&[]);
                    for (j, (name, entry)) in names.iter().zip(entries).enumerate() {
                        if j > 0 {
                            f.write_str(",")?;
                        }
                        f.write_str(" ")?;
                        crate::schema::write_json_string(f, name)?;
                        write!(f, ": {}", entry.op)?;
                    }
                    f.write_str(" }")?;
                }
                Op::DynamicSelect { selection } => match self.selection(selection) {
                    Some(s) => write!(f, "dynamic select {s}")?,
                    None => f.write_str("dynamic select ?")?,
                },
                Op::Pick { of, picks } => {
                    write!(f, "pick {of} ")?;
                    match self.picks(picks) {
                        Some(Picks::Indexes { indexes, .. }) => write!(f, "{indexes:?}")?,
                        Some(Picks::Keys(keys)) => write!(f, "{keys:?}")?,
                        None => f.write_str("?")?,
                    }
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_are_small() {
        assert_eq!(std::mem::size_of::<Op>(), 12);
    }

    #[test]
    fn validation_rejects_ids_outside_the_program() {
        let good =
            Program::from_type_json(r#"["object",{"a":["list","string"],"b":["tuple",["bool"]]}]"#)
                .unwrap();
        assert_eq!(good.code.validate(), Ok(()));
        let broken = |edit: &dyn Fn(&mut Code)| {
            let mut p = Program::from_type_json(
                r#"["object",{"a":["list","string"],"b":["tuple",["bool"]]}]"#,
            )
            .unwrap();
            edit(&mut p.code);
            p.code.validate().unwrap_err()
        };
        broken(&|c| c.root = OpId(99));
        broken(&|c| c.tuple_elems[0] = OpId(99));
        broken(&|c| c.attr_names.pop().map(drop).unwrap_or(()));
        let list = |c: &mut Code| {
            c.ops
                .iter_mut()
                .find(|op| matches!(op, Op::List { .. }))
                .map(|op| {
                    *op = Op::List {
                        elem: OpId(0),
                        items: ItemsId(7),
                    }
                })
        };
        assert!(broken(&|c| {
            list(c);
        })
        .contains("refers outside"));
        // An attribute entry whose copy of its op no longer matches.
        broken(&|c| c.attrs[0].code = Op::Dynamic);
    }

    #[test]
    #[should_panic(expected = "not in this program")]
    fn a_foreign_id_panics_instead_of_decoding_as_dynamic() {
        let p = Program::from_type_json(r#""string""#).unwrap();
        p.op(OpId(5));
    }
}
