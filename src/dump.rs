//! The DUMP: a canonical JSON rendering of a decoded value under its type, the contract of
//! the CLI and of the conformance suite (DESIGN.md §5).
//!
//! - null → `null`; unknown → `{"$unknown":{…}}` with the refinements present (`null`,
//!   `prefix`, `lower`/`upper` as `[number, inclusive]`, `len_min`/`len_max`);
//! - bool, string → JSON; number → a JSON number literal of its exact value (±Inf as the
//!   strings `"+Inf"`/`"-Inf"`);
//! - list, set, tuple → array; map, object → object with sorted keys (a map's repeated key
//!   shows its last value);
//! - a known value at a dynamic position → `{"type": <type JSON>, "value": <DUMP>}`.
//!
//! ```
//! use bumpalo::Bump;
//! use tfwire::{dump, Program};
//!
//! let program = Program::from_type_json(r#"["object",{"a":"number","b":["list","string"]}]"#).unwrap();
//! let bump = Bump::new();
//! let input = [0x82, 0xa1, b'a', 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xa1, b'b', 0x91, 0xa1, b'x'];
//! let value = program.decode_msgpack(&input, &bump).unwrap();
//! assert_eq!(dump::to_string(&program, value), r#"{"a":1.5,"b":["x"]}"#);
//! ```

use std::fmt::Write;

use crate::number::Number;
use crate::program::Program;
use crate::value::{Refinements, Value};

/// Renders the DUMP of `value`, which `program` decoded.
pub fn to_string(program: &Program, value: Value<'_>) -> String {
    let mut out = String::new();
    write(&mut out, program, value);
    out
}

/// Appends the DUMP of `value` to `out`.
pub fn write(out: &mut String, program: &Program, value: Value<'_>) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Unknown(r) => unknown(out, r),
        Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => {
            if let Some(n) = value.as_number() {
                number(out, n)
            }
        }
        Value::String(s) => string(out, s),
        Value::List(e) | Value::Set(e) | Value::Tuple(e) => {
            out.push('[');
            for (i, v) in e.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, program, *v);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let mut sorted: Vec<(&str, Value<'_>)> = Vec::with_capacity(entries.len());
            // Last of repeated keys wins: a stable sort keeps wire order among equal keys.
            sorted.extend(entries.iter().copied());
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            let mut first = true;
            for (i, (k, v)) in sorted.iter().enumerate() {
                if sorted.get(i + 1).is_some_and(|next| next.0 == *k) {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                string(out, k);
                out.push(':');
                write(out, program, *v);
            }
            out.push('}');
        }
        Value::Object(object) => {
            out.push('{');
            let (names, entries) = program.attr_names_and_entries(object.op());
            let keys = names.iter().zip(entries.iter().map(|e| e.json_key()));
            for (i, ((name, key), v)) in keys.zip(object.attrs()).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                // The name quoted with its colon, made when the program was compiled.
                match key {
                    Some(key) => out.push_str(key),
                    None => {
                        string(out, name);
                        out.push(':');
                    }
                }
                write(out, program, *v);
            }
            out.push('}');
        }
        // A typed null or unknown shows bare.
        Value::Dynamic(d) if matches!(d.value, Value::Null | Value::Unknown(_)) => {
            write(out, d.program, d.value)
        }
        Value::Dynamic(d) => {
            let _ = write!(out, "{{\"type\":{},\"value\":", d.program.root_type());
            write(out, d.program, d.value);
            out.push('}');
        }
    }
}

fn number(out: &mut String, n: Number<'_>) {
    match n {
        Number::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Number::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        Number::Decimal(text) if !text.ends_with("Inf") && !text.ends_with("inf") => {
            out.push_str(&crate::number::normalize_decimal(text))
        }
        _ => {
            let text = n.to_decimal_string();
            if text.ends_with("Inf") {
                out.push('"');
                out.push_str(&text);
                out.push('"');
            } else {
                out.push_str(&text);
            }
        }
    }
}

/// Appends `s` as a JSON string, escaped as the DUMP escapes strings (serde_json's rules:
/// `"`, `\\` and control characters only; the encoders follow Go's rules instead).
///
/// ```
/// let mut out = String::new();
/// tfwire::dump::write_string(&mut out, "a \"b\"\n<c>");
/// assert_eq!(out, r#""a \"b\"\n<c>""#);
/// ```
pub fn write_string(out: &mut String, s: &str) {
    string(out, s)
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    if needs_escape(s.as_bytes()) {
        escape_into(out, s);
    } else {
        out.push_str(s);
    }
    out.push('"');
}

/// True if `bytes` holds a `"`, a `\\` or a control byte (32 bytes at a time, a loop the
/// compiler vectorizes).
#[inline]
fn needs_escape(bytes: &[u8]) -> bool {
    let special = |b: &u8| (*b < 0x20) | (*b == b'"') | (*b == b'\\');
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |acc, b| acc | special(b)) {
            return true;
        }
    }
    chunks.remainder().iter().any(special)
}

/// The body of `s` escaped as serde_json escapes it.
#[cold]
fn escape_into(out: &mut String, s: &str) {
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(s.get(plain..i).unwrap_or_default());
        if escaped.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escaped);
        }
        plain = i + 1;
    }
    out.push_str(s.get(plain..).unwrap_or_default());
}

fn unknown(out: &mut String, r: Option<&Refinements<'_>>) {
    out.push_str("{\"$unknown\":{");
    if let Some(r) = r {
        let mut parts: Vec<String> = Vec::new();
        if let Some(n) = r.nullness {
            parts.push(format!("\"null\":{n}"));
        }
        if let Some(p) = r.string_prefix {
            let mut s = String::from("\"prefix\":");
            string(&mut s, p);
            parts.push(s);
        }
        for (name, bound) in [("lower", r.number_lower), ("upper", r.number_upper)] {
            if let Some((n, inclusive)) = bound {
                let mut s = format!("\"{name}\":[");
                number(&mut s, n);
                let _ = write!(s, ",{inclusive}]");
                parts.push(s);
            }
        }
        if let Some(n) = r.length_lower {
            parts.push(format!("\"len_min\":{n}"));
        }
        if let Some(n) = r.length_upper {
            parts.push(format!("\"len_max\":{n}"));
        }
        out.push_str(&parts.join(","));
    }
    out.push_str("}}");
}
