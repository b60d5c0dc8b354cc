//! `from_typed`: every kind, errors naming the path, unknowns through `MaybeUnknown`, enums.

use super::*;

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
