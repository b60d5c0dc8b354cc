//! The value builder (`src/build/`): exact values, exact errors with their paths, sets in
//! go-cty's order without duplicates, built values encoding to go-cty's bytes and decoding
//! back to themselves, and every shared workload rebuilt through the builder (sets inserted
//! in reverse) re-encoding to go-cty's own bytes. With the go-cty oracle (`$CTYORACLE`), sets
//! in scrambled orders are checked against the order go-cty gives them.

#[path = "support/cases.rs"]
mod cases;
mod common;
#[path = "support/rng.rs"]
mod rng;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bumpalo::Bump;
use tfwire::build::{At, BuildError, Part};
use tfwire::{Object, Program, Refinements, Type, Value};

use rng::Rng;

/// Counts heap allocations made by the thread that set `COUNTING` (as `tests/memory.rs`).
struct Counting;

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

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

/// Heap allocations made by `f` on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (ALLOCATIONS.load(Ordering::SeqCst) - before, r)
}

fn program(type_json: &str) -> Program {
    Program::from_type_json(type_json).unwrap()
}

fn encode(program: &Program, v: Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    program.encode_msgpack(v, &mut out).unwrap();
    out
}

/// Builds `part` at the root of a `type_json` program and returns the error.
fn error<'a>(program: &'a Program, bump: &'a Bump, part: impl Part<'a>) -> BuildError {
    program.builder(bump).build(part).unwrap_err()
}

#[path = "build/positions.rs"]
mod positions;
#[path = "build/rebuilt.rs"]
mod rebuilt;
#[path = "build/sets.rs"]
mod sets;
#[path = "build/values.rs"]
mod values;
