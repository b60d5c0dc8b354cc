//! Encoders: values back to the bytes go-cty writes. [`MsgpackEncoder`] (and the shorthand
//! [`Program::encode_msgpack`]) writes MessagePack as go-cty's `msgpack.Marshal` does; the
//! choice go-cty makes for each number is in `number.rs`.
//!
//! ```
//! use bumpalo::Bump;
//! use tfwire::Program;
//!
//! let program = Program::from_type_json(r#"["object",{"name":"string","port":"number"}]"#).unwrap();
//! let bump = Bump::new();
//! // {"port": 443, "name": "web"}: keys out of order, 443 as an int16.
//! let input = [0x82, 0xa4, b'p', b'o', b'r', b't', 0xd1, 0x01, 0xbb, 0xa4, b'n', b'a', b'm', b'e', 0xa3, b'w', b'e', b'b'];
//! let value = program.decode_msgpack(&input, &bump).unwrap();
//! let mut out = Vec::new();
//! program.encode_msgpack(value, &mut out).unwrap();
//! // go-cty's bytes: keys sorted, 443 as a uint16.
//! assert_eq!(out, [0x82, 0xa4, b'n', b'a', b'm', b'e', 0xa3, b'w', b'e', b'b', 0xa4, b'p', b'o', b'r', b't', 0xcd, 0x01, 0xbb]);
//! ```

mod msgpack;
pub(crate) mod number;

use std::fmt;

pub use msgpack::MsgpackEncoder;

use crate::program::Program;
use crate::value::Value;

/// A value that cannot be written: what was wrong, and where (Terraform's path notation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    /// Path steps, innermost first (reversed when shown).
    steps: Vec<String>,
    message: String,
}

impl EncodeError {
    fn new(message: String) -> EncodeError {
        EncodeError {
            steps: Vec::new(),
            message,
        }
    }

    fn in_index(mut self, i: usize) -> EncodeError {
        self.steps.push(format!("[{i}]"));
        self
    }

    fn in_key(mut self, key: &str) -> EncodeError {
        self.steps.push(format!("[{key:?}]"));
        self
    }

    fn in_attr(mut self, name: &str) -> EncodeError {
        self.steps.push(format!(".{name}"));
        self
    }

    /// The value path, as `.ingress[2].cidr_blocks[0]`; empty at the root.
    pub fn path(&self) -> String {
        self.steps.iter().rev().map(String::as_str).collect()
    }

    /// What was wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path();
        let at = if path.is_empty() { "(root)" } else { &path };
        write!(f, "error at {at}: {}", self.message)
    }
}

impl std::error::Error for EncodeError {}

impl Program {
    /// Appends the MessagePack encoding of `value` (a value of this program's type) to `out`,
    /// as go-cty writes it. For many values, reuse a [`MsgpackEncoder`].
    pub fn encode_msgpack(&self, value: Value<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        MsgpackEncoder::new().encode(self, value, out)
    }
}
