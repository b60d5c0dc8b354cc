//! Building values by hand: [`Builder`] makes [`Value`]s of a program's type in an arena,
//! checked against the type as they are made — what a provider computing a planned state, or
//! a state processor writing a converted value, needs where no decode made them.
//!
//! A value is described by [`Part`]s: plain Rust values (`&str`, `i64`, `f64`, `bool`, `None`
//! …), [`Value`]s (decoded ones included — prior state copied into a plan — checked deeply),
//! and the containers [`Builder::object`], [`Builder::list`], [`Builder::set`],
//! [`Builder::map`], [`Builder::tuple`] and [`Builder::dynamic`], each filled by a closure
//! through a cursor ([`ObjectBuilder`], …; `containers.rs`). A part is checked where it is
//! placed ([`At`]: the op being filled), so a container needs no type of its own: it takes the
//! one of where it goes. Wrong types, missing or unsupported attributes, a tuple of the wrong
//! length, bad number text are [`BuildError`]s naming the value path (`error.rs`); the
//! checks of whole values are in `check.rs`.
//!
//! # What a built value looks like
//! What decoding go-cty's MessagePack encoding of it gives, so that
//! [`Program::encode_msgpack`] writes go-cty's bytes and they decode back to an equal value:
//!
//! - objects with every attribute, in the program's (bytewise) order; map entries sorted by
//!   key (a key given twice is an error; in a checked value the last one is kept);
//! - numbers as go-cty writes them: integers in `int64` as [`Value::Int`] up to 127 and when
//!   negative, [`Value::UInt`] above (the uint formats go-cty uses), other numbers a float64
//!   holds exactly (and ±Inf) as [`Value::Float`], the rest as exact plain decimal text
//!   ([`Value::Decimal`]); `2.0` is `2`, `-0` is `0`;
//! - values at `dynamic` positions as [`Value::Dynamic`] with their type's program, typed
//!   nulls and unknowns too (as decoded: go-cty writes them as `[type, nil]`), those of type
//!   `dynamic` bare; refinements that say nothing dropped
//!   (an empty prefix, infinite bounds, lengths `0..` and `..i64::MAX`); a "definitely null"
//!   unknown is a null, as go-cty makes it;
//! - **sets each value once, in go-cty's order** (`set_order.rs`), as go-cty 1.12.1's
//!   `cty/set_internals.go` and `cty/set/ops.go` hold them: known values first, then unknowns
//!   in the order given, then one null; strings bytewise (Go's `<`), `false` before `true`,
//!   numbers by value (`big.Float.Cmp`); any other element type (objects — set blocks —,
//!   lists, maps, tuples, sets) bytewise by go-cty's *hash text* of the element
//!   (`appendSetHashBytes`, `cty_hash.rs`: `<"web";443;>` for an object); equal under that
//!   order, by hash bucket (the text's CRC-32) and then as given. Two values are the same
//!   when go-cty's `Equals` is definitely true: nulls are, values holding unknowns never are,
//!   numbers are when their `Text('f', -1)` is (the float64 `0.1` and the decimal `0.1`).
//!   Where go-cty reads decimal text at 512 bits, these rules take its exact value (which
//!   differs only for text of more than ~150 significant digits, or text exactly halfway
//!   between two 10-digit hash texts), and strings are taken as given (go-cty NFC-normalises
//!   them). Checked against go-cty through its oracle on scrambled sets (`tests/build.rs`).
//!
//! Checking an existing value brings its sets, maps and numbers into this form, copying only
//! the containers that change: a value decoded from go-cty's bytes comes back as it was.
//! Everything is allocated in the arena (no heap allocation once it is warm). Nesting is
//! bounded by [`MAX_DEPTH`] containers, as in a decode.

mod check;
mod containers;
mod cty_hash;
mod error;
mod go_print;
mod numbers;
mod set_order;

use bumpalo::Bump;

pub use containers::{ListBuilder, MapBuilder, ObjectBuilder, SetBuilder, TupleBuilder};
pub use error::BuildError;

use crate::limits::MAX_DEPTH;
use crate::number::Number;
use crate::program::{Op, OpId, Program};
use crate::schema::Type;
use crate::value::{Refinements, Value};

/// Builds values of one program's type in one arena. `Copy`: closures capture it freely.
///
/// Scalars are plain [`Value`]s (or plain Rust values: every [`Part`] works); containers are
/// parts filled by a closure; [`Builder::build`] places a part at the root.
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::Program;
///
/// let program = Program::from_type_json(
///     r#"["object",{"id":"string","name":"string","port":"number",
///         "tags":["map","string"],"cidrs":["set","string"]}]"#,
/// )?;
/// let bump = Bump::new();
/// let b = program.builder(&bump);
/// let value = b.build(b.object(|o| {
///     o.set("name", "web")?;
///     o.set("port", 443)?;
///     o.set("tags", b.map(|m| m.insert("env", "prod")))?;
///     o.set("cidrs", b.set_from(["10.0.0.0/8", "0.0.0.0/0", "10.0.0.0/8"]))?;
///     o.unknown("id") // known after apply
/// }))?;
///
/// let root = program.typed(value);
/// assert_eq!(root.attr("port").unwrap().value.as_i64(), Some(443));
/// // A set in go-cty's order, each value once.
/// let cidrs: Vec<_> = root.attr("cidrs").unwrap().elements().map(|e| e.value.as_str()).collect();
/// assert_eq!(cidrs, [Some("0.0.0.0/0"), Some("10.0.0.0/8")]);
///
/// // go-cty's bytes, which decode to the same value.
/// let mut out = Vec::new();
/// program.encode_msgpack(value, &mut out)?;
/// assert_eq!(program.decode_msgpack(&out, &bump)?, value);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Builder<'a> {
    program: &'a Program,
    bump: &'a Bump,
}

/// A position being filled: the op of the program whose type the value there must have.
/// [`Part::fill`] receives one; it is made only by the builder, so its op is always one of its
/// program's.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    program: &'a Program,
    bump: &'a Bump,
    op: OpId,
    /// Containers and dynamic wrappers around this position.
    depth: u32,
    /// Inside a dynamic value (its program's own dynamic positions hold only nulls and
    /// unknowns).
    wrapped: bool,
}

/// Something that can be placed at a position: it builds its value there, checked against the
/// position's type.
///
/// Implemented by [`Value`] (checked deeply; sets and maps brought into canonical form), by
/// `&str` and `String` (a string, copied into the arena), `bool`, `i32`, `i64`, `u32`, `u64`,
/// `f64` and [`Number`] (numbers), by `Option<P>` (`None` is a null), and by the containers the
/// [`Builder`] makes. At a `dynamic` position a string, number or bool takes its primitive type;
/// anything else needs [`Builder::dynamic`]. Implement it to place a type of your own:
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::build::{At, BuildError, Part};
/// use tfwire::{Program, Value};
///
/// struct Rule { port: u16, cidr: &'static str }
///
/// impl<'a> Part<'a> for &Rule {
///     fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
///         let b = at.builder();
///         b.object(|o| {
///             o.set("port", u32::from(self.port))?;
///             o.set("cidr", self.cidr)
///         })
///         .fill(at)
///     }
/// }
///
/// let program = Program::from_type_json(r#"["list",["object",{"cidr":"string","port":"number"}]]"#)?;
/// let bump = Bump::new();
/// let b = program.builder(&bump);
/// let rules = [Rule { port: 22, cidr: "10.0.0.0/8" }, Rule { port: 443, cidr: "0.0.0.0/0" }];
/// let value = b.build(b.list_from(&rules))?;
/// assert_eq!(value.len(), Some(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Part<'a> {
    /// Builds the value at `at`, checked against its type.
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError>;
}

impl Program {
    /// A [`Builder`] of values of this program's type in `bump`.
    pub fn builder<'a>(&'a self, bump: &'a Bump) -> Builder<'a> {
        Builder::new(self, bump)
    }
}

impl<'a> Builder<'a> {
    /// A builder of values of `program`'s type in `bump` (also [`Program::builder`]).
    pub fn new(program: &'a Program, bump: &'a Bump) -> Builder<'a> {
        Builder { program, bump }
    }

    /// The program whose type the root has.
    pub fn program(self) -> &'a Program {
        self.program
    }

    /// The arena values are built in.
    pub fn bump(self) -> &'a Bump {
        self.bump
    }

    /// Builds `part` at the root: a value of the program's type, or the first error found.
    pub fn build(self, part: impl Part<'a>) -> Result<Value<'a>, BuildError> {
        part.fill(At {
            program: self.program,
            bump: self.bump,
            op: self.program.root(),
            depth: 0,
            wrapped: false,
        })
    }

    /// A string, copied into the arena.
    pub fn string(self, s: &str) -> Value<'a> {
        Value::String(self.bump.alloc_str(s))
    }

    /// A number from an `i64`.
    pub fn int(self, i: i64) -> Value<'a> {
        Value::Int(i)
    }

    /// A number from a `u64`.
    pub fn uint(self, u: u64) -> Value<'a> {
        Value::UInt(u)
    }

    /// A number from an `f64`: finite or ±infinity (a NaN is an error where it is placed).
    pub fn float(self, f: f64) -> Value<'a> {
        Value::Float(f)
    }

    /// A number from decimal text (Go's `ParseFloat` grammar: `1.5`, `-2e10`, `1p4`, `+Inf`),
    /// copied into the arena; text that is not a number is an error where it is placed.
    pub fn decimal(self, text: &str) -> Value<'a> {
        Value::Decimal(self.bump.alloc_str(text))
    }

    /// A bool.
    pub fn bool(self, b: bool) -> Value<'a> {
        Value::Bool(b)
    }

    /// A null (of any type).
    pub fn null(self) -> Value<'a> {
        Value::Null
    }

    /// An unknown value without refinements (of any type).
    pub fn unknown(self) -> Value<'a> {
        Value::Unknown(None)
    }

    /// An unknown value with refinements (copied into the arena). Where it is placed they must
    /// suit the type — a string prefix for a string, number bounds for a number, length bounds
    /// for a list, set or map, nullness anywhere — and be consistent (lower bounds not above
    /// upper ones; "definitely null" alone). At a `dynamic` position they are dropped, as the
    /// decoders drop them.
    pub fn unknown_refined(self, r: &Refinements<'_>) -> Value<'a> {
        let bump = self.bump;
        let number = |n: Number<'_>| match n {
            Number::Decimal(t) => Number::Decimal(bump.alloc_str(t)),
            Number::Int(i) => Number::Int(i),
            Number::UInt(u) => Number::UInt(u),
            Number::Float(f) => Number::Float(f),
        };
        let copy = Refinements {
            nullness: r.nullness,
            string_prefix: r.string_prefix.map(|p| &*bump.alloc_str(p)),
            number_lower: r.number_lower.map(|(n, inc)| (number(n), inc)),
            number_upper: r.number_upper.map(|(n, inc)| (number(n), inc)),
            length_lower: r.length_lower,
            length_upper: r.length_upper,
        };
        Value::Unknown(Some(bump.alloc(copy)))
    }

    /// A list, filled by `f` through a [`ListBuilder`].
    pub fn list<F>(self, f: F) -> impl Part<'a>
    where
        F: FnOnce(&mut ListBuilder<'a>) -> Result<(), BuildError>,
    {
        With(move |at| containers::list(at, f))
    }

    /// A list of `items`, in order.
    pub fn list_from<I>(self, items: I) -> impl Part<'a>
    where
        I: IntoIterator,
        I::Item: Part<'a>,
    {
        self.list(|l| l.extend(items))
    }

    /// A set, filled by `f` through a [`SetBuilder`]; complete, it holds each value once, in
    /// go-cty's order.
    pub fn set<F>(self, f: F) -> impl Part<'a>
    where
        F: FnOnce(&mut SetBuilder<'a>) -> Result<(), BuildError>,
    {
        With(move |at| containers::set(at, f))
    }

    /// A set of `items` (each value once, in go-cty's order).
    pub fn set_from<I>(self, items: I) -> impl Part<'a>
    where
        I: IntoIterator,
        I::Item: Part<'a>,
    {
        self.set(|s| s.extend(items))
    }

    /// A map, filled by `f` through a [`MapBuilder`]; complete, its entries are sorted by key.
    pub fn map<F>(self, f: F) -> impl Part<'a>
    where
        F: FnOnce(&mut MapBuilder<'a>) -> Result<(), BuildError>,
    {
        With(move |at| containers::map(at, f))
    }

    /// A map of `(key, element)` pairs (a key given twice is an error).
    pub fn map_from<I, K, P>(self, entries: I) -> impl Part<'a>
    where
        I: IntoIterator<Item = (K, P)>,
        K: AsRef<str>,
        P: Part<'a>,
    {
        self.map(|m| {
            for (k, p) in entries {
                m.insert(k.as_ref(), p)?;
            }
            Ok(())
        })
    }

    /// A tuple, filled by `f` through a [`TupleBuilder`] (exactly the type's elements).
    pub fn tuple<F>(self, f: F) -> impl Part<'a>
    where
        F: FnOnce(&mut TupleBuilder<'a>) -> Result<(), BuildError>,
    {
        With(move |at| containers::tuple(at, f))
    }

    /// An object, filled by `f` through an [`ObjectBuilder`]: every attribute must be given
    /// (a null explicitly, or with [`ObjectBuilder::null_unset`]).
    pub fn object<F>(self, f: F) -> impl Part<'a>
    where
        F: FnOnce(&mut ObjectBuilder<'a>) -> Result<(), BuildError>,
    {
        With(move |at| containers::object(at, f))
    }

    /// A value for a `dynamic` position: `part` built as a value of `program`'s type, wrapped
    /// as a [`Value::Dynamic`]. (Where that type holds `dynamic` itself, the value has nulls or
    /// unknowns there: a known value takes its concrete type in `program`.) A null or unknown
    /// stays bare (a value's type is kept only with a known value, as the decoders do).
    /// [`Builder::dynamic_type`] gives a program for a [`Type`].
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::{Program, Type};
    ///
    /// let program = Program::from_type_json(r#"["object",{"manifest":"dynamic"}]"#)?;
    /// let bump = Bump::new();
    /// let b = program.builder(&bump);
    /// let ty = b.dynamic_type(&Type::List(Box::new(Type::String)))?;
    /// let value = b.build(b.object(|o| o.set("manifest", b.dynamic(ty, b.list_from(["a", "b"])))))?;
    /// let manifest = program.typed(value).attr("manifest").unwrap();
    /// assert_eq!(manifest.program.root_type().to_string(), r#"["list","string"]"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dynamic(self, program: &'a Program, part: impl Part<'a>) -> impl Part<'a> {
        With(move |at| check::dynamic(at, program, part))
    }

    /// The program of `ty` for [`Builder::dynamic`], compiled once and kept in the root
    /// program's cache of dynamic types (beside those its decodes met), so it lives as long as
    /// the root program. An error when the cache is full (`Limits::max_dynamic_types` of the
    /// default limits).
    pub fn dynamic_type(self, ty: &Type) -> Result<&'a Program, BuildError> {
        check::cached_program(self.program, &ty.to_string())
    }
}

impl<'a> At<'a> {
    /// The program whose op this position is (inside a dynamic value: the concrete type's).
    pub fn program(&self) -> &'a Program {
        self.program
    }

    /// The op being filled.
    pub fn op(&self) -> OpId {
        self.op
    }

    /// The arena.
    pub fn bump(&self) -> &'a Bump {
        self.bump
    }

    /// A builder over this position's program and arena (its parts can be placed anywhere).
    pub fn builder(&self) -> Builder<'a> {
        Builder::new(self.program, self.bump)
    }

    pub(crate) fn code(&self) -> Op {
        self.program.op_type(self.op)
    }

    /// The position of an element or attribute of op `op` inside this one.
    pub(crate) fn child(&self, op: OpId) -> At<'a> {
        At {
            op,
            depth: self.depth.saturating_add(1),
            ..*self
        }
    }

    /// The root of `program`, inside this (dynamic) position.
    pub(crate) fn inside(&self, program: &'a Program) -> At<'a> {
        At {
            program,
            op: program.root(),
            wrapped: true,
            ..self.child(program.root())
        }
    }

    /// A container or dynamic wrapper opens here: at most [`MAX_DEPTH`] of them nest, so a
    /// built value decodes (and encodes) under the default limits.
    pub(crate) fn enter(&self) -> Result<(), BuildError> {
        if self.depth >= MAX_DEPTH {
            let msg = format!("nesting deeper than MAX_DEPTH ({MAX_DEPTH})");
            return Err(BuildError::new(msg));
        }
        Ok(())
    }
}

/// A part made by a closure over its position.
struct With<F>(F);

impl<'a, F> Part<'a> for With<F>
where
    F: FnOnce(At<'a>) -> Result<Value<'a>, BuildError>,
{
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        (self.0)(at)
    }
}

impl<'a> Part<'a> for Value<'a> {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        check::value(at, self)
    }
}

impl<'a> Part<'a> for &Value<'a> {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        check::value(at, *self)
    }
}

impl<'a, P: Part<'a>> Part<'a> for Option<P> {
    /// `None` is a null.
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        match self {
            Some(p) => p.fill(at),
            None => Ok(Value::Null),
        }
    }
}

impl<'a> Part<'a> for &str {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        check::string(at, self)
    }
}

impl<'a> Part<'a> for &String {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        check::string(at, self)
    }
}

impl<'a> Part<'a> for String {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        check::string(at, &self)
    }
}

impl<'a> Part<'a> for Number<'a> {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        check::value(at, Value::from(self))
    }
}

macro_rules! scalar_parts {
    ($($t:ty => $v:expr),* $(,)?) => {$(
        impl<'a> Part<'a> for $t {
            fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
                #[allow(clippy::redundant_closure_call)]
                check::value(at, ($v)(self))
            }
        }
    )*};
}

scalar_parts! {
    bool => Value::Bool,
    i64 => Value::Int,
    i32 => |i: i32| Value::Int(i64::from(i)),
    u64 => Value::UInt,
    u32 => |u: u32| Value::Int(i64::from(u)),
    f64 => Value::Float,
}
