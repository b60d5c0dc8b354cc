//! DESIGN.md §4, point by point, for MessagePack: errors where go-cty returns wrongly typed
//! values or panics; the spec's rules for extensions; trailing bytes; no NFC normalization and
//! no set de-duplication; last-duplicate map lookups; the drift options
//! `skip_unknown_attributes` and `missing_attributes_null`; str/bin interchangeability. The
//! optional `check_item_counts` is in `msgpack_item_counts.rs`.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use bumpalo::Bump;
use decode::{dump, dump_with, err, prog};
use mp::{hex, mp, Mp};
use tfwire::{dump, DecodeOptions, ErrorKind, Program};

fn kind(ty: &str, input: &[u8]) -> ErrorKind {
    err(ty, input).kind()
}

// ---- §4.1: errors instead of panics and wrongly typed values --------------------------------

#[test]
fn wrongly_typed_go_cty_results_are_errors() {
    // Empty map for an object with attributes; empty array for a non-empty tuple.
    assert_eq!(
        kind(r#"["object",{"a":"string"}]"#, &hex("80")),
        ErrorKind::MissingAttribute
    );
    assert_eq!(
        kind(r#"["tuple",["string"]]"#, &hex("90")),
        ErrorKind::WrongLength
    );
    // Duplicate object keys (the count matches, an attribute is lost in go-cty).
    let dup = mp().map(2).s("a").int(1).s("a").int(2).done();
    assert_eq!(
        kind(r#"["object",{"a":"number","b":"number"}]"#, &dup),
        ErrorKind::DuplicateKey
    );
    // Nil and non-string map keys (go-cty: "" and a swallowed error).
    for key in [
        mp().nil(),
        mp().int(1),
        mp().bool(true),
        mp().arr(0),
        mp().unknown(),
    ] {
        let input = mp().map(1).then(key).int(1).done();
        assert_eq!(
            kind(r#"["map","number"]"#, &input),
            ErrorKind::InvalidKey,
            "{input:02x?}"
        );
        assert_eq!(
            kind(r#"["object",{"a":"number"}]"#, &input),
            ErrorKind::InvalidKey
        );
    }
    // NaN (go-cty panics), also as a refinement bound.
    assert_eq!(
        kind("\"number\"", &mp().f64(f64::NAN).done()),
        ErrorKind::InvalidNumber
    );
    assert_eq!(
        kind("\"number\"", &mp().f32(f32::NAN).done()),
        ErrorKind::InvalidNumber
    );
    let nan_bound = mp()
        .refined(mp().map(1).int(3).arr(2).f64(f64::NAN).bool(true))
        .done();
    assert_eq!(kind("\"number\"", &nan_bound), ErrorKind::InvalidRefinement);
}

#[test]
fn inconsistent_refinements_are_errors() {
    let cases: Vec<(&str, Mp)> = vec![
        (
            "\"number\"",
            mp().map(2)
                .int(3)
                .arr(2)
                .int(5)
                .bool(true)
                .int(4)
                .arr(2)
                .int(1)
                .bool(true),
        ),
        ("\"number\"", mp().map(1).int(3).arr(0)),
        (
            r#"["list","string"]"#,
            mp().map(2).int(5).int(5).int(6).int(1),
        ),
        (r#"["set","string"]"#, mp().map(1).int(6).int(-1)),
        ("\"string\"", mp().map(2).int(1).bool(true).int(2).s("p")),
        ("\"string\"", mp().map(2).int(2).s("a").int(2).s("b")),
        ("\"bool\"", mp().map(2).int(1).bool(true).int(1).bool(false)),
        ("\"number\"", mp().map(1).int(2).s("p")),
    ];
    for (ty, refinements) in cases {
        let input = mp().refined(refinements).done();
        assert_eq!(
            kind(ty, &input),
            ErrorKind::InvalidRefinement,
            "{ty} {input:02x?}"
        );
    }
}

#[test]
fn optional_attribute_names_that_are_not_attributes_are_errors() {
    let e = Program::from_type_json(r#"["object",{"a":"string"},["z"]]"#).unwrap_err();
    assert_eq!(
        e.message(),
        r#"optional attribute "z" is not an attribute of the object type"#
    );
    let input = mp()
        .dynamic(r#"["object",{"a":"string"},["z"]]"#)
        .map(1)
        .s("a")
        .s("x")
        .done();
    assert_eq!(kind("\"dynamic\"", &input), ErrorKind::InvalidType);
    // Real optional attributes are fine, and still need their key on the wire.
    let t = r#"["object",{"a":"string","b":"number"},["b"]]"#;
    let input = mp().dynamic(t).map(1).s("a").s("x").done();
    assert_eq!(kind("\"dynamic\"", &input), ErrorKind::MissingAttribute);
}

// ---- §4.2: the spec's rules for extensions --------------------------------------------------

#[test]
fn any_extension_is_unknown_and_unknown_refinement_keys_are_skipped() {
    // go-cty: "unsupported extension type 0x00 with len 2"; the spec: unknown.
    assert_eq!(dump("\"string\"", &hex("d5000000")), r#"{"$unknown":{}}"#);
    assert_eq!(
        dump("\"string\"", &hex("c7057f0102030405")),
        r#"{"$unknown":{}}"#
    );
    // go-cty reads the next key from a skipped key's value; the spec: skip it.
    let input = mp()
        .refined(mp().map(2).int(64).s("zz").int(1).bool(false))
        .done();
    assert_eq!(dump("\"string\"", &input), r#"{"$unknown":{"null":false}}"#);
}

#[test]
fn nullness_true_stays_an_unknown() {
    // go-cty collapses it into a known null.
    let input = mp().refined(mp().map(1).int(1).bool(true)).done();
    let p = prog("\"string\"");
    let bump = Bump::new();
    let v = p.decode_msgpack(&input, &bump).unwrap();
    assert!(!v.is_known() && !v.is_null());
    assert_eq!(v.refinements().and_then(|r| r.nullness), Some(true));
}

// ---- §4.3: trailing bytes -------------------------------------------------------------------

#[test]
fn trailing_bytes_are_an_error_in_the_one_value_api() {
    assert_eq!(kind("\"bool\"", &hex("c3c3")), ErrorKind::TrailingBytes);
    assert_eq!(
        kind(r#"["list","bool"]"#, &hex("91c300")),
        ErrorKind::TrailingBytes
    );
    assert_eq!(kind("\"dynamic\"", &hex("c000")), ErrorKind::TrailingBytes);
}

// ---- §4.4: faithful to the wire -------------------------------------------------------------

#[test]
fn strings_are_not_nfc_normalized() {
    let nfd = "e\u{301}";
    let nfc = "\u{e9}";
    let p = prog("\"string\"");
    let bump = Bump::new();
    let input = mp().s(nfd).done();
    let v = p.decode_msgpack(&input, &bump).unwrap();
    assert_eq!(v.as_str().map(str::as_bytes), Some(nfd.as_bytes()));
    // Map keys: NFD and NFC stay two distinct keys.
    let input = mp().map(2).s(nfd).int(1).s(nfc).int(2).done();
    let p = prog(r#"["map","number"]"#);
    let v = p.decode_msgpack(&input, &bump).unwrap();
    assert_eq!(v.map_get(nfd).and_then(|x| x.as_i64()), Some(1));
    assert_eq!(v.map_get(nfc).and_then(|x| x.as_i64()), Some(2));
    // An NFD object key does not match an NFC attribute name (go-cty looks keys up before
    // normalizing, too).
    let input = mp().map(1).s(nfd).int(1).done();
    assert_eq!(
        kind(r#"["object",{"é":"number"}]"#, &input),
        ErrorKind::UnknownAttribute
    );
}

#[test]
fn sets_are_not_de_duplicated() {
    assert_eq!(dump(r#"["set","number"]"#, &hex("920101")), "[1,1]");
    assert_eq!(
        dump(
            r#"["set","number"]"#,
            &mp().arr(3).int(1).uint(1).s("1").done()
        ),
        "[1,1,1]"
    );
    assert_eq!(
        dump(r#"["set","string"]"#, &mp().arr(2).s("a").bin(b"a").done()),
        r#"["a","a"]"#
    );
    assert_eq!(
        dump(r#"["set","bool"]"#, &hex("93c0c0c0")),
        "[null,null,null]"
    );
    let obj = mp().map(1).s("a").s("x");
    let input = mp().arr(2).then(obj.clone()).then(obj).done();
    assert_eq!(
        dump(r#"["set",["object",{"a":"string"}]]"#, &input),
        r#"[{"a":"x"},{"a":"x"}]"#
    );
}

#[test]
fn map_lookups_see_the_last_of_duplicate_keys() {
    let p = prog(r#"["map","number"]"#);
    let bump = Bump::new();
    let input = mp().map(3).s("a").int(1).s("b").int(2).s("a").int(3).done();
    let v = p.decode_msgpack(&input, &bump).unwrap();
    assert_eq!(v.entries().map(<[_]>::len), Some(3), "every entry is kept");
    assert_eq!(v.map_get("a").and_then(|x| x.as_i64()), Some(3));
    assert_eq!(p.typed(v).get("a").and_then(|x| x.value.as_i64()), Some(3));
    assert_eq!(dump::to_string(&p, v).unwrap(), r#"{"a":3,"b":2}"#);
    // A str and a bin spelling of one key are the same key.
    let input = mp().map(2).s("k").int(1).bin(b"k").int(2).done();
    assert_eq!(dump(r#"["map","number"]"#, &input), r#"{"k":2}"#);
}

// ---- §4.5: drift options --------------------------------------------------------------------

fn skip() -> DecodeOptions {
    DecodeOptions::default().with_skip_unknown_attributes(true)
}

fn nulls() -> DecodeOptions {
    DecodeOptions::default().with_missing_attributes_null(true)
}

#[test]
fn skip_unknown_attributes() {
    let p = prog(r#"["object",{"a":"number","b":["list","string"]}]"#);
    let input = mp()
        .map(5)
        .s("a")
        .int(1)
        .s("old")
        .map(2)
        .s("x")
        .arr(2)
        .f64(1.0)
        .str16(&[0xff, 0xfe])
        .s("y")
        .ext(0, b"..")
        .s("b")
        .arr(1)
        .s("v")
        .s("z")
        .dynamic("\"bogus\"")
        .nil()
        .bin(b"with space")
        .raw(&hex("cf0000000000000001"))
        .done();
    assert_eq!(
        dump_with(&p, &input, &DecodeOptions::default())
            .unwrap_err()
            .kind(),
        ErrorKind::UnknownAttribute
    );
    // Skipped values are not decoded, only checked as MessagePack: invalid types inside them
    // pass, a string that is not UTF-8 does not (bin may hold any bytes).
    let e = dump_with(&p, &input, &skip()).unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset()),
        (ErrorKind::InvalidUtf8, ".old", Some(21)),
        "{e}"
    );
    let valid = input
        .windows(5)
        .position(|w| w == [0xda, 0x00, 0x02, 0xff, 0xfe])
        .map(|i| {
            let mut v = input.clone();
            v.splice(i + 3..i + 5, *b"ok");
            v
        })
        .unwrap();
    assert_eq!(
        dump_with(&p, &valid, &skip()).unwrap(),
        r#"{"a":1,"b":["v"]}"#
    );
    // Skipping does not excuse missing or duplicate attributes.
    let missing = mp().map(2).s("a").int(1).s("x").int(2).done();
    assert_eq!(
        dump_with(&p, &missing, &skip()).unwrap_err().kind(),
        ErrorKind::MissingAttribute
    );
    let dup = mp().map(3).s("a").int(1).s("x").nil().s("a").int(2).done();
    assert_eq!(
        dump_with(&p, &dup, &skip()).unwrap_err().kind(),
        ErrorKind::DuplicateKey
    );
    // Nested objects, and objects inside dynamic values, skip too.
    let nested = prog(r#"["list",["object",{"a":"bool","d":"dynamic"}]]"#);
    let input = mp()
        .arr(1)
        .map(3)
        .s("zz")
        .int(0)
        .s("a")
        .bool(true)
        .s("d")
        .dynamic(r#"["object",{"n":"number"}]"#)
        .map(2)
        .s("gone")
        .nil()
        .s("n")
        .int(1)
        .done();
    let want = r#"[{"a":true,"d":{"type":["object",{"n":"number"}],"value":{"n":1}}}]"#;
    assert_eq!(dump_with(&nested, &input, &skip()).unwrap(), want);
}

#[test]
fn missing_attributes_null() {
    let p = prog(r#"["object",{"a":"number","b":"number","c":["list","bool"]}]"#);
    let one = mp().map(1).s("b").int(2).done();
    assert_eq!(
        dump_with(&p, &one, &DecodeOptions::default())
            .unwrap_err()
            .kind(),
        ErrorKind::MissingAttribute
    );
    assert_eq!(
        dump_with(&p, &one, &nulls()).unwrap(),
        r#"{"a":null,"b":2,"c":null}"#
    );
    assert_eq!(
        dump_with(&p, &hex("80"), &nulls()).unwrap(),
        r#"{"a":null,"b":null,"c":null}"#
    );
    let unordered = mp().map(2).s("c").arr(0).s("a").int(1).done();
    assert_eq!(
        dump_with(&p, &unordered, &nulls()).unwrap(),
        r#"{"a":1,"b":null,"c":[]}"#
    );
    // Still strict about unknown and duplicate keys, and about tuples.
    let unknown = mp().map(1).s("x").int(1).done();
    assert_eq!(
        dump_with(&p, &unknown, &nulls()).unwrap_err().kind(),
        ErrorKind::UnknownAttribute
    );
    let dup = mp().map(2).s("b").int(1).s("b").int(1).done();
    assert_eq!(
        dump_with(&p, &dup, &nulls()).unwrap_err().kind(),
        ErrorKind::DuplicateKey
    );
    let t = prog(r#"["tuple",["number","number"]]"#);
    assert_eq!(
        dump_with(&t, &hex("9101"), &nulls()).unwrap_err().kind(),
        ErrorKind::WrongLength
    );
}

#[test]
fn both_drift_options_read_a_renamed_attribute() {
    // State written by an older schema: "name" was renamed to "title".
    let p = prog(r#"["object",{"id":"string","title":"string"}]"#);
    let old = mp().map(2).s("id").s("i-1").s("name").s("web").done();
    let both = DecodeOptions::default()
        .with_skip_unknown_attributes(true)
        .with_missing_attributes_null(true);
    assert_eq!(
        dump_with(&p, &old, &both).unwrap(),
        r#"{"id":"i-1","title":null}"#
    );
    assert_eq!(
        dump_with(&p, &old, &skip()).unwrap_err().kind(),
        ErrorKind::MissingAttribute
    );
    assert_eq!(
        dump_with(&p, &old, &nulls()).unwrap_err().kind(),
        ErrorKind::UnknownAttribute
    );
}

// ---- §4.7: str and bin are interchangeable --------------------------------------------------

#[test]
fn str_and_bin_are_interchangeable_wherever_a_string_is_read() {
    assert_eq!(dump("\"string\"", &mp().bin(b"x").done()), r#""x""#);
    assert_eq!(dump("\"number\"", &mp().bin(b"1.5").done()), "1.5");
    assert_eq!(
        dump(
            r#"["map","bool"]"#,
            &mp().map(1).bin(b"k").bool(true).done()
        ),
        r#"{"k":true}"#
    );
    let obj = mp().map(2).bin(b"b").int(2).bin16(b"a").int(1).done();
    assert_eq!(
        dump(r#"["object",{"a":"number","b":"number"}]"#, &obj),
        r#"{"a":1,"b":2}"#
    );
    let d = mp().arr(2).s("\"bool\"").bool(true).done();
    assert_eq!(dump("\"dynamic\"", &d), r#"{"type":"bool","value":true}"#);
    let prefix = mp().refined(mp().map(1).int(2).bin(b"ab")).done();
    assert_eq!(
        dump("\"string\"", &prefix),
        r#"{"$unknown":{"prefix":"ab"}}"#
    );
    let bound = mp()
        .refined(mp().map(1).int(3).arr(2).bin(b"2.5").bool(false))
        .done();
    assert_eq!(
        dump("\"number\"", &bound),
        r#"{"$unknown":{"lower":[2.5,false]}}"#
    );
}
