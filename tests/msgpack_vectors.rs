//! The MessagePack test vectors 1-54 of the research notes (reference-semantics.md §8).
//! Where go-cty panics, swallows an error or returns a wrongly typed value, or where the spec
//! is explicit, DESIGN.md §4 decides, and the row says so.

#[path = "support/mp.rs"]
mod mp;

use bumpalo::Bump;
use mp::hex;
use tfwire::{dump, ErrorKind, Program};

enum Want {
    /// Decodes to this DUMP.
    Dump(&'static str),
    /// Fails with this kind.
    Fails(ErrorKind),
}
use Want::*;

fn check(row: &str, input: &[u8], ty: &str, want: Want) {
    let p = Program::from_type_json(ty).unwrap_or_else(|e| panic!("row {row}: type {ty}: {e}"));
    let bump = Bump::new();
    let got = p.decode_msgpack(input, &bump);
    match (got, want) {
        (Ok(v), Dump(d)) => assert_eq!(dump::to_string(&p, v).unwrap(), d, "row {row}"),
        (Err(e), Fails(k)) => assert_eq!(e.kind(), k, "row {row}: {e}"),
        (Ok(v), Fails(k)) => panic!(
            "row {row}: expected {k:?}, got {}",
            dump::to_string(&p, v).unwrap()
        ),
        (Err(e), Dump(d)) => panic!("row {row}: expected {d}, got error {e}"),
    }
}

fn row(n: &str, hex_input: &str, ty: &str, want: Want) {
    check(n, &hex(hex_input), ty, want);
}

const S: &str = r#""string""#;
const N: &str = r#""number""#;
const B: &str = r#""bool""#;
const D: &str = r#""dynamic""#;

#[test]
fn rows_1_to_3_strings() {
    row("1", "a568656c6c6f", S, Dump(r#""hello""#));
    row("2a", "c0", S, Dump("null"));
    row("2b", "d40000", S, Dump(r#"{"$unknown":{}}"#));
    row("3", "c4026869", S, Dump(r#""hi""#));
}

#[test]
fn rows_4_to_18_numbers() {
    row("4", "01", N, Dump("1"));
    row("5", "cf7fffffffffffffff", N, Dump("9223372036854775807"));
    row("6", "d38000000000000000", N, Dump("-9223372036854775808"));
    row("7a", "ff", N, Dump("-1"));
    row("7b", "d0df", N, Dump("-33"));
    let mut v8 = vec![0xb4];
    v8.extend_from_slice(b"18446744073709551615");
    check("8", &v8, N, Dump("18446744073709551615"));
    row(
        "9",
        "b339323233333732303336383534373735383038",
        N,
        Dump("9223372036854775808"),
    );
    row("10", "cb3ff8000000000000", N, Dump("1.5"));
    let tiny = format!("0.{}5", "0".repeat(323));
    let p = Program::from_type_json(N).unwrap();
    let bump = Bump::new();
    let v11 = hex("cb0000000000000001");
    let v = p.decode_msgpack(&v11, &bump).unwrap();
    assert_eq!(dump::to_string(&p, v).unwrap(), tiny, "row 11");
    assert_eq!(v.as_f64(), Some(5e-324), "row 11");
    // Row 12: MaxFloat64 as the 309-digit integer string.
    let max = format!("{:.0}", f64::MAX);
    assert_eq!(max.len(), 309);
    let mut v12 = vec![0xda, 0x01, 0x35];
    v12.extend_from_slice(max.as_bytes());
    let leaked: &'static str = Box::leak(max.into_boxed_str());
    check("12", &v12, N, Dump(leaked));
    row("13", "a3302e38", N, Dump("0.8"));
    let nines = "9".repeat(100);
    let mut v14 = vec![0xd9, 0x64];
    v14.extend_from_slice(nines.as_bytes());
    check("14", &v14, N, Dump(Box::leak(nines.into_boxed_str())));
    row("15a", "cb7ff0000000000000", N, Dump(r#""+Inf""#));
    row("15b", "cbfff0000000000000", N, Dump(r#""-Inf""#));
    let v16 = hex("ca3dcccccd");
    let v = p.decode_msgpack(&v16, &bump).unwrap();
    let exact = v.as_f64().map(|f| format!("{f:.30}"));
    assert_eq!(
        exact.as_deref(),
        Some("0.100000001490116119384765625000"),
        "row 16"
    );
    // Row 17: go-cty panics on NaN; DESIGN §4.1: an error.
    row(
        "17",
        "cb7ff8000000000001",
        N,
        Fails(ErrorKind::InvalidNumber),
    );
    row("18a", "a3316534", N, Dump("1e4"));
    let v18 = hex("a3316534");
    let v = p.decode_msgpack(&v18, &bump).unwrap();
    assert_eq!(v.as_i64(), Some(10000), "row 18a");
    row("18b", "a3496e66", N, Dump(r#""+Inf""#));
}

#[test]
fn row_19_bool() {
    row("19a", "c3", B, Dump("true"));
    row("19b", "01", B, Fails(ErrorKind::TypeMismatch));
}

#[test]
fn rows_20_to_24_collections() {
    let ls = r#"["list","string"]"#;
    row("20a", "90", ls, Dump("[]"));
    row("20b", "c0", ls, Dump("null"));
    row("20c", "91d40000", ls, Dump(r#"[{"$unknown":{}}]"#));
    // Row 21: go-cty deduplicates sets; DESIGN §4.4: not de-duplicated.
    row("21", "920101", r#"["set","number"]"#, Dump("[1,1]"));
    row(
        "22",
        "81a86772656574696e67c0",
        r#"["map","string"]"#,
        Dump(r#"{"greeting":null}"#),
    );
    // Rows 23-24: go-cty reads a nil key as "" and swallows a non-string key; DESIGN §4.1: errors.
    row(
        "23",
        "81c001",
        r#"["map","number"]"#,
        Fails(ErrorKind::InvalidKey),
    );
    row(
        "24",
        "810102",
        r#"["map","number"]"#,
        Fails(ErrorKind::InvalidKey),
    );
}

#[test]
fn rows_25_to_30_objects_and_tuples() {
    let ab = r#"["object",{"a":"string","b":"string"}]"#;
    row("25", "82a161c0a162c0", ab, Dump(r#"{"a":null,"b":null}"#));
    // Row 26: go-cty returns EmptyObjectVal; DESIGN §4.1: an error.
    row("26", "80", ab, Fails(ErrorKind::MissingAttribute));
    // Row 27: duplicate keys; go-cty builds a wrongly typed object; DESIGN §4.1: an error.
    row(
        "27",
        "82a16101a16102",
        r#"["object",{"a":"number","b":"number"}]"#,
        Fails(ErrorKind::DuplicateKey),
    );
    row(
        "28",
        "81a16301",
        r#"["object",{"a":"number"}]"#,
        Fails(ErrorKind::UnknownAttribute),
    );
    // Row 29: go-cty returns EmptyTupleVal; DESIGN §4.1: an error.
    row(
        "29",
        "90",
        r#"["tuple",["string"]]"#,
        Fails(ErrorKind::WrongLength),
    );
    row(
        "30",
        "9292a16101c3",
        r#"["tuple",[["tuple",["string","number"]],"bool"]]"#,
        Dump(r#"[["a",1],true]"#),
    );
}

#[test]
fn rows_31_to_37_dynamic() {
    row(
        "31",
        "92c40822737472696e6722a568656c6c6f",
        D,
        Dump(r#"{"type":"string","value":"hello"}"#),
    );
    row(
        "32",
        "92a822737472696e6722a568656c6c6f",
        D,
        Dump(r#"{"type":"string","value":"hello"}"#),
    );
    row("33", "92c40822737472696e6722c0", D, Dump("null"));
    row("34a", "c0", D, Dump("null"));
    row("34b", "d40000", D, Dump(r#"{"$unknown":{}}"#));
    row("34c", "91c0", D, Fails(ErrorKind::InvalidDynamic));
    row(
        "35",
        "92c4115b226c697374222c22737472696e67225d91a568656c6c6f",
        D,
        Dump(r#"{"type":["list","string"],"value":["hello"]}"#),
    );
    row(
        "36",
        "9192c40822737472696e6722a568656c6c6f",
        r#"["list","dynamic"]"#,
        Dump(r#"[{"type":"string","value":"hello"}]"#),
    );
    row(
        "37",
        "91d40000",
        r#"["list","dynamic"]"#,
        Dump(r#"[{"$unknown":{}}]"#),
    );
}

#[test]
fn rows_38_to_47_refinements() {
    for ty in [
        S,
        N,
        B,
        r#"["list","string"]"#,
        r#"["object",{"a":"string"}]"#,
    ] {
        row(
            "38",
            "c7030c8101c2",
            ty,
            Dump(r#"{"$unknown":{"null":false}}"#),
        );
        // Row 39: go-cty collapses to a known null; DESIGN: an unknown with null:true.
        row(
            "39",
            "c7030c8101c3",
            ty,
            Dump(r#"{"$unknown":{"null":true}}"#),
        );
    }
    row(
        "40",
        "c70e0c8201c202a97072656669783a2f2f",
        S,
        Dump(r#"{"$unknown":{"null":false,"prefix":"prefix://"}}"#),
    );
    row(
        "41",
        "c70b0c8301c2039201c3049205c3",
        N,
        Dump(r#"{"$unknown":{"null":false,"lower":[1,true],"upper":[5,true]}}"#),
    );
    row(
        "42",
        "c71b0c8301c20392cb3ff3ae147ae147aec30492cb4016ae147ae147aec3",
        N,
        Dump(r#"{"$unknown":{"null":false,"lower":[1.23,true],"upper":[5.67,true]}}"#),
    );
    row(
        "43a",
        "c7070c8301c205010605",
        r#"["list","string"]"#,
        Dump(r#"{"$unknown":{"null":false,"len_min":1,"len_max":5}}"#),
    );
    row(
        "43b",
        "c7070c8301c205000604",
        r#"["map","string"]"#,
        Dump(r#"{"$unknown":{"null":false,"len_min":0,"len_max":4}}"#),
    );
    row(
        "43c",
        "c7070c8301c205020606",
        r#"["set","string"]"#,
        Dump(r#"{"$unknown":{"null":false,"len_min":2,"len_max":6}}"#),
    );
    // Rows 44-45: go-cty collapses into known values; DESIGN §3: kept as decoded.
    row(
        "44",
        "c7070c8301c205020602",
        r#"["list","string"]"#,
        Dump(r#"{"$unknown":{"null":false,"len_min":2,"len_max":2}}"#),
    );
    row(
        "45",
        "c70b0c8301c2039202c3049202c3",
        N,
        Dump(r#"{"$unknown":{"null":false,"lower":[2,true],"upper":[2,true]}}"#),
    );
    row("46", "c7030c8164c2", B, Dump(r#"{"$unknown":{}}"#));
    // Row 47: go-cty fails ("non-integer key"); the spec: unknown keys are skipped.
    row(
        "47",
        "c70e0c8264c202a97072656669783a2f2f",
        S,
        Dump(r#"{"$unknown":{"prefix":"prefix://"}}"#),
    );
}

#[test]
fn rows_48_to_54_extension_edge_cases() {
    for ty in [S, N, B, D, r#"["list","string"]"#, r#"["tuple",["bool"]]"#] {
        // Row 48: go-cty fails on a non-12 code with 2 bytes; the spec: any code is unknown.
        row("48", "d5000000", ty, Dump(r#"{"$unknown":{}}"#));
        row("49a", "d40500", ty, Dump(r#"{"$unknown":{}}"#));
        row("49b", "c70000", ty, Dump(r#"{"$unknown":{}}"#));
    }
    row("50", "d60c8102a161", N, Fails(ErrorKind::InvalidRefinement));
    // Rows 51-52: go-cty panics; DESIGN §4.1: errors.
    row(
        "51",
        "c7050c8205050601",
        r#"["list","string"]"#,
        Fails(ErrorKind::InvalidRefinement),
    );
    row("52", "c7030c810390", N, Fails(ErrorKind::InvalidRefinement));
    row("53", "c7030c8101c2", D, Dump(r#"{"$unknown":{}}"#));
    let mut v54 = vec![0xc8, 0x04, 0x01, 0x0c, 0x81, 0x02, 0xda, 0x03, 0xfc];
    v54.extend(std::iter::repeat_n(b'p', 0x3fc));
    assert_eq!(v54.len(), 4 + 1025);
    check("54", &v54, S, Fails(ErrorKind::Limit));
}

#[test]
fn trailing_bytes_are_an_error_unlike_go_cty() {
    // §1.1: go-cty ignores trailing bytes; DESIGN §4.3: an error in the one-value API.
    row(
        "trailing",
        "a568656c6c6f00",
        S,
        Fails(ErrorKind::TrailingBytes),
    );
    row("trailing-nil", "c0c0", S, Fails(ErrorKind::TrailingBytes));
}
