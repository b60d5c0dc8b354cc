//! A schema entry of a [`SchemaSet`](super::SchemaSet): one type of one provider of one
//! document, where its schema comes from (parsed with its document, or the extent of its
//! text in a document the outline read, `outline.rs`) and its program, compiled on first
//! use (`Entry::load`).

use std::ops::Range;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, OnceLock};

use super::Mode;
use crate::dump::straight::StraightDump;
use crate::error::SchemaError;
use crate::program::Program;
use crate::schema::{schema_in_document, Schema, Selection, Type};

/// A type's schema in one document, for one provider and mode.
#[derive(Debug)]
pub(super) struct Entry {
    pub(super) document: usize,
    /// Shared by the entries of one provider of a document.
    pub(super) provider: Arc<str>,
    pub(super) normalized: Arc<str>,
    pub(super) source: Source,
    /// The program and the schema's version, made on first use; an error when a deferred
    /// schema does not load. (Boxed: a document names thousands of types, of which a state
    /// loads a few hundred, and a `Loaded` inline made each entry 520 bytes, not 128.)
    pub(super) loaded: OnceLock<Box<Result<Loaded, SchemaError>>>,
}

#[derive(Clone, Debug)]
pub(super) enum Source {
    /// Parsed with its document.
    Parsed(Schema),
    /// The extent of the schema object in its document's text, parsed on first use.
    Deferred(Document, Range<usize>),
}

/// A deferred document's text (checked UTF-8 when added), shared by its schemas.
#[derive(Clone)]
pub(super) struct Document(
    pub(super) Arc<dyn AsRef<[u8]> + Send + Sync + UnwindSafe + RefUnwindSafe>,
);

impl Document {
    /// The text of `range` (empty when it is not one: never, as the outline made it).
    fn part(&self, range: Range<usize>) -> &str {
        let bytes = (*self.0).as_ref().get(range).unwrap_or_default();
        std::str::from_utf8(bytes).unwrap_or_default()
    }
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Document({} bytes)", (*self.0).as_ref().len())
    }
}

#[derive(Debug)]
pub(super) struct Loaded {
    pub(super) program: Program,
    pub(super) version: i64,
    /// The straight DUMP of the program's type, made on first use ([`SchemaSet::write_dumps`](super::SchemaSet::write_dumps)).
    pub(super) straight: OnceLock<Option<StraightDump>>,
}

impl Entry {
    pub(super) fn load(
        &self,
        mode: Mode,
        type_name: &str,
        selection: Option<&Selection>,
    ) -> &Result<Loaded, SchemaError> {
        self.loaded
            .get_or_init(|| Box::new(self.make(mode, type_name, selection)))
    }

    /// [`Entry::load`]'s program, made.
    fn make(
        &self,
        mode: Mode,
        type_name: &str,
        selection: Option<&Selection>,
    ) -> Result<Loaded, SchemaError> {
        let schema;
        let schema = match &self.source {
            Source::Parsed(s) => s,
            Source::Deferred(text, range) => {
                let label = match mode {
                    Mode::Managed => "resource",
                    Mode::Data => "data source",
                };
                let part = text.part(range.clone());
                schema = schema_in_document(part, &self.provider, label, Some(type_name))?;
                &schema
            }
        };
        let program = Program::from_block(&schema.block)?;
        let program = match selection {
            Some(selection) => program.select(selection)?,
            None => program,
        };
        Ok(Loaded {
            program,
            version: schema.version,
            straight: OnceLock::new(),
        })
    }
}

/// A candidate whose schema does not load: its [`Match`] carries this program (an empty
/// object's) and its decode fails with the schema's error.
pub(super) fn unloadable() -> &'static Program {
    static EMPTY: OnceLock<Program> = OnceLock::new();
    EMPTY.get_or_init(|| crate::compile::compile(&Type::Object(Default::default()), None))
}
