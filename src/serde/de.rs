//! Deserializing from values: [`from_typed`], [`TypedDeserializer`] and its error
//! [`DeError`] (the parts' access types are in `access.rs`, [`MaybeUnknown`] in
//! `maybe_unknown.rs`).
//!
//! The deserializer walks the value as the visitor asks; strings (and object attribute names)
//! are handed out borrowed (`visit_borrowed_str`), so `&'de str` fields point into the decoded
//! input. An error made anywhere below (by this deserializer or by a visitor through
//! `de::Error::custom`) gains a path step at each container it passes on its way out, so it
//! names where it happened: `at .ingress[2].from_port: MESSAGE`.

use crate::located::Fault;
use std::borrow::Cow;
use std::fmt;

use ::serde::de::value::BorrowedStrDeserializer;
use ::serde::de::{self, Deserialize, IntoDeserializer, Unexpected, Visitor};

use super::access::{Entries, Map, Seq, Variant};
use super::maybe_unknown::MAYBE_UNKNOWN;
#[cfg(doc)]
use super::MaybeUnknown;
use super::{
    attr_names, map_entries, shown, signed, too_deep, Integer, Num, Step, MAX_VALUE_DEPTH,
};
use crate::number::Number;
use crate::program::Program;
use crate::value::{Typed, Value};

/// A value that does not fit the type asked for: what was wrong, and where (Terraform's path
/// notation). Displays as `at PATH: MESSAGE` (`(root)` for the root), as
/// [`EncodeError`](crate::EncodeError) does. One word (boxed), as `EncodeError` is, so that
/// results stay small on the recursion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeError(Box<Fault>);

impl DeError {
    #[cold]
    pub(super) fn new(message: impl fmt::Display) -> DeError {
        DeError(Fault::in_value(message.to_string()))
    }

    #[cold]
    pub(super) fn at(mut self, step: Step<'_>) -> DeError {
        match step {
            Step::Attr(name) => self.0.attr(name),
            Step::Key(key) => self.0.key(key),
            Step::Index(i) => self.0.index(i),
        }
        self
    }
}

located_error!(
    DeError,
    path: "The value path, as `.ingress[2].from_port`; empty at the root.",
    offset: "Always `None`: serde reads a decoded value, not bytes (present so that every \
             tfwire error has `path()` and `offset()` of the same types).",
);

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> DeError {
        DeError::new(msg)
    }
}

/// Deserializes a `T` from a decoded value, presented as `Typed`'s `Serialize` impl
/// describes (dynamic values looked through, maps in go-cty's order, numbers by value):
/// structs from objects (attributes the struct lacks are ignored unless
/// `#[serde(deny_unknown_fields)]`) or maps, maps from maps or objects (keys also read as
/// numbers or bools when the key type asks, as serde_json does), sequences from lists, sets
/// and tuples, `Option` from null (`None`) or anything else (`Some`), enums from strings
/// (unit variants) or single-entry maps and objects (`{"Variant": content}`), integers from
/// numbers that are integers in the type's range, `f64` from any number (±Inf included),
/// `&'de str` borrowed from the input (or from the arena when JSON escapes forced a copy;
/// an object's attribute names, read as map keys, from the program),
/// `serde::de::IgnoredAny` from anything. `deserialize_any` is self-describing. An unknown
/// value is an error unless the field is a [`MaybeUnknown`].
///
/// Errors ([`DeError`]) name the value path, whether this deserializer made them or a
/// visitor did (a missing field is an error at the object's path). The walk recurses once
/// per level (a value as deep as a decode allows fits a 2 MiB thread stack in a debug
/// build); a value nested deeper than [`MAX_VALUE_DEPTH`](crate::MAX_VALUE_DEPTH) (built by hand)
/// is an error.
///
/// ```
/// use bumpalo::Bump;
/// use serde::Deserialize;
/// use tfwire::Program;
///
/// #[derive(Deserialize)]
/// struct Group<'a> {
///     name: &'a str,
///     #[serde(borrow)]
///     ingress: Vec<Rule<'a>>,
/// }
/// #[derive(Deserialize)]
/// struct Rule<'a> {
///     from_port: u16,
///     #[serde(borrow)]
///     cidr_blocks: Vec<&'a str>,
/// }
///
/// let program = Program::from_type_json(r#"["object",{"name":"string",
///     "ingress":["set",["object",{"from_port":"number","cidr_blocks":["list","string"]}]]}]"#)?;
/// let bump = Bump::new();
/// let json = br#"{"name":"web","ingress":[{"from_port":443,"cidr_blocks":["10.0.0.0/8"]}]}"#;
/// let root = program.typed(program.decode_json(json, &bump)?);
/// let group: Group = tfwire::from_typed(root)?;
/// assert_eq!((group.name, group.ingress[0].from_port), ("web", 443));
/// assert_eq!(group.ingress[0].cidr_blocks, ["10.0.0.0/8"]);
///
/// // Errors name the value's path.
/// let bad = br#"{"name":"web","ingress":[{"from_port":70000,"cidr_blocks":[]}]}"#;
/// let root = program.typed(program.decode_json(bad, &bump)?);
/// let err = tfwire::from_typed::<Group>(root).err().unwrap();
/// assert_eq!(err.to_string(), "at .ingress[0].from_port: number 70000 is out of range for u16");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn from_typed<'de, T: Deserialize<'de>>(root: Typed<'de>) -> Result<T, DeError> {
    T::deserialize(TypedDeserializer::new(root))
}

/// A serde `Deserializer` over a decoded value (what [`from_typed`] runs), for callers that
/// need one: a `DeserializeSeed`, a `deserialize_with` helper.
///
/// ```
/// use serde::Deserialize;
/// use tfwire::{Program, TypedDeserializer, Value};
///
/// let program = Program::from_type_json(r#"["list","bool"]"#)?;
/// let elems = [Value::Bool(true), Value::Bool(false)];
/// let de = TypedDeserializer::new(program.typed(Value::List(&elems)));
/// assert_eq!(Vec::<bool>::deserialize(de)?, [true, false]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TypedDeserializer<'de> {
    program: &'de Program,
    value: Value<'de>,
    depth: usize,
}

impl<'de> TypedDeserializer<'de> {
    /// A deserializer of `typed`.
    pub fn new(typed: Typed<'de>) -> TypedDeserializer<'de> {
        TypedDeserializer {
            program: typed.program,
            value: typed.value,
            depth: 0,
        }
    }

    /// A child value's deserializer, one level deeper.
    pub(super) fn child(&self, value: Value<'de>) -> TypedDeserializer<'de> {
        TypedDeserializer {
            program: self.program,
            value,
            depth: self.depth.saturating_add(1),
        }
    }

    /// The concrete value (dynamic wrappers looked through), within the nesting cap.
    fn concrete(mut self) -> Result<TypedDeserializer<'de>, DeError> {
        while let Value::Dynamic(d) = self.value {
            self.program = d.program;
            self.value = d.value;
            self.depth = self.depth.saturating_add(1);
        }
        if self.depth >= MAX_VALUE_DEPTH as usize && self.value.nests() {
            return Err(DeError::new(too_deep()));
        }
        Ok(self)
    }

    /// [`concrete`](Self::concrete), and an error for an unknown.
    fn known(self) -> Result<TypedDeserializer<'de>, DeError> {
        let this = self.concrete()?;
        match this.value {
            Value::Unknown(_) => Err(DeError::new(
                "unknown value (a field of type tfwire::MaybeUnknown<T> accepts one)",
            )),
            _ => Ok(this),
        }
    }

    /// `deserialize_any` of a value that holds no other (`known` already applied).
    #[inline(never)]
    fn scalar_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.value {
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => {
                match self.value.as_number().map(Num::of) {
                    Some(Num::I64(i)) => visitor.visit_i64(i),
                    Some(Num::U64(u)) => visitor.visit_u64(u),
                    Some(Num::F64(f) | Num::Infinite(f)) => visitor.visit_f64(f),
                    Some(Num::Text(Cow::Borrowed(t))) => visitor.visit_borrowed_str(t),
                    Some(Num::Text(Cow::Owned(t))) => visitor.visit_string(t),
                    None => visitor.visit_unit(),
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            // Null (and, not reached, the containers `deserialize_any` takes).
            _ => visitor.visit_unit(),
        }
    }

    fn invalid_type<V: Visitor<'de>>(&self, visitor: &V) -> DeError {
        let unexpected = match self.value {
            Value::Null => Unexpected::Other("null"),
            Value::Unknown(_) => Unexpected::Other("unknown value"),
            Value::Bool(b) => Unexpected::Bool(b),
            Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => {
                match self.value.as_number().map(Num::of) {
                    Some(Num::I64(i)) => Unexpected::Signed(i),
                    Some(Num::U64(u)) => Unexpected::Unsigned(u),
                    Some(Num::F64(f) | Num::Infinite(f)) => Unexpected::Float(f),
                    Some(Num::Text(_)) | None => Unexpected::Other("number"),
                }
            }
            Value::String(s) => Unexpected::Str(s),
            Value::List(_) => Unexpected::Other("list"),
            Value::Set(_) => Unexpected::Other("set"),
            Value::Tuple(_) => Unexpected::Other("tuple"),
            Value::Map(_) => Unexpected::Other("map"),
            Value::Object(_) => Unexpected::Other("object"),
            Value::Dynamic(_) => Unexpected::Other("dynamic value"),
        };
        de::Error::invalid_type(unexpected, visitor)
    }

    /// The number, or a type error for anything else.
    fn number<V: Visitor<'de>>(self, visitor: &V) -> Result<Number<'de>, DeError> {
        let this = self.known()?;
        this.value
            .as_number()
            .ok_or_else(|| this.invalid_type(visitor))
    }

    /// The number as an integer of type `T` (named `ty` in errors).
    fn integer<T, V>(self, visitor: &V, ty: &str) -> Result<T, DeError>
    where
        T: TryFrom<i128> + TryFrom<u128>,
        V: Visitor<'de>,
    {
        let n = self.number(visitor)?;
        let value = match Integer::of(&n) {
            Integer::Value(false, m) => T::try_from(m).ok(),
            Integer::Value(true, m) => signed(true, m).and_then(|i| T::try_from(i).ok()),
            Integer::TooBig => None,
            Integer::Fraction => {
                let msg = format!("number {} is not an integer (expected {ty})", shown(&n));
                return Err(DeError::new(msg));
            }
        };
        value.ok_or_else(|| DeError::new(format!("number {} is out of range for {ty}", shown(&n))))
    }

    /// The number as the nearest `f64`; a finite number beyond `f64`'s range is an error.
    fn float<V: Visitor<'de>>(self, visitor: &V, ty: &str, max: f64) -> Result<f64, DeError> {
        let n = self.number(visitor)?;
        let f = n.as_f64();
        if f.abs() > max && !n.is_infinite() {
            let msg = format!("number {} is out of range for {ty}", shown(&n));
            return Err(DeError::new(msg));
        }
        Ok(f)
    }

    fn seq<V: Visitor<'de>>(
        &self,
        elems: &'de [Value<'de>],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let mut access = Seq {
            de: *self,
            elems: elems.iter().enumerate(),
        };
        let out = visitor.visit_seq(&mut access)?;
        match access.elems.len() {
            0 => Ok(out),
            left => Err(elements_left(elems.len(), left)),
        }
    }

    /// `deserialize_any` of a map or an object (`known` already applied).
    #[cfg_attr(debug_assertions, inline(never))]
    fn map_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.map_access()? {
            Some(mut map) => visitor.visit_map(&mut map),
            None => Err(self.invalid_type(&visitor)),
        }
    }

    /// A map or an object as a serde map; `None` for other values.
    fn map_access(&self) -> Result<Option<Map<'de>>, DeError> {
        let entries = match self.value {
            Value::Map(entries) => Entries::Map(map_entries(entries)),
            Value::Object(object) => {
                let names = attr_names(self.program, &object).map_err(DeError::new)?;
                Entries::Object(names, object.attrs())
            }
            _ => return Ok(None),
        };
        Ok(Some(Map {
            de: *self,
            entries,
            next: 0,
        }))
    }
}

/// A sequence of `len` elements whose visitor left `left` of them unread.
#[cold]
#[inline(never)]
fn elements_left(len: usize, left: usize) -> DeError {
    de::Error::invalid_length(
        len,
        &format!("{} elements", len.saturating_sub(left)).as_str(),
    )
}

/// Integer methods: the number checked against the type's range.
macro_rules! integers {
    ($($method:ident $visit:ident $ty:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            let x: $ty = self.integer(&visitor, stringify!($ty))?;
            visitor.$visit(x)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for TypedDeserializer<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // Scalars in a function of their own: a debug build's frame on the recursion stays
        // small (values nest up to `MAX_VALUE_DEPTH` levels).
        let this = self.known()?;
        match this.value {
            Value::List(e) | Value::Set(e) | Value::Tuple(e) => this.seq(e, visitor),
            Value::Map(_) | Value::Object(_) => this.map_any(visitor),
            _ => this.scalar_any(visitor),
        }
    }

    integers! {
        deserialize_i8 visit_i8 i8;
        deserialize_i16 visit_i16 i16;
        deserialize_i32 visit_i32 i32;
        deserialize_i64 visit_i64 i64;
        deserialize_i128 visit_i128 i128;
        deserialize_u8 visit_u8 u8;
        deserialize_u16 visit_u16 u16;
        deserialize_u32 visit_u32 u32;
        deserialize_u64 visit_u64 u64;
        deserialize_u128 visit_u128 u128;
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let f = self.float(&visitor, "f32", f64::from(f32::MAX))?;
        visitor.visit_f32(f as f32)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let f = self.float(&visitor, "f64", f64::MAX)?;
        visitor.visit_f64(f)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let this = self.known()?;
        match this.value {
            Value::Bool(b) => visitor.visit_bool(b),
            _ => Err(this.invalid_type(&visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let this = self.known()?;
        match this.value {
            Value::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(this.invalid_type(&visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let this = self.known()?;
        match this.value {
            Value::String(s) => visitor.visit_borrowed_bytes(s.as_bytes()),
            _ => this.deserialize_any(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_bytes(visitor)
    }

    /// Null is `None`; anything else (an unknown too: the inner type decides) is `Some`.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let this = self.concrete()?;
        match this.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(this),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let this = self.known()?;
        match this.value {
            Value::Null => visitor.visit_unit(),
            _ => Err(this.invalid_type(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_unit(visitor)
    }

    /// A newtype struct is its content; [`MaybeUnknown`]'s private name asks whether the
    /// value is unknown (`visit_none`) or known (`visit_newtype_struct`).
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let this = self.concrete()?;
        match this.value {
            Value::Unknown(_) if name == MAYBE_UNKNOWN => visitor.visit_none(),
            _ => visitor.visit_newtype_struct(this),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let this = self.known()?;
        match this.value {
            Value::List(e) | Value::Set(e) | Value::Tuple(e) => this.seq(e, visitor),
            _ => Err(this.invalid_type(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let this = self.known()?;
        match this.map_access()? {
            Some(mut map) => visitor.visit_map(&mut map),
            None => Err(this.invalid_type(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        self.deserialize_map(visitor)
    }

    /// A string is a unit variant; a map or object of one entry is `{variant: content}`.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let this = self.known()?;
        if let Value::String(s) = this.value {
            return visitor.visit_enum(BorrowedStrDeserializer::<DeError>::new(s));
        }
        let Some(map) = this.map_access()? else {
            return Err(this.invalid_type(&visitor));
        };
        match map.entry(0) {
            Some((step, name, value)) if map.entries.len() == 1 => visitor.visit_enum(Variant {
                name,
                step,
                de: this.child(value),
            }),
            _ => Err(de::Error::invalid_length(
                map.entries.len(),
                &"one entry: the variant",
            )),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    /// Anything, unknowns included, is ignored without being looked at.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }
}

impl<'de> IntoDeserializer<'de, DeError> for TypedDeserializer<'de> {
    type Deserializer = TypedDeserializer<'de>;

    fn into_deserializer(self) -> TypedDeserializer<'de> {
        self
    }
}
