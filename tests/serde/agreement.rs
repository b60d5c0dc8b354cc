//! serde_json's text of every corpus instance and workload against tfwire's JSON encoder and
//! go-cty's JSON; typed nulls and unknowns at `dynamic` positions.

use super::*;

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
