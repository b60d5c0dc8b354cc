//! Selections inside `dynamic` values ([`Op::DynamicSelect`]): the type comes with the value,
//! so the executors decode such a value whole (its wrapper read through as go-cty reads it)
//! and this module restricts it to the paths its type has — a projection of that type
//! (compiled once per selection and type, in the root program's dynamic-type cache), and the
//! value rebuilt under it keeping only the selected parts. A value none of whose paths its
//! type has is null. This is the cold path: dynamic values are few and small.

use bumpalo::Bump;

use crate::error::ErrorKind;
use crate::program::dyncache::Lookup;
use crate::program::{tuple_element, Op, OpId, Program, SelectionId};
use crate::schema::{Selection, Type};
use crate::value::{Dynamic, Object, Value};

/// `value` (decoded at the [`Op::DynamicSelect`] `selection` of `prog`) restricted to the
/// paths its type has, or the error kind and message. `root` owns the dynamic-type cache.
pub(crate) fn restrict_dynamic<'a>(
    root: &'a Program,
    bump: &'a Bump,
    prog: &'a Program,
    selection: SelectionId,
    value: Value<'a>,
    max_types: u32,
) -> Result<Value<'a>, (ErrorKind, String)> {
    let d = match value {
        // Null and unknown, typed or not: nothing inside to select, kept as they are.
        Value::Dynamic(d) if !matches!(d.value, Value::Null | Value::Unknown(_)) => d,
        _ => return Ok(value),
    };
    let Some(selection) = prog.selection(selection) else {
        return Err(internal("a selection outside the program"));
    };
    let selection = selection.applicable_to(&d.program.code.root_type);
    if selection.is_empty() {
        return Ok(Value::Null);
    }
    let projected = projection(root, d.program, &selection, max_types)?;
    let old = &d.program.code.root_type;
    let value = restrict(
        bump,
        root,
        old,
        projected,
        projected.code.root,
        d.value,
        max_types,
    )?;
    Ok(Value::Dynamic(bump.alloc(Dynamic {
        program: projected,
        value,
    })))
}

/// The program that visits a dynamic value of program `sub` (`whole`: its value is null or
/// unknown, and has no parts to select) at a dynamic op of `prog` (with `selection` for an
/// [`Op::DynamicSelect`]): `sub` itself, or projected on the paths its type has, or `None`
/// when it has none (the visitors read the wrapper's type as it is written, without
/// read-through).
pub(crate) fn visit_program<'a>(
    root: &'a Program,
    prog: &'a Program,
    selection: Option<SelectionId>,
    sub: &'a Program,
    whole: bool,
    max_types: u32,
) -> Result<Option<&'a Program>, (ErrorKind, String)> {
    let Some(selection) = selection.filter(|_| !whole) else {
        return Ok(Some(sub));
    };
    let Some(selection) = prog.selection(selection) else {
        return Err(internal("a selection outside the program"));
    };
    let selection = selection.applicable_to(&sub.code.root_type);
    if selection.is_empty() {
        return Ok(None);
    }
    projection(root, sub, &selection, max_types).map(Some)
}

/// The projection of `program` (a dynamic value's) on `selection` (paths its type has), from
/// the root program's dynamic-type cache: keyed by the selection and the type JSON (a key no
/// type JSON has, as it starts with byte 0xff).
fn projection<'a>(
    root: &'a Program,
    program: &'a Program,
    selection: &Selection,
    max_types: u32,
) -> Result<&'a Program, (ErrorKind, String)> {
    let mut key = vec![0xff];
    key.extend_from_slice(selection.to_string().as_bytes());
    key.push(0);
    key.extend_from_slice(program.type_json().as_bytes());
    let make = |_: &[u8]| program.select(selection).map_err(|e| e.to_string());
    match root.dyn_cache.get_or_insert_with(&key, max_types, make) {
        Lookup::Found(p) => Ok(p),
        Lookup::Full => {
            let msg = format!("more than max_dynamic_types ({max_types}) distinct dynamic types");
            Err((ErrorKind::Limit, msg))
        }
        Lookup::Invalid(msg) => Err(internal(&msg)),
    }
}

/// `v` (of type `old`, its objects numbered by their old program) restricted to op `op` of the
/// projection `program`: an object keeps the attributes the op has, a pick the elements it
/// picks, a nested selection inside a dynamic value is restricted in turn; every object is
/// rebuilt under the projection's ops.
fn restrict<'a>(
    bump: &'a Bump,
    root: &'a Program,
    old: &Type,
    program: &'a Program,
    op: OpId,
    v: Value<'a>,
    max_types: u32,
) -> Result<Value<'a>, (ErrorKind, String)> {
    let go =
        |old: &Type, op: OpId, v: Value<'a>| restrict(bump, root, old, program, op, v, max_types);
    // A pick is its collection's op, with the elements it keeps.
    let (code, picks) = match program.op(op) {
        Op::Pick { of, picks } => match program.picks(picks) {
            Some(p) => (program.op(of), Some(p)),
            None => return Err(internal("a pick outside the program")),
        },
        code => (code, None),
    };
    Ok(match (old, v, code) {
        (_, Value::Dynamic(_), Op::DynamicSelect { selection }) => {
            restrict_dynamic(root, bump, program, selection, v, max_types)?
        }
        (
            Type::List(e) | Type::Set(e),
            Value::List(vs) | Value::Set(vs),
            Op::List { elem, .. } | Op::Set { elem, .. },
        ) => {
            let mut out = Vec::with_capacity(vs.len());
            for (i, x) in vs.iter().enumerate() {
                if picks.is_none_or(|p| p.index_position(i as u64).is_some()) {
                    out.push(go(e, elem, *x)?);
                }
            }
            let out = bump.alloc_slice_copy(&out);
            match v {
                Value::Set(_) => Value::Set(out),
                _ => Value::List(out),
            }
        }
        (Type::Map(e), Value::Map(kv), Op::Map { elem }) => {
            let mut out = Vec::with_capacity(kv.len());
            for (k, x) in kv.iter() {
                if picks.is_none_or(|p| p.has_key(k)) {
                    out.push((*k, go(e, elem, *x)?));
                }
            }
            Value::Map(bump.alloc_slice_copy(&out))
        }
        (Type::Tuple(ts), Value::Tuple(vs), Op::Tuple { elems }) => {
            let ops = program
                .code
                .tuple_elems
                .get(elems.range())
                .unwrap_or_default();
            let mut out = Vec::with_capacity(ops.len());
            for (i, (t, x)) in (0u32..).zip(ts.iter().zip(vs.iter())) {
                if let Some(o) = tuple_element(picks, ops, i) {
                    out.push(go(t, o, *x)?);
                }
            }
            Value::Tuple(bump.alloc_slice_copy(&out))
        }
        (Type::Object(o), Value::Object(object), Op::Object { attrs }) => {
            let names = program
                .code
                .attr_names
                .get(attrs.range())
                .unwrap_or_default();
            let entries = program.code.attrs.get(attrs.range()).unwrap_or_default();
            let mut out = Vec::with_capacity(names.len());
            for (name, entry) in names.iter().zip(entries) {
                // (A type's attributes are sorted by name, as a program's are.)
                let i = o
                    .attrs()
                    .binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes()))
                    .ok();
                let (t, x) = match i.and_then(|i| Some((o.attrs().get(i)?, object.attrs().get(i)?)))
                {
                    Some(((_, t), x)) => (t, *x),
                    None => return Err(internal("an attribute the type does not have")),
                };
                out.push(go(t, entry.op, x)?);
            }
            Value::Object(Object::from_slice(op, bump.alloc_slice_copy(&out)))
        }
        // Scalars, nulls, unknowns, and dynamic values kept whole (they carry their program).
        _ => v,
    })
}

/// An inconsistency between a projection and the value it restricts (a bug, not input).
#[cold]
fn internal(what: &str) -> (ErrorKind, String) {
    (ErrorKind::Syntax, format!("internal: {what}"))
}
