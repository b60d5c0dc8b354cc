//! The spec's `Schema.Block` / `Schema.NestedBlock` rows: a block is a map of attributes and
//! nested block types; SINGLE and GROUP are the block value or nil, LIST and SET arrays of
//! block values, MAP a map of label to block value; LIST and MAP blocks whose content holds a
//! `dynamic` become `dynamic` on the wire (a `[tuple/object type, value]` wrapper).

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use bumpalo::Bump;
use decode::decode_dump;
use mp::{mp, Mp};
use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
use tfwire::{dump, Program, Type, Value};

/// `{"port": number, "proto": string}`.
fn rule() -> Block {
    Block::new()
        .attribute("port", Attribute::new(Type::Number))
        .attribute("proto", Attribute::new(Type::String))
}

/// A rule block value on the wire.
fn rule_value(port: i64, proto: &str) -> Mp {
    mp().map(2).s("port").int(port).s("proto").s(proto)
}

/// A resource with one nested block type `rule` of `mode`, plus a `name` attribute.
fn resource(mode: NestingMode) -> Program {
    let block = Block::new()
        .attribute("name", Attribute::new(Type::String))
        .block("rule", NestedBlock::new(mode, rule()));
    Program::from_block(&block).unwrap()
}

fn with_rule(rule: Mp) -> Vec<u8> {
    mp().map(2).s("name").s("web").s("rule").then(rule).done()
}

/// A SINGLE or GROUP block: the block's object type, holding the block value or null.
#[track_caller]
fn assert_value_or_null(p: &Program) {
    assert_eq!(
        p.root_type().to_string(),
        r#"["object",{"name":"string","rule":["object",{"port":"number","proto":"string"}]}]"#
    );
    let present = with_rule(rule_value(22, "tcp"));
    assert_eq!(
        decode_dump(p, &present),
        r#"{"name":"web","rule":{"port":22,"proto":"tcp"}}"#
    );
    let absent = with_rule(mp().nil());
    assert_eq!(decode_dump(p, &absent), r#"{"name":"web","rule":null}"#);
}

#[test]
fn single_block_present_and_absent() {
    assert_value_or_null(&resource(NestingMode::Single));
}

#[test]
fn group_block_is_like_single_and_nil_stays_null() {
    let p = resource(NestingMode::Group);
    // Terraform synthesizes an empty GROUP block only in config coercion, not on the wire:
    // nil stays null.
    assert_value_or_null(&p);
    // The synthesized form (all attributes null) is an ordinary block value.
    let synthesized = with_rule(mp().map(2).s("port").nil().s("proto").nil());
    assert_eq!(
        decode_dump(&p, &synthesized),
        r#"{"name":"web","rule":{"port":null,"proto":null}}"#
    );
}

#[test]
fn list_block_is_an_array_in_order() {
    let p = resource(NestingMode::List);
    assert_eq!(
        p.root_type().to_string(),
        r#"["object",{"name":"string","rule":["list",["object",{"port":"number","proto":"string"}]]}]"#
    );
    let two = with_rule(
        mp().arr(2)
            .then(rule_value(443, "tcp"))
            .then(rule_value(53, "udp")),
    );
    let bump = Bump::new();
    let v = p.decode_msgpack(&two, &bump).unwrap();
    assert!(matches!(v.attr(&p, "rule"), Some(Value::List(e)) if e.len() == 2));
    assert_eq!(
        dump::to_string(&p, v).unwrap(),
        r#"{"name":"web","rule":[{"port":443,"proto":"tcp"},{"port":53,"proto":"udp"}]}"#
    );
    assert_eq!(
        decode_dump(&p, &with_rule(mp().arr(0))),
        r#"{"name":"web","rule":[]}"#
    );
}

#[test]
fn set_block_is_an_array() {
    let p = resource(NestingMode::Set);
    assert_eq!(
        p.root_type().to_string(),
        r#"["object",{"name":"string","rule":["set",["object",{"port":"number","proto":"string"}]]}]"#
    );
    let two = with_rule(
        mp().arr(2)
            .then(rule_value(53, "udp"))
            .then(rule_value(53, "udp")),
    );
    let bump = Bump::new();
    let v = p.decode_msgpack(&two, &bump).unwrap();
    assert!(matches!(v.attr(&p, "rule"), Some(Value::Set(e)) if e.len() == 2));
    assert_eq!(
        dump::to_string(&p, v).unwrap(),
        r#"{"name":"web","rule":[{"port":53,"proto":"udp"},{"port":53,"proto":"udp"}]}"#
    );
}

#[test]
fn map_block_is_a_map_of_labels() {
    let p = resource(NestingMode::Map);
    assert_eq!(
        p.root_type().to_string(),
        r#"["object",{"name":"string","rule":["map",["object",{"port":"number","proto":"string"}]]}]"#
    );
    let input = with_rule(
        mp().map(2)
            .s("ssh")
            .then(rule_value(22, "tcp"))
            .s("dns")
            .then(rule_value(53, "udp")),
    );
    assert_eq!(
        decode_dump(&p, &input),
        r#"{"name":"web","rule":{"dns":{"port":53,"proto":"udp"},"ssh":{"port":22,"proto":"tcp"}}}"#
    );
}

#[test]
fn every_mode_accepts_null_and_unknown() {
    for mode in [
        NestingMode::Single,
        NestingMode::Group,
        NestingMode::List,
        NestingMode::Set,
        NestingMode::Map,
    ] {
        let p = resource(mode);
        assert_eq!(
            decode_dump(&p, &with_rule(mp().nil())),
            r#"{"name":"web","rule":null}"#
        );
        assert_eq!(
            decode_dump(&p, &with_rule(mp().unknown())),
            r#"{"name":"web","rule":{"$unknown":{}}}"#,
            "{mode:?}"
        );
    }
}

#[test]
fn nested_blocks_of_every_mode_together() {
    let leaf = Block::new().attribute("v", Attribute::new(Type::String));
    let block = Block::new()
        .attribute("id", Attribute::new(Type::String))
        .block(
            "a_single",
            NestedBlock::new(NestingMode::Single, leaf.clone()),
        )
        .block(
            "b_group",
            NestedBlock::new(NestingMode::Group, leaf.clone()),
        )
        .block("c_list", NestedBlock::new(NestingMode::List, leaf.clone()))
        .block("d_set", NestedBlock::new(NestingMode::Set, leaf.clone()))
        .block(
            "e_map",
            NestedBlock::new(
                NestingMode::Map,
                leaf.clone()
                    .block("inner", NestedBlock::new(NestingMode::List, leaf.clone())),
            ),
        );
    let p = Program::from_block(&block).unwrap();
    let leaf_value = |s: &str| mp().map(1).s("v").s(s);
    let input = mp()
        .map(6)
        .s("a_single")
        .then(leaf_value("s"))
        .s("b_group")
        .then(leaf_value("g"))
        .s("c_list")
        .arr(2)
        .then(leaf_value("l0"))
        .then(leaf_value("l1"))
        .s("d_set")
        .arr(1)
        .then(leaf_value("s0"))
        .s("e_map")
        .map(1)
        .s("k")
        .map(2)
        .s("inner")
        .arr(1)
        .then(leaf_value("deep"))
        .s("v")
        .s("m")
        .s("id")
        .s("x")
        .done();
    assert_eq!(
        decode_dump(&p, &input),
        concat!(
            r#"{"a_single":{"v":"s"},"b_group":{"v":"g"},"c_list":[{"v":"l0"},{"v":"l1"}],"#,
            r#""d_set":[{"v":"s0"}],"e_map":{"k":{"inner":[{"v":"deep"}],"v":"m"}},"id":"x"}"#
        )
    );
}

#[test]
fn empty_block_is_an_empty_object() {
    let block = Block::new().block("empty", NestedBlock::new(NestingMode::List, Block::new()));
    let p = Program::from_block(&block).unwrap();
    assert_eq!(
        p.root_type().to_string(),
        r#"["object",{"empty":["list",["object",{}]]}]"#
    );
    let input = mp().map(1).s("empty").arr(2).map(0).map(0).done();
    assert_eq!(decode_dump(&p, &input), r#"{"empty":[{},{}]}"#);
}

/// A block whose content holds a dynamic attribute.
fn dyn_rule() -> Block {
    Block::new()
        .attribute("port", Attribute::new(Type::Number))
        .attribute("value", Attribute::new(Type::Dynamic))
}

#[test]
fn list_block_with_a_dynamic_attribute_is_dynamic_on_the_wire() {
    let block = Block::new().block("rule", NestedBlock::new(NestingMode::List, dyn_rule()));
    let p = Program::from_block(&block).unwrap();
    assert_eq!(
        p.root_type().to_string(),
        r#"["object",{"rule":"dynamic"}]"#
    );
    // Terraform sends a tuple of the blocks' concrete object types.
    let t = r#"["tuple",[["object",{"port":"number","value":"string"}],["object",{"port":"number","value":"bool"}]]]"#;
    let input = mp()
        .map(1)
        .s("rule")
        .dynamic(t)
        .arr(2)
        .map(2)
        .s("port")
        .int(1)
        .s("value")
        .s("x")
        .map(2)
        .s("port")
        .int(2)
        .s("value")
        .bool(true)
        .done();
    assert_eq!(
        decode_dump(&p, &input),
        format!(
            r#"{{"rule":{{"type":{t},"value":[{{"port":1,"value":"x"}},{{"port":2,"value":true}}]}}}}"#
        )
    );
    // No blocks: an empty tuple; unknown: the whole position.
    let empty = mp()
        .map(1)
        .s("rule")
        .dynamic(r#"["tuple",[]]"#)
        .arr(0)
        .done();
    assert_eq!(
        decode_dump(&p, &empty),
        r#"{"rule":{"type":["tuple",[]],"value":[]}}"#
    );
    let unknown = mp().map(1).s("rule").unknown().done();
    assert_eq!(decode_dump(&p, &unknown), r#"{"rule":{"$unknown":{}}}"#);
}

#[test]
fn map_block_with_a_dynamic_attribute_is_dynamic_on_the_wire() {
    let block = Block::new().block("rule", NestedBlock::new(NestingMode::Map, dyn_rule()));
    let p = Program::from_block(&block).unwrap();
    assert_eq!(
        p.root_type().to_string(),
        r#"["object",{"rule":"dynamic"}]"#
    );
    // Terraform sends an object type keyed by the block labels.
    let t = r#"["object",{"a":["object",{"port":"number","value":["list","string"]}]}]"#;
    let input = mp()
        .map(1)
        .s("rule")
        .dynamic(t)
        .map(1)
        .s("a")
        .map(2)
        .s("value")
        .arr(1)
        .s("v")
        .s("port")
        .int(8)
        .done();
    assert_eq!(
        decode_dump(&p, &input),
        format!(r#"{{"rule":{{"type":{t},"value":{{"a":{{"port":8,"value":["v"]}}}}}}}}"#)
    );
}

#[test]
fn dynamic_cascades_through_nested_blocks_but_not_set_single_or_group() {
    let inner = Block::new().block("deep", NestedBlock::new(NestingMode::List, dyn_rule()));
    let block = Block::new()
        .block(
            "outer_list",
            NestedBlock::new(NestingMode::List, inner.clone()),
        )
        .block(
            "outer_single",
            NestedBlock::new(NestingMode::Single, inner.clone()),
        )
        .block(
            "outer_group",
            NestedBlock::new(NestingMode::Group, inner.clone()),
        )
        .block("outer_set", NestedBlock::new(NestingMode::Set, dyn_rule()));
    let p = Program::from_block(&block).unwrap();
    assert_eq!(
        p.root_type().to_string(),
        concat!(
            r#"["object",{"outer_group":["object",{"deep":"dynamic"}],"outer_list":"dynamic","#,
            r#""outer_set":["set",["object",{"port":"number","value":"dynamic"}]],"#,
            r#""outer_single":["object",{"deep":"dynamic"}]}]"#
        )
    );
    let deep = mp()
        .dynamic(r#"["tuple",[["object",{"port":"number","value":"number"}]]]"#)
        .arr(1)
        .map(2)
        .s("port")
        .int(1)
        .s("value")
        .int(2);
    let input = mp()
        .map(4)
        .s("outer_group")
        .map(1)
        .s("deep")
        .then(deep.clone())
        .s("outer_list")
        .nil()
        .s("outer_set")
        .arr(1)
        .map(2)
        .s("port")
        .int(3)
        .s("value")
        .dynamic("\"string\"")
        .s("z")
        .s("outer_single")
        .nil()
        .done();
    assert_eq!(
        decode_dump(&p, &input),
        concat!(
            r#"{"outer_group":{"deep":{"type":["tuple",[["object",{"port":"number","value":"number"}]]],"#,
            r#""value":[{"port":1,"value":2}]}},"outer_list":null,"#,
            r#""outer_set":[{"port":3,"value":{"type":"string","value":"z"}}],"outer_single":null}"#
        )
    );
}

#[test]
fn a_block_named_like_an_attribute_is_left_out() {
    let block = Block::new()
        .attribute("rule", Attribute::new(Type::String))
        .block("rule", NestedBlock::new(NestingMode::List, rule()));
    let p = Program::from_block(&block).unwrap();
    assert_eq!(p.root_type().to_string(), r#"["object",{"rule":"string"}]"#);
    let input = mp().map(1).s("rule").s("x").done();
    assert_eq!(decode_dump(&p, &input), r#"{"rule":"x"}"#);
}
