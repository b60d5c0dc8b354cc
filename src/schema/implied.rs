//! Terraform core's implied-type rule (`configschema.Block.ImpliedType`).
//!
//! - An attribute with `type` has that type; a `nested_type` gives an object (single), or a
//!   list/set/map of objects, never switched to dynamic.
//! - A nested block gives its block's object type (single, group); `list(obj)` / `map(obj)`,
//!   **or `dynamic`** when the block's type contains a dynamic anywhere (Terraform's
//!   `BlockTupleSpec` / `BlockObjectSpec`); `set(obj)`.
//! - A block type with an unrecognised nesting mode, or named like an attribute, is left out.
//! - Optional markers are stripped (`WithoutOptionalAttributesDeep`): here they are never made.

use super::{Attribute, AttributeKind, Block, NestedType, NestingMode, ObjectType, Type};

pub(super) fn block_type(block: &Block) -> Type {
    block_type_plain(block).0
}

/// The implied type of `block`, built without optional markers (the rule strips them at the
/// end, so they are never made), and whether it holds a `dynamic`.
fn block_type_plain(block: &Block) -> (Type, bool) {
    let mut attrs: Vec<(String, Type)> = Vec::with_capacity(block.attributes.len());
    let mut dynamic = false;
    for (name, attr) in &block.attributes {
        let ty = attribute_type(attr);
        dynamic = dynamic || ty.has_dynamic();
        attrs.push((name.clone(), ty));
    }
    for (name, nested) in &block.block_types {
        if block.attributes.iter().any(|(n, _)| n == name) {
            continue;
        }
        let Some(mode) = nested.nesting else { continue };
        let (inner, inner_dynamic) = block_type_plain(&nested.block);
        let ty = match mode {
            NestingMode::Single | NestingMode::Group => inner,
            NestingMode::List if inner_dynamic => Type::Dynamic,
            NestingMode::List => Type::List(Box::new(inner)),
            NestingMode::Set => Type::Set(Box::new(inner)),
            NestingMode::Map if inner_dynamic => Type::Dynamic,
            NestingMode::Map => Type::Map(Box::new(inner)),
        };
        dynamic = dynamic || inner_dynamic;
        attrs.push((name.clone(), ty));
    }
    (object(attrs), dynamic)
}

fn attribute_type(attr: &Attribute) -> Type {
    match &attr.kind {
        AttributeKind::Type(t) => t.to_without_optional(),
        AttributeKind::Nested(n) => nested_type(n),
    }
}

/// A tfplugin6 nested attribute type: its optional-or-computed members would be marked
/// optional, but the implied type strips the markers, so none are made.
fn nested_type(n: &NestedType) -> Type {
    let attrs = n
        .attributes
        .iter()
        .map(|(name, attr)| (name.clone(), attribute_type(attr)))
        .collect();
    let obj = object(attrs);
    match n.nesting {
        Some(NestingMode::Single) | Some(NestingMode::Group) => obj,
        Some(NestingMode::List) => Type::List(Box::new(obj)),
        Some(NestingMode::Set) => Type::Set(Box::new(obj)),
        Some(NestingMode::Map) => Type::Map(Box::new(obj)),
        None => object(Vec::new()),
    }
}

fn object(attrs: Vec<(String, Type)>) -> Type {
    // Names come from one map each, with no optional names: this cannot fail.
    Type::Object(ObjectType::new(attrs, &[]).unwrap_or_default())
}
