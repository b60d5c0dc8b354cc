//! The serde access types over a value's parts, for [`TypedDeserializer`]: a list, set or
//! tuple's elements ([`Seq`]), a map's entries or an object's attributes ([`Map`], whose keys
//! are [`Key`]s), and an externally tagged enum's `{variant: content}` ([`Variant`]). Each
//! adds its path step to an error that comes out of a part.

use std::borrow::Cow;

use ::serde::de::value::BorrowedStrDeserializer;
use ::serde::de::{
    self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};
use ::serde::forward_to_deserialize_any;

use super::de::{DeError, TypedDeserializer};
use super::Step;
use crate::value::Value;

/// A list, set or tuple's elements.
pub(super) struct Seq<'de> {
    pub(super) de: TypedDeserializer<'de>,
    pub(super) elems: std::iter::Enumerate<std::slice::Iter<'de, Value<'de>>>,
}

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.elems.next() {
            Some((i, v)) => seed
                .deserialize(self.de.child(*v))
                .map(Some)
                .map_err(|e| e.at(Step::Index(i))),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.elems.len())
    }
}

/// A map's entries (go-cty's order) or an object's attributes (name order).
pub(super) enum Entries<'de> {
    Map(Cow<'de, [(&'de str, Value<'de>)]>),
    Object(&'de [Box<str>], &'de [Value<'de>]),
}

impl Entries<'_> {
    pub(super) fn len(&self) -> usize {
        match self {
            Entries::Map(e) => e.len(),
            Entries::Object(names, _) => names.len(),
        }
    }
}

/// A map or an object, entry by entry.
pub(super) struct Map<'de> {
    pub(super) de: TypedDeserializer<'de>,
    pub(super) entries: Entries<'de>,
    /// The next entry's index; the value of entry `next - 1` is the one to read.
    pub(super) next: usize,
}

impl<'de> Map<'de> {
    /// Entry `i`: its path step, key and value.
    pub(super) fn entry(&self, i: usize) -> Option<(Step<'de>, &'de str, Value<'de>)> {
        match &self.entries {
            Entries::Map(e) => e.get(i).map(|&(k, v)| (Step::Key(k), k, v)),
            Entries::Object(names, attrs) => {
                let name: &'de str = names.get(i)?;
                attrs.get(i).map(|&v| (Step::Attr(name), name, v))
            }
        }
    }
}

impl<'de> MapAccess<'de> for Map<'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((step, key, _)) = self.entry(self.next) else {
            return Ok(None);
        };
        self.next = self.next.saturating_add(1);
        seed.deserialize(Key(key)).map(Some).map_err(|e| e.at(step))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let Some((step, _, value)) = self.next.checked_sub(1).and_then(|i| self.entry(i)) else {
            return Err(DeError::new("a map value asked for before its key"));
        };
        seed.deserialize(self.de.child(value))
            .map_err(|e| e.at(step))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len().saturating_sub(self.next))
    }
}

/// An externally tagged enum value: `{variant: content}`.
pub(super) struct Variant<'de> {
    pub(super) name: &'de str,
    pub(super) step: Step<'de>,
    pub(super) de: TypedDeserializer<'de>,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = DeError;
    type Variant = Variant<'de>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Variant<'de>), DeError> {
        let v = seed
            .deserialize(Key(self.name))
            .map_err(|e| e.at(self.step))?;
        Ok((v, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        let step = self.step;
        de::Deserializer::deserialize_unit(self.de, de::IgnoredAny)
            .map(|_| ())
            .map_err(|e| e.at(step))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        let step = self.step;
        seed.deserialize(self.de).map_err(|e| e.at(step))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        let step = self.step;
        de::Deserializer::deserialize_seq(self.de, visitor).map_err(|e| e.at(step))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        let step = self.step;
        de::Deserializer::deserialize_map(self.de, visitor).map_err(|e| e.at(step))
    }
}

/// A map key, an attribute or a variant name: a borrowed string, which is also read as a
/// number or a bool when one is asked for (`HashMap<u16, _>` from `{"443": …}`), as
/// serde_json reads object keys.
struct Key<'de>(&'de str);

/// Methods that parse the key as the type asked for.
macro_rules! parse_key {
    ($($method:ident $visit:ident $ty:ty;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
            match self.0.parse::<$ty>() {
                Ok(x) => visitor.$visit(x),
                Err(_) => Err(de::Error::invalid_type(Unexpected::Str(self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_borrowed_str(self.0)
    }

    parse_key! {
        deserialize_bool visit_bool bool;
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
        deserialize_f32 visit_f32 f32;
        deserialize_f64 visit_f64 f64;
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_enum(BorrowedStrDeserializer::<DeError>::new(self.0))
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}
