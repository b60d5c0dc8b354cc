//! The straight DUMP's tests (`straight.rs`): every shape against the general way (decode,
//! then DUMP), the give-ups, inputs cut and changed, the limits, the deepest values.

use super::*;
use crate::ErrorKind;

/// The general way: the DUMP of the decoded value, or `None` when the decode fails.
fn general(program: &Program, input: &[u8]) -> Option<String> {
    let bump = Bump::new();
    let value = program.decode_json(input, &bump).ok()?;
    Some(crate::dump::to_string(program, value).unwrap())
}

/// The straight DUMP of the whole of `input` (trailing whitespace allowed), checked
/// against the general way: equal when written, and written only where the decode
/// succeeds; refused only where the decode fails.
fn straight(program: &Program, input: &[u8]) -> Option<String> {
    let (written, refused) = taken(program, input);
    let written = written
        .filter(|&(_, end)| skip_ws(input, end) == input.len())
        .map(|(text, _)| text);
    let want = general(program, input);
    if let Some(text) = &written {
        let lossy = String::from_utf8_lossy(input);
        assert_eq!(Some(text), want.as_ref(), "{lossy}");
    }
    if refused {
        assert_eq!(want, None, "{}", String::from_utf8_lossy(input));
    }
    written
}

/// What [`StraightDump::take`] makes of `input` with the default options: the DUMP and end
/// when written; whether refused.
fn taken(program: &Program, input: &[u8]) -> (Option<(String, usize)>, bool) {
    let dump = StraightDump::new(program).unwrap();
    let bump = Bump::new();
    match dump.take(input, &bump, &DecodeOptions::default()) {
        Taken::Written(text, end) => (Some((text.to_string(), end)), false),
        Taken::Input(start, end) => {
            let text = std::str::from_utf8(&input[start..end]).unwrap();
            (Some((text.to_string(), end)), false)
        }
        Taken::Refused => (None, true),
        Taken::GaveUp => (None, false),
    }
}

/// A key no attribute has, spelled without escapes, is refused (the decode fails on it),
/// in the root object and in nested ones, after attributes left out too; a key escaped, a
/// known key out of order or repeated, or a key cut by the buffer's end is only given up on;
/// a decode that steps over unknown attributes is not said to fail.
#[test]
fn keys_no_attribute_has_are_refused() {
    let program = Program::from_type_json(TYPE).unwrap();
    let refused = |input: &str| {
        let (written, refused) = taken(&program, input.as_bytes());
        assert!(written.is_none(), "{input}");
        let bump = Bump::new();
        let e = program
            .decode_json(input.as_bytes(), &bump)
            .map(|_| ())
            .unwrap_err();
        (refused, e.kind())
    };
    for input in [
        r#"{"zz":1}"#,
        r#"{"a":"x","b":1,"zz":[]}"#,
        r#"{"b":1,"ab":1}"#,
        r#"{"c":[{"x":true},{"x":true,"y":1}]}"#,
        r#"{"h":{"a":"x"}}"#,
        r#"{"é":1}"#,
        r#"{"a":"x","zz":1,"a":"y"}"#,
    ] {
        assert_eq!(
            refused(input),
            (true, ErrorKind::UnknownAttribute),
            "{input}"
        );
    }
    // Given up before the key (a number for a string, which the decode reads as one).
    assert_eq!(
        refused(r#"{"a":1,"zz":1}"#),
        (false, ErrorKind::UnknownAttribute)
    );
    // Not refused: an escaped key, even one naming no attribute; a key repeated or out of
    // order (the decode reads some of those); a key cut short.
    for input in [
        r#"{"\u007a":1}"#,
        r#"{"b":1,"a":"x","zz":1}"#,
        r#"{"a":"x","a":"y"}"#,
    ] {
        let (written, refused) = taken(&program, input.as_bytes());
        assert_eq!((written, refused), (None, false), "{input}");
    }
    let (_, refused) = taken(&program, br#"{"a":"x","zz"#);
    assert!(!refused);
    // An escaped spelling of a name: given up on, and decoded.
    let (written, refused) = taken(&program, br#"{"\u0061":"x"}"#);
    assert_eq!((written, refused), (None, false));
    assert!(general(&program, br#"{"\u0061":"x"}"#).is_some());
    // A decode that steps over unknown attributes reads it.
    let options = DecodeOptions::default().with_skip_unknown_attributes(true);
    let dump = StraightDump::new(&program).unwrap();
    let bump = Bump::new();
    assert!(matches!(
        dump.take(br#"{"zz":1}"#, &bump, &options),
        Taken::GaveUp
    ));
    assert!(program
        .decode_json_with(br#"{"zz":1}"#, &bump, &options)
        .is_ok());
}

/// A compact input as go-cty writes it, no attribute left out, is its own DUMP: given as
/// its range, uncopied ([`Taken::Input`], after leading whitespace); whitespace, an attribute
/// left out or a string rewritten makes a DUMP of its own ([`Taken::Written`]).
#[test]
fn compact_input_is_its_own_dump() {
    let program = Program::from_type_json(TYPE).unwrap();
    let dump = StraightDump::new(&program).unwrap();
    let bump = Bump::new();
    let options = DecodeOptions::default();
    let all = r#"{"a":"x","b":1,"c":[{"x":true},{"x":null}],"d":{"k":"v","l":"w"},"e":[2,1],"f":null,"g":null,"h":{}}"#;
    for (input, range) in [
        (format!("{all} "), 0..all.len()),
        (format!(" \n{all}"), 2..all.len() + 2),
        ("null".to_string(), 0..4),
    ] {
        match dump.take(input.as_bytes(), &bump, &options) {
            Taken::Input(start, end) => assert_eq!(start..end, range, "{input}"),
            other => panic!("{input}: {other:?}"),
        }
    }
    for input in [
        r#"{"a":"x", "b":1,"c":[],"d":{},"e":[],"f":null,"g":null,"h":{}}"#,
        r#"{"a":"x","c":[],"d":{},"e":[],"f":null,"g":null,"h":{}}"#,
        r#"{"a":"x","b":1,"c":[{}],"d":{},"e":[],"f":null,"g":null,"h":{}}"#,
        r#"{"a":"\/","b":1,"c":[],"d":{},"e":[],"f":null,"g":null,"h":{}}"#,
    ] {
        match dump.take(input.as_bytes(), &bump, &options) {
            Taken::Written(text, end) => {
                assert_eq!(end, input.len(), "{input}");
                assert_eq!(Some(text.to_string()), general(&program, input.as_bytes()));
            }
            other => panic!("{input}: {other:?}"),
        }
    }
}

const TYPE: &str = r#"["object",{"a":"string","b":"number","c":["list",["object",{"x":"bool"}]],"d":["map","string"],"e":["set","number"],"f":"dynamic","g":["tuple",["string"]],"h":["object",{}]}]"#;

#[test]
fn what_go_cty_writes_goes_straight() {
    let program = Program::from_type_json(TYPE).unwrap();
    let ok = |input: &str, want: &str| {
        assert_eq!(
            straight(&program, input.as_bytes()).as_deref(),
            Some(want),
            "{input}"
        );
    };
    let all = r#"{"a":"x","b":1,"c":[{"x":true},{"x":null}],"d":{"k":"v","l":"w"},"e":[2,1],"f":null,"g":null,"h":{}}"#;
    ok(all, all);
    // Whitespace anywhere, before a colon too, is left out.
    let spaced = "{\n  \"a\" : \"x\",\n  \"b\": 1,\n  \"c\": [ { \"x\": true }, {\"x\":null} ],\n  \"d\": { \"k\" : \"v\" , \"l\":\"w\" },\n  \"e\": [ 2, 1 ],\n  \"f\": null, \"g\": null, \"h\": { }\n}\n";
    ok(spaced, all);
    // Attributes left out are written null: first, in the middle, last, all.
    ok(
        r#"{"b":1,"e":[],"h":{}}"#,
        r#"{"a":null,"b":1,"c":null,"d":null,"e":[],"f":null,"g":null,"h":{}}"#,
    );
    ok(
        r#"{"a":"x"}"#,
        r#"{"a":"x","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    ok(
        "{ }",
        r#"{"a":null,"b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    ok(
        r#"{"c":[{}]}"#,
        r#"{"a":null,"b":null,"c":[{"x":null}],"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    ok("null", "null");
    // Escapes the DUMP writes back as they are; others written as the DUMP writes them.
    ok(
        r#"{"a":"q\"b\\s\n\t\r\b\f"}"#,
        r#"{"a":"q\"b\\s\n\t\r\b\f","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    ok(
        r#"{"a":"\u003c\/é\u00e9\u0001"}"#,
        r#"{"a":"</éé\u0001","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    ok(
        r#"{"a":"x\/y"}"#,
        r#"{"a":"x/y","b":null,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    // Numbers the DUMP writes as they are, whatever their form.
    ok(
        r#"{"b":-0}"#,
        r#"{"a":null,"b":-0,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    ok(
        r#"{"b":-12.50e3}"#,
        r#"{"a":null,"b":-12.50e3,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
    ok(
        r#"{"b":123456789012345678901234567890}"#,
        r#"{"a":null,"b":123456789012345678901234567890,"c":null,"d":null,"e":null,"f":null,"g":null,"h":null}"#,
    );
}

#[test]
fn anything_else_gives_up_and_the_general_way_reads_it() {
    let program = Program::from_type_json(TYPE).unwrap();
    for input in [
        // The DUMP writes these otherwise: a number's form, map keys out of order or
        // repeated or escaped, attributes out of order, a string for a number and back.
        r#"{"b":1E3}"#,
        r#"{"d":{"l":"w","k":"v"}}"#,
        r#"{"d":{"k":"v","k":"w"}}"#,
        r#"{"d":{"\u006b":"v"}}"#,
        r#"{"b":1,"a":"x"}"#,
        r#"{"a":1}"#,
        r#"{"b":"1"}"#,
        // A dynamic value, a tuple: the DUMP wraps or reads them otherwise.
        r#"{"f":{"value":"s","type":"string"}}"#,
        r#"{"g":["s"]}"#,
    ] {
        assert_eq!(straight(&program, input.as_bytes()), None, "{input}");
        assert!(general(&program, input.as_bytes()).is_some(), "{input}");
    }
    for input in [
        r#"{"z":1}"#,
        r#"{"a":"x","a":"y"}"#,
        r#"{"a":"x",}"#,
        r#"{"a":"x""#,
        r#"{"a":"\x"}"#,
        "{\"a\":\"\u{1}\"}",
        r#"{"c":[{"x":1}]}"#,
        r#"[]"#,
    ] {
        assert_eq!(straight(&program, input.as_bytes()), None, "{input}");
        assert_eq!(general(&program, input.as_bytes()), None, "{input}");
    }
    // Bytes that are not UTF-8, in a string.
    let bad = b"{\"a\":\"\xff\"}";
    assert_eq!(
        (straight(&program, bad), general(&program, bad)),
        (None, None)
    );
}

/// The cases of `test_values.rs` (each held in an object), every proper prefix of them,
/// and each with one byte changed: written straight only as the general way's DUMP, and
/// only where the decode succeeds (`straight` checks both).
#[test]
fn cut_and_changed_inputs_are_written_only_as_the_general_way_would() {
    let mut written = 0;
    let mut refused = 0;
    let mut seed = 0x5eed_u64;
    for &(ty, json, want) in crate::test_values::CASES {
        let program = Program::from_type_json(&format!(r#"["object",{{"v":{ty}}}]"#)).unwrap();
        let input = format!(r#"{{"v":{json}}}"#);
        if let Some(text) = straight(&program, input.as_bytes()) {
            assert_eq!(text, format!(r#"{{"v":{want}}}"#));
            written += 1;
        }
        let bytes = input.as_bytes();
        for cut in 0..bytes.len() {
            straight(&program, &bytes[..cut]);
            // (Refused in a prefix: refused whatever follows.)
            if taken(&program, &bytes[..cut]).1 {
                assert_eq!(general(&program, bytes), None, "{input} cut at {cut}");
            }
        }
        for at in 0..bytes.len() {
            let mut changed = bytes.to_vec();
            changed[at] =
                b"\"\\{}[],: 0a-.e\x00\xc3"[crate::test_rng::next(&mut seed) as usize % 16];
            if straight(&program, &changed).is_some() {
                written += 1;
            }
            refused += usize::from(taken(&program, &changed).1);
        }
    }
    assert!(written > 100, "{written}");
    assert!(refused > 20, "{refused}");
}

/// The decode's limits, just met and just passed, and the deepest values.
mod limits {
    use super::super::*;
    use crate::test_rng::{next, rounds};

    /// The general way with `limits`: the DUMP of the decoded value, or `None`.
    fn general(program: &Program, input: &[u8], limits: Limits) -> Option<String> {
        let bump = Bump::new();
        let options = DecodeOptions::default().with_limits(limits);
        let value = program.decode_json_with(input, &bump, &options).ok()?;
        Some(crate::dump::to_string(program, value).unwrap())
    }

    fn straight(program: &Program, input: &[u8], limits: Limits) -> Option<String> {
        let dump = StraightDump::new(program).unwrap();
        let options = DecodeOptions::default().with_limits(limits);
        assert!(dump.applies(&options));
        let bump = Bump::new();
        let (text, end) = dump.write_prefix(input, &bump, &limits)?;
        assert_eq!(end, input.len());
        Some(text.to_string())
    }

    /// The limits the decode checks, each just met and just passed: written straight exactly
    /// where the decode succeeds. Above all the arena bytes of objects whose attributes the
    /// input leaves out (the decode charges every attribute of the type, 24 bytes each).
    #[test]
    fn limits_are_checked_as_the_decode_checks_them() {
        let program = Program::from_type_json(
            r#"["object",{"l":["list",["object",{"a":"bool","b":"bool","c":"bool","d":"bool","e":"bool"}]],"m":["map","string"],"s":"string"}]"#,
        )
        .unwrap();
        let inputs = [
            r#"{"l":[{},{},{}]}"#,
            r#"{"l":[{"a":true},{}],"m":{"k":"v","l":"w"}}"#,
            r#"{"m":{"key":"x"},"s":"abcdef"}"#,
            r#"{"s":"a\"c"}"#,
            r#"{"m":{}}"#,
        ];
        let mut limited = 0;
        for input in inputs {
            for arena in (0..400).step_by(8) {
                for values in [0, 3, 7, 12, 20, u64::MAX] {
                    for (strings, items) in [(2, 1), (3, 2), (6, 3), (u32::MAX, u32::MAX)] {
                        let limits = Limits::DEFAULT
                            .with_max_arena_bytes(arena)
                            .with_max_values(values)
                            .with_max_string_len(strings)
                            .with_max_container_len(items);
                        let want = general(&program, input.as_bytes(), limits);
                        let got = straight(&program, input.as_bytes(), limits);
                        match (&want, &got) {
                            // (Only where the decode succeeds; it may give up on a string
                            // whose escapes make it shorter decoded than here.)
                            (_, Some(g)) => {
                                assert_eq!(want.as_ref(), Some(g), "{input} {limits:?}")
                            }
                            (Some(_), None) => assert!(input.contains('\\'), "{input} {limits:?}"),
                            (None, None) => limited += 1,
                        }
                    }
                }
            }
        }
        assert!(limited > 100, "{limited}");
    }

    /// Long objects in compact form, as go-cty writes them and changed here and there
    /// (attributes left out, repeated or swapped, values the runs do not take, whitespace,
    /// a byte changed), under limits on string lengths that the runs' strings meet or pass:
    /// the objects' pairs go a window at a time (`straight_run.rs`), and what is written is
    /// exactly the general way's DUMP, where the decode succeeds.
    #[test]
    fn runs_of_pairs_write_what_the_general_way_writes() {
        let program = Program::from_type_json(
            r#"["object",{"arn":"string","count":"number","d":"dynamic","enabled":"bool","id":"string","l":["list",["object",{"x":"bool","y":"string"}]],"m":["map","string"],"name_of_a_rather_long_attribute_here":"string","z":"number"}]"#,
        )
        .unwrap();
        let names = [
            "arn",
            "count",
            "d",
            "enabled",
            "id",
            "l",
            "m",
            "name_of_a_rather_long_attribute_here",
            "z",
        ];
        let plain = |k: usize, r: u64| -> String {
            let pick = |options: &[&str]| options[(r >> 8) as usize % options.len()].to_string();
            match names[k] {
                "arn" | "id" | "name_of_a_rather_long_attribute_here" => pick(&[
                    "\"arn:aws:ec2:eu-west-3:047081014315:instance/i-0d3650a23f4e45dc0\"",
                    "\"i-0d3650a23f4e45dc0\"",
                    "\"\"",
                    "\"abcdefghijklmnopqrst\"",
                    "\"abcdefghijklmnopqrstu\"",
                ]),
                "count" | "z" => pick(&["0", "7", "123456789012345678", "1234"]),
                "enabled" => pick(&["true", "false"]),
                "l" => pick(&[r#"[{"x":true,"y":"a"},{"x":false,"y":"b"}]"#, "[]"]),
                "m" => pick(&[r#"{"a":"x","b":"y"}"#, "{}"]),
                _ => "null".to_string(),
            }
        };
        let other = [
            "null",
            "\"esc\\\"aped\"",
            "\"\\u0041\"",
            "\"h\u{e9}llo\"",
            "1.5",
            "-3",
            "1234567890123456789",
            "01",
            "\"7\"",
            "7",
            "true",
            " \"x\"",
            "{}",
        ];
        let mut x = 0x7e57_5eed_u64;
        let (mut written, mut failed) = (0, 0);
        for round in 0..rounds(6_000, 30) {
            let mut s = String::from("{");
            let mut k = 0;
            while k < names.len() {
                let r = next(&mut x);
                k = match r % 19 {
                    0 => k + 1,
                    1 => k.saturating_sub(1),
                    _ => k,
                }
                .min(names.len() - 1);
                if s.len() > 1 {
                    s.push_str(if r.is_multiple_of(97) { ", " } else { "," });
                }
                s.push_str(&format!("\"{}\":", names[k]));
                if r.is_multiple_of(7) {
                    s.push_str(other[(r >> 16) as usize % other.len()]);
                } else {
                    s.push_str(&plain(k, r));
                }
                k += 1;
                if r.is_multiple_of(29) {
                    break;
                }
            }
            s.push('}');
            let mut bytes = s.into_bytes();
            if round % 5 == 0 {
                let at = next(&mut x) as usize % bytes.len();
                bytes[at] = b"\"\\{}[],: 0a-.e\x00\xc3"[next(&mut x) as usize % 16];
            }
            let strings = [5, 20, 21, 64, u32::MAX][round % 5];
            let limits = Limits::DEFAULT.with_max_string_len(strings);
            let dump = StraightDump::new(&program).unwrap();
            let bump = Bump::new();
            let input = String::from_utf8_lossy(&bytes);
            // (A byte changed may end the object early: its DUMP is the prefix's.)
            match dump.write_prefix(&bytes, &bump, &limits) {
                Some((text, end)) => {
                    let want = general(&program, &bytes[..end], limits);
                    assert_eq!(want.as_deref(), Some(text), "{input} {strings}");
                    written += 1;
                }
                None => failed += usize::from(general(&program, &bytes, limits).is_none()),
            }
        }
        if !cfg!(miri) {
            assert!(written > 1_000 && failed > 500, "{written} {failed}");
        }
    }

    /// Values as deep as a straight DUMP goes (`MAX_STRAIGHT_DEPTH` containers, the root
    /// object one of them) written on a 1 MiB stack, as the decode reads them; a type one
    /// level deeper is left to the decode.
    #[test]
    fn the_deepest_values_fit_a_small_stack() {
        const STACK_UNDER_TEST: usize = 1 << 20;
        let depth = MAX_STRAIGHT_DEPTH;
        let levels = depth - 1;
        let ty = (0..levels).fold(Type::String, |t, _| Type::List(Box::new(t)));
        let ty = Type::Object(crate::schema::ObjectType::new([("a", ty)], &[]).unwrap());
        let input = format!(r#"{{"a":{}"x"{}}}"#, "[".repeat(levels), "]".repeat(levels));
        let limits = Limits::DEFAULT.with_max_depth(u32::MAX);
        let (program, dump) = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let program = Program::new(&ty).unwrap();
                let dump = StraightDump::new(&program).unwrap();
                std::mem::forget(ty);
                (program, dump)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(dump.depth, depth);
        let want = general(&program, input.as_bytes(), limits);
        let got = std::thread::Builder::new()
            .stack_size(STACK_UNDER_TEST)
            .spawn(move || {
                let bump = Bump::new();
                let got = dump.write_prefix(input.as_bytes(), &bump, &limits);
                got.map(|(text, _)| text.to_string())
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(want.is_some());
        assert_eq!(got, want);
        // A `max_depth` under the type's depth: the decode's to check.
        assert!(!dump_applies_at(&program, 100));
        assert!(dump_applies_at(&program, 128));
        let deeper = crate::schema::ObjectType::new([("a", program.root_type().clone())], &[]);
        let deeper = Program::new(&Type::Object(deeper.unwrap())).unwrap();
        assert!(StraightDump::new(&deeper).is_none());
    }

    fn dump_applies_at(program: &Program, max_depth: u32) -> bool {
        let options =
            DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_depth(max_depth));
        StraightDump::new(program).unwrap().applies(&options)
    }
}
