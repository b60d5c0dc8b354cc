//! The cursors that fill containers: [`ObjectBuilder`], [`ListBuilder`], [`SetBuilder`],
//! [`MapBuilder`] and [`TupleBuilder`]. Each is made for a position of its kind, hands its
//! closure a `&mut` cursor, checks each part as it is placed (an error gets the part's path
//! step), and completes the container when the closure returns: objects must have every
//! attribute, tuples every element; sets are put in go-cty's order without duplicates; maps
//! sorted by key, a repeated key an error. Elements gather in arena vectors.
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::indexing_slicing)]

use bumpalo::collections::Vec as BumpVec;

use super::check::{attr_entries, mismatch, tuple_length, value, SameType};
use super::set_order::canonical_set;
use super::{At, BuildError, Part};
use crate::program::key::AttrEntry;
use crate::program::{Op, OpId};
use crate::value::{Object, Refinements, Value};

/// A position of the wrong kind for a container: the error names what it expected.
fn not_here(at: At<'_>, found: Value<'_>) -> BuildError {
    mismatch(at.code(), found)
}

/// Fills an object: [`ObjectBuilder::set`] each attribute by name.
///
/// Every attribute must be set before the closure returns — nulls too, with
/// [`ObjectBuilder::null`] or, for all the rest at once, [`ObjectBuilder::null_unset`];
/// otherwise the object is an error naming the attributes not set. Setting an attribute the
/// type does not have, or one already set, is an error.
pub struct ObjectBuilder<'a> {
    at: At<'a>,
    names: &'a [Box<str>],
    entries: &'a [AttrEntry],
    slots: &'a mut [Value<'a>],
}

/// The mark of a slot not set yet: an unknown whose refinements are this static, told apart
/// by address (no value handed in can point here).
static UNSET: Refinements<'static> = Refinements {
    nullness: None,
    string_prefix: None,
    number_lower: None,
    number_upper: None,
    length_lower: None,
    length_upper: None,
};

fn is_unset(v: &Value<'_>) -> bool {
    matches!(v, Value::Unknown(Some(r)) if std::ptr::eq(*r, &UNSET))
}

impl<'a> ObjectBuilder<'a> {
    /// Sets attribute `name` to `part`, checked against the attribute's type.
    pub fn set(&mut self, name: &str, part: impl Part<'a>) -> Result<(), BuildError> {
        let i = self.index(name)?;
        let (Some(entry), Some(slot)) = (self.entries.get(i), self.slots.get(i)) else {
            return Err(BuildError::new(format!("unsupported attribute {name:?}")));
        };
        if !is_unset(slot) {
            let msg = format!("attribute {name:?} set twice");
            return Err(BuildError::new(msg).in_attr(name));
        }
        let v = part
            .fill(self.at.child(entry.op))
            .map_err(|e| e.in_attr(name))?;
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = v;
        }
        Ok(())
    }

    /// Sets attribute `name` to null.
    pub fn null(&mut self, name: &str) -> Result<(), BuildError> {
        self.set(name, Value::Null)
    }

    /// Sets attribute `name` to an unknown value (in a plan: known after apply).
    pub fn unknown(&mut self, name: &str) -> Result<(), BuildError> {
        self.set(name, Value::Unknown(None))
    }

    /// Sets every attribute not set yet to null.
    pub fn null_unset(&mut self) {
        for slot in self.slots.iter_mut().filter(|s| is_unset(s)) {
            *slot = Value::Null;
        }
    }

    /// Sets every attribute not set yet to its value in `prior`, an object of this type
    /// (decoded with the same program, or built here), each checked deeply — prior state
    /// carried into a plan.
    pub fn copy_unset(&mut self, prior: Value<'a>) -> Result<(), BuildError> {
        let prior = match prior {
            Value::Object(o) if o.op() == self.at.op && o.attrs().len() == self.slots.len() => o,
            v => {
                let msg = format!("prior value: {}", not_here(self.at, v).message());
                return Err(BuildError::new(msg));
            }
        };
        for (i, (slot, x)) in self.slots.iter_mut().zip(prior.attrs()).enumerate() {
            if !is_unset(slot) {
                continue;
            }
            let name = self.names.get(i).map_or("", |n| n);
            let op = self.entries.get(i).map_or(self.at.op, |e| e.op);
            *slot = value(self.at.child(op), *x).map_err(|e| e.in_attr(name))?;
        }
        Ok(())
    }

    /// Whether attribute `name` has been set.
    pub fn is_set(&self, name: &str) -> bool {
        self.at
            .program
            .attr_index(self.at.op, name)
            .and_then(|i| self.slots.get(i))
            .is_some_and(|s| !is_unset(s))
    }

    /// The type's attribute names, in order (bytewise).
    pub fn names(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.names.iter().map(|n| &**n)
    }

    fn index(&self, name: &str) -> Result<usize, BuildError> {
        self.at
            .program
            .attr_index(self.at.op, name)
            .ok_or_else(|| BuildError::new(format!("unsupported attribute {name:?}")))
    }
}

/// An object at `at`, filled by `f`.
pub(super) fn object<'a, F>(at: At<'a>, f: F) -> Result<Value<'a>, BuildError>
where
    F: FnOnce(&mut ObjectBuilder<'a>) -> Result<(), BuildError>,
{
    if !matches!(at.code(), Op::Object { .. }) {
        return Err(not_here(at, Value::Object(Object::from_slice(at.op, &[]))));
    }
    at.enter()?;
    let names = at.program.attr_names(at.op);
    let unset = Value::Unknown(Some(&UNSET));
    let mut o = ObjectBuilder {
        at,
        names,
        entries: attr_entries(at),
        slots: at.bump.alloc_slice_fill_copy(names.len(), unset),
    };
    f(&mut o)?;
    if !o.slots.iter().any(is_unset) {
        return Ok(Value::Object(Object::from_slice(at.op, o.slots)));
    }
    let missing: Vec<&str> = o
        .slots
        .iter()
        .zip(names)
        .filter(|(s, _)| is_unset(s))
        .map(|(_, n)| &**n)
        .collect();
    Err(BuildError::new(not_set(&missing)))
}

/// `attribute "a" is not set`, `attributes "a", "b" are not set` (at most ten named).
fn not_set(missing: &[&str]) -> String {
    let named: Vec<String> = missing.iter().take(10).map(|n| format!("{n:?}")).collect();
    let more = missing.len().saturating_sub(10);
    match (missing.len(), more) {
        (1, _) => format!("attribute {} is not set", named.join("")),
        (_, 0) => format!("attributes {} are not set", named.join(", ")),
        _ => format!(
            "attributes {} and {more} more are not set",
            named.join(", ")
        ),
    }
}

/// Fills a list: [`ListBuilder::push`] elements in order.
pub struct ListBuilder<'a> {
    elem: At<'a>,
    items: BumpVec<'a, Value<'a>>,
    types: SameType<'a>,
}

/// Fills a set: [`SetBuilder::insert`] elements in any order. Complete, the set holds each
/// value once, in go-cty's order (see [the module](crate::build)).
pub struct SetBuilder<'a> {
    list: ListBuilder<'a>,
}

impl<'a> ListBuilder<'a> {
    fn new(elem: At<'a>) -> ListBuilder<'a> {
        ListBuilder {
            elem,
            items: BumpVec::new_in(elem.bump),
            types: SameType::default(),
        }
    }

    /// Appends `part`, checked against the element type.
    pub fn push(&mut self, part: impl Part<'a>) -> Result<(), BuildError> {
        let i = self.items.len();
        let v = part.fill(self.elem).map_err(|e| e.in_index(i))?;
        self.types.check(v).map_err(|e| e.in_index(i))?;
        self.items.push(v);
        Ok(())
    }

    /// Appends every part of `parts`, in order.
    pub fn extend<I>(&mut self, parts: I) -> Result<(), BuildError>
    where
        I: IntoIterator,
        I::Item: Part<'a>,
    {
        parts.into_iter().try_for_each(|p| self.push(p))
    }

    /// Elements so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True before the first element.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<'a> SetBuilder<'a> {
    /// Inserts `part`, checked against the element type. A value the set already holds is
    /// not added twice; errors name the element by insertion order (`[i]`).
    pub fn insert(&mut self, part: impl Part<'a>) -> Result<(), BuildError> {
        self.list.push(part)
    }

    /// Inserts every part of `parts`.
    pub fn extend<I>(&mut self, parts: I) -> Result<(), BuildError>
    where
        I: IntoIterator,
        I::Item: Part<'a>,
    {
        self.list.extend(parts)
    }

    /// Insertions so far (duplicates included).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True before the first insertion.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// A list at `at`, filled by `f`.
pub(super) fn list<'a, F>(at: At<'a>, f: F) -> Result<Value<'a>, BuildError>
where
    F: FnOnce(&mut ListBuilder<'a>) -> Result<(), BuildError>,
{
    let Op::List { elem, .. } = at.code() else {
        return Err(not_here(at, Value::List(&[])));
    };
    at.enter()?;
    let mut l = ListBuilder::new(at.child(elem));
    f(&mut l)?;
    Ok(Value::List(l.items.into_bump_slice()))
}

/// A set at `at`, filled by `f`, in go-cty's order.
pub(super) fn set<'a, F>(at: At<'a>, f: F) -> Result<Value<'a>, BuildError>
where
    F: FnOnce(&mut SetBuilder<'a>) -> Result<(), BuildError>,
{
    let Op::Set { elem, .. } = at.code() else {
        return Err(not_here(at, Value::Set(&[])));
    };
    at.enter()?;
    let mut s = SetBuilder {
        list: ListBuilder::new(at.child(elem)),
    };
    f(&mut s)?;
    let items = s.list.items.into_bump_slice();
    Ok(Value::Set(canonical_set(at.bump, at.program, elem, items)))
}

/// Fills a map: [`MapBuilder::insert`] elements by key.
pub struct MapBuilder<'a> {
    elem: At<'a>,
    entries: BumpVec<'a, (&'a str, Value<'a>)>,
    types: SameType<'a>,
}

impl<'a> MapBuilder<'a> {
    /// Inserts `part` under `key` (copied into the arena), checked against the element type.
    /// A key inserted twice is an error when the map is complete.
    pub fn insert(&mut self, key: &str, part: impl Part<'a>) -> Result<(), BuildError> {
        let v = part.fill(self.elem).map_err(|e| e.in_key(key))?;
        self.types.check(v).map_err(|e| e.in_key(key))?;
        let key = &*self.elem.bump.alloc_str(key);
        self.entries.push((key, v));
        Ok(())
    }

    /// Entries so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True before the first entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A map at `at`, filled by `f`, sorted by key.
pub(super) fn map<'a, F>(at: At<'a>, f: F) -> Result<Value<'a>, BuildError>
where
    F: FnOnce(&mut MapBuilder<'a>) -> Result<(), BuildError>,
{
    let Op::Map { elem } = at.code() else {
        return Err(not_here(at, Value::Map(&[])));
    };
    at.enter()?;
    let mut m = MapBuilder {
        elem: at.child(elem),
        entries: BumpVec::new_in(at.bump),
        types: SameType::default(),
    };
    f(&mut m)?;
    let entries = m.entries.into_bump_slice_mut();
    entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    if let Some(w) = entries.windows(2).find(|w| w[0].0 == w[1].0) {
        let key = w[0].0;
        return Err(BuildError::new(format!("duplicate map key {key:?}")).in_key(key));
    }
    Ok(Value::Map(entries))
}

/// Fills a tuple: [`TupleBuilder::push`] exactly the type's elements, in order.
pub struct TupleBuilder<'a> {
    at: At<'a>,
    ops: &'a [OpId],
    items: BumpVec<'a, Value<'a>>,
}

impl<'a> TupleBuilder<'a> {
    /// Appends `part`, checked against the next element's type; one beyond the type's last
    /// element is an error.
    pub fn push(&mut self, part: impl Part<'a>) -> Result<(), BuildError> {
        let i = self.items.len();
        let Some(&op) = self.ops.get(i) else {
            let msg = format!("the tuple type has {} elements", self.ops.len());
            return Err(BuildError::new(msg).in_index(i));
        };
        let v = part.fill(self.at.child(op)).map_err(|e| e.in_index(i))?;
        self.items.push(v);
        Ok(())
    }

    /// Appends every part of `parts`, in order.
    pub fn extend<I>(&mut self, parts: I) -> Result<(), BuildError>
    where
        I: IntoIterator,
        I::Item: Part<'a>,
    {
        parts.into_iter().try_for_each(|p| self.push(p))
    }

    /// Elements so far.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True before the first element.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A tuple at `at`, filled by `f`.
pub(super) fn tuple<'a, F>(at: At<'a>, f: F) -> Result<Value<'a>, BuildError>
where
    F: FnOnce(&mut TupleBuilder<'a>) -> Result<(), BuildError>,
{
    let Op::Tuple { elems } = at.code() else {
        return Err(not_here(at, Value::Tuple(&[])));
    };
    at.enter()?;
    let ops = at.program.code.tuple_elems.get(elems.range());
    let mut t = TupleBuilder {
        at,
        ops: ops.unwrap_or_default(),
        items: BumpVec::new_in(at.bump),
    };
    f(&mut t)?;
    if t.items.len() != t.ops.len() {
        return Err(tuple_length(t.ops.len(), t.items.len()));
    }
    Ok(Value::Tuple(t.items.into_bump_slice()))
}
