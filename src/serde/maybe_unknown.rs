//! [`MaybeUnknown`]: a field type that receives unknown values, and the private
//! newtype-struct name by which it asks [`TypedDeserializer`](super::TypedDeserializer).

use std::fmt;
use std::marker::PhantomData;

use ::serde::de::{self, Deserialize, Visitor};
use ::serde::{Serialize, Serializer};

/// The newtype-struct name by which [`MaybeUnknown`] asks [`TypedDeserializer`] whether a
/// value is unknown (other deserializers see an ordinary newtype struct).
pub(super) const MAYBE_UNKNOWN: &str = "$tfwire::private::MaybeUnknown";

/// A value that may be unknown: a field of this type receives an unknown value as
/// [`MaybeUnknown::Unknown`] where a plain field would be an error. Any other value
/// deserializes into `T` (so `MaybeUnknown<Option<T>>` takes null, unknowns and values).
///
/// With other deserializers (serde_json, …) it is always `Known`. It serializes as its
/// content, and `Unknown` as null.
///
/// ```
/// use bumpalo::Bump;
/// use serde::Deserialize;
/// use tfwire::{MaybeUnknown, Program};
///
/// #[derive(Deserialize)]
/// struct Instance<'a> {
///     id: MaybeUnknown<&'a str>,
///     ami: &'a str,
/// }
///
/// let program = Program::from_type_json(r#"["object",{"ami":"string","id":"string"}]"#)?;
/// let bump = Bump::new();
/// // {"ami": "ami-1", "id": unknown} in MessagePack (a planned value).
/// let input = [0x82, 0xa3, b'a', b'm', b'i', 0xa5, b'a', b'm', b'i', b'-', b'1', 0xa2, b'i', b'd', 0xd4, 0, 0];
/// let root = program.typed(program.decode_msgpack(&input, &bump)?);
/// let instance: Instance = tfwire::from_typed(root)?;
/// assert_eq!(instance.id, MaybeUnknown::Unknown);
/// assert_eq!(instance.ami, "ami-1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MaybeUnknown<T> {
    /// A known value.
    Known(T),
    /// An unknown value (its refinements are not kept).
    Unknown,
}

impl<T> MaybeUnknown<T> {
    /// The value, when known.
    pub fn known(self) -> Option<T> {
        match self {
            MaybeUnknown::Known(t) => Some(t),
            MaybeUnknown::Unknown => None,
        }
    }

    /// True for [`MaybeUnknown::Known`].
    pub fn is_known(&self) -> bool {
        matches!(self, MaybeUnknown::Known(_))
    }

    /// A `MaybeUnknown` of a reference to the value.
    pub fn as_ref(&self) -> MaybeUnknown<&T> {
        match self {
            MaybeUnknown::Known(t) => MaybeUnknown::Known(t),
            MaybeUnknown::Unknown => MaybeUnknown::Unknown,
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MaybeUnknown<T> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MaybeVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for MaybeVisitor<T> {
            type Value = MaybeUnknown<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value or an unknown")
            }

            fn visit_none<E: de::Error>(self) -> Result<MaybeUnknown<T>, E> {
                Ok(MaybeUnknown::Unknown)
            }

            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<MaybeUnknown<T>, D::Error> {
                T::deserialize(deserializer).map(MaybeUnknown::Known)
            }
        }

        deserializer.deserialize_newtype_struct(MAYBE_UNKNOWN, MaybeVisitor(PhantomData))
    }
}

impl<T: Serialize> Serialize for MaybeUnknown<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            MaybeUnknown::Known(t) => t.serialize(serializer),
            MaybeUnknown::Unknown => serializer.serialize_none(),
        }
    }
}
