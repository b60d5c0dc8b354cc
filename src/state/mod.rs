//! Terraform/OpenTofu state files (format version 4) decoded against provider schemas.
//!
//! [`StateFile::parse`] reads the envelope with serde_json and keeps each instance's
//! `attributes` as a borrowed [`RawValue`], so its bytes go straight to
//! [`Program::decode_json`](crate::Program::decode_json) (zero copy). A [`SchemaSet`] holds one or more
//! providers-schema documents and compiles each (document, provider, mode, type) into a
//! [`Program`](crate::Program) lazily, once, on first use: every instance of a type shares it. A document
//! added with [`SchemaSet::add_json_deferred`] also has each schema parsed on first use.
//!
//! Rules:
//! - **Provider.** A resource's `provider` (`provider["registry.terraform.io/hashicorp/aws"]`,
//!   with an optional `.alias`, an optional `module.x.` prefix, or the legacy `provider.aws` /
//!   `provider["aws"]`) resolves to a full address ([`provider_address`]; a short name `NAME`
//!   means `registry.terraform.io/hashicorp/NAME`, `terraform` the builtin provider). The
//!   candidate schemas of an instance are, in this order, those of every loaded provider with
//!   the same address (document keys are normalized the same way), then those of every other
//!   provider with the same type name (last segment: `registry.opentofu.org/hashicorp/null`
//!   matches `registry.terraform.io/hashicorp/null`), each tier in document load order.
//! - **Several candidates.** They are tried in order and the first that decodes wins
//!   ([`Outcome::Ok`]); when none does, the error reported is the one found furthest into the
//!   attributes (the candidate that matched best; ties go to the earlier candidate).
//! - **Attributes.** `attributes` wins over `attributes_flat`; an instance with only
//!   `attributes_flat` (Terraform 0.11 flatmap, which only the provider can upgrade) is
//!   [`Outcome::Legacy`], whatever the schemas; one with neither decodes `{}` (Terraform's
//!   rule: every attribute null). The schema version is not checked against the instance's
//!   `schema_version` (Terraform would ask the provider to upgrade the object).
//! - **DUMPs.** A set that writes DUMPs ([`SchemaSet::write_dumps`]; the CLI's NDJSON,
//!   `--dump` and Parquet outputs) gives an instance whose attributes are as go-cty writes
//!   them as its DUMP, written straight from the JSON without building the value
//!   ([`Outcome::Dumped`]); the others as always.
//! - **Strictness.** The envelope is read as Terraform reads it: `version` must be 4, `mode`
//!   `managed` or `data`, `index_key` a string or an integer, `provider` a valid reference;
//!   anything else is a [`StateError`] for the whole file. Repeated keys: the last wins.
//!
//! ```
//! use tfwire::state::{Outcome, SchemaSet, StateFile};
//! use tfwire::DecodeOptions;
//!
//! let schemas = r#"{"format_version":"1.0","provider_schemas":{
//!   "registry.terraform.io/hashicorp/null":{"resource_schemas":{"null_resource":{"version":0,
//!     "block":{"attributes":{"id":{"type":"string","computed":true},
//!                            "triggers":{"type":["map","string"],"optional":true}}}}}}}}"#;
//! let mut set = SchemaSet::new();
//! set.add_json(schemas).unwrap();
//! let state = StateFile::parse(r#"{"version":4,"resources":[{"module":"module.app",
//!   "mode":"managed","type":"null_resource","name":"x","each":"list",
//!   "provider":"provider[\"registry.terraform.io/hashicorp/null\"]",
//!   "instances":[{"index_key":0,"schema_version":0,"attributes":{"id":"1","triggers":null}},
//!                {"index_key":1,"schema_version":0,"attributes":{"id":2,"oops":true}}]}]}"#).unwrap();
//! let mut lines = Vec::new();
//! set.visit(&state, &DecodeOptions::default(), |item, outcome| {
//!     let result = match outcome {
//!         Outcome::Ok(value, m) => format!("id={}", m.program.typed(*value).attr("id").unwrap().value.as_str().unwrap()),
//!         Outcome::Error(e, _) => e.to_string(),
//!         _ => "no schema".into(),
//!     };
//!     lines.push(format!("{}: {result}", item.address()));
//! });
//! assert_eq!(lines, [
//!     "module.app.null_resource.x[0]: id=1",
//!     r#"module.app.null_resource.x[1]: at (root) (byte 8): unsupported attribute "oops""#,
//! ]);
//! assert_eq!(set.compiled(), 1); // one program for both instances
//! ```

mod batch;
mod candidates;
mod entry;
mod envelope;
mod files;
mod filter;
mod keys;
mod outline;
mod part_source;
mod pool;
mod prefetch;
mod providers;
mod ranges;
mod reader;
mod resource;
mod schemas;
mod split;
mod values;

use std::collections::HashMap;
use std::fmt::{self, Write as _};

use crate::located::Fault;
use serde_json::value::RawValue;

pub use files::FilePiece;
pub use filter::ResourceFilter;
pub use pool::{Pool, Threads};
pub use reader::{ReaderOptions, StateReader, Summary, RELEASE_STEP};
pub use schemas::{Match, Outcome, SchemaSet};

/// A resource's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `managed`: a `resource` block (schemas from `resource_schemas`).
    Managed,
    /// `data`: a `data` block (schemas from `data_source_schemas`); addresses start `data.`.
    Data,
}

impl Mode {
    /// The mode a state's `"mode"` names (`managed` or `data`); `None` for anything else.
    fn from_key(mode: &str) -> Option<Mode> {
        match mode {
            "managed" => Some(Mode::Managed),
            "data" => Some(Mode::Data),
            _ => None,
        }
    }
}

/// A malformed state file: not JSON, not format version 4, or a bad envelope field. Displays
/// as every tfwire error does: `at PATH (byte N): MESSAGE`, where the path is the place in the
/// state document (`.resources[3].instances[0]`; left out for the top level) and the byte the
/// file offset, when known.
///
/// ```
/// use tfwire::state::StateFile;
///
/// let err = StateFile::parse(r#"{"version": 4, "resources": [{"mode": "managed"}]}"#).unwrap_err();
/// assert_eq!(err.path(), ".resources[0]");
/// assert_eq!(err.message(), "missing type");
/// assert_eq!(err.to_string(), "at .resources[0]: missing type");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError(Box<Fault>);

impl StateError {
    /// An error at the top level of the state, without an offset.
    #[cold]
    pub(crate) fn new(message: impl fmt::Display) -> StateError {
        StateError::at("", None, message)
    }

    /// An error at `path` in the state document and, when known, file offset `offset`.
    #[cold]
    pub(crate) fn at(
        path: impl fmt::Display,
        offset: Option<u64>,
        message: impl fmt::Display,
    ) -> StateError {
        let offset = offset.and_then(|o| usize::try_from(o).ok());
        StateError(Fault::in_document(
            path.to_string(),
            offset,
            message.to_string(),
        ))
    }
}

located_error!(
    StateError,
    path: "Where in the state document: `.resources[3].instances[0].attributes`; empty at the \
           top level.",
    offset: "The byte offset in the state file, when known.",
);

/// A parsed v4 state file; instances borrow their attribute JSON from the text.
#[derive(Clone, Debug)]
pub struct StateFile<'s> {
    /// `terraform_version`, when present.
    pub terraform_version: Option<String>,
    /// The resources, in file order.
    pub resources: Vec<Resource<'s>>,
}

/// One resource (all instances of one `resource` or `data` block in one module instance).
#[derive(Clone, Debug)]
pub struct Resource<'s> {
    /// The module instance address (`module.a.module.b["k"]`); `None` in the root module.
    pub module: Option<String>,
    /// Managed or data.
    pub mode: Mode,
    /// The resource type (`aws_instance`).
    pub type_name: String,
    /// The resource name (`web`).
    pub name: String,
    /// The provider reference as written (`provider["registry.terraform.io/hashicorp/aws"]`).
    pub provider: String,
    /// The provider's full address ([`provider_address`] of `provider`).
    pub provider_address: String,
    /// The instance objects, current and deposed, in file order.
    pub instances: Vec<Instance<'s>>,
}

/// One instance object.
#[derive(Clone, Debug)]
pub struct Instance<'s> {
    /// `index_key` (`count` or `for_each`), when present.
    pub index_key: Option<IndexKey>,
    /// `deposed`: the deposed object's key, when this is not the current object.
    pub deposed: Option<String>,
    /// `schema_version`.
    pub schema_version: u64,
    /// The attribute data.
    pub attributes: Attributes<'s>,
}

/// An instance key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexKey {
    /// `count`: `[0]`.
    Int(i64),
    /// `for_each`: `["key"]`.
    String(String),
}

/// An instance's attribute data.
#[derive(Clone, Copy, Debug)]
pub enum Attributes<'s> {
    /// `attributes`: its JSON text, borrowed from the state.
    Json(&'s str),
    /// Only `attributes_flat` (a legacy flatmap): not decodable with a schema.
    Flat,
    /// Neither: Terraform reads the object as `{}`.
    Absent,
}

impl<'s> Attributes<'s> {
    /// The JSON to decode: the raw `attributes`, `{}` when absent, `None` for a flatmap.
    pub fn json(&self) -> Option<&'s str> {
        match self {
            Attributes::Json(text) => Some(text),
            Attributes::Flat => None,
            Attributes::Absent => Some("{}"),
        }
    }
}

/// A resource and one of its instances.
#[derive(Clone, Copy, Debug)]
pub struct InstanceRef<'r, 's> {
    /// The resource.
    pub resource: &'r Resource<'s>,
    /// The instance.
    pub instance: &'r Instance<'s>,
}

impl InstanceRef<'_, '_> {
    /// The instance's address as Terraform writes it: `module.x.data.aws_ami.ubuntu["a"]`,
    /// with ` (deposed KEY)` for a deposed object. String keys use JSON escaping.
    pub fn address(&self) -> String {
        let mut out = String::new();
        self.write_address(&mut out);
        out
    }

    /// Appends [`InstanceRef::address`] to `out`.
    pub fn write_address(&self, out: &mut String) {
        let r = self.resource;
        if let Some(m) = &r.module {
            out.push_str(m);
            out.push('.');
        }
        if r.mode == Mode::Data {
            out.push_str("data.");
        }
        out.push_str(&r.type_name);
        out.push('.');
        out.push_str(&r.name);
        match &self.instance.index_key {
            None => {}
            Some(IndexKey::Int(i)) => {
                let _ = write!(out, "[{i}]");
            }
            Some(IndexKey::String(s)) => {
                out.push('[');
                out.push_str(&serde_json::to_string(s).unwrap_or_default());
                out.push(']');
            }
        }
        if let Some(d) = &self.instance.deposed {
            out.push_str(" (deposed ");
            out.push_str(d);
            out.push(')');
        }
    }
}

type Fields<'s> = HashMap<String, &'s RawValue>;

fn err(ctx: &str, msg: impl fmt::Display) -> StateError {
    StateError::at(ctx, None, msg)
}

/// `map[key]` read as T (String, u64, a JSON number or value, a list of raw values); `None`
/// when absent or null.
fn field<'s, T>(
    map: &Fields<'s>,
    key: &str,
    ctx: &str,
    parse: fn(&'s str) -> serde_json::Result<Option<T>>,
) -> Result<Option<T>, StateError> {
    match map.get(key) {
        None => Ok(None),
        Some(raw) => parse(raw.get()).map_err(|e| {
            let (_, what) = crate::error::json_error_parts(raw.get().as_bytes(), &e);
            err(ctx, format_args!("{key}: {what}"))
        }),
    }
}

impl<'s> StateFile<'s> {
    /// Parses a state file (format version 4).
    pub fn parse(text: &'s str) -> Result<StateFile<'s>, StateError> {
        let top: Fields<'s> = serde_json::from_str(text).map_err(|e| {
            let (offset, what) = crate::error::json_error_parts(text.as_bytes(), &e);
            let offset = offset.map(|o| o as u64);
            StateError::at(
                "",
                offset,
                format_args!("not a state file: invalid JSON: {what}"),
            )
        })?;
        let version: Option<serde_json::Number> = field(&top, "version", "", serde_json::from_str)?;
        match version {
            Some(v) if v.as_u64() == Some(4) => {}
            Some(v) => {
                return Err(StateError::new(format_args!(
                    "unsupported state format version {v} (only version 4 is supported)"
                )))
            }
            None => return Err(StateError::new("not a state file: no \"version\"")),
        }
        let terraform_version: Option<String> =
            field(&top, "terraform_version", "", serde_json::from_str)?;
        let list: Option<Vec<&'s RawValue>> = field(&top, "resources", "", serde_json::from_str)?;
        let resources = list.unwrap_or_default().into_iter().enumerate();
        Ok(StateFile {
            terraform_version,
            resources: resources
                .map(|(i, raw)| resource(raw, i))
                .collect::<Result<_, _>>()?,
        })
    }

    /// Every instance object of every resource, in file order.
    pub fn instances(&self) -> impl Iterator<Item = InstanceRef<'_, 's>> + '_ {
        self.resources.iter().flat_map(|resource| {
            resource
                .instances
                .iter()
                .map(move |instance| InstanceRef { resource, instance })
        })
    }
}

fn object<'s>(raw: &'s RawValue, ctx: &str) -> Result<Fields<'s>, StateError> {
    serde_json::from_str(raw.get()).map_err(|e| {
        let (_, what) = crate::error::json_error_parts(raw.get().as_bytes(), &e);
        err(ctx, format_args!("expected an object: {what}"))
    })
}

fn resource(raw: &RawValue, i: usize) -> Result<Resource<'_>, StateError> {
    let ctx = &format!(".resources[{i}]");
    let map = object(raw, ctx)?;
    let need = |key: &str| -> Result<String, StateError> {
        field(&map, key, ctx, serde_json::from_str)?
            .ok_or_else(|| err(ctx, format_args!("missing {key}")))
    };
    let mode = need("mode")?;
    let Some(mode) = Mode::from_key(&mode) else {
        return Err(err(ctx, format_args!("invalid resource mode {mode:?}")));
    };
    let (type_name, name, provider) = (need("type")?, need("name")?, need("provider")?);
    let provider_address = provider_address(&provider).map_err(|e| err(ctx, e.message()))?;
    let module: Option<String> = field(&map, "module", ctx, serde_json::from_str)?;
    let list: Option<Vec<&RawValue>> = field(&map, "instances", ctx, serde_json::from_str)?;
    let instances = list.unwrap_or_default().into_iter().enumerate();
    Ok(Resource {
        module: module.filter(|m| !m.is_empty()),
        mode,
        type_name,
        name,
        provider,
        provider_address,
        instances: instances
            .map(|(j, raw)| instance(raw, &format!("{ctx}.instances[{j}]")))
            .collect::<Result<_, _>>()?,
    })
}

fn instance<'s>(raw: &'s RawValue, ctx: &str) -> Result<Instance<'s>, StateError> {
    let map = object(raw, ctx)?;
    let key: Option<serde_json::Value> = field(&map, "index_key", ctx, serde_json::from_str)?;
    let index_key = match key {
        None => None,
        Some(serde_json::Value::String(s)) => Some(IndexKey::String(s)),
        Some(serde_json::Value::Number(n)) if n.as_i64().is_some() => n.as_i64().map(IndexKey::Int),
        Some(other) => {
            let msg = format_args!("index_key: expected a string or an integer, found {other}");
            return Err(err(ctx, msg));
        }
    };
    let attributes = match map.get("attributes") {
        Some(raw) => Attributes::Json(raw.get()),
        None if map.contains_key("attributes_flat") => Attributes::Flat,
        None => Attributes::Absent,
    };
    let deposed: Option<String> = field(&map, "deposed", ctx, serde_json::from_str)?;
    Ok(Instance {
        index_key,
        deposed: deposed.filter(|d| !d.is_empty()),
        schema_version: field(&map, "schema_version", ctx, serde_json::from_str)?.unwrap_or(0),
        attributes,
    })
}

/// The full provider address a state's `provider` reference names:
/// `provider["registry.terraform.io/hashicorp/aws"].west` and
/// `module.m.provider["…"]` give `registry.terraform.io/hashicorp/aws`; the legacy
/// `provider.aws` and `provider["aws"]` give the same ([`normalize_provider`]).
///
/// ```
/// use tfwire::state::provider_address;
/// assert_eq!(provider_address("provider.aws.west").unwrap(), "registry.terraform.io/hashicorp/aws");
/// assert_eq!(
///     provider_address(r#"module.a["x"].provider["registry.opentofu.org/-/null"]"#).unwrap(),
///     "registry.opentofu.org/-/null"
/// );
/// ```
pub fn provider_address(reference: &str) -> Result<String, StateError> {
    let bad = || StateError::new(format_args!("invalid provider reference {reference:?}"));
    let mut s = reference;
    while let Some(rest) = s.strip_prefix("module.") {
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        s = &rest[name_len..];
        if s.starts_with('[') {
            s = &s[bracket_len(s).ok_or_else(bad)?..];
        }
        s = s.strip_prefix('.').ok_or_else(bad)?;
    }
    let s = s.strip_prefix("provider").ok_or_else(bad)?;
    let (name, rest) = if s.starts_with('[') {
        let len = bracket_len(s).ok_or_else(bad)?;
        let inside = s.get(1..len.saturating_sub(1)).ok_or_else(bad)?;
        let name: String = serde_json::from_str(inside).map_err(|_| bad())?;
        (name, &s[len..])
    } else {
        let s = s.strip_prefix('.').ok_or_else(bad)?;
        let end = s.find('.').unwrap_or(s.len());
        (s[..end].to_string(), &s[end..])
    };
    // What may follow is an alias.
    if name.is_empty() || !(rest.is_empty() || rest.len() > 1 && rest.starts_with('.')) {
        return Err(bad());
    }
    Ok(normalize_provider(&name))
}

/// The length of a `[…]` at the start of `s` (a JSON string or a bare token inside).
fn bracket_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.get(1) == Some(&b'"') {
        let i = crate::json_escape::quoted_len(b.get(1..)?)?.saturating_add(1);
        (b.get(i) == Some(&b']')).then_some(i.saturating_add(1))
    } else {
        s.find(']').map(|e| e.saturating_add(1))
    }
}

/// A provider address in full form, lower case: `aws` → `registry.terraform.io/hashicorp/aws`
/// (`terraform` → `terraform.io/builtin/terraform`), `ns/name` →
/// `registry.terraform.io/ns/name`; a full address is kept.
pub fn normalize_provider(name: &str) -> String {
    let name = name.to_ascii_lowercase();
    match name.matches('/').count() {
        0 if name == "terraform" => "terraform.io/builtin/terraform".into(),
        0 => format!("registry.terraform.io/hashicorp/{name}"),
        1 => format!("registry.terraform.io/{name}"),
        _ => name,
    }
}

pub(crate) fn last_segment(addr: &str) -> &str {
    addr.rsplit('/').next().unwrap_or(addr)
}
