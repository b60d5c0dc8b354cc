//! The hostile inputs of the robustness issue, each with the time and memory it may take,
//! stated and checked: a 1 MiB refinement payload, a map of 100,000 duplicate keys, a 10 MB
//! string of backslash escapes, a dynamic type JSON nested 100,000 deep, strings and
//! containers claiming 4 GiB. Memory is the peak of live heap bytes (arena included) during
//! the decode, from a counting global allocator; time is a hang guard (generous, for debug
//! builds on 2 noisy cores), not a speed measurement: speed lives in `benches/`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bumpalo::Bump;
use tfwire::{DecodeOptions, ErrorKind, Limits, Program, Value};

struct Peak;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// One test at a time: the harness runs tests on several threads, and another test's
/// allocations would count in this one's peak.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Peak = Peak;

/// Runs `f` with a fresh arena; checks it took at most `max_heap` bytes of heap above what
/// was live before (the harness's own threads allocate a little too: 1 MiB of slack) and at
/// most `max_time`. Returns `f`'s result. Call it under [`serial`].
fn bounded<T>(max_heap: usize, max_time: Duration, f: impl FnOnce(&Bump) -> T) -> T {
    let bump = Bump::new();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = Instant::now();
    let out = f(&bump);
    let took = start.elapsed();
    let heap = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    assert!(
        heap <= max_heap + (1 << 20),
        "peak heap {heap} bytes > {max_heap}"
    );
    assert!(took <= max_time, "took {took:?} > {max_time:?}");
    out
}

const GUARD: Duration = Duration::from_secs(20);

#[test]
fn a_refinement_payload_of_1_mib() {
    let _serial = serial();
    // Unknown string, ext32 code 12, payload {2: "ppp…"} of 1 MiB.
    let prefix = "p".repeat((1 << 20) - 7);
    let mut payload = vec![0x81, 0x02, 0xdb];
    payload.extend((prefix.len() as u32).to_be_bytes());
    payload.extend(prefix.as_bytes());
    assert_eq!(payload.len(), 1 << 20);
    let mut input = vec![0xc9];
    input.extend((payload.len() as u32).to_be_bytes());
    input.push(12);
    input.extend(&payload);
    let p = Program::from_type_json("\"string\"").unwrap();
    // Default limits: rejected from the header, before the payload is read. Bound: 64 KiB.
    let e = bounded(64 << 10, GUARD, |bump| {
        p.decode_msgpack(&input, bump).map(|_| ()).unwrap_err()
    });
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Limit, 0));
    assert_eq!(
        e.message(),
        "refinement payload of 1048576 bytes exceeds max_refinement_len (1024)"
    );
    // With the limit raised it decodes, the prefix borrowed from the input (go-cty would cut
    // it to 256 bytes when encoding; the decoder keeps what it was given). Bound: 64 KiB.
    let opts =
        DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_refinement_len(2 << 20));
    let prefix_len = bounded(64 << 10, GUARD, |bump| {
        match p.decode_msgpack_with(&input, bump, &opts).unwrap() {
            Value::Unknown(Some(r)) => r.string_prefix.map(str::len),
            v => panic!("an unknown with refinements, got {v:?}"),
        }
    });
    assert_eq!(prefix_len, Some(prefix.len()));
}

#[test]
fn a_map_with_100_000_duplicate_keys() {
    let _serial = serial();
    const N: usize = 100_000;
    let mut mp = vec![0xdf];
    mp.extend((N as u32).to_be_bytes());
    for _ in 0..N {
        mp.extend([0xa1, b'k', 0xc3]);
    }
    let json = format!("{{{}\"k\":true}}", "\"k\":true,".repeat(N - 1));
    // map(bool): every entry kept (the wire's order; lookups see the last). Bound, msgpack:
    // the entries in the arena, 40 bytes each, and the arena's chunk doubling: 100 bytes per
    // entry. JSON does not know the count in advance: its scratch vector doubles inside the
    // arena (old buffers stay until the arena is reset), the entries are then copied out,
    // and the chunks double: 400 bytes per entry (measured: 336).
    let map = Program::from_type_json(r#"["map","bool"]"#).unwrap();
    for (format, n) in [("msgpack", 0), ("json", 1)] {
        let per_entry = if n == 0 { 100 } else { 400 };
        let len = bounded(N * per_entry, GUARD, |bump| {
            let v = if n == 0 {
                map.decode_msgpack(&mp, bump)
            } else {
                map.decode_json(json.as_bytes(), bump)
            };
            match v.unwrap() {
                Value::Map(entries) => entries.len(),
                v => panic!("{format}: a map, got {v:?}"),
            }
        });
        assert_eq!(len, N, "{format}");
    }
    // object({k: bool}): the second key is a duplicate, found at once. Bound: 64 KiB.
    let object = Program::from_type_json(r#"["object",{"k":"bool"}]"#).unwrap();
    let e = bounded(64 << 10, GUARD, |bump| {
        object.decode_msgpack(&mp, bump).map(|_| ()).unwrap_err()
    });
    assert_eq!(
        (e.kind(), e.offset().unwrap()),
        (ErrorKind::DuplicateKey, 8)
    );
    let e = bounded(64 << 10, GUARD, |bump| {
        object
            .decode_json(json.as_bytes(), bump)
            .map(|_| ())
            .unwrap_err()
    });
    assert_eq!(
        (e.kind(), e.offset().unwrap()),
        (ErrorKind::DuplicateKey, 10)
    );
}

#[test]
fn a_10_mb_string_of_backslash_escapes() {
    let _serial = serial();
    const BYTES: usize = 10_000_000;
    let p = Program::from_type_json("\"string\"").unwrap();
    // `\\` five million times: unescaped once into the arena, 5 MB. Bound: 2 bytes per input
    // byte (the unescaped copy with the arena's chunk doubling).
    let input = format!("\"{}\"", "\\\\".repeat(BYTES / 2));
    let len = bounded(2 * BYTES, GUARD, |bump| {
        p.decode_json(input.as_bytes(), bump)
            .unwrap()
            .as_str()
            .map(str::len)
    });
    assert_eq!(len, Some(BYTES / 2));
    // `\u00e9` escapes (2 UTF-8 bytes out of 6 in). Same bound.
    let input = format!("\"{}\"", "\\u00e9".repeat(BYTES / 6));
    let len = bounded(2 * BYTES, GUARD, |bump| {
        p.decode_json(input.as_bytes(), bump)
            .unwrap()
            .as_str()
            .map(str::len)
    });
    assert_eq!(len, Some(2 * (BYTES / 6)));
    // The same string cut short: an EOF error naming where the string began. Same bound.
    let cut = &input.as_bytes()[..input.len() - 1];
    let e = bounded(2 * BYTES, GUARD, |bump| {
        p.decode_json(cut, bump).map(|_| ()).unwrap_err()
    });
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Eof, 0));
}

#[test]
fn a_dynamic_type_json_nested_100_000_deep() {
    let _serial = serial();
    const DEPTH: usize = 100_000;
    let ty = format!(
        "{}\"string\"{}",
        "[\"list\",".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    let p = Program::from_type_json("\"dynamic\"").unwrap();
    // msgpack: [bin32(type JSON), nil]. The type parser's nesting limit stops it. Bound: 4 MiB
    // (the type JSON's parse state), whatever the depth.
    let mut mp = vec![0x92, 0xc6];
    mp.extend((ty.len() as u32).to_be_bytes());
    mp.extend(ty.as_bytes());
    mp.push(0xc0);
    let e = bounded(4 << 20, GUARD, |bump| {
        p.decode_msgpack(&mp, bump).map(|_| ()).unwrap_err()
    });
    assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::InvalidType, 1));
    // JSON: {"type": T, "value": null}. Rejected at the type's depth. Same bound.
    let json = format!("{{\"type\":{ty},\"value\":null}}");
    let e = bounded(4 << 20, GUARD, |bump| {
        p.decode_json(json.as_bytes(), bump)
            .map(|_| ())
            .unwrap_err()
    });
    assert!(
        matches!(e.kind(), ErrorKind::InvalidType | ErrorKind::Limit),
        "{e}"
    );
}

#[test]
fn strings_and_containers_claiming_4_gib() {
    let _serial = serial();
    let cases: [(&str, &[u8]); 4] = [
        ("\"string\"", b"\xdb\xff\xff\xff\xffabc"),
        ("\"string\"", b"\xc6\xff\xff\xff\xffabc"),
        (r#"["list","bool"]"#, b"\xdd\xff\xff\xff\xff\xc3"),
        (r#"["map","bool"]"#, b"\xdf\xff\xff\xff\xff\xa1k\xc3"),
    ];
    for (ty, input) in cases {
        let p = Program::from_type_json(ty).unwrap();
        // Checked against the bytes left before anything is reserved. Bound: 64 KiB.
        let e = bounded(64 << 10, GUARD, |bump| {
            p.decode_msgpack(input, bump).map(|_| ()).unwrap_err()
        });
        assert_eq!((e.kind(), e.offset().unwrap()), (ErrorKind::Eof, 0), "{ty}");
    }
}
