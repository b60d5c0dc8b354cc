//! Executors over a [`Program`](crate::Program): one forward pass, an explicit stack (no
//! recursion, so hostile nesting cannot overflow the thread stack), values built in a bumpalo
//! arena. The value path of an error is rendered from the stack, only when an error happens.

pub(crate) mod dyncache;
mod frame;
pub(crate) mod msgpack;
mod mp_items;
mod mp_reader;
mod path;
mod refine;
pub(crate) mod json;
mod json_items;
mod json_scan;
