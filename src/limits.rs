//! Every resource limit of a decode, in one place.
//!
//! Besides these, a length read from the input is always checked against the bytes that
//! remain before anything is reserved: a header claiming 2³²−1 elements in a 10-byte input
//! fails at once, without allocating.

/// Deepest value under a dynamic wrapper whose type holds `dynamic` (say
/// `["list","dynamic"]`) that a decode reads through to go-cty's concrete type. That walk
/// recurses, so it has a fixed bound of its own; deeper values are a `Limit` error. (It only
/// matters when [`Limits::max_depth`] is raised past it: real values are far shallower.)
pub const MAX_READ_THROUGH_DEPTH: u32 = 1000;

/// Resource limits for one decode. [`Limits::DEFAULT`] suits untrusted input.
///
/// ```
/// use tfwire::{DecodeOptions, Limits};
/// let options = DecodeOptions { limits: Limits { max_depth: 32, ..Limits::DEFAULT }, ..Default::default() };
/// assert_eq!(options.limits.max_depth, 32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of containers (lists, sets, tuples, maps, objects, dynamic wrappers).
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
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
