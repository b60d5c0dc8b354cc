//! Terraform/OpenTofu state files (format version 4) decoded against provider schemas.
//!
//! [`StateFile::parse`] reads the envelope with serde_json and keeps each instance's
//! `attributes` as a borrowed [`RawValue`], so its bytes go straight to
//! [`Program::decode_json`] (zero copy). A [`SchemaSet`] holds one or more
//! providers-schema documents and compiles each (document, provider, mode, type) into a
//! [`Program`] lazily, once, on first use: every instance of a type shares it.
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

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use bumpalo::Bump;
use serde_json::value::RawValue;

use crate::error::{DecodeError, SchemaError};
use crate::program::{DecodeOptions, Program};
use crate::schema::{ProviderSchemas, Schema};
use crate::value::Value;

/// A resource's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `managed`: a `resource` block (schemas from `resource_schemas`).
    Managed,
    /// `data`: a `data` block (schemas from `data_source_schemas`); addresses start `data.`.
    Data,
}

/// A malformed state file: not JSON, not format version 4, or a bad envelope field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateError(String);

impl StateError {
    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateError {}

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
    /// `attributes`: raw JSON, borrowed from the state text.
    Json(&'s RawValue),
    /// Only `attributes_flat` (a legacy flatmap): not decodable with a schema.
    Flat,
    /// Neither: Terraform reads the object as `{}`.
    Absent,
}

impl<'s> Attributes<'s> {
    /// The JSON to decode: the raw `attributes`, `{}` when absent, `None` for a flatmap.
    pub fn json(&self) -> Option<&'s str> {
        match self {
            Attributes::Json(raw) => Some(raw.get()),
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
            Some(IndexKey::Int(i)) => out.push_str(&format!("[{i}]")),
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
    StateError(format!("{ctx}: {msg}"))
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
        Some(raw) => parse(raw.get()).map_err(|e| err(ctx, format_args!("{key}: {e}"))),
    }
}

impl<'s> StateFile<'s> {
    /// Parses a state file (format version 4).
    pub fn parse(text: &'s str) -> Result<StateFile<'s>, StateError> {
        let top: Fields<'s> = serde_json::from_str(text)
            .map_err(|e| StateError(format!("not a state file: invalid JSON: {e}")))?;
        let version: Option<serde_json::Number> =
            field(&top, "version", "state", serde_json::from_str)?;
        match version {
            Some(v) if v.as_u64() == Some(4) => {}
            Some(v) => {
                return Err(StateError(format!(
                    "unsupported state format version {v} (only version 4 is supported)"
                )))
            }
            None => return Err(StateError("not a state file: no \"version\"".into())),
        }
        let terraform_version: Option<String> =
            field(&top, "terraform_version", "state", serde_json::from_str)?;
        let list: Option<Vec<&'s RawValue>> =
            field(&top, "resources", "state", serde_json::from_str)?;
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
    serde_json::from_str(raw.get()).map_err(|e| err(ctx, format_args!("expected an object: {e}")))
}

fn resource(raw: &RawValue, i: usize) -> Result<Resource<'_>, StateError> {
    let ctx = &format!("resources[{i}]");
    let map = object(raw, ctx)?;
    let need = |key: &str| -> Result<String, StateError> {
        field(&map, key, ctx, serde_json::from_str)?
            .ok_or_else(|| err(ctx, format_args!("missing {key}")))
    };
    let mode = match need("mode")?.as_str() {
        "managed" => Mode::Managed,
        "data" => Mode::Data,
        other => return Err(err(ctx, format_args!("invalid resource mode {other:?}"))),
    };
    let (type_name, name, provider) = (need("type")?, need("name")?, need("provider")?);
    let provider_address = provider_address(&provider).map_err(|e| err(ctx, e))?;
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
        Some(raw) => Attributes::Json(raw),
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
    let bad = || StateError(format!("invalid provider reference {reference:?}"));
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
        let name: String = serde_json::from_str(&s[1..len - 1]).map_err(|_| bad())?;
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
        let mut i = 2;
        loop {
            match *b.get(i)? {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        i += 1;
        (b.get(i) == Some(&b']')).then_some(i + 1)
    } else {
        s.find(']').map(|e| e + 1)
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

fn last_segment(addr: &str) -> &str {
    addr.rsplit('/').next().unwrap_or(addr)
}

/// The schemas of several providers-schema documents, each compiled on first use and cached.
/// `Send + Sync`: share one set across threads.
#[derive(Debug, Default)]
pub struct SchemaSet {
    /// By type name: managed (0) and data (1) entries, in load order.
    types: HashMap<String, [Vec<Entry>; 2]>,
    documents: usize,
}

#[derive(Debug)]
struct Entry {
    document: usize,
    provider: String,
    normalized: String,
    schema: Schema,
    program: OnceLock<Program>,
}

/// Which schema decoded (or failed to decode) an instance.
#[derive(Clone, Copy, Debug)]
pub struct Match<'a> {
    /// The compiled schema.
    pub program: &'a Program,
    /// The provider's key in its document.
    pub provider: &'a str,
    /// The document's index (load order, from 0).
    pub document: usize,
    /// The schema's `version`.
    pub schema_version: i64,
}

/// What decoding one instance gave.
#[derive(Debug)]
pub enum Outcome<'a> {
    /// Decoded: the value and the schema that decoded it.
    Ok(Value<'a>, Match<'a>),
    /// Every candidate schema failed; the error found furthest into the attributes.
    Error(DecodeError, Match<'a>),
    /// No loaded document has a schema for this provider, mode and type.
    NoSchema,
    /// Only legacy `attributes_flat`: not supported (counted as "no schema" by the CLI).
    Legacy,
}

impl SchemaSet {
    /// An empty set.
    pub fn new() -> SchemaSet {
        SchemaSet::default()
    }

    /// Adds a document; returns its index. Later documents come after earlier ones among
    /// an instance's candidates.
    pub fn add(&mut self, doc: ProviderSchemas) -> usize {
        let document = self.documents;
        self.documents += 1;
        for (provider, p) in doc.providers {
            let normalized = normalize_provider(&provider);
            for (slot, map) in [(0, p.resources), (1, p.data_sources)] {
                for (type_name, schema) in map {
                    self.types.entry(type_name).or_default()[slot].push(Entry {
                        document,
                        provider: provider.clone(),
                        normalized: normalized.clone(),
                        schema,
                        program: OnceLock::new(),
                    });
                }
            }
        }
        document
    }

    /// Parses a providers-schema document ([`ProviderSchemas::parse`]) and adds it.
    pub fn add_json(&mut self, text: &str) -> Result<usize, SchemaError> {
        Ok(self.add(ProviderSchemas::parse(text)?))
    }

    /// Number of documents added.
    pub fn documents(&self) -> usize {
        self.documents
    }

    /// Number of programs compiled so far.
    pub fn compiled(&self) -> usize {
        let entries = self.types.values().flat_map(|[m, d]| m.iter().chain(d));
        entries.filter(|e| e.program.get().is_some()).count()
    }

    /// The candidate schemas for a type of a provider (a full address, see
    /// [`provider_address`]), best first (see the module docs); each compiles on first use.
    pub fn candidates<'a: 'p, 'p>(
        &'a self,
        provider: &'p str,
        mode: Mode,
        type_name: &str,
    ) -> impl Iterator<Item = Match<'a>> + 'p {
        let entries: &[Entry] = match self.types.get(type_name) {
            Some(e) => &e[(mode == Mode::Data) as usize],
            None => &[],
        };
        let exact = move |e: &&Entry| e.normalized == provider;
        let same_type = move |e: &&Entry| {
            e.normalized != provider && last_segment(&e.normalized) == last_segment(provider)
        };
        let tier1 = entries.iter().filter(exact);
        tier1
            .chain(entries.iter().filter(same_type))
            .map(|e| Match {
                program: e
                    .program
                    .get_or_init(|| Program::from_block(&e.schema.block)),
                provider: &e.provider,
                document: e.document,
                schema_version: e.schema.version,
            })
    }

    /// Decodes one instance's attributes into `bump`.
    pub fn decode<'a, 's: 'a>(
        &'a self,
        item: InstanceRef<'_, 's>,
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Outcome<'a> {
        let Some(json) = item.instance.attributes.json() else {
            return Outcome::Legacy;
        };
        let r = item.resource;
        let mut furthest: Option<(DecodeError, Match<'a>)> = None;
        for m in self.candidates(&r.provider_address, r.mode, &r.type_name) {
            match m.program.decode_json_with(json.as_bytes(), bump, options) {
                Ok(value) => return Outcome::Ok(value, m),
                Err(e) => match &furthest {
                    Some((f, _)) if f.offset() >= e.offset() => {}
                    _ => furthest = Some((e, m)),
                },
            }
        }
        match furthest {
            Some((e, m)) => Outcome::Error(e, m),
            None => Outcome::NoSchema,
        }
    }

    /// Decodes every instance of `state` into `bump` (which keeps them all: for a large
    /// state prefer [`SchemaSet::visit`]).
    pub fn decode_all<'a, 's: 'a>(
        &'a self,
        state: &'a StateFile<'s>,
        bump: &'a Bump,
        options: DecodeOptions,
    ) -> impl Iterator<Item = (InstanceRef<'a, 's>, Outcome<'a>)> + 'a {
        state
            .instances()
            .map(move |item| (item, self.decode(item, bump, &options)))
    }

    /// Decodes every instance of `state` and hands each to `f`, reusing one arena (reset
    /// after each instance).
    pub fn visit<F>(&self, state: &StateFile<'_>, options: &DecodeOptions, mut f: F)
    where
        F: FnMut(InstanceRef<'_, '_>, &Outcome<'_>),
    {
        let mut bump = Bump::new();
        for item in state.instances() {
            f(item, &self.decode(item, &bump, options));
            bump.reset();
        }
    }
}
