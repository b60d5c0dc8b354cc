//! Decoded values: [`Value`], a small `Copy` enum whose containers are arena slices and whose
//! strings borrow from the input.
//!
//! Object values hold their attributes as a slot array in the program's attribute order
//! (sorted by name); names are resolved through the [`Program`] that decoded them. A value at
//! a `dynamic` position is a [`Value::Dynamic`] that carries the program of its concrete type.
//! [`Typed`] bundles a value with its program so that navigation crosses dynamic boundaries
//! without the caller tracking programs.

use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::number::Number;
use crate::program::{OpId, Program};

/// One decoded cty value: 24 bytes on 64-bit targets, a tag word followed by its payload at
/// offset 8 (`#[repr(C, u64)]`: no padding between the tag and the payload, so a value is
/// moved as three words; numbers are variants of their own, not a nested enum).
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::{Program, Value};
///
/// let program = Program::from_type_json(r#"["map","string"]"#).unwrap();
/// let bump = Bump::new();
/// // {"Name": "web"} in MessagePack.
/// let input = [0x81, 0xa4, b'N', b'a', b'm', b'e', 0xa3, b'w', b'e', b'b'];
/// let value = program.decode_msgpack(&input, &bump).unwrap();
/// assert_eq!(value.map_get("Name").and_then(|v| v.as_str()), Some("web"));
/// assert_eq!(std::mem::size_of::<Value>(), 24);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, u64)]
pub enum Value<'a> {
    /// A null of any type.
    Null,
    /// An unknown value, with its refinements when the wire carried any.
    Unknown(Option<&'a Refinements<'a>>),
    /// A bool.
    Bool(bool),
    /// A number that was a MessagePack signed integer, or a JSON integer literal that fits.
    Int(i64),
    /// A number that was a MessagePack unsigned integer.
    UInt(u64),
    /// A number that was a MessagePack float32 (widened exactly) or float64; never NaN.
    Float(f64),
    /// A number as decimal text (a MessagePack string, a JSON number literal), validated, as
    /// received. [`Value::as_number`] gives any number as a [`Number`].
    Decimal(&'a str),
    /// A string, borrowed from the input (or from the arena when JSON escapes forced a copy).
    String(&'a str),
    /// A list.
    List(&'a [Value<'a>]),
    /// A set, in wire order, not de-duplicated.
    Set(&'a [Value<'a>]),
    /// A tuple.
    Tuple(&'a [Value<'a>]),
    /// A map, in wire order; with duplicate keys, lookups see the last.
    Map(&'a [(&'a str, Value<'a>)]),
    /// An object: attribute values in the program's attribute order.
    Object(Object<'a>),
    /// A known, non-null value at a `dynamic` position, with its concrete type.
    Dynamic(&'a Dynamic<'a>),
}

/// An object value: the object op that decoded it (which names its attributes) and its
/// attribute values, one per attribute of the type, in name order. 16 bytes: the op and the
/// length share a word, beside a thin pointer.
///
/// ```
/// use tfwire::{Object, Program, Value};
///
/// let program = Program::from_type_json(r#"["object",{"a":"bool"}]"#).unwrap();
/// let attrs = [Value::Bool(true)];
/// let object = Object::new(program.root(), &attrs);
/// assert_eq!(object.attrs(), &[Value::Bool(true)]);
/// assert_eq!(Value::Object(object).attr(&program, "a"), Some(Value::Bool(true)));
/// ```
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Object<'a> {
    op: OpId,
    len: u32,
    attrs: NonNull<Value<'a>>,
    _slice: PhantomData<&'a [Value<'a>]>,
}

// SAFETY: an `Object` is a `&'a [Value<'a>]` split into a pointer and a length (plus an id)
// and is shared exactly as that slice is. The slice is `Send` and `Sync` because `Value` is
// `Sync`: every other variant holds only shared references to `Sync` data and plain numbers
// (`tests/value_layout.rs` asserts `Value: Send + Sync` through a value of each variant).
unsafe impl Send for Object<'_> {}
// SAFETY: as for `Send`.
unsafe impl Sync for Object<'_> {}

impl<'a> Object<'a> {
    /// An object of op `op` (an object op of the program that gives its names) with attribute
    /// values `attrs`.
    ///
    /// # Panics
    /// When `attrs` has more than `u32::MAX` elements (no program has that many attributes).
    pub fn new(op: OpId, attrs: &'a [Value<'a>]) -> Object<'a> {
        assert!(
            u32::try_from(attrs.len()).is_ok(),
            "more than u32::MAX attributes"
        );
        Object::from_slice(op, attrs)
    }

    /// [`Object::new`] for the attributes of an object op (whose count is a `u32`, so the
    /// length fits; were it longer, the object would only be shorter, never unsound).
    #[inline(always)]
    pub(crate) fn from_slice(op: OpId, attrs: &'a [Value<'a>]) -> Object<'a> {
        debug_assert!(u32::try_from(attrs.len()).is_ok());
        Object {
            op,
            len: attrs.len() as u32,
            attrs: NonNull::from(attrs).cast(),
            _slice: PhantomData,
        }
    }

    /// The object op that decoded this value.
    pub fn op(&self) -> OpId {
        self.op
    }

    /// Attribute values, one per attribute of the type, in name order.
    #[inline(always)]
    pub fn attrs(&self) -> &'a [Value<'a>] {
        // SAFETY: `attrs` and `len` come from one `&'a [Value<'a>]` (`from_parts` keeps `len`
        // at most that slice's length), so they describe initialised values that live for `'a`
        // and are never written through again (the slice was shared).
        unsafe { std::slice::from_raw_parts(self.attrs.as_ptr(), self.len as usize) }
    }
}

impl fmt::Debug for Object<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Object")
            .field("op", &self.op)
            .field("attrs", &self.attrs())
            .finish()
    }
}

impl PartialEq for Object<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.op == other.op && self.attrs() == other.attrs()
    }
}

impl<'a> From<Number<'a>> for Value<'a> {
    /// The variant that holds the number (`Int`, `UInt`, `Float` or `Decimal`).
    #[inline(always)]
    fn from(n: Number<'a>) -> Value<'a> {
        match n {
            Number::Int(i) => Value::Int(i),
            Number::UInt(u) => Value::UInt(u),
            Number::Float(f) => Value::Float(f),
            Number::Decimal(s) => Value::Decimal(s),
        }
    }
}

/// A value at a `dynamic` position together with the program of its concrete type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dynamic<'a> {
    /// The compiled concrete type (its [`Program::root_type`] is the type).
    pub program: &'a Program,
    /// The value under that type.
    pub value: Value<'a>,
}

/// Refinements of an unknown value (MessagePack extension 12), as decoded.
///
/// They are kept as received; none collapses the unknown into a known value.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Refinements<'a> {
    /// Key 1: `Some(false)` definitely not null, `Some(true)` definitely null.
    pub nullness: Option<bool>,
    /// Key 2: a prefix of the final string.
    pub string_prefix: Option<&'a str>,
    /// Key 3: lower bound of a number and whether it is inclusive.
    pub number_lower: Option<(Number<'a>, bool)>,
    /// Key 4: upper bound of a number and whether it is inclusive.
    pub number_upper: Option<(Number<'a>, bool)>,
    /// Key 5: inclusive lower bound of a collection's length.
    pub length_lower: Option<u64>,
    /// Key 6: inclusive upper bound of a collection's length.
    pub length_upper: Option<u64>,
}

impl<'a> Value<'a> {
    /// Whether the value opens a level of nesting (a container or a dynamic wrapper), as the
    /// decoders count depth against `max_depth` and the value walks against
    /// [`MAX_VALUE_DEPTH`](crate::MAX_VALUE_DEPTH).
    #[inline]
    pub(crate) fn nests(&self) -> bool {
        matches!(
            self,
            Value::List(_)
                | Value::Set(_)
                | Value::Tuple(_)
                | Value::Map(_)
                | Value::Object(_)
                | Value::Dynamic(_)
        )
    }

    /// True for a null, also a typed null at a `dynamic` position (a [`Value::Dynamic`]
    /// holding [`Value::Null`]).
    pub fn is_null(&self) -> bool {
        match self {
            Value::Dynamic(d) => matches!(d.value, Value::Null),
            v => matches!(v, Value::Null),
        }
    }

    /// False for an unknown, also a typed unknown at a `dynamic` position (only the top level
    /// is looked at).
    pub fn is_known(&self) -> bool {
        match self {
            Value::Dynamic(d) => !matches!(d.value, Value::Unknown(_)),
            v => !matches!(v, Value::Unknown(_)),
        }
    }

    /// Refinements of an unknown value, if any.
    pub fn refinements(&self) -> Option<&'a Refinements<'a>> {
        match *self {
            Value::Unknown(r) => r,
            Value::Dynamic(d) => d.value.refinements(),
            _ => None,
        }
    }

    /// The string, for a known string.
    pub fn as_str(&self) -> Option<&'a str> {
        match *self {
            Value::String(s) => Some(s),
            Value::Dynamic(d) => d.value.as_str(),
            _ => None,
        }
    }

    /// The bool, for a known bool.
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            Value::Dynamic(d) => d.value.as_bool(),
            _ => None,
        }
    }

    /// The number, for a known number.
    pub fn as_number(&self) -> Option<Number<'a>> {
        match *self {
            Value::Int(i) => Some(Number::Int(i)),
            Value::UInt(u) => Some(Number::UInt(u)),
            Value::Float(f) => Some(Number::Float(f)),
            Value::Decimal(s) => Some(Number::Decimal(s)),
            Value::Dynamic(d) => d.value.as_number(),
            _ => None,
        }
    }

    /// The number as an `i64` when it is an integer in range.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(|n| n.as_i64())
    }

    /// The number as the nearest `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().map(|n| n.as_f64())
    }

    /// Elements of a list, set or tuple.
    pub fn elements(&self) -> Option<&'a [Value<'a>]> {
        match *self {
            Value::List(e) | Value::Set(e) | Value::Tuple(e) => Some(e),
            Value::Dynamic(d) => d.value.elements(),
            _ => None,
        }
    }

    /// Element `i` of a list, set (wire order) or tuple.
    pub fn index(&self, i: usize) -> Option<Value<'a>> {
        self.elements().and_then(|e| e.get(i).copied())
    }

    /// Entries of a map, in wire order.
    pub fn entries(&self) -> Option<&'a [(&'a str, Value<'a>)]> {
        match *self {
            Value::Map(e) => Some(e),
            Value::Dynamic(d) => d.value.entries(),
            _ => None,
        }
    }

    /// The element of a map under `key` (the last one when the wire repeated the key).
    pub fn map_get(&self, key: &str) -> Option<Value<'a>> {
        self.entries()
            .and_then(|e| e.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| *v))
    }

    /// Number of elements of a collection, entries of a map or attributes of an object.
    pub fn len(&self) -> Option<usize> {
        match *self {
            Value::List(e) | Value::Set(e) | Value::Tuple(e) => Some(e.len()),
            Value::Map(e) => Some(e.len()),
            Value::Object(o) => Some(o.attrs().len()),
            Value::Dynamic(d) => d.value.len(),
            _ => None,
        }
    }

    /// True when [`len`](Value::len) is `Some(0)`.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }

    /// Attribute `name` of an object, resolved through `program` (the program that decoded
    /// this value). For navigation across dynamic values use [`Typed`].
    pub fn attr(&self, program: &'a Program, name: &str) -> Option<Value<'a>> {
        Typed::new(program, *self).attr(name).map(|t| t.value)
    }
}

/// A value with the program that gives its attribute names: navigation that crosses
/// `dynamic` positions transparently.
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::Program;
///
/// let program = Program::from_type_json(r#"["object",{"id":"string","extra":"dynamic"}]"#).unwrap();
/// let bump = Bump::new();
/// // {"extra": ["[\"object\",{\"n\":\"number\"}]", {"n": 7}], "id": "i-1"}
/// let mut input = vec![0x82, 0xa5];
/// input.extend_from_slice(b"extra");
/// input.push(0x92);
/// let ty = br#"["object",{"n":"number"}]"#;
/// input.push(0xc4);
/// input.push(ty.len() as u8);
/// input.extend_from_slice(ty);
/// input.extend_from_slice(&[0x81, 0xa1, b'n', 0x07, 0xa2, b'i', b'd', 0xa3, b'i', b'-', b'1']);
/// let value = program.decode_msgpack(&input, &bump).unwrap();
/// let root = program.typed(value);
/// assert_eq!(root.attr("id").unwrap().value.as_str(), Some("i-1"));
/// assert_eq!(root.attr("extra").unwrap().attr("n").unwrap().value.as_i64(), Some(7));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Typed<'a> {
    /// The program whose ops the value refers to.
    pub program: &'a Program,
    /// The value.
    pub value: Value<'a>,
}

impl<'a> Typed<'a> {
    /// Bundles a value with the program that decoded it.
    pub fn new(program: &'a Program, value: Value<'a>) -> Typed<'a> {
        // Look through a dynamic wrapper at once, so accessors see the concrete value.
        match value {
            Value::Dynamic(d) => Typed {
                program: d.program,
                value: d.value,
            },
            v => Typed { program, value: v },
        }
    }

    /// Attribute `name` of an object value.
    pub fn attr(&self, name: &str) -> Option<Typed<'a>> {
        let Value::Object(object) = self.value else {
            return None;
        };
        let i = self.program.attr_index(object.op(), name)?;
        object.attrs().get(i).map(|v| Typed::new(self.program, *v))
    }

    /// Element `i` of a list, set or tuple.
    pub fn index(&self, i: usize) -> Option<Typed<'a>> {
        self.value.index(i).map(|v| Typed::new(self.program, v))
    }

    /// The map element under `key`.
    pub fn get(&self, key: &str) -> Option<Typed<'a>> {
        self.value.map_get(key).map(|v| Typed::new(self.program, v))
    }

    /// Attribute names and values of an object, in name order.
    pub fn attrs(&self) -> impl Iterator<Item = (&'a str, Typed<'a>)> + '_ {
        let (op, values) = match self.value {
            Value::Object(o) => (Some(o.op()), o.attrs()),
            _ => (None, &[][..]),
        };
        let names = op.map(|op| self.program.attr_names(op)).unwrap_or(&[]);
        names
            .iter()
            .zip(values)
            .map(move |(n, v)| (&**n, Typed::new(self.program, *v)))
    }

    /// Elements of a list, set or tuple.
    pub fn elements(&self) -> impl Iterator<Item = Typed<'a>> + '_ {
        self.value
            .elements()
            .unwrap_or(&[])
            .iter()
            .map(move |v| Typed::new(self.program, *v))
    }
}

impl Program {
    /// Bundles a value this program decoded with the program, for navigation by name.
    pub fn typed<'a>(&'a self, value: Value<'a>) -> Typed<'a> {
        Typed::new(self, value)
    }
}
