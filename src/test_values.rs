//! Small values of every kind, for the unit tests of the modules that hold `unsafe` code
//! (the decoders, the encoders, the DUMP): each case is decoded from JSON, re-encoded as
//! MessagePack and JSON, decoded again, and rendered, so that one short test per module takes
//! every unsafe path of that module under Miri (`.ci/miri`, `SAFETY.md`).

use bumpalo::Bump;

use crate::{dump, DecodeOptions, Program};

/// `(type JSON, input JSON, its DUMP)`. Strings cross the 16-, 32- and 64-byte block sizes,
/// with and without escapes and non-ASCII bytes; objects come in order, indented, with
/// attributes left out and out of order; numbers in every form the decoders keep apart.
pub(crate) const CASES: &[(&str, &str, &str)] = &[
    (
        r#"["object",{"id":"string","n":"number","ok":"bool","tags":["map","string"]}]"#,
        r#"{"id":"i-1","n":42,"ok":true,"tags":{"b":"2","a":"<1>"}}"#,
        r#"{"id":"i-1","n":42,"ok":true,"tags":{"a":"<1>","b":"2"}}"#,
    ),
    (
        r#"["object",{"a":"string","b":"string","c":"string","d":"string"}]"#,
        "{\n  \"a\" : \"x\",\n  \"c\": \"y\"\n}",
        r#"{"a":"x","b":null,"c":"y","d":null}"#,
    ),
    (
        r#"["object",{"a":"string","b":"string","c":"string"}]"#,
        r#"{"c":"3","a":"1","b":"2"}"#,
        r#"{"a":"1","b":"2","c":"3"}"#,
    ),
    (
        r#"["list","string"]"#,
        r#"["","short","exactly sixteen!","a string of thirty-two bytes....","a string of more than sixty-four bytes, long enough for the blocks.","\u003cé\u00e9\ud83d\ude00\n\t\"\\/ and then some more text to pass sixty-four bytes"]"#,
        r#"["","short","exactly sixteen!","a string of thirty-two bytes....","a string of more than sixty-four bytes, long enough for the blocks.","<éé😀\n\t\"\\/ and then some more text to pass sixty-four bytes"]"#,
    ),
    (
        r#"["list","number"]"#,
        r#"[0,-1,18446744073709551615,-9223372036854775808,1.5,2.5,0.1,"12",123456789012345678901234567890]"#,
        r#"[0,-1,18446744073709551615,-9223372036854775808,1.5,2.5,0.1,12,123456789012345678901234567890]"#,
    ),
    (
        r#"["set",["object",{"port":"number","cidr":["list","string"]}]]"#,
        r#"[{"port":443,"cidr":["10.0.0.0/8"]},{"port":80,"cidr":[]}]"#,
        r#"[{"cidr":["10.0.0.0/8"],"port":443},{"cidr":[],"port":80}]"#,
    ),
    (
        r#"["tuple",["string","bool",["map","number"]]]"#,
        r#"["t",false,{"k":1}]"#,
        r#"["t",false,{"k":1}]"#,
    ),
    (
        r#"["object",{"d":"dynamic","e":"dynamic"}]"#,
        r#"{"d":{"value":{"x":["a","b"]},"type":["object",{"x":["list","string"]}]},"e":{"type":"string","value":"s"}}"#,
        r#"{"d":{"type":["object",{"x":["list","string"]}],"value":{"x":["a","b"]}},"e":{"type":"string","value":"s"}}"#,
    ),
    (
        r#"["map",["list","bool"]]"#,
        r#"{"z":[true],"a":[],"m":null}"#,
        r#"{"a":[],"m":null,"z":[true]}"#,
    ),
];

/// Runs every case through both decoders and both encoders: the DUMP of each decode is the
/// case's, and re-encoding is a fixed point.
pub(crate) fn check_all() {
    for &(ty, json, want) in CASES {
        let program = Program::from_type_json(ty).unwrap();
        let bump = Bump::new();
        let options = DecodeOptions::default();
        let from_json = program
            .decode_json_with(json.as_bytes(), &bump, &options)
            .unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!(
            dump::to_string(&program, from_json).unwrap(),
            want,
            "{json}"
        );

        let mut msgpack = Vec::new();
        program.encode_msgpack(from_json, &mut msgpack).unwrap();
        let from_msgpack = program.decode_msgpack(&msgpack, &bump).unwrap();
        assert_eq!(
            dump::to_string(&program, from_msgpack).unwrap(),
            want,
            "{json}"
        );
        let mut again = Vec::new();
        program.encode_msgpack(from_msgpack, &mut again).unwrap();
        assert_eq!(again, msgpack, "{json}");

        let mut canonical = Vec::new();
        program.encode_json(from_json, &mut canonical).unwrap();
        let reread = program.decode_json(&canonical, &bump).unwrap();
        assert_eq!(dump::to_string(&program, reread).unwrap(), want, "{json}");

        // Every proper prefix of both encodings fails cleanly.
        let step = crate::test_rng::rounds(1, 7);
        for cut in (0..msgpack.len()).step_by(step) {
            assert!(program.decode_msgpack(&msgpack[..cut], &bump).is_err());
        }
        for cut in (0..canonical.len()).step_by(step) {
            assert!(program.decode_json(&canonical[..cut], &bump).is_err());
        }
    }
}
