//! go-cty's reading of a dynamic wrapper whose type itself holds `dynamic`.
//!
//! A wrapper `[T, V]` normally has a concrete `T`, and the value is `V` decoded under it. When
//! `T` holds `dynamic` (`"dynamic"`, `["list","dynamic"]`, an object with a dynamic attribute…),
//! the inner dynamic positions carry wrappers of their own, and go-cty builds the value with
//! `cty.ListVal`/`ObjectVal`/…, whose type comes from the elements: `["dynamic", ["bool", true]]`
//! is the bool `true`, and a `["list","dynamic"]` wrapper of `[["bool", true]]` is a
//! `list(bool)`. This module computes that concrete type, finds its program in the dynamic-type
//! cache, and rebuilds the value under it without the inner wrappers.
//!
//! Only the outermost such wrapper reads through (the executor counts the open ones), so a value is
//! walked once however deeply these wrappers nest; a wrapper of type `"dynamic"` itself is
//! just its inner value and is resolved at once (the executor does that, in O(1)). This is the cold path: real providers
//! write concrete wrapper types except for typed nulls and empty collections.

use bumpalo::Bump;

use crate::error::ErrorKind;
use crate::limits::MAX_READ_THROUGH_DEPTH;
use crate::program::dyncache::Lookup;
use crate::program::{Op, OpId, Program};
use crate::schema::{ObjectType, Type};
use crate::value::{Object, Value};

/// The program and value go-cty gives the wrapper of type `sub` holding `value`, or the
/// error kind and message. `root` owns the dynamic-type cache.
/// The program of a dynamic value's type JSON, from the root program's cache (compiled and
/// cached on first sight, within `max_types`).
pub(crate) fn dynamic_program<'p>(
    root: &'p Program,
    type_json: &[u8],
    max_types: u32,
) -> Lookup<'p> {
    root.dyn_cache
        .get_or_insert_with(type_json, max_types, crate::compile::compile_type_json)
}

pub(super) fn read_through<'a>(
    root: &'a Program,
    bump: &'a Bump,
    sub: &'a Program,
    value: Value<'a>,
    max_types: u32,
) -> Result<(&'a Program, Value<'a>), (ErrorKind, String)> {
    let ty = match concrete(&sub.code.root_type, &value, 0)? {
        Some(t) => t,
        None => return Ok((sub, value)),
    };
    let json = ty.to_json();
    let program = match dynamic_program(root, json.as_bytes(), max_types) {
        Lookup::Found(p) => p,
        Lookup::Full => {
            let msg = format!("more than max_dynamic_types ({max_types}) distinct dynamic types");
            return Err((ErrorKind::Limit, msg));
        }
        Lookup::Invalid(msg) => return Err((ErrorKind::InvalidType, msg)),
    };
    let value = rebuild(bump, &sub.code.root_type, program, program.code.root, value);
    Ok((program, value))
}

type Concrete = Result<Option<Type>, (ErrorKind, String)>;

/// The type of `v` at a position of type `ty`; `None` when it is `ty` itself.
fn concrete(ty: &Type, v: &Value<'_>, depth: u32) -> Concrete {
    if depth > MAX_READ_THROUGH_DEPTH {
        let msg = format!(
            "a dynamic value read through nests deeper than {MAX_READ_THROUGH_DEPTH} levels"
        );
        return Err((ErrorKind::Limit, msg));
    }
    let depth = depth.saturating_add(1);
    Ok(match (ty, v) {
        (Type::Dynamic, Value::Dynamic(d)) => Some(
            concrete(&d.program.code.root_type, &d.value, depth)?
                .unwrap_or_else(|| d.program.code.root_type.clone()),
        ),
        (Type::List(e), Value::List(vs)) => {
            element_type(e, vs.iter(), depth)?.map(|t| Type::List(Box::new(t)))
        }
        (Type::Set(e), Value::Set(vs)) => {
            element_type(e, vs.iter(), depth)?.map(|t| Type::Set(Box::new(t)))
        }
        (Type::Map(e), Value::Map(kv)) => {
            element_type(e, kv.iter().map(|(_, v)| v), depth)?.map(|t| Type::Map(Box::new(t)))
        }
        (Type::Tuple(ts), Value::Tuple(vs)) => {
            let parts = ts.iter().zip(vs.iter());
            let found: Vec<Option<Type>> = parts
                .map(|(t, v)| concrete(t, v, depth))
                .collect::<Result<_, _>>()?;
            if found.iter().all(Option::is_none) {
                None
            } else {
                let ts = ts.iter().zip(found);
                Some(Type::Tuple(
                    ts.map(|(t, f)| f.unwrap_or_else(|| t.clone())).collect(),
                ))
            }
        }
        (Type::Object(o), Value::Object(object)) => {
            let parts = o.attrs().iter().zip(object.attrs());
            let found: Vec<Option<Type>> = parts
                .map(|((_, t), v)| concrete(t, v, depth))
                .collect::<Result<_, _>>()?;
            if found.iter().all(Option::is_none) {
                None
            } else {
                let attrs = o.attrs().iter().zip(found);
                let attrs = attrs.map(|((n, t), f)| (n.clone(), f.unwrap_or_else(|| t.clone())));
                let o = ObjectType::new(attrs, &[]).map_err(|e| {
                    let msg = e.to_string();
                    (ErrorKind::InvalidType, msg)
                })?;
                Some(Type::Object(o))
            }
        }
        // Nulls, unknowns and primitives have the type of their position.
        _ => None,
    })
}

/// go-cty's `ListVal`/`SetVal`/`MapVal`: the element type is that of the first element whose
/// type is not `dynamic`; every other such element must have the same type.
fn element_type<'v, 'a: 'v>(
    e: &Type,
    values: impl Iterator<Item = &'v Value<'a>>,
    depth: u32,
) -> Concrete {
    // `Some(None)`: the first typed element has type `e` itself.
    let mut first: Option<Option<Type>> = None;
    for v in values {
        let t = concrete(e, v, depth)?;
        if *t.as_ref().unwrap_or(e) == Type::Dynamic {
            continue;
        }
        match &first {
            None => first = Some(t),
            Some(f) if f.as_ref().unwrap_or(e) == t.as_ref().unwrap_or(e) => {}
            Some(f) => {
                let msg = format!(
                    "elements have different types: {} and {}",
                    f.as_ref().unwrap_or(e),
                    t.as_ref().unwrap_or(e)
                );
                return Err((ErrorKind::InconsistentTypes, msg));
            }
        }
    }
    Ok(first.flatten())
}

/// `v` (of type `old`, its objects numbered by their old program) rebuilt under op `op` of
/// `program`, the inner wrappers at `dynamic` positions of `old` replaced by their values.
/// The walk has the shape `concrete` checked, so it cannot fail.
fn rebuild<'a>(
    bump: &'a Bump,
    old: &Type,
    program: &'a Program,
    op: OpId,
    v: Value<'a>,
) -> Value<'a> {
    let code = program.op_type(op);
    match (old, v, code) {
        // `concrete` gave this position the wrapper's concrete type, so it is not dynamic.
        (Type::Dynamic, Value::Dynamic(d), _) => {
            rebuild(bump, &d.program.code.root_type, program, op, d.value)
        }
        (Type::List(e), Value::List(vs), Op::List { elem, .. }) => Value::List(
            bump.alloc_slice_fill_iter(vs.iter().map(|x| rebuild(bump, e, program, elem, *x))),
        ),
        (Type::Set(e), Value::Set(vs), Op::Set { elem, .. }) => Value::Set(
            bump.alloc_slice_fill_iter(vs.iter().map(|x| rebuild(bump, e, program, elem, *x))),
        ),
        (Type::Map(e), Value::Map(kv), Op::Map { elem }) => Value::Map(
            bump.alloc_slice_fill_iter(
                kv.iter()
                    .map(|(k, x)| (*k, rebuild(bump, e, program, elem, *x))),
            ),
        ),
        (Type::Tuple(ts), Value::Tuple(vs), Op::Tuple { elems }) => {
            let ops = program
                .code
                .tuple_elems
                .get(elems.range())
                .unwrap_or_default();
            let parts = ts.iter().zip(ops).zip(vs.iter());
            Value::Tuple(
                bump.alloc_slice_fill_iter(
                    parts.map(|((t, o), x)| rebuild(bump, t, program, *o, *x)),
                ),
            )
        }
        (Type::Object(o), Value::Object(object), Op::Object { attrs: span }) => {
            let ops = program.code.attrs.get(span.range()).unwrap_or_default();
            let parts = o.attrs().iter().zip(ops).zip(object.attrs());
            let attrs = bump.alloc_slice_fill_iter(
                parts.map(|(((_, t), entry), x)| rebuild(bump, t, program, entry.op, *x)),
            );
            Value::Object(Object::from_slice(op, attrs))
        }
        _ => v,
    }
}
