//! Errors: [`DecodeError`] (one word, boxed, with kind, byte offset and value path) and
//! [`SchemaError`] (malformed schema or type JSON).

use std::fmt;

/// What went wrong in a decode. Stable names; new kinds may be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended inside a value.
    Eof,
    /// Bytes that are not valid MessagePack or JSON (a reserved marker, bad JSON syntax).
    Syntax,
    /// A value of the wrong wire type for the schema type at that position.
    TypeMismatch,
    /// A string that is not valid UTF-8 (or, in JSON, an invalid escape or lone surrogate).
    InvalidUtf8,
    /// A number that is not a valid number (bad decimal text, NaN).
    InvalidNumber,
    /// An object key that the object type does not have.
    UnknownAttribute,
    /// An object attribute missing from the input.
    MissingAttribute,
    /// The same object key twice.
    DuplicateKey,
    /// A map key that is not a string (or is nil).
    InvalidKey,
    /// A tuple whose element count differs from its type's.
    WrongLength,
    /// A malformed dynamic wrapper (`[type, value]` or `{"type","value"}`).
    InvalidDynamic,
    /// A dynamic wrapper whose type JSON is not a valid type.
    InvalidType,
    /// Elements of one collection whose dynamic parts have different concrete types.
    InconsistentTypes,
    /// A malformed or inconsistent refinement payload of an unknown value.
    InvalidRefinement,
    /// A LIST or SET block count outside `min_items..=max_items` (only when checked).
    ItemCount,
    /// Bytes after the value in a one-value decode.
    TrailingBytes,
    /// A resource limit was exceeded (see [`crate::Limits`]).
    Limit,
    /// The schema for the value does not load: a providers-schema document added with
    /// [`SchemaSet::add_json_deferred`](crate::state::SchemaSet::add_json_deferred) whose
    /// schema for this type is malformed (found when an instance of the type first needed it).
    Schema,
}

impl ErrorKind {
    /// A stable lower-case name (`type_mismatch`, …).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Eof => "eof",
            ErrorKind::Syntax => "syntax",
            ErrorKind::TypeMismatch => "type_mismatch",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::InvalidNumber => "invalid_number",
            ErrorKind::UnknownAttribute => "unknown_attribute",
            ErrorKind::MissingAttribute => "missing_attribute",
            ErrorKind::DuplicateKey => "duplicate_key",
            ErrorKind::InvalidKey => "invalid_key",
            ErrorKind::WrongLength => "wrong_length",
            ErrorKind::InvalidDynamic => "invalid_dynamic",
            ErrorKind::InvalidType => "invalid_type",
            ErrorKind::InconsistentTypes => "inconsistent_types",
            ErrorKind::InvalidRefinement => "invalid_refinement",
            ErrorKind::ItemCount => "item_count",
            ErrorKind::TrailingBytes => "trailing_bytes",
            ErrorKind::Limit => "limit",
            ErrorKind::Schema => "schema",
        }
    }

    /// The coarse class of this kind.
    pub fn category(self) -> Category {
        match self {
            ErrorKind::Eof => Category::Eof,
            ErrorKind::Syntax | ErrorKind::InvalidUtf8 | ErrorKind::TrailingBytes => {
                Category::Syntax
            }
            ErrorKind::Limit => Category::Limit,
            _ => Category::Data,
        }
    }
}

/// The coarse class of a [`DecodeError`], as serde_json's `classify()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// The input ended early.
    Eof,
    /// The bytes are not well-formed MessagePack / JSON / UTF-8.
    Syntax,
    /// Well-formed bytes that do not fit the schema.
    Data,
    /// A resource limit.
    Limit,
}

struct Inner {
    kind: ErrorKind,
    offset: usize,
    path: String,
    message: String,
}

/// A decode failure: one pointer wide, built only on the error path.
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::{ErrorKind, Program};
///
/// let program = Program::from_type_json(r#"["list","number"]"#).unwrap();
/// let bump = Bump::new();
/// // A list of two elements whose second is a bool.
/// let err = program.decode_msgpack(&[0x92, 0x01, 0xc3], &bump).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::TypeMismatch);
/// assert_eq!(err.path(), "[1]");
/// assert_eq!(err.offset(), 2);
/// assert_eq!(err.to_string(), "at [1] (byte 2): expected number, found msgpack true");
/// ```
pub struct DecodeError(Box<Inner>);

impl DecodeError {
    #[cold]
    #[inline(never)]
    pub(crate) fn new(kind: ErrorKind, offset: usize, path: String, message: String) -> Self {
        DecodeError(Box::new(Inner {
            kind,
            offset,
            path,
            message,
        }))
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The coarse class (eof, syntax, data, limit).
    pub fn classify(&self) -> Category {
        self.0.kind.category()
    }

    /// Byte offset in the input where the offending item starts.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// The value path in Terraform's notation (`.ingress[2].cidr_blocks[0]`,
    /// `.tags["Name"]`); empty at the root.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// The message without path and offset.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The path, or `(root)` when empty: what the CLI prints.
    pub fn display_path(&self) -> &str {
        if self.0.path.is_empty() {
            "(root)"
        } else {
            &self.0.path
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::path::fmt_at(f, &self.0.path, Some(self.0.offset), &self.0.message)
    }
}

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeError")
            .field("kind", &self.0.kind)
            .field("offset", &self.0.offset)
            .field("path", &self.0.path)
            .field("message", &self.0.message)
            .finish()
    }
}

impl std::error::Error for DecodeError {}

/// A malformed schema, schema document or type JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError(Box<str>);

impl SchemaError {
    #[cold]
    pub(crate) fn new(message: impl Into<String>) -> Self {
        SchemaError(message.into().into_boxed_str())
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SchemaError {}
