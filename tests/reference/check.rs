//! The checks of every fuzz target, as functions of the fuzzer's bytes, so that
//! `tests/regressions.rs` replays a saved input through exactly what the target ran.
//! Each panics (with both sides shown) when a check fails.
//!
//! Input layouts:
//! - `*_differential`: `[options][type length: u16 BE][type bytes (gen::gen_type)][input]`;
//!   for `msgpack_differential` with bit 7 of the options byte set (the low-limits profile,
//!   [`low_opts`]), `[options][limits][type length: u16 BE][type bytes][input]`;
//! - `*_schema`: `[options][type length: u8][type JSON, or a schema document if it starts
//!   with '{'][input]`;
//! - `*_fixed`: `[options][input]`, against a real schema the target embeds;
//! - `roundtrip`: every byte is a choice of `gen` and `encode`;
//! - `type_json`, `schema_doc`: the whole input is the text.
//!
//! The options byte: bit 0 `skip_unknown_attributes`, bit 1 `missing_attributes_null`,
//! bits 2–4 a limits profile (see [`opts_from`]), bit 5 `check_item_counts` (schema targets,
//! which then skip the reference), bit 7 the low-limits profile (`msgpack_differential`
//! only, see [`low_opts`]).

use bumpalo::Bump;
use tfwire::schema::{SchemaSelector, SchemaSource};
use tfwire::{dump, DecodeOptions, ErrorKind, Limits, Program, Type};

use super::gen::{self, Bytes, Source};
use super::{
    conforms, encode, expected, from_vm, has_unknown, json, mp, same_value, Opts, RNum, RV,
};

/// Which wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Msgpack,
    Json,
}

/// The low-limits profile (`msgpack_differential` when bit 7 of the options byte is set):
/// the options (bits 0–4) of `b`, with `max_depth` (1–16), `max_values` and
/// `max_arena_bytes` (small, or the defaults) from the limits byte `l`. The MessagePack
/// reference models both budgets as the VM charges them; the JSON reference does not.
pub fn low_opts(b: u8, l: u8) -> Opts {
    let mut o = opts_from(b & 0x1f);
    o.limits.max_depth = 1 + (l & 15) as u32;
    o.limits.max_values = [3, 8, 24, u64::MAX][(l >> 4 & 3) as usize];
    o.limits.max_arena_bytes = [48, 160, 600, Limits::DEFAULT.max_arena_bytes][(l >> 6) as usize];
    o
}

/// The options an options byte selects.
pub fn opts_from(b: u8) -> Opts {
    let d = Limits::DEFAULT;
    let limits = match (b >> 2) & 7 {
        // Short attribute names pass, long ones do not: the key-length checks turn on in the
        // middle of a decode when a dynamic value's type has a longer name than the root's
        // (issue 21: attributes after a gap once decoded as null there).
        3 => d.with_max_string_len(8),
        4 => d.with_max_depth(3),
        5 => d.with_max_string_len(4).with_max_container_len(3),
        6 => d
            .with_max_refinement_len(6)
            .with_max_type_json_len(12)
            .with_max_dynamic_types(1),
        7 => d.with_max_depth(1).with_max_container_len(1),
        _ => d,
    };
    Opts {
        skip_unknown: b & 1 != 0,
        missing_null: b & 2 != 0,
        limits,
    }
}

/// Decodes with the VM: the reference tree and the DUMP, or the error kind (with the
/// checks every successful decode must pass: the value conforms to the type, the DUMP is the
/// reference's DUMP of the same tree, the error offset is inside the input).
pub fn vm_decode(p: &Program, f: Format, input: &[u8], o: &DecodeOptions) -> Result<RV, ErrorKind> {
    let bump = Bump::new();
    let r = match f {
        Format::Msgpack => p.decode_msgpack_with(input, &bump, o),
        Format::Json => p.decode_json_with(input, &bump, o),
    };
    match r {
        Ok(v) => {
            if let Err(e) = conforms(p, p.root_type(), v) {
                panic!(
                    "{f:?} value does not conform to {}: {e}\ninput {input:02x?}",
                    p.root_type()
                );
            }
            let tree = from_vm(p, v);
            let (got, want) = (dump::to_string(p, v).unwrap(), super::dump(&tree));
            assert_eq!(
                got, want,
                "{f:?} DUMP of the VM value differs from the reference DUMP"
            );
            Ok(tree)
        }
        Err(e) => {
            assert!(
                e.offset().unwrap() <= input.len(),
                "error offset {} past the input: {e}",
                e.offset().unwrap()
            );
            Err(e.kind())
        }
    }
}

/// The VM's error message, if it fails.
pub fn vm_error(p: &Program, f: Format, input: &[u8], o: &DecodeOptions) -> String {
    let bump = Bump::new();
    let r = match f {
        Format::Msgpack => p.decode_msgpack_with(input, &bump, o).map(|_| ()),
        Format::Json => p.decode_json_with(input, &bump, o).map(|_| ()),
    };
    r.err().map(|e| e.to_string()).unwrap_or_default()
}

/// Decodes with the reference.
pub fn ref_decode(t: &Type, f: Format, input: &[u8], o: &Opts) -> Result<RV, ErrorKind> {
    match f {
        Format::Msgpack => mp::decode(t, input, o),
        Format::Json => json::decode(t, input, o),
    }
}

/// The VM and the reference agree: equal trees (numbers in the same representation) or
/// equal error kinds.
pub fn differential(p: &Program, f: Format, input: &[u8], o: &Opts) {
    // The reference's cache of dynamic types starts empty: so must the VM's when it is small
    // enough to fill.
    let fresh;
    let p = match o.limits.max_dynamic_types < 1000 {
        true => {
            fresh = Program::new(p.root_type()).unwrap();
            &fresh
        }
        false => p,
    };
    let vm = vm_decode(p, f, input, &o.decode_options());
    if vm.is_ok() {
        // Any input that decodes re-encodes, to the same value.
        reencode(p, f, input);
    }
    let rf = ref_decode(p.root_type(), f, input, o);
    if vm != rf {
        let typed = typed_input(p.root_type(), input);
        let mut replay = match (opts_byte(o), low_opts_bytes(o)) {
            (Some(b), _) => vec![b],
            (None, Some((b, l))) if f == Format::Msgpack => vec![b, l],
            _ => vec![0],
        };
        replay.extend_from_slice(&typed[1..]);
        eprintln!("REPLAY {f:?}_differential {}", hex(&replay));
        panic!(
            "{f:?} VM and reference disagree\n type {}\n options {o:?}\n input {:02x?}\n text {:?}\n VM  {vm:?}\n ref {rf:?}\n VM error {}",
            p.root_type(),
            input,
            String::from_utf8_lossy(input),
            vm_error(p, f, input, &o.decode_options()),
        );
    }
}

/// Hex of the bytes, for pasting into a regression file.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The options byte for `o`, if one selects it.
fn opts_byte(o: &Opts) -> Option<u8> {
    (0..32u8).find(|&b| {
        let x = opts_from(b);
        x.skip_unknown == o.skip_unknown && x.missing_null == o.missing_null && x.limits == o.limits
    })
}

/// The options and limits bytes of the low-limits profile for `o`, if they select it.
fn low_opts_bytes(o: &Opts) -> Option<(u8, u8)> {
    (0..32u8).find_map(|b| {
        (0..=255u8)
            .find(|&l| {
                let x = low_opts(b, l);
                x.skip_unknown == o.skip_unknown
                    && x.missing_null == o.missing_null
                    && x.limits == o.limits
            })
            .map(|l| (b | 0x80, l))
    })
}

/// `*_differential`: a generated type, an arbitrary input.
pub fn typed_differential(f: Format, data: &[u8]) {
    let Some((&ob, rest)) = data.split_first() else {
        return;
    };
    let (o, rest) = match (f, ob & 0x80 != 0) {
        (Format::Msgpack, true) => {
            let Some((&l, rest)) = rest.split_first() else {
                return;
            };
            (low_opts(ob, l), rest)
        }
        _ => (opts_from(ob), rest),
    };
    let n = rest
        .iter()
        .take(2)
        .fold(0usize, |a, &b| a << 8 | b as usize);
    let rest = rest.get(2..).unwrap_or(&[]);
    let (tb, input) = rest.split_at(n.min(rest.len()));
    let t = gen::gen_type(&mut Bytes::new(tb), 6);
    let p = Program::new(&t).unwrap();
    differential(&p, f, input, &o);
}

/// The bytes of a `*_differential` input for type `t` and `input` (for seeds).
pub fn typed_input(t: &Type, input: &[u8]) -> Vec<u8> {
    let mut tb = Vec::new();
    gen::type_to_bytes(t, &mut tb);
    let mut out = vec![0, (tb.len() >> 8) as u8, tb.len() as u8];
    out.extend_from_slice(&tb);
    out.extend_from_slice(input);
    out
}

/// `*_schema`: a type or schema from text, an arbitrary input, any options.
pub fn schema_text(f: Format, data: &[u8]) {
    let Some((&ob, rest)) = data.split_first() else {
        return;
    };
    let Some((&n, rest)) = rest.split_first() else {
        return;
    };
    let (text, input) = rest.split_at((n as usize).min(rest.len()));
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let program = match text.starts_with('{') {
        true => SchemaSource::parse(text)
            .and_then(|s| Program::from_source(&s, &SchemaSelector::default())),
        false => Program::from_type_json(text),
    };
    let Ok(p) = program else { return };
    let o = opts_from(ob);
    if ob & 0x20 != 0 {
        let options = o.decode_options().with_check_item_counts(true);
        let _ = vm_decode(&p, f, input, &options);
    } else {
        differential(&p, f, input, &o);
    }
}

/// `*_fixed`: a real schema's program (kept across inputs: its dynamic-type cache fills, so
/// the limit on cached types is lifted for both sides).
pub fn fixed(p: &Program, f: Format, data: &[u8]) {
    let Some((&ob, input)) = data.split_first() else {
        return;
    };
    let mut o = opts_from(ob & 0x1f);
    o.limits.max_dynamic_types = u32::MAX;
    differential(p, f, input, &o);
}

/// `roundtrip`: a generated type and value, encoded both ways; both decoders of both
/// formats give the value.
pub fn roundtrip(data: &[u8]) {
    let mut s = Bytes::new(data);
    let (t, plan) = gen::small_case(&mut s);
    roundtrip_value(&mut s, &t, &plan);
}

/// Encodes `plan` both ways (choices from `s`) and checks every decode against it.
pub fn roundtrip_value(s: &mut dyn Source, t: &Type, plan: &RV) {
    let want = expected(plan);
    let p = Program::new(t).unwrap();
    let o = Opts::default();
    let bytes = encode::msgpack(s, t, plan);
    let got = vm_decode(&p, Format::Msgpack, &bytes, &o.decode_options());
    let rf = mp::decode(t, &bytes, &o);
    let ok = |r: &Result<RV, ErrorKind>| r.as_ref().is_ok_and(|v| same_value(v, &want));
    assert!(
        ok(&got) && got == rf,
        "msgpack roundtrip\n type {t}\n want {want:?}\n input {bytes:02x?}\n VM  {got:?}\n ref {rf:?}\n VM error {}",
        vm_error(&p, Format::Msgpack, &bytes, &o.decode_options())
    );
    reencode(&p, Format::Msgpack, &bytes);
    if has_unknown(&want) {
        return;
    }
    let text = encode::json(s, t, plan);
    let jgot = vm_decode(&p, Format::Json, &text, &o.decode_options());
    let jrf = json::decode(t, &text, &o);
    assert!(
        ok(&jgot) && jgot == jrf,
        "JSON roundtrip\n type {t}\n want {want:?}\n input {}\n VM  {jgot:?}\n ref {jrf:?}\n VM error {}",
        String::from_utf8_lossy(&text),
        vm_error(&p, Format::Json, &text, &o.decode_options())
    );
}

/// tfwire's own encoders on what the VM decodes from `bytes` (in `from`): the value encodes, the
/// encoding decodes to the same value (as go-cty holds it: map keys sorted with the last
/// repeat kept, refinements as go-cty writes them), and encoding is a fixed point
/// (re-encoding the re-encoding gives the same bytes: go-cty's form of a value is one form).
/// MessagePack always; JSON when the value has no unknowns and no infinities (JSON's
/// refusals), numbers then equal as float64s where a float64 was written as its shortest text.
pub fn reencode(p: &Program, from: Format, bytes: &[u8]) {
    let bump = bumpalo::Bump::new();
    let Ok(value) = decode_in(p, from, bytes, &bump) else {
        return;
    };
    let original = rv(p, value);
    for f in [Format::Msgpack, Format::Json] {
        let encode = |v, out: &mut Vec<u8>| match f {
            Format::Msgpack => p.encode_msgpack(v, out),
            Format::Json => p.encode_json(v, out),
        };
        let mut once = Vec::new();
        if let Err(e) = encode(value, &mut once) {
            // JSON's refusals, and the encoders' bound on a number's written length.
            let refused = e.message() == "value is not known"
                || e.message() == "cannot serialize infinity as JSON";
            let too_long = e.message().ends_with("digits written out");
            assert!(
                (f == Format::Json && refused) || too_long,
                "a decoded value does not encode as {f:?}: {e}\n input {bytes:02x?}"
            );
            continue;
        }
        let again = decode_in(p, f, &once, &bump).unwrap_or_else(|e| {
            panic!("the {f:?} encoding does not decode: {e}\n input {bytes:02x?}\n encoding {once:02x?}")
        });
        let loose = f == Format::Json;
        assert!(
            same_encoded(&normal(&rv(p, again)), &normal(&original), loose),
            "decode(encode(v)) != v in {f:?}\n input {bytes:02x?}\n encoding {}\n v {original:?}\n got {:?}",
            String::from_utf8_lossy(&once),
            rv(p, again)
        );
        let mut twice = Vec::new();
        encode(again, &mut twice).expect("re-encodes");
        if once != twice {
            let at = once
                .iter()
                .zip(&twice)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let near =
                |b: &[u8]| format!("{:02x?}", &b[at.saturating_sub(8)..(at + 16).min(b.len())]);
            panic!(
                "{f:?} encoding is not a fixed point at byte {at}: {} then {}\n input {bytes:02x?}",
                near(&once),
                near(&twice)
            );
        }
    }
}

fn decode_in<'a>(
    p: &'a Program,
    f: Format,
    b: &'a [u8],
    bump: &'a Bump,
) -> Result<tfwire::Value<'a>, tfwire::DecodeError> {
    match f {
        Format::Msgpack => p.decode_msgpack(b, bump),
        Format::Json => p.decode_json(b, bump),
    }
}

fn rv(p: &Program, v: tfwire::Value<'_>) -> RV {
    from_vm(p, v)
}

/// A value as go-cty holds it after a write: map keys sorted bytewise, the last of a
/// repeated key kept; an unknown refined "definitely null" is a null, and other refinements
/// are dropped (go-cty writes only those that say something: compared elsewhere).
fn normal(v: &RV) -> RV {
    match v {
        RV::Unknown(Some(r)) if r.nullness == Some(true) => RV::Null,
        RV::Unknown(_) => RV::Unknown(None),
        RV::List(e) => RV::List(e.iter().map(normal).collect()),
        RV::Set(e) => RV::Set(e.iter().map(normal).collect()),
        RV::Tuple(e) => RV::Tuple(e.iter().map(normal).collect()),
        RV::Object(e) => RV::Object(e.iter().map(|(k, x)| (k.clone(), normal(x))).collect()),
        RV::Map(e) => {
            let mut sorted: Vec<(String, RV)> = Vec::new();
            for (k, x) in e {
                sorted.retain(|(j, _)| j != k);
                sorted.push((k.clone(), normal(x)));
            }
            sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            RV::Map(sorted)
        }
        RV::Dynamic(t, x) => RV::Dynamic(t.clone(), Box::new(normal(x))),
        x => x.clone(),
    }
}

/// `same_value`, and with `loose` also numbers that are the same float64 (a float64 written
/// as its shortest text reads back as that text).
fn same_encoded(a: &RV, b: &RV, loose: bool) -> bool {
    let all = |x: &[RV], y: &[RV]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_encoded(p, q, loose))
    };
    match (a, b) {
        (RV::Num(x), RV::Num(y)) => {
            let f = |n: &RNum| match n {
                RNum::Int(i) => *i as f64,
                RNum::UInt(u) => *u as f64,
                RNum::Float(f) => *f,
                RNum::Dec(t) => t.parse().unwrap_or(f64::NAN),
            };
            super::num::same(x, y) || (loose && f(x) == f(y))
        }
        (RV::List(x), RV::List(y)) | (RV::Set(x), RV::Set(y)) | (RV::Tuple(x), RV::Tuple(y)) => {
            all(x, y)
        }
        (RV::Map(x), RV::Map(y)) | (RV::Object(x), RV::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| p.0 == q.0 && same_encoded(&p.1, &q.1, loose))
        }
        (RV::Dynamic(t, x), RV::Dynamic(u, y)) => t == u && same_encoded(x, y, loose),
        _ => same_value(a, b),
    }
}

mod chunks;
mod text;

// (Each test program and fuzz target calls some of the checks.)
#[allow(unused_imports)]
pub use chunks::{stream_chunks, stream_chunks_with};
#[allow(unused_imports)]
pub use text::{schema_doc, type_json};
