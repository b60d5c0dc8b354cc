//! Selections: the parts of a type a query needs, as paths in Terraform's notation (`tags`,
//! `ebs_block_device[*].volume_id`, `["not an identifier"]`), and the projected type they
//! leave ([`Type::project`]): each object keeps only the attributes a path goes through or
//! ends at. A program compiled for a selection ([`Program::select`](crate::Program::select))
//! decodes only those parts and steps over the rest.
//!
//! The steps a path may take: an attribute (`.name`, or `["name"]` for any name); `[*]` into
//! every element of a list, set, map or tuple; `[N]` into element `N` of a list or tuple; and
//! `["key"]` (or `.key`) into the entry `key` of a map. A path that ends selects its whole
//! subtree.
//!
//! What a projection keeps of a collection: every element when a path takes `[*]` into it,
//! else the elements the paths pick (those the value has), in their order — so a list picked
//! at `[2]` is a list of at most one element, and a map picked at `["Name"]` a map of at most
//! one entry. A list's or map's elements share one type, so each kept element is projected on
//! every path that steps into the collection; a tuple's element `N` on the paths through
//! `[*]` and `[N]`, and a tuple's projected type has only the elements kept. Sets have no
//! order: their elements are only selected with `[*]`.
//!
//! A path may go on inside a `dynamic` value, whose type comes with the value: there it
//! selects by that type (after go-cty's read-through of nested wrappers), and a path the
//! type does not have selects nothing (no error: each value may have another type). A
//! dynamic value is decoded whole, then restricted to the paths its type has, and keeps its
//! type projected on them; one whose type has none of its paths is null. (A null or unknown
//! dynamic value has no parts: it is kept as it is.)

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
    /// One element of a list or tuple: `[3]`.
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

    /// The object attributes `names`, each whole (any name: no notation parsed).
    #[cfg(feature = "sql")]
    pub(crate) fn attributes<I, S>(names: I) -> Selection
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let paths = names.into_iter().map(|n| vec![SelectStep::Attr(n.into())]);
        Selection {
            paths: paths.collect(),
        }
    }

    /// No paths: nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The paths that `ty` has (the selection inside a `dynamic` value, whose type comes with
    /// it): each step names a part of the type — an attribute the object has, `[*]` into a
    /// collection (into a tuple only when every element has the rest), `[N]` into a list or
    /// into a tuple that long, `["key"]` into a map — or reaches a `dynamic` value.
    pub(crate) fn applicable_to(&self, ty: &Type) -> Selection {
        let paths = self
            .paths
            .iter()
            .filter(|p| applies(p, ty))
            .cloned()
            .collect();
        Selection { paths }
    }
}

/// Whether `ty` has the path `steps` (see [`Selection::applicable_to`]).
fn applies(steps: &[SelectStep], ty: &Type) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return true;
    };
    match (ty, step) {
        (Type::Dynamic, _) => true,
        (Type::Object(o), SelectStep::Attr(name)) => o.get(name).is_some_and(|t| applies(rest, t)),
        (Type::List(t), SelectStep::Every | SelectStep::Index(_))
        | (Type::Set(t), SelectStep::Every)
        | (Type::Map(t), SelectStep::Every | SelectStep::Attr(_)) => applies(rest, t),
        (Type::Tuple(ts), SelectStep::Every) => ts.iter().all(|t| applies(rest, t)),
        (Type::Tuple(ts), SelectStep::Index(i)) => usize::try_from(*i)
            .ok()
            .and_then(|i| ts.get(i))
            .is_some_and(|t| applies(rest, t)),
        _ => false,
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
    /// tuple keeps only the elements picked (all with `[*]`); a path's last step keeps its
    /// whole type. An empty selection projects nothing away (the type itself). A path that
    /// names no attribute of the type, takes a step the value there does not have (an index
    /// of a set or map, a key of a list, an element past a tuple's end) or steps into a value
    /// that has no parts is an error naming it; a `dynamic` value stays `dynamic`, whatever
    /// paths go on inside it. See [`Selection`].
    pub fn project(&self, selection: &Selection) -> Result<Type, SchemaError> {
        Ok(self.shape(selection)?.to_type())
    }

    /// What a projection on `selection` keeps of this type: the projected type with the
    /// elements each collection picks (the compiler's input for [`Program::select`]).
    ///
    /// [`Program::select`]: crate::Program::select
    pub(crate) fn shape(&self, selection: &Selection) -> Result<Shape, SchemaError> {
        if selection.paths.is_empty() {
            return Ok(Shape::Whole(self.clone()));
        }
        let paths: Vec<Cursor<'_>> = selection
            .paths
            .iter()
            .map(|p| Cursor { path: p, at: 0 })
            .collect();
        shape(self, &paths)
    }
}

/// What a projection keeps of a type: a type whose collections may keep only some elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// The whole value.
    Whole(Type),
    /// Some attributes of an object (sorted by name) and the optional ones among them, and
    /// the names of all the object's attributes (sorted: the order go-cty writes keys in, by
    /// which a decoder steps over the others without looking them up).
    Object {
        attrs: Vec<(String, Shape)>,
        optional: Vec<String>,
        all: Vec<String>,
    },
    /// A list's elements: all, or those at `picks` (sorted, no repeats).
    List {
        elem: Box<Shape>,
        picks: Option<Vec<u64>>,
    },
    /// A set's elements, all of them.
    Set { elem: Box<Shape> },
    /// A map's entries: all, or those whose key is in `picks` (sorted, no repeats).
    Map {
        elem: Box<Shape>,
        picks: Option<Vec<String>>,
    },
    /// A `dynamic` value and the paths inside it, which apply to the type it comes with.
    Dynamic(Selection),
    /// A tuple's elements: all (`picks` `None`, one shape per element), or the elements at
    /// `picks` (sorted, no repeats; one shape per pick) of a tuple of `arity` elements.
    Tuple {
        elems: Vec<Shape>,
        picks: Option<Vec<u64>>,
        arity: usize,
    },
}

impl Shape {
    /// The type of the values a projection of this shape decodes.
    pub(crate) fn to_type(&self) -> Type {
        match self {
            Shape::Whole(t) => t.clone(),
            Shape::Object {
                attrs, optional, ..
            } => {
                let attrs = attrs.iter().map(|(n, s)| (n.clone(), s.to_type()));
                let optional: Vec<&str> = optional.iter().map(String::as_str).collect();
                match ObjectType::new(attrs, &optional) {
                    Ok(o) => Type::Object(o),
                    // (Names and markers come from an object type, so they are valid.)
                    Err(_) => Type::Dynamic,
                }
            }
            Shape::List { elem, .. } => Type::List(Box::new(elem.to_type())),
            Shape::Set { elem } => Type::Set(Box::new(elem.to_type())),
            Shape::Map { elem, .. } => Type::Map(Box::new(elem.to_type())),
            Shape::Tuple { elems, .. } => Type::Tuple(elems.iter().map(Shape::to_type).collect()),
            Shape::Dynamic(_) => Type::Dynamic,
        }
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

/// What the rest of `paths` keeps of `ty`.
fn shape(ty: &Type, paths: &[Cursor<'_>]) -> Result<Shape, SchemaError> {
    if paths.iter().any(|p| p.next().is_none()) {
        return Ok(Shape::Whole(ty.clone()));
    }
    match ty {
        Type::Object(o) => object(o, paths),
        Type::List(elem) => {
            let picks = picked(paths, |p| match p.next() {
                Some(SelectStep::Every) => Ok(None),
                Some(SelectStep::Index(i)) => Ok(Some(*i)),
                _ => Err(p.error("the elements of a list are selected with [*] or [N]")),
            })?;
            let elem = Box::new(shape(elem, &advanced(paths))?);
            Ok(Shape::List { elem, picks })
        }
        Type::Set(elem) => {
            for p in paths {
                if p.next() != Some(&SelectStep::Every) {
                    return Err(p.error("a set's elements have no order: select them with [*]"));
                }
            }
            let elem = Box::new(shape(elem, &advanced(paths))?);
            Ok(Shape::Set { elem })
        }
        Type::Map(elem) => {
            let picks = picked(paths, |p| match p.next() {
                Some(SelectStep::Every) => Ok(None),
                Some(SelectStep::Attr(key)) => Ok(Some(key.clone())),
                _ => Err(p.error("the entries of a map are selected with [*] or [\"key\"]")),
            })?;
            let elem = Box::new(shape(elem, &advanced(paths))?);
            Ok(Shape::Map { elem, picks })
        }
        Type::Tuple(elems) => tuple(elems, paths),
        Type::Dynamic => {
            let mut paths: Vec<Vec<SelectStep>> = paths
                .iter()
                .map(|p| p.path.get(p.at..).unwrap_or_default().to_vec())
                .collect();
            paths.sort_unstable();
            paths.dedup();
            Ok(Shape::Dynamic(Selection { paths }))
        }
        Type::Bool | Type::Number | Type::String => {
            let name = ty.to_string();
            Err(first(paths).error(format_args!("a {} has no parts", name.trim_matches('"'))))
        }
    }
}

fn object(o: &ObjectType, paths: &[Cursor<'_>]) -> Result<Shape, SchemaError> {
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
    names.sort_unstable();
    let mut attrs: Vec<(String, Shape)> = Vec::with_capacity(names.len());
    for name in names {
        let rest: Vec<Cursor<'_>> = paths
            .iter()
            .filter(|p| matches!(p.next(), Some(SelectStep::Attr(n)) if n == name))
            .map(|p| p.advanced())
            .collect();
        let attr_type = o.get(name).unwrap_or(&Type::Dynamic);
        attrs.push((name.to_string(), shape(attr_type, &rest)?));
    }
    let optional: Vec<String> = o
        .optional()
        .iter()
        .filter(|n| attrs.iter().any(|(k, _)| k == *n))
        .cloned()
        .collect();
    let all = o.attrs().iter().map(|(n, _)| n.clone()).collect();
    Ok(Shape::Object {
        attrs,
        optional,
        all,
    })
}

fn tuple(elems: &[Type], paths: &[Cursor<'_>]) -> Result<Shape, SchemaError> {
    let arity = elems.len();
    let picks = picked(paths, |p| match p.next() {
        Some(SelectStep::Every) => Ok(None),
        Some(SelectStep::Index(i)) if *i < arity as u64 => Ok(Some(*i)),
        Some(SelectStep::Index(_)) => Err(p.error(format_args!(
            "the tuple has {arity} element{}",
            if arity == 1 { "" } else { "s" }
        ))),
        _ => Err(p.error("the elements of a tuple are selected with [*] or [N]")),
    })?;
    // Element `i` on the paths through `[*]` and through `[i]`.
    let of = |i: usize| -> Vec<Cursor<'_>> {
        paths
            .iter()
            .filter(|p| match p.next() {
                Some(SelectStep::Index(j)) => *j == i as u64,
                _ => true,
            })
            .map(|p| p.advanced())
            .collect()
    };
    let kept: Vec<usize> = match &picks {
        None => (0..arity).collect(),
        Some(picks) => picks.iter().map(|&i| i as usize).collect(),
    };
    let shapes = kept
        .into_iter()
        .map(|i| match elems.get(i) {
            Some(t) => shape(t, &of(i)),
            None => Err(first(paths).error("no such tuple element")),
        })
        .collect::<Result<_, _>>()?;
    Ok(Shape::Tuple {
        elems: shapes,
        picks,
        arity,
    })
}

/// The elements `paths` pick, each path's step read by `step` (`None` for `[*]`): `None` when
/// one takes `[*]` (every element), else the picks sorted, without repeats.
fn picked<'s, K: Ord>(
    paths: &[Cursor<'s>],
    step: impl Fn(&Cursor<'s>) -> Result<Option<K>, SchemaError>,
) -> Result<Option<Vec<K>>, SchemaError> {
    let mut picks = Vec::new();
    let mut every = false;
    for p in paths {
        match step(p)? {
            Some(k) => picks.push(k),
            None => every = true,
        }
    }
    if every {
        return Ok(None);
    }
    picks.sort_unstable();
    picks.dedup();
    Ok(Some(picks))
}

/// Every path, one step further.
fn advanced<'s>(paths: &[Cursor<'s>]) -> Vec<Cursor<'s>> {
    paths.iter().map(|p| p.advanced()).collect()
}

fn first<'s>(paths: &[Cursor<'s>]) -> Cursor<'s> {
    paths
        .first()
        .copied()
        .unwrap_or(Cursor { path: &[], at: 0 })
}
