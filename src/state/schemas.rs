//! [`SchemaSet`]: the schemas of several providers-schema documents, each compiled on first
//! use, and the candidate schemas of an instance (the rules are in the [module docs](super);
//! the decode against them is `candidates.rs`).

use rustc_hash::{FxHashMap, FxHashSet};
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, OnceLock};

use bumpalo::Bump;

use super::entry::{unloadable, Document, Entry, Loaded, Source};
use super::filter::ResourceFilter;
use super::outline::outline;
use super::{last_segment, normalize_provider, InstanceRef, Mode, StateFile};
use crate::error::{DecodeError, SchemaError};
use crate::program::{DecodeOptions, Program};
use crate::schema::{schema_in_document, ProviderSchemas, Selection};
use crate::value::Value;

/// The schemas of several providers-schema documents, each compiled on first use and cached.
/// `Send + Sync`: share one set across threads.
#[derive(Debug, Default)]
pub struct SchemaSet {
    /// Each type name's place in `slots`. (Fx hashing: the keys come from the schema
    /// documents, a state's names only look up.)
    types: FxHashMap<String, TypeId>,
    /// By type: its name, and its managed (0) and data (1) entries, in load order.
    slots: Vec<TypeSlot>,
    documents: usize,
    /// The selection every program is projected on ([`SchemaSet::select`]).
    selection: Option<Selection>,
    /// The resource types whose instances are decoded ([`SchemaSet::only_types`]); every
    /// type when `None`.
    only: Option<FxHashSet<String>>,
    /// The resources whose instances are decoded ([`SchemaSet::only_resources`], `filter.rs`).
    pub(super) filter: Option<ResourceFilter>,
    /// Instances as go-cty writes them are given as their DUMP ([`SchemaSet::write_dumps`]).
    pub(super) dumps: bool,
}

/// A type's place in a set ([`SchemaSet::type_id`]): a walk looks a type's entries up
/// once for a run of its resources (Terraform writes a type's resources one after another),
/// not in the hash map for each instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TypeId(usize);

/// A type's name and its managed (0) and data (1) entries.
#[derive(Debug)]
struct TypeSlot {
    name: String,
    entries: [Vec<Entry>; 2],
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
    /// Decoded, and given as its DUMP ([`crate::dump`]) instead of its value: only from a set
    /// that writes DUMPs ([`SchemaSet::write_dumps`]), for attributes as go-cty writes them.
    /// `program.decode_json` of the DUMP gives the value.
    Dumped(&'a str, Match<'a>),
    /// Every candidate schema failed; the error found furthest into the attributes.
    Error(DecodeError, Match<'a>),
    /// No loaded document has a schema for this provider, mode and type.
    NoSchema,
    /// Only legacy `attributes_flat`: not supported (counted as "no schema" by the CLI).
    Legacy,
}

impl Clone for SchemaSet {
    /// The same documents, selection and type restriction (the documents' text shared, not
    /// copied); the copy compiles its programs again on first use, each set its own.
    fn clone(&self) -> SchemaSet {
        let entry = |e: &Entry| Entry {
            document: e.document,
            provider: e.provider.clone(),
            normalized: e.normalized.clone(),
            source: e.source.clone(),
            loaded: OnceLock::new(),
        };
        SchemaSet {
            types: self.types.clone(),
            slots: (self.slots.iter())
                .map(
                    |TypeSlot {
                         name,
                         entries: [m, d],
                     }| TypeSlot {
                        name: name.clone(),
                        entries: [m.iter().map(entry).collect(), d.iter().map(entry).collect()],
                    },
                )
                .collect(),
            documents: self.documents,
            selection: self.selection.clone(),
            only: self.only.clone(),
            filter: self.filter.clone(),
            dumps: self.dumps,
        }
    }
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
        self.documents = self.documents.saturating_add(1);
        for (provider, p) in doc.providers {
            for (mode, map) in [(Mode::Managed, p.resources), (Mode::Data, p.data_sources)] {
                let schemas = map.into_iter().map(|(t, s)| (t, Source::Parsed(s)));
                self.insert(document, &provider, mode, schemas);
            }
        }
        document
    }

    fn insert(
        &mut self,
        document: usize,
        provider: &str,
        mode: Mode,
        schemas: impl Iterator<Item = (String, Source)>,
    ) {
        let normalized: Arc<str> = normalize_provider(provider).into();
        let provider: Arc<str> = provider.into();
        for (type_name, source) in schemas {
            let Some(slots) = self.slot_mut(type_name) else {
                continue;
            };
            let entries = of_mode_mut(slots, mode);
            // Room for one, not the four of a first push: a type has one entry a document
            // (two when two providers name it), and thousands of 128-byte entries four
            // times over were a third of the start-up's page faults. (Later pushes grow the
            // list as usual: a set that takes many documents naming one type.)
            if entries.capacity() == 0 {
                entries.reserve_exact(1);
            }
            entries.push(Entry {
                document,
                provider: Arc::clone(&provider),
                normalized: Arc::clone(&normalized),
                source,
                loaded: OnceLock::new(),
            });
        }
    }

    /// Parses a providers-schema document ([`ProviderSchemas::parse`]) and adds it.
    pub fn add_json(&mut self, text: &str) -> Result<usize, SchemaError> {
        Ok(self.add(ProviderSchemas::parse(text)?))
    }

    /// Adds a providers-schema document as [`SchemaSet::add_json`] does, but parses each
    /// resource and data source schema only when an instance of its type first needs it: a
    /// state that uses a few hundred of a provider's thousands of types pays for those
    /// (loading the AWS, Azure and Google documents eagerly takes a tenth of a second).
    /// `text` is a `String` or any bytes the set keeps until it is dropped (a `Vec<u8>`, a
    /// memory map), checked UTF-8 once (invalid UTF-8 is an error at its offset).
    ///
    /// The document's JSON syntax, its outline (providers, the members holding schemas) and
    /// each provider's configuration schema are checked at once, with the errors
    /// [`SchemaSet::add_json`] gives. A schema found malformed on first use fails the decode
    /// of each instance it is a candidate for, with an
    /// [`ErrorKind::Schema`](crate::ErrorKind::Schema) error naming it.
    ///
    /// ```
    /// use tfwire::state::{Outcome, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let mut set = SchemaSet::new();
    /// set.add_json_deferred(r#"{"provider_schemas":{"registry.terraform.io/hashicorp/null":{
    ///   "resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{
    ///     "id":{"type":"string","computed":true}}}},
    ///   "null_bad":{"version":"x"}}}}}"#.to_string()).unwrap();
    /// assert_eq!(set.compiled(), 0);
    /// let state = br#"{"version":4,"resources":[
    ///   {"mode":"managed","type":"null_resource","name":"a","provider":"provider.null",
    ///    "instances":[{"attributes":{"id":"1"}}]},
    ///   {"mode":"managed","type":"null_bad","name":"b","provider":"provider.null",
    ///    "instances":[{"attributes":{"id":"2"}}]}]}"#;
    /// let mut seen = Vec::new();
    /// StateReader::new(&state[..]).visit(&set, &DecodeOptions::default(), |item, outcome| {
    ///     seen.push(match outcome {
    ///         Outcome::Ok(..) => format!("{}: ok", item.address()),
    ///         Outcome::Error(e, _) => format!("{}: {:?} {}", item.address(), e.kind(), e.message()),
    ///         _ => format!("{}: no schema", item.address()),
    ///     });
    /// })?;
    /// assert_eq!(seen, [
    ///     "null_resource.a: ok",
    ///     "null_bad.b: Schema the schema does not load: at provider \"registry.terraform.io/hashicorp/null\", \
    ///      resource \"null_bad\": version: expected an integer, found a string",
    /// ]);
    /// assert_eq!(set.compiled(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_json_deferred<T>(&mut self, text: T) -> Result<usize, SchemaError>
    where
        T: AsRef<[u8]> + Send + Sync + UnwindSafe + RefUnwindSafe + 'static,
    {
        let text = Document(Arc::new(text));
        let bytes = (*text.0).as_ref();
        let s = simdutf8::compat::from_utf8(bytes)
            .map_err(|e| SchemaError::at(String::new(), Some(e.valid_up_to()), "invalid UTF-8"))?;
        let Some(providers) = outline(s) else {
            // Not what the outline reads: the eager parse gives the error (or, for a
            // repeated key, its last-wins reading).
            return self.add_json(s);
        };
        for (provider, p) in &providers {
            if let Some(range) = p.config.clone() {
                let part = s.get(range).unwrap_or_default();
                schema_in_document(part, provider, "provider config", None)?;
            }
        }
        let document = self.documents;
        self.documents = self.documents.saturating_add(1);
        // (Room for the types at once, rather than a rehash and a copy at each doubling.)
        let types: usize = providers
            .values()
            .map(|p| p.resources.len().saturating_add(p.data_sources.len()))
            .sum();
        self.reserve_types(types);
        for (provider, p) in providers {
            for (mode, map) in [(Mode::Managed, p.resources), (Mode::Data, p.data_sources)] {
                let schemas = map
                    .into_iter()
                    .map(|(t, r)| (t, Source::Deferred(text.clone(), r)));
                self.insert(document, &provider, mode, schemas);
            }
        }
        Ok(document)
    }

    /// Moves the documents of `other` after this set's (in their order): sets filled on
    /// several threads, one document each, become one. The candidates are then those of
    /// one set that took all the documents in that order.
    ///
    /// ```
    /// use tfwire::state::{Mode, SchemaSet};
    ///
    /// // A document of one provider with `null_resource` (and `null_other`) at a version.
    /// let doc = |provider: &str, version: u32, other: bool| {
    ///     let schema = format!(r#"{{"version":{version},"block":{{}}}}"#);
    ///     let more = if other { format!(r#","null_other":{schema}"#) } else { String::new() };
    ///     format!(r#"{{"format_version":"1.0","provider_schemas":{{"{provider}":
    ///       {{"resource_schemas":{{"null_resource":{schema}{more}}}}}}}}}"#)
    /// };
    /// let (terraform, opentofu) = ("registry.terraform.io/hashicorp/null", "registry.opentofu.org/hashicorp/null");
    /// let (mut first, mut second) = (SchemaSet::new(), SchemaSet::new());
    /// first.add_json(&doc(terraform, 1, false))?;
    /// second.add_json(&doc(opentofu, 2, true))?;
    /// second.add_json(&doc(terraform, 3, false))?;
    /// first.append(second);
    /// assert_eq!(first.documents(), 3);
    /// // (document, schema version): the provider's own in load order, then the other registry's.
    /// let found = |provider: &str, type_name: &str| -> Vec<(usize, i64)> {
    ///     first.candidates(provider, Mode::Managed, type_name)
    ///         .map(|m| (m.document, m.schema_version))
    ///         .collect()
    /// };
    /// assert_eq!(found(terraform, "null_resource"), [(0, 1), (2, 3), (1, 2)]);
    /// assert_eq!(found(opentofu, "null_other"), [(1, 2)]);
    /// # Ok::<(), tfwire::SchemaError>(())
    /// ```
    pub fn append(&mut self, other: SchemaSet) {
        let documents = self.documents;
        self.reserve_types(other.slots.len());
        for TypeSlot { name, entries } in other.slots {
            let Some(mine) = self.slot_mut(name) else {
                continue;
            };
            for (mine, mut theirs) in mine.iter_mut().zip(entries) {
                for e in &mut theirs {
                    e.document = e.document.saturating_add(documents);
                }
                // (A type the set has no entry of yet takes the other set's, not a copy.)
                match mine.is_empty() {
                    true => *mine = theirs,
                    false => mine.extend(theirs),
                }
            }
        }
        self.documents = self.documents.saturating_add(other.documents);
    }

    /// Projects every program on `selection` ([`Program::select`]): decoded values hold
    /// only the selected parts, and the rest of each instance's attributes is stepped over
    /// (checked as JSON, not against the schema). A type that lacks a selected path fails
    /// its instances with an [`ErrorKind::Schema`](crate::ErrorKind::Schema) error naming the
    /// path: select across the types that have it ([`SchemaSet::only_types`]). Programs compiled before are
    /// compiled again on next use.
    ///
    /// ```
    /// use tfwire::schema::Selection;
    /// use tfwire::state::{Outcome, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let mut set = SchemaSet::new();
    /// set.add_json(r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/null":
    ///   {"resource_schemas":{
    ///     "null_resource":{"version":0,"block":{"attributes":{"id":{"type":"string"},
    ///       "triggers":{"type":["map","string"]}}}},
    ///     "null_other":{"version":0,"block":{"attributes":{"id":{"type":"string"}}}}}}}}"#)?;
    /// set.select(Selection::parse(["triggers"])?);
    /// set.only_types(["null_resource"]);
    /// let state = br#"{"version":4,"resources":[
    ///   {"mode":"managed","type":"null_other","name":"o","provider":"provider.null",
    ///    "instances":[{"attributes":{"id":"o"}}]},
    ///   {"mode":"managed","type":"null_resource","name":"x","provider":"provider.null",
    ///    "instances":[{"attributes":{"id":"a","triggers":{"k":"v"}}}]}]}"#;
    /// let mut seen = Vec::new();
    /// let summary = StateReader::new(&state[..]).visit(&set, &DecodeOptions::default(), |item, outcome| {
    ///     if let Outcome::Ok(value, m) = outcome {
    ///         seen.push(format!("{} {}", item.address(), tfwire::dump::to_string(m.program, *value).unwrap()));
    ///     }
    /// })?;
    /// assert_eq!(seen, [r#"null_resource.x {"triggers":{"k":"v"}}"#]);
    /// assert_eq!((summary.instances, summary.skipped), (1, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn select(&mut self, selection: Selection) {
        self.selection = (!selection.is_empty()).then_some(selection);
        for entry in (self.slots.iter_mut()).flat_map(|s| s.entries.iter_mut().flatten()) {
            entry.loaded = OnceLock::new();
        }
    }

    /// Decodes and visits only the instances of these resource (or data source) types: a
    /// [`StateReader`](super::StateReader), [`SchemaSet::visit`] and
    /// [`SchemaSet::decode_all`] step over the others without decoding them and count them
    /// as skipped. The reader only delimits such an instance object (its brackets counted
    /// outside strings, 64 bytes at a time), so a fault inside one that leaves it delimited
    /// (a stray comma, a bad escape, an `index_key` of the wrong kind) goes unreported; the
    /// resource's own keys are checked as always. [`SchemaSet::decode`] of one instance
    /// decodes whatever its type. An empty list keeps every type.
    pub fn only_types<I, S>(&mut self, types: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let only: FxHashSet<String> = types.into_iter().map(Into::into).collect();
        self.only = (!only.is_empty()).then_some(only);
    }

    /// Gives the instances whose attributes are as go-cty writes them (every attribute
    /// present in the type's order or left out; numbers as the DUMP writes them; map keys in
    /// order; whitespace anywhere) as their DUMP, [`Outcome::Dumped`], written straight from
    /// the JSON without building the value: about twice as fast as the decode and then the
    /// DUMP, for a consumer that wants only the DUMP. The same DUMP, and only where the decode
    /// succeeds. Other instances, and decodes with options other than the default limits or
    /// with [`DecodeOptions::check_item_counts`], are decoded as always ([`Outcome::Ok`]). Off
    /// by default.
    ///
    /// ```
    /// use tfwire::state::{Outcome, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let mut set = SchemaSet::new();
    /// set.add_json(r#"{"provider_schemas":{"registry.terraform.io/hashicorp/null":{"resource_schemas":
    ///   {"null_resource":{"version":0,"block":{"attributes":{"id":{"type":"string"},"n":{"type":"number"}}}}}}}}"#)?;
    /// set.write_dumps(true);
    /// let state = br#"{"version":4,"resources":[{"mode":"managed","type":"null_resource","name":"x",
    ///   "provider":"provider[\"registry.terraform.io/hashicorp/null\"]","each":"list","instances":[
    ///   {"index_key":0,"attributes":{"id": "a", "n": 1}},
    ///   {"index_key":1,"attributes":{"n":1E3,"id":"b"}}]}]}"#;
    /// let mut dumps = Vec::new();
    /// StateReader::new(&state[..]).visit(&set, &DecodeOptions::default(), |_, outcome| {
    ///     dumps.push(match outcome {
    ///         Outcome::Dumped(text, _) => format!("straight {text}"),
    ///         Outcome::Ok(value, m) => format!("decoded {}", tfwire::dump::to_string(m.program, *value).unwrap()),
    ///         _ => "failed".to_string(),
    ///     });
    /// })?;
    /// assert_eq!(dumps, [r#"straight {"id":"a","n":1}"#, r#"decoded {"id":"b","n":1e3}"#]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_dumps(&mut self, on: bool) {
        self.dumps = on;
    }

    /// True when instances of `type_name` are decoded ([`SchemaSet::only_types`]).
    pub fn wants(&self, type_name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.contains(type_name))
    }

    /// The resource (or data source) types of `mode` the documents define, sorted.
    ///
    /// ```
    /// use tfwire::state::{Mode, SchemaSet};
    /// let mut set = SchemaSet::new();
    /// set.add_json(r#"{"provider_schemas":{"registry.terraform.io/hashicorp/null":{
    ///   "resource_schemas":{"null_resource":{"version":0,"block":{}}},
    ///   "data_source_schemas":{"null_data_source":{"version":0,"block":{}}}}}}"#)?;
    /// assert_eq!(set.type_names(Mode::Managed), ["null_resource"]);
    /// assert_eq!(set.type_names(Mode::Data), ["null_data_source"]);
    /// # Ok::<(), tfwire::SchemaError>(())
    /// ```
    pub fn type_names(&self, mode: Mode) -> Vec<&str> {
        let mut names: Vec<&str> = (self.slots.iter())
            .filter(|slot| !of_mode(&slot.entries, mode).is_empty())
            .map(|slot| slot.name.as_str())
            .collect();
        names.sort_unstable();
        names
    }

    /// The program of the first schema loaded for type `type_name` of `mode` (of the first
    /// document that has one; with the set's selection), or its error when it does not load;
    /// `None` when no document defines the type.
    pub fn first_program(
        &self,
        mode: Mode,
        type_name: &str,
    ) -> Option<Result<&Program, &SchemaError>> {
        let slot = self.slots.get(self.type_id(type_name)?.0)?;
        let (name, entry) = (&slot.name, of_mode(&slot.entries, mode).first()?);
        Some(
            (entry.load(mode, name, self.selection.as_ref()).as_ref())
                .map(|loaded| &loaded.program),
        )
    }

    /// Number of documents added.
    pub fn documents(&self) -> usize {
        self.documents
    }

    /// Number of programs compiled so far.
    pub fn compiled(&self) -> usize {
        let entries = self.slots.iter().flat_map(|s| s.entries.iter().flatten());
        entries
            .filter(|e| e.loaded.get().is_some_and(|l| l.is_ok()))
            .count()
    }

    /// The candidate schemas for a type of a provider (a full address, see
    /// [`provider_address`]), best first (see the module docs); each compiles on first use.
    /// A deferred schema that does not load is left out.
    ///
    /// [`provider_address`]: super::provider_address
    pub fn candidates<'a: 'p, 'p>(
        &'a self,
        provider: &'p str,
        mode: Mode,
        type_name: &str,
    ) -> impl Iterator<Item = Match<'a>> + 'p {
        self.loaded_candidates(provider, mode, type_name)
            .filter_map(|(m, loaded)| loaded.is_ok().then_some(m))
    }

    /// The place of `type_name` in the set, when a document defines it.
    pub(super) fn type_id(&self, type_name: &str) -> Option<TypeId> {
        self.types.get(type_name).copied()
    }

    /// Room for `n` more types in `types` and `slots`.
    fn reserve_types(&mut self, n: usize) {
        self.types.reserve(n);
        self.slots.reserve(n);
    }

    /// The entries of `type_name`, added when new (always `Some`: every id in `types` is a
    /// place in `slots`).
    fn slot_mut(&mut self, type_name: String) -> Option<&mut [Vec<Entry>; 2]> {
        let id = match self.types.get(&type_name) {
            Some(&id) => id,
            None => {
                let id = TypeId(self.slots.len());
                self.types.insert(type_name.clone(), id);
                let entries = Default::default();
                self.slots.push(TypeSlot {
                    name: type_name,
                    entries,
                });
                id
            }
        };
        self.slots.get_mut(id.0).map(|slot| &mut slot.entries)
    }

    /// The candidates, each with the error of a schema that does not load.
    pub(super) fn loaded_candidates<'a: 'p, 'p>(
        &'a self,
        provider: &'p str,
        mode: Mode,
        type_name: &str,
    ) -> impl Iterator<Item = (Match<'a>, Result<&'a Loaded, &'a SchemaError>)> + 'p {
        self.candidates_of(self.type_id(type_name), provider, mode)
    }

    /// [`SchemaSet::loaded_candidates`] of the type at `id` (none when `None`).
    pub(super) fn candidates_of<'a: 'p, 'p>(
        &'a self,
        id: Option<TypeId>,
        provider: &'p str,
        mode: Mode,
    ) -> impl Iterator<Item = (Match<'a>, Result<&'a Loaded, &'a SchemaError>)> + 'p {
        // The set's own copy of the name: a deferred schema's errors name its type.
        let (type_name, entries): (&'a str, &'a [Entry]) =
            match id.and_then(|id| self.slots.get(id.0)) {
                Some(slot) => (&slot.name, of_mode(&slot.entries, mode)),
                None => ("", &[]),
            };
        let selection = self.selection.as_ref();
        let exact = move |e: &&Entry| *e.normalized == *provider;
        let same_type = move |e: &&Entry| {
            *e.normalized != *provider && last_segment(&e.normalized) == last_segment(provider)
        };
        let tier1 = entries.iter().filter(exact);
        tier1.chain(entries.iter().filter(same_type)).map(move |e| {
            let loaded = e.load(mode, type_name, selection).as_ref();
            let (program, schema_version) = match loaded {
                Ok(loaded) => (&loaded.program, loaded.version),
                Err(_) => (unloadable(), 0),
            };
            let m = Match {
                program,
                provider: &e.provider,
                document: e.document,
                schema_version,
            };
            (m, loaded)
        })
    }

    /// Decodes every instance of `state` into `bump` (which keeps them all: for a large
    /// state prefer [`SchemaSet::visit`]).
    pub fn decode_all<'a, 's: 'a>(
        &'a self,
        state: &'a StateFile<'s>,
        bump: &'a Bump,
        options: &'a DecodeOptions,
    ) -> impl Iterator<Item = (InstanceRef<'a, 's>, Outcome<'a>)> + 'a {
        state
            .instances()
            .filter(|item| self.wants_resource(item.resource))
            .map(move |item| (item, self.decode(item, bump, options)))
    }

    /// Decodes every instance of `state` and hands each to `f`, reusing one arena (reset
    /// after each instance).
    pub fn visit<F>(&self, state: &StateFile<'_>, options: &DecodeOptions, mut f: F)
    where
        F: FnMut(InstanceRef<'_, '_>, &Outcome<'_>),
    {
        let mut bump = Bump::new();
        for item in state.instances() {
            if !self.wants_resource(item.resource) {
                continue;
            }
            f(item, &self.decode(item, &bump, options));
            bump.reset();
        }
    }
}

/// The schemas of `mode` among a type name's two lists (resources, data sources).
fn of_mode(slots: &[Vec<Entry>; 2], mode: Mode) -> &Vec<Entry> {
    let [managed, data] = slots;
    match mode {
        Mode::Managed => managed,
        Mode::Data => data,
    }
}

/// [`of_mode`], to add to.
fn of_mode_mut(slots: &mut [Vec<Entry>; 2], mode: Mode) -> &mut Vec<Entry> {
    let [managed, data] = slots;
    match mode {
        Mode::Managed => managed,
        Mode::Data => data,
    }
}
