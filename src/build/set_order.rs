//! Sets as go-cty holds them: each value once, in go-cty's order. go-cty 1.12.1 (`cty/set`,
//! `cty/set_internals.go`) adds each element to a hash bucket (`Value.Hash`: the CRC-32 of
//! its hash text) unless an *equivalent* value is already there (`setRules.Equivalent`:
//! `Equals` is definitely true — nulls are equal, unknowns never), and lists the elements
//! bucket by bucket (ascending hash, insertion order within one), then sorted stably by
//! `setRules.Less`:
//!
//! - known values before unknowns, unknowns before nulls (unknowns keep their order);
//! - strings bytewise; `false` before `true`; numbers by value (`big.Float.Cmp`);
//! - anything else (objects, lists, maps, tuples, sets) by its hash text, bytewise
//!   (`cty_hash.rs`).
//!
//! So the order here is that comparison, then the hash (which only separates equal numbers of
//! different hash text, `0` and `-0`), then insertion order; the first of equivalent values is
//! kept. A set of a `dynamic` element type orders by its elements' concrete type.
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]

use bumpalo::collections::String as BumpString;
use bumpalo::Bump;
use std::cmp::Ordering;

use super::cty_hash::{crc32, write_hash};
use super::numbers::{cmp_text, cmp_value, same_text, write_g10, TextBuf};
use crate::number::Number;
use crate::program::{Op, OpId, Program};
use crate::schema::Type;
use crate::value::Value;

/// How elements compare: by the concrete element type.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    String,
    Number,
    Bool,
    Complex,
}

/// `elems` (a set's elements, checked against op `elem` of `program`) in go-cty's order
/// without duplicates: `elems` itself when it already is, else a new arena slice.
pub(super) fn canonical_set<'a>(
    bump: &'a Bump,
    program: &'a Program,
    elem: OpId,
    elems: &'a [Value<'a>],
) -> &'a [Value<'a>] {
    let n = elems.len();
    if n < 2 {
        return elems;
    }
    let kind = match program.op_type(elem) {
        Op::String => Kind::String,
        Op::Number => Kind::Number,
        Op::Bool => Kind::Bool,
        Op::Dynamic => match elems.iter().find_map(|v| match v {
            Value::Dynamic(d) => Some(d.program.root_type()),
            _ => None,
        }) {
            Some(Type::String) => Kind::String,
            Some(Type::Number) => Kind::Number,
            Some(Type::Bool) => Kind::Bool,
            _ => Kind::Complex,
        },
        _ => Kind::Complex,
    };
    let order = bump.alloc_slice_fill_iter(0..n as u32);
    let at = |i: u32| inner(elems.get(i as usize).copied().unwrap_or(Value::Null));
    let kept = match kind {
        Kind::String | Kind::Bool => {
            order.sort_unstable_by(|&a, &b| {
                by_class(at(a), at(b), |x, y| match (x, y) {
                    (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
                    (Value::Bool(x), Value::Bool(y)) => x.cmp(&y),
                    _ => Ordering::Equal,
                })
                .then(a.cmp(&b))
            });
            dedup(order, |k, i| match (at(k), at(i)) {
                (Value::Null, Value::Null) => true,
                (Value::String(x), Value::String(y)) => x == y,
                (Value::Bool(x), Value::Bool(y)) => x == y,
                _ => false,
            })
        }
        Kind::Number => numbers(order, &at),
        Kind::Complex => complex(bump, program, elem, elems, order),
    };
    let kept = order.get(..kept).unwrap_or_default();
    if kept.len() == n && kept.iter().enumerate().all(|(j, &i)| i as usize == j) {
        return elems;
    }
    bump.alloc_slice_fill_iter(kept.iter().map(|&i| elems[i as usize]))
}

/// A value at a dynamic position is compared as its concrete value.
fn inner(v: Value<'_>) -> Value<'_> {
    match v {
        Value::Dynamic(d) => d.value,
        v => v,
    }
}

/// 0 for a known value, 1 for an unknown, 2 for a null: `Less`'s first rules.
fn class(v: Value<'_>) -> u8 {
    match v {
        Value::Unknown(_) => 1,
        Value::Null => 2,
        _ => 0,
    }
}

/// Known before unknown before null; two known values by `known`.
fn by_class<'v>(
    x: Value<'v>,
    y: Value<'v>,
    known: impl FnOnce(Value<'v>, Value<'v>) -> Ordering,
) -> Ordering {
    match (class(x), class(y)) {
        (0, 0) => known(x, y),
        (cx, cy) => cx.cmp(&cy),
    }
}

/// Keeps the first of each run that `dup(kept, next)` joins, moving the kept indices to the
/// front of `order`; returns how many.
fn dedup(order: &mut [u32], dup: impl Fn(u32, u32) -> bool) -> usize {
    let mut w = 0;
    for r in 0..order.len() {
        let i = order[r];
        if w > 0 && dup(order[w - 1], i) {
            continue;
        }
        order[w] = i;
        w += 1;
    }
    w
}

/// A number's hash text (`big.Float.String()`) on the stack, for the rare tie that needs it.
fn g10(n: Option<Number<'_>>) -> TextBuf<64> {
    let mut buf = TextBuf::new();
    if let Some(n) = n {
        let _ = write_g10(n, &mut buf);
    }
    buf
}

/// Numbers: duplicates are those of the same `Text('f', -1)` and the same hash bucket; the
/// order is by value, then bucket, then insertion.
fn numbers<'v>(order: &mut [u32], at: &impl Fn(u32) -> Value<'v>) -> usize {
    let num = |i: u32| at(i).as_number();
    let integer = |i: u32| match at(i) {
        Value::Int(v) => Some(i128::from(v)),
        Value::UInt(v) => Some(i128::from(v)),
        _ => None,
    };
    let all_integers = order
        .iter()
        .all(|&i| class(at(i)) != 0 || integer(i).is_some());
    if all_integers {
        // Integers: value, text and hash text agree.
        order.sort_unstable_by(|&a, &b| {
            by_class(at(a), at(b), |_, _| integer(a).cmp(&integer(b))).then(a.cmp(&b))
        });
        return dedup(order, |k, i| match (class(at(k)), class(at(i))) {
            (2, 2) => true,
            (0, 0) => integer(k) == integer(i),
            _ => false,
        });
    }
    // Duplicates first: the same text and hash text, in a run once sorted by them.
    order.sort_unstable_by(|&a, &b| {
        by_class(at(a), at(b), |_, _| match (num(a), num(b)) {
            (Some(x), Some(y)) => {
                cmp_text(x, y).then_with(|| g10(Some(x)).as_bytes().cmp(g10(Some(y)).as_bytes()))
            }
            _ => Ordering::Equal,
        })
        .then(a.cmp(&b))
    });
    let kept = dedup(order, |k, i| match (class(at(k)), class(at(i))) {
        (2, 2) => true,
        (0, 0) => match (num(k), num(i)) {
            (Some(x), Some(y)) => {
                same_text(x, y) && g10(Some(x)).as_bytes() == g10(Some(y)).as_bytes()
            }
            _ => false,
        },
        _ => false,
    });
    let order = &mut order[..kept];
    let bucket = |i: u32| crc32(g10(num(i)).as_bytes());
    order.sort_unstable_by(|&a, &b| {
        by_class(at(a), at(b), |_, _| match (num(a), num(b)) {
            (Some(x), Some(y)) => cmp_value(x, y).then_with(|| bucket(a).cmp(&bucket(b))),
            _ => Ordering::Equal,
        })
        .then(a.cmp(&b))
    });
    kept
}

/// Complex elements: ordered by hash text (computed once each, in the arena); among equal
/// hash texts, an element equivalent to one kept before it is dropped.
fn complex<'a>(
    bump: &'a Bump,
    program: &'a Program,
    elem: OpId,
    elems: &'a [Value<'a>],
    order: &mut [u32],
) -> usize {
    let hashes: &[&str] = bump.alloc_slice_fill_iter(elems.iter().map(|v| {
        if class(*v) != 0 {
            return "";
        }
        let mut s = BumpString::new_in(bump);
        let _ = write_hash(*v, &mut s);
        s.into_bump_str()
    }));
    let hash = |i: u32| hashes.get(i as usize).copied().unwrap_or("");
    let at = |i: u32| elems.get(i as usize).copied().unwrap_or(Value::Null);
    order.sort_unstable_by(|&a, &b| {
        by_class(at(a), at(b), |_, _| {
            hash(a).as_bytes().cmp(hash(b).as_bytes())
        })
        .then(a.cmp(&b))
    });
    let mut w = 0;
    let mut run = 0;
    for r in 0..order.len() {
        let i = order[r];
        let drop = match class(at(i)) {
            2 => w > 0 && class(at(order[w - 1])) == 2,
            1 => false,
            _ => {
                let same_run =
                    w > 0 && class(at(order[w - 1])) == 0 && hash(order[w - 1]) == hash(i);
                if !same_run {
                    run = w;
                }
                order[run..w]
                    .iter()
                    .any(|&k| equivalent(program, elem, at(k), at(i)))
            }
        };
        if !drop {
            order[w] = i;
            w += 1;
        }
    }
    w
}

/// `setRules.Equivalent`: go-cty's `Equals` is definitely true. Nulls are equal; an unknown
/// anywhere, or a type that still holds `dynamic` (a null or unknown at a dynamic position,
/// an empty collection of a type with `dynamic`), makes it unknown, so not equivalent.
pub(super) fn equivalent(p: &Program, op: OpId, a: Value<'_>, b: Value<'_>) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null | Value::Unknown(_), _) | (_, Value::Null | Value::Unknown(_)) => false,
        _ => wholly_known(p, op, a) && wholly_known(p, op, b) && equal(p, op, a, b),
    }
}

/// go-cty's `Equals` of two values of a wholly known type is definitely true.
fn equal(p: &Program, op: OpId, a: Value<'_>, b: Value<'_>) -> bool {
    let code = p.op_type(op);
    let pairs = |x: &[Value<'_>], y: &[Value<'_>], op_of: &dyn Fn(usize) -> Option<OpId>| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .enumerate()
                .all(|(i, (u, v))| op_of(i).is_some_and(|o| equal(p, o, *u, *v)))
    };
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null | Value::Unknown(_), _) | (_, Value::Null | Value::Unknown(_)) => false,
        (Value::Dynamic(x), Value::Dynamic(y)) => {
            (std::ptr::eq(x.program, y.program) || x.program.root_type() == y.program.root_type())
                && equal(x.program, x.program.root(), x.value, y.value)
        }
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            let Op::List { elem, .. } = code else {
                return false;
            };
            pairs(x, y, &|_| Some(elem))
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            let Op::Tuple { elems } = code else {
                return false;
            };
            let ops = p.code.tuple_elems.get(elems.range()).unwrap_or_default();
            pairs(x, y, &|i| ops.get(i).copied())
        }
        (Value::Object(x), Value::Object(y)) => {
            let Op::Object { attrs } = code else {
                return false;
            };
            let entries = p.code.attrs.get(attrs.range()).unwrap_or_default();
            pairs(x.attrs(), y.attrs(), &|i| entries.get(i).map(|e| e.op))
        }
        (Value::Map(x), Value::Map(y)) => {
            let Op::Map { elem } = code else { return false };
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, u), (l, v))| k == l && equal(p, elem, *u, *v))
        }
        (Value::Set(x), Value::Set(y)) => {
            let Op::Set { elem, .. } = code else {
                return false;
            };
            let known = |s: &[Value<'_>]| !s.iter().any(|v| matches!(v, Value::Unknown(_)));
            let within = |s: &[Value<'_>], t: &[Value<'_>]| {
                s.iter()
                    .all(|u| t.iter().any(|v| equivalent(p, elem, *u, *v)))
            };
            x.len() == y.len() && known(x) && known(y) && within(x, y) && within(y, x)
        }
        (x, y) => match (x.as_number(), y.as_number()) {
            (Some(m), Some(n)) => same_text(m, n),
            _ => false,
        },
    }
}

/// Whether the type of `v` (at op `op`) is wholly known in go-cty's terms: no `dynamic` left
/// in it.
fn wholly_known(p: &Program, op: OpId, v: Value<'_>) -> bool {
    if p.code.concrete {
        return true;
    }
    let code = p.op_type(op);
    let all = |e: &[Value<'_>], op_of: &dyn Fn(usize) -> Option<OpId>| {
        e.iter()
            .enumerate()
            .all(|(i, x)| op_of(i).is_some_and(|o| wholly_known(p, o, *x)))
    };
    match (code, v) {
        (Op::Dynamic, Value::Dynamic(d)) => wholly_known(d.program, d.program.root(), d.value),
        (_, Value::Null | Value::Unknown(_)) => !has_dynamic(p, op),
        (Op::List { elem, .. }, Value::List(e)) | (Op::Set { elem, .. }, Value::Set(e)) => {
            if e.is_empty() {
                !has_dynamic(p, elem)
            } else {
                all(e, &|_| Some(elem))
            }
        }
        (Op::Map { elem }, Value::Map(e)) => {
            if e.is_empty() {
                !has_dynamic(p, elem)
            } else {
                e.iter().all(|(_, x)| wholly_known(p, elem, *x))
            }
        }
        (Op::Tuple { elems }, Value::Tuple(e)) => {
            let ops = p.code.tuple_elems.get(elems.range()).unwrap_or_default();
            all(e, &|i| ops.get(i).copied())
        }
        (Op::Object { attrs }, Value::Object(o)) => {
            let entries = p.code.attrs.get(attrs.range()).unwrap_or_default();
            all(o.attrs(), &|i| entries.get(i).map(|e| e.op))
        }
        _ => true,
    }
}

/// Whether the type of op `op` holds `dynamic`.
fn has_dynamic(p: &Program, op: OpId) -> bool {
    match p.op_type(op) {
        Op::Dynamic | Op::DynamicSelect { .. } => true,
        Op::String | Op::Number | Op::Bool => false,
        Op::List { elem, .. } | Op::Set { elem, .. } | Op::Map { elem } => has_dynamic(p, elem),
        Op::Pick { of, .. } => has_dynamic(p, of),
        Op::Tuple { elems } => p
            .code
            .tuple_elems
            .get(elems.range())
            .unwrap_or_default()
            .iter()
            .any(|&o| has_dynamic(p, o)),
        Op::Object { attrs } => p
            .code
            .attrs
            .get(attrs.range())
            .unwrap_or_default()
            .iter()
            .any(|e| has_dynamic(p, e.op)),
    }
}
