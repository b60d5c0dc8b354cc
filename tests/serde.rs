//! serde interop (`src/serde/`): `Serialize for Typed` (exact JSON through serde_json),
//! `from_typed` (exact values, borrowed strings, exact error paths and messages),
//! `MaybeUnknown`, the acceptance test over the corpus's `aws_security_group` and
//! `aws_instance` instances, and serde_json's text of every corpus instance and workload
//! against tfwire's JSON encoder and go-cty's JSON.
//!
//! The corpus tests need the shared checkout (`$TFWIRE_SHARED`, default `../shared`) and fail
//! without it: they are the issue's acceptance test.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use bumpalo::Bump;
use serde::de::IgnoredAny;
use serde::Deserialize;
use tfwire::state::{Mode, Outcome, SchemaSet, StateFile};
use tfwire::{
    from_typed, DeError, DecodeOptions, InfinityAs, MaybeUnknown, Object, Program,
    SerializeOptions, Typed, UnknownAs, Value,
};

fn program(ty: &str) -> Program {
    Program::from_type_json(ty).unwrap()
}

/// MessagePack bytes of an rmpv value (`unknown()` for an unknown).
fn mp(v: rmpv::Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, &v).unwrap();
    out
}

fn unknown() -> rmpv::Value {
    rmpv::Value::Ext(0, vec![0])
}

fn obj(entries: Vec<(&str, rmpv::Value)>) -> rmpv::Value {
    rmpv::Value::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

fn to_json(t: Typed<'_>) -> String {
    serde_json::to_string(&t).unwrap()
}

fn ser_error(t: Typed<'_>) -> String {
    serde_json::to_string(&t).unwrap_err().to_string()
}

fn de_error<'de, T: Deserialize<'de> + std::fmt::Debug>(t: Typed<'de>) -> String {
    let e: DeError = from_typed::<T>(t).unwrap_err();
    // Display is exactly `at PATH: MESSAGE`.
    let path = if e.path().is_empty() {
        "(root)"
    } else {
        e.path()
    };
    assert_eq!(e.to_string(), format!("at {path}: {}", e.message()));
    e.to_string()
}

/// Runs `f` on a thread with a large stack (for the nesting caps, at a thousand levels).
fn big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

const ALL_KINDS: &str = r#"["object",{"b":"bool","n":"number","s":"string",
    "l":["list","number"],"set":["set","string"],"t":["tuple",["string","bool"]],
    "m":["map","number"],"o":["object",{"z":"string","a":"number"}],"nul":"string",
    "d":"dynamic","dn":"dynamic"}]"#;

const ALL_KINDS_JSON: &[u8] = br#"{"s":"x\"y","b":true,"n":1.5,"l":[1,-2,3.0,"4"],
    "set":["b","a"],"t":["q",false],"m":{"z":1,"a":2},"o":{"z":"zz","a":0.25},"nul":null,
    "d":{"value":{"x":[1,2]},"type":["object",{"x":["list","number"]}]},"dn":null}"#;

#[test]
fn serialize_every_kind() {
    let p = program(ALL_KINDS);
    let bump = Bump::new();
    let v = p.decode_json(ALL_KINDS_JSON, &bump).unwrap();
    // Attributes in name order (bytewise), the map sorted, the set in the order it holds,
    // numbers by value (3.0 and "4" are integers), the dynamic value looked through.
    assert_eq!(
        to_json(p.typed(v)),
        r#"{"b":true,"d":{"x":[1,2]},"dn":null,"l":[1,-2,3,4],"m":{"a":2,"z":1},"n":1.5,"nul":null,"o":{"a":0.25,"z":"zz"},"s":"x\"y","set":["b","a"],"t":["q",false]}"#
    );
    // The same value read by the deserializer as a serde_json::Value is the same tree.
    let via_de: serde_json::Value = from_typed(p.typed(v)).unwrap();
    assert_eq!(via_de, serde_json::to_value(p.typed(v)).unwrap());
}

#[test]
fn serialize_numbers() {
    let p = program(r#"["list","number"]"#);
    let nums = [
        Value::Int(-7),
        Value::UInt(u64::MAX),
        Value::UInt(5),
        Value::Float(2.5),
        Value::Float(4.0),
        Value::Float(-0.0),
        Value::Float(1e20),
        Value::Decimal("1e3"),
        Value::Decimal("0.1"),
        Value::Decimal("-0"),
        Value::Decimal("+.5"),
        Value::Decimal("1p-1"),
        Value::Decimal("-9223372036854775809"),
        Value::Decimal("1e400"),
        Value::Decimal("1e-400"),
        Value::Decimal("0.10000000000000000000001"),
        Value::Decimal("123456789012345678901234567890"),
    ];
    assert_eq!(
        to_json(p.typed(Value::List(&nums))),
        concat!(
            // (serde_json writes the f64 1e20 as `1e+20`; no f64 is -2^63-1.)
            r#"[-7,18446744073709551615,5,2.5,4,0,1e+20,1000,0.1,0,0.5,0.5,"-9223372036854775809","#,
            r#""1e400","1e-400","0.10000000000000000000001","123456789012345678901234567890"]"#
        )
    );
}

#[test]
fn serialize_maps_as_go_cty_holds_them() {
    let p = program(r#"["map","number"]"#);
    // A repeated key once, with its last value; keys sorted bytewise ("B" < "a").
    let entries = [
        ("b", Value::Int(1)),
        ("a", Value::Int(2)),
        ("b", Value::Int(3)),
        ("B", Value::Int(4)),
    ];
    assert_eq!(
        to_json(p.typed(Value::Map(&entries))),
        r#"{"B":4,"a":2,"b":3}"#
    );
    assert_eq!(to_json(p.typed(Value::Map(&[]))), "{}");
    // The deserializer sees the same entries.
    let map: Vec<(String, i64)> =
        from_typed::<BTreeMap<String, i64>>(p.typed(Value::Map(&entries)))
            .unwrap()
            .into_iter()
            .collect();
    assert_eq!(map, [("B".into(), 4), ("a".into(), 2), ("b".into(), 3)]);
    let pairs: Vec<(&str, i64)> = {
        #[derive(Deserialize)]
        struct Pairs<'a>(#[serde(borrow)] HashMap<&'a str, i64>);
        let Pairs(m) = from_typed(p.typed(Value::Map(&entries))).unwrap();
        let mut v: Vec<_> = m.into_iter().collect();
        v.sort();
        v
    };
    assert_eq!(pairs, [("B", 4), ("a", 2), ("b", 3)]);
}

#[test]
fn serialize_unknowns() {
    let p = program(r#"["object",{"a":["map",["list",["object",{"x":"number"}]]],"b":"string"}]"#);
    let input = mp(obj(vec![
        (
            "a",
            obj(vec![(
                "k",
                rmpv::Value::Array(vec![
                    obj(vec![("x", 1.into())]),
                    obj(vec![("x", unknown())]),
                ]),
            )]),
        ),
        ("b", "s".into()),
    ]));
    let bump = Bump::new();
    let root = p.typed(p.decode_msgpack(&input, &bump).unwrap());
    assert_eq!(
        ser_error(root),
        r#"at .a["k"][1].x: unknown value (serialize with UnknownAs::Null to write null)"#
    );
    let null = SerializeOptions::default().with_unknown(UnknownAs::Null);
    assert_eq!(
        serde_json::to_string(&root.serialize_with(null)).unwrap(),
        r#"{"a":{"k":[{"x":1},{"x":null}]},"b":"s"}"#
    );
    // At the root, and under a name that is not an identifier.
    let any = program(r#""string""#);
    assert_eq!(
        ser_error(any.typed(Value::Unknown(None))),
        "at (root): unknown value (serialize with UnknownAs::Null to write null)"
    );
    let odd = program(r#"["object",{"my attr":"string"}]"#);
    let attrs = [Value::Unknown(None)];
    let v = Value::Object(Object::new(odd.root(), &attrs));
    assert_eq!(
        ser_error(odd.typed(v)),
        r#"at ["my attr"]: unknown value (serialize with UnknownAs::Null to write null)"#
    );
}

#[test]
fn serialize_infinities() {
    let p = program(r#"["list","number"]"#);
    let nums = [Value::Int(1), Value::Float(f64::INFINITY)];
    assert_eq!(
        ser_error(p.typed(Value::List(&nums))),
        "at [1]: number +Inf is infinite (JSON cannot hold it; serialize with \
         InfinityAs::Float to write an f64)"
    );
    let text = [Value::Decimal("-inf")];
    assert_eq!(
        ser_error(p.typed(Value::List(&text))),
        "at [0]: number -Inf is infinite (JSON cannot hold it; serialize with \
         InfinityAs::Float to write an f64)"
    );
    let float = SerializeOptions::default().with_infinity(InfinityAs::Float);
    // serde_json writes a non-finite f64 as null; serde_json::Value holds it as null too.
    let t = p.typed(Value::List(&nums)).serialize_with(float);
    assert_eq!(serde_json::to_string(&t).unwrap(), "[1,null]");
    // Deserialized, an infinity is an f64 infinity; a finite number beyond f64 is an error.
    let inf: Vec<f64> = from_typed(p.typed(Value::List(&text))).unwrap();
    assert_eq!(inf, [f64::NEG_INFINITY]);
    let huge = [Value::Decimal("1e400")];
    assert_eq!(
        de_error::<Vec<f64>>(p.typed(Value::List(&huge))),
        "at [0]: number 1e400 is out of range for f64"
    );
    assert_eq!(
        de_error::<Vec<f32>>(p.typed(Value::List(&[Value::Float(1e39)]))),
        "at [0]: number 1000000000000000000000000000000000000000 is out of range for f32"
    );
}

/// A value as deep as a decode allows ([`tfwire::MAX_DEPTH`] containers) serializes and
/// deserializes on a 2 MiB thread (a spawned thread's default) even in a debug build: both
/// sides recurse once per level (about 2–4 KiB a level in a debug build, with serde_json).
#[test]
fn max_depth_fits_a_default_thread_stack() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let p = program(r#"["list","dynamic"]"#);
            let bump = Bump::new();
            let v = nested(&bump, tfwire::MAX_DEPTH as usize);
            assert_eq!(to_json(p.typed(v)).len(), 2 * 512 + 4);
            let _: serde_json::Value = from_typed(p.typed(v)).unwrap();
        })
        .unwrap()
        .join()
        .unwrap();
}

/// `depth` lists nested around a null, in `bump`.
fn nested<'a>(bump: &'a Bump, depth: usize) -> Value<'a> {
    let mut v = Value::Null;
    for _ in 0..depth {
        v = Value::List(bump.alloc_slice_copy(&[v]));
    }
    v
}

#[test]
fn nesting_is_capped() {
    big_stack(|| {
        let p = program(r#"["list","dynamic"]"#);
        let bump = Bump::new();
        // MAX_VALUE_DEPTH (512) lists around a null are within the cap; one more is past it.
        let ok = nested(&bump, 512);
        let json = to_json(p.typed(ok));
        assert_eq!(json.len(), 2 * 512 + 4);
        let _: serde_json::Value = from_typed(p.typed(ok)).unwrap();
        let deep = nested(&bump, 513);
        let path = "[0]".repeat(512);
        assert_eq!(
            ser_error(p.typed(deep)),
            format!("at {path}: nested more than 512 levels deep")
        );
        assert_eq!(
            de_error::<serde_json::Value>(p.typed(deep)),
            format!("at {path}: nested more than 512 levels deep")
        );
        // IgnoredAny looks at nothing.
        let _: IgnoredAny = from_typed(p.typed(deep)).unwrap();
    });
}

#[derive(Debug, Deserialize, PartialEq)]
enum Kind {
    Square,
    Round,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Nested<'a> {
    x: i8,
    #[serde(borrow)]
    y: Option<&'a str>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Everything<'a> {
    name: &'a str,
    owned: String,
    count: i32,
    ratio: f64,
    big: u64,
    neg: i128,
    flag: bool,
    letter: char,
    maybe: Option<&'a str>,
    absent: Option<i64>,
    #[serde(borrow)]
    tags: BTreeMap<&'a str, &'a str>,
    #[serde(borrow)]
    list: Vec<&'a str>,
    set: BTreeSet<u16>,
    pair: (String, bool),
    kind: Kind,
    #[serde(borrow)]
    nested: Nested<'a>,
    #[serde(borrow)]
    dynamic: Nested<'a>,
    ignored: IgnoredAny,
}

const EVERYTHING: &str = r#"["object",{"name":"string","owned":"string","count":"number",
    "ratio":"number","big":"number","neg":"number","flag":"bool","letter":"string",
    "maybe":"string","absent":"number","tags":["map","string"],"list":["list","string"],
    "set":["set","number"],"pair":["tuple",["string","bool"]],"kind":"string",
    "nested":["object",{"x":"number","y":"string"}],"dynamic":"dynamic",
    "ignored":["list","number"],"extra":"string"}]"#;

const EVERYTHING_JSON: &str = r#"{"name":"web","owned":"o","count":-2147483648,
    "ratio":"0.5","big":18446744073709551615,"neg":-1e30,"flag":true,"letter":"é",
    "maybe":"m","absent":null,"tags":{"Name":"n","Env":"prod"},"list":["a","b"],
    "set":[443,80],"pair":["p",false],"kind":"Round","nested":{"x":-128,"y":null},
    "dynamic":{"value":{"x":7,"y":"dy"},"type":["object",{"x":"number","y":"string"}]},
    "ignored":[1,2],"extra":"ignored too"}"#;

#[test]
fn deserialize_every_kind() {
    let p = program(EVERYTHING);
    let bump = Bump::new();
    let input = EVERYTHING_JSON.as_bytes();
    let root = p.typed(p.decode_json(input, &bump).unwrap());
    let e: Everything = from_typed(root).unwrap();
    assert_eq!(
        e,
        Everything {
            name: "web",
            owned: "o".into(),
            count: i32::MIN,
            ratio: 0.5,
            big: u64::MAX,
            neg: -1_000_000_000_000_000_000_000_000_000_000,
            flag: true,
            letter: 'é',
            maybe: Some("m"),
            absent: None,
            tags: BTreeMap::from([("Env", "prod"), ("Name", "n")]),
            list: vec!["a", "b"],
            set: BTreeSet::from([80, 443]),
            pair: ("p".into(), false),
            kind: Kind::Round,
            nested: Nested { x: -128, y: None },
            dynamic: Nested {
                x: 7,
                y: Some("dy")
            },
            ignored: IgnoredAny,
        }
    );
    // f64 from any number.
    let numbers = [
        Value::Int(-1),
        Value::UInt(2),
        Value::Float(2.5),
        Value::Decimal("1e3"),
        Value::Decimal("0.1"),
    ];
    let list = program(r#"["list","number"]"#);
    let fs: Vec<f64> = from_typed(list.typed(Value::List(&numbers))).unwrap();
    assert_eq!(fs, [-1.0, 2.0, 2.5, 1000.0, 0.1]);
    // Every &str points into the input.
    let range = input.as_ptr_range();
    let strs = [e.name, e.maybe.unwrap(), e.dynamic.y.unwrap()]
        .into_iter()
        .chain(e.tags.iter().flat_map(|(k, v)| [*k, *v]))
        .chain(e.list.iter().copied());
    for s in strs {
        assert!(range.contains(&s.as_ptr()), "{s:?} is not borrowed");
    }
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Group<'a> {
    name: &'a str,
    #[serde(borrow)]
    ingress: Vec<Rule<'a>>,
    #[serde(borrow)]
    tags: Option<HashMap<&'a str, &'a str>>,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Rule<'a> {
    from_port: i32,
    #[serde(borrow)]
    cidr_blocks: Vec<&'a str>,
}

const GROUP: &str = r#"["object",{"name":"string","tags":["map","string"],"extra":"bool",
    "ingress":["list",["object",{"from_port":"number","cidr_blocks":["list","string"]}]]}]"#;

/// The error `from_typed::<T>` gives for a `GROUP` in JSON.
fn group_error<T: for<'de> Deserialize<'de> + std::fmt::Debug>(json: &str) -> String {
    let p = program(GROUP);
    let bump = Bump::new();
    let root = p.typed(p.decode_json(json.as_bytes(), &bump).unwrap());
    let e = from_typed::<T>(root).unwrap_err();
    e.to_string()
}

fn group_error_borrowed(json: &str) -> String {
    let p = program(GROUP);
    let bump = Bump::new();
    let root = p.typed(p.decode_json(json.as_bytes(), &bump).unwrap());
    de_error::<Group>(root)
}

#[test]
fn deserialize_errors_name_the_path() {
    let rule = |port: &str| {
        format!(
            r#"{{"name":"g","ingress":[{{"from_port":1,"cidr_blocks":[]}},{{"from_port":2,"cidr_blocks":[]}},{{"from_port":{port},"cidr_blocks":["a"]}}]}}"#
        )
    };
    assert_eq!(
        group_error_borrowed(&rule("1e10")),
        "at .ingress[2].from_port: number 1e10 is out of range for i32"
    );
    assert_eq!(
        group_error_borrowed(&rule("-2147483649")),
        "at .ingress[2].from_port: number -2147483649 is out of range for i32"
    );
    assert_eq!(
        group_error_borrowed(&rule("1.5")),
        "at .ingress[2].from_port: number 1.5 is not an integer (expected i32)"
    );
    assert_eq!(
        group_error_borrowed(&rule("null")),
        "at .ingress[2].from_port: invalid type: null, expected i32"
    );
    // Type mismatches: a string where an integer is wanted, a list where a string is.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Wrong {
        name: i64,
    }
    assert_eq!(
        group_error::<Wrong>(r#"{"name":"g"}"#),
        "at .name: invalid type: string \"g\", expected i64"
    );
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Wrong2 {
        ingress: String,
    }
    assert_eq!(
        group_error::<Wrong2>(r#"{"ingress":[]}"#),
        "at .ingress: invalid type: list, expected a string"
    );
    assert_eq!(
        group_error_borrowed(r#"{"name":null,"ingress":[]}"#),
        "at .name: invalid type: null, expected a borrowed string"
    );
    // A map's values, by key (in go-cty's order: "Name" < "a").
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Tags {
        tags: BTreeMap<String, i64>,
    }
    assert_eq!(
        group_error::<Tags>(r#"{"tags":{"a":"1","Name":"x"}}"#),
        r#"at .tags["Name"]: invalid type: string "x", expected i64"#
    );
    // Keys read as the key type asks (as serde_json reads object keys).
    let ports = [
        ("443", Value::String("https")),
        ("80", Value::String("http")),
    ];
    let strings = program(r#"["map","string"]"#);
    let by_port = strings.typed(Value::Map(&ports));
    let map: BTreeMap<u16, &str> = from_typed(by_port).unwrap();
    assert_eq!(map, BTreeMap::from([(80, "http"), (443, "https")]));
    let m = program(r#"["map","number"]"#);
    let numbers = [("1.5", Value::Int(1)), ("x", Value::Int(2))];
    assert_eq!(
        de_error::<HashMap<i64, i64>>(m.typed(Value::Map(&numbers))),
        r#"at ["1.5"]: invalid type: string "1.5", expected i64"#
    );
    let entries = [("a", Value::Int(1)), ("b c", Value::Int(300))];
    assert_eq!(
        de_error::<HashMap<String, u8>>(m.typed(Value::Map(&entries))),
        r#"at ["b c"]: number 300 is out of range for u8"#
    );
    // A field the type does not have.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Missing {
        name: String,
        port: i64,
    }
    assert_eq!(
        group_error::<Missing>(r#"{"name":"g"}"#),
        "at (root): missing field `port`"
    );
    // deny_unknown_fields: the first attribute the struct does not have.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        name: String,
    }
    assert_eq!(
        group_error::<Strict>(r#"{"name":"g"}"#),
        "at .extra: unknown field `extra`, expected `name`"
    );
    // An enum from a string that names no variant; a tuple of the wrong length.
    let p = program(r#"["object",{"k":"string","t":["tuple",["string","bool","number"]]}]"#);
    let bump = Bump::new();
    let v = p
        .decode_json(br#"{"k":"Oval","t":["a",true,1]}"#, &bump)
        .unwrap();
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct K {
        k: Kind,
    }
    assert_eq!(
        de_error::<K>(p.typed(v)),
        "at .k: unknown variant `Oval`, expected `Square` or `Round`"
    );
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct T {
        t: (String, bool),
    }
    assert_eq!(
        de_error::<T>(p.typed(v)),
        "at .t: invalid length 3, expected 2 elements"
    );
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct T4 {
        t: (String, bool, i64, i64),
    }
    assert_eq!(
        de_error::<T4>(p.typed(v)),
        "at .t: invalid length 3, expected a tuple of size 4"
    );
}

#[test]
fn unknowns_need_maybe_unknown() {
    let p = program(GROUP);
    let input = mp(obj(vec![
        ("extra", unknown()),
        (
            "ingress",
            rmpv::Value::Array(vec![obj(vec![
                (
                    "cidr_blocks",
                    rmpv::Value::Array(vec!["a".into(), unknown()]),
                ),
                ("from_port", unknown()),
            ])]),
        ),
        ("name", "g".into()),
        ("tags", obj(vec![("Name", unknown())])),
    ]));
    let bump = Bump::new();
    let root = p.typed(p.decode_msgpack(&input, &bump).unwrap());
    // A plain field: an error at the unknown's path (the first the struct reaches:
    // attributes come in name order).
    assert_eq!(
        de_error::<Group>(root),
        "at .ingress[0].cidr_blocks[1]: unknown value (a field of type \
         tfwire::MaybeUnknown<T> accepts one)"
    );
    // `Option` is no way around it: an unknown is not a null.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Tags<'a> {
        #[serde(borrow)]
        tags: Option<BTreeMap<&'a str, Option<&'a str>>>,
    }
    assert_eq!(
        de_error::<Tags>(root),
        r#"at .tags["Name"]: unknown value (a field of type tfwire::MaybeUnknown<T> accepts one)"#
    );
    // MaybeUnknown fields take them; an ignored attribute (`extra`) may be unknown.
    #[derive(Debug, Deserialize, PartialEq)]
    struct Lenient<'a> {
        name: MaybeUnknown<&'a str>,
        #[serde(borrow)]
        ingress: MaybeUnknown<Vec<LenientRule<'a>>>,
        #[serde(borrow)]
        tags: BTreeMap<&'a str, MaybeUnknown<Option<&'a str>>>,
    }
    #[derive(Debug, Deserialize, PartialEq)]
    struct LenientRule<'a> {
        from_port: MaybeUnknown<i32>,
        #[serde(borrow)]
        cidr_blocks: Vec<MaybeUnknown<&'a str>>,
    }
    let l: Lenient = from_typed(root).unwrap();
    assert_eq!(
        l,
        Lenient {
            name: MaybeUnknown::Known("g"),
            ingress: MaybeUnknown::Known(vec![LenientRule {
                from_port: MaybeUnknown::Unknown,
                cidr_blocks: vec![MaybeUnknown::Known("a"), MaybeUnknown::Unknown],
            }]),
            tags: BTreeMap::from([("Name", MaybeUnknown::Unknown)]),
        }
    );
    // A whole collection unknown; null inside MaybeUnknown<Option<_>>.
    let list = program(r#"["list","number"]"#);
    let u: MaybeUnknown<Vec<i64>> = from_typed(list.typed(Value::Unknown(None))).unwrap();
    assert_eq!(u, MaybeUnknown::Unknown);
    let n: MaybeUnknown<Option<Vec<i64>>> = from_typed(list.typed(Value::Null)).unwrap();
    assert_eq!(n, MaybeUnknown::Known(None));
    let k: MaybeUnknown<Option<Vec<i64>>> =
        from_typed(list.typed(Value::List(&[Value::Int(1)]))).unwrap();
    assert_eq!(k.known(), Some(Some(vec![1])));
    // With other deserializers MaybeUnknown is always known; it serializes as its content.
    let j: MaybeUnknown<i32> = serde_json::from_str("5").unwrap();
    assert_eq!(j, MaybeUnknown::Known(5));
    assert_eq!(serde_json::to_string(&j).unwrap(), "5");
    let unknown: MaybeUnknown<i32> = MaybeUnknown::Unknown;
    assert_eq!(serde_json::to_string(&unknown).unwrap(), "null");
    // serde_json::Value and the like: an unknown is an error, as in serializing.
    assert_eq!(
        de_error::<serde_json::Value>(root),
        "at .extra: unknown value (a field of type tfwire::MaybeUnknown<T> accepts one)"
    );
}

#[test]
fn enums_from_strings_and_single_entry_maps() {
    #[derive(Debug, Deserialize, PartialEq)]
    enum Shape {
        Dot,
        Circle { r: f64 },
        Pair(i64, i64),
        Named(String),
    }
    #[derive(Debug, Deserialize, PartialEq)]
    struct Shapes {
        a: Shape,
        b: Shape,
        c: Shape,
        d: Shape,
    }
    let p = program(
        r#"["object",{"a":["map",["object",{"r":"number"}]],
            "b":["map",["tuple",["number","number"]]],"c":["map","string"],"d":["map","string"]}]"#,
    );
    let bump = Bump::new();
    let json = br#"{"a":{"Circle":{"r":2}},"b":{"Pair":[1,2]},"c":{"Named":"n"},"d":{"Dot":null}}"#;
    let v = p.decode_json(json, &bump).unwrap();
    let shapes: Shapes = from_typed(p.typed(v)).unwrap();
    assert_eq!(
        shapes,
        Shapes {
            a: Shape::Circle { r: 2.0 },
            b: Shape::Pair(1, 2),
            c: Shape::Named("n".into()),
            d: Shape::Dot
        }
    );
    let s = program(r#""string""#);
    let dot: Shape = from_typed(s.typed(Value::String("Dot"))).unwrap();
    assert_eq!(dot, Shape::Dot);
    let m = program(r#"["map",["object",{"r":"string"}]]"#);
    let v = m.decode_json(br#"{"Circle":{"r":"x"}}"#, &bump).unwrap();
    assert_eq!(
        de_error::<Shape>(m.typed(v)),
        r#"at ["Circle"].r: invalid type: string "x", expected f64"#
    );
    let two = m
        .decode_json(br#"{"Circle":{"r":"x"},"Dot":null}"#, &bump)
        .unwrap();
    assert_eq!(
        de_error::<Shape>(m.typed(two)),
        "at (root): invalid length 2, expected one entry: the variant"
    );
}

// ---------------------------------------------------------------------------------------
// The corpus (needs the shared checkout; fails without it).

/// The shared checkout's corpus; a failure when it is absent.
fn corpus() -> PathBuf {
    let shared = common::shared_path();
    let corpus = shared.join("corpus");
    assert!(
        corpus.is_dir(),
        "the shared checkout's corpus {} is absent: this test needs it (set TFWIRE_SHARED)",
        corpus.display()
    );
    corpus
}

fn files(dir: &Path, ext: &str, recursive: bool, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if recursive {
                files(&path, ext, true, out);
            }
        } else if path.to_str().unwrap().ends_with(ext) {
            out.push(path);
        }
    }
    out.sort();
}

fn state_files() -> Vec<PathBuf> {
    let mut states = Vec::new();
    files(&corpus().join("states"), ".tfstate", true, &mut states);
    assert_eq!(states.len(), 213);
    states
}

#[derive(Debug, Deserialize)]
struct SecurityGroup<'a> {
    id: &'a str,
    arn: &'a str,
    name: &'a str,
    name_prefix: &'a str,
    description: &'a str,
    owner_id: &'a str,
    vpc_id: &'a str,
    revoke_rules_on_delete: bool,
    #[serde(borrow)]
    tags: Option<BTreeMap<&'a str, &'a str>>,
    #[serde(borrow)]
    tags_all: Option<HashMap<&'a str, &'a str>>,
    #[serde(borrow)]
    ingress: Vec<SgRule<'a>>,
    #[serde(borrow)]
    egress: Vec<SgRule<'a>>,
    #[serde(borrow)]
    timeouts: Option<Timeouts<'a>>,
}

#[derive(Debug, Deserialize)]
struct SgRule<'a> {
    from_port: i64,
    to_port: i64,
    protocol: &'a str,
    description: &'a str,
    #[serde(borrow)]
    cidr_blocks: Vec<&'a str>,
    #[serde(borrow)]
    ipv6_cidr_blocks: Vec<&'a str>,
    #[serde(borrow)]
    prefix_list_ids: Vec<&'a str>,
    #[serde(borrow)]
    security_groups: BTreeSet<&'a str>,
    #[serde(rename = "self")]
    self_: bool,
}

#[derive(Debug, Deserialize)]
struct Timeouts<'a> {
    create: Option<&'a str>,
    delete: Option<&'a str>,
}

#[derive(Debug, Deserialize)]
struct Instance<'a> {
    id: &'a str,
    arn: &'a str,
    ami: &'a str,
    instance_type: &'a str,
    instance_state: &'a str,
    availability_zone: &'a str,
    subnet_id: &'a str,
    private_ip: &'a str,
    public_ip: Option<&'a str>,
    cpu_core_count: u32,
    cpu_threads_per_core: u8,
    ebs_optimized: bool,
    monitoring: bool,
    host_id: Option<&'a str>,
    user_data: Option<&'a str>,
    #[serde(borrow)]
    tags: Option<BTreeMap<&'a str, &'a str>>,
    #[serde(borrow)]
    security_groups: Vec<&'a str>,
    #[serde(borrow)]
    vpc_security_group_ids: BTreeSet<&'a str>,
    #[serde(borrow)]
    root_block_device: Vec<RootBlockDevice<'a>>,
    #[serde(borrow)]
    metadata_options: Vec<MetadataOptions<'a>>,
    #[serde(borrow)]
    credit_specification: Vec<BTreeMap<&'a str, Option<&'a str>>>,
    ebs_block_device: Vec<IgnoredAny>,
    #[serde(borrow)]
    timeouts: Option<Timeouts<'a>>,
}

#[derive(Debug, Deserialize)]
struct RootBlockDevice<'a> {
    device_name: &'a str,
    volume_id: &'a str,
    volume_type: &'a str,
    volume_size: u32,
    iops: u32,
    throughput: Option<u32>,
    encrypted: bool,
    delete_on_termination: bool,
    kms_key_id: &'a str,
}

#[derive(Debug, Deserialize)]
struct MetadataOptions<'a> {
    http_endpoint: &'a str,
    http_put_response_hop_limit: u8,
    http_tokens: &'a str,
}

/// Every non-empty `&str` of `strs` lies inside `text`.
fn assert_borrowed<'a>(text: &str, what: &str, strs: impl IntoIterator<Item = &'a str>) {
    let range = text.as_bytes().as_ptr_range();
    let mut n = 0;
    for s in strs {
        assert!(
            range.contains(&s.as_ptr()),
            "{what}: {s:?} is not borrowed from the state text"
        );
        n += 1;
    }
    assert!(n > 0, "{what}: no strings");
}

/// The issue's acceptance test: every `aws_security_group` and `aws_instance` instance of
/// the corpus's state files into derived structs, strings borrowed from the state text.
#[test]
fn corpus_security_groups_and_instances() {
    const TYPES: [&str; 2] = ["aws_security_group", "aws_instance"];
    let corpus = corpus();
    let mut set = SchemaSet::new();
    let doc = corpus.join("schemas/derived/driftctl-aws-3.62.0.schemas.json");
    set.add_json(&std::fs::read_to_string(doc).unwrap())
        .unwrap();
    // Two of the instances have an attribute the aws 3.62.0 schema does not (a driftctl
    // fixture's deliberate one, and an aws 2.x one): skipped.
    let options = DecodeOptions::default().with_skip_unknown_attributes(true);
    let (mut counted, mut found) = (0, 0);
    let mut seen = Vec::new();
    for path in state_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        // Counted independently, with serde_json.
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        for r in doc["resources"].as_array().into_iter().flatten() {
            if r["mode"] == "managed" && TYPES.iter().any(|t| r["type"] == *t) {
                counted += r["instances"].as_array().map_or(0, Vec::len);
            }
        }
        let state = StateFile::parse(&text).unwrap();
        let bump = Bump::new();
        for item in state.instances() {
            let ty = item.resource.type_name.as_str();
            if item.resource.mode != Mode::Managed || !TYPES.contains(&ty) {
                continue;
            }
            found += 1;
            let what = format!("{file}: {}", item.address());
            let Outcome::Ok(value, m) = set.decode(item, &bump, &options) else {
                panic!("{what}: does not decode");
            };
            let root = m.program.typed(value);
            if ty == "aws_security_group" {
                let sg: SecurityGroup = from_typed(root).unwrap();
                let rules = sg.ingress.iter().chain(&sg.egress);
                let rule_strs = rules.flat_map(|r| {
                    [r.protocol, r.description]
                        .into_iter()
                        .chain(r.cidr_blocks.iter().copied())
                        .chain(r.ipv6_cidr_blocks.iter().copied())
                        .chain(r.prefix_list_ids.iter().copied())
                        .chain(r.security_groups.iter().copied())
                });
                let tags = sg.tags.iter().flat_map(|t| t.iter());
                let tags_all = sg.tags_all.iter().flat_map(|t| t.iter());
                let strs = [
                    sg.id,
                    sg.arn,
                    sg.name,
                    sg.description,
                    sg.owner_id,
                    sg.vpc_id,
                ]
                .into_iter()
                .chain(rule_strs)
                .chain(tags.chain(tags_all).flat_map(|(k, v)| [*k, *v]))
                .filter(|s| !s.is_empty());
                assert_borrowed(&text, &what, strs);
                let ingress: Vec<String> = sg
                    .ingress
                    .iter()
                    .map(|r| {
                        format!(
                            "{}-{}/{} {:?} self={} {:?}",
                            r.from_port,
                            r.to_port,
                            r.protocol,
                            r.cidr_blocks,
                            r.self_,
                            r.description
                        )
                    })
                    .collect();
                assert!(sg
                    .timeouts
                    .is_none_or(|t| t.create.is_none() && t.delete.is_none()));
                assert_eq!(sg.name_prefix, "");
                assert!(!sg.revoke_rules_on_delete);
                assert!(sg.egress.iter().all(|r| r.prefix_list_ids.is_empty()
                    && r.security_groups.is_empty()
                    && r.ipv6_cidr_blocks.len() <= 1));
                seen.push(format!(
                    "{what}: {} {} {:?} ingress {ingress:?} egress {} tags {:?} tags_all {:?} {}",
                    sg.id,
                    sg.name,
                    sg.description,
                    sg.egress.len(),
                    sg.tags,
                    sg.tags_all.map(|t| t.len()),
                    sg.arn
                ));
            } else {
                let i: Instance = from_typed(root).unwrap();
                let devices = i
                    .root_block_device
                    .iter()
                    .flat_map(|d| [d.device_name, d.volume_id, d.volume_type, d.kms_key_id]);
                let meta = i
                    .metadata_options
                    .iter()
                    .flat_map(|m| [m.http_endpoint, m.http_tokens]);
                let strs = [
                    i.id,
                    i.arn,
                    i.ami,
                    i.instance_type,
                    i.instance_state,
                    i.availability_zone,
                    i.subnet_id,
                    i.private_ip,
                ]
                .into_iter()
                .chain(i.public_ip)
                .chain(
                    i.tags
                        .iter()
                        .flat_map(|t| t.iter().flat_map(|(k, v)| [*k, *v])),
                )
                .chain(i.security_groups.iter().copied())
                .chain(i.vpc_security_group_ids.iter().copied())
                .chain(devices)
                .chain(meta)
                .chain(
                    i.credit_specification
                        .iter()
                        .flat_map(|c| c.values().flatten().copied()),
                )
                .filter(|s| !s.is_empty());
                assert_borrowed(&text, &what, strs);
                assert!(i.host_id.is_none() && i.user_data.is_none() && i.timeouts.is_none());
                assert!(i.ebs_block_device.is_empty());
                assert_eq!((i.cpu_core_count, i.cpu_threads_per_core), (1, 2));
                assert!(!i.ebs_optimized && !i.monitoring);
                let rbd: Vec<String> = i
                    .root_block_device
                    .iter()
                    .map(|d| {
                        format!(
                            "{} {} {} {}GiB iops={} throughput={:?} encrypted={} delete={}",
                            d.device_name,
                            d.volume_id,
                            d.volume_type,
                            d.volume_size,
                            d.iops,
                            d.throughput,
                            d.encrypted,
                            d.delete_on_termination
                        )
                    })
                    .collect();
                let md = &i.metadata_options[0];
                seen.push(format!(
                    "{what}: {} {} {} {} {} {} {:?} sg {:?} {:?} root {rbd:?} metadata {}/{}/{} credits {:?} tags {:?}",
                    i.id,
                    i.ami,
                    i.instance_type,
                    i.instance_state,
                    i.availability_zone,
                    i.private_ip,
                    i.public_ip,
                    i.security_groups,
                    i.vpc_security_group_ids,
                    md.http_endpoint,
                    md.http_put_response_hop_limit,
                    md.http_tokens,
                    i.credit_specification,
                    i.tags
                ));
            }
        }
    }
    assert_eq!(
        counted, 5,
        "instances of the two types in the corpus (serde_json)"
    );
    assert_eq!(
        found, counted,
        "instances of the two types tfwire's StateFile found"
    );
    assert_eq!(seen.len(), counted);
    let want = [
        r#"state-test-aws_ec2_instance.tfstate: aws_instance.test: i-0d3650a23f4e45dc0 ami-0697b068b80d79421 t3.nano running eu-west-3b 172.31.22.12 Some("35.180.126.180") sg ["default"] {"sg-9e0204ff"} root ["/dev/xvda vol-081c7272a57a09db1 gp2 8GiB iops=100 throughput=None encrypted=false delete=true"] metadata enabled/1/optional credits [{"cpu_credits": Some("unlimited")}] tags None"#,
        r#"state-test-aws_lb_listener.tfstate: aws_security_group.lb_sg: sg-0d8b60865ca657bb3 allow_tls_lb "Allow TLS inbound traffic" ingress ["443-443/tcp [\"10.100.0.0/16\"] self=false \"TLS from VPC\""] egress 1 tags Some({}) tags_all Some(0) arn:aws:ec2:us-east-1:533948124879:security-group/sg-0d8b60865ca657bb3"#,
        r#"state-test-aws_vpc_security_group.tfstate: aws_security_group.test-sg: sg-0254c038e32f25530 foo "Managed by Terraform" ingress ["0-0/-1 [\"0.0.0.0/0\"] self=false \"Foo\""] egress 1 tags Some({"Name": "Foo SG"}) tags_all None arn:aws:ec2:eu-west-3:047081014315:security-group/sg-0254c038e32f25530"#,
        r#"state-test-unsupported_attribute.tfstate: aws_instance.web: i-002c7d44410fee60e ami-0f8e5edde3a79f541 t3.micro running eu-west-3a 172.31.11.192 Some("15.188.23.233") sg ["default"] {"sg-a74815c8"} root ["/dev/sda1 vol-08b1deab4881e2b00 gp2 8GiB iops=100 throughput=Some(0) encrypted=false delete=true"] metadata enabled/1/optional credits [{"cpu_credits": Some("unlimited")}] tags Some({"Name": "HelloWorld"})"#,
        r#"state-testdata-v4-valid.tfstate: aws_instance.vm: i-07dbbae1c3fc4c194 ami-0aa9ac13698fff547 t3.nano running eu-west-3b 172.31.16.40 Some("15.236.123.61") sg ["default"] {"sg-a74815c8"} root ["/dev/xvda vol-0d30c5228ef04fe70 gp2 8GiB iops=100 throughput=None encrypted=false delete=true"] metadata enabled/1/optional credits [{"cpu_credits": Some("unlimited")}] tags Some({"Name": "DEMO VM DESTROY ME - default", "Terraform": "true"})"#,
    ];
    assert_eq!(seen, want);
}

/// Every instance of the corpus's state files that decodes (against every providers-schema
/// document of the corpus, drift skipped): the deserializer's `serde_json::Value` is the
/// serializer's, and, where the type holds no `dynamic` (go-cty writes a dynamic value's
/// `{"value","type"}` wrapper; serde looks through it), serde_json's text is tfwire's JSON
/// encoder's (go-cty's bytes) token for token, but for the differences [`compare_with_go`]
/// counts, and decodes back (tfwire's JSON decoder, same program) to a value that serializes
/// to the same text.
#[test]
fn corpus_serialize_and_deserialize_agree() {
    let corpus = corpus();
    let mut docs = Vec::new();
    files(&corpus.join("schemas"), ".json", false, &mut docs);
    files(
        &corpus.join("schemas").join("derived"),
        ".json",
        false,
        &mut docs,
    );
    let mut set = SchemaSet::new();
    let mut loaded = 0;
    for doc in &docs {
        // (Two cdktf fixtures are not providers-schema documents: tests/state.rs.)
        if set.add_json(&std::fs::read_to_string(doc).unwrap()).is_ok() {
            loaded += 1;
        }
    }
    assert_eq!((docs.len(), loaded), (41, 39));
    let options = DecodeOptions::default().with_skip_unknown_attributes(true);
    let (mut ok, mut concrete, mut json_bytes) = (0, 0, 0);
    let mut differences = Vec::new();
    for path in state_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let state = StateFile::parse(&text).unwrap();
        let bump = Bump::new();
        for item in state.instances() {
            let Outcome::Ok(value, m) = set.decode(item, &bump, &options) else {
                continue;
            };
            ok += 1;
            let what = format!("{}: {}", path.display(), item.address());
            let root = m.program.typed(value);
            let serialized = serde_json::to_value(root).unwrap();
            let deserialized: serde_json::Value = from_typed(root).unwrap();
            assert_eq!(serialized, deserialized, "{what}");
            if m.program.root_type().has_dynamic() {
                continue;
            }
            concrete += 1;
            let json = serde_json::to_string(&root).unwrap();
            json_bytes += json.len();
            let mut encoded = Vec::new();
            m.program.encode_json(value, &mut encoded).unwrap();
            let encoded = String::from_utf8(encoded).unwrap();
            let diff = compare_with_go(&encoded, &json);
            if !diff.starts_with("identical") {
                differences.push(format!("{}: {diff}", item.address()));
            }
            let again = m.program.decode_json(json.as_bytes(), &bump).unwrap();
            let json2 = serde_json::to_string(&m.program.typed(again)).unwrap();
            assert_eq!(json, json2, "{what}");
        }
    }
    assert_eq!((ok, concrete, json_bytes), (381, 379, 174_816));
    // Byte for byte but for two instances, whose strings hold `<`, `>` or `&` (Go escapes
    // them; serde_json does not).
    assert_eq!(
        differences,
        [
            "aws_api_gateway_integration_response.foo: differs: 42 tokens, 1 strings escaped \
             otherwise, 0 numbers as text, 0 f64s in another form",
            "random_string.example: differs: 53 tokens, 2 strings escaped otherwise, 0 numbers \
             as text, 0 f64s in another form",
        ]
    );
}

/// Every workload of the shared checkout (go-cty's own encodings of large values): the
/// MessagePack and JSON encodings of one value serialize to the same JSON (numbers present
/// by value, whatever form they arrived in: `number_heavy`'s float64s in MessagePack are
/// decimal text in JSON), the deserializer's `serde_json::Value` is the serializer's, and in
/// `unknown_heavy` both stop at the same first unknown. Where the type holds no `dynamic`
/// (go-cty writes a dynamic value's `{"value","type"}` wrapper; serde looks through it),
/// serde_json's text is go-cty's own JSON (`value.json`) token for token, but for the
/// differences [`compare_with_go`] counts: byte for byte on four workloads; tfwire's JSON
/// encoder's text differs from serde_json's in the same tokens.
#[test]
fn workloads_serialize_alike_from_both_encodings() {
    let dir = corpus().parent().unwrap().join("workloads");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("type.json").is_file())
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    names.sort();
    let mut summary = Vec::new();
    for name in &names {
        let w = dir.join(name);
        let p = Program::from_type_json(&std::fs::read_to_string(w.join("type.json")).unwrap())
            .unwrap();
        let bump = Bump::new();
        let msgpack = std::fs::read(w.join("value.msgpack")).unwrap();
        let root = p.typed(p.decode_msgpack(&msgpack, &bump).unwrap());
        let lenient = SerializeOptions::default().with_unknown(UnknownAs::Null);
        let json = serde_json::to_string(&root.serialize_with(lenient)).unwrap();
        match serde_json::to_string(&root) {
            Ok(strict) => {
                assert!(strict == json, "{name}");
                // (Compared as trees: serde_json's float parser, without its
                // `float_roundtrip` feature, does not read every f64 back exactly.)
                let value: serde_json::Value = from_typed(root).unwrap();
                assert!(value == serde_json::to_value(root).unwrap(), "{name}");
            }
            Err(e) => {
                let de = from_typed::<serde_json::Value>(root).unwrap_err();
                let path = e.to_string().split(": ").next().unwrap().to_string();
                assert_eq!(path, format!("at {}", de.path()), "{name}");
                summary.push(format!("{name}: {path}"));
            }
        }
        if let Ok(text) = std::fs::read(w.join("value.json")) {
            let from_json = p.typed(p.decode_json(&text, &bump).unwrap());
            let from_json = serde_json::to_string(&from_json).unwrap();
            assert!(
                from_json == json,
                "{name}: the JSON encoding serializes differently"
            );
            if !p.root_type().has_dynamic() {
                let go = std::str::from_utf8(&text).unwrap();
                let vs_go = compare_with_go(go, &json);
                // tfwire's JSON encoder writes go-cty's bytes: the same differences.
                let mut encoded = Vec::new();
                p.encode_json(root.value, &mut encoded).unwrap();
                let encoded = String::from_utf8(encoded).unwrap();
                assert_eq!(compare_with_go(&encoded, &json), vs_go, "{name}");
                summary.push(format!("{name}: vs go-cty's JSON: {vs_go}"));
            }
        }
        summary.push(format!("{name}: {} bytes", json.len()));
    }
    assert_eq!(
        summary,
        [
            "aws_states: vs go-cty's JSON: differs: 164247 tokens, 10 strings escaped otherwise, 0 numbers as text, 0 f64s in another form",
            "aws_states: 1192477 bytes",
            "azurerm_states: vs go-cty's JSON: identical: 38160 tokens, 0 strings escaped otherwise, 0 numbers as text, 0 f64s in another form",
            "azurerm_states: 332552 bytes",
            "big_set_blocks: vs go-cty's JSON: identical: 225597 tokens, 0 strings escaped otherwise, 0 numbers as text, 0 f64s in another form",
            "big_set_blocks: 1178176 bytes",
            "deep_dynamic: 614239 bytes",
            "google_states: vs go-cty's JSON: identical: 63721 tokens, 0 strings escaped otherwise, 0 numbers as text, 0 f64s in another form",
            "google_states: 571425 bytes",
            "number_heavy: vs go-cty's JSON: differs: 332029 tokens, 0 strings escaped otherwise, 3914 numbers as text, 5862 f64s in another form",
            "number_heavy: 1598273 bytes",
            "string_heavy: vs go-cty's JSON: identical: 13356 tokens, 0 strings escaped otherwise, 0 numbers as text, 0 f64s in another form",
            "string_heavy: 1275863 bytes",
            "unknown_heavy: at .aws_acm_certificate[0].arn",
            "unknown_heavy: 981017 bytes",
        ]
    );
}

/// JSON text split into tokens: strings (with their quotes), literals, punctuation.
fn tokens(json: &str) -> Vec<&str> {
    let b = json.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        match b[i] {
            b'"' => {
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'{' | b'}' | b'[' | b']' | b',' | b':' => i += 1,
            b' ' | b'\n' | b'\r' | b'\t' => {
                i += 1;
                continue;
            }
            _ => {
                while i < b.len() && !b"{}[],: \n\r\t".contains(&b[i]) {
                    i += 1;
                }
            }
        }
        out.push(&json[start..i]);
    }
    out
}

/// Compares serde_json's text of a value with go-cty's JSON of it (`ctyjson.Marshal`'s, or
/// tfwire's JSON encoder's), token by token: the same
/// token, or a string escaped differently (Go escapes `<`, `>`, `&` as `\u003c`…), or a
/// number that go-cty writes as a number and serde as its decimal text (no `f64` is that
/// number), or the same `f64` in another form (`1e-7` for go-cty's `0.0000001`). Returns the
/// count of each difference.
fn compare_with_go(go: &str, serde: &str) -> String {
    let (g, s) = (tokens(go), tokens(serde));
    assert_eq!(g.len(), s.len());
    let (mut escaped, mut text, mut form) = (0, 0, 0);
    for (i, (&a, &b)) in g.iter().zip(&s).enumerate() {
        if a == b {
            continue;
        }
        let context = || format!("token {i}: go-cty {a:.80} serde {b:.80}");
        if a.starts_with('"') && b.starts_with('"') {
            let decode = |t| serde_json::from_str::<String>(t).unwrap();
            assert_eq!(decode(a), decode(b), "{}", context());
            escaped += 1;
        } else if b.strip_prefix('"').and_then(|b| b.strip_suffix('"')) == Some(a) {
            text += 1;
        } else {
            let f = |t| tfwire::Number::Decimal(t).as_f64();
            assert!(f(a) == f(b) && f(a).is_finite(), "{}", context());
            form += 1;
        }
    }
    let same = if go == serde { "identical" } else { "differs" };
    format!(
        "{same}: {} tokens, {escaped} strings escaped otherwise, {text} numbers as text, \
         {form} f64s in another form",
        g.len()
    )
}

/// Typed nulls and unknowns at `dynamic` positions (a `Value::Dynamic` holding them) are
/// looked through like any dynamic value: null, and an unknown at the attribute's path.
#[test]
fn typed_nulls_and_unknowns_at_dynamic_positions() {
    let p = program(r#"["object",{"a":"dynamic","b":"dynamic"}]"#);
    let ty = |t: &str| rmpv::Value::Binary(t.as_bytes().to_vec());
    let input = mp(obj(vec![
        (
            "a",
            rmpv::Value::Array(vec![ty(r#""string""#), rmpv::Value::Nil]),
        ),
        ("b", rmpv::Value::Array(vec![ty(r#""number""#), unknown()])),
    ]));
    let bump = Bump::new();
    let root = p.typed(p.decode_msgpack(&input, &bump).unwrap());
    let Value::Object(o) = root.value else {
        panic!("an object")
    };
    assert!(matches!(o.attrs(), [Value::Dynamic(_), Value::Dynamic(_)]));
    assert_eq!(
        ser_error(root),
        "at .b: unknown value (serialize with UnknownAs::Null to write null)"
    );
    let null = SerializeOptions::default().with_unknown(UnknownAs::Null);
    let json = serde_json::to_string(&root.serialize_with(null)).unwrap();
    assert_eq!(json, r#"{"a":null,"b":null}"#);
    #[derive(Debug, Deserialize, PartialEq)]
    struct Ab<'a> {
        a: Option<&'a str>,
        b: MaybeUnknown<Option<i64>>,
    }
    let ab: Ab = from_typed(root).unwrap();
    assert_eq!(
        ab,
        Ab {
            a: None,
            b: MaybeUnknown::Unknown
        }
    );
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Plain {
        b: Option<i64>,
    }
    assert_eq!(
        de_error::<Plain>(root),
        "at .b: unknown value (a field of type tfwire::MaybeUnknown<T> accepts one)"
    );
}
