//! State-reader helpers shared by `state_reader.rs` and `state_parallel.rs`: chunked input,
//! one line per instance, the readers' lines, a one-type schema set.

use std::io::Read;

use tfwire::state::{Outcome, ReaderOptions, SchemaSet, StateFile, StateReader};
use tfwire::{dump, DecodeOptions};

/// Hands out its bytes in pseudo-random pieces of 1 to `max` bytes (a pipe, a socket).
pub struct Chunked<'a> {
    pub data: &'a [u8],
    pub seed: u64,
    pub max: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = (1 + (self.seed >> 33) as usize % self.max)
            .min(buf.len())
            .min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// One line per instance: address, schema version, attributes length, outcome (with the DUMP).
pub fn line(item: tfwire::state::InstanceRef<'_, '_>, outcome: &Outcome<'_>) -> String {
    let attrs = item.instance.attributes.json().map(str::len);
    let result = match outcome {
        Outcome::Ok(v, m) => format!("ok {}", dump::to_string(m.program, *v).unwrap()),
        // (The same line: a DUMP written straight is the DUMP of the decoded value.)
        Outcome::Dumped(text, _) => format!("ok {text}"),
        Outcome::Error(e, m) => format!("error {e} (document {})", m.document),
        Outcome::NoSchema => "no schema".into(),
        Outcome::Legacy => "legacy".into(),
    };
    format!(
        "{} v{} {attrs:?} {} {result}",
        item.address(),
        item.instance.schema_version,
        item.resource.provider_address
    )
}

pub fn by_parse(set: &SchemaSet, text: &str) -> Result<Vec<String>, String> {
    let state = StateFile::parse(text).map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    set.visit(&state, &DecodeOptions::default(), |item, o| {
        lines.push(line(item, o))
    });
    Ok(lines)
}

pub fn by_reader(
    set: &SchemaSet,
    input: impl Read,
    options: ReaderOptions,
) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    StateReader::with_options(input, options)
        .visit(set, &DecodeOptions::default(), |item, o| {
            lines.push(line(item, o))
        })
        .map_err(|e| e.to_string())?;
    Ok(lines)
}

/// [`by_reader`], the state in memory, read in place.
pub fn by_memory(set: &SchemaSet, text: &str) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    StateReader::in_memory(text.to_string())
        .visit(set, &DecodeOptions::default(), |item, o| {
            lines.push(line(item, o))
        })
        .map_err(|e| e.to_string())?;
    Ok(lines)
}

pub fn small(read_size: usize) -> ReaderOptions {
    ReaderOptions::default().with_read_size(read_size)
}

pub fn doc() -> SchemaSet {
    let mut set = SchemaSet::new();
    set.add_json(
        r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/null":
        {"resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{
          "id":{"type":"string"},"n":{"type":"number","optional":true}}}}}}}}"#,
    )
    .unwrap();
    set
}

pub const PROVIDER: &str = r#"provider[\"registry.terraform.io/hashicorp/null\"]"#;

/// A state whose first resource is `null_resource.a` with `count` instances, instance `i`
/// having `index_key` `i` and the attributes object `attributes(i)`; `more` (further
/// resources, each after a comma, or nothing) follows it in `resources`.
pub fn one_resource(count: usize, attributes: impl Fn(usize) -> String, more: &str) -> String {
    let instances: Vec<String> = (0..count)
        .map(|i| format!(r#"{{"index_key":{i},"attributes":{}}}"#, attributes(i)))
        .collect();
    format!(
        r#"{{"version":4,"resources":[{{"mode":"managed","type":"null_resource","name":"a","provider":"{PROVIDER}","instances":[{}]}}{more}]}}"#,
        instances.join(",")
    )
}
