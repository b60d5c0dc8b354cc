//! `Serialize for Typed`: every kind, numbers, maps, unknowns, infinities, and the nesting caps.

use super::*;

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
