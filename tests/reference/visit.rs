//! The visitor check (`Program::visit`), shared by `tests/visit.rs` and the `visit` fuzz
//! target: what a visit tells, rebuilt into a tree, equals the tree of the decoded value, and
//! a visit fails exactly where the decode fails (kind, path, offset). Trees compare objects
//! by attribute name (a visit tells attributes in input order, the missing ones last) and
//! look through dynamic values (a decode reads nested wrappers through, a visit tells them
//! as written).

use std::collections::BTreeMap;

use bumpalo::Bump;
use tfwire::{Container, DecodeOptions, Encoding, Program, Typed, Value, Visitor};

/// A value as both sides see it.
#[derive(Debug, PartialEq)]
pub enum Node {
    /// A scalar, as `{:?}` writes its `Value`.
    Scalar(String),
    /// A list, set or tuple.
    Seq(&'static str, Vec<Node>),
    /// A map's entries in order.
    Map(Vec<(String, Node)>),
    /// An object's attributes by name.
    Object(BTreeMap<String, Node>),
}

/// The tree of a decoded value.
pub fn of_value(t: Typed<'_>) -> Node {
    match t.value {
        Value::List(_) | Value::Set(_) | Value::Tuple(_) => {
            let kind = match t.value {
                Value::List(_) => "list",
                Value::Set(_) => "set",
                _ => "tuple",
            };
            Node::Seq(kind, t.elements().map(of_value).collect())
        }
        Value::Map(entries) => Node::Map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), of_value(Typed::new(t.program, *v))))
                .collect(),
        ),
        Value::Object(_) => Node::Object(
            t.attrs()
                .map(|(name, v)| (name.to_string(), of_value(v)))
                .collect(),
        ),
        v => Node::Scalar(format!("{v:?}")),
    }
}

enum Frame {
    Seq(&'static str, Vec<Node>),
    Map(Vec<(String, Node)>, Option<String>),
    Object(BTreeMap<String, Node>, Option<String>),
    Dynamic(Option<Node>),
}

/// A visitor that rebuilds the tree, checking the calls come in a sensible order.
#[derive(Default)]
pub struct Rebuild {
    stack: Vec<Frame>,
    /// The finished tree.
    pub done: Option<Node>,
    /// A call out of place (a name where none belongs, a second root, an unmatched `end`).
    pub fault: Option<String>,
}

impl Rebuild {
    fn put(&mut self, node: Node) {
        match self.stack.last_mut() {
            None if self.done.is_none() => self.done = Some(node),
            None => self.fault = Some("a second root".into()),
            Some(Frame::Seq(_, items)) => items.push(node),
            Some(Frame::Map(entries, key)) => match key.take() {
                Some(k) => entries.push((k, node)),
                None => self.fault = Some("a map value without its key".into()),
            },
            Some(Frame::Object(attrs, name)) => match name.take() {
                Some(n) => {
                    if attrs.insert(n.clone(), node).is_some() {
                        self.fault = Some(format!("attribute {n:?} told twice"));
                    }
                }
                None => self.fault = Some("an attribute value without its name".into()),
            },
            Some(Frame::Dynamic(inner)) => {
                if inner.replace(node).is_some() {
                    self.fault = Some("two values in one dynamic".into());
                }
            }
        }
    }
}

impl Visitor for Rebuild {
    fn scalar(&mut self, value: Value<'_>) {
        self.put(Node::Scalar(format!("{value:?}")));
    }

    fn begin(&mut self, container: Container<'_>) {
        self.stack.push(match container {
            Container::List => Frame::Seq("list", Vec::new()),
            Container::Set => Frame::Seq("set", Vec::new()),
            Container::Tuple => Frame::Seq("tuple", Vec::new()),
            Container::Map => Frame::Map(Vec::new(), None),
            Container::Object => Frame::Object(BTreeMap::new(), None),
            Container::Dynamic(_) => Frame::Dynamic(None),
            _ => Frame::Dynamic(None),
        });
    }

    fn attr(&mut self, name: &str) {
        match self.stack.last_mut() {
            Some(Frame::Object(_, slot)) if slot.is_none() => *slot = Some(name.to_string()),
            _ => self.fault = Some(format!("attribute {name:?} out of place")),
        }
    }

    fn key(&mut self, key: &str) {
        match self.stack.last_mut() {
            Some(Frame::Map(_, slot)) if slot.is_none() => *slot = Some(key.to_string()),
            _ => self.fault = Some(format!("key {key:?} out of place")),
        }
    }

    fn end(&mut self) {
        let node = match self.stack.pop() {
            Some(Frame::Seq(kind, items)) => Node::Seq(kind, items),
            Some(Frame::Map(entries, _)) => Node::Map(entries),
            Some(Frame::Object(attrs, _)) => Node::Object(attrs),
            Some(Frame::Dynamic(Some(inner))) => inner,
            Some(Frame::Dynamic(None)) => {
                self.fault = Some("a dynamic value without its value".into());
                return;
            }
            None => {
                self.fault = Some("an end without a begin".into());
                return;
            }
        };
        self.put(node);
    }
}

/// Visits `input` with `program` and compares with its decode: the same tree, or the same
/// error (kind, path, offset).
pub fn same_as_decode(
    program: &Program,
    encoding: Encoding,
    input: &[u8],
    options: &DecodeOptions,
) -> Result<(), String> {
    let bump = Bump::new();
    let decoded = match encoding {
        Encoding::Msgpack => program.decode_msgpack_with(input, &bump, options),
        Encoding::Json => program.decode_json_with(input, &bump, options),
    };
    let mut rebuild = Rebuild::default();
    let visited = program.visit(encoding, input, &mut rebuild, options);
    match (decoded, visited) {
        (Ok(value), Ok(())) => {
            if let Some(fault) = rebuild.fault {
                return Err(fault);
            }
            let want = of_value(program.typed(value));
            match rebuild.done {
                Some(got) if got == want => Ok(()),
                got => Err(format!("visit {got:?}\n decode {want:?}")),
            }
        }
        (Err(a), Err(b)) => {
            let key = |e: &tfwire::DecodeError| (e.kind(), e.path().to_string(), e.offset());
            match key(&a) == key(&b) {
                true => Ok(()),
                false => Err(format!("decode fails: {a}\n visit fails: {b}")),
            }
        }
        (Ok(_), Err(e)) => Err(format!("the decode accepts, the visit fails: {e}")),
        // A visit neither reads nested wrappers through nor checks dynamic elements' types
        // against each other.
        (Err(e), Ok(())) if e.kind() == tfwire::ErrorKind::InconsistentTypes => Ok(()),
        (Err(e), Ok(())) => Err(format!("the decode fails, the visit accepts: {e}")),
    }
}

/// The check of the `visit` fuzz target on its bytes: a generated type and value in both
/// encodings (sometimes a byte changed), visited by the full program and by a projection on
/// paths the bytes pick.
pub fn visit(data: &[u8]) {
    use super::gen::{self, Bytes, Source};
    let mut s = Bytes::new(data);
    let (t, plan) = gen::small_case(&mut s);
    let full = Program::new(&t).unwrap();
    let keys: Vec<&str> = (0..2).map(|_| *gen::pick(&mut s, &gen::NAMES)).collect();
    let mut paths = Vec::new();
    super::project::selection_paths(&t, &[], &keys, &mut paths);
    let projected = match paths.is_empty() || s.chance(2) {
        true => None,
        false => {
            let chosen: Vec<String> = (0..1 + s.below(3))
                .map(|_| super::project::render(&paths[s.below(paths.len())]))
                .collect();
            let selection = tfwire::schema::Selection::parse(&chosen).unwrap();
            Some(full.select(&selection).unwrap())
        }
    };
    let program = projected.as_ref().unwrap_or(&full);
    let options = DecodeOptions::default().with_missing_attributes_null(s.chance(4));
    let mut inputs = vec![(Encoding::Msgpack, super::encode::msgpack(&mut s, &t, &plan))];
    if !super::has_unknown(&plan) {
        inputs.push((Encoding::Json, super::encode::json(&mut s, &t, &plan)));
    }
    for (encoding, mut bytes) in inputs {
        if s.chance(8) && !bytes.is_empty() {
            let i = s.below(bytes.len());
            bytes[i] = s.byte();
        }
        if let Err(e) = same_as_decode(program, encoding, &bytes, &options) {
            panic!("{encoding:?} of {t} ({program:?}): {e}\n input {bytes:02x?}");
        }
    }
}
