//! The `tfwire` command-line tool: decode Terraform/OpenTofu wire values and state files,
//! print implied types and compiled programs.
//!
//! It behaves as a Unix filter does:
//! - data goes to stdout, diagnostics to stderr, every line of them starting `tfwire: `
//!   (clap's usage errors too);
//! - exit status 0 on success; 1 on bad input — a value, a state file, a schema or type file
//!   that does not decode or cannot be read, an instance that fails to decode — or a failed
//!   write; 2 only when the command line itself is wrong (clap's errors: an unknown flag, a
//!   missing argument, an invalid value; an inline `--type` that is not type JSON);
//! - a closed stdout (`tfwire … | head`) ends the run at once, quietly: SIGPIPE keeps its
//!   default disposition, so the process dies of it as `cat` does (a shell reports 141).
//!   Elsewhere a broken pipe ends the run quietly with status 1, and so does a closed stdout
//!   for the commands that talk over the network (`cluster`, `sql --cluster`: a socket's
//!   peer gone must not end them).

mod cli;

use std::process::ExitCode;

/// The tool's allocator (the library leaves the choice to its users): mimalloc's per-thread
/// heaps spare the workers glibc's arena growth (an `mprotect` per step, under the process's
/// memory-map lock) when they load schemas and decode states in parallel: loading the
/// corpus's 39 schema documents went from 0.05 s and 11,000 page faults to 0.02 s
/// (`perf/optimizations.md`, F10).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

fn main() -> ExitCode {
    no_huge_pages();
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return usage_error(&e),
    };
    // (A process that talks to a cluster writes to sockets: a peer gone must be an error
    // there, not the end of the process.)
    if !args.uses_network() {
        restore_sigpipe();
    }
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(cli::Failure::BadInput(msg)) => {
            eprintln!("tfwire: {msg}");
            ExitCode::from(1)
        }
        Err(cli::Failure::Usage(msg)) => {
            eprintln!("tfwire: {msg}");
            ExitCode::from(2)
        }
        Err(cli::Failure::Closed) => ExitCode::from(1),
    }
}

/// Rust ignores SIGPIPE before `main` (a write to a closed pipe then fails with `EPIPE`);
/// the default disposition makes a closed stdout end the process at once, as it ends `cat`.
#[cfg(unix)]
fn restore_sigpipe() {
    // SAFETY: `signal` with `SIG_DFL` installs no handler (no code runs in signal context);
    // it is called in `main` before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}

/// No transparent huge pages for this process (as under glibc's allocator): mimalloc asks for
/// them, and the kernel then zeroes and compacts 2 MiB at a time, which measured as 0.1 to
/// 0.3 s of system time in one run in five of `tfwire state --jobs 2` on a 330 MB state
/// (`perf/optimizations.md`, F11). Failure (an old kernel) changes nothing else.
#[cfg(target_os = "linux")]
fn no_huge_pages() {
    // SAFETY: `prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)` only sets a flag of this process's
    // memory map; it reads and writes no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn no_huge_pages() {}

/// clap's outcome when the command line does not parse: `--help` and `--version` print on
/// stdout and exit 0; an error prints on stderr, each line after `tfwire: `, and exits 2.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if !e.use_stderr() {
        // --help, --version.
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        eprintln!("tfwire: a subcommand is required (see `tfwire --help`)");
        return ExitCode::from(2);
    }
    let text = e.render().to_string();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        eprintln!("tfwire: {}", line.strip_prefix("error: ").unwrap_or(line));
    }
    ExitCode::from(2)
}
