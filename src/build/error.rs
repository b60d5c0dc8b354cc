//! [`BuildError`]: what was wrong with a value being built, and where, as a Terraform value
//! path. The path is recorded as the error returns through the containers that hold the
//! position (innermost step first), and rendered on request.

use std::fmt;

use crate::located::Fault;

/// A value that cannot be built as asked: the position's path and what was wrong.
///
/// `Display` shows `at PATH: MESSAGE` (`(root)` for the root). The path is in
/// Terraform's notation: `.ingress[2].cidr_blocks[0]`, `.tags["Name"]`, an attribute whose
/// name is not an identifier as `["name"]`; a set element's index is the order it was inserted
/// in (a set's own order is decided when it is complete).
///
/// ```
/// use bumpalo::Bump;
/// use tfwire::Program;
///
/// let program = Program::from_type_json(r#"["object",{"ports":["list","number"]}]"#).unwrap();
/// let bump = Bump::new();
/// let b = program.builder(&bump);
/// let err = b
///     .build(b.object(|o| o.set("ports", b.list(|l| {
///         l.push(443)?;
///         l.push("http")
///     }))))
///     .unwrap_err();
/// assert_eq!(err.path(), ".ports[1]");
/// assert_eq!(err.message(), "expected a number, found a string");
/// assert_eq!(err.to_string(), "at .ports[1]: expected a number, found a string");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct BuildError(Box<Fault>);

impl BuildError {
    /// An error at the current position.
    #[cold]
    pub(super) fn new(message: impl Into<String>) -> BuildError {
        BuildError(Fault::in_value(message))
    }

    /// The error happened inside attribute `name`.
    #[cold]
    pub(super) fn in_attr(mut self, name: &str) -> BuildError {
        self.0.attr(name);
        self
    }

    /// The error happened inside the map element under `key`.
    #[cold]
    pub(super) fn in_key(mut self, key: &str) -> BuildError {
        self.0.key(key);
        self
    }

    /// The error happened inside element `i` of a list, set or tuple.
    #[cold]
    pub(super) fn in_index(mut self, i: usize) -> BuildError {
        self.0.index(i);
        self
    }
}

located_error!(
    BuildError,
    path: "The value path in Terraform's notation (`.ingress[2].cidr_blocks[0]`); empty at the root.",
    offset: "Always `None`: building reads Rust values, not bytes (present so that every \
             tfwire error has `path()` and `offset()` of the same types).",
);

impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuildError")
            .field("path", &self.path())
            .field("message", &self.message())
            .finish()
    }
}
