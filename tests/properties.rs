//! Property tests over random types and values (a fixed-seed xorshift generator,
//! `reference/gen.rs`, so every run checks the same cases):
//! - decode(encode(v)) = v for MessagePack and for JSON, the encoders choosing among every
//!   encoding the decoders accept (`reference/encode.rs`), for the VM and the reference
//!   decoder alike;
//! - every truncation of a MessagePack encoding fails, as the end of the input;
//! - every single-byte corruption (of MessagePack and of JSON) fails or decodes to a value
//!   that conforms to the type (`reference::conforms`), and the VM and the reference
//!   decoder agree on it (the same tree, or the same error kind);
//! - the same under lowered limits and the drift options, and (MessagePack) under the
//!   low-limits profile of `msgpack_differential` (small `max_depth`, `max_values`,
//!   `max_arena_bytes`).

#[path = "reference/mod.rs"]
mod reference;

use bumpalo::Bump;
use reference::check::{
    differential, low_opts, opts_from, roundtrip_value, stream_chunks_with, Format,
};
use reference::gen::{gen_type, gen_value, Rng, Shape, Source};
use reference::{encode, has_unknown, Opts, RV};
use tfwire::{ErrorKind, Program, Type};

/// A random type and wire plan.
fn case(s: &mut Rng, shape: &Shape) -> (Type, RV) {
    let t = gen_type(s, 4);
    let v = gen_value(s, &t, shape);
    (t, v)
}

#[test]
fn decode_of_encode_is_the_value() {
    let mut s = Rng::new(1);
    for i in 0..3000 {
        let shape = Shape {
            unknowns: i % 2 == 0,
            ..Shape::default()
        };
        let (t, v) = case(&mut s, &shape);
        roundtrip_value(&mut s, &t, &v);
    }
}

#[test]
fn decode_of_encode_with_long_collections_and_keys() {
    let mut s = Rng::new(2);
    for _ in 0..150 {
        let shape = Shape {
            max_len: 40,
            unknowns: true,
            dyn_depth: 1,
        };
        let (t, v) = case(&mut s, &shape);
        roundtrip_value(&mut s, &t, &v);
    }
}

#[test]
fn every_truncation_of_msgpack_fails_as_end_of_input() {
    let mut s = Rng::new(3);
    let bump = Bump::new();
    let mut cuts = 0;
    for _ in 0..800 {
        let (t, v) = case(&mut s, &Shape::default());
        let bytes = encode::msgpack(&mut s, &t, &v);
        let p = Program::new(&t).unwrap();
        for n in 0..bytes.len() {
            match p.decode_msgpack(&bytes[..n], &bump) {
                Err(e) if e.kind() == ErrorKind::Eof => cuts += 1,
                Err(e) => panic!("{t}: prefix {n} of {bytes:02x?}: {e} (not end of input)"),
                Ok(x) => panic!("{t}: prefix {n} of {bytes:02x?} decoded: {x:?}"),
            }
            let want = reference::mp::decode(&t, &bytes[..n], &Opts::default());
            assert_eq!(
                want,
                Err(ErrorKind::Eof),
                "reference on prefix {n} of {bytes:02x?}"
            );
        }
    }
    assert!(cuts > 10_000, "{cuts} truncations");
}

/// Bytes that are interesting in place of any byte.
const SPECIAL: [u8; 12] = [
    0x00, 0xc0, 0xc1, 0xd4, 0xc7, 0x90, 0x80, 0xa1, 0xff, b'"', b'{', b'\\',
];

/// Corrupts `bytes` at a sample of positions (every one if short) with special and random
/// bytes, and runs each through the differential check (which also checks conformance).
fn corruptions(s: &mut Rng, p: &Program, f: Format, bytes: &[u8], o: &Opts) -> usize {
    let positions: Vec<usize> = match bytes.len() {
        0..=48 => (0..bytes.len()).collect(),
        n => (0..48).map(|_| s.below(n)).collect(),
    };
    let mut runs = 0;
    for &i in &positions {
        let mut repl: Vec<u8> = (0..3).map(|_| *reference::gen::pick(s, &SPECIAL)).collect();
        repl.push(bytes[i] ^ (1 + s.below(255) as u8));
        for r in repl {
            let mut b = bytes.to_vec();
            b[i] = r;
            differential(p, f, &b, o);
            runs += 1;
        }
    }
    runs
}

#[test]
fn msgpack_single_byte_corruptions_fail_or_conform() {
    let mut s = Rng::new(4);
    let mut runs = 0;
    for _ in 0..400 {
        let (t, v) = case(&mut s, &Shape::default());
        let bytes = encode::msgpack(&mut s, &t, &v);
        runs += corruptions(
            &mut s,
            &Program::new(&t).unwrap(),
            Format::Msgpack,
            &bytes,
            &Opts::default(),
        );
    }
    assert!(runs > 10_000, "{runs} corruptions");
}

#[test]
fn json_single_byte_corruptions_fail_or_conform() {
    let mut s = Rng::new(5);
    let mut runs = 0;
    for _ in 0..400 {
        let shape = Shape {
            unknowns: false,
            ..Shape::default()
        };
        let (t, v) = case(&mut s, &shape);
        let bytes = encode::json(&mut s, &t, &v);
        runs += corruptions(
            &mut s,
            &Program::new(&t).unwrap(),
            Format::Json,
            &bytes,
            &Opts::default(),
        );
    }
    assert!(runs > 10_000, "{runs} corruptions");
}

#[test]
fn corruptions_under_lowered_limits_and_drift_options() {
    let mut s = Rng::new(6);
    for i in 0..300u32 {
        let o = opts_from((i % 32) as u8);
        let (t, v) = case(&mut s, &Shape::default());
        let p = Program::new(&t).unwrap();
        let bytes = encode::msgpack(&mut s, &t, &v);
        differential(&p, Format::Msgpack, &bytes, &o);
        corruptions(&mut s, &p, Format::Msgpack, &bytes, &o);
        if !has_unknown(&v) {
            let text = encode::json(&mut s, &t, &v);
            differential(&p, Format::Json, &text, &o);
            corruptions(&mut s, &p, Format::Json, &text, &o);
        }
    }
}

#[test]
fn msgpack_corruptions_under_low_value_and_arena_budgets() {
    // The low-limits profile of `msgpack_differential`: small `max_depth`, `max_values` and
    // `max_arena_bytes`, which the MessagePack reference charges as the VM does.
    let mut s = Rng::new(7);
    for i in 0..300u32 {
        let o = low_opts(i as u8 & 0x1f, (i.wrapping_mul(37) >> 2) as u8);
        let (t, v) = case(&mut s, &Shape::default());
        let p = Program::new(&t).unwrap();
        let bytes = encode::msgpack(&mut s, &t, &v);
        differential(&p, Format::Msgpack, &bytes, &o);
        corruptions(&mut s, &p, Format::Msgpack, &bytes, &o);
    }
}

#[test]
fn deep_values_hit_the_depth_limit_exactly() {
    // list(list(…(number))) 300 deep; values nested 255, 256 and 257 levels.
    let mut t = Type::Number;
    for _ in 0..300 {
        t = Type::List(Box::new(t));
    }
    let p = Program::new(&t).unwrap();
    for depth in [255usize, 256, 257] {
        let mut mp = vec![0x91u8; depth - 1];
        mp.push(0x90);
        let json = format!("{}[]{}", "[".repeat(depth - 1), "]".repeat(depth - 1));
        for (f, input) in [(Format::Msgpack, mp), (Format::Json, json.into_bytes())] {
            differential(&p, f, &input, &Opts::default());
            let bump = Bump::new();
            let r = match f {
                Format::Msgpack => p.decode_msgpack(&input, &bump),
                Format::Json => p.decode_json(&input, &bump),
            };
            assert_eq!(r.is_ok(), depth <= 256, "{f:?} depth {depth}");
        }
    }
}

#[test]
fn chunked_streams_of_generated_values_equal_one_shot_decodes() {
    let mut s = Rng::new(11);
    for _ in 0..1500 {
        stream_chunks_with(&mut s);
    }
}
