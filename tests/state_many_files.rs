//! `tfwire state` over many small files with several jobs: the files are decoded in chunks
//! on the workers and printed in order (`src/cli/in_order.rs`), so the lines, the errors on
//! stderr (in file order) and the exit status are those of `--jobs 1`.

mod common;

use std::process::{Command, Output};

fn tfwire(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args(args)
        .output()
        .unwrap()
}

/// stderr with the summary's timing as `seconds=S`.
fn stderr(out: &Output) -> String {
    common::stderr_timeless(out)
}

#[test]
fn many_small_files_print_as_with_one_job() {
    let dir = common::scratch_dir("many-files");
    let toy = std::fs::read_to_string(common::toy_state_file("toy.tfstate")).unwrap();
    let schemas = common::toy_state_file("toy.schemas.json");
    // 600 files: more than a chunk's 256 files; one of them over a chunk's 1 MiB.
    let mut paths = Vec::new();
    for i in 0..600 {
        let path = dir.join(format!("{i:04}.tfstate"));
        match i {
            // Cut short: its instances before the cut print, then the file's error.
            300 => std::fs::write(&path, &toy[..toy.len() / 2]).unwrap(),
            // Never written: the file cannot be opened (with no length, it is read as a
            // stream of its own between two runs of small files).
            450 => {}
            // 1 MiB of spaces after the opening brace.
            500 => {
                let padded = format!("{{{}{}", " ".repeat(1 << 20), &toy[1..]);
                std::fs::write(&path, padded).unwrap();
            }
            _ => std::fs::write(&path, &toy).unwrap(),
        }
        paths.push(path.display().to_string());
    }
    let run = |format: &str, jobs: &str| {
        let mut args: Vec<String> = ["state", "--schemas", &schemas, "--format", format]
            .into_iter()
            .map(String::from)
            .collect();
        args.extend(["--jobs".to_string(), jobs.to_string()]);
        args.extend(paths.iter().cloned());
        tfwire(&args)
    };
    let one_file = tfwire(&[
        "state".into(),
        "--schemas".into(),
        schemas.clone(),
        common::toy_state_file("toy.tfstate"),
    ]);
    let per_file = String::from_utf8(one_file.stdout).unwrap().lines().count();
    for format in ["text", "ndjson"] {
        let one = run(format, "1");
        assert_eq!(one.status.code(), Some(1), "{format}");
        let text = String::from_utf8(one.stdout.clone()).unwrap();
        // Every whole file's lines, and some of the cut one's.
        let lines = text.lines().count();
        assert!(lines >= 598 * per_file && lines < 599 * per_file, "{lines}");
        // The errors in file order, after the summary's counts: 598 whole files of seven
        // instances (three ok, two failed, two without a schema) and the cut file's first
        // three.
        assert_eq!(
            stderr(&one),
            format!(
                "tfwire: {}: at .resources[1] (byte 1054): invalid JSON: unexpected end of input\n\
                 tfwire: {}: No such file or directory (os error 2)\n\
                 tfwire: instances=4189 ok=1796 errors=1197 no_schema=1196 bytes=191605 seconds=S\n\
                 tfwire: 1197 of 4189 instances failed to decode\n\
                 tfwire: 2 state files could not be read\n",
                paths[300], paths[450]
            ),
            "{format}"
        );
        for jobs in ["2", "3"] {
            let many = run(format, jobs);
            assert!(many.stdout == one.stdout, "{format}: --jobs {jobs} differs");
            assert_eq!(stderr(&many), stderr(&one), "{format}: --jobs {jobs}");
            assert_eq!(many.status.code(), Some(1));
        }
    }
}
