//! The `Schema.NestedBlock` mapping rules for JSON.

use super::*;

// ---- Schema.NestedBlock mapping rules for JSON --------------------------------------------

fn rule() -> Block {
    Block::new()
        .attribute("port", Attribute::new(Type::Number))
        .attribute("proto", Attribute::new(Type::String))
}

fn resource(mode: NestingMode) -> Program {
    let block = Block::new()
        .attribute("name", Attribute::new(Type::String))
        .block("rule", NestedBlock::new(mode, rule()));
    Program::from_block(&block).unwrap()
}

fn block_dump(p: &Program, input: &str) -> String {
    let bump = Bump::new();
    let v = p
        .decode_json(input.as_bytes(), &bump)
        .unwrap_or_else(|e| panic!("{input}: {e}"));
    dump::to_string(p, v).unwrap()
}

#[test]
fn nested_blocks() {
    let r1 = r#"{"port":80,"proto":"tcp"}"#;
    let r2 = r#"{"proto":"udp","port":53}"#;
    let n1 = r#"{"port":80,"proto":"tcp"}"#;
    let n2 = r#"{"port":53,"proto":"udp"}"#;
    // SINGLE and GROUP: the block value or null.
    for mode in [NestingMode::Single, NestingMode::Group] {
        let p = resource(mode);
        assert_eq!(
            block_dump(&p, &format!(r#"{{"name":"a","rule":{r1}}}"#)),
            format!(r#"{{"name":"a","rule":{n1}}}"#)
        );
        assert_eq!(
            block_dump(&p, r#"{"name":"a","rule":null}"#),
            r#"{"name":"a","rule":null}"#
        );
    }
    // LIST and SET: arrays of block values.
    for mode in [NestingMode::List, NestingMode::Set] {
        let p = resource(mode);
        let input = format!(r#"{{"rule":[{r1},{r2}],"name":"a"}}"#);
        assert_eq!(
            block_dump(&p, &input),
            format!(r#"{{"name":"a","rule":[{n1},{n2}]}}"#)
        );
        assert_eq!(
            block_dump(&p, r#"{"name":"a","rule":[]}"#),
            r#"{"name":"a","rule":[]}"#
        );
    }
    // MAP: an object of label → block value.
    let p = resource(NestingMode::Map);
    let input = format!(r#"{{"name":"a","rule":{{"web":{r1},"dns":{r2}}}}}"#);
    assert_eq!(
        block_dump(&p, &input),
        format!(r#"{{"name":"a","rule":{{"dns":{n2},"web":{n1}}}}}"#)
    );
    // A missing block attribute reads as null in JSON.
    assert_eq!(
        block_dump(&p, r#"{"name":"a"}"#),
        r#"{"name":"a","rule":null}"#
    );
}

#[test]
fn list_blocks_with_dynamic_content_are_dynamic_on_the_wire() {
    let inner = Block::new().attribute("v", Attribute::new(Type::Dynamic));
    let block = Block::new().block("items", NestedBlock::new(NestingMode::List, inner));
    let p = Program::from_block(&block).unwrap();
    let input = r#"{"items":{"value":[{"v":{"value":1,"type":"number"}}],"type":["tuple",[["object",{"v":"dynamic"}]]]}}"#;
    // go-cty writes a value's concrete type; given `dynamic` inside, it reads through to the
    // inner wrappers (ctyoracle decode).
    assert_eq!(
        block_dump(&p, input),
        r#"{"items":{"type":["tuple",[["object",{"v":"number"}]]],"value":[{"v":1}]}}"#
    );
}

#[test]
fn block_item_counts_when_checked() {
    let block = Block::new().block(
        "rule",
        NestedBlock::new(NestingMode::List, rule()).items(1, 2),
    );
    let p = Program::from_block(&block).unwrap();
    let bump = Bump::new();
    let checked = DecodeOptions::default().with_check_item_counts(true);
    let r = r#"{"port":1,"proto":"tcp"}"#;
    // Unchecked by default (go-cty does not check).
    assert!(p.decode_json(br#"{"rule":[]}"#, &bump).is_ok());
    assert!(p
        .decode_json_with(format!(r#"{{"rule":[{r}]}}"#).as_bytes(), &bump, &checked)
        .is_ok());
    let e = p
        .decode_json_with(br#"{"rule":[]}"#, &bump, &checked)
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset().unwrap()),
        (ErrorKind::ItemCount, ".rule", 8)
    );
    assert_eq!(e.message(), "at least 1 blocks are required (0 given)");
    let three = format!(r#"{{"rule":[{r},{r},{r}]}}"#);
    let e = p
        .decode_json_with(three.as_bytes(), &bump, &checked)
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.offset().unwrap()),
        (ErrorKind::ItemCount, ".rule", 8)
    );
    assert_eq!(e.message(), "at most 2 blocks are allowed (3 given)");
    // A null block list is not counted.
    assert!(p
        .decode_json_with(br#"{"rule":null}"#, &bump, &checked)
        .is_ok());
}
