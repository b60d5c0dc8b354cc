//! Decoded values rebuilt through the builder's API, random sets against go-cty, and building
//! in a warm arena without a heap allocation.

use super::*;

/// A decoded value rebuilt through the builder's own API: objects attribute by attribute,
/// lists, maps and tuples element by element, sets in reverse, dynamic values with their type.
struct Mirror<'a>(&'a Program, Value<'a>);

impl<'a> Part<'a> for Mirror<'a> {
    fn fill(self, at: At<'a>) -> Result<Value<'a>, BuildError> {
        let Mirror(p, v) = self;
        let b = at.builder();
        match v {
            Value::Object(x) => b
                .object(|o| {
                    for ((name, _), raw) in p.typed(v).attrs().zip(x.attrs()) {
                        o.set(name, Mirror(p, *raw))?;
                    }
                    Ok(())
                })
                .fill(at),
            Value::List(e) => b
                .list(|l| l.extend(e.iter().map(|x| Mirror(p, *x))))
                .fill(at),
            Value::Set(e) => b
                .set(|s| s.extend(e.iter().rev().map(|x| Mirror(p, *x))))
                .fill(at),
            Value::Tuple(e) => b
                .tuple(|t| t.extend(e.iter().map(|x| Mirror(p, *x))))
                .fill(at),
            Value::Map(e) => b
                .map(|m| e.iter().try_for_each(|(k, x)| m.insert(k, Mirror(p, *x))))
                .fill(at),
            Value::Dynamic(d) => b.dynamic(d.program, Mirror(d.program, d.value)).fill(at),
            scalar => scalar.fill(at),
        }
    }
}

#[test]
fn workloads_rebuilt_through_the_builder_reencode_to_go_cty_bytes() {
    let Some(shared) = common::shared_dir("the shared workloads are not rebuilt") else {
        return;
    };
    let mut run = 0;
    for entry in std::fs::read_dir(shared.join("workloads")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(bytes) = std::fs::read(dir.join("value.msgpack")) else {
            continue;
        };
        let p = program(&std::fs::read_to_string(dir.join("type.json")).unwrap());
        let bump = Bump::new();
        let decoded = p.decode_msgpack(&bytes, &bump).unwrap();
        let b = p.builder(&bump);
        // Checked whole: go-cty's value is canonical already, so nothing is copied.
        let checked = b.build(decoded).unwrap();
        assert!(
            matches!((checked, decoded), (Value::Object(x), Value::Object(y)) if std::ptr::eq(x.attrs(), y.attrs()))
                || checked == decoded,
            "{}",
            dir.display()
        );
        let rebuilt = b.build(Mirror(&p, decoded)).unwrap();
        assert!(
            rebuilt == decoded,
            "{}: the rebuilt value differs",
            dir.display()
        );
        assert!(
            encode(&p, rebuilt) == bytes,
            "{}: other bytes",
            dir.display()
        );
        run += 1;
    }
    assert!(run >= 8, "{run} workloads");
}

#[test]
fn conformance_cases_rebuilt_through_the_builder_encode_as_decoded() {
    use tfwire::schema::{SchemaSelector, SchemaSource};
    let shared = common::shared_dir("the shared conformance cases are not rebuilt");
    let run = cases::for_each_case(
        &cases::case_dirs(shared.as_deref()),
        ".msgpack",
        |dir, id| {
            let schema = cases::read_text(&dir.join(format!("{id}.schema.json")))?;
            let bytes = cases::read_bytes(&dir.join(format!("{id}.msgpack")))?;
            let source = SchemaSource::parse(&schema).map_err(|e| e.to_string())?;
            let p = Program::from_source(&source, &SchemaSelector::default())
                .map_err(|e| e.to_string())?;
            let bump = Bump::new();
            let decoded = p.decode_msgpack(&bytes, &bump).map_err(|e| e.to_string())?;
            let rebuilt = p
                .builder(&bump)
                .build(Mirror(&p, decoded))
                .map_err(|e| e.to_string())?;
            let checked = p.builder(&bump).build(decoded).map_err(|e| e.to_string())?;
            let want = encode(&p, decoded);
            if encode(&p, rebuilt) != want || encode(&p, checked) != want {
                return Err("the rebuilt or checked value encodes otherwise".into());
            }
            Ok(())
        },
    );
    println!("{run} cases rebuilt");
    assert!(run > 0);
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    assert!(s.len() < 256);
    if s.len() < 32 {
        out.push(0xa0 | s.len() as u8);
    } else {
        out.extend([0xd9, s.len() as u8]);
    }
    out.extend(s.as_bytes());
}

/// Random MessagePack of type `ty`, in a form go-cty reads (numbers as ints, float64s or
/// text; unknowns `d4 00 00`), drawn from small pools so that sets meet duplicates and
/// near-duplicates.
fn random_msgpack(ty: &Type, rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
    match rng.below(16) {
        0 => return out.push(0xc0),
        1 => return out.extend([0xd4, 0, 0]),
        _ => {}
    }
    match ty {
        Type::Bool => out.push(if rng.below(2) == 0 { 0xc2 } else { 0xc3 }),
        Type::String => {
            const POOL: &[&str] = &[
                "",
                "a",
                "aa",
                "ab",
                "B",
                "Z",
                "é",
                "é",
                "日本",
                "\u{a0}",
                "\u{200b}x",
                "a\"b",
                "a\\b",
                "\n",
                "\t",
                "\u{7f}",
                "😀",
                "\u{e0001}",
                "~",
                "?",
                "0.0.0.0/0",
                "10.0.0.0/8",
            ];
            put_str(POOL[rng.below(POOL.len() as u64) as usize], out);
        }
        Type::Number => match rng.below(9) {
            0 => out.push(rng.below(128) as u8),
            1 => out.push(0xe0 | rng.below(32) as u8),
            2 => {
                out.push(0xcd);
                out.extend((rng.below(1 << 16) as u16).to_be_bytes());
            }
            3 => {
                out.push(0xcf);
                out.extend((rng.next() | 1 << 63).to_be_bytes());
            }
            4 => {
                out.push(0xd3);
                out.extend((-(rng.below(1 << 40) as i64) * 1_000_003).to_be_bytes());
            }
            5 | 6 => {
                const FLOATS: &[f64] = &[
                    0.1,
                    2.5,
                    -0.5,
                    1e23,
                    -1e300,
                    5e-324,
                    0.30000000000000004,
                    1234567.5,
                    12345678901.25,
                    1.0000000005,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                ];
                out.push(0xcb);
                out.extend(
                    FLOATS[rng.below(FLOATS.len() as u64) as usize]
                        .to_bits()
                        .to_be_bytes(),
                );
            }
            _ => {
                const TEXT: &[&str] = &[
                    "0.1",
                    "0.10000000000000001",
                    "1e400",
                    "-1e-400",
                    "123456789012345678901234567890",
                    "3.14159265358979323846264338327950288",
                    "12345678955",
                    "0.00001",
                    "-7.25",
                    "99999999999999999999999.5",
                ];
                put_str(TEXT[rng.below(TEXT.len() as u64) as usize], out);
            }
        },
        Type::List(e) | Type::Set(e) => {
            let n = if depth > 2 { 0 } else { rng.below(4) };
            out.push(0x90 | n as u8);
            for _ in 0..n {
                random_msgpack(e, rng, depth + 1, out);
            }
        }
        Type::Map(e) => {
            let n = if depth > 2 { 0 } else { rng.below(3) };
            let mut keys: Vec<&str> = ["k", "a", "", "zz", "é"][..].to_vec();
            out.push(0x80 | n as u8);
            for _ in 0..n {
                let k = keys.remove(rng.below(keys.len() as u64) as usize);
                put_str(k, out);
                random_msgpack(e, rng, depth + 1, out);
            }
        }
        Type::Tuple(elems) => {
            out.push(0x90 | elems.len() as u8);
            for e in elems {
                random_msgpack(e, rng, depth + 1, out);
            }
        }
        Type::Object(o) => {
            out.push(0x80 | o.attrs().len() as u8);
            for (name, t) in o.attrs() {
                put_str(name, out);
                random_msgpack(t, rng, depth + 1, out);
            }
        }
        Type::Dynamic => unreachable!("no dynamic in these types"),
    }
}

/// Sets in scrambled orders, with duplicates, nulls and unknowns: go-cty (the oracle's
/// `transcode`, msgpack to msgpack) puts each in its own order; the builder, checking the same
/// value decoded by tfwire in wire order, must give the same bytes.
#[test]
fn set_order_matches_go_cty() {
    let Some(oracle) = common::oracle("the set order is not checked against go-cty") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tfwire-build-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let elems = [
        r#""string""#,
        r#""number""#,
        r#""bool""#,
        r#"["object",{"name":"string","port":"number","on":"bool"}]"#,
        r#"["object",{"cidrs":["set","string"],"n":"number","tags":["map","string"]}]"#,
        r#"["list","number"]"#,
        r#"["set","string"]"#,
        r#"["map","number"]"#,
        r#"["tuple",["string","number"]]"#,
        r#"["list",["object",{"a":"string","b":["list","number"]}]]"#,
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut checked, mut reordered, mut deduplicated) = (0, 0, 0);
    for elem in elems {
        let type_json = format!(r#"["set",{elem}]"#);
        let ty = Type::from_json(&type_json).unwrap();
        let Type::Set(elem_ty) = &ty else {
            unreachable!()
        };
        let p = program(&type_json);
        for round in 0..30 {
            // Up to 15 elements (a fixarray), drawn from the pools.
            let n = 2 + rng.below(14);
            let mut input = vec![0x90 | n as u8];
            for _ in 0..n {
                random_msgpack(elem_ty, &mut rng, 1, &mut input);
            }
            let (from, to) = (dir.join("in.msgpack"), dir.join("out.msgpack"));
            std::fs::write(&from, &input).unwrap();
            let status = std::process::Command::new(&oracle)
                .args([
                    "transcode",
                    "--type",
                    &type_json,
                    "--from",
                    "msgpack",
                    "--to",
                    "msgpack",
                ])
                .arg(&from)
                .arg(&to)
                .output()
                .unwrap();
            assert!(
                status.status.success(),
                "{type_json} round {round}: {}",
                String::from_utf8_lossy(&status.stderr)
            );
            let want = std::fs::read(&to).unwrap();
            let bump = Bump::new();
            let decoded = p.decode_msgpack(&input, &bump).unwrap();
            let built = p.builder(&bump).build(decoded).unwrap();
            let got = encode(&p, built);
            assert!(
                got == want,
                "{type_json} round {round}: input {input:02x?}\n got {got:02x?}\nwant {want:02x?}"
            );
            checked += 1;
            reordered += usize::from(want != input);
            deduplicated += usize::from(want.len() < input.len());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("{checked} sets, {reordered} reordered by go-cty, {deduplicated} shortened");
    assert_eq!(checked, 300);
    assert!(
        reordered > 200 && deduplicated > 100,
        "{reordered} {deduplicated}"
    );
}

/// Building makes no heap allocation once the arena is warm (and the dynamic-type cache has
/// the primitive types): everything goes into the arena.
#[test]
fn building_allocates_only_in_the_arena() {
    let p = program(
        r#"["object",{"name":"string","port":"number","ratio":"number","tags":["map","string"],
            "cidrs":["set","string"],"ports":["set","number"],"extra":"dynamic",
            "rules":["set",["object",{"from":"number","cidr":["list","string"],"desc":"string"}]]}]"#,
    );
    fn build<'a>(p: &'a Program, bump: &'a Bump) -> Value<'a> {
        let b = p.builder(bump);
        let rule = |from: i64, desc: &'static str| {
            b.object(move |o| {
                o.set("from", from)?;
                o.set("cidr", b.list_from(["10.0.0.0/8", "0.0.0.0/0"]))?;
                o.set("desc", desc)
            })
        };
        let v = b
            .build(b.object(|o| {
                o.set("name", "web")?;
                o.set("port", 443)?;
                o.set("ratio", b.decimal("0.1"))?;
                o.set("tags", b.map_from([("z", "1"), ("a", "2")]))?;
                o.set("cidrs", b.set_from(["b", "a", "b"]))?;
                o.set(
                    "ports",
                    b.set_from([
                        b.int(80),
                        b.float(0.5),
                        b.decimal("12345678901.5"),
                        b.int(80),
                    ]),
                )?;
                o.set("extra", "x")?;
                o.set(
                    "rules",
                    b.set(|s| {
                        s.insert(rule(443, "https"))?;
                        s.insert(rule(80, "http"))?;
                        s.insert(rule(12345678901, "big"))
                    }),
                )
            }))
            .unwrap();
        b.build(v).unwrap()
    }
    let mut bump = Bump::new();
    // (Counting works: a cold arena allocates its chunks.)
    assert!(allocations(|| build(&p, &bump)).0 > 0);
    bump.reset();
    build(&p, &bump); // warm: the arena has its chunks
    bump.reset();
    let (n, v) = allocations(|| build(&p, &bump));
    assert_eq!(n, 0, "{n} heap allocations");
    assert_eq!(p.decode_msgpack(&encode(&p, v), &bump).unwrap(), v);
}
