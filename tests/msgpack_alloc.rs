//! Allocation bounds of the MessagePack decoder, measured with a counting global allocator
//! (per thread, so parallel tests do not disturb each other): a header that claims 2^32-1
//! elements or bytes in a ~10-byte input allocates almost nothing, deep nesting allocates a
//! bounded stack, and in general allocation stays proportional to the input's length.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bumpalo::Bump;
use decode::prog;
use mp::{hex, mp};
use tfwire::{DecodeOptions, ErrorKind, Program, Type};

struct Counting;

thread_local! {
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    let _ = ALLOCATED.try_with(|a| a.set(a.get() + bytes));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size.saturating_sub(layout.size()));
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes allocated on this thread while decoding `input` (arena included), and the outcome.
fn measure(p: &Program, input: &[u8]) -> (usize, Result<(), ErrorKind>) {
    let before = ALLOCATED.with(|a| a.get());
    let result = {
        let bump = Bump::new();
        p.decode_msgpack_with(input, &bump, &DecodeOptions::default())
            .map(|_| ())
            .map_err(|e| e.kind())
    };
    (ALLOCATED.with(|a| a.get()) - before, result)
}

const MB: usize = 1 << 20;

#[test]
fn the_counter_sees_arena_allocations() {
    // A positive control: 200,000 list elements need at least 200,000 × 24 bytes.
    let p = prog(r#"["list","bool"]"#);
    let mut input = mp().arr32(200_000).done();
    input.extend(std::iter::repeat_n(0xc3u8, 200_000));
    let (bytes, result) = measure(&p, &input);
    assert_eq!(result, Ok(()));
    assert!(bytes >= 200_000 * 24, "only {bytes} bytes counted");
}

#[test]
fn huge_claims_in_tiny_inputs_allocate_almost_nothing() {
    let tail = "0102030405";
    let cases = [
        (r#"["list","number"]"#, "ddffffffff"),
        (r#"["set","string"]"#, "ddffffffff"),
        (r#"["tuple",["number"]]"#, "ddffffffff"),
        (r#"["map","number"]"#, "dfffffffff"),
        (r#"["object",{"a":"number"}]"#, "dfffffffff"),
        (r#""string""#, "dbffffffff"),
        (r#""string""#, "c6ffffffff"),
        (r#""number""#, "dbffffffff"),
        (r#""string""#, "c9ffffffff0c"),
        (r#""bool""#, "c9ffffffff00"),
        (r#"["list",["list","number"]]"#, "91ddffffffff"),
        (r#"["map",["map","number"]]"#, "81a16bdfffffffff"),
    ];
    for (ty, head) in cases {
        let p = prog(ty);
        let input = hex(&format!("{head}{tail}"));
        // Ten thousand times: nothing accumulates either.
        let mut total = 0;
        for _ in 0..10_000 {
            let (bytes, result) = measure(&p, &input);
            assert_eq!(result, Err(ErrorKind::Eof), "{ty} {head}");
            assert!(bytes < MB, "{ty} {head}: {bytes} bytes for one decode");
            total += bytes;
        }
        assert!(
            total < 10_000 * 4096,
            "{ty} {head}: {total} bytes over 10,000 decodes"
        );
    }
}

#[test]
fn huge_dynamic_claims_allocate_almost_nothing() {
    let p = prog("\"dynamic\"");
    for head in [
        "92c6ffffffff",
        "92dbffffffff",
        "ddffffffff",
        "92c408",
        "92c40822737472696e6722dbffffffff",
    ] {
        let input = hex(&format!("{head}0102030405"));
        let (bytes, result) = measure(&p, &input);
        assert!(result.is_err(), "{head}");
        assert!(bytes < MB, "{head}: {bytes} bytes");
    }
}

#[test]
fn deep_nesting_allocates_a_bounded_stack() {
    let mut t = Type::Number;
    for _ in 0..300 {
        t = Type::List(Box::new(t));
    }
    let p = Program::new(&t).unwrap();
    let input = vec![0x91u8; 100_000];
    let (bytes, result) = measure(&p, &input);
    assert_eq!(result, Err(ErrorKind::Limit));
    assert!(bytes < MB, "{bytes} bytes");
}

#[test]
fn allocation_is_proportional_to_the_input() {
    // Adversarial but well-formed shapes: every byte an element, every entry two bytes.
    let mut empty_lists = mp().arr32(100_000).done();
    empty_lists.extend(std::iter::repeat_n(0x90u8, 100_000));
    let mut nulls = mp().map32(50_000).done();
    for i in 0..50_000u32 {
        nulls.extend(mp().s(&format!("{i:x}")).nil().done());
    }
    let mut unknowns = mp().arr32(50_000).done();
    for _ in 0..50_000 {
        unknowns.extend(hex("d60c8101c200"));
    }
    let cases = [
        (r#"["list",["list","bool"]]"#, empty_lists),
        (r#"["map","string"]"#, nulls),
        (r#"["list","string"]"#, unknowns),
    ];
    for (ty, input) in cases {
        let p = prog(ty);
        let (bytes, result) = measure(&p, &input);
        assert_eq!(result, Ok(()), "{ty}");
        assert!(
            bytes <= 48 * input.len() + 64 * 1024,
            "{ty}: {bytes} bytes for {} input bytes",
            input.len()
        );
        // Cut short, the same input fails without allocating more (but for the error).
        let (cut, result) = measure(&p, &input[..input.len() / 2]);
        assert_eq!(result, Err(ErrorKind::Eof), "{ty}");
        assert!(cut <= bytes + 4096, "{ty}: {cut} > {bytes}");
    }
}
