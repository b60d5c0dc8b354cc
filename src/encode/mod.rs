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

mod json;
mod msgpack;
pub(crate) mod number;
mod order;
mod shortest;

pub use json::JsonEncoder;
pub use msgpack::MsgpackEncoder;

pub(crate) use crate::limits::MAX_VALUE_DEPTH;
use crate::located::Fault;
use crate::program::{Op, OpId, Program, Span};
use crate::value::Value;

/// A value that cannot be written: what was wrong, and where (Terraform's path notation).
/// One word (boxed), so that the encoders' results stay in a register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(Box<Fault>);

impl EncodeError {
    #[cold]
    pub(crate) fn new(message: String) -> EncodeError {
        EncodeError(Fault::in_value(message))
    }

    /// A value that is not of the op's type.
    #[cold]
    fn mismatch(code: Op, v: Value<'_>) -> EncodeError {
        let what = match code {
            Op::String => "a string",
            Op::Number => "a number",
            Op::Bool => "a bool",
            Op::Dynamic => "a dynamic wrapper",
            Op::List { .. } => "a list",
            Op::Set { .. } => "a set",
            Op::Map { .. } => "a map",
            Op::Tuple { .. } => "a tuple",
            Op::Object { .. } => "an object of this program",
            // (The encoders see ops through `op_type`, which resolves picks.)
            Op::Pick { .. } => "a projected collection",
            Op::DynamicSelect { .. } => "a dynamic wrapper",
        };
        let found = match v {
            Value::Null => "null",
            Value::Unknown(_) => "unknown",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Decimal(_) => "number",
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::Tuple(_) => "tuple",
            Value::Map(_) => "map",
            Value::Object(_) => "object",
            Value::Dynamic(_) => "dynamic value",
        };
        EncodeError::new(format!("{what} expected, found {found}"))
    }

    /// An object whose op is not an object of the program it is written with.
    #[cold]
    pub(crate) fn not_of_program() -> EncodeError {
        EncodeError::new(
            "an object of another program (not one this program decoded or built)".into(),
        )
    }

    /// A value nested deeper than [`MAX_VALUE_DEPTH`].
    #[cold]
    pub(crate) fn too_deep() -> EncodeError {
        EncodeError::new(format!("nested more than {MAX_VALUE_DEPTH} levels deep"))
    }

    #[cold]
    pub(crate) fn in_index(mut self, i: usize) -> EncodeError {
        self.0.index(i);
        self
    }

    #[cold]
    pub(crate) fn in_key(mut self, key: &str) -> EncodeError {
        self.0.key(key);
        self
    }

    #[cold]
    pub(crate) fn in_attr(mut self, name: &str) -> EncodeError {
        self.0.attr(name);
        self
    }
}

located_error!(
    EncodeError,
    path: "The value path, as `.ingress[2].cidr_blocks[0]`; empty at the root.",
    offset: "Always `None`: an encoder reads a value, not bytes (present so that every tfwire \
             error has `path()` and `offset()` of the same types).",
);

/// `depth` one level deeper, or the error for a value nested past [`MAX_VALUE_DEPTH`] (the
/// encoders count containers and wrappers, as the decoders do).
#[inline(always)]
pub(crate) fn deeper(depth: usize) -> Result<usize, EncodeError> {
    if depth >= MAX_VALUE_DEPTH as usize {
        return Err(EncodeError::too_deep());
    }
    // (Below the cap just checked: cannot wrap.)
    Ok(depth.wrapping_add(1))
}

/// The ops of the elements of tuple type `elems`, which must be as many as the value's `len`.
fn tuple_ops(prog: &Program, elems: Span, len: usize) -> Result<&[OpId], EncodeError> {
    let ops = prog.code.tuple_elems.get(elems.range()).unwrap_or_default();
    if ops.len() != len {
        let msg = format!("a tuple of {len} elements for a type of {}", ops.len());
        return Err(EncodeError::new(msg));
    }
    Ok(ops)
}

impl Program {
    /// Appends the MessagePack encoding of `value` (a value of this program's type) to `out`,
    /// as go-cty writes it. For many values, reuse a [`MsgpackEncoder`].
    pub fn encode_msgpack(&self, value: Value<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        MsgpackEncoder::new().encode(self, value, out)
    }

    /// Appends the JSON encoding of `value` (a value of this program's type) to `out`, as
    /// go-cty's `ctyjson.Marshal` writes it. An unknown or an infinity is an error. For many
    /// values, reuse a [`JsonEncoder`].
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::Program;
    ///
    /// let program = Program::from_type_json(r#"["object",{"n":"number","s":"string"}]"#).unwrap();
    /// let bump = Bump::new();
    /// let value = program.decode_json(br#"{"s": "<b>", "n": 1e3}"#, &bump).unwrap();
    /// let mut out = Vec::new();
    /// program.encode_json(value, &mut out).unwrap();
    /// // Sorted keys, HTML characters escaped, no exponent.
    /// assert_eq!(out, br#"{"n":1000,"s":"\u003cb\u003e"}"#);
    /// ```
    pub fn encode_json(&self, value: Value<'_>, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        JsonEncoder::new().encode(self, value, out)
    }

    /// Writes the MessagePack encoding of `value` to `writer` ([`Program::encode_msgpack`]
    /// into a buffer, then one `write_all`). A value that cannot be encoded is an
    /// [`std::io::ErrorKind::InvalidData`] error carrying the [`EncodeError`].
    pub fn encode_msgpack_to_writer<W: std::io::Write>(
        &self,
        value: Value<'_>,
        writer: W,
    ) -> std::io::Result<()> {
        write_encoded(writer, |out| self.encode_msgpack(value, out))
    }

    /// Writes the JSON encoding of `value` to `writer` ([`Program::encode_json`] into a
    /// buffer, then one `write_all`); errors as for [`Program::encode_msgpack_to_writer`].
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::Program;
    ///
    /// let program = Program::from_type_json(r#"["map","string"]"#)?;
    /// let bump = Bump::new();
    /// let value = program.decode_json(br#"{"b":"2","a":"1"}"#, &bump)?;
    /// let mut file = Vec::new(); // any `io::Write`
    /// program.encode_json_to_writer(value, &mut file)?;
    /// assert_eq!(file, br#"{"a":"1","b":"2"}"#);
    /// let unknown = program.decode_msgpack(&[0x81, 0xa1, b'a', 0xd4, 0, 0], &bump)?;
    /// let err = program.encode_json_to_writer(unknown, &mut file).unwrap_err();
    /// assert_eq!(err.to_string(), r#"at ["a"]: value is not known"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode_json_to_writer<W: std::io::Write>(
        &self,
        value: Value<'_>,
        writer: W,
    ) -> std::io::Result<()> {
        write_encoded(writer, |out| self.encode_json(value, out))
    }
}

/// Runs `encode` into a buffer, then writes the buffer to `writer` (a failed encode writes
/// nothing and is an `InvalidData` error carrying the [`EncodeError`]).
pub(crate) fn write_encoded<W: std::io::Write>(
    mut writer: W,
    encode: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> std::io::Result<()> {
    let mut out = Vec::new();
    encode(&mut out).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    writer.write_all(&out)
}
