//! The outline of a providers-schema document, for [`SchemaSet::add_json_deferred`]: its
//! providers and the extent (byte range) of each resource and data source schema, read with
//! tfwire's own scanner, which validates the whole document's JSON on the way (each schema
//! with the validating skip) without parsing the schemas themselves. Each schema is parsed
//! when an instance of its type first needs it (`crate::schema::load::schema_in_document`).
//!
//! The outline reads only the shapes a well-formed document has; anything else — a syntax
//! error, a member of the wrong JSON type, a repeated key, a document without
//! `provider_schemas` — gives `None`, and the caller parses the document eagerly instead,
//! which returns today's error (or, for a repeated key, applies its last-wins rule).
//!
//! [`SchemaSet::add_json_deferred`]: super::SchemaSet::add_json_deferred

use std::collections::BTreeMap;
use std::ops::Range;

use bumpalo::Bump;
use rustc_hash::FxHashSet;

use crate::decode::json::tokens;

/// One provider's schemas: the extents of its resource and data source schemas (`null`
/// entries left out), and of its provider configuration schema when present.
#[derive(Debug, Default)]
pub(crate) struct ProviderOutline {
    pub config: Option<Range<usize>>,
    pub resources: Vec<(String, Range<usize>)>,
    pub data_sources: Vec<(String, Range<usize>)>,
}

/// Providers by address, sorted (as `ProviderSchemas::providers`).
pub(crate) type Outline = BTreeMap<String, ProviderOutline>;

/// The outline of `text`, or `None` when the document is anything but a well-formed
/// providers-schema document without repeated keys.
pub(crate) fn outline(text: &str) -> Option<Outline> {
    let buf = text.as_bytes();
    let scratch = Bump::new();
    let mut providers = None;
    let mut format_version_seen = false;
    // The walk validates as it goes: keys and the outline's own values as tokens, every
    // other value (each schema's included) with the validating skip.
    let end = members(buf, 0, &scratch, |key, at| {
        Some(match key {
            "provider_schemas" => {
                if providers.is_some() {
                    return None;
                }
                let (outline, end) = provider_schemas(buf, at, &scratch)?;
                providers = Some(outline);
                end
            }
            "format_version" => {
                if std::mem::replace(&mut format_version_seen, true) {
                    return None;
                }
                match buf.get(at) {
                    Some(b'"') => tokens::string(buf, at, &scratch).ok()?.1,
                    Some(b'n') => tokens::literal(buf, at, b"null").ok()?,
                    _ => return None,
                }
            }
            // Other members are ignored, as the eager parse ignores them (keys are compared
            // unescaped: `provider\u005fschemas` is `provider_schemas`).
            _ => tokens::skip(buf, at, &scratch).ok()?,
        })
    })?;
    if tokens::ws(buf, end) != buf.len() {
        return None;
    }
    providers
}

/// Calls `f(key, value_position)` for each member of the object at `at` (whitespace
/// allowed before it); `f` returns the position after the value. The position after the
/// object; `None` when it is not an object, its separators are wrong, or `f` gives up.
fn members<'s>(
    buf: &'s [u8],
    at: usize,
    scratch: &'s Bump,
    mut f: impl FnMut(&'s str, usize) -> Option<usize>,
) -> Option<usize> {
    let mut i = tokens::ws(buf, at);
    if buf.get(i) != Some(&b'{') {
        return None;
    }
    // (Positions are inside `buf`: `+ 1` past a byte read cannot wrap.)
    i = tokens::ws(buf, i.wrapping_add(1));
    if buf.get(i) == Some(&b'}') {
        return Some(i.wrapping_add(1));
    }
    loop {
        let (key, after) = tokens::key(buf, i, scratch).ok()?;
        let end = f(key, tokens::ws(buf, after))?;
        i = tokens::ws(buf, end);
        match buf.get(i) {
            Some(b',') => i = i.wrapping_add(1),
            Some(b'}') => return Some(i.wrapping_add(1)),
            _ => return None,
        }
    }
}

/// `provider_schemas`: `null` (no providers) or an object of providers.
fn provider_schemas(buf: &[u8], at: usize, scratch: &Bump) -> Option<(Outline, usize)> {
    let mut out = Outline::new();
    if buf.get(at) == Some(&b'n') {
        return Some((out, tokens::literal(buf, at, b"null").ok()?));
    }
    let mut nulls = Vec::new();
    let end = members(buf, at, scratch, |address, at| {
        if out.contains_key(address) || nulls.iter().any(|n: &String| n == address) {
            return None;
        }
        if buf.get(at) == Some(&b'n') {
            nulls.push(address.to_string());
            return tokens::literal(buf, at, b"null").ok();
        }
        let (provider, end) = provider(buf, at, scratch)?;
        out.insert(address.to_string(), provider);
        Some(end)
    })?;
    Some((out, end))
}

/// One provider's object: `provider`, `resource_schemas`, `data_source_schemas`.
fn provider(buf: &[u8], at: usize, scratch: &Bump) -> Option<(ProviderOutline, usize)> {
    let mut out = ProviderOutline::default();
    let mut seen = Vec::new();
    let end = members(buf, at, scratch, |key, at| {
        if seen.iter().any(|s: &String| s == key) {
            return None;
        }
        seen.push(key.to_string());
        match key {
            "provider" => {
                let (range, end) = schema_extent(buf, at, scratch)?;
                out.config = range;
                Some(end)
            }
            "resource_schemas" => schema_map(buf, at, scratch, &mut out.resources),
            "data_source_schemas" => schema_map(buf, at, scratch, &mut out.data_sources),
            _ => tokens::skip(buf, at, scratch).ok(),
        }
    })?;
    Some((out, end))
}

/// A map of schemas by type name (`null` counts as empty; `null` entries are left out).
fn schema_map(
    buf: &[u8],
    at: usize,
    scratch: &Bump,
    out: &mut Vec<(String, Range<usize>)>,
) -> Option<usize> {
    if buf.get(at) == Some(&b'n') {
        return tokens::literal(buf, at, b"null").ok();
    }
    // (Thousands of names in a large provider: a set, not a list, to find a repeated one.)
    let mut names = FxHashSet::default();
    let end = members(buf, at, scratch, |name, at| {
        if !names.insert(name) {
            return None;
        }
        let (range, end) = schema_extent(buf, at, scratch)?;
        if let Some(range) = range {
            out.push((name.to_string(), range));
        }
        Some(end)
    })?;
    Some(end)
}

/// A schema value: `null` (no schema) or an object, whose extent is returned.
fn schema_extent(buf: &[u8], at: usize, scratch: &Bump) -> Option<(Option<Range<usize>>, usize)> {
    match buf.get(at) {
        Some(b'n') => Some((None, tokens::literal(buf, at, b"null").ok()?)),
        Some(b'{') => {
            let end = tokens::skip(buf, at, scratch).ok()?;
            Some((Some(at..end), end))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[(String, Range<usize>)], text: &str) -> Vec<String> {
        v.iter()
            .map(|(n, r)| format!("{n}={}", &text[r.clone()]))
            .collect()
    }

    #[test]
    fn reads_providers_and_schema_extents() {
        let text = r#" {"format_version":"1.0","x":[1,{"provider_schemas":2}],
          "provider_schemas":{"b":null,"a":{"provider":{"version":0},"functions":{},
            "resource_schemas":{"r1":{"version":1},"r\u0032":{ },"r3":null},
            "data_source_schemas":null}}} "#;
        let o = outline(text).expect("a well-formed document");
        assert_eq!(o.keys().collect::<Vec<_>>(), ["a"]);
        let a = &o["a"];
        assert_eq!(&text[a.config.clone().unwrap()], r#"{"version":0}"#);
        assert_eq!(names(&a.resources, text), [r#"r1={"version":1}"#, "r2={ }"]);
        assert!(a.data_sources.is_empty());
    }

    #[test]
    fn leaves_anything_else_to_the_eager_parse() {
        for text in [
            r#"{"provider_schemas":{}"#,
            r#"{"provider_schemas":{}} x"#,
            r#"{"format_version":1,"provider_schemas":{}}"#,
            r#"{"provider_schemas":[]}"#,
            r#"{"provider_schemas":{"a":{"resource_schemas":{"r":1}}}}"#,
            r#"{"provider_schemas":{"a":{"resource_schemas":{"r":{},"r":{}}}}}"#,
            r#"{"provider_schemas":{"a":{},"a":null}}"#,
            r#"{"provider_schemas":{"a":{"resource_schemas":{},"resource_schemas":{}}}}"#,
            r#"{"provider_schemas":{},"provider_schemas":{}}"#,
            r#"{"provider_schemas":{},"provider\u005fschemas":{}}"#,
            r#"{"type":"string"}"#,
            r#"[]"#,
        ] {
            assert!(outline(text).is_none(), "{text}");
        }
        assert!(outline(r#"{"provider_schemas":null}"#).unwrap().is_empty());
    }
}
