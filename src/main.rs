//! The `tfwire` command-line tool: decode Terraform/OpenTofu wire values, print implied types
//! and compiled programs. Data goes to stdout, diagnostics to stderr; exit 0 on success, 1 on
//! bad input, 2 on a usage, schema or I/O error.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(cli::Failure::BadInput(msg)) => {
            eprintln!("{msg}");
            ExitCode::from(1)
        }
        Err(cli::Failure::Usage(msg)) => {
            eprintln!("tfwire: {msg}");
            ExitCode::from(2)
        }
    }
}
