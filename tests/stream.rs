//! The stream API (`tfwire::stream`): chunked input gives exactly the values a one-shot decode
//! gives, in all three framings, for every conformance case (each case's value three times,
//! with a bad value between them where the framing can step over one), read in chunks of
//! seeded random sizes; and each framing's errors, with their value indices. The same through
//! `tfwire decode --stream` fed by a chunked pipe, which prints each value once it is
//! complete.

#[path = "support/cases.rs"]
mod cases;
mod common;

use std::io::Read;
use std::path::Path;

use bumpalo::Bump;
use tfwire::schema::{SchemaSelector, SchemaSource};
use tfwire::stream::{Framing, StreamErrorKind, StreamOptions, ValueStream};
use tfwire::{dump, Program};

use cases::{case_dirs, for_each_case, read_bytes, read_text};

/// A reader that hands out its bytes in chunks of pseudo-random sizes (1 to `max`).
struct Chunked<'a> {
    data: &'a [u8],
    state: u64,
    max: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let n = (1 + (self.state % self.max as u64) as usize)
            .min(buf.len())
            .min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Every item of a stream as `index ok DUMP` or `index error …`.
fn items(program: &Program, input: impl Read, options: StreamOptions) -> Vec<String> {
    let mut stream = ValueStream::new(program, input, options);
    let mut out = Vec::new();
    while let Some(item) = stream.next_value() {
        out.push(match item {
            Ok(item) => format!(
                "{} ok {}",
                item.index,
                dump::to_string(program, item.value).unwrap()
            ),
            Err(e) => format!("{} error {e}", e.index()),
        });
    }
    out
}

fn framed(framing: Framing, values: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        match framing {
            Framing::Concat => out.extend_from_slice(v),
            Framing::LengthPrefixed => {
                out.extend_from_slice(&(v.len() as u32).to_be_bytes());
                out.extend_from_slice(v);
            }
            Framing::Ndjson => {
                out.extend_from_slice(v);
                out.push(b'\n');
            }
        }
    }
    out
}

fn check_case(dir: &Path, id: u64) -> Result<(), String> {
    let schema = read_text(&dir.join(format!("{id}.schema.json")))?;
    let source = SchemaSource::parse(&schema).map_err(|e| format!("schema: {e}"))?;
    let program =
        Program::from_source(&source, &SchemaSelector::default()).map_err(|e| e.to_string())?;
    let msgpack = read_bytes(&dir.join(format!("{id}.msgpack")))?;
    let json = read_bytes(&dir.join(format!("{id}.json"))).ok();
    let bump = Bump::new();
    let one_shot = |bytes: &[u8], json: bool| {
        let v = if json {
            program.decode_json(bytes, &bump)
        } else {
            program.decode_msgpack(bytes, &bump)
        };
        dump::to_string(&program, v.map_err(|e| e.to_string())?).map_err(|e| e.to_string())
    };
    let mut runs: Vec<(Framing, Vec<u8>, Vec<String>)> = Vec::new();
    let want_mp = one_shot(&msgpack, false)?;
    // Concatenated: three values (no bad one: it would end the stream).
    runs.push((
        Framing::Concat,
        framed(Framing::Concat, &[&msgpack, &msgpack, &msgpack]),
        (0..3).map(|i| format!("{i} ok {want_mp}")).collect(),
    ));
    // Length-prefixed: value, a frame that does not decode, value.
    let bad = [0xc1u8];
    let mut want = vec![format!("0 ok {want_mp}")];
    let bad_err = program.decode_msgpack(&bad, &bump).unwrap_err();
    want.push(format!(
        "1 error value 1: at {} (byte {}): {}",
        bad_err.display_path(),
        bad_err.offset().unwrap(),
        bad_err.message()
    ));
    want.push(format!("2 ok {want_mp}"));
    runs.push((
        Framing::LengthPrefixed,
        framed(Framing::LengthPrefixed, &[&msgpack, &bad, &msgpack]),
        want,
    ));
    if let Some(json) = &json {
        if !json.contains(&b'\n') {
            let want_json = one_shot(json, true)?;
            let bad = b"[";
            let e = program.decode_json(bad, &bump).unwrap_err();
            let want = vec![
                format!("0 ok {want_json}"),
                format!(
                    "1 error value 1: at {} (byte {}): {}",
                    e.display_path(),
                    e.offset().unwrap(),
                    e.message()
                ),
                format!("2 ok {want_json}"),
            ];
            runs.push((
                Framing::Ndjson,
                framed(Framing::Ndjson, &[json, bad, json]),
                want,
            ));
        }
    }
    for (framing, input, want) in runs {
        for (seed, max) in [(id + 1, 1), (id + 7, 7), (id + 99, 300), (id + 5, 1 << 20)] {
            let reader = Chunked {
                data: &input,
                state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
                max,
            };
            let mut options = StreamOptions::new(framing);
            options.read_size = 1 + (seed as usize % 97);
            let got = items(&program, reader, options);
            if got != want {
                return Err(format!(
                    "{framing:?} chunks up to {max}: got {got:?}, want {want:?}"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn chunked_streams_equal_one_shot_decodes() {
    let shared = common::shared_dir("the shared conformance cases are not run");
    let run = for_each_case(&case_dirs(shared.as_deref()), ".msgpack", check_case);
    assert!(run >= 100);
}

fn program() -> Program {
    Program::from_type_json(r#"["object",{"n":"number"}]"#).unwrap()
}

#[test]
fn ndjson_steps_over_bad_and_long_lines() {
    let p = program();
    let mut options = StreamOptions::new(Framing::Ndjson);
    options.max_value_bytes = 12;
    let input = b"{\"n\":1}\r\n\n  \n{\"n\":true}\n{\"n\":1000000000000}\n{\"n\":4}";
    assert_eq!(
        items(&p, &input[..], options),
        [
            r#"0 ok {"n":1}"#,
            "1 error value 1: at .n (byte 5): expected number, found JSON bool",
            "2 error value 2: 19 bytes, more than the largest value allowed",
            r#"3 ok {"n":4}"#,
        ]
    );
}

#[test]
fn length_prefixed_steps_over_bad_and_large_frames_and_stops_when_truncated() {
    let p = program();
    let ok = [0x81, 0xa1, b'n', 0x07];
    let mut input = framed(
        Framing::LengthPrefixed,
        &[&ok, &[0x81, 0xa1, b'n', 0xc3], &[0u8; 40], &ok],
    );
    input.extend_from_slice(&[0, 0, 0, 9, 0x81]);
    let mut options = StreamOptions::new(Framing::LengthPrefixed);
    options.max_value_bytes = 16;
    let got = items(
        &p,
        Chunked {
            data: &input,
            state: 3,
            max: 5,
        },
        options,
    );
    assert_eq!(got.len(), 5, "{got:?}");
    assert_eq!(got[0], r#"0 ok {"n":7}"#);
    assert!(
        got[1].starts_with("1 error value 1: at .n (byte 3): "),
        "{}",
        got[1]
    );
    assert_eq!(
        got[2],
        "2 error value 2: 40 bytes, more than the largest value allowed"
    );
    assert_eq!(got[3], r#"3 ok {"n":7}"#);
    assert_eq!(got[4], "4 error value 4: the input ends inside the value");
}

#[test]
fn concatenated_msgpack_stops_at_the_first_bad_value() {
    let p = program();
    let ok = [0x81, 0xa1, b'n', 0x07];
    let input = [&ok[..], &[0x81, 0xa1, b'n', 0xc3], &ok].concat();
    let got = items(&p, &input[..], StreamOptions::new(Framing::Concat));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[1].starts_with("1 error value 1: at .n"), "{}", got[1]);
    let input = [&ok[..], &[0xc1], &ok].concat();
    let got = items(&p, &input[..], StreamOptions::new(Framing::Concat));
    assert_eq!(
        got[1..],
        ["1 error value 1: byte 0: 0xc1 is no MessagePack value; the stream ends here"]
    );
    // A claimed length past the limit is an error once the bytes read pass it, not a buffer.
    let mut options = StreamOptions::new(Framing::Concat);
    options.max_value_bytes = 64;
    let hostile = [0xdb, 0xff, 0xff, 0xff, 0xff]
        .iter()
        .copied()
        .chain(std::iter::repeat_n(b'a', 200))
        .collect::<Vec<u8>>();
    let got = items(&p, &hostile[..], options);
    assert_eq!(
        got,
        ["0 error value 0: 205 bytes, more than the largest value allowed"]
    );
    let got = items(&p, &ok[..3], StreamOptions::new(Framing::Concat));
    assert_eq!(got, ["0 error value 0: the input ends inside the value"]);
    assert!(items(&p, &[][..], StreamOptions::new(Framing::Concat)).is_empty());
}

#[test]
fn a_reader_error_ends_the_stream() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("boom"))
        }
    }
    let p = program();
    let mut stream = ValueStream::new(&p, Failing, StreamOptions::new(Framing::Ndjson));
    let err = stream.next_value().unwrap().unwrap_err();
    assert!(matches!(err.kind(), StreamErrorKind::Io(_)));
    assert_eq!(err.to_string(), "value 0: read error: boom");
    assert!(stream.next_value().is_none());
}

/// `tfwire decode --stream` fed through a pipe by a writer that hands over random pieces:
/// for every tenth conformance case, in all three framings, stdout has the one-shot DUMP of
/// each good value and stderr the bad value's error with its index.
#[test]
fn cli_decode_stream_from_a_chunked_pipe_equals_one_shot_decodes() {
    let shared = common::shared_dir("the shared conformance cases are not run");
    let check = |dir: &Path, id: u64| -> Result<(), String> {
        if !id.is_multiple_of(10) {
            return Ok(());
        }
        let schema = dir.join(format!("{id}.schema.json"));
        let source = SchemaSource::parse(&read_text(&schema)?).map_err(|e| e.to_string())?;
        let program =
            Program::from_source(&source, &SchemaSelector::default()).map_err(|e| e.to_string())?;
        let msgpack = read_bytes(&dir.join(format!("{id}.msgpack")))?;
        let json = read_bytes(&dir.join(format!("{id}.json")))
            .ok()
            .filter(|j| !j.contains(&b'\n'));
        let bump = Bump::new();
        let dump_of = |v: Result<tfwire::Value<'_>, tfwire::DecodeError>| {
            v.map(|v| dump::to_string(&program, v).unwrap())
                .map_err(|e| e.to_string())
        };
        let mut runs = vec![
            (
                "concat",
                framed(Framing::Concat, &[&msgpack, &msgpack]),
                dump_of(program.decode_msgpack(&msgpack, &bump))?,
                None,
            ),
            (
                "length-prefixed",
                framed(Framing::LengthPrefixed, &[&msgpack, &[0xc1], &msgpack]),
                dump_of(program.decode_msgpack(&msgpack, &bump))?,
                Some(program.decode_msgpack(&[0xc1], &bump).unwrap_err()),
            ),
        ];
        if let Some(json) = &json {
            runs.push((
                "ndjson",
                framed(Framing::Ndjson, &[json, b"[", json]),
                dump_of(program.decode_json(json, &bump))?,
                Some(program.decode_json(b"[", &bump).unwrap_err()),
            ));
        }
        for (framing, input, want, bad) in runs {
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tfwire"))
                .args(["decode", "--schema", schema.to_str().unwrap(), "--stream"])
                .args(["--framing", framing, "-"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| e.to_string())?;
            let mut stdin = child.stdin.take().unwrap();
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                let mut rest = &input[..];
                let mut state = id.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                while !rest.is_empty() {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let n = (1 + (state % 50) as usize).min(rest.len());
                    stdin.write_all(&rest[..n]).unwrap();
                    stdin.flush().unwrap();
                    std::thread::yield_now();
                    rest = &rest[n..];
                }
            });
            let out = child.wait_with_output().map_err(|e| e.to_string())?;
            writer.join().unwrap();
            let stdout = String::from_utf8(out.stdout).unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            let want_out = format!("{want}\n{want}\n");
            let want_err = match &bad {
                None => String::new(),
                Some(e) => format!(
                    "tfwire: value 1: at {} (byte {}): {}\ntfwire: 1 of 3 values failed\n",
                    e.display_path(),
                    e.offset().unwrap(),
                    e.message()
                ),
            };
            if stdout != want_out || stderr != want_err {
                return Err(format!(
                    "{framing}: stdout {stdout:?} stderr {stderr:?}, want {want_out:?} {want_err:?}"
                ));
            }
            let code = if bad.is_some() { 1 } else { 0 };
            if out.status.code() != Some(code) {
                return Err(format!("{framing}: exit {:?}", out.status.code()));
            }
        }
        Ok(())
    };
    let run = for_each_case(&case_dirs(shared.as_deref()), ".msgpack", check);
    assert!(run >= 100);
}

/// Each value is printed as soon as it is complete: the next one is written only after its
/// line has been read back.
#[test]
fn cli_decode_stream_prints_each_value_when_it_is_complete() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args([
            "decode",
            "--type",
            r#"["object",{"n":"number"}]"#,
            "--format",
            "json",
        ])
        .args(["--stream", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for n in 0..5 {
        // The value in two pieces, the line only after the second.
        stdin.write_all(b"{\"n\":").unwrap();
        stdin.flush().unwrap();
        stdin.write_all(format!("{n}}}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line, format!("{{\"n\":{n}}}\n"));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
