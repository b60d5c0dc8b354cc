//! Serializing values: `impl Serialize for Typed`, [`SerializeOptions`] and [`Serializable`].
//!
//! The walk carries the value path as a chain of steps on the stack, so an error (an
//! unknown, an infinity, nesting beyond the cap) names where it is: serde's serializer errors
//! are opaque, so the path goes into the message, as `at PATH: MESSAGE`.

use std::fmt;

use ::serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::{attr_names, map_entries, render_path, too_deep, Link, Num, Step, MAX_VALUE_DEPTH};
use crate::program::Program;
use crate::value::{Object, Typed, Value};

/// What serializing does with the values serde has no form for.
///
/// ```
/// use tfwire::{InfinityAs, SerializeOptions, UnknownAs};
///
/// let lenient = SerializeOptions::default().with_unknown(UnknownAs::Null);
/// assert_eq!(lenient.infinity, InfinityAs::Error);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SerializeOptions {
    /// An unknown value: an error (the default) or null.
    pub unknown: UnknownAs,
    /// ±Inf: an error (the default) or an `f64` infinity.
    pub infinity: InfinityAs,
}

with_setters!(SerializeOptions {
    #[const] with_unknown => unknown: UnknownAs,
    #[const] with_infinity => infinity: InfinityAs,
});

/// What an unknown value serializes as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnknownAs {
    /// An error naming the value's path (the default): serde has no unknown.
    #[default]
    Error,
    /// A null (`serialize_none`), as if the value were null.
    Null,
}

/// What ±Inf serializes as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InfinityAs {
    /// An error naming the value's path (the default): JSON cannot hold an infinity, and
    /// go-cty's JSON encoder refuses it too.
    #[default]
    Error,
    /// An `f64` infinity (`serialize_f64`), for formats that hold one. serde_json writes it
    /// as `null`.
    Float,
}

/// A value with the options it serializes with: what [`Typed::serialize_with`] returns.
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::{Program, SerializeOptions, UnknownAs};
///
/// let program = Program::from_type_json(r#"["object",{"id":"string","port":"number"}]"#)?;
/// let bump = Bump::new();
/// // {"id": "sg-1", "port": unknown} in MessagePack.
/// let input = [0x82, 0xa2, b'i', b'd', 0xa4, b's', b'g', b'-', b'1', 0xa4, b'p', b'o', b'r', b't', 0xd4, 0, 0];
/// let root = program.typed(program.decode_msgpack(&input, &bump)?);
///
/// // By default an unknown is an error that names its path ...
/// let err = serde_json::to_string(&root).unwrap_err();
/// assert_eq!(err.to_string(), "at .port: unknown value (serialize with UnknownAs::Null to write null)");
/// // ... or, with the option, a null.
/// let options = SerializeOptions::default().with_unknown(UnknownAs::Null);
/// let json = serde_json::to_string(&root.serialize_with(options))?;
/// assert_eq!(json, r#"{"id":"sg-1","port":null}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Serializable<'a> {
    /// The value.
    pub typed: Typed<'a>,
    /// How it serializes.
    pub options: SerializeOptions,
}

impl<'a> Typed<'a> {
    /// This value with serialization options (`Typed` itself serializes with the defaults:
    /// an unknown or an infinity is an error).
    pub fn serialize_with(&self, options: SerializeOptions) -> Serializable<'a> {
        Serializable {
            typed: *self,
            options,
        }
    }
}

/// Serializes the value as go-cty holds it; [`from_typed`](crate::from_typed) presents a
/// value to a `Deserialize` type the same way, so `from_typed::<serde_json::Value>(t)` equals
/// `serde_json::to_value(t)`:
///
/// - null: none (`serialize_none`); bool: bool; string: str; list, set (in the order it
///   holds) and tuple: a sequence; object: a map of every attribute, in the program's name
///   order (bytewise); map: a map with its keys sorted bytewise, a key the wire repeated
///   once, with its last value (as go-cty holds the map); a value at a `dynamic` position:
///   its concrete value (the wrapper is looked through).
/// - a number: an `i64` when it is an integer that fits, else a `u64` when one fits, else an
///   `f64` when it is one — a float64 off the wire, or decimal text that is a finite `f64`
///   exactly or that `f64` written to at most 17 significant digits, correctly rounded
///   (`0.1`, `2.675`, `1e300`: what Go and Rust print; at an exact tie either neighbour) —
///   else its exact decimal text as a string (`"1e400"`, `"0.1000000000000000000001"`, an
///   integer beyond `u64` that no `f64` is). The form on the wire does not matter otherwise:
///   `3`, `3.0` and `"3"` are all the `i64` 3, and a float64 sent in MessagePack presents as
///   the same value in go-cty's JSON does.
/// - ±Inf: an error (JSON cannot hold it; go-cty's JSON encoder refuses it too), or an `f64`
///   with [`InfinityAs::Float`].
/// - an unknown: an error, or null with [`UnknownAs::Null`] ([`Typed::serialize_with`]).
///
/// Errors go through the serializer's `custom` and read `at PATH: MESSAGE`, the path
/// in Terraform's notation (`.ingress[2].cidr_blocks[0]`, `.tags["Name"]`, `(root)`).
/// The walk recurses once per level (a value as deep as a decode allows fits a 2 MiB thread
/// stack in a debug build); nesting deeper than [`MAX_VALUE_DEPTH`](crate::MAX_VALUE_DEPTH)
/// (hand-built values only) is an error too.
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::Program;
///
/// let program = Program::from_type_json(r#"["object",{"tags":["map","string"],"ports":["list","number"]}]"#)?;
/// let bump = Bump::new();
/// let value = program.decode_json(br#"{"tags":{"b":"2","a":"1"},"ports":[80,443.0,"8080"]}"#, &bump)?;
/// let json = serde_json::to_string(&program.typed(value))?;
/// assert_eq!(json, r#"{"ports":[80,443,8080],"tags":{"a":"1","b":"2"}}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl Serialize for Typed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize_with(SerializeOptions::default())
            .serialize(serializer)
    }
}

impl Serialize for Serializable<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Node {
            program: self.typed.program,
            value: self.typed.value,
            options: &self.options,
            link: None,
            depth: 0,
        }
        .serialize(serializer)
    }
}

/// One value on the walk: its program (for attribute names), its path and its depth.
struct Node<'a, 'p> {
    program: &'a Program,
    value: Value<'a>,
    options: &'p SerializeOptions,
    link: Option<&'p Link<'p>>,
    depth: usize,
}

impl<'a, 'p> Node<'a, 'p> {
    fn error<E: ::serde::ser::Error>(&self, message: impl fmt::Display) -> E {
        E::custom(format_args!("at {}: {message}", render_path(self.link)))
    }

    /// The node of a child value at `link` (one step below this one).
    fn child<'q>(&self, program: &'a Program, value: Value<'a>, link: &'q Link<'q>) -> Node<'a, 'q>
    where
        'p: 'q,
    {
        Node {
            program,
            value,
            options: self.options,
            link: Some(link),
            depth: self.depth.saturating_add(1),
        }
    }

    fn number<S: Serializer>(&self, num: Num<'_>, serializer: S) -> Result<S::Ok, S::Error> {
        match num {
            Num::I64(i) => serializer.serialize_i64(i),
            Num::U64(u) => serializer.serialize_u64(u),
            Num::F64(f) => serializer.serialize_f64(f),
            Num::Text(t) => serializer.serialize_str(&t),
            Num::Infinite(f) => match self.options.infinity {
                InfinityAs::Float => serializer.serialize_f64(f),
                InfinityAs::Error => {
                    let sign = if f > 0.0 { '+' } else { '-' };
                    Err(self.error(format_args!(
                        "number {sign}Inf is infinite (JSON cannot hold it; serialize with \
                         InfinityAs::Float to write an f64)"
                    )))
                }
            },
        }
    }
}

impl Serialize for Node<'_, '_> {
    /// Each kind in a function of its own, so that a debug build's frame on the recursion
    /// holds one kind's locals (values nest up to `MAX_VALUE_DEPTH` levels).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.depth >= MAX_VALUE_DEPTH as usize && self.value.nests() {
            return Err(self.error(too_deep()));
        }
        match self.value {
            Value::List(elems) | Value::Set(elems) | Value::Tuple(elems) => {
                self.seq(elems, serializer)
            }
            Value::Map(entries) => self.map(entries, serializer),
            Value::Object(object) => self.object(object, serializer),
            // Looked through: the concrete value, at the same path (one level deeper, so that
            // a chain of wrappers built by hand is bounded too).
            Value::Dynamic(d) => Node {
                program: d.program,
                value: d.value,
                options: self.options,
                link: self.link,
                depth: self.depth.saturating_add(1),
            }
            .serialize(serializer),
            _ => self.leaf(serializer),
        }
    }
}

impl<'a> Node<'a, '_> {
    #[inline(never)]
    fn leaf<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Value::Unknown(_) => match self.options.unknown {
                UnknownAs::Null => serializer.serialize_none(),
                UnknownAs::Error => {
                    Err(self.error("unknown value (serialize with UnknownAs::Null to write null)"))
                }
            },
            Value::Bool(b) => serializer.serialize_bool(b),
            Value::String(s) => serializer.serialize_str(s),
            v @ (Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_)) => {
                match v.as_number() {
                    Some(n) => self.number(Num::of(n), serializer),
                    None => serializer.serialize_none(),
                }
            }
            // Null, and (not reached: `serialize` takes them) containers and wrappers.
            _ => serializer.serialize_none(),
        }
    }

    #[cfg_attr(debug_assertions, inline(never))]
    fn seq<S: Serializer>(&self, elems: &'a [Value<'a>], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(elems.len()))?;
        for (i, v) in elems.iter().enumerate() {
            let link = Link {
                step: Step::Index(i),
                parent: self.link,
            };
            seq.serialize_element(&self.child(self.program, *v, &link))?;
        }
        seq.end()
    }

    #[cfg_attr(debug_assertions, inline(never))]
    fn map<S: Serializer>(
        &self,
        entries: &'a [(&'a str, Value<'a>)],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let entries = map_entries(entries);
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for (k, v) in entries.iter() {
            let link = Link {
                step: Step::Key(k),
                parent: self.link,
            };
            map.serialize_entry(k, &self.child(self.program, *v, &link))?;
        }
        map.end()
    }

    #[cfg_attr(debug_assertions, inline(never))]
    fn object<S: Serializer>(&self, object: Object<'a>, serializer: S) -> Result<S::Ok, S::Error> {
        let names = attr_names(self.program, &object).map_err(|m| self.error(m))?;
        let mut map = serializer.serialize_map(Some(names.len()))?;
        for (name, v) in names.iter().zip(object.attrs()) {
            let link = Link {
                step: Step::Attr(name),
                parent: self.link,
            };
            map.serialize_entry(&**name, &self.child(self.program, *v, &link))?;
        }
        map.end()
    }
}
