//! Hostile and broken JSON: every truncation of valid inputs is an `Eof` error (never a
//! panic, never a value), nesting beyond `Limits::max_depth` is a `Limit` error wherever it
//! happens (typed containers, dynamic wrappers, skipped values, type JSON) without
//! recursion, and byte-level mutations of valid inputs never panic and are never accepted
//! unless they are still JSON.

mod common;
#[path = "support/decode.rs"]
mod decode;

use bumpalo::Bump;
use decode::prog;
use tfwire::{dump, DecodeOptions, ErrorKind, Limits, Program, Type};

/// Valid inputs whose every proper prefix is incomplete (they end with a closing bracket or
/// quote), with their types.
const CASES: &[(&str, &str)] = &[
    (
        r#"["object",{"a":"string","b":["list","number"],"c":["map","bool"],"d":"dynamic","t":["tuple",["string","number"]]}]"#,
        r#"{"a":"x\"y\u00e9\ud83d\ude00z","b":[1,-2.5e-3,0,12345678901234567890123],"c":{"k":true,"\u006b2":false},"d":{"value":{"n":[1,{"value":"s","type":"string"}]},"type":["object",{"n":["tuple",["number","dynamic"]]}]},"t":["é",-0]}"#,
    ),
    (
        r#"["list",["object",{"id":"string","n":"number","ok":"bool"}]]"#,
        "[ {\"ok\" : true , \"n\" : \"12\" , \"id\" : \"a\\nb\"} ,\n {\"id\":\"c\",\"n\":1e5,\"ok\":\"0\"}, null ]",
    ),
    (r#"["map",["set","string"]]"#, r#"{"":[],"x":["a","b","a"],"y":null}"#),
    ("\"dynamic\"", r#"{"type":["list","dynamic"],"value":[{"value":[true,false],"type":["list","bool"]}]}"#),
    ("\"string\"", r#""plain text with \t escapes \\ and UTF-8 ☃ 😀""#),
    (r#"["tuple",["bool","string"]]"#, r#"[false,1.50]"#),
];

#[test]
fn every_truncation_is_eof() {
    for (ty, input) in CASES {
        let p = prog(ty);
        let bump = Bump::new();
        let full = p
            .decode_json(input.as_bytes(), &bump)
            .unwrap_or_else(|e| panic!("{input}: {e}"));
        let _ = dump::to_string(&p, full).unwrap();
        for cut in 0..input.len() {
            let prefix = &input.as_bytes()[..cut];
            match p.decode_json(prefix, &bump) {
                Ok(v) => panic!(
                    "{ty} {:?}: decoded to {}",
                    String::from_utf8_lossy(prefix),
                    dump::to_string(&p, v).unwrap()
                ),
                Err(e) => {
                    assert_eq!(
                        e.kind(),
                        ErrorKind::Eof,
                        "{:?}: {e}",
                        String::from_utf8_lossy(prefix)
                    );
                    assert!(
                        e.offset().unwrap() <= cut,
                        "{:?}: {e}",
                        String::from_utf8_lossy(prefix)
                    );
                }
            }
        }
    }
}

#[test]
fn workload_truncations_are_eof() {
    let Some(shared) = common::shared_dir("no workloads") else {
        return;
    };
    let dir = shared.join("workloads");
    for name in ["deep_dynamic", "azurerm_states"] {
        let w = dir.join(name);
        let schema = std::fs::read_to_string(w.join("schema.json")).unwrap();
        let input = std::fs::read(w.join("value.json")).unwrap();
        let p = Program::from_schema_json(&schema).unwrap();
        let mut bump = Bump::new();
        let n = input.len();
        let mut cuts: Vec<usize> = (0..30).map(|i| i * n / 30 + i).collect();
        cuts.extend(n.saturating_sub(30)..n);
        for cut in cuts {
            bump.reset();
            let e = p
                .decode_json(&input[..cut], &bump)
                .expect_err("a prefix decoded");
            assert_eq!(e.kind(), ErrorKind::Eof, "{name} cut at {cut}: {e}");
        }
    }
}

// ---- Depth ------------------------------------------------------------------------------------

fn nested_list_type(depth: usize) -> Type {
    let mut t = Type::Number;
    for _ in 0..depth {
        t = Type::List(Box::new(t));
    }
    t
}

fn depth_limit(max_depth: u32) -> DecodeOptions {
    DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_depth(max_depth))
}

#[test]
fn typed_nesting_beyond_max_depth() {
    let p = Program::new(&nested_list_type(400)).unwrap();
    let bump = Bump::new();
    // The default limit (256): 256 arrays nest, the 257th does not.
    let ok = format!("{}{}", "[".repeat(256), "]".repeat(256));
    assert!(p.decode_json(ok.as_bytes(), &bump).is_ok());
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let e = p.decode_json(deep.as_bytes(), &bump).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset().unwrap()),
        (ErrorKind::Limit, 256),
        "{e}"
    );
    assert_eq!(e.message(), "nesting deeper than max_depth (256)");
    assert_eq!(e.path(), "[0]".repeat(256));
    // A million open brackets: the limit, at once, without recursion.
    let huge = "[".repeat(1_000_000);
    let e = p.decode_json(huge.as_bytes(), &bump).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    // A lower limit.
    let e = p
        .decode_json_with(deep.as_bytes(), &bump, &depth_limit(10))
        .unwrap_err();
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Limit, 10));
}

#[test]
fn map_and_object_nesting_beyond_max_depth() {
    let mut t = Type::String;
    for _ in 0..300 {
        t = Type::Map(Box::new(t));
    }
    let p = Program::new(&t).unwrap();
    let input = format!("{}\"x\"{}", "{\"k\":".repeat(300), "}".repeat(300));
    let e = p.decode_json(input.as_bytes(), &Bump::new()).unwrap_err();
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Limit, 256 * 5));
    let mut t = Type::String;
    for _ in 0..300 {
        t = Type::Object(tfwire::schema::ObjectType::new([("o".to_string(), t)], &[]).unwrap());
    }
    let p = Program::new(&t).unwrap();
    let input = format!("{}\"x\"{}", "{\"o\":".repeat(300), "}".repeat(300));
    let e = p.decode_json(input.as_bytes(), &Bump::new()).unwrap_err();
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Limit, 256 * 5));
    assert!(e.path().starts_with(".o.o.o"));
}

#[test]
fn dynamic_nesting_beyond_max_depth() {
    let p = prog("\"dynamic\"");
    let bump = Bump::new();
    // Type first: each wrapper is one level.
    let n = 300;
    let input = format!(
        "{}1{}",
        r#"{"type":"dynamic","value":"#.repeat(n),
        "}".repeat(n)
    );
    let e = p.decode_json(input.as_bytes(), &bump).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    // Value first: the skip of the outer value meets the limit first.
    let input = format!(
        "{}1{}",
        r#"{"value":"#.repeat(n),
        r#","type":"dynamic"}"#.repeat(n)
    );
    let e = p.decode_json(input.as_bytes(), &bump).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    // Within the limit both orders decode, value-first re-reading each level (bounded by
    // the depth limit).
    let n = 100;
    let input = format!(
        "{}1{}{}",
        r#"{"value":"#.repeat(n),
        r#","type":"number"}"#,
        r#","type":"dynamic"}"#.repeat(n - 1)
    );
    // Wrappers of type dynamic read through to the innermost value, as in go-cty.
    let v = p.decode_json(input.as_bytes(), &bump).unwrap();
    assert_eq!(
        dump::to_string(&p, v).unwrap(),
        r#"{"type":"number","value":1}"#
    );
}

#[test]
fn skipped_and_type_json_nesting_beyond_max_depth() {
    let skip = DecodeOptions::default().with_skip_unknown_attributes(true);
    let p = prog(r#"["object",{"a":"number"}]"#);
    let bump = Bump::new();
    let ok = format!(r#"{{"x":{}{},"a":1}}"#, "[".repeat(200), "]".repeat(200));
    assert!(p.decode_json_with(ok.as_bytes(), &bump, &skip).is_ok());
    let deep = format!(r#"{{"x":{}"#, "[{\"y\":".repeat(500_000));
    let e = p
        .decode_json_with(deep.as_bytes(), &bump, &skip)
        .unwrap_err();
    assert_eq!((e.kind(), e.path()), (ErrorKind::Limit, ".x"), "{e}");
    let d = prog("\"dynamic\"");
    let deep_type = format!(
        r#"{{"type":{}"number"{},"value":1}}"#,
        "[\"list\",".repeat(300),
        "]".repeat(300)
    );
    let e = d.decode_json(deep_type.as_bytes(), &bump).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit, "{e}");
    // Type JSON nesting within max_depth but beyond the type parser's own limit.
    let deep_type = format!(
        r#"{{"type":{}"number"{},"value":1}}"#,
        "[\"list\",".repeat(150),
        "]".repeat(150)
    );
    let e = d.decode_json(deep_type.as_bytes(), &bump).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidType, "{e}");
}

// ---- Mutations --------------------------------------------------------------------------------

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const INTERESTING: &[u8] = b"{}[],:\"\\ -+.0123456789eEtfnul\x00\x1f\x7f\x80\xc3\xff";

#[test]
fn mutations_never_panic_and_accept_only_json() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    let mut bump = Bump::new();
    for (ty, input) in CASES {
        let p = prog(ty);
        for _ in 0..3000 {
            let mut m = input.as_bytes().to_vec();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(m.len());
                match rng.below(4) {
                    0 => m[i] = INTERESTING[rng.below(INTERESTING.len())],
                    1 => m[i] = rng.next() as u8,
                    2 => {
                        m.remove(i);
                    }
                    _ => m.insert(i, INTERESTING[rng.below(INTERESTING.len())]),
                }
                if m.is_empty() {
                    m.push(b' ');
                }
            }
            bump.reset();
            if let Ok(v) = p.decode_json(&m, &bump) {
                accepted += 1;
                let _ = dump::to_string(&p, v).unwrap();
                // serde_json must agree it is JSON (it rejects numbers beyond f64; we keep them).
                if let Err(e) = serde_json::from_slice::<serde_json::Value>(&m) {
                    let range = e.to_string().starts_with("number out of range");
                    assert!(
                        range,
                        "accepted non-JSON {:?}: {e}",
                        String::from_utf8_lossy(&m)
                    );
                }
            }
        }
    }
    assert!(accepted > 0);
}
