//! Reading a schema document's JSON objects: each member checked for its JSON type, a
//! [`Path`] naming where it is for messages, and the schema, block and attribute objects
//! built from them.

use std::collections::HashMap;
use std::fmt;

use super::super::json_tree::{Json, Map};
use super::super::{Attribute, AttributeKind, Block, NestedBlock, NestedType, NestingMode, Type};
use super::Schema;
use crate::error::SchemaError;
use crate::limits::MAX_SCHEMA_DEPTH;

/// Where in the document a value is, for messages: a chain of `label "name"` steps.
pub(super) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    label: &'static str,
    name: Option<&'a str>,
    /// Nested blocks and nested attribute types open around this step.
    nesting: usize,
}

impl Path<'static> {
    pub(super) const ROOT: Path<'static> = Path {
        parent: None,
        label: "",
        name: None,
        nesting: 0,
    };
}

impl<'a> Path<'a> {
    pub(super) fn push(&'a self, label: &'static str, name: Option<&'a str>) -> Path<'a> {
        Path {
            parent: Some(self),
            label,
            name,
            nesting: self.nesting,
        }
    }

    /// A step into a nested block or a nested attribute type: one level of the loader's
    /// recursion, checked against [`MAX_SCHEMA_DEPTH`] on entry.
    pub(super) fn push_nested(
        &'a self,
        label: &'static str,
        name: Option<&'a str>,
    ) -> Result<Path<'a>, SchemaError> {
        let mut path = self.push(label, name);
        path.nesting = self.nesting.saturating_add(1);
        if path.nesting > MAX_SCHEMA_DEPTH {
            return Err(error_at(
                &path,
                format_args!(
                    "blocks and nested types nested deeper than {MAX_SCHEMA_DEPTH} levels"
                ),
            ));
        }
        Ok(path)
    }
}

impl fmt::Display for Path<'_> {
    /// Writes the steps from the root, `label "name"` each, separated by `, `; nothing at
    /// the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(parent) = self.parent else {
            return Ok(());
        };
        if parent.parent.is_some() {
            write!(f, "{parent}, ")?;
        }
        f.write_str(self.label)?;
        if let Some(name) = self.name {
            f.write_str(" ")?;
            super::super::write_json_string(f, name)?;
        }
        Ok(())
    }
}

/// `found` text for messages: the JSON kind, or the number itself.
pub(super) fn found(v: &Json) -> String {
    match v {
        Json::Null => "null".into(),
        Json::Bool(_) => "a boolean".into(),
        Json::Number(n) => n.to_string(),
        Json::String(_) => "a string".into(),
        Json::Array(_) => "an array".into(),
        Json::Object(_) => "an object".into(),
    }
}

#[cold]
pub(super) fn expected(path: &Path<'_>, member: &str, what: &str, v: &Json) -> SchemaError {
    let member = if member.is_empty() {
        String::new()
    } else {
        format!("{member}: ")
    };
    error_at(
        path,
        format_args!("{member}expected {what}, found {}", found(v)),
    )
}

#[cold]
pub(super) fn error_at(path: &Path<'_>, msg: impl fmt::Display) -> SchemaError {
    SchemaError::at(path.to_string(), None, msg.to_string())
}

/// `obj[key]` as an object; `None` when absent or null.
pub(super) fn object_member<'j, 'a>(
    obj: &'j Map<'a>,
    key: &str,
    path: &Path<'_>,
) -> Result<Option<&'j Map<'a>>, SchemaError> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Object(m)) => Ok(Some(m)),
        Some(other) => Err(expected(path, key, "an object", other)),
    }
}

pub(super) fn bool_member(obj: &Map<'_>, key: &str, path: &Path<'_>) -> Result<bool, SchemaError> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(false),
        Some(Json::Bool(b)) => Ok(*b),
        Some(other) => Err(expected(path, key, "a boolean", other)),
    }
}

pub(super) fn u64_member(obj: &Map<'_>, key: &str, path: &Path<'_>) -> Result<u64, SchemaError> {
    match obj.get(key) {
        None | Some(Json::Null) => Ok(0),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| expected(path, key, "a non-negative integer", v)),
    }
}

/// A nesting mode name: `Ok(None)` for an unknown name (or an absent / null one).
pub(super) fn nesting_member(
    obj: &Map<'_>,
    path: &Path<'_>,
) -> Result<Option<NestingMode>, SchemaError> {
    match obj.get("nesting_mode") {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(NestingMode::from_name(s)),
        Some(other) => Err(expected(path, "nesting_mode", "a string", other)),
    }
}

pub(super) fn schema_map(
    provider: &Map<'_>,
    key: &str,
    label: &'static str,
    path: &Path<'_>,
) -> Result<HashMap<String, Schema>, SchemaError> {
    let mut out = HashMap::new();
    for (name, s) in object_member(provider, key, path)?.into_iter().flatten() {
        let path = path.push(label, Some(name));
        match s {
            Json::Null => continue,
            Json::Object(s) => {
                out.insert(name.to_string(), schema(s, &path)?);
            }
            other => return Err(expected(&path, "", "an object", other)),
        }
    }
    Ok(out)
}

/// One schema object of a providers-schema document read alone, for a deferred load
/// (`crate::state::SchemaSet::add_json_deferred`): `text` is the object, found under
/// `provider` as `label` (`resource`, `data source`, `provider config`) `name`; errors read
/// as the whole document's parse words them.
pub(crate) fn schema_in_document(
    text: &str,
    provider: &str,
    label: &'static str,
    name: Option<&str>,
) -> Result<Schema, SchemaError> {
    let json: Json<'_> = serde_json::from_str(text)
        .map_err(|e| SchemaError::json(text.as_bytes(), "schema is not valid JSON", &e))?;
    let root = &Path::ROOT;
    let at_provider = root.push("provider", Some(provider));
    let path = at_provider.push(label, name);
    match &json {
        Json::Object(obj) => schema(obj, &path),
        other => Err(expected(&path, "", "an object", other)),
    }
}

/// `{"version":n,"block":{…}}`.
pub(super) fn schema(obj: &Map<'_>, path: &Path<'_>) -> Result<Schema, SchemaError> {
    let version = match obj.get("version") {
        None | Some(Json::Null) => 0,
        Some(v) => v
            .as_i64()
            .ok_or_else(|| expected(path, "version", "an integer", v))?,
    };
    let block = match object_member(obj, "block", path)? {
        None => Block::default(),
        Some(b) => block(b, path)?,
    };
    Ok(Schema { version, block })
}

pub(super) fn block(obj: &Map<'_>, path: &Path<'_>) -> Result<Block, SchemaError> {
    let attributes = attributes(obj, path)?;
    let mut block_types = Vec::new();
    for (name, bt) in object_member(obj, "block_types", path)?
        .into_iter()
        .flatten()
    {
        // Terraform skips a block type that has an attribute's name (it is still checked,
        // except that it may be null).
        let shadowed = attributes.iter().any(|(n, _)| n == name);
        if shadowed && bt.is_null() {
            continue;
        }
        let path = path.push_nested("block type", Some(name))?;
        let Json::Object(bt) = bt else {
            return Err(expected(&path, "", "an object", bt));
        };
        let nesting = nesting_member(bt, &path)?;
        let inner = match object_member(bt, "block", &path)? {
            None => Block::default(),
            Some(b) => block(b, &path)?,
        };
        let nested = NestedBlock {
            nesting,
            block: inner,
            min_items: u64_member(bt, "min_items", &path)?,
            max_items: u64_member(bt, "max_items", &path)?,
        };
        if !shadowed {
            block_types.push((name.to_string(), nested));
        }
    }
    Ok(Block {
        attributes,
        block_types,
    })
}

/// The `attributes` member of a block or nested type.
pub(super) fn attributes(
    obj: &Map<'_>,
    path: &Path<'_>,
) -> Result<Vec<(String, Attribute)>, SchemaError> {
    let mut out = Vec::new();
    for (name, a) in object_member(obj, "attributes", path)?
        .into_iter()
        .flatten()
    {
        let path = path.push("attribute", Some(name));
        let Json::Object(a) = a else {
            return Err(expected(&path, "", "an object", a));
        };
        out.push((name.to_string(), attribute(a, &path)?));
    }
    Ok(out)
}

/// An attribute's `type`: a primitive name at once (most attributes), anything else through
/// the type JSON parser.
pub(super) fn attribute_type(t: &Json<'_>, path: &Path<'_>) -> Result<Type, SchemaError> {
    if let Json::String(name) = t {
        match &**name {
            "string" => return Ok(Type::String),
            "number" => return Ok(Type::Number),
            "bool" => return Ok(Type::Bool),
            "dynamic" => return Ok(Type::Dynamic),
            _ => {}
        }
    }
    Type::from_json_value(&t.to_value())
        .map_err(|e| error_at(path, format_args!("invalid type {t}: {}", e.message())))
}

pub(super) fn attribute(obj: &Map<'_>, path: &Path<'_>) -> Result<Attribute, SchemaError> {
    let ty = obj.get("type").filter(|t| !t.is_null());
    let nested = object_member(obj, "nested_type", path)?;
    let kind = match (ty, nested) {
        (Some(_), Some(_)) => return Err(error_at(path, "both type and nested_type are set")),
        (None, None) => return Err(error_at(path, "neither type nor nested_type is set")),
        (Some(t), None) => AttributeKind::Type(attribute_type(t, path)?),
        (None, Some(n)) => {
            let npath = path.push_nested("nested_type", None)?;
            let nesting = match nesting_member(n, &npath)? {
                Some(NestingMode::Group) => Some(NestingMode::Single),
                other => other,
            };
            AttributeKind::Nested(NestedType {
                attributes: attributes(n, &npath)?,
                nesting,
            })
        }
    };
    Ok(Attribute {
        kind,
        required: bool_member(obj, "required", path)?,
        optional: bool_member(obj, "optional", path)?,
        computed: bool_member(obj, "computed", path)?,
    })
}
