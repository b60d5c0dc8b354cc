//! Memory: once a program and its arena are warm, a decode makes no heap allocation (the
//! dynamic-type cache aside, after first sight), and the arena stays within 1.5 bytes per
//! input byte on the state workloads.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use bumpalo::Bump;
use tfwire::Program;

/// Counts heap allocations made by the thread that set `COUNTING` (the test harness's other
/// threads allocate at any moment, e.g. to print results).
struct Counting;

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static ALLOC_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations made by `f`.
fn allocations(f: impl FnOnce()) -> usize {
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::SeqCst)
}

/// `perf/workloads` (always) and `../shared/workloads` (when the shared checkout is present;
/// required in CI: `common::strict`).
fn workload_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = common::shared_dir("only perf/workloads are measured");
    let mut dirs = Vec::new();
    for base in [
        Some(root.join("perf/workloads")),
        shared.map(|s| s.join("workloads")),
    ]
    .into_iter()
    .flatten()
    {
        let entries =
            std::fs::read_dir(&base).unwrap_or_else(|e| panic!("{}: {e}", base.display()));
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("schema.json").is_file())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    dirs
}

#[test]
fn warm_decodes_make_no_heap_allocation() {
    let _guard = ALLOC_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dirs = workload_dirs();
    assert!(!dirs.is_empty());
    for dir in dirs {
        let schema = std::fs::read_to_string(dir.join("schema.json")).expect("schema");
        let program = Program::from_schema_json(&schema).expect("compiles");
        for format in ["msgpack", "json"] {
            let Ok(input) = std::fs::read(dir.join(format!("value.{format}"))) else {
                continue;
            };
            let decode = |bump: &Bump| {
                let v = if format == "msgpack" {
                    program.decode_msgpack(&input, bump)
                } else {
                    program.decode_json(&input, bump)
                };
                assert!(v.is_ok(), "{} {format}: {:?}", dir.display(), v.err());
            };
            // Warm up: dynamic types are compiled and cached on first sight, and the arena grows
            // until one chunk holds a whole decode (`reset` keeps only the newest chunk).
            let mut bump = Bump::new();
            for _ in 0..4 {
                decode(&bump);
                bump.reset();
            }
            let n = allocations(|| decode(&bump));
            assert_eq!(
                n,
                0,
                "{} {format}: {n} heap allocations when warm",
                dir.display()
            );
        }
    }
}

#[test]
fn arena_stays_within_one_and_a_half_bytes_per_input_byte_on_state_workloads() {
    let _guard = ALLOC_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for dir in workload_dirs() {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !name.ends_with("_states") {
            continue;
        }
        let schema = std::fs::read_to_string(dir.join("schema.json")).expect("schema");
        let program = Program::from_schema_json(&schema).expect("compiles");
        for format in ["msgpack", "json"] {
            let input = std::fs::read(dir.join(format!("value.{format}"))).expect("input");
            let mut bump = Bump::new();
            let ok = if format == "msgpack" {
                program.decode_msgpack(&input, &bump).is_ok()
            } else {
                program.decode_json(&input, &bump).is_ok()
            };
            assert!(ok, "{name} {format}");
            let used: usize = bump.iter_allocated_chunks().map(|c| c.len()).sum();
            let ratio = used as f64 / input.len() as f64;
            eprintln!(
                "{name} {format}: arena {used} bytes for {} input bytes ({ratio:.2})",
                input.len()
            );
            assert!(
                ratio <= 1.5,
                "{name} {format}: {ratio:.2} arena bytes per input byte"
            );
        }
    }
}

#[test]
fn warm_msgpack_encodes_make_no_heap_allocation() {
    let _guard = ALLOC_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    for dir in workload_dirs() {
        let schema = std::fs::read_to_string(dir.join("schema.json")).expect("schema");
        let program = Program::from_schema_json(&schema).expect("compiles");
        let Ok(input) = std::fs::read(dir.join("value.msgpack")) else {
            continue;
        };
        let bump = Bump::new();
        let value = program.decode_msgpack(&input, &bump).expect("decodes");
        let mut encoder = tfwire::MsgpackEncoder::new();
        let mut out = Vec::new();
        // Warm up: the buffer and the key-sorting scratch grow to what one value needs.
        for _ in 0..2 {
            out.clear();
            encoder.encode(&program, value, &mut out).expect("encodes");
        }
        out.clear();
        let n = allocations(|| encoder.encode(&program, value, &mut out).expect("encodes"));
        assert_eq!(n, 0, "{}: {n} heap allocations when warm", dir.display());
    }
}
