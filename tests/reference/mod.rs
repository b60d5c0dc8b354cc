//! A small, obviously correct REFERENCE of tfwire's decoders, for differential testing (the
//! fuzz targets in `fuzz/` and `tests/properties.rs`, `tests/regressions.rs` use it).
//!
//! - [`mp`] and [`json`]: recursive decoders over the [`Type`] (no program, no explicit stack)
//!   that implement DESIGN.md §4 and the policies the VM documents, returning a plain value
//!   tree [`RV`] or an [`ErrorKind`];
//! - [`encode`]: MessagePack and JSON encoders of an [`RV`] under a type, choosing among every
//!   encoding the decoders accept (int widths, str/bin, key order, escapes, coercions, …);
//! - [`gen`]: a byte-driven generator of types and values (fuzzer bytes or an xorshift PRNG);
//! - [`num`]: the decimal grammar and exact comparison of numbers;
//! - [`check`]: the checks of each fuzz target, shared with `tests/regressions.rs`;
//! - [`schemas`]: deferred against eager schema loading (`schema_doc`);
//! - [`state`]: the state reader's check (`state_chunks`);
//! - [`dumps`]: DUMPs written straight against the decode's (`dump_straight`);
//! - `arrow_rows` (with the `arrow` feature): rows read straight into Arrow columns against
//!   the general way (`arrow_rows`).
//!
//! Included with `#[path = "reference/mod.rs"] mod reference;` (from `tests/`) or
//! `#[path = "../../tests/reference/mod.rs"]` (from `fuzz/fuzz_targets/`).
#![allow(dead_code)]

#[cfg(feature = "arrow")]
pub mod arrow_rows;
pub mod check;
pub mod dumps;
pub mod encode;
pub mod gen;
pub mod json;
pub mod mp;
pub mod num;
pub mod project;
pub mod schemas;
pub mod state;
pub mod visit;

use tfwire::{ErrorKind, Limits, Number, Program, Type, Value};

type R<T> = Result<T, ErrorKind>;

/// A number as it was decoded (the variant matters: the VM and the reference must agree on
/// it exactly).
#[derive(Clone, Debug)]
pub enum RNum {
    Int(i64),
    UInt(u64),
    Float(f64),
    Dec(String),
}

impl PartialEq for RNum {
    /// Strict: same variant, same bits / text.
    fn eq(&self, other: &RNum) -> bool {
        match (self, other) {
            (RNum::Int(a), RNum::Int(b)) => a == b,
            (RNum::UInt(a), RNum::UInt(b)) => a == b,
            (RNum::Float(a), RNum::Float(b)) => a.to_bits() == b.to_bits(),
            (RNum::Dec(a), RNum::Dec(b)) => a == b,
            _ => false,
        }
    }
}

impl RNum {
    /// The text the DUMP writes (through tfwire's own lossless formatting).
    pub fn dump_text(&self) -> String {
        let n = match self {
            RNum::Int(i) => Number::Int(*i),
            RNum::UInt(u) => Number::UInt(*u),
            RNum::Float(f) => Number::Float(*f),
            RNum::Dec(s) => {
                let s: &str = s;
                return Number::Decimal(s).to_decimal_string();
            }
        };
        n.to_decimal_string()
    }
}

/// Refinements of an unknown value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RRef {
    pub nullness: Option<bool>,
    pub prefix: Option<String>,
    pub lower: Option<(RNum, bool)>,
    pub upper: Option<(RNum, bool)>,
    pub len_lo: Option<u64>,
    pub len_hi: Option<u64>,
}

/// A decoded value (or, from the generator, a value to encode: there `Dynamic(T, v)` may hold
/// a null or an unknown, which decodes to the bare null or unknown; see [`expected`]).
#[derive(Clone, Debug, PartialEq)]
pub enum RV {
    Null,
    Unknown(Option<RRef>),
    Bool(bool),
    Num(RNum),
    Str(String),
    List(Vec<RV>),
    Set(Vec<RV>),
    Tuple(Vec<RV>),
    /// Entries in wire order (repeated keys kept).
    Map(Vec<(String, RV)>),
    /// Attributes in name order, every attribute of the type.
    Object(Vec<(String, RV)>),
    /// A known non-null value at a dynamic position, with its concrete type.
    Dynamic(Type, Box<RV>),
}

/// What the decoders are asked to do besides the type: the drift options and the limits.
#[derive(Clone, Copy, Debug)]
pub struct Opts {
    pub skip_unknown: bool,
    pub missing_null: bool,
    pub limits: Limits,
}

impl Default for Opts {
    fn default() -> Self {
        Opts {
            skip_unknown: false,
            missing_null: false,
            limits: Limits::DEFAULT,
        }
    }
}

impl Opts {
    /// The same options for the VM.
    pub fn decode_options(&self) -> tfwire::DecodeOptions {
        tfwire::DecodeOptions::default()
            .with_skip_unknown_attributes(self.skip_unknown)
            .with_missing_attributes_null(self.missing_null)
            .with_check_item_counts(false)
            .with_limits(self.limits)
    }
}

/// A decoded wrapper of type `t` holding `v`. When `t` holds `dynamic`, go-cty reads
/// through: the value's type is built from its parts (`cty.ListVal`, `ObjectVal`, …) and the
/// inner wrappers (already read through, this reference being recursive) disappear.
pub fn wrapper(t: Type, v: RV) -> R<RV> {
    // A value's type has no optional attributes.
    let t = t.without_optional_deep();
    let (t, v) = if t.has_dynamic() {
        read_through(&t, v)?
    } else {
        (t, v)
    };
    Ok(match v {
        // A null or unknown of type `dynamic` is bare; any other keeps its type.
        v @ (RV::Null | RV::Unknown(_)) if t == Type::Dynamic => v,
        v => RV::Dynamic(t, Box::new(v)),
    })
}

fn read_through(t: &Type, v: RV) -> R<(Type, RV)> {
    Ok(match (t, v) {
        (_, v @ (RV::Null | RV::Unknown(_))) => (t.clone(), v),
        (Type::Dynamic, RV::Dynamic(ct, inner)) => (ct, *inner),
        (Type::List(e), RV::List(vs)) => {
            let (et, vs) = elements(e, vs)?;
            (Type::List(Box::new(et)), RV::List(vs))
        }
        (Type::Set(e), RV::Set(vs)) => {
            let (et, vs) = elements(e, vs)?;
            (Type::Set(Box::new(et)), RV::Set(vs))
        }
        (Type::Map(e), RV::Map(kv)) => {
            let (keys, vs): (Vec<String>, Vec<RV>) = kv.into_iter().unzip();
            let (et, vs) = elements(e, vs)?;
            (
                Type::Map(Box::new(et)),
                RV::Map(keys.into_iter().zip(vs).collect()),
            )
        }
        (Type::Tuple(ts), RV::Tuple(vs)) => {
            let parts: Vec<(Type, RV)> = ts
                .iter()
                .zip(vs)
                .map(|(t, v)| read_through(t, v))
                .collect::<R<_>>()?;
            let (ts, vs) = parts.into_iter().unzip();
            (Type::Tuple(ts), RV::Tuple(vs))
        }
        (Type::Object(o), RV::Object(kv)) => {
            let mut attrs = Vec::new();
            let mut values = Vec::new();
            for ((name, t), (_, v)) in o.attrs().iter().zip(kv) {
                let (t, v) = read_through(t, v)?;
                attrs.push((name.clone(), t));
                values.push((name.clone(), v));
            }
            let o = tfwire::schema::ObjectType::new(attrs, &[]).unwrap();
            (Type::Object(o), RV::Object(values))
        }
        (t, v) => (t.clone(), v),
    })
}

/// `cty.ListVal`: the first element type that is not `dynamic` is the element type (`e` if
/// there is none); every other one must equal it.
fn elements(e: &Type, vs: Vec<RV>) -> R<(Type, Vec<RV>)> {
    let mut first: Option<Type> = None;
    let mut out = Vec::new();
    for v in vs {
        let (t, v) = read_through(e, v)?;
        if t != Type::Dynamic {
            match &first {
                None => first = Some(t),
                Some(f) if *f != t => return Err(ErrorKind::InconsistentTypes),
                Some(_) => {}
            }
        }
        out.push(v);
    }
    Ok((first.unwrap_or_else(|| e.clone()), out))
}

/// The value a generated wire plan decodes to: a wrapper's type loses its optional-attribute
/// markers (a null or unknown inside keeps the type, unless it is `dynamic`).
pub fn expected(v: &RV) -> RV {
    match v {
        RV::Dynamic(t, inner) => match expected(inner) {
            x @ (RV::Null | RV::Unknown(_)) if *t == Type::Dynamic => x,
            // A value's type has no optional-attribute markers.
            x => RV::Dynamic(t.clone().without_optional_deep(), Box::new(x)),
        },
        RV::List(e) => RV::List(e.iter().map(expected).collect()),
        RV::Set(e) => RV::Set(e.iter().map(expected).collect()),
        RV::Tuple(e) => RV::Tuple(e.iter().map(expected).collect()),
        RV::Map(e) => RV::Map(e.iter().map(|(k, v)| (k.clone(), expected(v))).collect()),
        RV::Object(e) => RV::Object(e.iter().map(|(k, v)| (k.clone(), expected(v))).collect()),
        x => x.clone(),
    }
}

/// True if an unknown appears anywhere (JSON cannot carry one).
pub fn has_unknown(v: &RV) -> bool {
    match v {
        RV::Unknown(_) => true,
        RV::List(e) | RV::Set(e) | RV::Tuple(e) => e.iter().any(has_unknown),
        RV::Map(e) | RV::Object(e) => e.iter().any(|(_, v)| has_unknown(v)),
        RV::Dynamic(_, v) => has_unknown(v),
        _ => false,
    }
}

/// Converts a VM value (decoded by `program`) into the reference's tree.
pub fn from_vm(program: &Program, v: Value<'_>) -> RV {
    match v {
        Value::Null => RV::Null,
        Value::Unknown(r) => RV::Unknown(r.map(|r| RRef {
            nullness: r.nullness,
            prefix: r.string_prefix.map(str::to_string),
            lower: r.number_lower.map(|(n, i)| (num_from_vm(n), i)),
            upper: r.number_upper.map(|(n, i)| (num_from_vm(n), i)),
            len_lo: r.length_lower,
            len_hi: r.length_upper,
        })),
        Value::Bool(b) => RV::Bool(b),
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => {
            RV::Num(num_from_vm(v.as_number().expect("a number variant")))
        }
        Value::String(s) => RV::Str(s.to_string()),
        Value::List(e) => RV::List(e.iter().map(|x| from_vm(program, *x)).collect()),
        Value::Set(e) => RV::Set(e.iter().map(|x| from_vm(program, *x)).collect()),
        Value::Tuple(e) => RV::Tuple(e.iter().map(|x| from_vm(program, *x)).collect()),
        Value::Map(e) => RV::Map(
            e.iter()
                .map(|(k, x)| (k.to_string(), from_vm(program, *x)))
                .collect(),
        ),
        Value::Object(object) => {
            let attrs = object.attrs();
            let names: Vec<&str> = program.typed(v).attrs().map(|(n, _)| n).collect();
            assert_eq!(names.len(), attrs.len(), "object with a slot per attribute");
            RV::Object(
                names
                    .iter()
                    .zip(attrs)
                    .map(|(n, x)| (n.to_string(), from_vm(program, *x)))
                    .collect(),
            )
        }
        Value::Dynamic(d) => RV::Dynamic(
            d.program.root_type().clone(),
            Box::new(from_vm(d.program, d.value)),
        ),
    }
}

fn num_from_vm(n: Number<'_>) -> RNum {
    match n {
        Number::Int(i) => RNum::Int(i),
        Number::UInt(u) => RNum::UInt(u),
        Number::Float(f) => RNum::Float(f),
        Number::Decimal(s) => RNum::Dec(s.to_string()),
    }
}

/// Equality up to number representation: numbers by exact value (`UInt(5)`, `Int(5)`,
/// `Dec("5.0")` and `Float(5.0)` are equal), everything else exactly.
pub fn same_value(a: &RV, b: &RV) -> bool {
    let all =
        |x: &[RV], y: &[RV]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q));
    let entries = |x: &[(String, RV)], y: &[(String, RV)]| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(p, q)| p.0 == q.0 && same_value(&p.1, &q.1))
    };
    match (a, b) {
        (RV::Num(x), RV::Num(y)) => num::same(x, y),
        (RV::Unknown(x), RV::Unknown(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => same_refinements(x, y),
            _ => false,
        },
        (RV::List(x), RV::List(y)) | (RV::Set(x), RV::Set(y)) | (RV::Tuple(x), RV::Tuple(y)) => {
            all(x, y)
        }
        (RV::Map(x), RV::Map(y)) | (RV::Object(x), RV::Object(y)) => entries(x, y),
        (RV::Dynamic(t, x), RV::Dynamic(u, y)) => t == u && same_value(x, y),
        _ => a == b,
    }
}

fn same_refinements(x: &RRef, y: &RRef) -> bool {
    let bound = |p: &Option<(RNum, bool)>, q: &Option<(RNum, bool)>| match (p, q) {
        (None, None) => true,
        (Some((a, i)), Some((b, j))) => i == j && num::same(a, b),
        _ => false,
    };
    x.nullness == y.nullness
        && x.prefix == y.prefix
        && bound(&x.lower, &y.lower)
        && bound(&x.upper, &y.upper)
        && x.len_lo == y.len_lo
        && x.len_hi == y.len_hi
}

/// The reference's own DUMP (DESIGN.md §5), to compare with `tfwire::dump::to_string`.
pub fn dump(v: &RV) -> String {
    let mut out = String::new();
    dump_into(&mut out, v);
    out
}

fn dump_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn dump_num(out: &mut String, n: &RNum) {
    let t = n.dump_text();
    if t.ends_with("Inf") {
        dump_str(out, &t);
    } else {
        out.push_str(&t);
    }
}

fn dump_into(out: &mut String, v: &RV) {
    match v {
        RV::Null => out.push_str("null"),
        RV::Unknown(r) => {
            let mut parts: Vec<String> = Vec::new();
            if let Some(r) = r {
                if let Some(n) = r.nullness {
                    parts.push(format!("\"null\":{n}"));
                }
                if let Some(p) = &r.prefix {
                    let mut s = String::from("\"prefix\":");
                    dump_str(&mut s, p);
                    parts.push(s);
                }
                for (name, b) in [("lower", &r.lower), ("upper", &r.upper)] {
                    if let Some((n, inc)) = b {
                        let mut s = format!("\"{name}\":[");
                        dump_num(&mut s, n);
                        s.push_str(&format!(",{inc}]"));
                        parts.push(s);
                    }
                }
                if let Some(n) = r.len_lo {
                    parts.push(format!("\"len_min\":{n}"));
                }
                if let Some(n) = r.len_hi {
                    parts.push(format!("\"len_max\":{n}"));
                }
            }
            out.push_str(&format!("{{\"$unknown\":{{{}}}}}", parts.join(",")));
        }
        RV::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        RV::Num(n) => dump_num(out, n),
        RV::Str(s) => dump_str(out, s),
        RV::List(e) | RV::Set(e) | RV::Tuple(e) => {
            out.push('[');
            for (i, x) in e.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                dump_into(out, x);
            }
            out.push(']');
        }
        RV::Map(e) | RV::Object(e) => {
            // Sorted keys; the last of repeated keys wins.
            let mut last: std::collections::BTreeMap<&str, &RV> = std::collections::BTreeMap::new();
            for (k, x) in e {
                last.insert(k, x);
            }
            out.push('{');
            for (i, (k, x)) in last.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                dump_str(out, k);
                out.push(':');
                dump_into(out, x);
            }
            out.push('}');
        }
        // A typed null or unknown shows bare (DESIGN.md §5).
        RV::Dynamic(_, x) if matches!(**x, RV::Null | RV::Unknown(_)) => dump_into(out, x),
        RV::Dynamic(t, x) => {
            out.push_str(&format!("{{\"type\":{t},\"value\":"));
            dump_into(out, x);
            out.push('}');
        }
    }
}

/// The refinement target of a type (which refinement keys it admits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    String,
    Number,
    Collection,
    Dynamic,
    Other,
}

pub fn target(t: &Type) -> Target {
    match t {
        Type::String => Target::String,
        Type::Number => Target::Number,
        Type::List(_) | Type::Set(_) | Type::Map(_) => Target::Collection,
        Type::Dynamic => Target::Dynamic,
        _ => Target::Other,
    }
}

/// Checks that a VM value conforms to `ty`: the conformance walker of the property tests.
pub fn conforms(program: &Program, ty: &Type, v: Value<'_>) -> Result<(), String> {
    let bad = |what: &str| Err(format!("{what}: {v:?} is not a {}", ty.friendly_name()));
    match (ty, v) {
        (_, Value::Null | Value::Unknown(_)) => Ok(()),
        (Type::Bool, Value::Bool(_)) | (Type::String, Value::String(_)) => Ok(()),
        (Type::Number, Value::Float(f)) => match f.is_nan() {
            true => bad("NaN"),
            false => Ok(()),
        },
        (Type::Number, Value::Int(_) | Value::UInt(_)) => Ok(()),
        (Type::Number, Value::Decimal(s)) => match tfwire::Number::Decimal(s).as_f64().is_nan() {
            true => bad("NaN"),
            false => Ok(()),
        },
        (Type::List(t), Value::List(e)) | (Type::Set(t), Value::Set(e)) => {
            e.iter().try_for_each(|x| conforms(program, t, *x))?;
            consistent(t, e.iter())
        }
        (Type::Map(t), Value::Map(e)) => {
            e.iter().try_for_each(|(_, x)| conforms(program, t, *x))?;
            consistent(t, e.iter().map(|(_, x)| x))
        }
        (Type::Tuple(ts), Value::Tuple(e)) if ts.len() == e.len() => ts
            .iter()
            .zip(e)
            .try_for_each(|(t, x)| conforms(program, t, *x)),
        (Type::Object(o), Value::Object(object)) => {
            let attrs = object.attrs();
            let names: Vec<&str> = program.typed(v).attrs().map(|(n, _)| n).collect();
            let want: Vec<&str> = o.attrs().iter().map(|(n, _)| n.as_str()).collect();
            if names != want || attrs.len() != want.len() {
                return bad("attribute names");
            }
            o.attrs()
                .iter()
                .zip(attrs)
                .try_for_each(|((_, t), x)| conforms(program, t, *x))
        }
        (Type::Dynamic, Value::Dynamic(d)) => match d.value {
            // (A wrapper whose type holds `dynamic` holds wrappers in turn: see fuzz/README.md.)
            Value::Null | Value::Unknown(_) => Ok(()),
            x => conforms(d.program, d.program.root_type(), x),
        },
        _ => bad("kind"),
    }
}

fn consistent<'v, 'a: 'v>(
    elem: &Type,
    values: impl Iterator<Item = &'v Value<'a>>,
) -> Result<(), String> {
    if *elem != Type::Dynamic {
        return Ok(());
    }
    let mut first: Option<&Type> = None;
    for v in values {
        if let Value::Dynamic(d) = v {
            let t = d.program.root_type();
            match first {
                None => first = Some(t),
                Some(f) if f == t => {}
                Some(f) => return Err(format!("dynamic elements of types {f} and {t}")),
            }
        }
    }
    Ok(())
}
