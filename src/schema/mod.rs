//! The schema model: provider `Schema.Block`s, their attributes and nested blocks, the
//! implied-type rule that turns a block into a cty [`Type`], and the loaders for the JSON
//! forms schemas come in (`terraform providers schema -json` and its parts).

mod implied;
mod json_tree;
mod load;
pub(crate) mod select;
mod types;

pub(crate) use load::schema_in_document;
pub use load::{ProviderSchema, ProviderSchemas, Schema, SchemaSelector, SchemaSource};
pub use select::Selection;
pub(crate) use types::write_json_string;
pub use types::{ObjectType, Type, MAX_TYPE_DEPTH};

use crate::error::SchemaError;

/// How the blocks of one nested block type are collected (`Schema.NestedBlock.NestingMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NestingMode {
    /// At most one block; null when absent.
    Single,
    /// Exactly one block; Terraform synthesizes an empty one when absent.
    Group,
    /// An ordered list of blocks.
    List,
    /// An unordered set of blocks.
    Set,
    /// Blocks keyed by their one label.
    Map,
}

impl NestingMode {
    /// Parses the lower-case name used by `providers schema -json` (`"single"`, …).
    pub fn from_name(name: &str) -> Option<NestingMode> {
        Some(match name {
            "single" => NestingMode::Single,
            "group" => NestingMode::Group,
            "list" => NestingMode::List,
            "set" => NestingMode::Set,
            "map" => NestingMode::Map,
            _ => return None,
        })
    }

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            NestingMode::Single => "single",
            NestingMode::Group => "group",
            NestingMode::List => "list",
            NestingMode::Set => "set",
            NestingMode::Map => "map",
        }
    }
}

/// A schema block: attributes plus nested block types.
///
/// Build one in Rust and turn it into a type with [`Block::implied_type`]:
///
/// ```
/// use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
/// use tfwire::Type;
///
/// let rule = Block::new().attribute("port", Attribute::new(Type::Number));
/// let block = Block::new()
///     .attribute("name", Attribute::new(Type::String))
///     .block("ingress", NestedBlock::new(NestingMode::Set, rule));
/// assert_eq!(
///     block.implied_type()?.to_string(),
///     r#"["object",{"ingress":["set",["object",{"port":"number"}]],"name":"string"}]"#
/// );
/// # Ok::<(), tfwire::SchemaError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// Attributes by name, in the order given.
    pub attributes: Vec<(String, Attribute)>,
    /// Nested block types by name, in the order given.
    pub block_types: Vec<(String, NestedBlock)>,
}

/// One attribute: a `type`, or (tfplugin6) a `nested_type`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// Where the attribute's type comes from.
    pub kind: AttributeKind,
    /// `required` flag (informational).
    pub required: bool,
    /// `optional` flag; in nested types it marks the object attribute optional.
    pub optional: bool,
    /// `computed` flag; in nested types it marks the object attribute optional.
    pub computed: bool,
}

/// The two ways an attribute declares its type.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeKind {
    /// A cty type constraint.
    Type(Type),
    /// A tfplugin6 nested attribute type.
    Nested(NestedType),
}

/// A tfplugin6 nested attribute type (`Schema.Object`).
#[derive(Clone, Debug, PartialEq)]
pub struct NestedType {
    /// The object's attributes.
    pub attributes: Vec<(String, Attribute)>,
    /// `single`, `list`, `set` or `map` (`group` is read as `single`); `None` for an
    /// unrecognised mode, which Terraform maps to an empty object.
    pub nesting: Option<NestingMode>,
}

/// A nested block type.
#[derive(Clone, Debug, PartialEq)]
pub struct NestedBlock {
    /// The nesting mode; `None` when the schema names a mode Terraform does not know (the
    /// block is then left out of the type, as Terraform does).
    pub nesting: Option<NestingMode>,
    /// The content of each block.
    pub block: Block,
    /// `min_items` (LIST/SET only; checked on request).
    pub min_items: u64,
    /// `max_items` (LIST/SET only; 0 means no limit).
    pub max_items: u64,
}

impl Block {
    /// An empty block.
    pub fn new() -> Block {
        Block::default()
    }

    /// Adds an attribute (builder style).
    pub fn attribute(mut self, name: impl Into<String>, attr: Attribute) -> Block {
        self.attributes.push((name.into(), attr));
        self
    }

    /// Adds a nested block type (builder style).
    pub fn block(mut self, name: impl Into<String>, nested: NestedBlock) -> Block {
        self.block_types.push((name.into(), nested));
        self
    }

    /// Terraform core's implied type of this block (see the module docs of `implied`). A block
    /// built by hand with blocks or nested attribute types nested deeper than
    /// [`MAX_SCHEMA_DEPTH`](crate::MAX_SCHEMA_DEPTH), or an attribute type deeper than
    /// [`MAX_TYPE_NESTING`](crate::MAX_TYPE_NESTING), is an error (checked without recursion,
    /// before the rule recurses).
    pub fn implied_type(&self) -> Result<Type, SchemaError> {
        self.check_nesting()?;
        Ok(implied::block_type(self))
    }

    /// An error if blocks or nested types nest deeper than `MAX_SCHEMA_DEPTH`, or an attribute
    /// type deeper than `MAX_TYPE_NESTING`; walked with an explicit stack.
    fn check_nesting(&self) -> Result<(), SchemaError> {
        // A level's attributes and nested blocks (a nested type has no blocks), and its depth.
        type Level<'b> = (
            &'b [(String, Attribute)],
            &'b [(String, NestedBlock)],
            usize,
        );
        let mut stack: smallvec::SmallVec<[Level<'_>; 8]> =
            smallvec::smallvec![(self.attributes.as_slice(), self.block_types.as_slice(), 0)];
        while let Some((attributes, block_types, level)) = stack.pop() {
            if level > crate::limits::MAX_SCHEMA_DEPTH {
                return Err(SchemaError::new(format!(
                    "blocks and nested types nested deeper than {} levels",
                    crate::limits::MAX_SCHEMA_DEPTH
                )));
            }
            let inner = level.saturating_add(1);
            for (_, attr) in attributes {
                match &attr.kind {
                    AttributeKind::Type(t) => t.check_nesting()?,
                    AttributeKind::Nested(n) => stack.push((&n.attributes, &[], inner)),
                }
            }
            for (_, nested) in block_types {
                stack.push((&nested.block.attributes, &nested.block.block_types, inner));
            }
        }
        Ok(())
    }
}

impl Attribute {
    /// An optional attribute of type `ty`.
    pub fn new(ty: Type) -> Attribute {
        Attribute {
            kind: AttributeKind::Type(ty),
            required: false,
            optional: true,
            computed: false,
        }
    }

    /// An attribute with a tfplugin6 nested type.
    pub fn nested(nested: NestedType) -> Attribute {
        Attribute {
            kind: AttributeKind::Nested(nested),
            required: false,
            optional: true,
            computed: false,
        }
    }
}

impl NestedBlock {
    /// A nested block type with no item limits.
    pub fn new(nesting: NestingMode, block: Block) -> NestedBlock {
        NestedBlock {
            nesting: Some(nesting),
            block,
            min_items: 0,
            max_items: 0,
        }
    }

    /// Sets `min_items` and `max_items` (builder style).
    pub fn items(mut self, min: u64, max: u64) -> NestedBlock {
        self.min_items = min;
        self.max_items = max;
        self
    }
}

/// `entries` sorted by key (a stable sort); of repeated keys the last one stays, as in go-cty's
/// object types and `serde_json::Map`. Already-sorted input, the usual case, is returned as is.
pub(crate) fn sorted_last_wins<K: Ord, V>(mut entries: Vec<(K, V)>) -> Vec<(K, V)> {
    if entries.windows(2).all(|w| matches!(w, [a, b] if a.0 < b.0)) {
        return entries;
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut kept: Vec<(K, V)> = Vec::with_capacity(entries.len());
    for entry in entries {
        match kept.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => kept.push(entry),
        }
    }
    kept
}
