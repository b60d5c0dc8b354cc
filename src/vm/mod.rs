//! Executors over a [`Program`](crate::Program): one forward pass, an explicit stack (no
//! recursion, so hostile nesting cannot overflow the thread stack), values built in a bumpalo
//! arena. The value path of an error is rendered from the stack, only when an error happens.

pub(crate) mod dyncache;
mod frame;
pub(crate) mod json;
mod json_extent;
mod json_items;
mod json_number;
mod json_scan;
mod json_skip;
mod json_string;
mod mp_items;
mod mp_reader;
pub(crate) mod msgpack;
mod path;
mod read_through;
mod refine;
