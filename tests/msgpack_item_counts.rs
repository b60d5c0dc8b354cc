//! The optional `check_item_counts` (DESIGN.md §2): `min_items`/`max_items` of LIST and SET
//! blocks, off by default, not checked when the blocks hold unknown values (the spec's rule),
//! never applied to SINGLE, GROUP or MAP blocks, list attributes or LIST blocks that became
//! dynamic. Exact error offsets and paths are in `msgpack_errors_more.rs`.

#[path = "support/decode.rs"]
mod decode;
#[path = "support/mp.rs"]
mod mp;

use bumpalo::Bump;
use decode::{checking_item_counts, dump_with};
use mp::{mp, Mp};
use tfwire::schema::{Attribute, Block, NestedBlock, NestingMode};
use tfwire::{DecodeOptions, ErrorKind, Program, Type, Value};

// ---- check_item_counts ----------------------------------------------------------------------

fn counted(mode: NestingMode, min: u64, max: u64) -> Program {
    let rule = Block::new()
        .attribute("port", Attribute::new(Type::Number))
        .block(
            "sub",
            NestedBlock::new(
                NestingMode::List,
                Block::new().attribute("x", Attribute::new(Type::String)),
            ),
        );
    let block = Block::new()
        .attribute("other", Attribute::new(Type::List(Box::new(Type::String))))
        .block("rule", NestedBlock::new(mode, rule).items(min, max));
    Program::from_block(&block).unwrap()
}

fn rule(port: Mp) -> Mp {
    mp().map(2).s("port").then(port).s("sub").arr(0)
}

/// `{"other": other, "rule": [rules...]}`.
fn with_rules(other: Mp, rules: Vec<Mp>) -> Vec<u8> {
    let mut b = mp()
        .map(2)
        .s("other")
        .then(other)
        .s("rule")
        .arr(rules.len());
    for r in rules {
        b = b.then(r);
    }
    b.done()
}

fn n_rules(n: usize) -> Vec<Mp> {
    (0..n).map(|i| rule(mp().int(i as i64))).collect()
}

#[test]
fn item_counts_are_not_checked_by_default() {
    for mode in [NestingMode::List, NestingMode::Set] {
        let p = counted(mode, 1, 2);
        for n in [0, 3] {
            assert!(dump_with(
                &p,
                &with_rules(mp().nil(), n_rules(n)),
                &DecodeOptions::default()
            )
            .is_ok());
        }
    }
}

#[test]
fn item_counts_of_list_and_set_blocks_when_checked() {
    for mode in [NestingMode::List, NestingMode::Set] {
        let p = counted(mode, 1, 2);
        for (n, good) in [(0, false), (1, true), (2, true), (3, false)] {
            let got = dump_with(
                &p,
                &with_rules(mp().nil(), n_rules(n)),
                &checking_item_counts(),
            );
            match got {
                Ok(_) => assert!(good, "{mode:?} {n}"),
                Err(e) => assert!(
                    !good && e.kind() == ErrorKind::ItemCount,
                    "{mode:?} {n}: {e}"
                ),
            }
        }
        // max 0: no upper bound.
        let p = counted(mode, 2, 0);
        assert!(dump_with(
            &p,
            &with_rules(mp().nil(), n_rules(20)),
            &checking_item_counts()
        )
        .is_ok());
        let e = dump_with(
            &p,
            &with_rules(mp().nil(), n_rules(1)),
            &checking_item_counts(),
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ItemCount);
        // A null or unknown block list is not counted.
        for whole in [mp().nil(), mp().unknown()] {
            let input = mp().map(2).s("other").nil().s("rule").then(whole).done();
            assert!(
                dump_with(&p, &input, &checking_item_counts()).is_ok(),
                "{mode:?}"
            );
        }
    }
}

#[test]
fn item_counts_are_not_checked_when_the_blocks_hold_unknowns() {
    let p = counted(NestingMode::List, 2, 3);
    let deep_unknown = mp()
        .map(2)
        .s("port")
        .int(1)
        .s("sub")
        .arr(1)
        .map(1)
        .s("x")
        .unknown();
    let refined = mp().refined(mp().map(1).int(1).bool(false));
    for unknown_block in [
        rule(mp().unknown()),
        rule(refined),
        mp().unknown(),
        deep_unknown,
        mp().map(2).s("port").int(1).s("sub").unknown(),
    ] {
        // One block (below min) and four blocks (above max), one of them holding an unknown.
        let few = with_rules(mp().nil(), vec![unknown_block.clone()]);
        assert!(
            dump_with(&p, &few, &checking_item_counts()).is_ok(),
            "{few:02x?}"
        );
        let mut many = n_rules(3);
        many.insert(1, unknown_block);
        assert!(dump_with(&p, &with_rules(mp().nil(), many), &checking_item_counts()).is_ok());
    }
    // An unknown elsewhere (a sibling attribute) does not suspend the check.
    let sibling = with_rules(mp().arr(1).unknown(), n_rules(1));
    assert_eq!(
        dump_with(&p, &sibling, &checking_item_counts())
            .unwrap_err()
            .kind(),
        ErrorKind::ItemCount
    );
    let sibling = with_rules(mp().unknown(), n_rules(4));
    assert_eq!(
        dump_with(&p, &sibling, &checking_item_counts())
            .unwrap_err()
            .kind(),
        ErrorKind::ItemCount
    );
}

#[test]
fn unknowns_inside_dynamic_attributes_of_set_blocks_suspend_the_check() {
    // SET blocks never become dynamic; their dynamic attributes carry wrappers.
    let rule = Block::new().attribute("v", Attribute::new(Type::Dynamic));
    let block = Block::new().block("rule", NestedBlock::new(NestingMode::Set, rule).items(2, 0));
    let p = Program::from_block(&block).unwrap();
    let one = |v: Mp| mp().map(1).s("rule").arr(1).map(1).s("v").then(v).done();
    let known = one(mp().dynamic(r#"["list","string"]"#).arr(1).s("x"));
    assert_eq!(
        dump_with(&p, &known, &checking_item_counts())
            .unwrap_err()
            .kind(),
        ErrorKind::ItemCount
    );
    for v in [
        mp().unknown(),
        mp().dynamic("\"string\"").unknown(),
        mp().dynamic(r#"["list","string"]"#).arr(1).unknown(),
        mp().dynamic(r#"["object",{"a":["map","bool"]}]"#)
            .map(1)
            .s("a")
            .map(1)
            .s("k")
            .unknown(),
    ] {
        let input = one(v);
        assert!(
            dump_with(&p, &input, &checking_item_counts()).is_ok(),
            "{input:02x?}"
        );
    }
}

#[test]
fn item_counts_apply_only_to_list_and_set_blocks() {
    for mode in [NestingMode::Single, NestingMode::Group, NestingMode::Map] {
        let p = counted(mode, 1, 1);
        let input = mp().map(2).s("other").nil().s("rule").nil().done();
        assert!(
            dump_with(&p, &input, &checking_item_counts()).is_ok(),
            "{mode:?}"
        );
    }
    // A list-typed attribute of the same shape has no limits.
    let attr = Block::new().attribute("rule", Attribute::new(Type::List(Box::new(Type::String))));
    let p = Program::from_block(&attr).unwrap();
    assert!(dump_with(
        &p,
        &mp().map(1).s("rule").arr(0).done(),
        &checking_item_counts()
    )
    .is_ok());
    // A LIST block that became dynamic (a tuple on the wire) is not counted.
    let dyn_rule = Block::new().attribute("v", Attribute::new(Type::Dynamic));
    let block = Block::new().block(
        "rule",
        NestedBlock::new(NestingMode::List, dyn_rule).items(1, 1),
    );
    let p = Program::from_block(&block).unwrap();
    let input = mp()
        .map(1)
        .s("rule")
        .dynamic(r#"["tuple",[]]"#)
        .arr(0)
        .done();
    assert!(dump_with(&p, &input, &checking_item_counts()).is_ok());
}

#[test]
fn item_counts_value_is_unchanged_by_the_check() {
    let p = counted(NestingMode::Set, 1, 2);
    let input = with_rules(mp().arr(1).s("o"), n_rules(2));
    let a = dump_with(&p, &input, &checking_item_counts()).unwrap();
    let b = dump_with(&p, &input, &DecodeOptions::default()).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        a,
        r#"{"other":["o"],"rule":[{"port":0,"sub":[]},{"port":1,"sub":[]}]}"#
    );
    // Value-level view: a Set of two objects.
    let bump = Bump::new();
    let v = p
        .decode_msgpack_with(&input, &bump, &checking_item_counts())
        .unwrap();
    assert!(matches!(v.attr(&p, "rule"), Some(Value::Set(e)) if e.len() == 2));
}
