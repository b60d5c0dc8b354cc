//! Loaders for the JSON forms a schema comes in, as the oracle's `--schema FILE` accepts them:
//!
//! 1. a whole `terraform providers schema -json` document
//!    (`{"format_version":..,"provider_schemas":{..}}`), which needs a [`SchemaSelector`];
//! 2. a bare block `{"attributes":{..},"block_types":{..}}` (either key may be absent);
//! 3. one schema object `{"version":n,"block":{..}}`;
//! 4. a type wrapper `{"type": T}` (no other keys).
//!
//! The top-level keys decide the form, in this order: `provider_schemas`, `type`, `block`,
//! else a bare block. Unknown keys are ignored everywhere (`description`, `sensitive`,
//! `ephemeral_resource_schemas`, `functions`, …); `null` counts as absent for optional
//! members (`"block": null` is an empty block). Everything else that does not fit (wrong
//! JSON types, invalid type JSON, an attribute with both or neither of `type` and
//! `nested_type`) is a [`SchemaError`] whose message says where, for example
//! `provider "aws": resource "aws_instance": attribute "tags": invalid type ["lst","string"]:
//! invalid complex type kind name "lst"`. This file picks the form and the selected schema;
//! `load/members.rs` reads the members of each object, and names the path in messages.
//!
//! Differences from the oracle (`ctyoracle --schema`), all on malformed or odd input:
//! - A document is read whole, so a malformed entry anywhere in it is an error even when
//!   another entry is selected (the oracle only checks the types and nesting of the whole
//!   document, and the rest of the selected entry only).
//! - `version` must be an integer and `format_version` a string (the oracle ignores them).
//! - Keys match exactly (Go's decoder also takes `Attributes`, `BLOCK`, …).
//! - A block type shadowed by an attribute is still checked in full (the oracle only checks
//!   its JSON types); it is left out of the model either way.
//! - `--provider` equal to a full address picks that provider even if another provider's
//!   last segment equals it too (the oracle calls that ambiguous).
//!
//! ```
//! use tfwire::schema::{SchemaSelector, SchemaSource};
//!
//! let doc = r#"{"format_version":"1.0","provider_schemas":{
//!   "registry.terraform.io/hashicorp/null":{"resource_schemas":{
//!     "null_resource":{"version":0,"block":{"attributes":{
//!       "id":{"type":"string","computed":true},
//!       "triggers":{"type":["map","string"],"optional":true}}}}}}}}"#;
//! let source = SchemaSource::parse(doc).unwrap();
//! let sel = SchemaSelector::resource("null_resource");
//! assert_eq!(
//!     source.select(&sel).unwrap().to_string(),
//!     r#"["object",{"id":"string","triggers":["map","string"]}]"#
//! );
//! ```

use std::collections::{BTreeMap, HashMap};

use super::json_tree::{Json, Map};

use super::{Block, Type};
use crate::error::SchemaError;

mod members;

pub(crate) use members::schema_in_document;
use members::{block, expected, found, object_member, schema, schema_map, Path};

/// Which schema of a providers-schema document to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaSelector {
    /// `--resource NAME`.
    pub resource: Option<String>,
    /// `--data-source NAME`.
    pub data_source: Option<String>,
    /// `--provider P`: the provider config schema, or a narrowing of the other two. P is the
    /// full key (`registry.terraform.io/hashicorp/aws`) or its last path segment (`aws`).
    pub provider: Option<String>,
}

impl SchemaSelector {
    /// The resource type `name`.
    pub fn resource(name: impl Into<String>) -> SchemaSelector {
        SchemaSelector::default().with_resource(Some(name.into()))
    }

    /// The data source `name`.
    pub fn data_source(name: impl Into<String>) -> SchemaSelector {
        SchemaSelector::default().with_data_source(Some(name.into()))
    }

    /// The provider `p`'s configuration schema (or, with a setter, a narrowing of the others).
    pub fn provider(p: impl Into<String>) -> SchemaSelector {
        SchemaSelector::default().with_provider(Some(p.into()))
    }
}

with_setters!(SchemaSelector {
    with_resource => resource: Option<String>,
    with_data_source => data_source: Option<String>,
    with_provider => provider: Option<String>,
});

/// A parsed schema source: a whole document, a block, or a bare type.
#[derive(Clone, Debug)]
pub enum SchemaSource {
    /// A `{"type": T}` wrapper.
    Type(Type),
    /// A bare block or `{"version":n,"block":{…}}`.
    Block(Block),
    /// A whole `terraform providers schema -json` document.
    Document(ProviderSchemas),
}

/// A `terraform providers schema -json` document: the schemas of each provider, by the
/// provider's full address (`registry.terraform.io/hashicorp/aws`; Terraform 0.12 wrote
/// short names such as `aws`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderSchemas {
    /// `format_version` (`"1.0"`, `"0.1"`, …), when present.
    pub format_version: Option<String>,
    /// Providers by address, sorted. `null` entries of the document are left out.
    pub providers: BTreeMap<String, ProviderSchema>,
}

/// The schemas of one provider.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderSchema {
    /// The provider configuration schema (`provider`), when present.
    pub provider: Option<Schema>,
    /// Managed resource schemas (`resource_schemas`) by resource type name.
    pub resources: HashMap<String, Schema>,
    /// Data source schemas (`data_source_schemas`) by data source type name.
    pub data_sources: HashMap<String, Schema>,
}

/// One schema object, `{"version":n,"block":{…}}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// The schema version (`version`; 0 when absent). State files record it per instance.
    pub version: i64,
    /// The block; an empty block when `block` is absent or `null`.
    pub block: Block,
}

impl SchemaSource {
    /// Parses any of the accepted forms (see the module docs).
    pub fn parse(text: &str) -> Result<SchemaSource, SchemaError> {
        let json: Json<'_> = serde_json::from_str(text)
            .map_err(|e| SchemaError::json(text.as_bytes(), "schema is not valid JSON", &e))?;
        let Json::Object(top) = &json else {
            return Err(SchemaError::new(format!(
                "schema JSON must be an object, found {}",
                found(&json)
            )));
        };
        if top.contains_key("provider_schemas") {
            return Ok(SchemaSource::Document(ProviderSchemas::from_json_map(top)?));
        }
        if let Some(t) = top.get("type") {
            if top.len() != 1 {
                return Err(SchemaError::new(
                    "a {\"type\": T} wrapper must have no other keys",
                ));
            }
            return Type::from_json_value(&t.to_value())
                .map(SchemaSource::Type)
                .map_err(|e| {
                    SchemaError::new(format!("invalid type constraint JSON {t}: {}", e.message()))
                });
        }
        if top.contains_key("block") {
            return Ok(SchemaSource::Block(schema(top, &Path::ROOT)?.block));
        }
        Ok(SchemaSource::Block(block(top, &Path::ROOT)?))
    }

    /// The type to decode with: the selected block's implied type, or the wrapped type.
    ///
    /// A document needs a selector ([`ProviderSchemas::select`]); a block or type source
    /// takes none.
    pub fn select(&self, sel: &SchemaSelector) -> Result<Type, SchemaError> {
        match self {
            SchemaSource::Type(t) => {
                no_selector(sel)?;
                Ok(t.clone())
            }
            SchemaSource::Block(b) => {
                no_selector(sel)?;
                b.implied_type()
            }
            SchemaSource::Document(doc) => doc.select(sel)?.implied_type(),
        }
    }

    /// The selected block (for its `min_items` / `max_items`); `None` for a type source.
    /// Fails exactly when [`SchemaSource::select`] fails.
    pub fn select_block(&self, sel: &SchemaSelector) -> Result<Option<&Block>, SchemaError> {
        match self {
            SchemaSource::Type(_) => no_selector(sel).map(|()| None),
            SchemaSource::Block(b) => no_selector(sel).map(|()| Some(b)),
            SchemaSource::Document(doc) => doc.select(sel).map(Some),
        }
    }
}

fn no_selector(sel: &SchemaSelector) -> Result<(), SchemaError> {
    if sel.resource.is_some() || sel.data_source.is_some() || sel.provider.is_some() {
        return Err(SchemaError::new(
            "--resource/--data-source/--provider need a providers-schema document \
             (with \"provider_schemas\")",
        ));
    }
    Ok(())
}

impl ProviderSchemas {
    /// Parses a whole `providers schema -json` document (the text must have
    /// `provider_schemas`).
    pub fn parse(text: &str) -> Result<ProviderSchemas, SchemaError> {
        match SchemaSource::parse(text)? {
            SchemaSource::Document(doc) => Ok(doc),
            _ => Err(SchemaError::new(
                "not a providers-schema document (no \"provider_schemas\")",
            )),
        }
    }

    fn from_json_map(top: &Map<'_>) -> Result<ProviderSchemas, SchemaError> {
        let root = &Path::ROOT;
        let format_version = match top.get("format_version") {
            None | Some(Json::Null) => None,
            Some(Json::String(s)) => Some(s.to_string()),
            Some(other) => return Err(expected(root, "format_version", "a string", other)),
        };
        let mut providers = BTreeMap::new();
        let provs = object_member(top, "provider_schemas", root)?;
        for (addr, p) in provs.into_iter().flatten() {
            let path = root.push("provider", Some(addr));
            let p = match p {
                Json::Null => continue,
                Json::Object(p) => p,
                other => return Err(expected(&path, "", "an object", other)),
            };
            let provider = match p.get("provider") {
                None | Some(Json::Null) => None,
                Some(Json::Object(s)) => Some(schema(s, &path.push("provider config", None))?),
                Some(other) => return Err(expected(&path, "provider", "an object", other)),
            };
            let resources = schema_map(p, "resource_schemas", "resource", &path)?;
            let data_sources = schema_map(p, "data_source_schemas", "data source", &path)?;
            providers.insert(
                addr.to_string(),
                ProviderSchema {
                    provider,
                    resources,
                    data_sources,
                },
            );
        }
        Ok(ProviderSchemas {
            format_version,
            providers,
        })
    }

    /// The provider with this exact address.
    pub fn provider(&self, address: &str) -> Option<&ProviderSchema> {
        self.providers.get(address)
    }

    /// The schema of resource type `type_name` of the provider with this exact address.
    pub fn resource(&self, address: &str, type_name: &str) -> Option<&Schema> {
        self.providers.get(address)?.resources.get(type_name)
    }

    /// The schema of data source `type_name` of the provider with this exact address.
    pub fn data_source(&self, address: &str, type_name: &str) -> Option<&Schema> {
        self.providers.get(address)?.data_sources.get(type_name)
    }

    /// Finds a provider by its full address or by the address's last path segment (`aws`
    /// for `registry.terraform.io/hashicorp/aws`). An exact address wins; otherwise the
    /// segment must match exactly one provider.
    pub fn find_provider(&self, name: &str) -> Result<(&str, &ProviderSchema), SchemaError> {
        if let Some((k, p)) = self.providers.get_key_value(name) {
            return Ok((k.as_str(), p));
        }
        let hits: Vec<(&String, &ProviderSchema)> = self
            .providers
            .iter()
            .filter(|(k, _)| last_segment(k) == name)
            .collect();
        match hits.as_slice() {
            [(k, p)] => Ok((k.as_str(), p)),
            [] => Err(SchemaError::new(format!(
                "provider {name:?} not found (have {})",
                join(self.providers.keys())
            ))),
            _ => Err(SchemaError::new(format!(
                "provider {name:?} is ambiguous ({})",
                join(hits.iter().map(|(k, _)| *k))
            ))),
        }
    }

    /// The block a selector picks: `resource` or `data_source` by name (at most one of the
    /// two), narrowed by `provider` if given; or the provider config schema when only
    /// `provider` is given. A name that several providers have needs `provider`.
    pub fn select<'a>(&'a self, sel: &SchemaSelector) -> Result<&'a Block, SchemaError> {
        let (kind, name) = match (&sel.resource, &sel.data_source) {
            (Some(_), Some(_)) => {
                return Err(SchemaError::new(
                    "give at most one of --resource and --data-source",
                ))
            }
            (Some(r), None) => ("resource", r.as_str()),
            (None, Some(d)) => ("data source", d.as_str()),
            (None, None) => {
                let Some(p) = &sel.provider else {
                    return Err(SchemaError::new(
                        "a providers-schema document needs --resource NAME, --data-source NAME \
                         or --provider PROVIDER",
                    ));
                };
                let (addr, prov) = self.find_provider(p)?;
                return match &prov.provider {
                    Some(s) => Ok(&s.block),
                    None => Err(SchemaError::new(format!(
                        "provider {addr:?} has no provider config schema"
                    ))),
                };
            }
        };
        let get = |p: &'a ProviderSchema| -> Option<&'a Schema> {
            let map = if kind == "resource" {
                &p.resources
            } else {
                &p.data_sources
            };
            map.get(name)
        };
        if let Some(p) = &sel.provider {
            let (addr, prov) = self.find_provider(p)?;
            return get(prov).map(|s| &s.block).ok_or_else(|| {
                SchemaError::new(format!("{kind} {name:?} not found in provider {addr:?}"))
            });
        }
        let hits: Vec<(&String, &Schema)> = self
            .providers
            .iter()
            .filter_map(|(k, p)| get(p).map(|s| (k, s)))
            .collect();
        match hits.as_slice() {
            [(_, s)] => Ok(&s.block),
            [] => Err(SchemaError::new(format!(
                "{kind} {name:?} not found in the providers-schema document"
            ))),
            _ => Err(SchemaError::new(format!(
                "{kind} {name:?} is in several providers; add --provider ({})",
                join(hits.iter().map(|(k, _)| *k))
            ))),
        }
    }
}

fn last_segment(addr: &str) -> &str {
    addr.rsplit('/').next().unwrap_or(addr)
}

fn join<'a>(names: impl Iterator<Item = &'a String>) -> String {
    names.map(String::as_str).collect::<Vec<_>>().join(", ")
}
