//! A projection's objects read in the key order of the type they were projected from
//! (`Code::key_orders`): keys in order, with whitespace, names left out, keys no attribute
//! has, keys out of order or repeated, in JSON and MessagePack, against the full decode
//! restricted to the selection.

#[path = "support/rng.rs"]
mod rng;

use bumpalo::Bump;
use tfwire::schema::Selection;
use tfwire::{dump, Program};

use rng::Rng;

/// A projection's objects compare keys with the projected type's whole key order: keys in
/// order, with whitespace, with names left out, with keys no attribute has, out of order or
/// repeated give what the full decode (with the drift option, for the unknown keys) gives
/// restricted to the selection, in both encodings; a stepped-over value's error names it.
#[test]
fn projected_objects_read_keys_in_any_order() {
    let ty = r#"["object",{"a":"string","b":"number","c":["list","string"],"d":"bool",
        "e":["map","string"],"f":["object",{"x":"string"}],"g":"string","h":"number"}]"#;
    let full = Program::from_type_json(ty).unwrap();
    let program = full
        .select(&Selection::parse(["b", "e", "h"]).unwrap())
        .unwrap();
    let pairs: [(&str, &str); 8] = [
        ("a", r#""s""#),
        ("b", "12"),
        ("c", r#"["x",""]"#),
        ("d", "false"),
        ("e", r#"{"k":"v"}"#),
        ("f", r#"{"x":"y"}"#),
        ("g", "null"),
        ("h", "-3.5"),
    ];
    let unknown = [
        (r#""a0""#, "[1,{\"q\":\"r\"}]"),
        (r#""zz""#, r#""u""#),
        (r#""c1""#, "{}"),
    ];
    let drift = tfwire::DecodeOptions::default().with_skip_unknown_attributes(true);
    let bump = Bump::new();
    let mut rng = Rng(0x5eed_0b1e);
    let rounds = if cfg!(miri) { 20 } else { 2000 };
    for round in 0..rounds {
        let mut keys: Vec<(String, &str)> = pairs
            .iter()
            .filter(|_| round % 2 == 0 || rng.below(4) != 0)
            .map(|&(k, v)| (format!("{k:?}"), v))
            .collect();
        if round % 3 == 1 {
            for _ in 0..rng.below(3) {
                let (k, v) = unknown[rng.index(unknown.len())];
                let at = rng.index(keys.len() + 1);
                keys.insert(at, (k.to_string(), v));
            }
        }
        if round % 5 == 2 && keys.len() > 1 {
            let (i, j) = (rng.index(keys.len()), rng.index(keys.len()));
            keys.swap(i, j);
        }
        if round % 7 == 3 && !keys.is_empty() {
            let repeated = keys[rng.index(keys.len())].clone();
            let at = rng.index(keys.len() + 1);
            keys.insert(at, repeated);
        }
        let space = if round % 4 == 3 { "\n  " } else { "" };
        let body: Vec<String> = keys
            .iter()
            .map(|(k, v)| format!("{space}{k}{space}:{space}{v}"))
            .collect();
        let input = format!("{{{}{space}}}", body.join(","));
        msgpack_in_any_order(&full, &program, &keys);
        let expected = full.decode_json_with(input.as_bytes(), &bump, &drift);
        let got = program.decode_json(input.as_bytes(), &bump);
        agree(&full, &program, expected, got, &input);
    }
    // A fault in a value stepped over in key order: its kind, its key's path, its byte.
    let bad = br#"{"a":"s","b":1,"c":["x",tru],"d":true}"#;
    let e = program.decode_json(bad, &bump).unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset()),
        (tfwire::ErrorKind::Syntax, ".c", Some(24)),
        "{e}"
    );
    let bad = br#"{"a":"s","b":1,"zz":[1,2,}"#;
    let e = program.decode_json(bad, &bump).unwrap_err();
    assert_eq!(
        (e.kind(), e.path()),
        (tfwire::ErrorKind::Syntax, ".zz"),
        "{e}"
    );
}

/// [`projected_objects_read_keys_in_any_order`] in MessagePack: the pairs `keys` (quoted key,
/// JSON value) as one map, decoded by the projection and by the full program with the drift
/// options (unknown keys stepped over, missing attributes null); without the second option
/// a selected attribute missing is the error it is for the full decode.
fn msgpack_in_any_order(full: &Program, program: &Program, keys: &[(String, &str)]) {
    let pairs = keys
        .iter()
        .map(|(k, v)| {
            let k: String = serde_json::from_str(k).unwrap();
            let v: serde_json::Value = serde_json::from_str(v).unwrap();
            (rmpv::Value::from(k), rmpv::ext::to_value(v).unwrap())
        })
        .collect();
    let mut input = Vec::new();
    rmpv::encode::write_value(&mut input, &rmpv::Value::Map(pairs)).unwrap();
    let drift = tfwire::DecodeOptions::default()
        .with_skip_unknown_attributes(true)
        .with_missing_attributes_null(true);
    let bump = Bump::new();
    let label = format!("{keys:?}");
    let expected = full.decode_msgpack_with(&input, &bump, &drift);
    let got = program.decode_msgpack_with(&input, &bump, &drift);
    agree(full, program, expected, got, &label);
    // Without the option a missing selected attribute is an error, the first one named.
    let strict = tfwire::DecodeOptions::default().with_skip_unknown_attributes(true);
    let missing = ["b", "e", "h"]
        .into_iter()
        .find(|n| !keys.iter().any(|(k, _)| *k == format!("{n:?}")));
    match (program.decode_msgpack_with(&input, &bump, &strict), missing) {
        (Err(e), Some(name)) if e.kind() == tfwire::ErrorKind::MissingAttribute => {
            assert!(e.message().contains(&format!("{name:?}")), "{label}: {e}");
        }
        (Err(e), _) => assert_eq!(e.kind(), tfwire::ErrorKind::DuplicateKey, "{label}: {e}"),
        (Ok(_), None) => {}
        (Ok(_), Some(name)) => panic!("{label}: {name} is missing"),
    }
}

/// The full decode's result `expected` and the projection's `got` of input `label` agree:
/// the same value restricted to `b`, `e` and `h`; or a repeated key, an error for the full
/// decode and none for the projection when it steps over that key; or the same error kind
/// and path.
fn agree(
    full: &Program,
    program: &Program,
    expected: Result<tfwire::Value<'_>, tfwire::DecodeError>,
    got: Result<tfwire::Value<'_>, tfwire::DecodeError>,
    label: &str,
) {
    match (expected, got) {
        (Ok(e), Ok(g)) => {
            let e = dump::to_string(full, e).unwrap();
            let e: serde_json::Value = serde_json::from_str(&e).unwrap();
            let want = format!(r#"{{"b":{},"e":{},"h":{}}}"#, e["b"], e["e"], e["h"]);
            assert_eq!(dump::to_string(program, g).unwrap(), want, "{label}");
        }
        (Err(e), Ok(_)) => {
            assert_eq!(e.kind(), tfwire::ErrorKind::DuplicateKey, "{label}: {e}");
            let selected = ["\"b\"", "\"e\"", "\"h\""];
            assert!(
                !selected.iter().any(|k| e.message().contains(k)),
                "{label}: {e}"
            );
        }
        (Err(e), Err(g)) => {
            assert_eq!(
                (g.kind(), g.path()),
                (e.kind(), e.path()),
                "{label}: {e} / {g}"
            );
        }
        (Ok(_), Err(g)) => panic!("{label}: {g}"),
    }
}

/// The run that knows keys by their marker (`marker_run` in `src/decode/msgpack/run.rs`): keys of the names' lengths
/// but other bytes, keys and strings not ASCII (UTF-8 or not), a key of 33 bytes, nested
/// lists and maps, near the input's end and far from it (a last value of 1 or of 40
/// bytes). The projection reads "a" as the full decode does wherever the full decode
/// reads the input, names the same fault where a skipped string is not UTF-8, and steps
/// over a key no attribute has.
#[test]
fn marker_runs_agree_with_the_full_decode() {
    use tfwire::ErrorKind;
    const LONG: &str = "a_long_name_of_thirty_three_bytes";
    let ty = format!(
        r#"["object",{{"a":"string","bb":["list","string"],"ccc":["map","string"],
        "dddd":"number","ff":"string","{LONG}":"string","zz_tail":"string"}}]"#
    );
    let full = Program::from_type_json(&ty).unwrap();
    let projected = full.select(&Selection::parse(["a"]).unwrap()).unwrap();
    let bump = bumpalo::Bump::new();
    let find =
        |input: &[u8], what: &[u8]| input.windows(what.len()).position(|w| w == what).unwrap();
    fn a_of(prog: &Program, v: tfwire::Value<'_>) -> Option<String> {
        prog.typed(v)
            .attr("a")
            .and_then(|t| t.value.as_str())
            .map(str::to_owned)
    }
    for tail in ["t".to_string(), "t".repeat(40)] {
        let json = format!(
            r#"{{"a":"x","bb":["p","qq"],"ccc":{{"k":"v"}},"dddd":7,"ff":"fff",
            "{LONG}":"y","zz_tail":"{tail}"}}"#
        );
        let mut base = Vec::new();
        let value = full.decode_json(json.as_bytes(), &bump).unwrap();
        full.encode_msgpack(value, &mut base).unwrap();
        let edit = |from: &[u8], to: &[u8]| {
            let mut input = base.clone();
            let at = find(&input, from);
            input.splice(at..at + from.len(), to.iter().copied());
            (input, at)
        };
        // Strings in skipped values, UTF-8 and not: read as the full decode reads them.
        for (from, to) in [
            (&b"\xa2qq"[..], &b"\xa2\xc3\xa9"[..]),
            (b"\xa2qq", b"\xa2q\xff"),
            (b"\xa1k", b"\xa1\xff"),
            (b"\xa3fff", b"\xa3f\xc3\xa9"),
            (b"\xa3fff", b"\xa3\xe2\x82\x61"),
            (b"\xa1y", b"\xa1\xc0"),
            (b"\xa1y", b"\xa1y"),
        ] {
            let (input, _) = edit(from, to);
            let bump = bumpalo::Bump::new();
            let (p, f) = (
                projected.decode_msgpack(&input, &bump),
                full.decode_msgpack(&input, &bump),
            );
            match (p, f) {
                (Ok(p), Ok(f)) => assert_eq!(a_of(&projected, p), a_of(&full, f)),
                (Err(p), Err(f)) => {
                    assert_eq!(p.kind(), ErrorKind::InvalidUtf8, "{input:02x?}");
                    assert_eq!((p.kind(), p.offset()), (f.kind(), f.offset()));
                    // (The projection names the attribute it stepped over; the full
                    // decode the value in it.)
                    let path = p.path().to_string();
                    assert!(path.len() > 1 && f.path().to_string().starts_with(&path));
                }
                (p, f) => panic!("{:?} against {:?}: {input:02x?}", p.err(), f.err()),
            }
        }
        // Keys of "bb"'s length that name no attribute: refused by the full decode,
        // stepped over by the projection when UTF-8, else named at the key's header.
        for (to, utf8) in [
            (&b"\xa2zz"[..], true),
            (b"\xa2\xc3\xa9", true),
            (b"\xa2\xff\xfe", false),
        ] {
            let (input, at) = edit(b"\xa2bb", to);
            let bump = bumpalo::Bump::new();
            assert!(full.decode_msgpack(&input, &bump).is_err());
            match projected.decode_msgpack(&input, &bump) {
                Ok(v) => assert!(utf8 && a_of(&projected, v).as_deref() == Some("x")),
                Err(e) => {
                    assert!(!utf8);
                    assert_eq!((e.kind(), e.offset()), (ErrorKind::InvalidUtf8, Some(at)));
                }
            }
        }
    }
}
