//! One `Program` shared by many threads, each decoding with its own arena:
//! - 8 threads decoding the same inputs in different orders give the DUMPs one thread gives;
//! - the dynamic-type cache under contention: 16 threads decoding values of hundreds of
//!   distinct dynamic types at once (every thread reaching each new type at about the same
//!   time) give correct values;
//! - `Limits::max_dynamic_types` holds exactly under contention: past it a new type is a
//!   `Limit` error, types already cached keep decoding.

#[path = "reference/mod.rs"]
mod reference;

use std::collections::HashSet;
use std::sync::{Barrier, Mutex};

use bumpalo::Bump;
use reference::gen::{gen_type, gen_value, Rng, Shape};
use reference::{encode, has_unknown};
use tfwire::{dump, DecodeOptions, ErrorKind, Limits, Program, Type};

const THREADS: usize = 8;

/// DUMPs (or error messages) of `inputs` decoded in the order that starts at `start`.
fn decode_all(p: &Program, inputs: &[(bool, Vec<u8>)], start: usize) -> Vec<(usize, String)> {
    let mut bump = Bump::new();
    let mut out = Vec::new();
    for k in 0..inputs.len() {
        let i = (start + k * 7) % inputs.len();
        let (json, bytes) = &inputs[i];
        let r = match json {
            true => p.decode_json(bytes, &bump),
            false => p.decode_msgpack(bytes, &bump),
        };
        out.push((
            i,
            r.map(|v| dump::to_string(p, v).unwrap())
                .unwrap_or_else(|e| format!("error {e}")),
        ));
        bump.reset();
    }
    out.sort();
    out
}

/// A type with dynamic parts, and many values of it in both formats (fixed seed).
fn workload() -> (Type, Vec<(bool, Vec<u8>)>) {
    let mut s = Rng::new(42);
    let t = loop {
        let t = gen_type(&mut s, 4);
        if t.has_dynamic() && matches!(t, Type::Object(_) | Type::List(_) | Type::Map(_)) {
            break t;
        }
    };
    let mut inputs = Vec::new();
    for i in 0..400 {
        let shape = Shape {
            max_len: 5,
            unknowns: i % 3 == 0,
            dyn_depth: 2,
        };
        let v = gen_value(&mut s, &t, &shape);
        inputs.push((false, encode::msgpack(&mut s, &t, &v)));
        if !has_unknown(&v) {
            inputs.push((true, encode::json(&mut s, &t, &v)));
        }
    }
    (t, inputs)
}

#[test]
fn eight_threads_sharing_a_program_give_the_single_thread_dumps() {
    let (t, inputs) = workload();
    let single = decode_all(&Program::new(&t).unwrap(), &inputs, 0);
    assert!(
        single
            .iter()
            .filter(|(_, d)| !d.starts_with("error"))
            .count()
            > 300
    );
    // A fresh program, so that its dynamic types are compiled under contention too.
    let shared = Program::new(&t).unwrap();
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|k| {
                let (shared, inputs, barrier) = (&shared, &inputs, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    decode_all(shared, inputs, k * inputs.len() / THREADS)
                })
            })
            .collect();
        for h in handles {
            assert!(
                h.join().unwrap() == single,
                "a thread's DUMPs differ from one thread's"
            );
        }
    });
    // The real example too.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/example");
    let schema = std::fs::read_to_string(dir.join("aws_security_group.schema.json")).unwrap();
    let p = Program::from_schema_json(&schema).unwrap();
    let example = vec![
        (
            false,
            std::fs::read(dir.join("aws_security_group.msgpack")).unwrap(),
        ),
        (
            true,
            std::fs::read(dir.join("aws_security_group.json")).unwrap(),
        ),
    ];
    let one = decode_all(&p, &example, 0);
    std::thread::scope(|scope| {
        for k in 0..THREADS {
            let (p, example, one) = (&p, &example, &one);
            scope.spawn(move || {
                for _ in 0..20 {
                    assert!(decode_all(p, example, k) == *one);
                }
            });
        }
    });
}

/// The MessagePack `[type, value]` and JSON `{"type","value"}` of `{"f<i>": i}`.
fn distinct(i: usize) -> (String, Vec<u8>, Vec<u8>, String) {
    let ty = format!(r#"["object",{{"f{i}":"number"}}]"#);
    let name = format!("f{i}");
    let mut mp = vec![0x92, 0xd9, ty.len() as u8];
    mp.extend_from_slice(ty.as_bytes());
    mp.extend([0x81, 0xa0 | name.len() as u8]);
    mp.extend_from_slice(name.as_bytes());
    mp.extend([0xcd, (i >> 8) as u8, i as u8]);
    let json = format!(r#"{{"value":{{"{name}":{i}}},"type":{ty}}}"#).into_bytes();
    let want = format!(r#"{{"type":{ty},"value":{{"{name}":{i}}}}}"#);
    (ty, mp, json, want)
}

#[test]
fn the_dynamic_type_cache_under_contention() {
    const TYPES: usize = 600;
    const MANY: usize = 16;
    let p = Program::from_type_json("\"dynamic\"").unwrap();
    let cases: Vec<_> = (0..TYPES).map(distinct).collect();
    let barrier = Barrier::new(MANY);
    std::thread::scope(|scope| {
        for k in 0..MANY {
            let (p, cases, barrier) = (&p, &cases, &barrier);
            scope.spawn(move || {
                let bump = Bump::new();
                barrier.wait();
                // Every thread walks the types in the same order, so they meet each new type
                // together; odd threads read JSON.
                for (i, (_, mp, json, want)) in cases.iter().enumerate() {
                    let v = match k % 2 {
                        0 => p.decode_msgpack(mp, &bump),
                        _ => p.decode_json(json, &bump),
                    };
                    let v = v.unwrap_or_else(|e| panic!("thread {k}, type {i}: {e}"));
                    assert_eq!(
                        &dump::to_string(p, v).unwrap(),
                        want,
                        "thread {k}, type {i}"
                    );
                }
            });
        }
    });
    // A list of values all of one of those types, from the cache.
    let (ty, _, _, _) = &cases[5];
    let q = Program::from_type_json(&format!(r#"["list",{ty}]"#)).unwrap();
    let bump = Bump::new();
    assert!(q.decode_json(br#"[{"f5":1},{"f5":2}]"#, &bump).is_ok());
}

#[test]
fn max_dynamic_types_is_enforced_under_contention() {
    const MAX: u32 = 50;
    const TYPES: usize = 200;
    let options = DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_dynamic_types(MAX));
    let p = Program::from_type_json("\"dynamic\"").unwrap();
    let cases: Vec<_> = (0..TYPES).map(distinct).collect();
    let decoded: Mutex<HashSet<usize>> = Mutex::new(HashSet::new());
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|scope| {
        for k in 0..THREADS {
            let (p, cases, barrier, decoded) = (&p, &cases, &barrier, &decoded);
            scope.spawn(move || {
                let bump = Bump::new();
                barrier.wait();
                for step in 0..TYPES {
                    let i = (step + k * 13) % TYPES;
                    let (_, mp, _, want) = &cases[i];
                    match p.decode_msgpack_with(mp, &bump, &options) {
                        Ok(v) => {
                            assert_eq!(&dump::to_string(p, v).unwrap(), want);
                            decoded.lock().unwrap().insert(i);
                        }
                        Err(e) => assert_eq!(e.kind(), ErrorKind::Limit, "type {i}: {e}"),
                    }
                }
            });
        }
    });
    let decoded = decoded.into_inner().unwrap();
    // The limit is exact: the check and the insertion are one step under the cache's lock
    // (fuzz finding 3: it used to pass by up to the thread count).
    assert_eq!(decoded.len(), MAX as usize, "types decoded");
    // Cached types keep decoding; a new one is a limit error.
    let bump = Bump::new();
    for &i in &decoded {
        assert!(
            p.decode_msgpack_with(&cases[i].1, &bump, &options).is_ok(),
            "cached type {i}"
        );
    }
    let (_, new, _, _) = distinct(TYPES + 1);
    let e = p.decode_msgpack_with(&new, &bump, &options).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
}
