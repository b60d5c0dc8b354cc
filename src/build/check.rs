//! Checking a value against a position's type: [`value`] (deep, for values handed in whole —
//! decoded prior state, scalars), strings, dynamic wrappers, refinements, and the errors that
//! name what a position expected. A checked value comes back in canonical form: sets in
//! go-cty's order without duplicates, maps sorted by key with the last of a repeated key,
//! typed nulls at dynamic positions bare. Containers are copied only when something in them
//! changes (a decoded go-cty value is already canonical and comes back as it was).
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use std::borrow::Cow;
use std::cmp::Ordering;

use bumpalo::collections::Vec as BumpVec;

use super::set_order::canonical_set;
use super::{At, BuildError, Part};
use crate::compile::compile_type_json;
use crate::encode::number::{written, Written, MAX_PLAIN_DIGITS};
use crate::limits::Limits;
use crate::number::{is_valid_decimal, Number};
use crate::program::dyncache::Lookup;
use crate::program::{Op, Program};
use crate::schema::Type;
use crate::value::{Dynamic, Object, Refinements, Value};

/// `v` checked deeply against the type at `at`, in canonical form.
pub(super) fn value<'a>(at: At<'a>, v: Value<'a>) -> Result<Value<'a>, BuildError> {
    let code = at.code();
    Ok(match (code, v) {
        (_, Value::Null) => v,
        (_, Value::Unknown(r)) => unknown(at, code, r)?,
        (Op::String, Value::String(_)) | (Op::Bool, Value::Bool(_)) => v,
        (Op::Number, Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_)) => {
            match v.as_number() {
                Some(n) => Value::from(number(at, n)?),
                None => v,
            }
        }
        (Op::Dynamic, Value::Dynamic(d)) => {
            outermost(at)?;
            at.enter()?;
            match value(at.inside(d.program), d.value)? {
                // A null or unknown of type `dynamic` is bare; of any other type it keeps
                // its type (go-cty writes it as `[type, nil]`), as decoded.
                x @ (Value::Null | Value::Unknown(_))
                    if d.program.root_type() == &Type::Dynamic =>
                {
                    x
                }
                x if same(x, d.value) => v,
                x => Value::Dynamic(at.bump.alloc(Dynamic {
                    program: d.program,
                    value: x,
                })),
            }
        }
        (Op::Dynamic, Value::String(_) | Value::Bool(_))
        | (Op::Dynamic, Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_)) => {
            primitive(at, v)?
        }
        (Op::List { elem, .. }, Value::List(e)) => {
            at.enter()?;
            Value::List(elements(at, e, |_| elem, true)?)
        }
        (Op::Set { elem, .. }, Value::Set(e)) => {
            at.enter()?;
            let e = elements(at, e, |_| elem, true)?;
            Value::Set(canonical_set(at.bump, at.program, elem, e))
        }
        (Op::Tuple { elems }, Value::Tuple(e)) => {
            at.enter()?;
            let ops = at.program.code.tuple_elems.get(elems.range());
            let ops = ops.unwrap_or_default();
            if ops.len() != e.len() {
                return Err(tuple_length(ops.len(), e.len()));
            }
            Value::Tuple(elements(at, e, |i| ops[i], false)?)
        }
        (Op::Map { elem }, Value::Map(entries)) => {
            at.enter()?;
            Value::Map(map(at, elem, entries)?)
        }
        (Op::Object { .. }, Value::Object(o)) => {
            let names = at.program.attr_names(at.op);
            if o.op() != at.op || o.attrs().len() != names.len() {
                return Err(BuildError::new(
                    "expected an object of this position's type, found an object of another",
                ));
            }
            at.enter()?;
            let entries = attr_entries(at);
            let attrs = o.attrs();
            let mut out: Option<&'a mut [Value<'a>]> = None;
            for (i, ((x, entry), name)) in attrs.iter().zip(entries).zip(names).enumerate() {
                let y = value(at.child(entry.op), *x).map_err(|e| e.in_attr(name))?;
                store(at, attrs, &mut out, i, *x, y);
            }
            match out {
                Some(slots) => Value::Object(Object::from_slice(at.op, slots)),
                None => v,
            }
        }
        (_, v) => return Err(mismatch(code, v)),
    })
}

/// A string at `at` (copied into the arena only where it belongs).
pub(super) fn string<'a>(at: At<'a>, s: &str) -> Result<Value<'a>, BuildError> {
    match at.code() {
        Op::String => Ok(Value::String(at.bump.alloc_str(s))),
        Op::Dynamic => primitive(at, Value::String(at.bump.alloc_str(s))),
        code => Err(mismatch(code, Value::String(""))),
    }
}

/// `part` built as a value of `program`'s type, for the dynamic position `at`.
pub(super) fn dynamic<'a>(
    at: At<'a>,
    program: &'a Program,
    part: impl Part<'a>,
) -> Result<Value<'a>, BuildError> {
    let code = at.code();
    if code != Op::Dynamic {
        return Err(BuildError::new(format!(
            "expected {}, found a value with its type (for a dynamic position)",
            expected(code)
        )));
    }
    outermost(at)?;
    at.enter()?;
    Ok(match part.fill(at.inside(program))? {
        // A null or unknown of type `dynamic` is bare; of any other type it keeps its type.
        v @ (Value::Null | Value::Unknown(_)) if program.root_type() == &Type::Dynamic => v,
        v => Value::Dynamic(at.bump.alloc(Dynamic { program, value: v })),
    })
}

/// A known value with its type goes only where the type is not given yet: at a dynamic
/// position of the root program. Inside a dynamic value's type, a dynamic position is one
/// that go-cty's value has no type for: it holds a null or an unknown (a known value there
/// would have a concrete type, as the decoders' read-through gives it).
fn outermost(at: At<'_>) -> Result<(), BuildError> {
    if !at.wrapped {
        return Ok(());
    }
    Err(BuildError::new(
        "a dynamic position inside a dynamic value's type holds only null or unknown \
         (a known value there takes its concrete type in the enclosing one)",
    ))
}

/// The program of type JSON `type_json` from `root`'s dynamic-type cache.
pub(super) fn cached_program<'a>(
    root: &'a Program,
    type_json: &str,
) -> Result<&'a Program, BuildError> {
    let max = Limits::DEFAULT.max_dynamic_types;
    match root
        .dyn_cache
        .get_or_insert_with(type_json.as_bytes(), max, compile_type_json)
    {
        Lookup::Found(p) => Ok(p),
        Lookup::Full => Err(BuildError::new(format!(
            "more than max_dynamic_types ({max}) distinct dynamic types"
        ))),
        Lookup::Invalid(msg) => Err(BuildError::new(format!("invalid dynamic type: {msg}"))),
    }
}

/// A string, number or bool at a dynamic position: wrapped with its primitive type.
fn primitive<'a>(at: At<'a>, v: Value<'a>) -> Result<Value<'a>, BuildError> {
    let type_json = match v {
        Value::String(_) => r#""string""#,
        Value::Bool(_) => r#""bool""#,
        _ => r#""number""#,
    };
    let program = cached_program(at.program, type_json)?;
    dynamic(at, program, v)
}

/// Elements of a list, set or tuple checked at their ops (those of a list or set, a
/// `collection`, of one type); the slice itself unless one changed.
fn elements<'a>(
    at: At<'a>,
    e: &'a [Value<'a>],
    op_of: impl Fn(usize) -> crate::program::OpId,
    collection: bool,
) -> Result<&'a [Value<'a>], BuildError> {
    let mut out: Option<&'a mut [Value<'a>]> = None;
    let mut types = SameType::default();
    for (i, x) in e.iter().enumerate() {
        let y = value(at.child(op_of(i)), *x).map_err(|err| err.in_index(i))?;
        if collection {
            types.check(y).map_err(|err| err.in_index(i))?;
        }
        store(at, e, &mut out, i, *x, y);
    }
    Ok(match out {
        Some(o) => o,
        None => e,
    })
}

/// A map's entries checked, sorted by key with the last of a repeated key (as go-cty's map
/// holds them); the slice itself when it already was so and nothing in it changed.
fn map<'a>(
    at: At<'a>,
    elem: crate::program::OpId,
    entries: &'a [(&'a str, Value<'a>)],
) -> Result<&'a [(&'a str, Value<'a>)], BuildError> {
    let mut out: Option<&'a mut [(&'a str, Value<'a>)]> = None;
    let mut types = SameType::default();
    for (i, (k, x)) in entries.iter().enumerate() {
        let y = value(at.child(elem), *x).map_err(|err| err.in_key(k))?;
        types.check(y).map_err(|err| err.in_key(k))?;
        if out.is_none() && !same(*x, y) {
            out = Some(at.bump.alloc_slice_copy(entries));
        }
        if let Some(slot) = out.as_mut().and_then(|o| o.get_mut(i)) {
            slot.1 = y;
        }
    }
    let sorted = |e: &[(&str, Value<'_>)]| e.windows(2).all(|w| w[0].0 < w[1].0);
    let checked: &'a [(&'a str, Value<'a>)] = match out {
        Some(o) => o,
        None => entries,
    };
    if sorted(checked) {
        return Ok(checked);
    }
    // Sort indices by key, then position; keep the last of each key.
    let order = at.bump.alloc_slice_fill_iter(0..checked.len() as u32);
    order.sort_unstable_by(|&a, &b| {
        let key = |i: u32| checked[i as usize].0.as_bytes();
        key(a).cmp(key(b)).then(a.cmp(&b))
    });
    let last_of_key = |j: usize| {
        let key = |j: usize| order.get(j).map(|&i| checked[i as usize].0);
        key(j + 1) != key(j)
    };
    let mut out = BumpVec::with_capacity_in(checked.len(), at.bump);
    for j in (0..order.len()).filter(|&j| last_of_key(j)) {
        out.push(checked[order[j] as usize]);
    }
    Ok(out.into_bump_slice())
}

/// Writes `y` (the checked form of `x`, element `i` of `original`) into a copy of `original`
/// made on the first change.
fn store<'a>(
    at: At<'a>,
    original: &'a [Value<'a>],
    out: &mut Option<&'a mut [Value<'a>]>,
    i: usize,
    x: Value<'a>,
    y: Value<'a>,
) {
    if out.is_none() && !same(x, y) {
        *out = Some(at.bump.alloc_slice_copy(original));
    }
    if let Some(slot) = out.as_mut().and_then(|o| o.get_mut(i)) {
        *slot = y;
    }
}

/// Whether `y` is `x` itself (the same scalar, or the same arena data): a shallow test.
pub(super) fn same(x: Value<'_>, y: Value<'_>) -> bool {
    match (x, y) {
        (Value::List(a), Value::List(b))
        | (Value::Set(a), Value::Set(b))
        | (Value::Tuple(a), Value::Tuple(b)) => std::ptr::eq(a, b),
        (Value::Map(a), Value::Map(b)) => std::ptr::eq(a, b),
        (Value::Object(a), Value::Object(b)) => {
            a.op() == b.op() && std::ptr::eq(a.attrs(), b.attrs())
        }
        (Value::Dynamic(a), Value::Dynamic(b)) => std::ptr::eq(a, b),
        (Value::Unknown(Some(a)), Value::Unknown(Some(b))) => std::ptr::eq(a, b),
        (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
        (Value::Decimal(a), Value::Decimal(b)) | (Value::String(a), Value::String(b)) => {
            std::ptr::eq(a, b)
        }
        _ => x == y,
    }
}

/// The attribute entries of the object op at `at`.
pub(super) fn attr_entries<'a>(at: At<'a>) -> &'a [crate::program::key::AttrEntry] {
    match at.code() {
        Op::Object { attrs } => at.program.code.attrs.get(attrs.range()).unwrap_or_default(),
        _ => &[],
    }
}

/// Elements of a collection of dynamic values share one concrete type (go-cty's collections
/// have one element type; the decoders enforce the same).
#[derive(Default)]
pub(super) struct SameType<'a>(Option<&'a Program>);

impl<'a> SameType<'a> {
    pub(super) fn check(&mut self, v: Value<'a>) -> Result<(), BuildError> {
        let Value::Dynamic(d) = v else {
            return Ok(());
        };
        match self.0 {
            None => self.0 = Some(d.program),
            Some(p) if std::ptr::eq(p, d.program) || p.root_type() == d.program.root_type() => {}
            Some(p) => {
                return Err(BuildError::new(format!(
                    "elements have different types: {} and {}",
                    p.root_type(),
                    d.program.root_type()
                )))
            }
        }
        Ok(())
    }
}

/// A number checked (not NaN, valid text) in the form decoding go-cty's MessagePack gives:
/// an integer that fits `int64` as `Int` up to 127 and when negative, else `UInt` (go-cty
/// writes non-negative integers in the uint formats, and positive fixints read as `Int`); a
/// non-integer that a float64 holds exactly, or ±Inf, as `Float`; anything else as its exact
/// plain decimal text (`encode/number.rs` decides, as go-cty does).
fn number<'a>(at: At<'a>, n: Number<'a>) -> Result<Number<'a>, BuildError> {
    match n {
        Number::Float(f) if f.is_nan() => return Err(BuildError::new("NaN is not a number")),
        Number::Decimal(t) if !is_valid_decimal(t.as_bytes()) => {
            return Err(BuildError::new(format!("{t:?} is not a valid number")))
        }
        _ => {}
    }
    Ok(match written(&n) {
        Written::Int(i) if i < 128 => Number::Int(i),
        Written::Int(i) => Number::UInt(i as u64),
        Written::Float(f) => Number::Float(f),
        Written::Text(Cow::Borrowed(t)) => Number::Decimal(t),
        Written::Text(Cow::Owned(t)) => Number::Decimal(at.bump.alloc_str(&t)),
        Written::TooLong => {
            return Err(BuildError::new(format!(
                "{n} has more than {MAX_PLAIN_DIGITS} digits written out"
            )))
        }
    })
}

/// An unknown at `at` (of op kind `code`) with refinements `r`: those that suit the type,
/// consistent, in the form decoding go-cty's encoding gives — none at a dynamic position (the
/// decoders drop them), none that say nothing (an empty prefix, infinite bounds, lengths
/// `0..` and `..i64::MAX`), bounds as [`number`]s; a "definitely null" unknown is a null, as
/// go-cty makes it.
fn unknown<'a>(
    at: At<'a>,
    code: Op,
    r: Option<&'a Refinements<'a>>,
) -> Result<Value<'a>, BuildError> {
    let Some(r) = r else {
        return Ok(Value::Unknown(None));
    };
    if code == Op::Dynamic {
        return Ok(Value::Unknown(None));
    }
    check_refinements(code, r)?;
    if r.nullness == Some(true) {
        return Ok(Value::Null);
    }
    let bound = |b: Option<(Number<'a>, bool)>| -> Result<_, BuildError> {
        match b {
            Some((n, _)) if n.is_infinite() => Ok(None),
            Some((n, inclusive)) => Ok(Some((number(at, n)?, inclusive))),
            None => Ok(None),
        }
    };
    let canonical = Refinements {
        nullness: r.nullness,
        string_prefix: r.string_prefix.filter(|p| !p.is_empty()),
        number_lower: bound(r.number_lower)?,
        number_upper: bound(r.number_upper)?,
        length_lower: r.length_lower.filter(|&l| l != 0),
        length_upper: r.length_upper.filter(|&u| u != i64::MAX as u64),
    };
    Ok(Value::Unknown(if canonical == Refinements::default() {
        None
    } else if canonical == *r {
        Some(r)
    } else {
        Some(at.bump.alloc(canonical))
    }))
}

/// Refinements that suit op kind `code` and agree with each other.
fn check_refinements(code: Op, r: &Refinements<'_>) -> Result<(), BuildError> {
    let collection = matches!(code, Op::List { .. } | Op::Set { .. } | Op::Map { .. });
    let fail = |m: &str| Err(BuildError::new(m));
    if r.string_prefix.is_some() && code != Op::String {
        return fail("string prefix refinement for non-string type");
    }
    if (r.number_lower.is_some() || r.number_upper.is_some()) && code != Op::Number {
        return fail("numeric bound refinement for non-number type");
    }
    if (r.length_lower.is_some() || r.length_upper.is_some()) && !collection {
        return fail("length bound refinement for non-collection type");
    }
    for (n, _) in r.number_lower.iter().chain(&r.number_upper) {
        let ok = match *n {
            Number::Float(f) => !f.is_nan(),
            Number::Decimal(t) => is_valid_decimal(t.as_bytes()),
            _ => true,
        };
        if !ok {
            return fail("numeric bound refinement is not a number");
        }
    }
    if let (Some((lo, lo_inc)), Some((hi, hi_inc))) = (r.number_lower, r.number_upper) {
        let order = lo.cmp_exact(&hi);
        if order == Ordering::Greater || (order == Ordering::Equal && !(lo_inc && hi_inc)) {
            return fail("number lower bound refinement is above the upper bound");
        }
    }
    for bound in [r.length_lower, r.length_upper].into_iter().flatten() {
        if bound > i64::MAX as u64 {
            return fail("length bound refinement beyond int64");
        }
    }
    if let (Some(lo), Some(hi)) = (r.length_lower, r.length_upper) {
        if lo > hi {
            return Err(BuildError::new(format!(
                "collection length upper bound {hi} is less than lower bound {lo}"
            )));
        }
    }
    let others = r.string_prefix.is_some()
        || r.number_lower.is_some()
        || r.number_upper.is_some()
        || r.length_lower.is_some()
        || r.length_upper.is_some();
    if r.nullness == Some(true) && others {
        return fail("a definitely-null unknown cannot carry other refinements");
    }
    Ok(())
}

/// A tuple of `got` elements for a type of `want`.
pub(super) fn tuple_length(want: usize, got: usize) -> BuildError {
    BuildError::new(format!(
        "a tuple of length {want} is required ({got} given)"
    ))
}

/// A value of the wrong kind for op `code`.
pub(super) fn mismatch(code: Op, found: Value<'_>) -> BuildError {
    let found = match found {
        Value::Null => "null",
        Value::Unknown(_) => "an unknown value",
        Value::Bool(_) => "a bool",
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => "a number",
        Value::String(_) => "a string",
        Value::List(_) => "a list",
        Value::Set(_) => "a set",
        Value::Tuple(_) => "a tuple",
        Value::Map(_) => "a map",
        Value::Object(_) => "an object",
        Value::Dynamic(_) => "a value with its type (for a dynamic position)",
    };
    let hint = if code == Op::Dynamic {
        " (a dynamic position takes a string, number or bool, or a value with its type: Builder::dynamic)"
    } else {
        ""
    };
    BuildError::new(format!("expected {}, found {found}{hint}", expected(code)))
}

/// What an op expects, for messages.
pub(super) fn expected(code: Op) -> String {
    match code {
        Op::String => "a string".into(),
        Op::Number => "a number".into(),
        Op::Bool => "a bool".into(),
        Op::Dynamic => "a dynamic value".into(),
        Op::List { .. } => "a list".into(),
        Op::Set { .. } => "a set".into(),
        Op::Map { .. } => "a map".into(),
        Op::Tuple { elems } => format!("a tuple of {} elements", elems.len),
        Op::Object { attrs } => format!("an object of {} attributes", attrs.len),
        // (Builders see ops through `op_type`, which resolves picks.)
        Op::Pick { .. } => "a projected collection".into(),
        Op::DynamicSelect { .. } => "a dynamic value".into(),
    }
}
