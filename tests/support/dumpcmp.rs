//! A port of the oracle's `dumpcmp.py` (`../shared/oracle/dumpcmp.py`): compares two DUMP
//! JSON documents under a cty type JSON, with the `--f64` and `--ignore-refinements` options.
//!
//! - numbers by exact decimal value (`0.10` equals `1e-1`), read from the literal text by the
//!   small JSON reader in `dump_json.rs` (serde_json would round them); with `f64` they are
//!   also equal when both round to the same `f64`; `"+Inf"`/`"-Inf"` compare as strings;
//! - sets as multisets, object and map keys in any order;
//! - dynamic positions: the type JSONs must be structurally equal, then the values compare
//!   under that type;
//! - unknowns match unknowns with equal refinements (any refinements with
//!   `ignore_refinements`).
//!
//! [`compare`] returns `Err("differ at PATH: reason\n  A: ..\n  B: ..")` at the first
//! difference, in the same order and with the same path and reason as `dumpcmp.py`, or
//! `Err("dumpcmp: ..")` for invalid input (the script's exit 2).
#![allow(dead_code)]

use std::collections::BTreeMap;

#[path = "dump_json.rs"]
mod dump_json;

use dump_json::{json_str, short, to_text};
pub use dump_json::{parse_json, J};

/// The script's command-line options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `--f64`: numbers are also equal when both round to the same `f64`.
    pub f64: bool,
    /// `--ignore-refinements`: all unknowns are equal.
    pub ignore_refinements: bool,
}

/// Compares DUMPs `a` and `b` under `type_json` (a type JSON or a `{"type": T}` wrapper).
pub fn compare(type_json: &str, a: &str, b: &str, opts: Options) -> Result<(), String> {
    let bad = |what: &str, e: String| format!("dumpcmp: {what}: invalid JSON: {e}");
    let mut raw = parse_json(type_json).map_err(|e| bad("type", e))?;
    if let J::Obj(m) = &raw {
        if let Some(t) = m.get("type") {
            raw = t.clone();
        }
    }
    let ty = parse_type(&raw).map_err(|e| format!("dumpcmp: {e}"))?;
    let a = parse_json(a).map_err(|e| bad("A", e))?;
    let b = parse_json(b).map_err(|e| bad("B", e))?;
    let cx = Cx { opts };
    cx.cmp(&ty, &a, &b, String::new()).map_err(|d| {
        let path = if d.path.is_empty() { "(root)" } else { &d.path };
        let (a, b) = (short(d.a), short(d.b));
        format!("differ at {path}: {}\n  A: {a}\n  B: {b}", d.reason)
    })
}

// ------------------------------------------------------------------ numbers

/// An exact decimal: sign, significant digits without leading or trailing zeros, and the
/// exponent of the last digit. Zero is `(false, "", 0)` whatever its sign.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Dec(bool, String, i128);

fn exact(text: &str) -> Dec {
    let (neg, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mant, exp) = match rest.find(['e', 'E']) {
        Some(p) => {
            let e = &rest[p + 1..];
            let e = e.strip_prefix('+').unwrap_or(e);
            // Saturates: beyond i64 the magnitude no longer matters for equality.
            let sat = if e.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            };
            let e = e.parse::<i128>().unwrap_or(sat as i128);
            (&rest[..p], e)
        }
        None => (rest, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let all = format!("{int}{frac}");
    let mut exp = exp - frac.len() as i128;
    let digits = all.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    exp += (digits.len() - trimmed.len()) as i128;
    if trimmed.is_empty() {
        return Dec(false, String::new(), 0);
    }
    Dec(neg, trimmed.to_string(), exp)
}

/// The nearest `f64` (`±inf` beyond range), as Python's `float(Decimal)`.
fn to_f64(text: &str) -> f64 {
    text.parse::<f64>().unwrap_or(f64::NAN)
}

/// A number's key in [`Canon`]: its `f64` (`-0` as `0`, by bits) or its exact value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum NumKey {
    F64(u64),
    Exact(Dec),
}

// ------------------------------------------------------------------ types

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ty {
    Prim(&'static str),
    Dynamic,
    List(Box<Ty>),
    Set(Box<Ty>),
    Map(Box<Ty>),
    Object(BTreeMap<String, Ty>, Vec<String>),
    Tuple(Vec<Ty>),
}

fn parse_type(t: &J) -> Result<Ty, String> {
    let invalid = || {
        let mut s = String::new();
        to_text(t, &mut s);
        format!("invalid type JSON {s}")
    };
    match t {
        J::Str(s) => match s.as_str() {
            "string" => Ok(Ty::Prim("string")),
            "number" => Ok(Ty::Prim("number")),
            "bool" => Ok(Ty::Prim("bool")),
            "dynamic" => Ok(Ty::Dynamic),
            _ => Err(format!("invalid primitive type {}", json_str(s))),
        },
        J::Arr(v) if v.len() >= 2 => {
            let J::Str(kind) = &v[0] else {
                return Err(invalid());
            };
            match (kind.as_str(), v.len(), &v[1]) {
                ("list", 2, e) => Ok(Ty::List(Box::new(parse_type(e)?))),
                ("set", 2, e) => Ok(Ty::Set(Box::new(parse_type(e)?))),
                ("map", 2, e) => Ok(Ty::Map(Box::new(parse_type(e)?))),
                ("object", 2 | 3, J::Obj(attrs)) => {
                    let mut opt = Vec::new();
                    if let Some(o) = v.get(2) {
                        let J::Arr(o) = o else { return Err(invalid()) };
                        for n in o {
                            let J::Str(n) = n else {
                                return Err(format!(
                                    "invalid optional attribute list in {}",
                                    invalid()
                                ));
                            };
                            opt.push(n.clone());
                        }
                    }
                    opt.sort();
                    opt.dedup();
                    let attrs = attrs
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), parse_type(v)?)))
                        .collect::<Result<_, String>>()?;
                    Ok(Ty::Object(attrs, opt))
                }
                ("tuple", 2, J::Arr(elems)) => Ok(Ty::Tuple(
                    elems.iter().map(parse_type).collect::<Result<_, _>>()?,
                )),
                _ => Err(invalid()),
            }
        }
        _ => Err(invalid()),
    }
}

fn type_text(ty: &Ty) -> String {
    let join = |it: Vec<String>| it.join(", ");
    match ty {
        Ty::Prim(p) => p.to_string(),
        Ty::Dynamic => "dynamic".into(),
        Ty::List(e) => format!("list({})", type_text(e)),
        Ty::Set(e) => format!("set({})", type_text(e)),
        Ty::Map(e) => format!("map({})", type_text(e)),
        Ty::Object(a, _) => format!(
            "object({{{}}})",
            join(
                a.iter()
                    .map(|(n, t)| format!("{n}={}", type_text(t)))
                    .collect()
            )
        ),
        Ty::Tuple(e) => format!("tuple([{}])", join(e.iter().map(type_text).collect())),
    }
}

// ------------------------------------------------------------------ comparison

/// The script's hashable canonical form: equal iff `cmp` finds no difference (sets).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Canon {
    Null,
    Unknown(Option<Box<Canon>>),
    Dyn(Ty, Box<Canon>),
    Raw(Box<Canon>),
    Num(NumKey),
    Seq(Vec<Canon>),
    /// A multiset: the sorted elements.
    Set(Vec<Canon>),
    Obj(Vec<(String, Canon)>),
    Str(String),
    Bool(bool),
    NoneT,
}

struct Diff<'j> {
    path: String,
    reason: String,
    a: Option<&'j J>,
    b: Option<&'j J>,
}

type R<'j> = Result<(), Diff<'j>>;

/// `bail!(path, a, b, "reason {}", args)`: returns the difference.
macro_rules! bail {
    ($path:expr, $a:expr, $b:expr, $($reason:tt)+) => {
        return Err(Diff { path: $path, reason: format!($($reason)+), a: $a, b: $b })
    };
}

fn is_unknown(x: &J) -> bool {
    matches!(x, J::Obj(m) if m.len() == 1 && m.contains_key("$unknown"))
}

fn unknown_body(x: &J) -> &J {
    match x {
        J::Obj(m) => &m["$unknown"],
        _ => unreachable!(),
    }
}

fn dyn_wrapper(x: &J) -> Option<(&J, &J)> {
    match x {
        J::Obj(m) if m.len() == 2 => Some((m.get("type")?, m.get("value")?)),
        _ => None,
    }
}

fn is_inf(x: &J) -> bool {
    matches!(x, J::Str(s) if s == "+Inf" || s == "-Inf")
}

/// Python's `re.match(r"^[A-Za-z_][A-Za-z0-9_-]*$", name)` (`$` also before a final `\n`).
fn attr_step(name: &str) -> String {
    let body = name.strip_suffix('\n').unwrap_or(name).as_bytes();
    let ident = !body.is_empty()
        && (body[0].is_ascii_alphabetic() || body[0] == b'_')
        && body
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-');
    if ident {
        format!(".{name}")
    } else {
        format!("[{}]", json_str(name))
    }
}

fn key_step(key: &str) -> String {
    format!("[{}]", json_str(key))
}

struct Cx {
    opts: Options,
}

impl Cx {
    fn num_equal(&self, a: &str, b: &str) -> bool {
        exact(a) == exact(b) || (self.opts.f64 && to_f64(a) == to_f64(b))
    }

    fn num_key(&self, x: &str) -> NumKey {
        if self.opts.f64 {
            let f = to_f64(x);
            NumKey::F64(if f == 0.0 { 0 } else { f.to_bits() })
        } else {
            NumKey::Exact(exact(x))
        }
    }

    fn generic_equal(&self, a: &J, b: &J) -> bool {
        match (a, b) {
            (J::Num(x), J::Num(y)) => self.num_equal(x, y),
            (J::Obj(x), J::Obj(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| self.generic_equal(v, w)))
            }
            (J::Arr(x), J::Arr(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(v, w)| self.generic_equal(v, w))
            }
            _ => a == b,
        }
    }

    fn canon_generic(&self, x: &J) -> Canon {
        match x {
            J::Null => Canon::NoneT,
            J::Bool(b) => Canon::Bool(*b),
            J::Num(n) => Canon::Num(self.num_key(n)),
            J::Str(s) => Canon::Str(s.clone()),
            J::Arr(v) => Canon::Seq(v.iter().map(|e| self.canon_generic(e)).collect()),
            J::Obj(m) => Canon::Obj(
                m.iter()
                    .map(|(k, v)| (k.clone(), self.canon_generic(v)))
                    .collect(),
            ),
        }
    }

    fn canon(&self, ty: &Ty, x: &J) -> Canon {
        if *x == J::Null {
            return Canon::Null;
        }
        if is_unknown(x) {
            if self.opts.ignore_refinements {
                return Canon::Unknown(None);
            }
            return Canon::Unknown(Some(Box::new(self.canon_generic(unknown_body(x)))));
        }
        let raw = || Canon::Raw(Box::new(self.canon_generic(x)));
        match (ty, x) {
            (Ty::Dynamic, _) => match dyn_wrapper(x) {
                Some((t, v)) => match parse_type(t) {
                    Ok(t) => {
                        let c = self.canon(&t, v);
                        Canon::Dyn(t, Box::new(c))
                    }
                    Err(_) => raw(),
                },
                None => raw(),
            },
            (Ty::Prim("number"), J::Num(n)) => Canon::Num(self.num_key(n)),
            (Ty::List(e), J::Arr(v)) => Canon::Seq(v.iter().map(|x| self.canon(e, x)).collect()),
            (Ty::Tuple(ts), J::Arr(v)) if ts.len() == v.len() => {
                Canon::Seq(ts.iter().zip(v).map(|(t, x)| self.canon(t, x)).collect())
            }
            (Ty::Set(e), J::Arr(v)) => {
                let mut c: Vec<Canon> = v.iter().map(|x| self.canon(e, x)).collect();
                c.sort();
                Canon::Set(c)
            }
            (Ty::Map(e), J::Obj(m)) => Canon::Obj(
                m.iter()
                    .map(|(k, v)| (k.clone(), self.canon(e, v)))
                    .collect(),
            ),
            (Ty::Object(attrs, _), J::Obj(m)) => Canon::Obj(
                m.iter()
                    .map(|(k, v)| {
                        let c = match attrs.get(k) {
                            Some(t) => self.canon(t, v),
                            None => self.canon_generic(v),
                        };
                        (k.clone(), c)
                    })
                    .collect(),
            ),
            _ => raw(),
        }
    }

    fn fallback<'j>(&self, a: &'j J, b: &'j J, path: String, why: &str) -> R<'j> {
        if !self.generic_equal(a, b) {
            bail!(path, Some(a), Some(b), "{why}");
        }
        Ok(())
    }

    fn cmp<'j>(&self, ty: &Ty, a: &'j J, b: &'j J, path: String) -> R<'j> {
        let (sa, sb) = (Some(a), Some(b));
        if *a == J::Null || *b == J::Null {
            if a != b {
                bail!(path, sa, sb, "null vs non-null");
            }
            return Ok(());
        }
        if is_unknown(a) || is_unknown(b) {
            if !(is_unknown(a) && is_unknown(b)) {
                bail!(path, sa, sb, "unknown vs known");
            }
            let refined = self.generic_equal(unknown_body(a), unknown_body(b));
            if !self.opts.ignore_refinements && !refined {
                bail!(path, sa, sb, "different unknown refinements");
            }
            return Ok(());
        }
        let is_num = |x: &J| matches!(x, J::Num(_));
        match (ty, a, b) {
            (Ty::Dynamic, _, _) => {
                let (Some((ta, va)), Some((tb, vb))) = (dyn_wrapper(a), dyn_wrapper(b)) else {
                    let side = if dyn_wrapper(a).is_none() { "A" } else { "B" };
                    bail!(
                        path,
                        sa,
                        sb,
                        "{side} is not a {{\"type\",\"value\"}} dynamic wrapper"
                    );
                };
                let (pa, pb) = match (parse_type(ta), parse_type(tb)) {
                    (Ok(pa), Ok(pb)) => (pa, pb),
                    (Err(e), _) | (_, Err(e)) => {
                        bail!(path, Some(ta), Some(tb), "invalid dynamic type: {e}")
                    }
                };
                if pa != pb {
                    let (x, y) = (type_text(&pa), type_text(&pb));
                    bail!(
                        path,
                        Some(ta),
                        Some(tb),
                        "different dynamic types {x} vs {y}"
                    );
                }
                self.cmp(&pa, va, vb, path)
            }
            (Ty::Prim("string"), J::Str(x), J::Str(y)) if x != y => {
                bail!(path, sa, sb, "different strings")
            }
            (Ty::Prim("string"), J::Str(_), J::Str(_)) => Ok(()),
            (Ty::Prim("string"), _, _) => self.fallback(a, b, path, "string expected"),
            (Ty::Prim("bool"), J::Bool(x), J::Bool(y)) if x != y => {
                bail!(path, sa, sb, "different bools")
            }
            (Ty::Prim("bool"), J::Bool(_), J::Bool(_)) => Ok(()),
            (Ty::Prim("bool"), _, _) => self.fallback(a, b, path, "bool expected"),
            (Ty::Prim(_), J::Num(x), J::Num(y)) if !self.num_equal(x, y) => {
                bail!(path, sa, sb, "different numbers")
            }
            (Ty::Prim(_), J::Num(_), J::Num(_)) => Ok(()),
            (Ty::Prim(_), _, _) if (is_num(a) || is_inf(a)) && (is_num(b) || is_inf(b)) => {
                if a != b {
                    bail!(path, sa, sb, "different numbers");
                }
                Ok(())
            }
            (Ty::Prim(_), _, _) => self.fallback(a, b, path, "number expected"),
            (Ty::Set(e), J::Arr(xa), J::Arr(xb)) => self.cmp_set(e, xa, xb, path),
            (Ty::List(_) | Ty::Tuple(_), J::Arr(xa), J::Arr(xb)) => {
                if xa.len() != xb.len() {
                    bail!(
                        path,
                        sa,
                        sb,
                        "different lengths {} vs {}",
                        xa.len(),
                        xb.len()
                    );
                }
                for (i, (x, y)) in xa.iter().zip(xb).enumerate() {
                    let p = format!("{path}[{i}]");
                    match ty {
                        Ty::List(e) => self.cmp(e, x, y, p)?,
                        Ty::Tuple(ts) if i < ts.len() => self.cmp(&ts[i], x, y, p)?,
                        _ if !self.generic_equal(x, y) => {
                            bail!(
                                p,
                                Some(x),
                                Some(y),
                                "different (element beyond the tuple type)"
                            )
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            (Ty::List(_) | Ty::Tuple(_) | Ty::Set(_), _, _) => {
                let k = match ty {
                    Ty::List(_) => "list",
                    Ty::Set(_) => "set",
                    _ => "tuple",
                };
                self.fallback(a, b, path, &format!("array expected for {k}"))
            }
            (Ty::Map(_) | Ty::Object(..), J::Obj(ma), J::Obj(mb)) => {
                let is_obj = matches!(ty, Ty::Object(..));
                let step = if is_obj { attr_step } else { key_step };
                let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let (x, y) = (ma.get(k), mb.get(k));
                    if x.is_none() || y.is_none() {
                        let what = if is_obj { "attribute" } else { "key" };
                        let side = if x.is_none() { "B" } else { "A" };
                        bail!(format!("{path}{}", step(k)), x, y, "{what} only in {side}");
                    }
                }
                for (k, x) in ma {
                    let (y, p) = (&mb[k], format!("{path}{}", step(k)));
                    match ty {
                        Ty::Map(e) => self.cmp(e, x, y, p)?,
                        Ty::Object(attrs, _) => match attrs.get(k) {
                            Some(t) => self.cmp(t, x, y, p)?,
                            None if !self.generic_equal(x, y) => {
                                bail!(p, Some(x), Some(y), "different (attribute not in the type)")
                            }
                            None => {}
                        },
                        _ => unreachable!(),
                    }
                }
                Ok(())
            }
            (Ty::Map(_), _, _) => self.fallback(a, b, path, "JSON object expected for map"),
            (Ty::Object(..), _, _) => self.fallback(a, b, path, "JSON object expected for object"),
        }
    }

    fn cmp_set<'j>(&self, ety: &Ty, a: &'j [J], b: &'j [J], path: String) -> R<'j> {
        let ca: Vec<Canon> = a.iter().map(|x| self.canon(ety, x)).collect();
        let cb: Vec<Canon> = b.iter().map(|x| self.canon(ety, x)).collect();
        let (na, nb) = (multiset(&ca), multiset(&cb));
        if na == nb {
            return Ok(());
        }
        // B's first element that A lacks (shown beside A's unmatched element).
        let b_extra = cb
            .iter()
            .position(|d| nb[d] > na.get(d).copied().unwrap_or(0));
        let other = b_extra.map(|j| &b[j]);
        let sizes = format!("(sets have {} vs {} elements)", a.len(), b.len());
        let mut remaining = nb.clone();
        for (i, c) in ca.iter().enumerate() {
            match remaining.get_mut(c) {
                Some(n) if *n > 0 => *n -= 1,
                _ => bail!(
                    format!("{path}[#{i}]"),
                    Some(&a[i]),
                    other,
                    "set element of A not in B {sizes}"
                ),
            }
        }
        let j = b_extra.expect("the multisets differ");
        bail!(
            format!("{path}[#{j}]"),
            None,
            other,
            "set element of B not in A {sizes}"
        )
    }
}

fn multiset(c: &[Canon]) -> BTreeMap<&Canon, usize> {
    let mut m = BTreeMap::new();
    for x in c {
        *m.entry(x).or_default() += 1;
    }
    m
}
