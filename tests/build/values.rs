//! Exact values, go-cty's bytes and back, blocks of every nesting mode, and errors naming the
//! path.

use super::*;

#[test]
fn exact_values() {
    let p = program(
        r#"["object",{"name":"string","port":"number","on":"bool","ratio":"number",
            "tags":["map","string"],"ids":["list","number"],"pair":["tuple",["string","bool"]],
            "id":"string","note":"string"}]"#,
    );
    let bump = Bump::new();
    let b = p.builder(&bump);
    let v = b
        .build(b.object(|o| {
            o.set("name", "web")?;
            o.set("port", 443)?;
            o.set("on", true)?;
            o.set("ratio", b.decimal("0.25"))?;
            o.set(
                "tags",
                b.map(|m| {
                    m.insert("z", "1")?;
                    m.insert("a", String::from("2"))
                }),
            )?;
            o.set(
                "ids",
                b.list_from([b.int(-5), b.uint(7), b.float(1.5), b.decimal("1e2")]),
            )?;
            o.set(
                "pair",
                b.tuple(|t| t.extend([b.string("x"), b.bool(false)])),
            )?;
            o.unknown("id")?;
            o.set("note", None::<&str>)
        }))
        .unwrap();
    // Attributes in name order; numbers as decoding go-cty's MessagePack gives them (443 is a
    // uint16 there, 0.25 a float64, 1e2 the integer 100); map keys sorted.
    let attrs = [
        Value::Unknown(None),
        Value::List(&[
            Value::Int(-5),
            Value::Int(7),
            Value::Float(1.5),
            Value::Int(100),
        ]),
        Value::String("web"),
        Value::Null,
        Value::Bool(true),
        Value::Tuple(&[Value::String("x"), Value::Bool(false)]),
        Value::UInt(443),
        Value::Float(0.25),
        Value::Map(&[("a", Value::String("2")), ("z", Value::String("1"))]),
    ];
    assert_eq!(v, Value::Object(Object::new(p.root(), &attrs)));
    let names: Vec<_> = p.typed(v).attrs().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["id", "ids", "name", "note", "on", "pair", "port", "ratio", "tags"]
    );
    // It encodes, and decodes back to the same value.
    let bytes = encode(&p, v);
    assert_eq!(p.decode_msgpack(&bytes, &bump).unwrap(), v);
}

#[test]
fn encodes_to_go_cty_bytes_and_decodes_back() {
    let p = program(
        r#"["object",{"name":"string","port":"number","tags":["map","string"],"on":"bool",
            "ids":["set","number"],"arn":"string","extra":"dynamic","sg":"string"}]"#,
    );
    let bump = Bump::new();
    let b = p.builder(&bump);
    let list_of_string = b.dynamic_type(&Type::List(Box::new(Type::String))).unwrap();
    let v = b
        .build(b.object(|o| {
            o.set("name", "web")?;
            o.set("port", 443u32)?;
            o.set("tags", b.map_from([("b", "2"), ("a", "1")]))?;
            o.set("on", true)?;
            o.set("ids", b.set_from([3, -1, 3, 200]))?;
            let prefix = Refinements {
                string_prefix: Some("ab"),
                ..Refinements::default()
            };
            o.set("arn", b.unknown_refined(&prefix))?;
            o.set("extra", b.dynamic(list_of_string, b.list_from(["a"])))?;
            o.unknown("sg")
        }))
        .unwrap();
    let mut want = vec![0x88];
    // "arn": unknown, refined with the prefix "ab" (extension 12, {2: "ab"}).
    want.extend(b"\xa3arn\xc7\x05\x0c\x81\x02\xa2ab");
    // "extra": [bin(type JSON), value].
    want.extend(b"\xa5extra\x92\xc4\x11[\"list\",\"string\"]\x91\xa1a");
    // "ids": the set in order, 3 once.
    want.extend(b"\xa3ids\x93\xff\x03\xcc\xc8");
    want.extend(b"\xa4name\xa3web");
    want.extend(b"\xa2on\xc3");
    want.extend(b"\xa4port\xcd\x01\xbb");
    want.extend(b"\xa2sg\xd4\x00\x00");
    want.extend(b"\xa4tags\x82\xa1a\xa11\xa1b\xa12");
    assert_eq!(encode(&p, v), want);
    assert_eq!(p.decode_msgpack(&want, &bump).unwrap(), v);
}

#[test]
fn blocks_of_every_nesting_mode() {
    use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
    let leaf = Block::new().attribute("n", Attribute::new(Type::Number));
    let mut schema = Block::new();
    for (name, mode) in [
        ("single", NestingMode::Single),
        ("group", NestingMode::Group),
        ("list", NestingMode::List),
        ("set", NestingMode::Set),
        ("map", NestingMode::Map),
    ] {
        schema = schema.block(name, NestedBlock::new(mode, leaf.clone()));
    }
    let p = Program::from_block(&schema).unwrap();
    let bump = Bump::new();
    let b = p.builder(&bump);
    let n = |v: i64| b.object(move |o| o.set("n", v));
    let v = b
        .build(b.object(|o| {
            o.set("single", n(1))?;
            o.set("group", n(2))?;
            o.set("list", b.list(|l| l.extend([n(3), n(4)])))?;
            o.set("set", b.set(|s| s.extend([n(6), n(5), n(6)])))?;
            o.set("map", b.map(|m| m.insert("k", n(7))))
        }))
        .unwrap();
    let root = p.typed(v);
    let ns = |name: &str| -> Vec<i64> {
        let t = root.attr(name).unwrap();
        match t.value {
            Value::Object(_) => vec![t.attr("n").unwrap().value.as_i64().unwrap()],
            Value::Map(_) => vec![t
                .get("k")
                .unwrap()
                .attr("n")
                .unwrap()
                .value
                .as_i64()
                .unwrap()],
            _ => t
                .elements()
                .map(|e| e.attr("n").unwrap().value.as_i64().unwrap())
                .collect(),
        }
    };
    assert_eq!(ns("single"), [1]);
    assert_eq!(ns("group"), [2]);
    assert_eq!(ns("list"), [3, 4]);
    assert_eq!(ns("set"), [5, 6]);
    assert_eq!(ns("map"), [7]);
    let bytes = encode(&p, v);
    assert_eq!(p.decode_msgpack(&bytes, &bump).unwrap(), v);
}

#[test]
fn errors_name_the_path_and_the_problem() {
    let bump = Bump::new();
    let p = program(
        r#"["object",{"ingress":["list",["object",{"cidr_blocks":["list","string"]}]],
            "tags":["map","string"],"name":"string","n":"number","1st":"string"}]"#,
    );
    let b = p.builder(&bump);
    let rule = |cidr: Value<'static>| b.object(move |o| o.set("cidr_blocks", b.list_from([cidr])));

    // A wrong type deep inside.
    let e = error(
        &p,
        &bump,
        b.object(|o| {
            o.set(
                "ingress",
                b.list(|l| {
                    l.push(rule(Value::String("a")))?;
                    l.push(rule(Value::String("b")))?;
                    l.push(rule(Value::Int(5)))
                }),
            )?;
            o.null_unset();
            Ok(())
        }),
    );
    assert_eq!(e.path(), ".ingress[2].cidr_blocks[0]");
    assert_eq!(e.message(), "expected a string, found a number");
    assert_eq!(
        e.to_string(),
        "at .ingress[2].cidr_blocks[0]: expected a string, found a number"
    );

    // A map element.
    let e = error(
        &p,
        &bump,
        b.object(|o| o.set("tags", b.map(|m| m.insert("Name", true)))),
    );
    assert_eq!(
        (e.path(), e.message()),
        (r#".tags["Name"]"#, "expected a string, found a bool")
    );

    // An attribute whose name is not an identifier.
    let e = error(&p, &bump, b.object(|o| o.set("1st", 1)));
    assert_eq!(e.path(), r#"["1st"]"#);

    // Attributes never set, at the object.
    let e = error(&p, &bump, b.object(|o| o.set("name", "x")));
    assert_eq!(e.path(), "");
    assert_eq!(
        e.message(),
        r#"attributes "1st", "ingress", "n", "tags" are not set"#
    );
    assert_eq!(
        e.to_string(),
        r#"at (root): attributes "1st", "ingress", "n", "tags" are not set"#
    );
    let e = error(
        &p,
        &bump,
        b.object(|o| {
            o.set("ingress", b.list_from([b.object(|_| Ok(()))]))?;
            o.null_unset();
            Ok(())
        }),
    );
    assert_eq!(
        (e.path(), e.message()),
        (".ingress[0]", r#"attribute "cidr_blocks" is not set"#)
    );

    // An attribute the type does not have: at the object, as the decoders say it.
    let e = error(&p, &bump, b.object(|o| o.set("nmae", "x")));
    assert_eq!(
        (e.path(), e.message()),
        ("", r#"unsupported attribute "nmae""#)
    );
    let e = error(
        &p,
        &bump,
        b.object(|o| o.set("ingress", b.list_from([b.object(|r| r.null("cidr"))]))),
    );
    assert_eq!(
        (e.path(), e.message()),
        (".ingress[0]", r#"unsupported attribute "cidr""#)
    );

    // An attribute set twice.
    let e = error(
        &p,
        &bump,
        b.object(|o| {
            o.set("name", "a")?;
            o.set("name", "b")
        }),
    );
    assert_eq!(
        (e.path(), e.message()),
        (".name", r#"attribute "name" set twice"#)
    );

    // Bad number text, NaN.
    let e = error(&p, &bump, b.object(|o| o.set("n", b.decimal("1.2.3"))));
    assert_eq!(
        (e.path(), e.message()),
        (".n", r#""1.2.3" is not a valid number"#)
    );
    let e = error(&p, &bump, b.object(|o| o.set("n", b.decimal("0x10"))));
    assert_eq!(e.message(), r#""0x10" is not a valid number"#);
    let e = error(&p, &bump, b.object(|o| o.set("n", f64::NAN)));
    assert_eq!((e.path(), e.message()), (".n", "NaN is not a number"));

    // A container of the wrong kind, a map key twice.
    let e = error(&p, &bump, b.object(|o| o.set("tags", b.list(|_| Ok(())))));
    assert_eq!(
        (e.path(), e.message()),
        (".tags", "expected a map, found a list")
    );
    let e = error(
        &p,
        &bump,
        b.object(|o| o.set("tags", b.map_from([("k", "1"), ("j", "2"), ("k", "3")]))),
    );
    assert_eq!(
        (e.path(), e.message()),
        (r#".tags["k"]"#, r#"duplicate map key "k""#)
    );
}
