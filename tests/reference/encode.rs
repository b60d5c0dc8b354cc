//! Test encoders: a wire plan ([`RV`], see `gen`) under its type, as MessagePack or JSON,
//! each choice of encoding read from a [`Source`] so that every form the decoders accept
//! gets used: int widths, float32, decimal text, str/bin, fix/16/32 headers, shuffled keys,
//! ext forms and codes, refinement maps in any key order with unknown keys; in JSON, escapes,
//! whitespace, omitted null attributes, either wrapper order, and go-cty's coercions.

use tfwire::Type;

use super::gen::{pick, Source};
use super::{num, RNum, RRef, RV};

// ------------------------------------------------------------------ MessagePack

pub fn msgpack(s: &mut dyn Source, t: &Type, v: &RV) -> Vec<u8> {
    let mut out = Vec::new();
    mp_value(s, t, v, &mut out);
    out
}

fn mp_header(s: &mut dyn Source, n: usize, fix: (u8, usize), m16: u8, m32: u8, out: &mut Vec<u8>) {
    let c = s.below(8);
    if n < fix.1 && c < 6 {
        out.push(fix.0 | n as u8);
    } else if n <= 0xffff && c < 7 {
        out.push(m16);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        out.push(m32);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

fn mp_array(s: &mut dyn Source, n: usize, out: &mut Vec<u8>) {
    mp_header(s, n, (0x90, 16), 0xdc, 0xdd, out);
}

fn mp_map(s: &mut dyn Source, n: usize, out: &mut Vec<u8>) {
    mp_header(s, n, (0x80, 16), 0xde, 0xdf, out);
}

/// A str or bin of any width that fits.
pub fn mp_str(s: &mut dyn Source, b: &[u8], out: &mut Vec<u8>) {
    let n = b.len();
    {
        match s.below(7) {
            0 if n < 32 => out.push(0xa0 | n as u8),
            1 if n <= 0xff => out.extend([0xd9, n as u8]),
            2 if n <= 0xff => out.extend([0xc4, n as u8]),
            3 if n <= 0xffff => out.extend([0xda, (n >> 8) as u8, n as u8]),
            4 if n <= 0xffff => out.extend([0xc5, (n >> 8) as u8, n as u8]),
            5 => {
                out.push(0xdb);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
            6 => {
                out.push(0xc6);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
            _ => {
                // The shortest form, as go-cty writes it.
                if n < 32 {
                    out.push(0xa0 | n as u8);
                } else {
                    mp_str_fixed(n, out);
                }
            }
        }
    }
    out.extend_from_slice(b);
}

fn mp_str_fixed(n: usize, out: &mut Vec<u8>) {
    if n <= 0xff {
        out.extend([0xd9, n as u8]);
    } else if n <= 0xffff {
        out.extend([0xda, (n >> 8) as u8, n as u8]);
    } else {
        out.push(0xdb);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

/// An integer in any marker that holds it.
fn mp_int(s: &mut dyn Source, v: i128, out: &mut Vec<u8>) {
    let mut forms: Vec<(u8, usize)> = Vec::new();
    if (0..=127).contains(&v) || (-32..0).contains(&v) {
        forms.push((0, 0));
    }
    for (m, w) in [(0xcc, 1), (0xcd, 2), (0xce, 4), (0xcf, 8)] {
        if v >= 0 && v < 1i128 << (8 * w) {
            forms.push((m, w));
        }
    }
    for (m, w) in [(0xd0, 1), (0xd1, 2), (0xd2, 4), (0xd3, 8)] {
        let half = 1i128 << (8 * w - 1);
        if (-half..half).contains(&v) {
            forms.push((m, w));
        }
    }
    let (m, w) = *pick(s, &forms);
    if w == 0 {
        out.push(v as i8 as u8);
    } else {
        out.push(m);
        out.extend_from_slice(&(v as u64).to_be_bytes()[8 - w..]);
    }
}

fn mp_number(s: &mut dyn Source, n: &RNum, out: &mut Vec<u8>) {
    match n {
        RNum::Int(i) if s.below(6) > 0 => mp_int(s, *i as i128, out),
        RNum::UInt(u) if s.below(6) > 0 => mp_int(s, *u as i128, out),
        RNum::Int(_) | RNum::UInt(_) => mp_str(s, n.dump_text().as_bytes(), out),
        RNum::Float(f) => {
            let c = s.below(4);
            if c == 0 && (*f as f32) as f64 == *f {
                out.push(0xca);
                out.extend_from_slice(&(*f as f32).to_bits().to_be_bytes());
            } else if c == 1 && f.is_infinite() {
                mp_str(s, if *f > 0.0 { b"+Inf" } else { b"-inf" }, out);
            } else if c == 1 && num::f64_exact_text(*f).len() <= 64 {
                mp_str(s, num::f64_exact_text(*f).as_bytes(), out);
            } else {
                out.push(0xcb);
                out.extend_from_slice(&f.to_bits().to_be_bytes());
            }
        }
        RNum::Dec(t) => mp_str(s, t.as_bytes(), out),
    }
}

fn mp_value(s: &mut dyn Source, t: &Type, v: &RV, out: &mut Vec<u8>) {
    match (t, v) {
        (_, RV::Null) => out.push(0xc0),
        (_, RV::Unknown(r)) => mp_unknown(s, t, r.as_ref(), out),
        (_, RV::Bool(b)) => out.push(if *b { 0xc3 } else { 0xc2 }),
        (_, RV::Num(n)) => mp_number(s, n, out),
        (_, RV::Str(x)) => mp_str(s, x.as_bytes(), out),
        (Type::List(e) | Type::Set(e), RV::List(items) | RV::Set(items)) => {
            mp_array(s, items.len(), out);
            items.iter().for_each(|x| mp_value(s, e, x, out));
        }
        (Type::Tuple(ts), RV::Tuple(items)) => {
            mp_array(s, items.len(), out);
            ts.iter()
                .zip(items)
                .for_each(|(e, x)| mp_value(s, e, x, out));
        }
        (Type::Map(e), RV::Map(entries)) => {
            mp_map(s, entries.len(), out);
            for (k, x) in entries {
                mp_str(s, k.as_bytes(), out);
                mp_value(s, e, x, out);
            }
        }
        (Type::Object(o), RV::Object(attrs)) => {
            mp_map(s, attrs.len(), out);
            for i in order(s, attrs.len()) {
                mp_str(s, attrs[i].0.as_bytes(), out);
                mp_value(s, &o.attrs()[i].1, &attrs[i].1, out);
            }
        }
        (Type::Dynamic, RV::Dynamic(ty, x)) => {
            mp_array(s, 2, out);
            mp_str(s, ty.to_string().as_bytes(), out);
            mp_value(s, ty, x, out);
        }
        _ => panic!("value {v:?} does not fit type {t}"),
    }
}

/// Indices `0..n`, in order (as go-cty writes keys) or shuffled.
fn order(s: &mut dyn Source, n: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    if s.chance(64) {
        for i in (1..n).rev() {
            idx.swap(i, s.below(i + 1));
        }
    }
    idx
}

fn mp_ext(s: &mut dyn Source, code: u8, payload: &[u8], out: &mut Vec<u8>) {
    let n = payload.len();
    let fix = [1, 2, 4, 8, 16].iter().position(|&f| f == n);
    match (fix, s.below(4)) {
        (Some(i), 0 | 1) => out.push(0xd4 + i as u8),
        (_, 2) if n <= 0xffff => {
            out.push(0xc8);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        (_, 3) => {
            out.push(0xc9);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
        _ if n <= 0xff => out.extend([0xc7, n as u8]),
        _ => {
            out.push(0xc9);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
    }
    out.push(code);
    out.extend_from_slice(payload);
}

fn mp_unknown(s: &mut dyn Source, t: &Type, r: Option<&RRef>, out: &mut Vec<u8>) {
    let Some(r) = r else {
        match s.below(4) {
            // Any other code, any payload.
            0 => {
                let code = match s.byte() {
                    12 => 13,
                    c => c,
                };
                let payload: Vec<u8> = (0..s.below(20)).map(|_| s.byte()).collect();
                mp_ext(s, code, &payload, out);
            }
            // Code 12 with a payload of 0 or 1 byte.
            1 => {
                let payload: Vec<u8> = (0..s.below(2)).map(|_| s.byte()).collect();
                mp_ext(s, 12, &payload, out);
            }
            // An empty refinement map, or one of unknown keys only (every type takes them);
            // at a dynamic position any well-formed refinements, which are dropped.
            _ => {
                let mut p = Vec::new();
                if matches!(t, Type::Dynamic) && s.chance(128) {
                    let k = super::gen::gen_refinements(s, super::Target::String);
                    refinement_map(s, &k.unwrap_or_default(), &mut p);
                } else if s.chance(64) {
                    p.extend([0x81, 0x07, 0xc0]);
                } else {
                    refinement_map(s, &RRef::default(), &mut p);
                }
                mp_ext(s, 12, &p, out);
            }
        }
        return;
    };
    let mut p = Vec::new();
    refinement_map(s, r, &mut p);
    mp_ext(s, 12, &p, out);
}

/// The refinements `r` as a map, keys in any order, with extra unknown keys.
fn refinement_map(s: &mut dyn Source, r: &RRef, out: &mut Vec<u8>) {
    let mut entries: Vec<Vec<u8>> = Vec::new();
    let mut e = |f: &mut dyn FnMut(&mut Vec<u8>)| {
        let mut b = Vec::new();
        f(&mut b);
        entries.push(b);
    };
    if let Some(n) = r.nullness {
        e(&mut |b| {
            mp_int(s, 1, b);
            b.push(if n { 0xc3 } else { 0xc2 });
        });
    }
    if let Some(p) = &r.prefix {
        e(&mut |b| {
            mp_int(s, 2, b);
            mp_str(s, p.as_bytes(), b);
        });
    }
    for (key, bound) in [(3, &r.lower), (4, &r.upper)] {
        if let Some((n, inc)) = bound {
            e(&mut |b| {
                mp_int(s, key, b);
                mp_array(s, 2, b);
                mp_number(s, n, b);
                b.push(if *inc { 0xc3 } else { 0xc2 });
            });
        }
    }
    for (key, len) in [(5, r.len_lo), (6, r.len_hi)] {
        if let Some(n) = len {
            e(&mut |b| {
                mp_int(s, key, b);
                mp_int(s, n as i128, b);
            });
        }
    }
    for _ in 0..s.below(3).saturating_sub(1) {
        e(&mut |b| {
            let k = *pick(s, &[0, 7, 99, -1, 1000]);
            mp_int(s, k, b);
            let v = RV::Str("skipped".into());
            mp_value(s, &Type::String, &v, b);
        });
    }
    let idx = order(s, entries.len());
    mp_map(s, entries.len(), out);
    for i in idx {
        out.extend_from_slice(&entries[i]);
    }
}

// ------------------------------------------------------------------ JSON

/// JSON of a value without unknowns.
pub fn json(s: &mut dyn Source, t: &Type, v: &RV) -> Vec<u8> {
    let mut out = String::new();
    ws(s, &mut out);
    js_value(s, t, v, &mut out);
    ws(s, &mut out);
    out.into_bytes()
}

fn ws(s: &mut dyn Source, out: &mut String) {
    if s.chance(40) {
        let w = pick(s, &[" ", "\n", "\t ", "\r\n  "]);
        out.push_str(w);
    }
}

/// A JSON string literal, escapes chosen at random.
pub fn js_str(s: &mut dyn Source, x: &str, out: &mut String) {
    out.push('"');
    for c in x.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' if s.chance(128) => out.push_str("\\n"),
            '/' if s.chance(64) => out.push_str("\\/"),
            c if (c as u32) < 0x20 || s.chance(24) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    if s.chance(128) {
                        out.push_str(&format!("\\u{u:04x}"));
                    } else {
                        out.push_str(&format!("\\u{u:04X}"));
                    }
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn js_number(s: &mut dyn Source, n: &RNum, out: &mut String) {
    let text = match n {
        RNum::Int(_) | RNum::UInt(_) => n.dump_text(),
        RNum::Float(f) if f.is_infinite() => {
            let t = if *f > 0.0 {
                *pick(s, &["Inf", "+Inf", "inf"])
            } else {
                "-Inf"
            };
            return js_str(s, t, out);
        }
        RNum::Float(f) => num::f64_exact_text(*f),
        RNum::Dec(t) => t.clone(),
    };
    if num::json_number(&text) && s.chance(200) {
        out.push_str(&text);
    } else {
        js_str(s, &text, out);
    }
}

fn js_value(s: &mut dyn Source, t: &Type, v: &RV, out: &mut String) {
    match (t, v) {
        (_, RV::Null) => out.push_str("null"),
        (_, RV::Unknown(_)) => panic!("JSON has no unknown values"),
        (_, RV::Bool(b)) => match s.below(4) {
            0 => js_str(s, if *b { "true" } else { "false" }, out),
            1 => js_str(s, if *b { "1" } else { "0" }, out),
            _ => out.push_str(if *b { "true" } else { "false" }),
        },
        (_, RV::Num(n)) => js_number(s, n, out),
        (_, RV::Str(x)) => {
            if (x == "true" || x == "false" || num::json_number(x)) && s.chance(128) {
                out.push_str(x);
            } else {
                js_str(s, x, out);
            }
        }
        (Type::List(e) | Type::Set(e), RV::List(items) | RV::Set(items)) => {
            js_seq(s, items.iter().map(|x| (&**e, x)), out);
        }
        (Type::Tuple(ts), RV::Tuple(items)) => js_seq(s, ts.iter().zip(items), out),
        (Type::Map(e), RV::Map(entries)) => {
            let all: Vec<usize> = (0..entries.len()).collect();
            js_obj(s, &all, |i| (&entries[i].0, &**e, &entries[i].1), out);
        }
        (Type::Object(o), RV::Object(attrs)) => {
            // Null attributes may be left out; keys in any order.
            let keep: Vec<usize> = order(s, attrs.len())
                .into_iter()
                .filter(|&i| attrs[i].1 != RV::Null || s.chance(128))
                .collect();
            js_obj(
                s,
                &keep,
                |i| (&attrs[i].0, &o.attrs()[i].1, &attrs[i].1),
                out,
            );
        }
        (Type::Dynamic, RV::Dynamic(ty, x)) => {
            let tj = ty.to_string();
            let mut val = String::new();
            js_value(s, ty, x, &mut val);
            let (k1, v1, k2, v2) = match s.chance(128) {
                true => ("type", tj, "value", val),
                false => ("value", val, "type", tj),
            };
            out.push('{');
            ws(s, out);
            js_str(s, k1, out);
            out.push(':');
            ws(s, out);
            out.push_str(&v1);
            out.push(',');
            js_str(s, k2, out);
            out.push_str(": ");
            out.push_str(&v2);
            ws(s, out);
            out.push('}');
        }
        _ => panic!("value {v:?} does not fit type {t}"),
    }
}

fn js_seq<'v>(
    s: &mut dyn Source,
    items: impl Iterator<Item = (&'v Type, &'v RV)>,
    out: &mut String,
) {
    out.push('[');
    for (i, (t, x)) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        ws(s, out);
        js_value(s, t, x, out);
        ws(s, out);
    }
    out.push(']');
}

fn js_obj<'v>(
    s: &mut dyn Source,
    idx: &[usize],
    entry: impl Fn(usize) -> (&'v String, &'v Type, &'v RV),
    out: &mut String,
) {
    out.push('{');
    for (n, &i) in idx.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        let (k, t, x) = entry(i);
        ws(s, out);
        js_str(s, k, out);
        ws(s, out);
        out.push(':');
        ws(s, out);
        js_value(s, t, x, out);
    }
    ws(s, out);
    out.push('}');
}
