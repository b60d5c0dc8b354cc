//! The projection check (`Program::select`), shared by `tests/projection.rs` and the
//! `projection` fuzz target: a generated type and value, encoded as MessagePack and (without
//! unknowns) JSON in the encodings the input picks, decoded whole and through a projection on
//! paths the input picks among the type's attribute paths; the projected value must equal the
//! full value restricted to the projected type. Inputs changed by a byte the input picks too:
//! when the full decode still accepts them, the same must hold; when it does not, the
//! projection must fail or decode (never panic).

use bumpalo::Bump;
use tfwire::schema::Selection;
use tfwire::{dump, Program, Type, Typed, Value};

use super::encode;
use super::gen::{self, Bytes, Source};

/// Every attribute path of `ty` that `Type::project` takes: attributes, `[*]` through
/// lists, sets and maps, stopping at tuples and dynamic values.
pub fn attribute_paths(ty: &Type, prefix: &str, out: &mut Vec<String>) {
    match ty {
        Type::Object(o) => {
            for (name, t) in o.attrs() {
                let step = if is_identifier(name) {
                    format!("{prefix}.{name}")
                } else {
                    format!("{prefix}[{}]", serde_json::to_string(name).unwrap())
                };
                out.push(step.clone());
                attribute_paths(t, &step, out);
            }
        }
        Type::List(t) | Type::Set(t) | Type::Map(t) => {
            attribute_paths(t, &format!("{prefix}[*]"), out)
        }
        _ => {}
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
    let mut paths = Vec::new();
    attribute_paths(t, "", &mut paths);
    if paths.is_empty() {
        return;
    }
    let chosen: Vec<&str> = (0..1 + s.below(3))
        .map(|_| paths[s.below(paths.len())].as_str())
        .collect();
    let full = Program::new(t).unwrap();
    let selection = Selection::parse(&chosen).unwrap();
    let program = full
        .select(&selection)
        .unwrap_or_else(|e| panic!("{chosen:?} of {t}: {e}"));
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
        let bump = Bump::new();
        let (a, b) = match msgpack {
            true => (
                full.decode_msgpack(&bytes, &bump),
                program.decode_msgpack(&bytes, &bump),
            ),
            false => (
                full.decode_json(&bytes, &bump),
                program.decode_json(&bytes, &bump),
            ),
        };
        let Ok(a) = a else {
            continue;
        };
        let b = b.unwrap_or_else(|e| {
            panic!("{chosen:?} of {t}: the full decode accepts, the projection fails: {e}\n input {bytes:02x?}")
        });
        if let Err(e) = same_restricted(program.root_type(), full.typed(a), program.typed(b), "") {
            panic!("{chosen:?} of {t}: {e}\n input {bytes:02x?}");
        }
    }
}
