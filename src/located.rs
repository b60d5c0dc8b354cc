//! The errors other than [`DecodeError`](crate::DecodeError) — [`EncodeError`](crate::EncodeError),
//! [`BuildError`](crate::BuildError), [`DeError`](crate::DeError),
//! [`SchemaError`](crate::SchemaError), [`StateError`](crate::state::StateError) — each box a
//! [`Fault`]: the place (a value path unwound step by step, or a place in a document), the
//! byte when known, the message. `located_error!` gives each of them the same `path()`,
//! `offset()`, `message()`, `Display` and `Error`, so that one story holds for all.

use std::fmt;

use crate::path::{fmt_at, fmt_in_document, UnwoundPath};

/// What an error says: where, at which byte (when it read bytes), and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fault {
    path: UnwoundPath,
    offset: Option<usize>,
    message: String,
    /// A place in a document (a schema, a state file), whose empty path is the document as a
    /// whole: left out of the display, where a value's empty path reads `(root)`.
    in_document: bool,
}

impl Fault {
    /// A fault at a value's root; the steps out of the containers around it are added as it
    /// unwinds ([`attr`](Self::attr), [`key`](Self::key), [`index`](Self::index)).
    #[cold]
    pub(crate) fn in_value(message: impl Into<String>) -> Box<Fault> {
        Box::new(Fault {
            path: UnwoundPath::default(),
            offset: None,
            message: message.into(),
            in_document: false,
        })
    }

    /// A fault at `path` in a document (empty: the document as a whole), at byte `offset`
    /// when known.
    #[cold]
    pub(crate) fn in_document(
        path: String,
        offset: Option<usize>,
        message: impl Into<String>,
    ) -> Box<Fault> {
        Box::new(Fault {
            path: UnwoundPath::fixed(path),
            offset,
            message: message.into(),
            in_document: true,
        })
    }

    /// The fault is inside attribute `name` of an object.
    #[cold]
    pub(crate) fn attr(&mut self, name: &str) {
        self.path.attr(name);
    }

    /// The fault is inside the map element under `key`.
    #[cold]
    pub(crate) fn key(&mut self, key: &str) {
        self.path.key(key);
    }

    /// The fault is inside element `i` of a list, set or tuple.
    #[cold]
    pub(crate) fn index(&mut self, i: usize) {
        self.path.index(i);
    }

    pub(crate) fn path(&self) -> &str {
        self.path.render()
    }

    pub(crate) fn offset(&self) -> Option<usize> {
        self.offset
    }

    pub(crate) fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.in_document {
            true => fmt_in_document(f, self.path(), self.offset, &self.message),
            false => fmt_at(f, self.path(), self.offset, &self.message),
        }
    }
}

/// For `struct NAME(Box<Fault>)`: `path()`, `offset()` and `message()` (documented with the
/// two texts given), `Display` (the fault's) and `std::error::Error`.
macro_rules! located_error {
    ($name:ident, path: $path_doc:literal, offset: $offset_doc:literal $(,)?) => {
        impl $name {
            #[doc = $path_doc]
            pub fn path(&self) -> &str {
                self.0.path()
            }

            #[doc = $offset_doc]
            pub fn offset(&self) -> Option<usize> {
                self.0.offset()
            }

            /// What was wrong, without the place.
            pub fn message(&self) -> &str {
                self.0.message()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&*self.0, f)
            }
        }

        impl std::error::Error for $name {}
    };
}
