//! The README's examples run as written: a block marked `<!-- NAME example -->` and fenced as
//! `text`, whose `$ ` lines are commands and whose other lines are the standard output the
//! command before them prints.

use std::path::Path;
use std::process::Command;

/// Runs the README's `marker` example in a scratch folder holding `files` (copied there),
/// each `$ ` line through `sh` with `bin_dir` (the `tfwire` built for the tests) first on
/// `PATH`, and checks each command's standard output against the README's lines; returns the
/// number of commands.
pub fn run_example(
    marker: &str,
    files: &[std::path::PathBuf],
    bin_dir: &Path,
    dir: &Path,
) -> usize {
    for f in files {
        std::fs::copy(f, dir.join(f.file_name().unwrap())).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let steps = steps(marker);
    for (cmd, want) in &steps {
        let out = Command::new("sh")
            .args(["-c", cmd])
            .current_dir(dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            *want,
            "{cmd}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    steps.len()
}

/// The README's `marker` example: each command with the standard output it shows.
pub fn steps(marker: &str) -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let block = readme
        .split(&format!("<!-- {marker} example -->\n```text\n"))
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap_or_else(|| panic!("the README's {marker} example"));
    let mut steps: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        match line.strip_prefix("$ ") {
            Some(cmd) => steps.push((cmd.to_string(), String::new())),
            None => {
                let (_, want) = steps.last_mut().expect("output after a command");
                want.push_str(line);
                want.push('\n');
            }
        }
    }
    steps
}
