//! A closed stdout ends `tfwire` at once, quietly, as it ends a Unix filter: `tfwire … | head
//! -n1` returns as soon as head has its line, tfwire dies of SIGPIPE (a shell's status 141)
//! and says nothing on stderr — on a large state file (decoded on one thread and on two), on
//! a state and a value stream that never end, in each output format.
#![cfg(unix)]

mod common;

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The bound on a run whose stdout closes (generous: the runs take well under a second).
const BOUND: Duration = Duration::from_secs(5);
/// A feed that never ends gives up after this long (a run that ignores the closed stdout
/// would go on at least this long).
const FEED: Duration = Duration::from_secs(60);
/// SIGPIPE's number (the same on Linux and the BSDs).
const SIGPIPE: i32 = 13;

const SCHEMAS: &str = "tests/data/states/toy.schemas.json";

/// What `tfwire ARGS | head -n1` gave.
struct Piped {
    /// head's output.
    line: String,
    /// tfwire's exit status, and when it ended.
    signal: Option<i32>,
    code: Option<i32>,
    took: Duration,
    stderr: String,
    /// Whether the feed (if any) stopped because tfwire's stdin closed.
    feed_closed: Option<bool>,
}

/// Runs `tfwire ARGS | head -n1`, feeding tfwire's stdin with `feed` when given; fails when
/// tfwire is still running `BOUND` after the start (it is then killed).
fn into_head(args: &[&str], feed: Option<fn(&mut ChildStdin) -> bool>) -> Piped {
    let start = Instant::now();
    let mut tfwire = Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(if feed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tfwire runs");
    let feeder = feed.map(|feed| {
        let mut stdin = tfwire.stdin.take().expect("stdin");
        std::thread::spawn(move || feed(&mut stdin))
    });
    let head = Command::new("head")
        .arg("-n1")
        .stdin(Stdio::from(tfwire.stdout.take().expect("stdout")))
        .stdout(Stdio::piped())
        .spawn()
        .expect("head runs");
    let line = head.wait_with_output().expect("head ends").stdout;
    let status = loop {
        if let Some(status) = tfwire.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > BOUND {
            let _ = tfwire.kill();
            let _ = tfwire.wait();
            panic!("{args:?}: still running {BOUND:?} after the start, its stdout closed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = start.elapsed();
    let mut stderr = String::new();
    tfwire
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr");
    Piped {
        line: String::from_utf8(line).expect("UTF-8"),
        signal: status.signal(),
        code: status.code(),
        took,
        stderr,
        feed_closed: feeder.map(|f| f.join().expect("the feed")),
    }
}

/// The closed stdout ended the run: by SIGPIPE, quietly, within the bound; head's line is
/// one complete line.
fn check_ended(args: &[&str], got: &Piped) {
    eprintln!("{args:?}: ended after {:?}", got.took);
    assert_eq!(
        (got.signal, got.code, got.stderr.as_str()),
        (Some(SIGPIPE), None, ""),
        "{args:?}"
    );
    assert!(got.took < BOUND, "{args:?}: {:?}", got.took);
    assert!(got.line.ends_with('\n'), "{:?}", got.line);
    assert_eq!(got.line.lines().count(), 1, "{:?}", got.line);
}

/// A state of `copies` times the toy state's resources (about 2 KB each time).
fn big_state(copies: usize) -> String {
    let toy = std::fs::read_to_string("tests/data/states/toy.tfstate").expect("the toy state");
    let toy: serde_json::Value = serde_json::from_str(&toy).expect("JSON");
    let resources: Vec<String> = toy["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| serde_json::to_string_pretty(r).expect("JSON"))
        .collect();
    let one = resources.join(",\n");
    let mut text = String::from("{\n\"version\": 4,\n\"resources\": [\n");
    for k in 0..copies {
        if k > 0 {
            text.push_str(",\n");
        }
        text.push_str(&one);
    }
    text.push_str("\n]\n}\n");
    text
}

#[test]
fn state_of_a_large_file_into_head() {
    let dir = common::scratch_dir("cli-pipes");
    let big = dir.join("big.tfstate");
    let text = big_state(20_000);
    // Large enough to be decoded on every worker (16 MiB), and to take seconds whole.
    assert!(text.len() > 32 << 20, "{}", text.len());
    std::fs::write(&big, &text).unwrap();
    let big = big.to_str().unwrap();
    for (format, jobs) in [("ndjson", "2"), ("ndjson", "1"), ("text", "2")] {
        let args = [
            "state",
            "--schemas",
            SCHEMAS,
            "--format",
            format,
            "--jobs",
            jobs,
            big,
        ];
        let got = into_head(&args, None);
        check_ended(&args, &got);
        match format {
            "ndjson" => {
                let first: serde_json::Value = serde_json::from_str(&got.line).unwrap();
                assert_eq!(first["address"], "toy_server.web[0]");
                assert_eq!(first["status"], "ok");
            }
            _ => assert_eq!(got.line, "toy_server.web[0]\tok\n"),
        }
    }
}

/// Writes `unit` to `stdin` again and again: `true` when stdin closed, `false` after `FEED`.
fn feed_forever(stdin: &mut ChildStdin, head: &[u8], unit: &[u8]) -> bool {
    let start = Instant::now();
    if stdin.write_all(head).is_err() {
        return true;
    }
    while start.elapsed() < FEED {
        if stdin.write_all(unit).is_err() {
            return true;
        }
    }
    false
}

#[cfg(target_os = "linux")]
#[test]
fn state_from_a_pipe_that_never_ends_into_head() {
    fn feed(stdin: &mut ChildStdin) -> bool {
        let resource = big_state(1);
        let start = resource.find('[').unwrap() + 1;
        let end = resource.rfind(']').unwrap();
        let unit = format!("{},\n", &resource[start..end]);
        feed_forever(stdin, b"{\"version\": 4, \"resources\": [", unit.as_bytes())
    }
    assert!(std::path::Path::new("/dev/stdin").exists());
    for jobs in ["2", "1"] {
        let args = [
            "state",
            "--schemas",
            SCHEMAS,
            "--format",
            "ndjson",
            "--jobs",
            jobs,
            "/dev/stdin",
        ];
        let got = into_head(&args, Some(feed));
        check_ended(&args, &got);
        assert_eq!(got.feed_closed, Some(true));
        let first: serde_json::Value = serde_json::from_str(&got.line).unwrap();
        assert_eq!(first["file"], "/dev/stdin");
    }
}

#[test]
fn decode_stream_that_never_ends_into_head() {
    fn ndjson(stdin: &mut ChildStdin) -> bool {
        feed_forever(stdin, b"", &b"{\"n\":1}\n".repeat(512))
    }
    fn msgpack(stdin: &mut ChildStdin) -> bool {
        feed_forever(stdin, b"", &[0x81, 0xa1, b'n', 0x01].repeat(1024))
    }
    let ty = r#"["object",{"n":"number"}]"#;
    let json = ["decode", "--type", ty, "--format", "json", "--stream"];
    let got = into_head(&json, Some(ndjson));
    check_ended(&json, &got);
    assert_eq!(
        (got.line.as_str(), got.feed_closed),
        ("{\"n\":1}\n", Some(true))
    );
    let mp = ["decode", "-t", ty, "--stream"];
    let got = into_head(&mp, Some(msgpack));
    check_ended(&mp, &got);
    assert_eq!(
        (got.line.as_str(), got.feed_closed),
        ("{\"n\":1}\n", Some(true))
    );
}
