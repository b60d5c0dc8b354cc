//! Errors: [`DecodeError`] (one word, boxed, with kind, byte offset and value path) and
//! [`SchemaError`] (malformed schema or type JSON).

use std::fmt;

use crate::located::Fault;

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
/// assert_eq!(err.offset(), Some(2));
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

    /// Byte offset in the input where the offending item starts: always `Some` for a decode
    /// error (an `Option` as on every tfwire error, some of which have no input offset).
    pub fn offset(&self) -> Option<usize> {
        Some(self.0.offset)
    }

    /// [`offset`](Self::offset) without the `Option`.
    pub(crate) fn byte(&self) -> usize {
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

/// A malformed schema, schema document or type JSON. Displays as every tfwire error does:
/// `at PATH (byte N): MESSAGE`, where the path names the place in the schema document as a
/// chain of steps (`provider "registry.terraform.io/hashicorp/aws", resource "aws_instance",
/// attribute "ami"`; left out for the document as a whole) and the byte is the offset of a
/// JSON syntax error in the text.
///
/// ```
/// use tfwire::Program;
///
/// let err = Program::from_type_json(r#"["list", "string""#).unwrap_err();
/// assert_eq!(err.path(), "");
/// assert_eq!(err.offset(), Some(17)); // the end: the list is not closed
/// assert!(err.message().starts_with("invalid type JSON: EOF while parsing a list"));
///
/// let err = Program::from_schema_json(r#"{"attributes": {"ami": {"type": 3}}}"#).unwrap_err();
/// assert_eq!(err.path(), r#"attribute "ami""#);
/// assert_eq!(err.offset(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError(Box<Fault>);

impl SchemaError {
    /// An error about the whole document (or type), without an offset.
    #[cold]
    pub(crate) fn new(message: impl Into<String>) -> Self {
        SchemaError::at(String::new(), None, message)
    }

    /// An error at `path` in the document and, for a syntax error, byte `offset`.
    #[cold]
    pub(crate) fn at(path: String, offset: Option<usize>, message: impl Into<String>) -> Self {
        SchemaError(Fault::in_document(path, offset, message))
    }

    /// A JSON syntax error of serde_json's in `text`, its message after `what`.
    #[cold]
    pub(crate) fn json(text: &[u8], what: &str, e: &serde_json::Error) -> Self {
        let (offset, message) = json_error_parts(text, e);
        SchemaError::at(String::new(), offset, format!("{what}: {message}"))
    }
}

located_error!(
    SchemaError,
    path: "Where in the schema document: steps such as `resource \"aws_instance\", attribute \
           \"ami\"`; empty for the document (or type) as a whole.",
    offset: "The byte offset of a JSON syntax error in the text; `None` for other errors.",
);

/// A serde_json error's byte offset in `text` (from its 1-based line and column, or the end
/// of the text for an unexpected end; `None` when it has none) and its message without the ` at line L column C` that serde_json appends.
pub(crate) fn json_error_parts(text: &[u8], e: &serde_json::Error) -> (Option<usize>, String) {
    let full = e.to_string();
    if e.line() == 0 {
        return (None, full);
    }
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    if e.is_eof() {
        return (Some(text.len()), message);
    }
    // The start of line `e.line()`, then its column (bytes, 1-based), kept inside the text.
    let line_start = match e.line() {
        1 => 0,
        n => text
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(n.saturating_sub(2))
            .map_or(text.len(), |(i, _)| i.saturating_add(1)),
    };
    let offset = line_start
        .saturating_add(e.column().saturating_sub(1))
        .min(text.len());
    (Some(offset), message)
}
