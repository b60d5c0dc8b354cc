//! cty type constraints ([`Type`]) and their compact JSON form.
//!
//! The grammar is go-cty's `Type.UnmarshalJSON`: the primitives `"bool"`, `"number"`,
//! `"string"`, `"dynamic"`; `["list",T]`, `["set",T]`, `["map",T]`, `["tuple",[T…]]`,
//! `["object",{name:T…}]` and `["object",{…},["optional",…]]`. Printing follows
//! `Type.MarshalJSON`: compact, attribute names sorted, the optional list only when non-empty.

use std::fmt;

use serde_json::Value as Json;

use crate::error::SchemaError;

pub use crate::limits::MAX_TYPE_DEPTH;
use crate::limits::MAX_TYPE_NESTING;

/// A cty type constraint.
///
/// ```
/// use tfwire::Type;
/// let t = Type::from_json(r#"["list",["object",{"b":"number","a":"string"}]]"#).unwrap();
/// assert_eq!(t.to_string(), r#"["list",["object",{"a":"string","b":"number"}]]"#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// `"bool"`.
    Bool,
    /// `"number"`: arbitrary-precision.
    Number,
    /// `"string"`.
    String,
    /// `"dynamic"`: the concrete type travels with the value.
    Dynamic,
    /// `["list",T]`.
    List(Box<Type>),
    /// `["set",T]`.
    Set(Box<Type>),
    /// `["map",T]`.
    Map(Box<Type>),
    /// `["object",{…}]`, possibly with optional attributes.
    Object(ObjectType),
    /// `["tuple",[…]]`.
    Tuple(Vec<Type>),
}

/// The attributes of an object type, sorted by name (byte order, as go-cty sorts them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectType {
    attrs: Vec<(String, Type)>,
    optional: Vec<String>,
}

impl ObjectType {
    /// Builds an object type. Names are sorted; a repeated name keeps its last type (as go-cty);
    /// every optional name must be an attribute.
    pub fn new<I, S>(attrs: I, optional: &[&str]) -> Result<ObjectType, SchemaError>
    where
        I: IntoIterator<Item = (S, Type)>,
        S: Into<String>,
    {
        let attrs =
            super::sorted_last_wins(attrs.into_iter().map(|(n, t)| (n.into(), t)).collect());
        let mut opt: Vec<String> = Vec::new();
        for name in optional {
            if attrs
                .binary_search_by(|(n, _)| n.as_str().cmp(name))
                .is_err()
            {
                return Err(SchemaError::new(format!(
                    "optional attribute {name:?} is not an attribute of the object type"
                )));
            }
            opt.push((*name).to_string());
        }
        opt.sort();
        opt.dedup();
        Ok(ObjectType {
            attrs,
            optional: opt,
        })
    }

    /// The attributes in name order.
    pub fn attrs(&self) -> &[(String, Type)] {
        &self.attrs
    }

    /// Names marked optional (sorted).
    pub fn optional(&self) -> &[String] {
        &self.optional
    }

    /// The type of attribute `name`.
    pub fn get(&self, name: &str) -> Option<&Type> {
        self.attrs
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .and_then(|i| self.attrs.get(i))
            .map(|(_, t)| t)
    }

    /// The same object without optional markers (Terraform's `WithoutOptionalAttributesDeep`
    /// applied at this level only).
    pub fn without_optional(mut self) -> ObjectType {
        self.optional.clear();
        self
    }
}

impl Type {
    /// Parses compact type JSON.
    pub fn from_json(text: &str) -> Result<Type, SchemaError> {
        Self::from_json_bytes(text.as_bytes())
    }

    /// Parses compact type JSON from bytes (they must be UTF-8 JSON).
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Type, SchemaError> {
        let json: Json = serde_json::from_slice(bytes)
            .map_err(|e| SchemaError::json(bytes, "invalid type JSON", &e))?;
        Self::from_json_value(&json)
    }

    /// Converts an already-parsed JSON value into a type.
    pub fn from_json_value(json: &Json) -> Result<Type, SchemaError> {
        parse(json, 0)
    }

    /// Prints the compact type JSON (go-cty's `MarshalJSON` form).
    pub fn to_json(&self) -> String {
        self.to_string()
    }

    /// Containers (lists, sets, maps, objects, tuples) on the deepest path of this type,
    /// counted without recursion: a type built by hand may be deeper than a recursive walk
    /// could go.
    pub(crate) fn nesting(&self) -> usize {
        if matches!(
            self,
            Type::Dynamic | Type::Bool | Type::Number | Type::String
        ) {
            return 0; // (most attribute types: no stack)
        }
        let mut deepest = 0;
        let mut stack: smallvec::SmallVec<[(&Type, usize); 16]> =
            smallvec::smallvec![(self, 0usize)];
        while let Some((t, above)) = stack.pop() {
            let level = above.saturating_add(1);
            match t {
                Type::Dynamic | Type::Bool | Type::Number | Type::String => {
                    deepest = deepest.max(above);
                    continue;
                }
                Type::List(e) | Type::Set(e) | Type::Map(e) => stack.push((e, level)),
                Type::Object(o) => stack.extend(o.attrs.iter().map(|(_, t)| (t, level))),
                Type::Tuple(ts) => stack.extend(ts.iter().map(|t| (t, level))),
            }
            deepest = deepest.max(level);
        }
        deepest
    }

    /// An error if this type is nested deeper than [`MAX_TYPE_NESTING`] (before a walk that
    /// recurses over it).
    pub(crate) fn check_nesting(&self) -> Result<(), SchemaError> {
        if self.nesting() > MAX_TYPE_NESTING {
            return Err(SchemaError::new(format!(
                "type nested deeper than MAX_TYPE_NESTING ({MAX_TYPE_NESTING}) levels"
            )));
        }
        Ok(())
    }

    /// True if a `dynamic` appears anywhere inside.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::Bool | Type::Number | Type::String => false,
            Type::List(t) | Type::Set(t) | Type::Map(t) => t.has_dynamic(),
            Type::Object(o) => o.attrs.iter().any(|(_, t)| t.has_dynamic()),
            Type::Tuple(ts) => ts.iter().any(Type::has_dynamic),
        }
    }

    /// Removes optional-attribute markers at every depth.
    pub fn without_optional_deep(self) -> Type {
        self.to_without_optional()
    }

    /// A copy without optional-attribute markers at any depth (one pass, no clone first).
    pub fn to_without_optional(&self) -> Type {
        match self {
            Type::List(t) => Type::List(Box::new(t.to_without_optional())),
            Type::Set(t) => Type::Set(Box::new(t.to_without_optional())),
            Type::Map(t) => Type::Map(Box::new(t.to_without_optional())),
            Type::Tuple(ts) => Type::Tuple(ts.iter().map(Type::to_without_optional).collect()),
            Type::Object(o) => Type::Object(ObjectType {
                attrs: o
                    .attrs
                    .iter()
                    .map(|(n, t)| (n.clone(), t.to_without_optional()))
                    .collect(),
                optional: Vec::new(),
            }),
            t => t.clone(),
        }
    }

    /// A short name for messages: `string`, `list`, `object`, ….
    pub fn friendly_name(&self) -> &'static str {
        match self {
            Type::Bool => "bool",
            Type::Number => "number",
            Type::String => "string",
            Type::Dynamic => "dynamic",
            Type::List(_) => "list",
            Type::Set(_) => "set",
            Type::Map(_) => "map",
            Type::Object(_) => "object",
            Type::Tuple(_) => "tuple",
        }
    }
}

fn err(msg: impl Into<String>) -> SchemaError {
    SchemaError::new(msg.into())
}

fn parse(json: &Json, depth: usize) -> Result<Type, SchemaError> {
    if depth > MAX_TYPE_DEPTH {
        return Err(err(format!(
            "type description nested deeper than {MAX_TYPE_DEPTH} levels"
        )));
    }
    match json {
        Json::String(s) => match s.as_str() {
            "bool" => Ok(Type::Bool),
            "number" => Ok(Type::Number),
            "string" => Ok(Type::String),
            "dynamic" => Ok(Type::Dynamic),
            other => Err(err(format!("invalid primitive type name {other:?}"))),
        },
        Json::Array(items) => {
            let Some(Json::String(kind)) = items.first() else {
                return Err(err(
                    "invalid complex type description: expected a kind name",
                ));
            };
            let arg = items
                .get(1)
                .ok_or_else(|| err(format!("type description {kind:?} lacks its argument")))?;
            let max_len = if kind == "object" { 3 } else { 2 };
            if items.len() > max_len {
                return Err(err("unexpected extra data in type description"));
            }
            match kind.as_str() {
                "list" => Ok(Type::List(Box::new(parse(arg, depth.saturating_add(1))?))),
                "set" => Ok(Type::Set(Box::new(parse(arg, depth.saturating_add(1))?))),
                "map" => Ok(Type::Map(Box::new(parse(arg, depth.saturating_add(1))?))),
                "tuple" => match arg {
                    Json::Null => Ok(Type::Tuple(Vec::new())),
                    Json::Array(elems) => Ok(Type::Tuple(
                        elems
                            .iter()
                            .map(|e| parse(e, depth.saturating_add(1)))
                            .collect::<Result<_, _>>()?,
                    )),
                    _ => Err(err("tuple type requires an array of element types")),
                },
                "object" => {
                    let attrs = match arg {
                        Json::Null => Vec::new(),
                        Json::Object(map) => map
                            .iter()
                            .map(|(k, v)| Ok((k.clone(), parse(v, depth.saturating_add(1))?)))
                            .collect::<Result<Vec<_>, SchemaError>>()?,
                        _ => return Err(err("object type requires an object of attribute types")),
                    };
                    let mut optional: Vec<&str> = Vec::new();
                    if let Some(opt) = items.get(2) {
                        let Json::Array(names) = opt else {
                            return Err(err("optional attributes must be an array of names"));
                        };
                        for n in names {
                            let Json::String(n) = n else {
                                return Err(err("optional attribute names must be strings"));
                            };
                            optional.push(n);
                        }
                    }
                    Ok(Type::Object(ObjectType::new(attrs, &optional)?))
                }
                other => Err(err(format!("invalid complex type kind name {other:?}"))),
            }
        }
        _ => Err(err("invalid type description")),
    }
}

impl fmt::Display for Type {
    /// Compact type JSON. Children are written by calling `fmt` directly rather than through
    /// `write!`, and tuples and objects in functions of their own: a debug build's frame a
    /// level stays small (a type nests up to `MAX_TYPE_NESTING` levels).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (open, t) = match self {
            Type::Bool => return f.write_str("\"bool\""),
            Type::Number => return f.write_str("\"number\""),
            Type::String => return f.write_str("\"string\""),
            Type::Dynamic => return f.write_str("\"dynamic\""),
            Type::List(t) => ("[\"list\",", t),
            Type::Set(t) => ("[\"set\",", t),
            Type::Map(t) => ("[\"map\",", t),
            Type::Tuple(ts) => return fmt_tuple(ts, f),
            Type::Object(o) => return fmt_object(o, f),
        };
        f.write_str(open)?;
        t.fmt(f)?;
        f.write_str("]")
    }
}

#[inline(never)]
fn fmt_tuple(ts: &[Type], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("[\"tuple\",[")?;
    for (i, t) in ts.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        fmt::Display::fmt(t, f)?;
    }
    f.write_str("]]")
}

#[inline(never)]
fn fmt_object(o: &ObjectType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("[\"object\",{")?;
    for (i, (n, t)) in o.attrs.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write_json_string(f, n)?;
        f.write_str(":")?;
        fmt::Display::fmt(t, f)?;
    }
    f.write_str("}")?;
    if !o.optional.is_empty() {
        f.write_str(",[")?;
        for (i, n) in o.optional.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write_json_string(f, n)?;
        }
        f.write_str("]")?;
    }
    f.write_str("]")
}

/// Writes `s` as a JSON string literal, escaped as Go's `encoding/json` does (go-cty's type
/// JSON goes through it).
pub(crate) fn write_json_string(f: &mut dyn fmt::Write, s: &str) -> fmt::Result {
    // A name with nothing to escape (nearly all) is written as it is, without a buffer.
    if crate::json_escape::is_plain(s) {
        f.write_str("\"")?;
        f.write_str(s)?;
        return f.write_str("\"");
    }
    let mut escaped = Vec::new();
    crate::json_escape::write_go_json_string(s, &mut escaped);
    f.write_str(std::str::from_utf8(&escaped).map_err(|_| fmt::Error)?)
}
