//! Executors over a [`Program`](crate::Program): one forward pass, values built in a bumpalo
//! arena. Both executors recurse once per container under the depth cap
//! ([`MAX_DEPTH`](crate::limits::MAX_DEPTH)) and build an error's value path as the error
//! unwinds (`common.rs`, with everything else they share). Each also walks a value without
//! building it, telling a visitor (`visit.rs`, [`Program::visit`](crate::Program::visit));
//! a projection's dynamic values are restricted after their decode (`restrict.rs`).
//!
//! Every decode module is held to the panic-freedom lints below (CI runs clippy with
//! `-D warnings`): an index or an arithmetic operation on input-derived values must not be
//! able to panic. The few indexes kept in hot paths are allowed one by one, each with an
//! `// In bounds:` comment that says why it cannot fail.

use bumpalo::Bump;

use crate::error::DecodeError;
use crate::program::{DecodeOptions, Program};
use crate::value::Value;

mod common;
pub(crate) mod json;
pub(crate) mod msgpack;
mod read_through;
mod restrict;
mod slots;
pub(crate) mod visit;

/// The length of the JSON value at the start of `input` (whitespace before it counted),
/// checked as a decode checks what it steps over: the grammar serde_json accepts, every
/// string's escapes and UTF-8, numbers and literals, nesting up to
/// [`MAX_DEPTH`](crate::limits::MAX_DEPTH). An error names the byte offset of the fault.
///
/// Nothing is built. Strings are scanned 64 bytes at a time, and an object's compact pairs of
/// plain values (a string, `null`, a boolean, an integer, `[]`, `{}`) a 64-byte window at a
/// time, with the SIMD classifier the CPU has (AVX-512BW, AVX2, SSE2 or a portable one,
/// chosen at run time; `TFWIRE_SIMD=scalar|sse2|avx2|avx512` sets it); other tokens one at a
/// time. On AVX-512BW a container of more than 256 bytes is first tried by simdjson's two
/// stages (every byte classified into masks, the grammar checked on the masks).
///
/// Where it differs from serde_json's `IgnoredAny` (the `skip_differential` fuzz target
/// checks exactly these, and agreement everywhere else):
/// - it checks every string's UTF-8 and the pairing of `\u` surrogate escapes, as a decode
///   does (`"\ud800"` is an [`ErrorKind::InvalidUtf8`](crate::ErrorKind::InvalidUtf8) error;
///   `IgnoredAny` takes it);
/// - nesting deeper than [`MAX_DEPTH`](crate::limits::MAX_DEPTH) is an
///   [`ErrorKind::Limit`](crate::ErrorKind::Limit) error (`IgnoredAny` has no limit);
/// - a number or literal ends at any byte that cannot continue it, so `1\u{1}` is a value of
///   one byte here, where serde_json's stream rejects the control byte after it (a document
///   with anything but whitespace after its value is rejected by both).
///
/// ```
/// assert_eq!(tfwire::skip_json(br#" {"a":[1,"\u00e9"]} ,next"#)?, 19);
/// let e = tfwire::skip_json(br#"{"a":[1,]}"#).unwrap_err();
/// assert_eq!((e.kind(), e.offset()), (tfwire::ErrorKind::Syntax, Some(8)));
///
/// // Where serde_json's `IgnoredAny` differs.
/// let e = tfwire::skip_json(br#"["\ud800"]"#).unwrap_err();
/// assert_eq!(e.kind(), tfwire::ErrorKind::InvalidUtf8);
/// assert_eq!(tfwire::skip_json(b"1\x01")?, 1);
/// # Ok::<(), tfwire::DecodeError>(())
/// ```
pub fn skip_json(input: &[u8]) -> Result<usize, DecodeError> {
    let scratch = Bump::new();
    json::tokens::skip(input, 0, &scratch)
}

/// The length of the MessagePack value at the start of `input`: every header and length
/// checked against the input, every string's UTF-8 (not bin's), nothing built. Strings are
/// checked a part of about 4 KiB at a time, by one count of the part's bytes at or above
/// 0x80, and one by one in the eighths of the part where that count finds some. It runs at
/// 0.90–1.02× the pace of a bare skip walk that checks nothing (`skip_walk` in `tfwire
/// bench`) on the state workloads, and at 0.8–0.9× where strings that are not ASCII stand
/// in clusters or numbers are dense (the README's figures; the ratio moves with the build
/// and the machine). An error names the byte offset of the fault.
///
/// ```
/// // [1, "ab", {"k": nil}] and a byte after it.
/// let input = [0x93, 0x01, 0xa2, b'a', b'b', 0x81, 0xa1, b'k', 0xc0, 0xff];
/// assert_eq!(tfwire::skip_msgpack(&input)?, 9);
/// let e = tfwire::skip_msgpack(&[0x92, 0xa1, 0xff, 0x01]).unwrap_err();
/// assert_eq!((e.kind(), e.offset()), (tfwire::ErrorKind::InvalidUtf8, Some(1)));
/// # Ok::<(), tfwire::DecodeError>(())
/// ```
pub fn skip_msgpack(input: &[u8]) -> Result<usize, DecodeError> {
    msgpack::skip(input)
}

/// The decoding entry points of [`Program`] (the facade over the executors).
impl Program {
    /// Decodes one MessagePack value (the whole input) with default options.
    pub fn decode_msgpack<'a>(
        &'a self,
        input: &'a [u8],
        bump: &'a Bump,
    ) -> Result<Value<'a>, DecodeError> {
        msgpack::decode(self, input, bump, &DecodeOptions::default())
    }

    /// Decodes one MessagePack value (the whole input) with options.
    pub fn decode_msgpack_with<'a>(
        &'a self,
        input: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Result<Value<'a>, DecodeError> {
        msgpack::decode(self, input, bump, options)
    }

    /// Decodes one JSON value (the whole input; whitespace around it is allowed) with default
    /// options.
    ///
    /// go-cty's JSON rules apply: a missing object attribute reads as null, an unknown one is
    /// an error; a number may arrive as a JSON string (`"5"`), a bool as `"true"`/`"false"`/
    /// `"1"`/`"0"`, a string as a JSON number (its literal text) or bool; a dynamic value is
    /// `{"type": T, "value": V}` in either key order. Duplicate object keys and trailing
    /// bytes are errors. Strings without escapes borrow from `input`; numbers keep their
    /// exact text.
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::Program;
    ///
    /// let program = Program::from_type_json(r#"["object",{"id":"string","port":"number","tags":["map","string"]}]"#).unwrap();
    /// let bump = Bump::new();
    /// let value = program.decode_json(br#"{"id": "i-1", "port": "443"}"#, &bump).unwrap();
    /// assert_eq!(value.attr(&program, "id").unwrap().as_str(), Some("i-1"));
    /// assert_eq!(value.attr(&program, "port").unwrap().as_i64(), Some(443));
    /// assert!(value.attr(&program, "tags").unwrap().is_null());
    /// ```
    pub fn decode_json<'a>(
        &'a self,
        input: &'a [u8],
        bump: &'a Bump,
    ) -> Result<Value<'a>, DecodeError> {
        json::decode(self, input, bump, &DecodeOptions::default())
    }

    /// Decodes one JSON value (the whole input) with options. `missing_attributes_null` has
    /// no effect: JSON objects always read missing attributes as null.
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::{DecodeOptions, ErrorKind, Program};
    ///
    /// let program = Program::from_type_json(r#"["object",{"id":"string"}]"#).unwrap();
    /// let bump = Bump::new();
    /// let input = br#"{"id": "i-1", "legacy": [1, 2]}"#;
    /// let err = program.decode_json(input, &bump).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::UnknownAttribute);
    /// let options = DecodeOptions::default().with_skip_unknown_attributes(true);
    /// let value = program.decode_json_with(input, &bump, &options).unwrap();
    /// assert_eq!(value.attr(&program, "id").unwrap().as_str(), Some("i-1"));
    /// ```
    pub fn decode_json_with<'a>(
        &'a self,
        input: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Result<Value<'a>, DecodeError> {
        json::decode(self, input, bump, options)
    }

    /// Decodes the JSON value at the start of `input` (whitespace allowed before it) and
    /// returns it with the position just after it; the bytes after the value are not read.
    /// For readers of JSON documents that hold values (the state reader, `tfwire::state`):
    /// an input cut short inside the value is an [`ErrorKind::Eof`](crate::ErrorKind::Eof)
    /// error.
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::{DecodeOptions, Program};
    ///
    /// let program = Program::from_type_json(r#"["object",{"id":"string"}]"#).unwrap();
    /// let bump = Bump::new();
    /// let input = br#" {"id":"a"}, "next""#;
    /// let (value, end) = program.decode_json_prefix(input, &bump, &DecodeOptions::default()).unwrap();
    /// assert_eq!(value.attr(&program, "id").unwrap().as_str(), Some("a"));
    /// assert_eq!(&input[end..], br#", "next""#);
    /// ```
    pub fn decode_json_prefix<'a>(
        &'a self,
        input: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Result<(Value<'a>, usize), DecodeError> {
        json::decode_prefix(self, input, bump, options)
    }

    /// Decodes a protobuf `DynamicValue` from its two fields, as Terraform core does: the
    /// `msgpack` field when it is non-empty, else the `json` field; both empty read as null.
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::{DecodeOptions, Program};
    ///
    /// let program = Program::from_type_json(r#""string""#).unwrap();
    /// let bump = Bump::new();
    /// let opts = DecodeOptions::default();
    /// let from_mp = program.decode_dynamic_value(&[0xa1, b'x'], br#""ignored""#, &bump, &opts).unwrap();
    /// assert_eq!(from_mp.as_str(), Some("x"));
    /// let from_json = program.decode_dynamic_value(&[], br#""y""#, &bump, &opts).unwrap();
    /// assert_eq!(from_json.as_str(), Some("y"));
    /// assert!(program.decode_dynamic_value(&[], &[], &bump, &opts).unwrap().is_null());
    /// ```
    pub fn decode_dynamic_value<'a>(
        &'a self,
        msgpack: &'a [u8],
        json: &'a [u8],
        bump: &'a Bump,
        options: &DecodeOptions,
    ) -> Result<Value<'a>, DecodeError> {
        if !msgpack.is_empty() {
            self.decode_msgpack_with(msgpack, bump, options)
        } else if !json.is_empty() {
            self.decode_json_with(json, bump, options)
        } else {
            Ok(Value::Null)
        }
    }
}

#[cfg(test)]
mod tests {
    use bumpalo::Bump;

    use crate::schema::Selection;
    use crate::Program;

    /// Picks of a list, a tuple and a map in both encodings (`json/picks.rs`,
    /// `msgpack/picks.rs`, the executors' tuples): what they keep (a key the input repeats is
    /// kept each time, and the DUMP writes the last, as go-cty keeps it), and an error in an
    /// element stepped over at its path.
    #[test]
    fn picks_keep_the_picked_elements() {
        let full = Program::from_type_json(
            r#"["object",{"l":["list","string"],"t":["tuple",["bool","string","number"]],"m":["map","number"]}]"#,
        )
        .unwrap();
        let program = full
            .select(&Selection::parse(["l[1]", "l[5]", "t[2]", "t[0]", r#"m["k"]"#]).unwrap())
            .unwrap();
        let bump = Bump::new();
        let input = br#"{"l":["a","b","c"],"t":[true,"x",7],"m":{"j":1,"k":2,"k":3}}"#;
        let value = program.decode_json(input, &bump).unwrap();
        assert_eq!(
            crate::dump::to_string(&program, value).unwrap(),
            r#"{"l":["b"],"m":{"k":3},"t":[true,7]}"#
        );
        let e = program
            .decode_json(br#"{"l":["a",1,"\x"]}"#, &bump)
            .unwrap_err();
        assert_eq!((e.path(), e.offset()), (".l[2]", Some(13)), "{e}");

        // {"l":["a","b","c"],"t":[true,"x",7],"m":{"j":1,"k":2,"k":3}}
        let input = [
            0x83, 0xa1, b'l', 0x93, 0xa1, b'a', 0xa1, b'b', 0xa1, b'c', 0xa1, b't', 0x93, 0xc3,
            0xa1, b'x', 0x07, 0xa1, b'm', 0x83, 0xa1, b'j', 0x01, 0xa1, b'k', 0x02, 0xa1, b'k',
            0x03,
        ];
        let value = program.decode_msgpack(&input, &bump).unwrap();
        assert_eq!(
            crate::dump::to_string(&program, value).unwrap(),
            r#"{"l":["b"],"m":{"k":3},"t":[true,7]}"#
        );
        // The skipped `"a"`'s header claims more bytes than there are.
        let e = program
            .decode_msgpack(&[0x81, 0xa1, b'l', 0x92, 0xa5, b'a'], &bump)
            .unwrap_err();
        assert_eq!((e.path(), e.offset()), (".l[0]", Some(4)), "{e}");
    }
}
