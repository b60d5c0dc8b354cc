//! The projection check (`Program::select`), shared by `tests/projection.rs` and the
//! `projection` fuzz target: a generated type and value, encoded as MessagePack and (without
//! unknowns) JSON in the encodings the input picks, decoded whole and through a projection on
//! paths the input picks among the type's selection paths (attributes, `[*]`, `[N]` and map
//! keys); the projected value must equal the full value restricted to the paths, by a
//! reference restriction of its own (`same_selected`). Inputs changed by a byte the input picks too:
//! when the full decode still accepts them, the same must hold; when the input is no longer
//! well-formed by another judge ([`malformed`]: serde_json, or `skip_msgpack`), the
//! projection must fail too; else it may fail or decode (a type fault inside a skipped value),
//! never panic.

use bumpalo::Bump;
use tfwire::schema::Selection;
use tfwire::{dump, Program, Type, Typed, Value};

use super::encode;
use super::gen::{self, Bytes, Source};

/// One step of a reference selection path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// An object attribute.
    Attr(String),
    /// Every element of a collection or tuple: `[*]`.
    Every,
    /// One element of a list or tuple: `[N]`.
    Index(u64),
    /// One entry of a map: `["key"]`.
    Key(String),
}

/// `path` in Terraform's notation.
pub fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Attr(name) if is_identifier(name) => {
                out.push('.');
                out.push_str(name);
            }
            Step::Attr(name) | Step::Key(name) => {
                out.push('[');
                out.push_str(&serde_json::to_string(name).unwrap());
                out.push(']');
            }
            Step::Every => out.push_str("[*]"),
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The most paths [`selection_paths`] lists (a type's paths multiply with its nesting).
const MAX_PATHS: usize = 4000;

/// Paths into `ty` that `Type::project` takes, after `prefix`: attributes; `[*]` through
/// lists, sets, maps and tuples (a tuple's only when its elements have one type); `[0]` and
/// `[1]` of lists (the value may have fewer), each index of a tuple; `keys` of maps (the value may not have them). Stops at dynamic values.
pub fn selection_paths(ty: &Type, prefix: &[Step], keys: &[&str], out: &mut Vec<Vec<Step>>) {
    if out.len() >= MAX_PATHS {
        return;
    }
    let step = |s: Step, t: &Type, out: &mut Vec<Vec<Step>>| {
        let mut path = prefix.to_vec();
        path.push(s);
        if out.len() < MAX_PATHS {
            out.push(path.clone());
        }
        selection_paths(t, &path, keys, out);
    };
    match ty {
        Type::Object(o) => {
            for (name, t) in o.attrs() {
                step(Step::Attr(name.clone()), t, out);
            }
        }
        Type::List(t) => {
            // (`prefix[*]` alone is the same selection as `prefix`: not listed.)
            selection_paths(t, &[prefix, &[Step::Every]].concat(), keys, out);
            step(Step::Index(0), t, out);
            step(Step::Index(1), t, out);
        }
        Type::Set(t) => selection_paths(t, &[prefix, &[Step::Every]].concat(), keys, out),
        Type::Map(t) => {
            selection_paths(t, &[prefix, &[Step::Every]].concat(), keys, out);
            for k in keys {
                step(Step::Key(k.to_string()), t, out);
            }
        }
        Type::Tuple(ts) => {
            for (i, t) in ts.iter().enumerate() {
                step(Step::Index(i as u64), t, out);
            }
            // `[*]` goes on into every element: only where they have the same type.
            if let Some(t) = ts.first().filter(|t| ts.iter().all(|u| u == *t)) {
                selection_paths(t, &[prefix, &[Step::Every]].concat(), keys, out);
            }
        }
        // Inside a dynamic value the type comes with the value: steps it may or may not have.
        Type::Dynamic => {
            let inside = [
                vec![Step::Attr(keys[0].to_string())],
                vec![Step::Attr(keys[1].to_string()), Step::Every],
                vec![Step::Index(0)],
                vec![Step::Index(1), Step::Every],
                vec![Step::Every, Step::Attr(keys[0].to_string())],
                vec![Step::Key(keys[1].to_string())],
            ];
            for steps in inside {
                if out.len() < MAX_PATHS {
                    out.push([prefix, &steps].concat());
                }
            }
        }
        _ => {}
    }
}

/// Whether `ty` has the path `steps`, as a dynamic value's type must for a path inside it to
/// select: attributes it has, `[*]` into a collection (into a tuple when every element has the
/// rest), `[N]` into a list or a tuple that long, a key (`["k"]`, or an attribute step) into a
/// map; a `dynamic` position has every path.
pub fn has_path(ty: &Type, steps: &[Step]) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return true;
    };
    match (ty, step) {
        (Type::Dynamic, _) => true,
        // (`["k"]` names an attribute of an object as `.k` does: the notation is the same.)
        (Type::Object(o), Step::Attr(n) | Step::Key(n)) => {
            o.get(n).is_some_and(|t| has_path(t, rest))
        }
        (Type::List(t), Step::Every | Step::Index(_))
        | (Type::Set(t), Step::Every)
        | (Type::Map(t), Step::Every | Step::Key(_) | Step::Attr(_)) => has_path(t, rest),
        (Type::Tuple(ts), Step::Every) => ts.iter().all(|t| has_path(t, rest)),
        (Type::Tuple(ts), Step::Index(i)) => ts.get(*i as usize).is_some_and(|t| has_path(t, rest)),
        _ => false,
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `b` (a value of the projected type `ty`, decoded by the projection) equals `a` (the full
/// value) restricted to `ty`; `at` is the path so far, for the message.
pub fn same_restricted(ty: &Type, a: Typed<'_>, b: Typed<'_>, at: &str) -> Result<(), String> {
    let differ = || {
        Err(format!(
            "at {at} ({ty}): full {} ≠ projected {}",
            dump_of(a),
            dump_of(b)
        ))
    };
    match (ty, a.value, b.value) {
        (Type::Object(o), Value::Object(_), Value::Object(_)) => {
            for (name, t) in o.attrs() {
                match (a.attr(name), b.attr(name)) {
                    (Some(x), Some(y)) => same_restricted(t, x, y, &format!("{at}.{name}"))?,
                    _ => return Err(format!("at {at}: attribute {name:?} missing")),
                }
            }
            Ok(())
        }
        (
            Type::List(t) | Type::Set(t),
            Value::List(x) | Value::Set(x),
            Value::List(y) | Value::Set(y),
        ) => {
            if x.len() != y.len() {
                return differ();
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                let (p, q) = (Typed::new(a.program, *p), Typed::new(b.program, *q));
                same_restricted(t, p, q, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        (Type::Map(t), Value::Map(x), Value::Map(y)) => {
            if x.len() != y.len() {
                return differ();
            }
            for ((k, p), (l, q)) in x.iter().zip(y) {
                if k != l {
                    return differ();
                }
                let (p, q) = (Typed::new(a.program, *p), Typed::new(b.program, *q));
                same_restricted(t, p, q, &format!("{at}[{k:?}]"))?;
            }
            Ok(())
        }
        (Type::Tuple(ts), Value::Tuple(x), Value::Tuple(y)) => {
            if x.len() != y.len() || x.len() != ts.len() {
                return differ();
            }
            for (i, ((t, p), q)) in ts.iter().zip(x).zip(y).enumerate() {
                let (p, q) = (Typed::new(a.program, *p), Typed::new(b.program, *q));
                same_restricted(t, p, q, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        // A dynamic value is kept whole (`Typed` navigation has crossed into it: its
        // concrete value with its own program): the same DUMP under an equal type.
        (Type::Dynamic, x, y) => {
            let (p, q) = (
                dump::to_string(a.program, x).unwrap(),
                dump::to_string(b.program, y).unwrap(),
            );
            let concrete = |v: Value<'_>| !matches!(v, Value::Null | Value::Unknown(_));
            let same_type = !concrete(x) || a.program.root_type() == b.program.root_type();
            if p != q || !same_type {
                return differ();
            }
            Ok(())
        }
        // An object or a wrapper where the type has none.
        (_, Value::Object(_) | Value::Dynamic(_), _) => differ(),
        (_, x, y) => {
            if x != y {
                return differ();
            }
            Ok(())
        }
    }
}

/// `b` (decoded by a projection on `paths`) equals `a` (the full value, of type `ty`)
/// restricted to the paths: each object keeps the attributes a path names; a collection or
/// tuple keeps every element when a path takes `[*]` into it, else the elements the paths
/// pick that the value has, in order; a list's, set's or map's kept elements are restricted
/// to every path into the collection, a tuple's element `i` to the paths through `[*]` and
/// `[i]`; where a path ends, the value is kept whole. `at` is the path so far.
pub fn same_selected<'v>(
    ty: &Type,
    paths: &[&[Step]],
    a: Typed<'v>,
    b: Typed<'v>,
    at: &str,
) -> Result<(), String> {
    fn sub<'v>(v: &Value<'v>, t: Typed<'v>) -> Typed<'v> {
        Typed::new(t.program, *v)
    }
    if paths.iter().any(|p| p.is_empty()) {
        return same_restricted(ty, a, b, at);
    }
    let differ = |why: &str| {
        Err(format!(
            "at {at} ({ty}): {why}: full {} ≠ projected {}",
            dump_of(a),
            dump_of(b)
        ))
    };
    let rest = |keep: &dyn Fn(&Step) -> bool| -> Vec<&[Step]> {
        paths
            .iter()
            .filter(|p| keep(&p[0]))
            .map(|p| &p[1..])
            .collect()
    };
    // Inside a dynamic value (`Typed` has crossed into it: its concrete value with its own
    // program): that type, and the paths it has; null when it has none.
    if *ty == Type::Dynamic {
        if matches!(a.value, Value::Null | Value::Unknown(_)) {
            return match a.value == b.value {
                true => Ok(()),
                false => differ("not the same"),
            };
        }
        let t = a.program.root_type();
        let kept: Vec<&[Step]> = paths.iter().copied().filter(|p| has_path(t, p)).collect();
        return match (kept.is_empty(), b.value) {
            (true, Value::Null) => Ok(()),
            (false, _) => same_selected(t, &kept, a, b, at),
            _ => differ("not null, where the value's type has none of the paths"),
        };
    }
    let every = paths.iter().any(|p| p[0] == Step::Every);
    match (ty, a.value, b.value) {
        (Type::Object(o), Value::Object(_), Value::Object(_)) => {
            let mut names: Vec<&str> = paths
                .iter()
                .map(|p| match &p[0] {
                    Step::Attr(n) | Step::Key(n) => n.as_str(),
                    s => panic!("a step {s:?} into an object"),
                })
                .collect();
            names.sort_unstable();
            names.dedup();
            for name in names {
                let t = o.get(name).unwrap();
                let (Some(x), Some(y)) = (a.attr(name), b.attr(name)) else {
                    return differ(&format!("attribute {name:?} missing"));
                };
                let paths = rest(&|s| matches!(s, Step::Attr(n) | Step::Key(n) if n == name));
                same_selected(t, &paths, x, y, &format!("{at}.{name}"))?;
            }
            Ok(())
        }
        (
            Type::List(t) | Type::Set(t),
            Value::List(x) | Value::Set(x),
            Value::List(y) | Value::Set(y),
        ) => {
            let kept: Vec<usize> = match every {
                true => (0..x.len()).collect(),
                false => picked(paths, x.len()),
            };
            if kept.len() != y.len() {
                return differ(&format!("{} elements kept, {} wanted", y.len(), kept.len()));
            }
            let paths = rest(&|_| true);
            for (&i, q) in kept.iter().zip(y) {
                same_selected(t, &paths, sub(&x[i], a), sub(q, b), &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        (Type::Map(t), Value::Map(x), Value::Map(y)) => {
            let kept: Vec<&(&str, Value<'_>)> = x
                .iter()
                .filter(|(k, _)| {
                    every
                        || paths
                            .iter()
                            .any(|p| matches!(&p[0], Step::Key(q) | Step::Attr(q) if q == k))
                })
                .collect();
            if kept.len() != y.len() {
                return differ(&format!("{} entries kept, {} wanted", y.len(), kept.len()));
            }
            let paths = rest(&|_| true);
            for ((k, p), (l, q)) in kept.into_iter().zip(y) {
                if k != l {
                    return differ(&format!("key {l:?} where {k:?} was wanted"));
                }
                same_selected(t, &paths, sub(p, a), sub(q, b), &format!("{at}[{k:?}]"))?;
            }
            Ok(())
        }
        (Type::Tuple(ts), Value::Tuple(x), Value::Tuple(y)) => {
            let kept: Vec<usize> = match every {
                true => (0..x.len()).collect(),
                false => picked(paths, x.len()),
            };
            if kept.len() != y.len() {
                return differ(&format!("{} elements kept, {} wanted", y.len(), kept.len()));
            }
            for (&i, q) in kept.iter().zip(y) {
                let paths = rest(&|s| matches!(s, Step::Every) || *s == Step::Index(i as u64));
                same_selected(
                    &ts[i],
                    &paths,
                    sub(&x[i], a),
                    sub(q, b),
                    &format!("{at}[{i}]"),
                )?;
            }
            Ok(())
        }
        // Null or unknown where a container is: the same.
        (_, x, y)
            if !matches!(
                x,
                Value::Object(_) | Value::List(_) | Value::Set(_) | Value::Map(_) | Value::Tuple(_)
            ) =>
        {
            if x != y {
                return differ("not the same");
            }
            Ok(())
        }
        _ => differ("not the same kind"),
    }
}

/// The indexes below `len` the paths' `[N]` steps pick, sorted, without repeats.
fn picked(paths: &[&[Step]], len: usize) -> Vec<usize> {
    let mut kept: Vec<usize> = paths
        .iter()
        .filter_map(|p| match p[0] {
            Step::Index(i) if (i as usize) < len => Some(i as usize),
            _ => None,
        })
        .collect();
    kept.sort_unstable();
    kept.dedup();
    kept
}

fn dump_of(t: Typed<'_>) -> String {
    format!("{:?}", t.value)
}

/// The check of the `projection` fuzz target on its bytes.
pub fn projection(data: &[u8]) {
    let mut s = Bytes::new(data);
    let (t, plan) = gen::small_case(&mut s);
    projection_of(&mut s, &t, &plan);
}

/// [`projection`] of a given type and value.
pub fn projection_of(s: &mut dyn Source, t: &Type, plan: &super::RV) {
    let keys: Vec<&str> = (0..2).map(|_| *gen::pick(s, &gen::NAMES)).collect();
    let mut paths = Vec::new();
    selection_paths(t, &[], &keys, &mut paths);
    if paths.is_empty() {
        return;
    }
    let chosen: Vec<&[Step]> = (0..1 + s.below(3))
        .map(|_| paths[s.below(paths.len())].as_slice())
        .collect();
    let texts: Vec<String> = chosen.iter().map(|p| render(p)).collect();
    let full = Program::new(t).unwrap();
    let selection = Selection::parse(&texts).unwrap();
    let program = full
        .select(&selection)
        .unwrap_or_else(|e| panic!("{texts:?} of {t}: {e}"));
    let mut inputs = vec![(true, encode::msgpack(s, t, plan))];
    if !super::has_unknown(plan) {
        inputs.push((false, encode::json(s, t, plan)));
    }
    for (msgpack, mut bytes) in inputs {
        // Sometimes one byte changed.
        if s.chance(64) && !bytes.is_empty() {
            let i = s.below(bytes.len());
            bytes[i] = s.byte();
        }
        compare(&full, &program, &chosen, msgpack, &bytes);
    }
}

/// Whether `bytes` is not one well-formed value, by a judge other than the decoders: for JSON,
/// serde_json (`IgnoredAny`, which checks the grammar but not a string's UTF-8, and the whole
/// input as UTF-8, which covers it), for MessagePack `skip_msgpack` (the `skip_differential`
/// fuzz target checks it against rmpv and a walk of the spec). serde_json's nesting limit
/// (128) is no fault of the input: such an input counts as well-formed.
pub fn malformed(msgpack: bool, bytes: &[u8]) -> bool {
    if msgpack {
        return tfwire::skip_msgpack(bytes).ok() != Some(bytes.len());
    }
    let grammar = match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        Ok(_) => true,
        Err(e) => e.to_string().starts_with("recursion limit exceeded"),
    };
    !grammar || std::str::from_utf8(bytes).is_err()
}

/// The full decode of `bytes` and its projection on `chosen` (`program`): when the full decode
/// accepts, the projection equals it restricted to the paths; when the input is not
/// well-formed ([`malformed`]), the projection fails too, as skipped bytes are still checked.
pub fn compare(full: &Program, program: &Program, chosen: &[&[Step]], msgpack: bool, bytes: &[u8]) {
    let t = full.root_type();
    let texts: Vec<String> = chosen.iter().map(|p| render(p)).collect();
    let bump = Bump::new();
    let (a, b) = match msgpack {
        true => (
            full.decode_msgpack(bytes, &bump),
            program.decode_msgpack(bytes, &bump),
        ),
        false => (
            full.decode_json(bytes, &bump),
            program.decode_json(bytes, &bump),
        ),
    };
    if malformed(msgpack, bytes) {
        if let Ok(b) = b {
            panic!(
                "{texts:?} of {t}: the projection accepts an input that is not well-formed: {}\n input {bytes:02x?}",
                dump_of(program.typed(b))
            );
        }
    }
    let Ok(a) = a else {
        return;
    };
    let b = b.unwrap_or_else(|e| {
        panic!("{texts:?} of {t}: the full decode accepts, the projection fails: {e}\n input {bytes:02x?}")
    });
    if let Err(e) = same_selected(t, chosen, full.typed(a), program.typed(b), "") {
        panic!("{texts:?} of {t}: {e}\n input {bytes:02x?}");
    }
}
