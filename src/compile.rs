//! The compiler: [`Type`] (plus, for a schema block, its LIST/SET item limits) → [`Program`].
//!
//! Ops are emitted children first and hash-consed: a sub-type that occurs many times (the
//! same `tags` map in a thousand resources) becomes one op.
// Not yet clean of the library's panic lints (`lib.rs`): arithmetic on positions and
// lengths that cannot overflow, and indexes proved in bounds, are still written plainly here.
#![allow(
    clippy::arithmetic_side_effects,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use rustc_hash::FxHashMap;

use crate::error::SchemaError;
use crate::program::dyncache::DynCache;
use crate::program::key::AttrEntry;
use crate::program::{
    Code, ItemLimits, ItemsId, Op, OpId, PickId, Picks, Program, SelectionId, Span,
};
use crate::schema::select::Shape;
use crate::schema::{
    Block, NestingMode, ObjectType, SchemaSelector, SchemaSource, Selection, Type,
};

/// Hash-consing key: an op with its side-table contents spelled out (attribute names
/// borrowed from the type being compiled).
#[derive(PartialEq, Eq, Hash)]
enum Key<'t> {
    Leaf(Op),
    Tuple(Vec<OpId>),
    Object(Vec<(&'t str, OpId)>),
    /// A projection's object: its attributes, and every name of the type it projects.
    Projected(Vec<(&'t str, OpId)>, &'t [String]),
}

struct Compiler<'t> {
    program: Program,
    seen: FxHashMap<Key<'t>, OpId>,
}

/// The constructors of [`Program`]: each compiles a type or a schema.
impl Program {
    /// Compiles a type. A type built by hand nested deeper than
    /// [`MAX_TYPE_NESTING`](crate::MAX_TYPE_NESTING) is an error.
    pub fn new(ty: &Type) -> Result<Program, SchemaError> {
        ty.check_nesting()?;
        Ok(compile(ty, None))
    }

    /// Compiles a schema block (its implied type, with the blocks' item limits); errors as
    /// for [`Block::implied_type`] and [`Program::new`].
    pub fn from_block(block: &Block) -> Result<Program, SchemaError> {
        let ty = block.implied_type()?;
        ty.check_nesting()?;
        Ok(compile_owned(ty, Some(block)))
    }

    /// Compiles compact type JSON such as `["list","string"]`.
    pub fn from_type_json(text: &str) -> Result<Program, SchemaError> {
        // (Type JSON nests at most `MAX_TYPE_DEPTH` levels, well within the compiler's cap.)
        Ok(compile(&Type::from_json(text)?, None))
    }

    /// Compiles any schema form that needs no selector: a bare block, a
    /// `{"version":n,"block":{…}}` object or a `{"type": T}` wrapper.
    pub fn from_schema_json(text: &str) -> Result<Program, SchemaError> {
        Program::from_schema_json_with(text, &SchemaSelector::default())
    }

    /// Compiles one schema of any schema form, a providers-schema document included.
    pub fn from_schema_json_with(text: &str, sel: &SchemaSelector) -> Result<Program, SchemaError> {
        let source = SchemaSource::parse(text)?;
        Program::from_source(&source, sel)
    }

    /// A program for the projection of this program's type on `selection`
    /// ([`Type::project`]): it decodes the selected parts of a value and steps over the rest,
    /// checking the bytes it steps over for well-formedness (and strings for UTF-8) but not
    /// against the type. On every input the full program accepts, the projected value is the
    /// full value restricted to the selection (see [`Selection`] for what a pick such as
    /// `[0]` or `["Name"]` keeps). What the projection does not check, so that an input the
    /// full program rejects for it may decode: the keys its objects left out (stepped over
    /// unread, whether the schema has them or not, so neither their values' types nor a
    /// missing or repeated one), the elements its picks left out (stepped over: their types,
    /// and whether a dynamic element's type is its list's), and LIST/SET blocks' item counts
    /// (`check_item_counts`: a projected program keeps the type, not the schema's blocks).
    /// The projected value has the projected type, so `Typed`, the DUMP, the encoders and
    /// serde work on it with this program.
    ///
    /// ```
    /// use bumpalo::Bump;
    /// use tfwire::schema::Selection;
    /// use tfwire::Program;
    ///
    /// let full = Program::from_type_json(
    ///     r#"["object",{"id":"string","tags":["map","string"],"big":["list","number"]}]"#,
    /// )?;
    /// let program = full.select(&Selection::parse(["id", "tags"])?)?;
    /// let bump = Bump::new();
    /// let input = br#"{"id":"i-1","big":[1,2,3],"tags":{"a":"b","c":"d"}}"#;
    /// let value = program.decode_json(input, &bump)?;
    /// assert_eq!(
    ///     tfwire::dump::to_string(&program, value)?,
    ///     r#"{"id":"i-1","tags":{"a":"b","c":"d"}}"#
    /// );
    /// // One entry of a map, one element of a list: the others are stepped over.
    /// let program = full.select(&Selection::parse([r#"tags["c"]"#, "big[1]"])?)?;
    /// let value = program.decode_json(input, &bump)?;
    /// assert_eq!(tfwire::dump::to_string(&program, value)?, r#"{"big":[2],"tags":{"c":"d"}}"#);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn select(&self, selection: &Selection) -> Result<Program, SchemaError> {
        let shape = self.root_type().shape(selection)?;
        let ty = shape.to_type();
        let (mut program, root) = {
            let mut c = Compiler::new(&ty);
            let root = c.shape(&shape);
            (c.program, root)
        };
        program.code.root = root;
        program.code.type_json = ty.to_string().into_boxed_str();
        program.code.root_type = ty;
        program.code.projected = !selection.is_empty();
        if !program.code.key_orders.is_empty() {
            let ops = program.code.ops.len();
            program.code.key_orders.resize(ops, Span::default());
        }
        if let Err(e) = program.code.validate() {
            unreachable!("the compiler built an invalid projection: {e}");
        }
        Ok(program)
    }

    /// Compiles the schema `sel` picks out of a parsed source.
    pub fn from_source(
        source: &SchemaSource,
        sel: &SchemaSelector,
    ) -> Result<Program, SchemaError> {
        let ty = source.select(sel)?;
        ty.check_nesting()?;
        Ok(compile_owned(ty, source.select_block(sel)?))
    }
}

/// The program of a dynamic value's type JSON, or why the JSON is not a type. A value's type
/// never has optional attributes (go-cty keeps the markers only on type constraints), so the
/// wrapper's type is taken without them.
pub(crate) fn compile_type_json(type_json: &[u8]) -> Result<Program, String> {
    let ty = Type::from_json_bytes(type_json).map_err(|e| e.message().to_string())?;
    Ok(compile(&ty.without_optional_deep(), None))
}

pub(crate) fn compile(ty: &Type, block: Option<&Block>) -> Program {
    compile_owned(ty.clone(), block)
}

/// [`compile`], keeping `ty` as the program's type without copying it.
pub(crate) fn compile_owned(ty: Type, block: Option<&Block>) -> Program {
    let (mut program, root) = {
        let mut c = Compiler::new(&ty);
        let root = c.compile(&ty, block, ItemLimits::default());
        (c.program, root)
    };
    program.code.root = root;
    program.code.type_json = ty.to_string().into_boxed_str();
    program.code.root_type = ty;
    if let Err(e) = program.code.validate() {
        unreachable!("the compiler built an invalid program: {e}");
    }
    program
}

impl<'t> Compiler<'t> {
    fn new(ty: &Type) -> Compiler<'t> {
        Compiler {
            program: Program {
                code: Code {
                    ops: Vec::new(),
                    attr_names: Vec::new(),
                    longest_attr_name: 0,
                    attrs: Vec::new(),
                    tuple_elems: Vec::new(),
                    root: OpId(0),
                    type_json: Box::default(),
                    root_type: Type::Dynamic,
                    concrete: !ty.has_dynamic(),
                    projected: false,
                    key_orders: Vec::new(),
                    key_markers: Vec::new(),
                    item_limits: vec![ItemLimits::default()],
                    picks: Vec::new(),
                    selections: Vec::new(),
                },
                dyn_cache: DynCache::default(),
                serial: crate::program::next_serial(),
            },
            seen: FxHashMap::default(),
        }
    }

    fn push(&mut self, key: Key<'t>, op: Op) -> OpId {
        if let Some(&id) = self.seen.get(&key) {
            return id;
        }
        let id = self.push_new(op);
        self.seen.insert(key, id);
        id
    }

    /// `op` as a new op (not looked up among those made).
    fn push_new(&mut self, op: Op) -> OpId {
        let id = OpId(u32::try_from(self.program.code.ops.len()).expect("fewer than 2^32 ops"));
        self.program.code.ops.push(op);
        id
    }

    /// The id of `items` in the item-limits side table (added on first sight).
    fn items_id(&mut self, items: ItemLimits) -> ItemsId {
        if items.is_none() {
            return ItemsId::NONE;
        }
        let table = &mut self.program.code.item_limits;
        let i = match table.iter().position(|&l| l == items) {
            Some(i) => i,
            None => {
                table.push(items);
                table.len() - 1
            }
        };
        ItemsId(u32::try_from(i).expect("fewer than 2^32 item limits"))
    }

    /// `block` annotates an object type that is a schema block's implied type; `items` holds
    /// the limits of the LIST/SET block this type is the collection of.
    fn compile(&mut self, ty: &'t Type, block: Option<&Block>, items: ItemLimits) -> OpId {
        let op = match ty {
            Type::Bool => Op::Bool,
            Type::Number => Op::Number,
            Type::String => Op::String,
            Type::Dynamic => Op::Dynamic,
            Type::List(t) => Op::List {
                elem: self.compile(t, block, ItemLimits::default()),
                items: self.items_id(items),
            },
            Type::Set(t) => Op::Set {
                elem: self.compile(t, block, ItemLimits::default()),
                items: self.items_id(items),
            },
            Type::Map(t) => Op::Map {
                elem: self.compile(t, block, ItemLimits::default()),
            },
            Type::Tuple(ts) => return self.tuple(ts),
            Type::Object(o) => return self.object(o, block),
        };
        self.push(Key::Leaf(op), op)
    }

    // Tuples and objects in functions of their own, so that a debug build's frame on the
    // recursion through lists, sets and maps stays small.

    #[inline(never)]
    fn tuple(&mut self, ts: &'t [Type]) -> OpId {
        let elems: Vec<OpId> = ts
            .iter()
            .map(|t| self.compile(t, None, ItemLimits::default()))
            .collect();
        self.tuple_op(elems)
    }

    /// The tuple op of the element ops `elems`.
    fn tuple_op(&mut self, elems: Vec<OpId>) -> OpId {
        let key = Key::Tuple(elems);
        if let Some(&id) = self.seen.get(&key) {
            return id;
        }
        let Key::Tuple(elems) = &key else {
            unreachable!("built above")
        };
        let span = span(self.program.code.tuple_elems.len(), elems.len());
        self.program.code.tuple_elems.extend_from_slice(elems);
        self.push(key, Op::Tuple { elems: span })
    }

    #[inline(never)]
    fn object(&mut self, o: &'t ObjectType, block: Option<&Block>) -> OpId {
        let mut attrs: Vec<(&'t str, OpId)> = Vec::with_capacity(o.attrs().len());
        for (name, t) in o.attrs() {
            let (nested, limits) = nested_block(block, name);
            attrs.push((name.as_str(), self.compile(t, nested, limits)));
        }
        self.object_op(attrs)
    }

    /// The object op of the attributes `attrs` (sorted by name) and their ops.
    fn object_op(&mut self, attrs: Vec<(&'t str, OpId)>) -> OpId {
        let key = Key::Object(attrs);
        if let Some(&id) = self.seen.get(&key) {
            return id;
        }
        let Key::Object(attrs) = &key else {
            unreachable!("built above")
        };
        let id = self.object_op_uncached(attrs);
        self.seen.insert(key, id);
        id
    }

    /// A new object op of the attributes `attrs` (not looked up among those made).
    fn object_op_uncached(&mut self, attrs: &[(&'t str, OpId)]) -> OpId {
        let span = span(self.program.code.attr_names.len(), attrs.len());
        for &(name, op) in attrs {
            let code = self.program.code.ops[op.index()];
            self.program.code.attrs.push(AttrEntry::new(name, op, code));
            let len = u32::try_from(name.len()).unwrap_or(u32::MAX);
            self.program.code.longest_attr_name = self.program.code.longest_attr_name.max(len);
            self.program.code.attr_names.push(name.into());
        }
        self.push_new(Op::Object { attrs: span })
    }
}

/// A projection's shapes ([`Program::select`]): compiled as their types are, with a pick op
/// over each collection that keeps only some elements, and each object's key order.
impl<'t> Compiler<'t> {
    /// The object op of a projection's object of the attributes `attrs`, projected from a
    /// type of the attributes `all`: an object op with its key order (`Code::key_orders`).
    fn projected_object_op(&mut self, attrs: Vec<(&'t str, OpId)>, all: &'t [String]) -> OpId {
        let key = Key::Projected(attrs.clone(), all);
        if let Some(&id) = self.seen.get(&key) {
            return id;
        }
        // (Its own op, not shared with an object of the same attributes and another order.)
        let id = self.object_op_uncached(&attrs);
        self.seen.insert(key, id);
        let dynamic = self.push(Key::Leaf(Op::Dynamic), Op::Dynamic);
        let order = span(self.program.code.attrs.len(), all.len());
        let mut selected = attrs.iter().peekable();
        for name in all {
            let entry = match selected.next_if(|(n, _)| *n == name.as_str()) {
                Some(&(_, op)) => AttrEntry::new(name, op, self.program.code.ops[op.index()]),
                None => AttrEntry::stepped_over(name, dynamic),
            };
            self.program.code.attrs.push(entry);
            self.program.code.attr_names.push(name.as_str().into());
        }
        // The fixstr lengths of the selected keys: a stepped-over key of another length is
        // known by its marker alone.
        let code = &mut self.program.code;
        let entries = code.attrs.get(order.range()).unwrap_or_default();
        let selected_lens = AttrEntry::fixstr_lens(entries.iter().filter(|e| !e.stepped_over));
        code.key_markers.resize(code.attrs.len(), 0);
        let markers = code.key_markers.get_mut(order.range()).unwrap_or_default();
        for (marker, e) in markers.iter_mut().zip(entries) {
            let bit = e.fixstr_len_bit();
            if e.stepped_over && bit & !selected_lens != 0 {
                *marker = e.marker();
            }
        }
        let orders = &mut self.program.code.key_orders;
        orders.resize(self.program.code.ops.len(), Span::default());
        orders[id.index()] = order;
        id
    }

    fn shape(&mut self, shape: &'t Shape) -> OpId {
        match shape {
            Shape::Whole(ty) => self.compile(ty, None, ItemLimits::default()),
            Shape::Object { attrs, all, .. } => {
                let attrs = attrs
                    .iter()
                    .map(|(name, s)| (name.as_str(), self.shape(s)))
                    .collect();
                self.projected_object_op(attrs, all)
            }
            Shape::List { elem, picks } => {
                let elem = self.shape(elem);
                let list = Op::List {
                    elem,
                    items: ItemsId::NONE,
                };
                let of = self.push(Key::Leaf(list), list);
                match picks {
                    Some(indexes) => self.pick(
                        of,
                        Picks::Indexes {
                            indexes: indexes.clone().into_boxed_slice(),
                            arity: None,
                        },
                    ),
                    None => of,
                }
            }
            Shape::Set { elem } => {
                let elem = self.shape(elem);
                let set = Op::Set {
                    elem,
                    items: ItemsId::NONE,
                };
                self.push(Key::Leaf(set), set)
            }
            Shape::Map { elem, picks } => {
                let elem = self.shape(elem);
                let map = Op::Map { elem };
                let of = self.push(Key::Leaf(map), map);
                match picks {
                    Some(keys) => {
                        let keys = keys.iter().map(|k| k.as_str().into()).collect();
                        self.pick(of, Picks::Keys(keys))
                    }
                    None => of,
                }
            }
            Shape::Tuple {
                elems,
                picks,
                arity,
            } => {
                let elems = elems.iter().map(|s| self.shape(s)).collect();
                let of = self.tuple_op(elems);
                match picks {
                    Some(indexes) => self.pick(
                        of,
                        Picks::Indexes {
                            indexes: indexes.clone().into_boxed_slice(),
                            arity: Some(
                                u32::try_from(*arity).expect("a tuple under 2^32 elements"),
                            ),
                        },
                    ),
                    None => of,
                }
            }
            Shape::Dynamic(selection) => self.dynamic_select(selection),
        }
    }

    /// The op of a dynamic value with `selection` inside it.
    fn dynamic_select(&mut self, selection: &Selection) -> OpId {
        let table = &mut self.program.code.selections;
        let id = SelectionId(u32::try_from(table.len()).expect("fewer than 2^32 selections"));
        table.push(selection.clone());
        let op = Op::DynamicSelect { selection: id };
        self.push(Key::Leaf(op), op)
    }

    /// A pick op over the collection op `of`, keeping `picks`.
    fn pick(&mut self, of: OpId, picks: Picks) -> OpId {
        let table = &mut self.program.code.picks;
        let id = PickId(u32::try_from(table.len()).expect("fewer than 2^32 picks"));
        table.push(picks);
        let op = Op::Pick { of, picks: id };
        self.push(Key::Leaf(op), op)
    }
}

/// The nested block `name` of `block` and, for LIST/SET blocks, its item limits.
fn nested_block<'b>(block: Option<&'b Block>, name: &str) -> (Option<&'b Block>, ItemLimits) {
    let Some(block) = block else {
        return (None, ItemLimits::default());
    };
    if block.attributes.iter().any(|(n, _)| n == name) {
        return (None, ItemLimits::default());
    }
    match block.block_types.iter().find(|(n, _)| n == name) {
        Some((_, nb)) => {
            let limits = match nb.nesting {
                Some(NestingMode::List | NestingMode::Set) => ItemLimits {
                    min: nb.min_items,
                    max: nb.max_items,
                },
                _ => ItemLimits::default(),
            };
            (Some(&nb.block), limits)
        }
        None => (None, ItemLimits::default()),
    }
}

fn span(start: usize, len: usize) -> Span {
    Span {
        start: u32::try_from(start).expect("side table under 2^32 entries"),
        len: u32::try_from(len).expect("fewer than 2^32 attributes"),
    }
}
