//! The compiled form of a type: [`Program`], a flat array of [`Op`]s addressed by [`OpId`]s.
//!
//! A program is plain, immutable data (`Send + Sync`): the compiler in `compile` builds it
//! once from a [`Type`] (or a schema block), and every executor in `vm` runs over it. Object
//! ops keep their attributes sorted by name, with each name pre-encoded as the MessagePack
//! key bytes the VM compares against. Identical sub-types share one op.

// The executors call into this module on every value: nothing here may panic on a program
// or an id (see `src/decode/mod.rs`).
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

pub(crate) mod dyncache;
pub(crate) mod key;

use std::fmt;

use crate::limits::Limits;
use crate::schema::Type;
use dyncache::DynCache;

/// Index of an op in its [`Program`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub(crate) u32);

impl OpId {
    /// The index as a `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

/// A contiguous range in one of the program's side tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// One instruction: how to decode a value of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Op {
    String,
    Number,
    Bool,
    Dynamic,
    List { elem: OpId, items: ItemLimits },
    Set { elem: OpId, items: ItemLimits },
    Map { elem: OpId },
    Tuple { elems: Span },
    Object { attrs: Span },
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
    pub(crate) ops: Vec<Op>,
    pub(crate) attr_names: Vec<Box<str>>,
    /// Length of the longest attribute name: a decode whose `max_string_len` is at least this
    /// never checks the length of a key that names an attribute.
    pub(crate) longest_attr_name: u32,
    /// Dispatch entries of every object's attributes (objects index it with their span).
    pub(crate) attrs: Vec<crate::program::key::AttrEntry>,
    pub(crate) tuple_elems: Vec<OpId>,
    pub(crate) root: OpId,
    pub(crate) root_type: Type,
    /// True when `root_type` holds no `dynamic` (a wrapper of such a type reads through).
    pub(crate) concrete: bool,
    pub(crate) dyn_cache: DynCache,
}

/// Options for one decode (the drift options and the item-count check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
        &self.root_type
    }

    /// The root op.
    pub fn root(&self) -> OpId {
        self.root
    }

    /// Number of ops.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Always false: a program has at least its root op.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The instruction `id`. Ids come from this program's compiler, so they are in range; an
    /// id from another program (a value navigated with the wrong program) reads as `dynamic`
    /// instead of panicking.
    pub(crate) fn op(&self, id: OpId) -> Op {
        self.ops.get(id.index()).copied().unwrap_or(Op::Dynamic)
    }

    /// Index of attribute `name` in object op `op`.
    pub(crate) fn attr_index(&self, op: OpId, name: &str) -> Option<usize> {
        self.attr_names(op)
            .binary_search_by(|n| n.as_bytes().cmp(name.as_bytes()))
            .ok()
    }

    /// Attribute names of object op `op` (empty for other ops).
    pub(crate) fn attr_names(&self, op: OpId) -> &[Box<str>] {
        match self.ops.get(op.index()) {
            Some(Op::Object { attrs }) => self.attr_names.get(attrs.range()).unwrap_or(&[]),
            _ => &[],
        }
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Program({})", self.root_type)
    }
}

impl PartialEq for Program {
    /// Programs are equal when they decode the same type.
    fn eq(&self, other: &Program) -> bool {
        std::ptr::eq(self, other) || self.root_type == other.root_type
    }
}

/// The disassembly: one line per op, children before parents, root last.
impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "; type {}", self.root_type)?;
        writeln!(f, "; {} ops, root {}", self.ops.len(), self.root)?;
        for (i, op) in self.ops.iter().enumerate() {
            write!(f, "@{i}: ")?;
            match *op {
                Op::Bool => f.write_str("bool")?,
                Op::Number => f.write_str("number")?,
                Op::String => f.write_str("string")?,
                Op::Dynamic => f.write_str("dynamic")?,
                Op::List { elem, items } | Op::Set { elem, items } => {
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
                    let elems = self.tuple_elems.get(elems.range()).unwrap_or(&[]);
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
                    let names = self.attr_names.get(attrs.range()).unwrap_or(&[]);
                    let entries = self.attrs.get(attrs.range()).unwrap_or(&[]);
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
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
