//! Selections: the parts of a type a query needs, as paths in Terraform's notation (`tags`,
//! `ebs_block_device[*].volume_id`, `["not an identifier"]`), and the projected type they
//! leave ([`Type::project`]): each object keeps only the attributes a path goes through or
//! ends at. A program compiled for a selection ([`Program::select`](crate::Program::select))
//! decodes only those parts and steps over the rest.
//!
//! The steps a path may take: an attribute (`.name`, or `["name"]` for any name), and `[*]`
//! into every element of a list, set, map or tuple. A path that ends selects its whole
//! subtree. Picking single elements (`[0]`, `["key"]` of a map) and stepping inside a
//! `dynamic` value (whose type comes with the value) are not supported yet: such a path is
//! an error naming it.

use std::fmt;

use super::{ObjectType, Type};
use crate::error::SchemaError;

/// One step of a selection path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SelectStep {
    /// An object attribute: `.name` or `["name"]`.
    Attr(String),
    /// Every element of a collection or tuple: `[*]`.
    Every,
    /// One element (`[3]`): parsed, not yet supported by [`Type::project`].
    Index(u64),
}

/// Paths into a type, parsed from Terraform's notation.
///
/// ```
/// use tfwire::schema::Selection;
/// use tfwire::Type;
///
/// let ty = Type::from_json(
///     r#"["object",{"id":"string","tags":["map","string"],
///        "ebs":["list",["object",{"size":"number","id":"string"}]]}]"#,
/// )?;
/// let selection = Selection::parse(["tags", "ebs[*].id"])?;
/// assert_eq!(
///     ty.project(&selection)?.to_string(),
///     r#"["object",{"ebs":["list",["object",{"id":"string"}]],"tags":["map","string"]}]"#
/// );
/// # Ok::<(), tfwire::SchemaError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    paths: Vec<Vec<SelectStep>>,
}

impl Selection {
    /// Parses paths such as `tags`, `.tags`, `ebs_block_device[*].volume_id` or
    /// `["a b"].c`. An empty path (`""` or `.`) selects everything.
    pub fn parse<I, S>(paths: I) -> Result<Selection, SchemaError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let paths = paths
            .into_iter()
            .map(|p| parse_path(p.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Selection { paths })
    }

    /// No paths: nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
}

impl fmt::Display for Selection {
    /// The paths in canonical notation, separated by `, `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, path) in self.paths.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(&render(path))?;
        }
        Ok(())
    }
}

/// `path` in canonical notation (`.a[*]["b c"]`).
fn render(path: &[SelectStep]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            SelectStep::Attr(name) => crate::path::Step::Attr(name).write(&mut out),
            SelectStep::Every => out.push_str("[*]"),
            SelectStep::Index(i) => crate::path::Step::Index(*i as usize).write(&mut out),
        }
    }
    out
}

fn parse_path(text: &str) -> Result<Vec<SelectStep>, SchemaError> {
    let bad = |why: &str| SchemaError::new(format!("selection {text:?}: {why}"));
    let mut steps = Vec::new();
    let mut rest = text.strip_prefix('.').unwrap_or(text);
    // The first attribute may go without its dot.
    let mut need_dot = false;
    while !rest.is_empty() {
        if let Some(inside) = rest.strip_prefix('[') {
            let (step, after) = bracket(inside).ok_or_else(|| bad("a bad [ ] step"))?;
            steps.push(step);
            rest = after;
        } else {
            let name_text = match rest.strip_prefix('.') {
                Some(r) => r,
                None if !need_dot => rest,
                None => return Err(bad("expected `.`, `[` or the end")),
            };
            let end = name_text
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(name_text.len());
            let (name, after) = name_text.split_at(end);
            if name.is_empty() {
                return Err(bad("an empty attribute name"));
            }
            steps.push(SelectStep::Attr(name.to_string()));
            rest = after;
        }
        need_dot = true;
    }
    Ok(steps)
}

/// The step of `[…]` whose `[` is just before `s`, and the text after its `]`.
fn bracket(s: &str) -> Option<(SelectStep, &str)> {
    if let Some(after) = s.strip_prefix("*]") {
        return Some((SelectStep::Every, after));
    }
    if s.starts_with('"') {
        // A JSON string, then `]`.
        let close = crate::json_escape::quoted_len(s.as_bytes())?;
        let name: String = serde_json::from_str(s.get(..close)?).ok()?;
        let after = s.get(close..)?.strip_prefix(']')?;
        return Some((SelectStep::Attr(name), after));
    }
    let end = s.find(']')?;
    let digits = s.get(..end)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((
        SelectStep::Index(digits.parse().ok()?),
        s.get(end.saturating_add(1)..)?,
    ))
}

impl Type {
    /// The projection of this type on `selection`: each object keeps only the attributes a
    /// path goes through or ends at (with their optional markers), projected in turn; a
    /// path's last step keeps its whole type. An empty selection projects nothing away (the
    /// type itself). A path that names no attribute of the type, steps into a value that has
    /// no parts, picks a single element or steps inside a `dynamic` value is an error naming
    /// it. See [`Selection`].
    pub fn project(&self, selection: &Selection) -> Result<Type, SchemaError> {
        if selection.paths.is_empty() {
            return Ok(self.clone());
        }
        let paths: Vec<Cursor<'_>> = selection
            .paths
            .iter()
            .map(|p| Cursor { path: p, at: 0 })
            .collect();
        project(self, &paths)
    }
}

/// A path and how many of its steps are taken.
#[derive(Clone, Copy)]
struct Cursor<'s> {
    path: &'s [SelectStep],
    at: usize,
}

impl<'s> Cursor<'s> {
    fn next(&self) -> Option<&'s SelectStep> {
        self.path.get(self.at)
    }

    fn advanced(self) -> Cursor<'s> {
        Cursor {
            path: self.path,
            at: self.at.saturating_add(1),
        }
    }

    /// An error at this cursor's step: the whole path and the part taken so far.
    #[cold]
    fn error(&self, msg: impl fmt::Display) -> SchemaError {
        let taken = render(self.path.get(..self.at).unwrap_or_default());
        let place = if taken.is_empty() {
            "the root".to_string()
        } else {
            taken
        };
        SchemaError::new(format!(
            "selection {}: at {place}: {msg}",
            render(self.path)
        ))
    }
}

/// `ty` projected on the rest of `paths`.
fn project(ty: &Type, paths: &[Cursor<'_>]) -> Result<Type, SchemaError> {
    if paths.iter().any(|p| p.next().is_none()) {
        return Ok(ty.clone());
    }
    match ty {
        Type::Object(o) => {
            let mut names: Vec<&str> = Vec::new();
            for p in paths {
                match p.next() {
                    Some(SelectStep::Attr(name)) if o.get(name).is_some() => {
                        if !names.contains(&name.as_str()) {
                            names.push(name);
                        }
                    }
                    Some(SelectStep::Attr(name)) => {
                        return Err(p.error(format_args!("the object has no attribute {name:?}")))
                    }
                    _ => return Err(p.error("an object's parts are attributes")),
                }
            }
            let mut kept: Vec<(String, Type)> = Vec::with_capacity(names.len());
            for name in names {
                let rest: Vec<Cursor<'_>> = paths
                    .iter()
                    .filter(|p| matches!(p.next(), Some(SelectStep::Attr(n)) if n == name))
                    .map(|p| p.advanced())
                    .collect();
                let attr_type = o.get(name).unwrap_or(&Type::Dynamic);
                kept.push((name.to_string(), project(attr_type, &rest)?));
            }
            let optional: Vec<&str> = o
                .optional()
                .iter()
                .map(String::as_str)
                .filter(|n| kept.iter().any(|(k, _)| k == n))
                .collect();
            Ok(Type::Object(ObjectType::new(kept, &optional)?))
        }
        Type::List(elem) | Type::Set(elem) | Type::Map(elem) => {
            let elem = Box::new(project(elem, &every(paths, ty)?)?);
            Ok(match ty {
                Type::List(_) => Type::List(elem),
                Type::Set(_) => Type::Set(elem),
                _ => Type::Map(elem),
            })
        }
        Type::Tuple(elems) => {
            let rest = every(paths, ty)?;
            let elems = elems
                .iter()
                .map(|t| project(t, &rest))
                .collect::<Result<_, _>>()?;
            Ok(Type::Tuple(elems))
        }
        Type::Dynamic => Err(first(paths).error(
            "stepping inside a dynamic value is not supported yet (select the value whole)",
        )),
        Type::Bool | Type::Number | Type::String => {
            let name = ty.to_string();
            Err(first(paths).error(format_args!("a {} has no parts", name.trim_matches('"'))))
        }
    }
}

fn first<'s>(paths: &[Cursor<'s>]) -> Cursor<'s> {
    paths
        .first()
        .copied()
        .unwrap_or(Cursor { path: &[], at: 0 })
}

/// The paths after their `[*]` step (each must take one here).
fn every<'s>(paths: &[Cursor<'s>], ty: &Type) -> Result<Vec<Cursor<'s>>, SchemaError> {
    let kind = match ty {
        Type::List(_) => "list",
        Type::Set(_) => "set",
        Type::Map(_) => "map",
        _ => "tuple",
    };
    paths
        .iter()
        .map(|p| match p.next() {
            Some(SelectStep::Every) => Ok(p.advanced()),
            Some(SelectStep::Index(_)) => {
                Err(p.error("picking one element is not supported yet: select [*]"))
            }
            _ => Err(p.error(format_args!(
                "the elements of a {kind} are selected with [*]"
            ))),
        })
        .collect()
}
