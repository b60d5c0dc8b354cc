//! Every resource limit of a decode, in one place.
//!
//! [`Limits`] are set per decode (through [`DecodeOptions`](crate::DecodeOptions)); the
//! constants below are fixed bounds of recursive parts. Besides these, a length read from the
//! input is always checked against the bytes that remain before anything is reserved: a
//! header claiming 2³²−1 elements in a 10-byte input fails at once, without allocating. (One
//! more bound lives with the code it bounds: `number::MAX_BINARY_MANTISSA_DIGITS`, for
//! expanding `M p E` number text exactly.)

/// Deepest type JSON nesting the type parser accepts, for schemas and for the type of every
/// dynamic value (serde_json's own recursion limit is 128). The type JSON's size is
/// [`Limits::max_type_json_len`].
pub const MAX_TYPE_DEPTH: usize = 100;

/// Deepest type the compiler ([`Program::new`](crate::Program::new),
/// [`Program::from_block`](crate::Program::from_block)) and the implied-type rule
/// ([`Block::implied_type`](crate::schema::Block::implied_type)) take, in nested containers
/// (lists, sets, maps, objects, tuples): twice [`MAX_DEPTH`], so that every type a decode can
/// fill, and deeper, compiles; a type built by hand deeper than this is an error before any
/// walk recurses over it (its depth is measured without recursion). A type's own trait impls
/// (`Clone`, `Drop`, `Display`, `PartialEq`) recurse as any tree of boxes does.
pub const MAX_TYPE_NESTING: usize = 2 * MAX_DEPTH as usize;

/// Deepest nesting of blocks and nested attribute types (`block_types`, `nested_type`) the
/// schema loader reads: it recurses once per level, so the cap is its own, below what any
/// real provider writes by far (a handful of levels) and below serde_json's recursion limit
/// for the document (128 JSON levels: about 40 nested blocks).
pub const MAX_SCHEMA_DEPTH: usize = 32;

/// Hard cap on [`Limits::max_depth`]: the executors recurse once per container (and per
/// dynamic wrapper), so the deepest input any decode accepts is this many levels, whatever
/// `max_depth` says. Sized so that a decode at this depth fits a 1 MiB thread stack in a
/// debug build (`tests/stack_depth.rs` runs one).
pub const MAX_DEPTH: u32 = 512;

/// Deepest value the encoders, the DUMP and serde walk (containers and dynamic wrappers
/// counted, as the decoders count them): [`MAX_DEPTH`], since no decoded value is deeper. A
/// value built by hand deeper than this is an error, not a stack overflow: each walk fits a
/// 1 MiB thread stack at this depth in debug and release builds (`tests/stack_depth.rs`).
pub const MAX_VALUE_DEPTH: u32 = MAX_DEPTH;

/// Deepest value under a dynamic wrapper whose type holds `dynamic` (say
/// `["list","dynamic"]`) that a decode reads through to go-cty's concrete type. That walk
/// recurses, so it has a fixed bound of its own, small enough for a 1 MiB thread stack even in
/// a debug build; deeper values are a `Limit` error. Wrappers of type `"dynamic"` itself do not
/// count (they are resolved without recursion), and concrete wrapper types, which is what
/// go-cty writes for every known value, are never walked.
pub const MAX_READ_THROUGH_DEPTH: u32 = 128;

/// Resource limits for one decode. [`Limits::DEFAULT`] suits untrusted input.
///
/// ```
/// use tfwire::{DecodeOptions, Limits};
/// let options = DecodeOptions::default().with_limits(Limits::DEFAULT.with_max_depth(32));
/// assert_eq!(options.limits.max_depth, 32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Deepest nesting of containers (lists, sets, tuples, maps, objects, dynamic wrappers);
    /// values above [`MAX_DEPTH`] count as `MAX_DEPTH`.
    pub max_depth: u32,
    /// Most elements (or entries) in one container.
    pub max_container_len: u32,
    /// Longest string, in bytes (decoded, for JSON). Every string of the input counts: string
    /// values, map keys and object keys alike, whether or not the key names an attribute.
    pub max_string_len: u32,
    /// Largest refinement payload of an unknown value, in bytes (go-cty's limit is 1 KiB).
    pub max_refinement_len: u32,
    /// Largest type JSON of a dynamic value, in bytes.
    pub max_type_json_len: u32,
    /// Most values in one decode: every element of every list, set, tuple and map, and every
    /// attribute of every object (present or not), counted as each container is allocated.
    pub max_values: u64,
    /// Most arena bytes one decode spends on its containers: the value slots of lists, sets,
    /// tuples and maps (24 bytes each, 40 for a map entry) and of objects (24 bytes for every
    /// attribute of the type, whatever the input holds). This is the memory that can outgrow
    /// the input: `[{},{},…]` for an object type of 1,000 attributes is 3 input bytes per
    /// 24,000 arena bytes. Everything else a decode puts in the arena (unescaped strings,
    /// decimal text, refinements) is at most a small multiple of the input's size.
    pub max_arena_bytes: u64,
    /// Most distinct dynamic types one program caches (compiled dynamic types are kept for
    /// the program's lifetime; this bounds that memory).
    pub max_dynamic_types: u32,
}

impl Limits {
    /// The defaults.
    pub const DEFAULT: Limits = Limits {
        max_depth: 256,
        max_container_len: u32::MAX,
        max_string_len: u32::MAX,
        max_refinement_len: 1024,
        max_type_json_len: 1 << 20,
        max_dynamic_types: 10_000,
        max_values: u64::MAX,
        max_arena_bytes: 1 << 30,
    };
}

with_setters!(Limits {
    #[const] with_max_depth => max_depth: u32,
    #[const] with_max_container_len => max_container_len: u32,
    #[const] with_max_string_len => max_string_len: u32,
    #[const] with_max_refinement_len => max_refinement_len: u32,
    #[const] with_max_type_json_len => max_type_json_len: u32,
    #[const] with_max_values => max_values: u64,
    #[const] with_max_arena_bytes => max_arena_bytes: u64,
    #[const] with_max_dynamic_types => max_dynamic_types: u32,
});

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
