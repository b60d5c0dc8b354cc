//! Terraform core's implied-type rule (`configschema.Block.ImpliedType`).
//!
//! - An attribute with `type` has that type; a `nested_type` gives an object (single), or a
//!   list/set/map of objects, never switched to dynamic.
//! - A nested block gives its block's object type (single, group); `list(obj)` / `map(obj)`,
//!   **or `dynamic`** when the block's type contains a dynamic anywhere (Terraform's
//!   `BlockTupleSpec` / `BlockObjectSpec`); `set(obj)`.
//! - A block type with an unrecognised nesting mode, or named like an attribute, is left out.
//! - Optional markers are stripped at the end (`WithoutOptionalAttributesDeep`).

use super::{Attribute, AttributeKind, Block, NestedType, NestingMode, ObjectType, Type};

pub(super) fn block_type(block: &Block) -> Type {
    block_type_raw(block).without_optional_deep()
}

fn block_type_raw(block: &Block) -> Type {
    let mut attrs: Vec<(String, Type)> = Vec::new();
    for (name, attr) in &block.attributes {
        attrs.push((name.clone(), attribute_type(attr)));
    }
    for (name, nested) in &block.block_types {
        if block.attributes.iter().any(|(n, _)| n == name) {
            continue;
        }
        let Some(mode) = nested.nesting else { continue };
        let inner = block_type_raw(&nested.block);
        let ty = match mode {
            NestingMode::Single | NestingMode::Group => inner,
            NestingMode::List if inner.has_dynamic() => Type::Dynamic,
            NestingMode::List => Type::List(Box::new(inner)),
            NestingMode::Set => Type::Set(Box::new(inner)),
            NestingMode::Map if inner.has_dynamic() => Type::Dynamic,
            NestingMode::Map => Type::Map(Box::new(inner)),
        };
        attrs.push((name.clone(), ty));
    }
    object(attrs, &[])
}

fn attribute_type(attr: &Attribute) -> Type {
    match &attr.kind {
        AttributeKind::Type(t) => t.clone(),
        AttributeKind::Nested(n) => nested_type(n),
    }
}

fn nested_type(n: &NestedType) -> Type {
    let mut attrs = Vec::new();
    let mut optional = Vec::new();
    for (name, attr) in &n.attributes {
        attrs.push((name.clone(), attribute_type(attr)));
        if attr.optional || attr.computed {
            optional.push(name.as_str());
        }
    }
    let obj = object(attrs, &optional);
    match n.nesting {
        Some(NestingMode::Single) | Some(NestingMode::Group) => obj,
        Some(NestingMode::List) => Type::List(Box::new(obj)),
        Some(NestingMode::Set) => Type::Set(Box::new(obj)),
        Some(NestingMode::Map) => Type::Map(Box::new(obj)),
        None => object(Vec::new(), &[]),
    }
}

fn object(attrs: Vec<(String, Type)>, optional: &[&str]) -> Type {
    // Names come from one map each, and optional names are a subset: this cannot fail.
    Type::Object(ObjectType::new(attrs, optional).unwrap_or_default())
}
