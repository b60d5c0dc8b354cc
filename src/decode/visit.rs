//! Visiting a value without building it ([`Program::visit`]): the executors walk the input
//! under a program, as a decode does, and tell a [`Visitor`] each value as they meet it
//! (`json/visit.rs`, `msgpack/visit.rs`) instead of building [`Value`]s in an arena: for
//! counting and aggregating over many values.

use crate::error::DecodeError;
use crate::program::{DecodeOptions, Program};
use crate::value::Value;

use super::{json, msgpack};

/// The encoding of an input ([`Program::visit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// MessagePack, as [`Program::decode_msgpack`] reads it.
    Msgpack,
    /// JSON, as [`Program::decode_json`] reads it.
    Json,
}

/// A container a [`Visitor`] is told begins.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Container<'p> {
    /// A list: its elements follow.
    List,
    /// A set: its elements follow.
    Set,
    /// A map: each entry is a [`Visitor::key`] and its value.
    Map,
    /// A tuple: its elements follow.
    Tuple,
    /// An object: each attribute is a [`Visitor::attr`] and its value.
    Object,
    /// A dynamic value of the type this program decodes: its value follows.
    Dynamic(&'p Program),
}

/// What [`Program::visit`] tells, value by value, in input order. Every method but
/// [`scalar`](Visitor::scalar) does nothing unless implemented.
pub trait Visitor {
    /// A null, unknown, bool, number or string, as a decode gives it. A string borrows from
    /// the input, or (with escapes) from a buffer the next string reuses: copy it to keep it.
    fn scalar(&mut self, value: Value<'_>);
    /// A container begins; its parts follow, then [`end`](Visitor::end).
    fn begin(&mut self, container: Container<'_>) {
        let _ = container;
    }
    /// The attribute `name` of the object that began: its value follows.
    fn attr(&mut self, name: &str) {
        let _ = name;
    }
    /// The entry `key` of the map that began: its value follows.
    fn key(&mut self, key: &str) {
        let _ = key;
    }
    /// The innermost container that began has ended.
    fn end(&mut self) {}
}

/// Visiting ([`Visitor`]), the arena-free twin of decoding.
impl Program {
    /// Walks one value of this program (the whole input) and tells `visitor` each value in
    /// it, building nothing: scalars as a decode gives them, containers as
    /// [`begin`](Visitor::begin)…[`end`](Visitor::end). The input is checked as a decode
    /// checks it, with the same errors, and the visitor may have been told the values before
    /// the fault. Where it differs from a decode:
    ///
    /// - an object's attributes come in input order; those the input left out (JSON, or
    ///   MessagePack with `missing_attributes_null`) follow as nulls, in the type's order;
    /// - a dynamic value is told with the type its wrapper writes: a wrapper whose type holds
    ///   `dynamic` is not read through to go-cty's concrete type, so its inner wrappers are
    ///   told as they are, and their types are not checked against each other;
    /// - LIST/SET blocks' item counts are not checked.
    ///
    /// A projected program ([`Program::select`]) visits only the selected parts; paths inside
    /// a dynamic value select by the type its wrapper writes.
    ///
    /// ```
    /// use tfwire::{Container, DecodeOptions, Encoding, Program, Value, Visitor};
    ///
    /// /// Counts strings and sums numbers.
    /// #[derive(Default)]
    /// struct Tally { strings: usize, sum: i64, depth: usize }
    /// impl Visitor for Tally {
    ///     fn scalar(&mut self, value: Value<'_>) {
    ///         match value {
    ///             Value::String(_) => self.strings += 1,
    ///             Value::Int(n) => self.sum += n,
    ///             _ => {}
    ///         }
    ///     }
    ///     fn begin(&mut self, _: Container<'_>) { self.depth += 1; }
    /// }
    ///
    /// let program = Program::from_type_json(
    ///     r#"["object",{"id":"string","sizes":["list","number"]}]"#,
    /// )?;
    /// let mut tally = Tally::default();
    /// let input = br#"{"id":"i-1","sizes":[8,16,32]}"#;
    /// program.visit(Encoding::Json, input, &mut tally, &DecodeOptions::default())?;
    /// assert_eq!((tally.strings, tally.sum, tally.depth), (1, 56, 2));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn visit<V: Visitor + ?Sized>(
        &self,
        encoding: Encoding,
        input: &[u8],
        visitor: &mut V,
        options: &DecodeOptions,
    ) -> Result<(), DecodeError> {
        match encoding {
            Encoding::Msgpack => msgpack::visit(self, input, visitor, options),
            Encoding::Json => json::visit(self, input, visitor, options),
        }
    }
}

/// A visitor that is told nothing: the walks' way through a value they must check but not
/// tell.
pub(crate) struct Silent;

impl Visitor for Silent {
    fn scalar(&mut self, _: Value<'_>) {}
}
