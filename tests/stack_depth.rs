//! The executors recurse once per container: a decode at the deepest nesting they allow
//! (`MAX_DEPTH`), of each shape that recurses, fits a 1 MiB thread stack, in debug and release
//! builds alike (`cargo test` and `cargo test --release` both run this file); one level more
//! is a `Limit` error.

use bumpalo::Bump;
use tfwire::schema::ObjectType;
use tfwire::{
    DecodeOptions, ErrorKind, Limits, Program, Type, MAX_DEPTH, MAX_SCHEMA_DEPTH, MAX_TYPE_NESTING,
    MAX_VALUE_DEPTH,
};

const STACK: usize = 1 << 20;

/// Options whose `max_depth` does not stop the decode before the executors' own cap.
fn unlimited() -> DecodeOptions {
    DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_depth(u32::MAX))
}

/// Runs `f` on a thread with a stack of `size` bytes.
fn on_stack<T: Send + 'static>(size: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(size)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// `levels` nested types made by `wrap` around `leaf`.
fn nested(levels: u32, leaf: Type, wrap: fn(Type) -> Type) -> Type {
    (0..levels).fold(leaf, |t, _| wrap(t))
}

fn object_of(t: Type) -> Type {
    Type::Object(ObjectType::new([("a", t)], &[]).unwrap())
}

/// MessagePack for `levels` nested containers (`open` is one level's header and key) around
/// `leaf`.
fn mp_nested(levels: u32, open: &[u8], leaf: &[u8]) -> Vec<u8> {
    let mut v = open.repeat(levels as usize);
    v.extend_from_slice(leaf);
    v
}

/// Builds a program of `ty` (on a roomy stack: building a type 512 levels deep recurses too,
/// and only the executor is under test), then runs `decode` with it on a 1 MiB stack: `Ok`, or
/// the error's kind and message.
fn on_small_stack_with(
    ty: Type,
    decode: impl FnOnce(&'static Program, &Bump) -> Result<(), tfwire::DecodeError> + Send + 'static,
) -> Result<(), (ErrorKind, String)> {
    on_stack_with(STACK, ty, decode)
}

/// [`on_small_stack_with`] on a stack of `size` bytes.
fn on_stack_with(
    size: usize,
    ty: Type,
    decode: impl FnOnce(&'static Program, &Bump) -> Result<(), tfwire::DecodeError> + Send + 'static,
) -> Result<(), (ErrorKind, String)> {
    let program = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let program = Program::new(&ty).unwrap();
            std::mem::forget(ty);
            program
        })
        .unwrap()
        .join()
        .unwrap();
    let program: &'static Program = Box::leak(Box::new(program));
    on_stack(size, move || {
        let bump = Bump::new();
        decode(program, &bump).map_err(|e| (e.kind(), e.message().to_string()))
    })
}

/// Decodes MessagePack `input` with a program of `ty` on a 1 MiB stack.
fn decode_msgpack(ty: Type, input: Vec<u8>) -> Result<(), (ErrorKind, String)> {
    on_small_stack_with(ty, move |program, bump| {
        program
            .decode_msgpack_with(&input, bump, &unlimited())
            .map(|_| ())
    })
}

fn cap_message() -> String {
    format!("nesting deeper than MAX_DEPTH ({MAX_DEPTH}), the executors' recursion cap")
}

#[test]
fn msgpack_lists_at_the_cap() {
    let list = |t| Type::List(Box::new(t));
    let ok = decode_msgpack(
        nested(MAX_DEPTH, Type::String, list),
        mp_nested(MAX_DEPTH, &[0x91], &[0xa1, b'x']),
    );
    assert_eq!(ok, Ok(()));
    let over = decode_msgpack(
        nested(MAX_DEPTH + 1, Type::String, list),
        mp_nested(MAX_DEPTH + 1, &[0x91], &[0xa1, b'x']),
    );
    assert_eq!(over, Err((ErrorKind::Limit, cap_message())));
}

#[test]
fn msgpack_objects_at_the_cap() {
    let ok = decode_msgpack(
        nested(MAX_DEPTH, Type::Number, object_of),
        mp_nested(MAX_DEPTH, &[0x81, 0xa1, b'a'], &[0x07]),
    );
    assert_eq!(ok, Ok(()));
    let over = decode_msgpack(
        nested(MAX_DEPTH + 1, Type::Number, object_of),
        mp_nested(MAX_DEPTH + 1, &[0x81, 0xa1, b'a'], &[0x07]),
    );
    assert_eq!(over, Err((ErrorKind::Limit, cap_message())));
}

#[test]
fn msgpack_maps_and_tuples_at_the_cap() {
    let map = |t| Type::Map(Box::new(t));
    let ok = decode_msgpack(
        nested(MAX_DEPTH, Type::Bool, map),
        mp_nested(MAX_DEPTH, &[0x81, 0xa1, b'k'], &[0xc3]),
    );
    assert_eq!(ok, Ok(()));
    let tuple = |t| Type::Tuple(vec![t]);
    let ok = decode_msgpack(
        nested(MAX_DEPTH, Type::Bool, tuple),
        mp_nested(MAX_DEPTH, &[0x91], &[0xc3]),
    );
    assert_eq!(ok, Ok(()));
}

/// Wrappers whose type is not `"dynamic"` recurse: `["list","dynamic"]` wrappers each holding
/// a one-element list, alternating wrapper and list, `MAX_DEPTH` levels in all. They are
/// decoded, then refused by the read-through bound (a later, separate walk).
#[test]
fn msgpack_dynamic_wrappers_at_the_cap() {
    let ty = br#"["list","dynamic"]"#;
    let mut level = vec![0x92, 0xc4, ty.len() as u8];
    level.extend_from_slice(ty);
    level.push(0x91);
    let mut leaf = vec![0x92, 0xc4, 6];
    leaf.extend_from_slice(b"\"bool\"");
    leaf.push(0xc3);
    // Each `level` is two levels (wrapper, list); the leaf wrapper one more.
    let pairs = (MAX_DEPTH - 1) / 2;
    let r = decode_msgpack(Type::Dynamic, mp_nested(pairs, &level, &leaf));
    let (kind, message) = r.unwrap_err();
    assert_eq!(kind, ErrorKind::Limit);
    assert!(
        message.contains("nests deeper than 128 levels"),
        "{message}"
    );
    let r = decode_msgpack(Type::Dynamic, mp_nested(pairs + 1, &level, &leaf));
    assert_eq!(r, Err((ErrorKind::Limit, cap_message())));
}

/// A chain of `"dynamic"` wrappers is a loop: far past `MAX_DEPTH` it takes no stack, and only
/// `max_depth` bounds it.
#[test]
fn msgpack_chains_of_dynamic_wrappers_take_no_stack() {
    let mut wrapper = vec![0x92, 0xc4, 9];
    wrapper.extend_from_slice(b"\"dynamic\"");
    let mut leaf = vec![0x92, 0xc4, 6];
    leaf.extend_from_slice(b"\"bool\"");
    leaf.push(0xc3);
    let r = decode_msgpack(Type::Dynamic, mp_nested(100 * MAX_DEPTH, &wrapper, &leaf));
    assert_eq!(r, Ok(()));
}

/// Decodes JSON `input` with a program of `ty` on a 1 MiB stack.
fn decode_json(ty: Type, input: String) -> Result<(), (ErrorKind, String)> {
    on_small_stack_with(ty, move |program, bump| {
        program
            .decode_json_with(input.as_bytes(), bump, &unlimited())
            .map(|_| ())
    })
}

fn json_nested(levels: u32, open: &str, leaf: &str, close: &str) -> String {
    format!(
        "{}{leaf}{}",
        open.repeat(levels as usize),
        close.repeat(levels as usize)
    )
}

#[test]
fn json_lists_objects_maps_and_tuples_at_the_cap() {
    let list = |t| Type::List(Box::new(t));
    let ok = decode_json(
        nested(MAX_DEPTH, Type::String, list),
        json_nested(MAX_DEPTH, "[", "\"x\"", "]"),
    );
    assert_eq!(ok, Ok(()));
    let over = decode_json(
        nested(MAX_DEPTH + 1, Type::String, list),
        json_nested(MAX_DEPTH + 1, "[", "\"x\"", "]"),
    );
    assert_eq!(over, Err((ErrorKind::Limit, cap_message())));
    let ok = decode_json(
        nested(MAX_DEPTH, Type::Number, object_of),
        json_nested(MAX_DEPTH, "{\"a\":", "7", "}"),
    );
    assert_eq!(ok, Ok(()));
    let map = |t| Type::Map(Box::new(t));
    let ok = decode_json(
        nested(MAX_DEPTH, Type::Bool, map),
        json_nested(MAX_DEPTH, "{\"k\": ", "true", "}"),
    );
    assert_eq!(ok, Ok(()));
    let tuple = |t| Type::Tuple(vec![t]);
    let ok = decode_json(
        nested(MAX_DEPTH, Type::Bool, tuple),
        json_nested(MAX_DEPTH, "[ ", "false", " ]"),
    );
    assert_eq!(ok, Ok(()));
}

/// Wrappers in JSON recurse like MessagePack's: `["list","dynamic"]` wrappers each holding a
/// one-element list, type first and value first.
#[test]
fn json_dynamic_wrappers_at_the_cap() {
    let pairs = (MAX_DEPTH - 1) / 2;
    for (open, close) in [
        (r#"{"type":["list","dynamic"],"value":["#, "]}"),
        (r#"{"value":["#, r#"],"type":["list","dynamic"]}"#),
    ] {
        let leaf = r#"{"type":"bool","value":true}"#;
        let r = decode_json(Type::Dynamic, json_nested(pairs, open, leaf, close));
        let (kind, message) = r.unwrap_err();
        assert_eq!(kind, ErrorKind::Limit);
        assert!(
            message.contains("nests deeper than 128 levels"),
            "{message}"
        );
        let r = decode_json(Type::Dynamic, json_nested(pairs + 1, open, leaf, close));
        assert_eq!(r, Err((ErrorKind::Limit, cap_message())));
    }
    // A chain of "dynamic" wrappers is a loop.
    let chain = json_nested(
        100 * MAX_DEPTH,
        r#"{"type":"dynamic","value":"#,
        r#"{"type":"bool","value":true}"#,
        "}",
    );
    assert_eq!(decode_json(Type::Dynamic, chain), Ok(()));
}

/// The encoders, the DUMP and serde's serializer and deserializer recurse once per container
/// too, under one cap, `MAX_VALUE_DEPTH` (no decoded value is deeper, so only a value built by
/// hand meets it): a list of lists at the cap is written by each on a 1 MiB stack, in debug
/// and release builds (serde's deserializer into a `serde_json::Value`, whose visitor's frames
/// count too); one level more is an error naming the path, not a crash.
#[test]
fn value_walks_at_their_cap() {
    let cap = MAX_VALUE_DEPTH;
    for (levels, ok) in [(cap, true), (cap + 1, false)] {
        let ty = nested(levels, Type::String, |t| Type::List(Box::new(t)));
        let result = on_small_stack_with(ty, move |program, bump| {
            // The value: `levels` lists, one inside the other, around "x".
            let mut v = tfwire::Value::String("x");
            for _ in 0..levels {
                v = tfwire::Value::List(bump.alloc_slice_copy(&[v]));
            }
            let (mut mp, mut json) = (Vec::new(), Vec::new());
            let m = program
                .encode_msgpack(v, &mut mp)
                .map_err(|e| e.to_string());
            let j = program.encode_json(v, &mut json).map_err(|e| e.to_string());
            let d = tfwire::dump::to_string(program, v).map_err(|e| e.to_string());
            let s = serde_json::to_string(&program.typed(v)).map_err(|e| e.to_string());
            let de: Result<serde_json::Value, _> =
                tfwire::from_typed(program.typed(v)).map_err(|e| e.to_string());
            if ok {
                assert_eq!(m, Ok(()));
                assert_eq!(j, Ok(()));
                assert_eq!(mp.len(), levels as usize + 2);
                assert_eq!(json.len(), 2 * levels as usize + 3);
                let text = format!(
                    "{}\"x\"{}",
                    "[".repeat(levels as usize),
                    "]".repeat(levels as usize)
                );
                assert_eq!(d.as_deref(), Ok(text.as_str()));
                assert_eq!(s.as_deref(), Ok(text.as_str()));
                assert!(de.is_ok(), "{de:?}");
            } else {
                let path = "[0]".repeat(cap as usize);
                let want = format!("at {path}: nested more than {cap} levels deep");
                assert_eq!(m, Err(want.clone()));
                assert_eq!(j, Err(want.clone()));
                assert_eq!(d, Err(want.clone()));
                assert_eq!(s, Err(want.clone()));
                assert_eq!(de, Err(want));
            }
            Ok(())
        });
        assert_eq!(result, Ok(()));
    }
}

/// The compiler and the implied-type rule recurse over a type (a block): a type built by hand
/// at `MAX_TYPE_NESTING` compiles (and prints as type JSON) on a 1 MiB stack, in debug and
/// release builds; one level more is an error, found without recursion. Blocks built by hand
/// nest at most `MAX_SCHEMA_DEPTH` deep.
#[test]
fn compiler_and_implied_type_at_their_caps() {
    use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
    let result = on_stack(STACK, || {
        let deep = |levels: usize| (0..levels).fold(Type::String, |t, _| Type::List(Box::new(t)));
        let at_cap = Program::new(&deep(MAX_TYPE_NESTING)).map(|p| p.root_type().to_string().len());
        let past = Program::new(&deep(MAX_TYPE_NESTING + 1))
            .map(|_| ())
            .map_err(|e| e.to_string());
        let blocks = |levels: usize| {
            (0..levels).fold(
                Block::new().attribute("a", Attribute::new(Type::Bool)),
                |b, _| Block::new().block("b", NestedBlock::new(NestingMode::Single, b)),
            )
        };
        let block_at_cap = Program::from_block(&blocks(MAX_SCHEMA_DEPTH)).map(|_| ());
        let block_past = blocks(MAX_SCHEMA_DEPTH + 1)
            .implied_type()
            .map(|_| ())
            .map_err(|e| e.to_string());
        let attr_past = Block::new()
            .attribute("a", Attribute::new(deep(MAX_TYPE_NESTING + 1)))
            .implied_type()
            .map(|_| ())
            .map_err(|e| e.to_string());
        (at_cap, past, block_at_cap, block_past, attr_past)
    });
    let nesting = "type nested deeper than MAX_TYPE_NESTING (1024) levels".to_string();
    // `["list",` and `]` a level around `"string"`.
    assert_eq!(result.0, Ok(9 * MAX_TYPE_NESTING + "\"string\"".len()));
    assert_eq!(result.1, Err(nesting.clone()));
    assert_eq!(result.2, Ok(()));
    assert_eq!(
        result.3,
        Err("blocks and nested types nested deeper than 32 levels".to_string())
    );
    assert_eq!(result.4, Err(nesting));
}
