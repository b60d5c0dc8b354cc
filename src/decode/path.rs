//! Rendering a value path in Terraform's notation: `.attr["key"][3]`.

use std::fmt::Write;

/// One step of a path.
pub(crate) enum Step<'a> {
    Attr(&'a str),
    Key(&'a str),
    Index(usize),
}

/// Renders steps as Terraform does: attributes as `.name` (or `["name"]` when the name is not
/// an identifier), keys as `["key"]`, indexes as `[3]`.
#[cold]
pub(crate) fn render(steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
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
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
