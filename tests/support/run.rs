//! Runs the `tfwire` binary (the tests that include this need the `cli` feature).

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `tfwire ARGS` from the repository root with `stdin` as its input: its status and output.
pub fn tfwire(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tfwire runs");
    let mut input = child.stdin.take().expect("stdin");
    // The tool may exit before reading its input (a usage error): a broken pipe is fine.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("tfwire finishes")
}
