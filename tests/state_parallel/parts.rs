//! Resources handed on whole, and files read in parts whose bytes mislead, as one walk.

use super::*;

/// Resources handed on whole and read by the workers, and a resource too large for that read
/// by the walk: the lines and summary of the one-thread walk, at every read size, with 2
/// and 3 jobs, with and without a type filter.
#[test]
fn parallel_walk_hands_on_resources_as_visit_reads_them() {
    let text = many_resources(2_000);
    assert!(text.len() > 600_000, "{}", text.len());
    let mut filtered = doc();
    filtered.only_types(["null_resource"]);
    for set in [doc(), filtered] {
        let (one, summary) = one_thread(&set, text.as_bytes());
        let summary = summary.unwrap();
        assert_eq!(summary.resources, 600);
        assert_eq!(summary.terraform_version.as_deref(), Some("1.9.0"));
        assert!(one
            .iter()
            .any(|l| l.contains("unsupported attribute \"bad\"")));
        assert!(one.iter().any(|l| l.contains("(deposed d1)")));
        for read_size in [64, 4096, 1 << 20] {
            for jobs in [2, 3] {
                let (lines, got) = parallel(&set, text.as_bytes(), small(read_size), jobs);
                assert_eq!(lines, one, "read size {read_size}, jobs {jobs}");
                assert_eq!(
                    got.as_ref(),
                    Ok(&summary),
                    "read size {read_size}, jobs {jobs}"
                );
            }
        }
        for part_bytes in PART_SIZES {
            for jobs in [2, 3] {
                let (lines, got) = in_parts(&set, text.as_bytes(), part_bytes, jobs);
                assert_eq!(lines, one, "parts of {part_bytes}, jobs {jobs}");
                assert_eq!(got.as_ref(), Ok(&summary), "parts of {part_bytes}");
            }
        }
    }
}

/// Parts of a file, at most: in bytes, a few per resource (every resource boundary near a
/// part's start), one or two resources, a handful of parts in all.
const PART_SIZES: [usize; 3] = [397, 4_999, 150_000];

/// Lines, summary or error of `text` read in parts of `part_bytes` or more with `jobs`
/// threads, on a thread of its own: as a file, and in memory — the two the same, and the
/// bytes released in memory in order.
fn in_parts(
    set: &tfwire::state::SchemaSet,
    text: &[u8],
    part_bytes: usize,
    jobs: usize,
) -> (Vec<String>, Result<tfwire::state::Summary, String>) {
    let file = file_in_parts(set, text, part_bytes, jobs);
    let released = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let told = std::sync::Arc::clone(&released);
    let release = move |range: std::ops::Range<usize>| told.lock().unwrap().push(range);
    let options = ReaderOptions::default().with_part_bytes(part_bytes);
    let mut lines = Vec::new();
    let summary = StateReader::visit_memory_parallel(
        text.to_vec(),
        Some(release),
        options,
        set,
        &DecodeOptions::default(),
        jobs,
        Vec::new,
        |acc: &mut Vec<String>, item, o| acc.push(line(item, o)),
        |acc| acc,
        |acc| lines.extend(acc),
    )
    .map_err(|e| e.to_string());
    assert_eq!((&lines, &summary), (&file.0, &file.1), "in memory");
    // In parts, the bytes are told in order from the start, each once, and all of them
    // when the read succeeds.
    let released = released.lock().unwrap().clone();
    if text.len() >= 2 * part_bytes {
        let mut told = 0;
        for range in &released {
            assert_eq!(range.start, told, "{released:?}");
            assert!(range.end > range.start);
            told = range.end;
        }
        assert!(told <= text.len());
        if summary.is_ok() {
            assert_eq!(told, text.len());
        }
    }
    file
}

/// [`in_parts`] as a file.
fn file_in_parts(
    set: &tfwire::state::SchemaSet,
    text: &[u8],
    part_bytes: usize,
    jobs: usize,
) -> (Vec<String>, Result<tfwire::state::Summary, String>) {
    let dir = common::scratch_dir("parts");
    let path = dir.join("state.tfstate");
    std::fs::write(&path, text).unwrap();
    let options = ReaderOptions::default().with_part_bytes(part_bytes);
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let mut lines = Vec::new();
                let summary = StateReader::visit_file_parallel(
                    &path,
                    options,
                    set,
                    &DecodeOptions::default(),
                    jobs,
                    Vec::new,
                    |acc: &mut Vec<String>, item, o| acc.push(line(item, o)),
                    |acc| acc,
                    |acc| lines.extend(acc),
                )
                .map_err(|e| e.to_string());
                (lines, summary)
            })
            .join()
            .unwrap()
    })
}

/// A state read in parts whose bytes mislead: objects inside attributes whose first key is
/// `mode` or `module` (a part starting there does not count: the part before reads on, or
/// the part is read again), resources whose first key is neither (no part can start there),
/// pretty-printed as Terraform writes states; a state with no `version`, and one with it
/// after `resources`: the one-thread walk's lines, summary and error, with every type wanted
/// and with one.
#[test]
fn parts_of_a_file_read_as_one_walk() {
    let text = many_resources(2_000);
    let lookalikes = text.replace(
        r#""attributes":{"id":"#,
        r#""attributes":{"z":{"mode":"managed","x":[{"module" : 1}]},"id":"#,
    );
    let value: serde_json::Value = serde_json::from_str(&lookalikes).unwrap();
    let pretty = serde_json::to_string_pretty(&value).unwrap();
    let unversioned = text.replacen(r#""version":4,"#, "", 1);
    let late = format!(
        r#"{},"version":4}}"#,
        unversioned.strip_suffix('}').unwrap()
    );
    let set = doc();
    // Also with one type wanted: the walk steps over runs of resources of the others, across
    // the parts' boundaries. (A walk that read past its part's end would still give these
    // lines: its next part is then read again.)
    let mut others = doc();
    others.only_types(["other"]);
    for (name, bytes) in [
        ("lookalikes", &lookalikes),
        ("pretty", &pretty),
        ("unversioned", &unversioned),
        ("late version", &late),
    ] {
        for (set, least) in [(&set, 2_000), (&others, 50)] {
            let (one, want) = one_thread(set, bytes.as_bytes());
            assert!(one.len() > least, "{name}");
            for part_bytes in PART_SIZES {
                for jobs in [2, 3] {
                    let (lines, got) = in_parts(set, bytes.as_bytes(), part_bytes, jobs);
                    assert_eq!(got, want, "{name}, parts of {part_bytes}, jobs {jobs}");
                    assert_eq!(lines, one, "{name}, parts of {part_bytes}, jobs {jobs}");
                }
            }
        }
    }
    assert!(one_thread(&set, unversioned.as_bytes()).1.is_err());
    assert!(one_thread(&set, late.as_bytes()).1.is_ok());
}

/// A malformed resource (a bad mode, a missing comma, a bad `index_key`, invalid UTF-8, a
/// resource that is not an object, a state cut short, attributes whose brackets balance
/// early, attributes twice and the first not UTF-8) read by a worker or by the walk: the instances before it handed out, then the
/// one-thread walk's error, at the same path and offset.
#[test]
fn parallel_walk_reports_malformed_resources_as_visit_does() {
    let text = many_resources(40);
    let at = |needle: &str| text.find(needle).unwrap();
    let r401 = at(r#""name":"r401""#);
    let mut cases: Vec<Vec<u8>> = vec![
        text.replacen(
            r#""mode":"managed","type":"null_resource","name":"r401""#,
            r#""mode":"bogus","type":"null_resource","name":"r401""#,
            1,
        )
        .into_bytes(),
        text.replacen(
            r#""name":"r401","provider""#,
            r#""name":"r401" "provider""#,
            1,
        )
        .into_bytes(),
        text.replacen(
            r#"{"index_key":0,"schema_version":0,"attributes":{"id":"i-402-0"#,
            r#"{"index_key":[0],"schema_version":0,"attributes":{"id":"i-402-0"#,
            1,
        )
        .into_bytes(),
        text.replacen(
            r#"{"mode":"managed","type":"null_resource","name":"r402""#,
            r#"7,{"mode":"managed","type":"null_resource","name":"r402""#,
            1,
        )
        .into_bytes(),
        text.as_bytes()[..r401 + 300].to_vec(),
    ];
    // Attributes whose brackets balance early (`{"x":]`), in the resource too large to be
    // handed on whole at small reads: the walk, delimiting them, meets a fault after them; the
    // one-thread walk meets theirs first.
    cases.push(
        text.replacen(
            r#""attributes":{"id":"i-300-5"#,
            r#""attributes":{"x":]"id":"i-300-5"#,
            1,
        )
        .into_bytes(),
    );
    // `attributes` twice, the first not UTF-8: the one-thread walk fails on the first; the
    // walk, delimiting both, keeps the last unless it checks the first.
    let mut twice = text
        .replacen(
            r#""attributes":{"id":"i-300-5"#,
            r#""attributes":{"id":"BAD"},"attributes":{"id":"i-300-5"#,
            1,
        )
        .into_bytes();
    let bad = twice.windows(3).position(|w| w == b"BAD").unwrap();
    twice.splice(bad..bad + 3, [0xff, 0xfe]);
    cases.push(twice);
    let mut utf8 = text.clone().into_bytes();
    utf8.splice(r401 + 9..r401 + 9, [0xff, 0xfe]);
    cases.push(utf8);
    for (k, bytes) in cases.iter().enumerate() {
        assert!(
            bytes[..] != *text.as_bytes(),
            "case {k} left the state as it was"
        );
        let set = doc();
        let (one, want) = one_thread(&set, bytes);
        let want = want.unwrap_err();
        assert!(
            want.contains(".resources[30") || want.contains(".resources[40"),
            "case {k}: {want}"
        );
        assert!(one.len() > 300, "case {k}: {}", one.len());
        // (Reads of 64 bytes: every resource read by the walk, its attributes delimited.)
        for read_size in [64, 4096, 1 << 20] {
            for jobs in [2, 3] {
                let (lines, got) = parallel(&set, bytes, small(read_size), jobs);
                assert_eq!(
                    got.as_ref(),
                    Err(&want),
                    "case {k}, read size {read_size}, jobs {jobs}"
                );
                assert_eq!(lines, one, "case {k}, read size {read_size}, jobs {jobs}");
            }
        }
        for part_bytes in PART_SIZES {
            let (lines, got) = in_parts(&set, bytes, part_bytes, 2);
            assert_eq!(got.as_ref(), Err(&want), "case {k}, parts of {part_bytes}");
            assert_eq!(lines, one, "case {k}, parts of {part_bytes}");
        }
    }
}

/// A sink that panics ends a read on every thread: the panic comes back to the caller, and no
/// worker is left waiting for results never handed on — in parts (parts of 4,999 bytes, each
/// with a resource start) and as a stream (parts of 397 bytes, most without one; reads of
/// 4 KiB, so that many batches are queued when the sink first panics).
#[test]
fn a_panicking_sink_ends_a_parallel_read() {
    for (part_bytes, jobs) in [(4_999, 2), (4_999, 3), (397, 2), (397, 3)] {
        let text = many_resources(10);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let set = doc();
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                StateReader::visit_memory_parallel(
                    text.into_bytes(),
                    None::<fn(std::ops::Range<usize>)>,
                    ReaderOptions::default()
                        .with_part_bytes(part_bytes)
                        .with_read_size(4096),
                    &set,
                    &DecodeOptions::default(),
                    jobs,
                    Vec::new,
                    |acc: &mut Vec<String>, item, o| acc.push(line(item, o)),
                    |acc| acc,
                    |_| panic!("the sink"),
                )
            }));
            let _ = tx.send(read.err().and_then(|p| p.downcast_ref::<&str>().copied()));
        });
        let ended = rx.recv_timeout(std::time::Duration::from_secs(60));
        assert_eq!(
            ended,
            Ok(Some("the sink")),
            "parts of {part_bytes}, jobs {jobs}"
        );
    }
}
