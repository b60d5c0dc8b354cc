//! The `tfwire` binary: data on stdout, diagnostics on stderr (each line after `tfwire: `),
//! exit codes 0/1/2, `--help`, the flags. (`tests/cli_habits.rs`: the same habits across
//! subcommands; `tests/cli_pipes.rs`: a closed stdout.)

mod common;
#[path = "support/run.rs"]
mod run;

use std::path::PathBuf;
use std::process::Output;

fn tfwire(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run::tfwire(args, stdin.unwrap_or_default())
}

fn example(name: &str) -> String {
    PathBuf::from("tests/data/example")
        .join(name)
        .display()
        .to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

#[path = "cli/commands.rs"]
mod commands;
#[path = "cli/decode.rs"]
mod decode;
#[path = "cli/streams.rs"]
mod streams;
