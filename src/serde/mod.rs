//! serde interop: decoded values out through any serde `Serializer`, and into any type that
//! implements `Deserialize`.
//!
//! - `ser.rs` owns the serializing side: `impl Serialize for Typed`, [`SerializeOptions`]
//!   (what an unknown value or an infinity becomes) and [`Serializable`] (a value with its
//!   options).
//! - `de.rs` owns the deserializing side: [`from_typed`], [`TypedDeserializer`] and its error
//!   [`DeError`] (with the value path); `access.rs` the serde access types over a value's
//!   parts; `maybe_unknown.rs` the [`MaybeUnknown`] wrapper that receives unknowns.
//! - This file holds what both share: how a value's number is presented to serde, go-cty's
//!   view of a map (keys sorted bytewise, the last of a repeated key kept), object attribute
//!   names, the nesting cap, and the value path in Terraform's notation.
//!
//! Both sides present a value the same way (the rules are on `impl Serialize for Typed`,
//! in `ser.rs`), so `from_typed::<serde_json::Value>(t)` equals `serde_json::to_value(t)` for
//! every value that serializes.

mod access;
mod de;
mod maybe_unknown;
mod ser;

use std::borrow::Cow;

pub use de::{from_typed, DeError, TypedDeserializer};
pub use maybe_unknown::MaybeUnknown;
pub use ser::{InfinityAs, Serializable, SerializeOptions, UnknownAs};

pub(crate) use crate::limits::MAX_VALUE_DEPTH;
use crate::number::{normalize_decimal, Number};
use crate::path::Step;
use crate::program::Program;
use crate::value::{Object, Value};

/// The message of the nesting-cap error.
fn too_deep() -> String {
    format!("nested more than {MAX_VALUE_DEPTH} levels deep")
}

/// The path of the value being walked, as a chain of steps on the stack (root: `None`).
#[derive(Clone, Copy, Debug)]
struct Link<'p> {
    step: Step<'p>,
    parent: Option<&'p Link<'p>>,
}

/// Renders the path ending at `link`; `(root)` at the root.
fn render_path(link: Option<&Link<'_>>) -> String {
    let mut steps = Vec::new();
    let mut at = link;
    while let Some(l) = at {
        steps.push(l.step);
        at = l.parent;
    }
    if steps.is_empty() {
        return "(root)".to_string();
    }
    crate::path::render(steps.into_iter().rev())
}

/// How a number is presented to serde (see the module docs).
#[derive(Clone, Debug, PartialEq)]
enum Num<'a> {
    I64(i64),
    U64(u64),
    F64(f64),
    /// ±Inf.
    Infinite(f64),
    /// The exact value as decimal text: no `i64`, `u64` or `f64` is that number.
    Text(Cow<'a, str>),
}

impl<'a> Num<'a> {
    fn of(n: Number<'a>) -> Num<'a> {
        match n {
            Number::Int(i) => return Num::I64(i),
            Number::UInt(u) => {
                return i64::try_from(u).map_or(Num::U64(u), Num::I64);
            }
            Number::Float(f) if f.is_infinite() => return Num::Infinite(f),
            Number::Float(_) | Number::Decimal(_) => {}
        }
        if let Integer::Value(negative, magnitude) = Integer::of(&n) {
            if let Some(i) = signed(negative, magnitude).and_then(|i| i64::try_from(i).ok()) {
                return Num::I64(i);
            }
            if let (false, Ok(u)) = (negative, u64::try_from(magnitude)) {
                return Num::U64(u);
            }
        }
        match n {
            Number::Float(f) => Num::F64(f),
            Number::Decimal(_) if n.is_infinite() => Num::Infinite(n.as_f64()),
            Number::Decimal(text) => {
                let f = n.as_f64();
                if is_f64_text(text, f) {
                    Num::F64(f)
                } else {
                    Num::Text(normalize_decimal(text))
                }
            }
            Number::Int(i) => Num::I64(i),
            Number::UInt(u) => Num::U64(u),
        }
    }
}

/// A number for an error message: its text, cut short when long (the input may hold a
/// megabyte of digits).
fn shown(n: &Number<'_>) -> String {
    let text = n.to_string();
    match text.get(..40) {
        Some(head) if text.len() > 48 => format!("{head}… ({} characters)", text.len()),
        _ => text,
    }
}

/// `magnitude` with a sign, when an `i128` holds it.
fn signed(negative: bool, magnitude: u128) -> Option<i128> {
    if negative {
        0i128.checked_sub_unsigned(magnitude)
    } else {
        i128::try_from(magnitude).ok()
    }
}

/// A number judged as an integer, exactly (never through a rounded `f64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Integer {
    /// An integer: negative?, magnitude.
    Value(bool, u128),
    /// An integer of more than 128 bits, or ±Inf.
    TooBig,
    /// Not an integer.
    Fraction,
}

/// 2¹²⁸ as an `f64` (exact).
const TWO_POW_128: f64 = 340_282_366_920_938_463_463_374_607_431_768_211_456.0;

impl Integer {
    fn of(n: &Number<'_>) -> Integer {
        match *n {
            Number::Int(i) => Integer::Value(i < 0, u128::from(i.unsigned_abs())),
            Number::UInt(u) => Integer::Value(false, u128::from(u)),
            Number::Float(f) if f.is_infinite() => Integer::TooBig,
            Number::Float(f) if f.fract() != 0.0 => Integer::Fraction,
            // An integral f64 below 2^128 converts exactly.
            Number::Float(f) if f.abs() < TWO_POW_128 => Integer::Value(f < 0.0, f.abs() as u128),
            Number::Float(_) => Integer::TooBig,
            Number::Decimal(text) => decimal_integer(text),
        }
    }
}

/// Validated decimal text, parsed: `±0.DIGITS × 10^point`.
#[derive(Debug, PartialEq)]
enum Decimal {
    /// A finite number; `digits` has no leading or trailing zeros (and is empty for zero).
    Finite {
        negative: bool,
        digits: String,
        point: i64,
    },
    /// ±Inf.
    Infinite,
    /// A nonzero number whose decimal exponent does not fit an `i64` (`1e99999999999999999999`):
    /// far too large, or (`tiny`) far too small to be whole.
    Extreme { tiny: bool },
}

impl Decimal {
    fn parse(text: &str) -> Decimal {
        // Plain `[-]int[.frac][e[+-]exp]` (a `p` exponent is expanded; Inf is `±Inf`).
        let norm = normalize_decimal(text);
        if norm.ends_with("Inf") {
            return Decimal::Infinite;
        }
        let (negative, body) = match norm.strip_prefix('-') {
            Some(body) => (true, body),
            None => (false, norm.strip_prefix('+').unwrap_or(&norm)),
        };
        let (mantissa, exp) = body.split_once(['e', 'E']).unwrap_or((body, "0"));
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all: String = int.chars().chain(frac.chars()).collect();
        let significant = all.trim_start_matches('0');
        let leading = all.len().saturating_sub(significant.len());
        let digits = significant.trim_end_matches('0').to_string();
        if digits.is_empty() {
            let zero = String::new();
            return Decimal::Finite {
                negative: false,
                digits: zero,
                point: 0,
            };
        }
        let Ok(exp) = exp.parse::<i64>() else {
            return Decimal::Extreme {
                tiny: exp.starts_with('-'),
            };
        };
        let point = (int.len() as i64)
            .saturating_sub(leading as i64)
            .saturating_add(exp);
        Decimal::Finite {
            negative,
            digits,
            point,
        }
    }
}

/// [`Integer::of`] for validated decimal text.
fn decimal_integer(text: &str) -> Integer {
    let (negative, digits, point) = match Decimal::parse(text) {
        Decimal::Finite {
            negative,
            digits,
            point,
        } => (negative, digits, point),
        Decimal::Infinite | Decimal::Extreme { tiny: false } => return Integer::TooBig,
        Decimal::Extreme { tiny: true } => return Integer::Fraction,
    };
    if digits.is_empty() {
        return Integer::Value(false, 0);
    }
    let sig_len = digits.len() as i64;
    if point < sig_len {
        return Integer::Fraction;
    }
    // u128::MAX has 39 digits.
    if point > 39 {
        return Integer::TooBig;
    }
    let zeros = u32::try_from(point.saturating_sub(sig_len)).unwrap_or(u32::MAX);
    let magnitude = digits
        .parse::<u128>()
        .ok()
        .and_then(|m| 10u128.checked_pow(zeros).and_then(|p| m.checked_mul(p)));
    match magnitude {
        Some(m) => Integer::Value(negative, m),
        None => Integer::TooBig,
    }
}

/// Most significant digits of decimal text that may be an `f64`'s (17 always suffice).
const F64_DIGITS: usize = 17;

/// True when decimal `text` is the finite, nonzero `f64` `f` (its nearest): its exact value, or
/// it written to at most 17 significant digits, correctly rounded (at an exact tie, either
/// neighbour): `10673046979514.5625` (exact), `0.1`, `2.675`, `10673046979514.562` (a tie
/// that Rust prints `…563`), `4.940656458412465e-324` (go-cty's JSON for the smallest
/// subnormal, which Rust prints `5e-324`). Not `3e-324` (also nearest to that subnormal, but
/// not it rounded), `0.10000000000000000000001` or `1e-400`.
fn is_f64_text(text: &str, f: f64) -> bool {
    if !f.is_finite() || f == 0.0 {
        return false;
    }
    let Decimal::Finite { digits, point, .. } = Decimal::parse(text) else {
        return false;
    };
    let k = digits.len();
    if k == 0 {
        return false;
    }
    // The common case first: the text is f's shortest form (Rust's `{:e}`, `D.DDDe±X`).
    let shortest = format!("{:e}", f.abs());
    let (all, exp) = shortest.split_once('e').unwrap_or((&shortest, ""));
    let all: String = all.chars().filter(|c| *c != '.').collect();
    if all == digits && exp.parse::<i64>().ok().map(|e| e.saturating_add(1)) == Some(point) {
        return true;
    }
    // f exactly, as `D.DDD…e±X`: 800 fraction digits hold every f64 (at most 767
    // significant digits).
    let exact = format!("{:.800e}", f.abs());
    let Some((mantissa, exp)) = exact.split_once('e') else {
        return false;
    };
    let Ok(exp) = exp.parse::<i64>() else {
        return false;
    };
    let all: String = mantissa.chars().filter(|c| *c != '.').collect();
    let (Some(head), Some(rest)) = (all.get(..k), all.get(k..)) else {
        return false;
    };
    let f_point = exp.saturating_add(1);
    if k > F64_DIGITS {
        // Only f's exact value.
        return all.trim_end_matches('0') == digits && f_point == point;
    }
    // The remainder against one half of the last kept digit.
    let (down, up) = match rest.as_bytes().first() {
        Some(b'5') if rest.bytes().skip(1).all(|b| b == b'0') => (true, true),
        Some(b'5'..=b'9') => (false, true),
        _ => (true, false),
    };
    let same = |d: &str, p: i64| d.trim_end_matches('0') == digits && p == point;
    if down && same(head, f_point) {
        return true;
    }
    if up {
        // `head` plus one in its last place (all nines carry into one more digit).
        let mut bumped: Vec<u8> = head.bytes().collect();
        let mut carry = true;
        for d in bumped.iter_mut().rev() {
            if !carry {
                break;
            }
            if *d == b'9' {
                *d = b'0';
            } else {
                *d = d.saturating_add(1);
                carry = false;
            }
        }
        let (bumped, p) = match carry {
            true => (
                format!("1{}", String::from_utf8_lossy(&bumped)),
                f_point.saturating_add(1),
            ),
            false => (String::from_utf8_lossy(&bumped).into_owned(), f_point),
        };
        return same(&bumped, p);
    }
    false
}

/// A map's entries as go-cty holds the map: keys sorted bytewise, a repeated key once with
/// its last value. Borrowed when the entries already are so.
fn map_entries<'a>(entries: &'a [(&'a str, Value<'a>)]) -> Cow<'a, [(&'a str, Value<'a>)]> {
    let sorted = entries
        .windows(2)
        .all(|w| matches!(w, [(a, _), (b, _)] if a.as_bytes() < b.as_bytes()));
    if sorted {
        return Cow::Borrowed(entries);
    }
    let mut all: Vec<(&'a str, Value<'a>)> = entries.to_vec();
    // Stable: entries with one key stay in wire order, so the last of a run is the last seen.
    all.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out: Vec<(&'a str, Value<'a>)> = Vec::with_capacity(all.len());
    for entry in all {
        match out.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => out.push(entry),
        }
    }
    Cow::Owned(out)
}

/// The attribute names of an object value of `program`, or a message when the object's op
/// does not name as many attributes as it holds (a value built by hand for another program).
fn attr_names<'a>(program: &'a Program, object: &Object<'a>) -> Result<&'a [Box<str>], String> {
    let names = program.attr_names(object.op());
    if names.len() == object.attrs().len() {
        Ok(names)
    } else {
        Err(format!(
            "an object of {} attributes whose op {} names {}",
            object.attrs().len(),
            object.op(),
            names.len()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let cases = [
            (Number::Int(-5), Num::I64(-5)),
            (Number::UInt(5), Num::I64(5)),
            (Number::UInt(u64::MAX), Num::U64(u64::MAX)),
            (Number::Float(3.0), Num::I64(3)),
            (Number::Float(-0.0), Num::I64(0)),
            (Number::Float(1e19), Num::U64(10_000_000_000_000_000_000)),
            (Number::Float(1e20), Num::F64(1e20)),
            (Number::Float(0.1), Num::F64(0.1)),
            (
                Number::Float(f64::NEG_INFINITY),
                Num::Infinite(f64::NEG_INFINITY),
            ),
            (Number::Decimal("+5"), Num::I64(5)),
            (Number::Decimal("1.5e1"), Num::I64(15)),
            (Number::Decimal("1p4"), Num::I64(16)),
            (Number::Decimal("-9223372036854775808"), Num::I64(i64::MIN)),
            (Number::Decimal("18446744073709551615"), Num::U64(u64::MAX)),
            (Number::Decimal("0.1"), Num::F64(0.1)),
            (Number::Decimal("1.50"), Num::F64(1.5)),
            (Number::Decimal("1e300"), Num::F64(1e300)),
            (Number::Decimal("-inf"), Num::Infinite(f64::NEG_INFINITY)),
            (Number::Decimal("1e400"), Num::Text("1e400".into())),
            (
                Number::Decimal("10673046979514.562"),
                Num::F64(10673046979514.562),
            ),
            (
                Number::Decimal("10673046979514.563"),
                Num::F64(10673046979514.562),
            ),
            (
                Number::Decimal("10673046979514.5625"),
                Num::F64(10673046979514.562),
            ),
            (
                Number::Decimal("10673046979514.56251"),
                Num::Text("10673046979514.56251".into()),
            ),
            (Number::Decimal("4.940656458412465e-324"), Num::F64(5e-324)),
            (Number::Decimal("3e-324"), Num::Text("3e-324".into())),
            (Number::Decimal("0.10000000000000001"), Num::F64(0.1)),
            (
                Number::Decimal("0.12345678901234567"),
                Num::Text("0.12345678901234567".into()),
            ),
            (Number::Decimal("9.9999999999999992e22"), Num::F64(1e23)),
            (Number::Decimal("1e23"), Num::F64(1e23)),
            (
                Number::Decimal("9.9999999999999999e22"),
                Num::Text("9.9999999999999999e22".into()),
            ),
            (Number::Decimal("-2.675"), Num::F64(-2.675)),
            (Number::Decimal("1e-400"), Num::Text("1e-400".into())),
            (
                Number::Decimal(".10000000000000000000001"),
                Num::Text("0.10000000000000000000001".into()),
            ),
            (
                Number::Decimal("123456789012345678901234567891"),
                Num::Text("123456789012345678901234567891".into()),
            ),
        ];
        for (n, want) in cases {
            assert_eq!(Num::of(n), want, "{n:?}");
        }
    }

    #[test]
    fn integers() {
        let cases = [
            ("0", Integer::Value(false, 0)),
            ("-0.000", Integer::Value(false, 0)),
            ("0e99999999999999999999", Integer::Value(false, 0)),
            ("-12", Integer::Value(true, 12)),
            ("1.5", Integer::Fraction),
            ("1.00000000000000000001", Integer::Fraction),
            ("1e-99999999999999999999", Integer::Fraction),
            ("1e99999999999999999999", Integer::TooBig),
            ("120e-1", Integer::Value(false, 12)),
            ("0.012e3", Integer::Value(false, 12)),
            ("1e38", Integer::Value(false, 10u128.pow(38))),
            (
                "340282366920938463463374607431768211455",
                Integer::Value(false, u128::MAX),
            ),
            ("340282366920938463463374607431768211456", Integer::TooBig),
            ("1e39", Integer::TooBig),
            ("Inf", Integer::TooBig),
            ("3p-1", Integer::Fraction),
            ("3p1", Integer::Value(false, 6)),
        ];
        for (text, want) in cases {
            assert_eq!(decimal_integer(text), want, "{text}");
        }
        assert_eq!(
            Integer::of(&Number::Float(1e38)),
            Integer::Value(false, 1e38 as u128)
        );
        assert_eq!(Integer::of(&Number::Float(-1e39)), Integer::TooBig);
        assert_eq!(signed(true, 1 << 127), Some(i128::MIN));
        let long = "7".repeat(1000);
        assert_eq!(
            shown(&Number::Decimal(&long)),
            format!("{}… (1000 characters)", &long[..40])
        );
        assert_eq!(shown(&Number::Float(0.5)), "0.5");
        assert_eq!(signed(true, (1 << 127) + 1), None);
    }

    #[test]
    fn maps_in_go_cty_order() {
        let e = [
            ("b", Value::Int(1)),
            ("a", Value::Int(2)),
            ("b", Value::Int(3)),
        ];
        assert_eq!(
            &*map_entries(&e),
            &[("a", Value::Int(2)), ("b", Value::Int(3))]
        );
        let sorted = [("a", Value::Null), ("b", Value::Null)];
        assert!(matches!(map_entries(&sorted), Cow::Borrowed(_)));
    }

    #[test]
    fn paths() {
        let a = Link {
            step: Step::Attr("ingress"),
            parent: None,
        };
        let b = Link {
            step: Step::Index(2),
            parent: Some(&a),
        };
        let c = Link {
            step: Step::Key("a\"b"),
            parent: Some(&b),
        };
        let d = Link {
            step: Step::Attr("not ident"),
            parent: Some(&c),
        };
        assert_eq!(render_path(Some(&d)), r#".ingress[2]["a\"b"]["not ident"]"#);
        assert_eq!(render_path(None), "(root)");
    }
}
