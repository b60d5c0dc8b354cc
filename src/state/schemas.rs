//! [`SchemaSet`]: the schemas of several providers-schema documents, each compiled on first
//! use, and the decode of one instance's attributes against its candidate schemas (the rules
//! are in the [module docs](super)).

use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use bumpalo::Bump;

use super::{last_segment, normalize_provider, InstanceRef, Mode, Resource, StateFile};
use crate::decode::json::tokens;
use crate::error::{DecodeError, SchemaError};
use crate::program::{DecodeOptions, Program};
use crate::schema::{ProviderSchemas, Schema};
use crate::value::Value;

/// The schemas of several providers-schema documents, each compiled on first use and cached.
/// `Send + Sync`: share one set across threads.
#[derive(Debug, Default)]
pub struct SchemaSet {
    /// By type name: managed (0) and data (1) entries, in load order. (Fx hashing: one lookup
    /// per instance; the keys come from the schema documents, a state's names only look up.)
    types: FxHashMap<String, [Vec<Entry>; 2]>,
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

    /// The reader's decode: the attributes JSON at the start of `buf` (which may hold more
    /// after it, or, when `more`, only its beginning) against the resource's candidates.
    pub(crate) fn decode_prefix<'a>(
        &'a self,
        resource: &Resource<'_>,
        buf: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
        more: bool,
        scratch: &Bump,
    ) -> Prefix<'a> {
        let r = resource;
        let mut furthest: Option<(DecodeError, Match<'a>)> = None;
        let mut complete = !more;
        for m in self.candidates(&r.provider_address, r.mode, &r.type_name) {
            match m.program.decode_json_prefix(buf, bump, options) {
                Ok((value, end)) => return Prefix::Done(Outcome::Ok(value, m), end),
                Err(e) => {
                    // A failure in a value cut short by the buffer's end is no failure yet.
                    if !complete {
                        if !tokens::is_complete(buf, 0, scratch) {
                            return Prefix::Incomplete;
                        }
                        complete = true;
                    }
                    match &furthest {
                        Some((f, _)) if f.offset() >= e.offset() => {}
                        _ => furthest = Some((e, m)),
                    }
                }
            }
        }
        // No candidate decoded it: find its end with a validating skip.
        let end = match tokens::skip(buf, 0, scratch) {
            Ok(end) => end,
            Err(_) if more && !tokens::is_complete(buf, 0, scratch) => return Prefix::Incomplete,
            Err(e) => return Prefix::Invalid(e),
        };
        match furthest {
            Some((e, m)) => Prefix::Done(Outcome::Error(e, m), end),
            None => Prefix::Done(Outcome::NoSchema, end),
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

/// What [`SchemaSet::decode_prefix`] gave.
pub(crate) enum Prefix<'a> {
    /// The outcome and the end of the attributes JSON in the buffer.
    Done(Outcome<'a>, usize),
    /// The buffer ends inside the attributes: read more and try again.
    Incomplete,
    /// The attributes are not JSON (offset in the buffer).
    Invalid(DecodeError),
}
