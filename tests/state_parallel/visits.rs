//! The batch API and `--jobs` against the one-thread reader: the same lines, releases and errors.

use super::*;

/// The batch API gives what the one-thread reader gives, in order, over several batches
/// (more instances than one batch holds), with errors and no-schema instances among them.
#[test]
fn parallel_visit_equals_visit() {
    let attributes = |i: usize| match i % 7 {
        0 => format!(r#"{{"id":"{i}","bad":1}}"#),
        1 => r#"{"id":null}"#.to_string(),
        _ => format!(r#"{{"id":"{}","n":{i}.5}}"#, "x".repeat(i % 300)),
    };
    let other = format!(
        r#",{{"mode":"data","type":"other","name":"b","provider":"{PROVIDER}","instances":[{{"attributes":{{}}}}]}}"#
    );
    let text = one_resource(40_000, attributes, &other);
    let set = doc();
    let one = by_reader(&set, text.as_bytes(), ReaderOptions::default()).unwrap();
    assert_eq!(one.len(), 40_001);
    // (Reads of 4 KiB: the large resource read by the walk, its instances handed on one by
    // one; of 1 MiB: handed on whole.)
    for read_size in [4096, 1 << 20] {
        for jobs in [2, 3] {
            let (lines, summary) = parallel(&set, text.as_bytes(), small(read_size), jobs);
            assert_eq!(summary.unwrap().instances, 40_001);
            assert_eq!(lines, one, "read size {read_size}, jobs {jobs}");
        }
    }
    // A malformed state: the instances before the error are handed out, then the error.
    let cut = text.replacen(r#"{"index_key":30000,"#, r#"{"index_key":30000,,"#, 1);
    let mut count = 0;
    let e = StateReader::new(cut.as_bytes())
        .visit_parallel(
            &set,
            &DecodeOptions::default(),
            2,
            || 0,
            |n, _, _| *n += 1,
            |n| count += n,
        )
        .unwrap_err();
    assert_eq!(count, 30_000);
    assert_eq!(
        (e.path(), e.offset(), e.message()),
        (
            ".resources[0].instances[30000]",
            Some(cut.find(",,").unwrap() + 1),
            "invalid JSON: expected a string key, found ','"
        ),
        "{e}"
    );
    let (lines, got) = parallel(&set, cut.as_bytes(), small(4096), 2);
    assert_eq!((lines.len(), got), (30_000, Err(e.to_string())));
    // Read in place from memory (the batches' bytes copied out of it): whole resources
    // handed on (batches of 1 MiB), the large one's instances one by one (4 KiB), and the
    // malformed state's instances before its error, then the error.
    for (state, read_size) in [(&text, 4096), (&text, 1 << 20), (&cut, 4096)] {
        let in_memory = StateReader::in_memory_with_options(state.clone(), small(read_size));
        let (lines, result) = parallel_reader(&set, in_memory, 2);
        let result = result.map(|s| s.instances);
        match state == &text {
            true => assert_eq!((result, &lines), (Ok(40_001), &one), "{read_size}"),
            false => assert_eq!((result, &lines[..]), (Err(e.to_string()), &one[..30_000])),
        }
    }
    // In memory every resource is whole: one larger than the split's limit (8 reads) is still
    // read by the walk and its instances handed on in batches (here about 1,500 runs), not
    // copied out whole for one worker.
    let mut runs = 0;
    StateReader::in_memory_with_options(text.clone(), small(4096))
        .visit_parallel(
            &set,
            &DecodeOptions::default(),
            2,
            || 0u32,
            |n, _, _| *n += 1,
            |_| runs += 1,
        )
        .unwrap();
    assert!(runs > 100, "{runs} runs");
}

/// A state in memory, read on one thread and on two, tells what it is done with as it goes
/// (`StateReader::with_release`): from the start, in order, in steps of `RELEASE_STEP` or
/// more, never past the state, and always before the bytes a batch still has to copy (the
/// lines are the streaming reader's).
#[test]
fn a_state_in_memory_releases_what_it_has_read() {
    use std::sync::{Arc, Mutex};
    use tfwire::state::RELEASE_STEP;
    // (Resources of 100 instances: a resource whole in memory is one unit of the walk.)
    let instances = |r: usize| -> String {
        let one = |i: usize| format!(r#"{{"attributes":{{"id":"{r}-{i}{}"}}}}"#, "y".repeat(900));
        (0..100).map(one).collect::<Vec<_>>().join(",")
    };
    let more: String = (1..200)
        .map(|r| {
            format!(
                r#",{{"mode":"managed","type":"null_resource","name":"r{r}","provider":"{PROVIDER}","instances":[{}]}}"#,
                instances(r)
            )
        })
        .collect();
    let text = one_resource(
        100,
        |i| format!(r#"{{"id":"{i}{}"}}"#, "y".repeat(900)),
        &more,
    );
    assert!(text.len() > 2 * RELEASE_STEP, "{}", text.len());
    let set = doc();
    let one = by_reader(&set, text.as_bytes(), ReaderOptions::default()).unwrap();
    for (jobs, read_size) in [(1, 1 << 20), (2, 4096), (2, 1 << 20)] {
        let released = Arc::new(Mutex::new(Vec::new()));
        let told = Arc::clone(&released);
        let reader = StateReader::in_memory_with_options(text.clone(), small(read_size))
            .with_release(move |range| told.lock().unwrap().push(range));
        let (lines, summary) = parallel_reader(&set, reader, jobs);
        let summary = summary.unwrap();
        assert_eq!(
            (summary.instances, &lines),
            (20_000, &one),
            "jobs {jobs}, {read_size}"
        );
        let released = released.lock().unwrap();
        assert!(released.len() >= 2, "{released:?}");
        assert_eq!(released[0].start, 0);
        assert!(released.windows(2).all(|w| w[0].end == w[1].start));
        assert!(released.iter().all(|r| r.len() >= RELEASE_STEP));
        assert!(released.last().unwrap().end <= text.len());
    }
}

/// The lines `one` (read whole) again from `text` in reads of 1, 3 and 17 bytes, from the
/// parsed state, and read in place from memory.
fn same_in_every_chunking(set: &tfwire::state::SchemaSet, text: &str, one: &[String]) {
    for max in [1, 3, 17] {
        let chunked = Chunked {
            data: text.as_bytes(),
            seed: max as u64,
            max,
        };
        assert_eq!(
            by_reader(set, chunked, small(5)).unwrap(),
            one,
            "chunks of {max}"
        );
    }
    assert_eq!(by_parse(set, text).unwrap(), one);
    assert_eq!(by_memory(set, text).unwrap(), one);
}

/// A selection and a type filter give the same lines one-shot, in every chunking, from the
/// parsed state and in parallel: the other type stepped over (not handed out, counted as
/// skipped, only delimited), each value projected, an unknown attribute outside the
/// selection stepped over, a selected value that does not decode an error.
#[test]
fn selection_and_types_in_every_chunking() {
    let mut set = doc();
    set.select(tfwire::schema::Selection::parse(["n"]).unwrap());
    set.only_types(["null_resource"]);
    let text = format!(
        r#"{{"version":4,"resources":[{{"mode":"data","type":"other","name":"b","provider":"{PROVIDER}","instances":[{{"attributes":{{"x":[1,2]}}}}]}},{{"mode":"managed","type":"null_resource","name":"a","provider":"{PROVIDER}","instances":[{{"index_key":0,"attributes":{{"id":"a","n":1.5,"extra":{{"deep":[true]}}}}}},{{"index_key":1,"attributes":{{"id":"b","n":"x"}}}}]}}]}}"#
    );
    let one = by_reader(&set, text.as_bytes(), ReaderOptions::default()).unwrap();
    let results: Vec<&str> = one
        .iter()
        .map(|l| l.split_once(" ok ").map_or(l.as_str(), |(_, r)| r))
        .collect();
    assert_eq!(results.len(), 2, "{one:?}");
    assert_eq!(results[0], r#"{"n":1.5}"#);
    assert!(one[1].starts_with("null_resource.a[1] "), "{}", one[1]);
    assert!(
        one[1].contains(r#"error at .n (byte 14): "x" is not a valid number"#),
        "{}",
        one[1]
    );
    same_in_every_chunking(&set, &text, &one);
    let summary = StateReader::new(text.as_bytes())
        .visit(&set, &DecodeOptions::default(), |_, _| {})
        .unwrap();
    assert_eq!((summary.instances, summary.skipped), (2, 1));
    let mut lines = Vec::new();
    let summary = StateReader::new(text.as_bytes())
        .visit_parallel(
            &set,
            &DecodeOptions::default(),
            2,
            Vec::new,
            |acc: &mut Vec<String>, item, o| acc.push(line(item, o)),
            |acc| lines.extend(acc),
        )
        .unwrap();
    assert_eq!(lines, one);
    assert_eq!((summary.instances, summary.skipped), (2, 1));
    // The skipped instance's attributes are delimited (strings and brackets matched), not
    // checked: a stray comma or a control byte passes, a cut object does not.
    for odd in ["[1,,2]", "[1,\"\u{1}\"]"] {
        let odd = text.replacen("[1,2]", odd, 1);
        assert_eq!(
            by_reader(&set, odd.as_bytes(), ReaderOptions::default()).unwrap(),
            one
        );
    }
    let cut = &text[..text.find("[1,2]").unwrap() + 3];
    let e = by_reader(&set, cut.as_bytes(), ReaderOptions::default()).unwrap_err();
    assert!(e.contains("unexpected end of input"), "{e}");
}

/// Malformed attributes the parallel walk only delimits (a worker finds the fault): the same
/// instances handed out before it and the same error as the one-thread walk, wherever the
/// fault is (a separator, an escape, a control byte, UTF-8).
/// Runs of resources of one type, as Terraform writes them, and types back and forth: the
/// reader asks whether a type is wanted when the type changes, and a name filter still
/// applies to each resource of a wanted type.
#[test]
fn types_wanted_across_runs_of_resources() {
    let mut set = doc();
    set.only_types(["null_resource"]);
    set.only_resources(tfwire::state::ResourceFilter {
        names: Some(vec!["a".into(), "c".into(), "e".into(), "o".into()]),
        ..Default::default()
    });
    let resource = |type_name: &str, name: &str| {
        format!(
            r#"{{"mode":"managed","type":"{type_name}","name":"{name}","provider":"{PROVIDER}","instances":[{{"attributes":{{"id":"{name}"}}}},{{"index_key":1,"attributes":{{"id":"{name}1"}}}}]}}"#
        )
    };
    let resources = [
        resource("null_resource", "a"),
        resource("null_resource", "b"),
        resource("null_resource", "c"),
        resource("other", "o"),
        resource("other", "p"),
        resource("null_resource", "e"),
        resource("null_resourc", "a"),
        resource("null_resource", "c"),
    ];
    let text = format!(r#"{{"version":4,"resources":[{}]}}"#, resources.join(","));
    let one = by_reader(&set, text.as_bytes(), ReaderOptions::default()).unwrap();
    let addresses: Vec<&str> = one.iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(
        addresses,
        [
            "null_resource.a",
            "null_resource.a[1]",
            "null_resource.c",
            "null_resource.c[1]",
            "null_resource.e",
            "null_resource.e[1]",
            "null_resource.c",
            "null_resource.c[1]",
        ],
        "{one:?}"
    );
    same_in_every_chunking(&set, &text, &one);
    let (lines, got) = parallel(&set, text.as_bytes(), small(64), 2);
    assert_eq!(
        (lines, got.map(|s| (s.instances, s.skipped))),
        (one, Ok((8, 8)))
    );
}

#[test]
fn parallel_visit_reports_malformed_attributes_as_visit_does() {
    let text = one_resource(
        30_000,
        |i| format!(r#"{{"id":"{}","n":{i}}}"#, "x".repeat(i % 50)),
        "",
    );
    let set = doc();
    let marker = r#"{"index_key":20000,"attributes":{"id":""#;
    let at = text.find(marker).unwrap() + marker.len();
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for bad in [&b"\\q"[..], b"\x01", b"\xff\xfe", b"\",,\""] {
        let mut bytes = text.as_bytes().to_vec();
        bytes.splice(at..at, bad.iter().copied());
        cases.push(bytes);
    }
    for bytes in &cases {
        let mut one = 0;
        let want = StateReader::new(&bytes[..])
            .visit(&set, &DecodeOptions::default(), |_, _| one += 1)
            .unwrap_err()
            .to_string();
        assert_eq!(one, 20_000, "{want}");
        assert!(
            want.contains(".resources[0].instances[20000].attributes"),
            "{want}"
        );
        // (Reads of 4 KiB: the attributes only delimited by the walk, checked by a worker.)
        for read_size in [4096, 1 << 20] {
            for jobs in [2, 3] {
                let (lines, got) = parallel(&set, bytes, small(read_size), jobs);
                assert_eq!(
                    (lines.len(), got),
                    (one, Err(want.clone())),
                    "read size {read_size}, jobs {jobs}"
                );
            }
        }
    }
}

/// `tfwire state` on a file large enough to have its instances decoded in parallel: the
/// same bytes with `--jobs 1` (the file mapped, and with `--no-mmap` read as a stream) and
/// `--jobs 2` (its parts read in place from the map, and with `--no-mmap` each through reads
/// of its own), text and NDJSON.
#[test]
fn cli_large_file_jobs_agree() {
    let dir = common::scratch_dir("large");
    let schemas = dir.join("schemas.json");
    std::fs::write(
        &schemas,
        r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/null":
        {"resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{
          "id":{"type":"string"},"n":{"type":"number","optional":true}}}}}}}}"#,
    )
    .unwrap();
    let mut text = String::from(r#"{"version":4,"resources":["#);
    for r in 0..20_000 {
        if r > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            r#"{{"mode":"managed","type":"null_resource","name":"r{r}","provider":"{PROVIDER}","instances":["#
        ));
        for i in 0..3 {
            let bad = if (r + i) % 11 == 0 { r#","x":1"# } else { "" };
            text.push_str(&format!(
                r#"{}{{"index_key":"k{i}","attributes":{{"id":"{}","n":{r}{bad}}}}}"#,
                if i > 0 { "," } else { "" },
                "v".repeat(250)
            ));
        }
        text.push_str("]}");
    }
    text.push_str("]}");
    assert!(text.len() > 17 << 20, "{}", text.len());
    let state = dir.join("large.tfstate");
    std::fs::write(&state, &text).unwrap();
    let run = |jobs: &str, format: &str, more: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tfwire"))
            .args([
                "state",
                "--schemas",
                schemas.to_str().unwrap(),
                "--format",
                format,
            ])
            .args(more)
            .args(["--jobs", jobs, state.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8(out.stderr).unwrap();
        // (The summary's `seconds=` differs from run to run.)
        let (summary, seconds) = stderr.split_once(" seconds=").unwrap();
        let failed = seconds.split_once('\n').unwrap().1;
        (
            String::from_utf8(out.stdout).unwrap(),
            format!("{summary}\n{failed}"),
        )
    };
    for format in ["text", "ndjson"] {
        let (one, err1) = run("1", format, &[]);
        let (two, err2) = run("2", format, &[]);
        let (streamed, err3) = run("1", format, &["--no-mmap"]);
        let (two_read, err4) = run("2", format, &["--no-mmap"]);
        assert_eq!(one.len(), two.len());
        assert!(one == two, "{format}: --jobs 1 and --jobs 2 differ");
        assert!(one == streamed, "{format}: mapped and streamed differ");
        assert!(one == two_read, "{format}: --jobs 2 mapped and read differ");
        assert_eq!(err1, err3);
        assert_eq!(err1, err4);
        assert_eq!(
            err1,
            "tfwire: instances=60000 ok=54545 errors=5455 no_schema=0 bytes=16139400\n\
             tfwire: 5455 of 60000 instances failed to decode\n"
        );
        assert_eq!(err1, err2);
    }
}
