//! Value paths in Terraform's notation — `.ingress[2].cidr_blocks[0]`, `.tags["Name"]`,
//! `["not an identifier"]` — the one renderer behind every error's `path()`: decoding
//! ([`DecodeError`](crate::DecodeError)), encoding and the DUMP
//! ([`EncodeError`](crate::EncodeError)), building ([`BuildError`](crate::BuildError)) and
//! serde ([`DeError`](crate::DeError)).

/// One step of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    /// An object attribute: `.name`, or `["name"]` when the name is not an identifier.
    Attr(&'a str),
    /// A map key: `["key"]`.
    Key(&'a str),
    /// A list, set or tuple index: `[3]`.
    Index(usize),
}

impl Step<'_> {
    /// Appends the step in Terraform's notation.
    pub(crate) fn write(&self, out: &mut String) {
        match *self {
            Step::Attr(name) if is_identifier(name) => {
                out.push('.');
                out.push_str(name);
            }
            Step::Attr(name) | Step::Key(name) => {
                out.push('[');
                out.push_str(&serde_json::to_string(name).unwrap_or_default());
                out.push(']');
            }
            Step::Index(i) => {
                out.push('[');
                out.push_str(itoa::Buffer::new().format(i));
                out.push(']');
            }
        }
    }
}

/// An HCL identifier: such attribute names are written `.name`, others `["name"]`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The error shape every error type displays: `at PATH (byte N): MESSAGE`, without the byte
/// where there is no input offset, and `(root)` for an empty value path.
pub(crate) fn fmt_at(
    f: &mut std::fmt::Formatter<'_>,
    path: &str,
    offset: Option<usize>,
    message: &str,
) -> std::fmt::Result {
    let path = if path.is_empty() { "(root)" } else { path };
    fmt_located(f, Some(path), offset, message)
}

/// The same shape for an error about a document (a schema, a state file), whose empty path
/// is the document as a whole rather than a place in it: `at PATH (byte N): MESSAGE`,
/// `at byte N: MESSAGE`, or the message alone when neither is known.
pub(crate) fn fmt_in_document(
    f: &mut std::fmt::Formatter<'_>,
    path: &str,
    offset: Option<usize>,
    message: &str,
) -> std::fmt::Result {
    fmt_located(f, (!path.is_empty()).then_some(path), offset, message)
}

fn fmt_located(
    f: &mut std::fmt::Formatter<'_>,
    path: Option<&str>,
    offset: Option<usize>,
    message: &str,
) -> std::fmt::Result {
    match (path, offset) {
        (Some(path), Some(n)) => write!(f, "at {path} (byte {n}): {message}"),
        (Some(path), None) => write!(f, "at {path}: {message}"),
        (None, Some(n)) => write!(f, "at byte {n}: {message}"),
        (None, None) => f.write_str(message),
    }
}

/// Renders steps given root first; empty at the root.
#[cold]
pub(crate) fn render<'s>(steps: impl IntoIterator<Item = Step<'s>>) -> String {
    let mut out = String::new();
    for step in steps {
        step.write(&mut out);
    }
    out
}

/// The steps an error records as it unwinds out of the containers that hold it: innermost
/// first, rendered root first (once, on the first look).
#[derive(Clone, Debug, Default)]
pub(crate) struct UnwoundPath {
    steps: Vec<OwnedStep>,
    rendered: std::sync::OnceLock<String>,
}

impl PartialEq for UnwoundPath {
    fn eq(&self, other: &Self) -> bool {
        self.render() == other.render()
    }
}

impl Eq for UnwoundPath {}

#[derive(Clone, Debug, PartialEq, Eq)]
enum OwnedStep {
    Attr(Box<str>),
    Key(Box<str>),
    Index(usize),
}

impl UnwoundPath {
    /// A path given whole, already rendered (a place in a document); no steps are added to it.
    pub(crate) fn fixed(rendered: String) -> UnwoundPath {
        UnwoundPath {
            steps: Vec::new(),
            rendered: std::sync::OnceLock::from(rendered),
        }
    }

    /// The error is inside attribute `name` of an object.
    #[cold]
    pub(crate) fn attr(&mut self, name: &str) {
        self.push(OwnedStep::Attr(name.into()));
    }

    /// The error is inside the map element under `key`.
    #[cold]
    pub(crate) fn key(&mut self, key: &str) {
        self.push(OwnedStep::Key(key.into()));
    }

    /// The error is inside element `i` of a list, set or tuple.
    #[cold]
    pub(crate) fn index(&mut self, i: usize) {
        self.push(OwnedStep::Index(i));
    }

    fn push(&mut self, step: OwnedStep) {
        self.steps.push(step);
        self.rendered = std::sync::OnceLock::new();
    }

    /// The path in Terraform's notation; empty at the root.
    #[cold]
    pub(crate) fn render(&self) -> &str {
        self.rendered.get_or_init(|| {
            render(self.steps.iter().rev().map(|s| match s {
                OwnedStep::Attr(n) => Step::Attr(n),
                OwnedStep::Key(k) => Step::Key(k),
                OwnedStep::Index(i) => Step::Index(*i),
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terraform_notation() {
        let mut p = UnwoundPath::default();
        assert_eq!(p.render(), "");
        p.index(0);
        p.key("a\"b");
        p.attr("not ident");
        p.index(2);
        p.attr("ingress");
        assert_eq!(p.render(), r#".ingress[2]["not ident"]["a\"b"][0]"#);
        let steps = [Step::Attr("_x-1"), Step::Attr("1x"), Step::Key("k")];
        assert_eq!(render(steps), r#"._x-1["1x"]["k"]"#);
    }
}
