//! The state reader's fuzz check (`state_chunks`): any bytes, read as a state file by
//! `StateReader` in one piece, in pieces the input picks, in place from memory
//! (`StateReader::in_memory`) and on two threads (`visit_parallel`, streamed and in
//! memory), and with a set that writes DUMPs (`SchemaSet::write_dumps`: the DUMP written
//! straight), give the same instances, outcomes and values, or the same error; a set that
//! wants one type (`SchemaSet::only_types`) likewise, and that type's instances of the whole
//! read when the whole read succeeds; and, where `StateFile::parse` reads the file,
//! what it gives (the reader's documented extra errors aside: a key repeated after a
//! resource's `instances`, a `module` naming a module only after them, a second
//! `resources`).

use std::io::Read;

use tfwire::state::{Outcome, ReaderOptions, SchemaSet, StateFile, StateReader};
use tfwire::{dump, DecodeOptions};

/// The schema every fuzzed state is read with: the types that recurse and the dynamic one.
const SCHEMAS: &str = r#"{"format_version":"1.0","provider_schemas":{
 "registry.terraform.io/hashicorp/null":{"resource_schemas":{"null_resource":{"version":0,"block":{
  "attributes":{"id":{"type":"string"},"n":{"type":"number","optional":true},
   "l":{"type":["list","string"],"optional":true},"m":{"type":["map","bool"],"optional":true},
   "d":{"type":"dynamic","optional":true}},
  "block_types":{"b":{"nesting_mode":"list","block":{"attributes":{"x":{"type":"string","optional":true}}}}}}}},
  "data_source_schemas":{"null_data_source":{"version":0,"block":{"attributes":{"id":{"type":"string"}}}}}}}}"#;

/// Hands out bytes in pieces whose sizes cycle through `sizes`.
#[derive(Clone)]
struct Pieces<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes.get(self.next % self.sizes.len().max(1)).copied();
        self.next = self.next.wrapping_add(1);
        let n = size.unwrap_or(1).max(1).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn line(item: tfwire::state::InstanceRef<'_, '_>, outcome: &Outcome<'_>) -> String {
    let result = match outcome {
        Outcome::Ok(v, m) => format!("ok {}", dump::to_string(m.program, *v).unwrap()),
        // (The same line: a DUMP written straight is the DUMP of the decoded value.)
        Outcome::Dumped(text, _) => format!("ok {text}"),
        Outcome::Error(e, _) => format!("error {e}"),
        Outcome::NoSchema => "no schema".into(),
        Outcome::Legacy => "legacy".into(),
    };
    let attrs = item.instance.attributes.json();
    format!(
        "{} v{} {attrs:?} {result}",
        item.address(),
        item.instance.schema_version
    )
}

fn read(set: &SchemaSet, input: impl Read, read_size: usize) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    let options = ReaderOptions::default()
        .with_read_size(read_size)
        .with_max_unit_bytes(1 << 20);
    StateReader::with_options(input, options)
        .visit(set, &DecodeOptions::default(), |item, o| {
            lines.push(line(item, o))
        })
        .map(|_| lines)
        .map_err(|e| e.to_string())
}

/// [`read`], the state in memory, read in place ([`StateReader::in_memory`]).
fn read_in_memory(set: &SchemaSet, text: &[u8]) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    StateReader::in_memory(text.to_vec())
        .visit(set, &DecodeOptions::default(), |item, o| {
            lines.push(line(item, o))
        })
        .map(|_| lines)
        .map_err(|e| e.to_string())
}

/// A set that wants only the type `a` picks: read in one piece, in pieces, in memory and on
/// two threads, the same instances (those before an error too) and the same error; where
/// the whole set reads the state, exactly that type's instances of that read.
fn one_type_agrees(set: &SchemaSet, text: &[u8], (a, b): (u8, u8)) {
    let wanted = ["null_resource", "null_data_source"][usize::from(a & 1)];
    let mut only = set.clone();
    only.only_types([wanted]);
    let one_shot = read(&only, text, 1 << 16);
    let pieces = Pieces {
        data: text,
        sizes: vec![1 + b as usize % 11, 1 + a as usize],
        next: 0,
    };
    let chunked = read(&only, pieces, 1 + (a ^ b) as usize % 64);
    assert_eq!(chunked, one_shot, "chunked read of one type differs");
    let in_memory = read_in_memory(&only, text);
    assert_eq!(in_memory, one_shot, "read of one type in memory differs");
    parallel_agrees(&only, text, 1 << 20, &one_shot);
    let mut typed = Vec::new();
    let whole = StateReader::new(text).visit(set, &DecodeOptions::default(), |item, o| {
        typed.push((item.resource.type_name.to_string(), line(item, o)));
    });
    if whole.is_ok() {
        let want: Vec<String> = typed
            .into_iter()
            .filter(|(t, _)| t == wanted)
            .map(|(_, l)| l)
            .collect();
        assert_eq!(
            one_shot,
            Ok(want),
            "the read of one type is not that type's instances"
        );
    }
}

/// The check: `data[0..2]` pick the pieces, the rest is the state.
pub fn state_chunks(data: &[u8]) {
    let Some((&[a, b], text)) = data.split_first_chunk::<2>() else {
        return;
    };
    let mut set = SchemaSet::new();
    set.add_json(SCHEMAS).expect("the fuzz schema loads");
    let one_shot = read(&set, text, 1 << 16);
    let sizes = vec![
        1 + a as usize % 13,
        1 + b as usize,
        1 + (a ^ b) as usize % 5,
    ];
    let pieces = Pieces {
        data: text,
        sizes,
        next: 0,
    };
    let chunked = read(&set, pieces.clone(), 1 + b as usize % 64);
    assert_eq!(chunked, one_shot, "chunked read differs");
    assert_eq!(
        read_in_memory(&set, text),
        one_shot,
        "read in memory differs"
    );
    // DUMPs written straight from the attributes, whole and cut by the pieces.
    let mut dumping = set.clone();
    dumping.write_dumps(true);
    assert_eq!(read(&dumping, text, 1 << 16), one_shot, "DUMPs differ");
    let chunked = read(&dumping, pieces, 1 + a as usize % 64);
    assert_eq!(chunked, one_shot, "chunked DUMPs differ");
    assert_eq!(
        read_in_memory(&dumping, text),
        one_shot,
        "DUMPs in memory differ"
    );
    // The batch API on two threads, with whole resources handed to the workers (the default
    // reads) and with small reads (larger resources read by the walk itself): the same
    // instances in the same order (those before an error too), and the same error.
    for read_size in [1 << 20, 1 + a as usize % 64] {
        parallel_agrees(&set, text, read_size, &one_shot);
    }
    parallel_agrees(&dumping, text, 1 << 20, &one_shot);
    // The file read in parts of its bytes on two threads, the parts as small as the input
    // picks (every resource boundary near a part's start).
    parts_agree(&set, text, 1 + (b as usize) % 97, &one_shot);
    // A set that wants one type, the other's instances stepped over undecoded.
    one_type_agrees(&set, text, (a, b));
    // Where serde_json's envelope parse reads the file, the reader agrees.
    let Ok(s) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(state) = StateFile::parse(s) else {
        return;
    };
    // A repeated key: StateFile::parse keeps the last, the reader may have acted on the first
    // (documented).
    if has_repeated_keys(s) {
        return;
    }
    let mut want = Vec::new();
    set.visit(&state, &DecodeOptions::default(), |item, o| {
        want.push(line(item, o))
    });
    match &one_shot {
        Ok(got) => assert_eq!(got, &want, "the reader differs from StateFile::parse"),
        Err(e) => assert!(
            e.contains("max_unit_bytes") || e.contains(r#""module" after "instances""#),
            "the reader failed where StateFile::parse did not: {e}"
        ),
    }
}

/// `visit_parallel` on two threads with reads of `read_size` (and, read in place from
/// memory, batches of that size) gives `one_shot`'s instances (those before an error too)
/// and error.
fn parallel_agrees(
    set: &SchemaSet,
    text: &[u8],
    read_size: usize,
    one_shot: &Result<Vec<String>, String>,
) {
    let options = ReaderOptions::default().with_read_size(read_size);
    parallel_reader_agrees(
        set,
        text,
        StateReader::with_options(text, options.clone()),
        one_shot,
    );
    // Read in place, the batches' resources copied out of the state.
    let in_memory = StateReader::in_memory_with_options(text.to_vec(), options);
    parallel_reader_agrees(set, text, in_memory, one_shot);
}

/// `reader.visit_parallel` on two threads gives `one_shot`'s instances (those before an
/// error too) and error.
fn parallel_reader_agrees<R: Read + Send>(
    set: &SchemaSet,
    text: &[u8],
    reader: StateReader<R>,
    one_shot: &Result<Vec<String>, String>,
) {
    // On a thread of its own: a walk keeps its buffer for the thread's next walk, and a
    // fresh one reads `read_size` bytes at a time from the first byte.
    let (lines, parallel) = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let mut lines = Vec::new();
                let parallel = reader
                    .visit_parallel(
                        set,
                        &DecodeOptions::default(),
                        2,
                        Vec::new,
                        |acc: &mut Vec<String>, item, o| acc.push(line(item, o)),
                        |acc| lines.extend(acc),
                    )
                    .map(|_| lines.clone())
                    .map_err(|e| e.to_string());
                (lines, parallel)
            })
            .join()
            .expect("visit_parallel panicked")
    });
    match (&parallel, one_shot) {
        (Err(e), Err(want)) => {
            assert_eq!(e, want, "visit_parallel's error differs");
            let mut before = Vec::new();
            let _ = StateReader::new(text).visit(set, &DecodeOptions::default(), |item, o| {
                before.push(line(item, o))
            });
            assert_eq!(
                lines, before,
                "visit_parallel's instances before the error differ"
            );
        }
        _ => assert_eq!(&parallel, one_shot, "visit_parallel differs"),
    }
}

/// `visit_file_parallel` and `visit_memory_parallel` on two threads with parts of
/// `part_bytes` or more give `one_shot`'s instances (those before an error too) and error.
fn parts_agree(
    set: &SchemaSet,
    text: &[u8],
    part_bytes: usize,
    one_shot: &Result<Vec<String>, String>,
) {
    let path = std::env::temp_dir().join(format!(
        "tfwire-parts-{}-{:?}.tfstate",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, text).expect("a scratch file");
    let options = ReaderOptions::default().with_part_bytes(part_bytes);
    let decode = DecodeOptions::default();
    let (mut in_file, mut in_memory) = (Vec::new(), Vec::new());
    let file = StateReader::visit_file_parallel(
        &path,
        options.clone(),
        set,
        &decode,
        2,
        Vec::new,
        push_line,
        |acc| acc,
        |acc| in_file.extend(acc),
    );
    let _ = std::fs::remove_file(&path);
    let memory = StateReader::visit_memory_parallel(
        text.to_vec(),
        None::<fn(std::ops::Range<usize>)>,
        options,
        set,
        &decode,
        2,
        Vec::new,
        push_line,
        |acc| acc,
        |acc| in_memory.extend(acc),
    );
    for (engine, lines, read) in [
        ("visit_file_parallel", in_file, file),
        ("visit_memory_parallel", in_memory, memory),
    ] {
        let parts = read.map(|_| lines.clone()).map_err(|e| e.to_string());
        match (&parts, one_shot) {
            (Err(e), Err(want)) => {
                assert_eq!(e, want, "{engine}'s error differs");
                let mut before = Vec::new();
                let _ = StateReader::new(text)
                    .visit(set, &decode, |item, o| before.push(line(item, o)));
                assert_eq!(
                    lines, before,
                    "{engine}'s instances before the error differ"
                );
            }
            _ => assert_eq!(&parts, one_shot, "{engine} differs"),
        }
    }
}

/// [`line`] of an instance, added to `lines`.
fn push_line(lines: &mut Vec<String>, item: tfwire::state::InstanceRef<'_, '_>, o: &Outcome<'_>) {
    lines.push(line(item, o));
}

/// Whether any JSON object in `text` (valid JSON) has a key twice.
fn has_repeated_keys(text: &str) -> bool {
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    struct Repeated(bool);
    impl<'de> Deserialize<'de> for Repeated {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Repeated;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("JSON")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Repeated, A::Error> {
                    let mut keys = std::collections::HashSet::new();
                    let mut repeated = false;
                    while let Some(k) = map.next_key::<String>()? {
                        repeated |= !keys.insert(k);
                        repeated |= map.next_value::<Repeated>()?.0;
                    }
                    Ok(Repeated(repeated))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Repeated, A::Error> {
                    let mut repeated = false;
                    while let Some(r) = seq.next_element::<Repeated>()? {
                        repeated |= r.0;
                    }
                    Ok(Repeated(repeated))
                }
                fn visit_bool<E>(self, _: bool) -> Result<Repeated, E> {
                    Ok(Repeated(false))
                }
                fn visit_i64<E>(self, _: i64) -> Result<Repeated, E> {
                    Ok(Repeated(false))
                }
                fn visit_u64<E>(self, _: u64) -> Result<Repeated, E> {
                    Ok(Repeated(false))
                }
                fn visit_f64<E>(self, _: f64) -> Result<Repeated, E> {
                    Ok(Repeated(false))
                }
                fn visit_str<E>(self, _: &str) -> Result<Repeated, E> {
                    Ok(Repeated(false))
                }
                fn visit_unit<E>(self) -> Result<Repeated, E> {
                    Ok(Repeated(false))
                }
            }
            d.deserialize_any(V)
        }
    }
    serde_json::from_str::<Repeated>(text).is_ok_and(|r| r.0)
}
