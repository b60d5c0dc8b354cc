//! `StateReader::visit_files_parallel`: many files, small ones read whole by the pool and a
//! large one in parts, give what reading each file on one thread gives, in the files' order,
//! with 1, 2 and 3 jobs; a file cut short hands on its instances before the fault, then its
//! error; a file that cannot be opened ends with its error and the next file is read.

use super::*;

use std::sync::Arc;

use tfwire::state::{FilePiece, Pool, Threads};

/// What `visit_files_parallel` hands on, one string per piece: the file's index and either
/// its lines or how it ended.
fn files_parallel(
    paths: &[std::path::PathBuf],
    options: ReaderOptions,
    jobs: usize,
) -> Vec<String> {
    let set = doc();
    let mut seen = Vec::new();
    StateReader::visit_files_parallel(
        paths,
        options,
        &set,
        &DecodeOptions::default(),
        jobs,
        Vec::new,
        |lines: &mut Vec<String>, item, outcome| lines.push(line(item, outcome)),
        |lines| lines,
        |file, piece| match piece {
            FilePiece::Piece(lines) => {
                seen.extend(lines.into_iter().map(|l| format!("{file} {l}")))
            }
            FilePiece::End(Ok(summary)) => seen.push(format!("{file} end {}", summary.instances)),
            FilePiece::End(Err(e)) => seen.push(format!("{file} error {e}")),
        },
    );
    seen
}

/// The same from each file read whole on this thread by `StateReader::visit`.
fn one_by_one(paths: &[std::path::PathBuf]) -> Vec<String> {
    let set = doc();
    let mut seen = Vec::new();
    for (file, path) in paths.iter().enumerate() {
        let result = std::fs::File::open(path)
            .map_err(|e| format!("at byte 0: reading the state: {e}"))
            .and_then(|f| {
                StateReader::new(f)
                    .visit(&set, &DecodeOptions::default(), |item, outcome| {
                        seen.push(format!("{file} {}", line(item, outcome)))
                    })
                    .map_err(|e| e.to_string())
            });
        seen.push(match result {
            Ok(summary) => format!("{file} end {}", summary.instances),
            Err(e) => format!("{file} error {e}"),
        });
    }
    seen
}

#[test]
fn files_in_parallel_equal_files_one_by_one() {
    let dir = common::scratch_dir("files-parallel");
    let small = |i: usize| one_resource(1 + i % 3, |k| format!(r#"{{"id":"f{i}-{k}"}}"#), "");
    let mut paths = Vec::new();
    for i in 0..40 {
        let path = dir.join(format!("{i:02}.tfstate"));
        match i {
            // Cut short after its first instance.
            7 => {
                let text = one_resource(3, |k| format!(r#"{{"id":"cut{k}"}}"#), "");
                let cut = text.find(r#""cut1""#).unwrap();
                std::fs::write(&path, &text[..cut]).unwrap();
            }
            // Never written: cannot be opened.
            11 => {}
            // Large: read in parts (parts of 4 KiB below).
            20 => std::fs::write(&path, many_resources(300)).unwrap(),
            _ => std::fs::write(&path, small(i)).unwrap(),
        }
        paths.push(path);
    }
    let want = one_by_one(&paths);
    // The cut file's first instance, then its error; the missing file's error.
    assert!(want
        .iter()
        .any(|l| l.starts_with("7 null_resource.a[0] ") && l.contains("cut0")));
    assert!(want.iter().any(|l| l.starts_with("7 error ")));
    assert!(want
        .iter()
        .any(|l| l.starts_with("11 error ") && l.contains("reading the state")));
    assert!(want.iter().filter(|l| l.starts_with("20 ")).count() > 300);
    let options = ReaderOptions::default().with_part_bytes(4096);
    for jobs in [1, 2, 3] {
        // With threads started per read, and on a pool of the caller's, which every read
        // on more than one thread runs on: the small files before the large one, the large
        // one's parts, the small files after it; `jobs` workers each.
        let pool = Arc::new(Counted::default());
        let on_pool = options.clone().with_pool(pool.clone());
        for (options, runs) in [(options.clone(), None), (on_pool, Some(pool))] {
            let got = files_parallel(&paths, options, jobs);
            // (The first line that differs, rather than two thousand lines.)
            let differ = got.iter().zip(&want).position(|(g, w)| g != w);
            assert_eq!(
                (differ.map(|i| (&got[i], &want[i])), got.len()),
                (None, want.len()),
                "jobs {jobs}"
            );
            if let Some(runs) = runs {
                // (With one job no file is read in parts: one run of all 40. A file read in
                // parts has the calling thread read parts too: one worker fewer.)
                let expected: &[usize] = match jobs {
                    1 => &[1],
                    _ => &[jobs, jobs - 1, jobs],
                };
                assert_eq!(runs.workers(), expected, "jobs {jobs}");
            }
        }
    }
}

/// A pool that starts threads per read, as `Threads` does, and records how many workers
/// each read asked for; it fails a read that starts while another runs (the runs of small
/// files and the large file's parts follow each other).
#[derive(Default)]
struct Counted(std::sync::Mutex<Vec<usize>>, std::sync::atomic::AtomicBool);

impl Counted {
    fn workers(&self) -> Vec<usize> {
        self.0.lock().unwrap().clone()
    }
}

impl Pool for Counted {
    fn run(&self, workers: usize, work: &(dyn Fn() + Sync), caller: &mut dyn FnMut()) {
        use std::sync::atomic::Ordering;
        assert!(
            !self.1.swap(true, Ordering::SeqCst),
            "a read while another runs"
        );
        self.0.lock().unwrap().push(workers);
        Threads.run(workers, work, caller);
        self.1.store(false, Ordering::SeqCst);
    }
}

/// A pool that returns without running anything: every read on it fails with that error,
/// and no file is left without its end (nothing hangs, nothing is dropped silently).
struct Idle;

impl Pool for Idle {
    fn run(&self, _: usize, _: &(dyn Fn() + Sync), _: &mut dyn FnMut()) {}
}

#[test]
fn a_pool_that_runs_nothing_fails_each_read() {
    let dir = common::scratch_dir("files-idle-pool");
    let mut paths = Vec::new();
    for i in 0..3 {
        let path = dir.join(format!("{i}.tfstate"));
        std::fs::write(&path, one_resource(1, |_| r#"{"id":"x"}"#.into(), "")).unwrap();
        paths.push(path);
    }
    let options = ReaderOptions::default().with_pool(Arc::new(Idle));
    let got = files_parallel(&paths, options, 2);
    let error = "error the pool did not run the read";
    assert_eq!(got, [0, 1, 2].map(|i| format!("{i} {error}")));
}
