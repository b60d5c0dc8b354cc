//! `SchemaSource::parse` / `select` / `select_block` on small inline schemas: every accepted
//! form, every selector path, the implied-type corner cases, and the exact error messages.

use tfwire::schema::{NestingMode, SchemaSelector, SchemaSource};

fn none() -> SchemaSelector {
    SchemaSelector::default()
}

fn resource(name: &str) -> SchemaSelector {
    SchemaSelector::default().with_resource(Some(name.into()))
}

fn data_source(name: &str) -> SchemaSelector {
    SchemaSelector::default().with_data_source(Some(name.into()))
}

fn provider(p: &str) -> SchemaSelector {
    SchemaSelector::default().with_provider(Some(p.into()))
}

fn with_provider(mut sel: SchemaSelector, p: &str) -> SchemaSelector {
    sel.provider = Some(p.into());
    sel
}

/// The implied type of `json` under `sel`, as compact type JSON.
fn ty_sel(json: &str, sel: &SchemaSelector) -> String {
    let source = SchemaSource::parse(json).unwrap_or_else(|e| panic!("parse {json}: {e}"));
    source
        .select(sel)
        .unwrap_or_else(|e| panic!("select {json}: {e}"))
        .to_string()
}

fn ty(json: &str) -> String {
    ty_sel(json, &none())
}

/// The parse error of `json`.
fn parse_err(json: &str) -> String {
    match SchemaSource::parse(json) {
        Ok(s) => panic!("parse {json} should fail, got {s:?}"),
        Err(e) => e.to_string(),
    }
}

/// The select error of `json` under `sel` (parsing must succeed).
fn select_err(json: &str, sel: &SchemaSelector) -> String {
    let source = SchemaSource::parse(json).unwrap_or_else(|e| panic!("parse {json}: {e}"));
    let err = source.select(sel).expect_err("select should fail");
    let err2 = source
        .select_block(sel)
        .expect_err("select_block should fail");
    assert_eq!(err, err2);
    err.message().to_string()
}

const DOC: &str = r#"{"format_version":"1.0","provider_schemas":{
  "registry.terraform.io/hashicorp/aws":{
    "provider":{"version":0,"block":{"attributes":{"region":{"type":"string","optional":true}}}},
    "resource_schemas":{
      "aws_instance":{"version":1,"block":{"attributes":{"ami":{"type":"string","required":true}}}},
      "shared_thing":{"version":0,"block":{"attributes":{"a":{"type":"number"}}}}},
    "data_source_schemas":{
      "aws_ami":{"version":0,"block":{"attributes":{"id":{"type":"string","computed":true}}}}},
    "ephemeral_resource_schemas":{"x":"anything"},
    "functions":[1,2,3]},
  "registry.terraform.io/hashicorp/google":{
    "provider":{"version":0,"block":{"attributes":{"project":{"type":"string"}}}},
    "resource_schemas":{
      "google_thing":{"version":0,"block":{"block_types":{"b":{"nesting_mode":"list","block":{}}}}},
      "shared_thing":{"version":0,"block":{"attributes":{"g":{"type":"bool"}}}}}},
  "registry.terraform.io/other/aws":{
    "resource_schemas":{"other_thing":{"version":0}}}
}}"#;

const AWS: &str = "registry.terraform.io/hashicorp/aws";

#[test]
fn bare_block() {
    assert_eq!(ty("{}"), r#"["object",{}]"#);
    assert_eq!(ty(r#"{"attributes":{}}"#), r#"["object",{}]"#);
    assert_eq!(ty(r#"{"block_types":{}}"#), r#"["object",{}]"#);
    assert_eq!(
        ty(
            r#"{"attributes":{"b":{"type":"bool"},"a":{"type":["list","string"]}},
              "block_types":{"c":{"nesting_mode":"single","block":{}}},
              "description":"ignored","deprecated":true}"#
        ),
        r#"["object",{"a":["list","string"],"b":"bool","c":["object",{}]}]"#
    );
    assert_eq!(
        ty(r#"{"attributes":null,"block_types":null}"#),
        r#"["object",{}]"#
    );
}

#[test]
fn schema_object() {
    let json = r#"{"version":3,"block":{"attributes":{"id":{"type":"string","computed":true}}}}"#;
    assert_eq!(ty(json), r#"["object",{"id":"string"}]"#);
    assert_eq!(ty(r#"{"version":3,"block":null}"#), r#"["object",{}]"#);
    assert_eq!(ty(r#"{"block":{}}"#), r#"["object",{}]"#);
}

#[test]
fn type_wrapper() {
    assert_eq!(ty(r#"{"type":"dynamic"}"#), r#""dynamic""#);
    assert_eq!(
        ty(r#"{"type":["map",["object",{"z":"number","a":"string"}]]}"#),
        r#"["map",["object",{"a":"string","z":"number"}]]"#
    );
    let source = SchemaSource::parse(r#"{"type":"string"}"#).unwrap();
    assert!(source.select_block(&none()).unwrap().is_none());
}

#[test]
fn document_selectors() {
    // Unique name, no provider.
    assert_eq!(
        ty_sel(DOC, &resource("aws_instance")),
        r#"["object",{"ami":"string"}]"#
    );
    // Narrowed by full and by short address.
    let by_full = with_provider(resource("aws_instance"), AWS);
    assert_eq!(ty_sel(DOC, &by_full), r#"["object",{"ami":"string"}]"#);
    let by_short = with_provider(resource("google_thing"), "google");
    assert_eq!(
        ty_sel(DOC, &by_short),
        r#"["object",{"b":["list",["object",{}]]}]"#
    );
    // Data source, provider config (full and short address), missing block.
    assert_eq!(
        ty_sel(DOC, &data_source("aws_ami")),
        r#"["object",{"id":"string"}]"#
    );
    assert_eq!(
        ty_sel(DOC, &provider(AWS)),
        r#"["object",{"region":"string"}]"#
    );
    assert_eq!(
        ty_sel(DOC, &provider("google")),
        r#"["object",{"project":"string"}]"#
    );
    assert_eq!(ty_sel(DOC, &resource("other_thing")), r#"["object",{}]"#);
    // A name in two providers, narrowed.
    let sel = with_provider(resource("shared_thing"), "google");
    assert_eq!(ty_sel(DOC, &sel), r#"["object",{"g":"bool"}]"#);
    let sel = with_provider(resource("shared_thing"), AWS);
    assert_eq!(ty_sel(DOC, &sel), r#"["object",{"a":"number"}]"#);
}

#[test]
fn document_selector_errors() {
    assert_eq!(
        select_err(DOC, &resource("shared_thing")),
        "resource \"shared_thing\" is in several providers; add --provider \
         (registry.terraform.io/hashicorp/aws, registry.terraform.io/hashicorp/google)"
    );
    assert_eq!(
        select_err(DOC, &resource("nope")),
        "resource \"nope\" not found in the providers-schema document"
    );
    assert_eq!(
        select_err(DOC, &data_source("aws_instance")),
        "data source \"aws_instance\" not found in the providers-schema document"
    );
    assert_eq!(
        select_err(
            DOC,
            &with_provider(resource("google_thing"), "hashicorp/aws")
        ),
        "provider \"hashicorp/aws\" not found (have registry.terraform.io/hashicorp/aws, \
         registry.terraform.io/hashicorp/google, registry.terraform.io/other/aws)"
    );
    assert_eq!(
        select_err(DOC, &with_provider(resource("google_thing"), "aws")),
        "provider \"aws\" is ambiguous (registry.terraform.io/hashicorp/aws, \
         registry.terraform.io/other/aws)"
    );
    assert_eq!(
        select_err(DOC, &with_provider(resource("google_thing"), AWS)),
        "resource \"google_thing\" not found in provider \"registry.terraform.io/hashicorp/aws\""
    );
    assert_eq!(
        select_err(DOC, &provider("registry.terraform.io/other/aws")),
        "provider \"registry.terraform.io/other/aws\" has no provider config schema"
    );
    assert_eq!(
        select_err(DOC, &none()),
        "a providers-schema document needs --resource NAME, --data-source NAME or --provider \
         PROVIDER"
    );
    let both = SchemaSelector::default()
        .with_resource(Some("a".into()))
        .with_data_source(Some("b".into()))
        .with_provider(None);
    assert_eq!(
        select_err(DOC, &both),
        "give at most one of --resource and --data-source"
    );
    let need_doc = "--resource/--data-source/--provider need a providers-schema document \
                    (with \"provider_schemas\")";
    assert_eq!(select_err("{}", &resource("x")), need_doc);
    assert_eq!(
        select_err(r#"{"type":"string"}"#, &data_source("x")),
        need_doc
    );
    assert_eq!(
        select_err(r#"{"version":0,"block":{}}"#, &provider("aws")),
        need_doc
    );
}

#[test]
fn document_model() {
    let SchemaSource::Document(doc) = SchemaSource::parse(DOC).unwrap() else {
        panic!("not a document");
    };
    assert_eq!(doc.format_version.as_deref(), Some("1.0"));
    assert_eq!(doc.providers.len(), 3);
    let aws = doc.provider(AWS).unwrap();
    assert_eq!(aws.resources.len(), 2);
    assert_eq!(aws.data_sources.len(), 1);
    assert_eq!(doc.resource(AWS, "aws_instance").unwrap().version, 1);
    assert!(doc.data_source(AWS, "aws_ami").is_some());
    assert!(doc.resource("aws", "aws_instance").is_none());
    assert_eq!(
        doc.find_provider("google").unwrap().0,
        "registry.terraform.io/hashicorp/google"
    );
    assert_eq!(doc.find_provider(AWS).unwrap().0, AWS);
    // format_version may be absent; null providers and entries are left out.
    let text = r#"{"provider_schemas":{"a":null,"b":{"resource_schemas":{"r":null}}}}"#;
    let SchemaSource::Document(doc) = SchemaSource::parse(text).unwrap() else {
        panic!("not a document");
    };
    assert_eq!(doc.format_version, None);
    assert_eq!(doc.providers.keys().collect::<Vec<_>>(), ["b"]);
    assert!(doc.provider("b").unwrap().resources.is_empty());
    assert_eq!(
        select_err(r#"{"provider_schemas":null}"#, &provider("x")),
        "provider \"x\" not found (have )"
    );
}

#[test]
fn select_block_keeps_item_limits() {
    let json = r#"{"block_types":{"rule":{"nesting_mode":"list","min_items":1,"max_items":3,
                   "block":{"attributes":{"port":{"type":"number"}}}}}}"#;
    let source = SchemaSource::parse(json).unwrap();
    let block = source.select_block(&none()).unwrap().unwrap();
    let (name, nested) = &block.block_types[0];
    assert_eq!(name, "rule");
    assert_eq!(nested.nesting, Some(NestingMode::List));
    assert_eq!((nested.min_items, nested.max_items), (1, 3));
    let source = SchemaSource::parse(DOC).unwrap();
    let block = source
        .select_block(&resource("aws_instance"))
        .unwrap()
        .unwrap();
    assert_eq!(block.attributes[0].0, "ami");
    assert!(block.attributes[0].1.required);
}

fn nested(mode: &str) -> String {
    ty(&format!(
        r#"{{"attributes":{{"n":{{"nested_type":{{"nesting_mode":"{mode}","attributes":{{
            "d":{{"type":"dynamic","optional":true}},"s":{{"type":"string","computed":true}},
            "r":{{"type":"number","required":true}}}}}}}}}}}}"#
    ))
}

#[test]
fn nested_type_modes() {
    let obj = r#"["object",{"d":"dynamic","r":"number","s":"string"}]"#;
    assert_eq!(nested("single"), format!(r#"["object",{{"n":{obj}}}]"#));
    assert_eq!(nested("group"), format!(r#"["object",{{"n":{obj}}}]"#));
    // No switch to dynamic for nested attributes, even with a dynamic inside.
    assert_eq!(
        nested("list"),
        format!(r#"["object",{{"n":["list",{obj}]}}]"#)
    );
    assert_eq!(
        nested("set"),
        format!(r#"["object",{{"n":["set",{obj}]}}]"#)
    );
    assert_eq!(
        nested("map"),
        format!(r#"["object",{{"n":["map",{obj}]}}]"#)
    );
    assert_eq!(nested("invalid"), r#"["object",{"n":["object",{}]}]"#);
    assert_eq!(
        ty(r#"{"attributes":{"n":{"nested_type":{"attributes":{"a":{"type":"bool"}}}}}}"#),
        r#"["object",{"n":["object",{}]}]"#
    );
    assert_eq!(
        ty(r#"{"attributes":{"n":{"type":null,"nested_type":{"nesting_mode":"list"}}}}"#),
        r#"["object",{"n":["list",["object",{}]]}]"#
    );
    // Optional markers in an attribute's own type are stripped too.
    assert_eq!(
        ty(r#"{"attributes":{"o":{"type":["list",["object",{"a":"string"},["a"]]]}}}"#),
        r#"["object",{"o":["list",["object",{"a":"string"}]]}]"#
    );
}

fn blocks(mode: &str, inner: &str) -> String {
    ty(&format!(
        r#"{{"block_types":{{"b":{{"nesting_mode":"{mode}","block":{inner}}}}}}}"#
    ))
}

#[test]
fn block_nesting_modes() {
    let plain = r#"{"attributes":{"x":{"type":"string"}}}"#;
    assert_eq!(
        blocks("single", plain),
        r#"["object",{"b":["object",{"x":"string"}]}]"#
    );
    assert_eq!(
        blocks("group", plain),
        r#"["object",{"b":["object",{"x":"string"}]}]"#
    );
    assert_eq!(
        blocks("list", plain),
        r#"["object",{"b":["list",["object",{"x":"string"}]]}]"#
    );
    assert_eq!(
        blocks("set", plain),
        r#"["object",{"b":["set",["object",{"x":"string"}]]}]"#
    );
    assert_eq!(
        blocks("map", plain),
        r#"["object",{"b":["map",["object",{"x":"string"}]]}]"#
    );
    assert_eq!(
        blocks("list", "null"),
        r#"["object",{"b":["list",["object",{}]]}]"#
    );
    assert_eq!(
        ty(r#"{"block_types":{"b":{"nesting_mode":"single"}}}"#),
        r#"["object",{"b":["object",{}]}]"#
    );
}

#[test]
fn dynamic_inside_blocks() {
    let dynamic = r#"{"attributes":{"v":{"type":["map","dynamic"]}}}"#;
    assert_eq!(blocks("list", dynamic), r#"["object",{"b":"dynamic"}]"#);
    assert_eq!(blocks("map", dynamic), r#"["object",{"b":"dynamic"}]"#);
    assert_eq!(
        blocks("set", dynamic),
        r#"["object",{"b":["set",["object",{"v":["map","dynamic"]}]]}]"#
    );
    assert_eq!(
        blocks("single", dynamic),
        r#"["object",{"b":["object",{"v":["map","dynamic"]}]}]"#
    );
    // A dynamic inside a nested attribute, and in a grandchild block, count too.
    let in_nested = r#"{"attributes":{"n":{"nested_type":{"nesting_mode":"list",
                        "attributes":{"d":{"type":"dynamic"}}}}}}"#;
    assert_eq!(blocks("list", in_nested), r#"["object",{"b":"dynamic"}]"#);
    let grandchild =
        format!(r#"{{"block_types":{{"c":{{"nesting_mode":"list","block":{dynamic}}}}}}}"#);
    assert_eq!(blocks("map", &grandchild), r#"["object",{"b":"dynamic"}]"#);
    assert_eq!(
        blocks("single", &grandchild),
        r#"["object",{"b":["object",{"c":"dynamic"}]}]"#
    );
}

#[test]
fn dropped_block_types() {
    // Unknown, missing and null nesting modes drop the block type.
    for mode in [
        r#""nesting_mode":"invalid","#,
        "",
        r#""nesting_mode":null,"#,
    ] {
        let json = format!(
            r#"{{"attributes":{{"a":{{"type":"bool"}}}},"block_types":{{"b":{{{mode}"block":{{}}}}}}}}"#
        );
        assert_eq!(ty(&json), r#"["object",{"a":"bool"}]"#, "{json}");
    }
    // A block type named like an attribute is ignored (it may be null, but not malformed).
    for body in [
        r#"{"nesting_mode":"list","block":{}}"#,
        "null",
        r#"{"nesting_mode":"x"}"#,
    ] {
        let json =
            format!(r#"{{"attributes":{{"a":{{"type":"bool"}}}},"block_types":{{"a":{body}}}}}"#);
        assert_eq!(ty(&json), r#"["object",{"a":"bool"}]"#, "{json}");
        let block = SchemaSource::parse(&json).unwrap();
        assert!(block
            .select_block(&none())
            .unwrap()
            .unwrap()
            .block_types
            .is_empty());
    }
}

#[test]
fn malformed_inputs() {
    let cases: &[(&str, &str)] = &[
        (
            "",
            "at byte 0: schema is not valid JSON: EOF while parsing a value",
        ),
        (
            "{",
            "at byte 1: schema is not valid JSON: EOF while parsing an object",
        ),
        (
            "{} x",
            "at byte 3: schema is not valid JSON: trailing characters",
        ),
        ("[]", "schema JSON must be an object, found an array"),
        ("null", "schema JSON must be an object, found null"),
        (
            r#"{"type":"string","x":1}"#,
            r#"a {"type": T} wrapper must have no other keys"#,
        ),
        (
            r#"{"type":["lst","string"]}"#,
            r#"invalid type constraint JSON ["lst","string"]: invalid complex type kind name "lst""#,
        ),
        (
            r#"{"type":null}"#,
            "invalid type constraint JSON null: invalid type description",
        ),
        (
            r#"{"attributes":[]}"#,
            "attributes: expected an object, found an array",
        ),
        (
            r#"{"block_types":"x"}"#,
            "block_types: expected an object, found a string",
        ),
        (
            r#"{"attributes":{"a":null}}"#,
            r#"at attribute "a": expected an object, found null"#,
        ),
        (
            r#"{"attributes":{"a":{}}}"#,
            r#"at attribute "a": neither type nor nested_type is set"#,
        ),
        (
            r#"{"attributes":{"a":{"type":"string","nested_type":{}}}}"#,
            r#"at attribute "a": both type and nested_type are set"#,
        ),
        (
            r#"{"attributes":{"a":{"type":"str"}}}"#,
            r#"at attribute "a": invalid type "str": invalid primitive type name "str""#,
        ),
        (
            r#"{"attributes":{"a":{"type":"string","required":"yes"}}}"#,
            r#"at attribute "a": required: expected a boolean, found a string"#,
        ),
        (
            r#"{"attributes":{"a":{"type":"string","computed":1}}}"#,
            r#"at attribute "a": computed: expected a boolean, found 1"#,
        ),
        (
            r#"{"attributes":{"a":{"nested_type":[]}}}"#,
            r#"at attribute "a": nested_type: expected an object, found an array"#,
        ),
        (
            r#"{"attributes":{"a":{"nested_type":{"nesting_mode":1}}}}"#,
            r#"at attribute "a", nested_type: nesting_mode: expected a string, found 1"#,
        ),
        (
            r#"{"attributes":{"a":{"nested_type":{"attributes":{"b":{"type":["list"]}}}}}}"#,
            r#"at attribute "a", nested_type, attribute "b": invalid type ["list"]: type description "list" lacks its argument"#,
        ),
        (
            r#"{"block_types":{"b":null}}"#,
            r#"at block type "b": expected an object, found null"#,
        ),
        (
            r#"{"attributes":{"a":{"type":"bool"}},"block_types":{"a":7}}"#,
            r#"at block type "a": expected an object, found 7"#,
        ),
        (
            r#"{"block_types":{"b":{"nesting_mode":"list","block":[]}}}"#,
            r#"at block type "b": block: expected an object, found an array"#,
        ),
        (
            r#"{"block_types":{"b":{"nesting_mode":true}}}"#,
            r#"at block type "b": nesting_mode: expected a string, found a boolean"#,
        ),
        (
            r#"{"block_types":{"b":{"nesting_mode":"list","min_items":-1}}}"#,
            r#"at block type "b": min_items: expected a non-negative integer, found -1"#,
        ),
        (
            r#"{"block_types":{"b":{"nesting_mode":"list","max_items":1.5}}}"#,
            r#"at block type "b": max_items: expected a non-negative integer, found 1.5"#,
        ),
        (
            r#"{"block_types":{"b":{"nesting_mode":"list","block":{"block_types":{"c":{"block":{"attributes":{"x":{}}}}}}}}}"#,
            r#"at block type "b", block type "c", attribute "x": neither type nor nested_type is set"#,
        ),
        (
            r#"{"version":"1","block":{}}"#,
            "version: expected an integer, found a string",
        ),
        (r#"{"block":7}"#, "block: expected an object, found 7"),
        (
            r#"{"provider_schemas":[]}"#,
            "provider_schemas: expected an object, found an array",
        ),
        (
            r#"{"format_version":1,"provider_schemas":{}}"#,
            "format_version: expected a string, found 1",
        ),
        (
            r#"{"provider_schemas":{"p":"x"}}"#,
            r#"at provider "p": expected an object, found a string"#,
        ),
        (
            r#"{"provider_schemas":{"p":{"resource_schemas":[]}}}"#,
            r#"at provider "p": resource_schemas: expected an object, found an array"#,
        ),
        (
            r#"{"provider_schemas":{"p":{"data_source_schemas":{"d":[]}}}}"#,
            r#"at provider "p", data source "d": expected an object, found an array"#,
        ),
        (
            r#"{"provider_schemas":{"p":{"provider":true}}}"#,
            r#"at provider "p": provider: expected an object, found a boolean"#,
        ),
        (
            r#"{"provider_schemas":{"p":{"provider":{"block":{"attributes":{"x":{}}}}}}}"#,
            r#"at provider "p", provider config, attribute "x": neither type nor nested_type is set"#,
        ),
        (
            r#"{"provider_schemas":{"registry.terraform.io/hashicorp/aws":{"resource_schemas":{
                "aws_instance":{"version":0,"block":{"attributes":{"tags":{"type":["lst","string"]}}}}}}}}"#,
            r#"at provider "registry.terraform.io/hashicorp/aws", resource "aws_instance", attribute "tags": invalid type ["lst","string"]: invalid complex type kind name "lst""#,
        ),
        (
            r#"{"provider_schemas":{"p":{"resource_schemas":{"r":{"version":-1.5}}}}}"#,
            r#"at provider "p", resource "r": version: expected an integer, found -1.5"#,
        ),
    ];
    for (json, want) in cases {
        assert_eq!(parse_err(json), *want, "input: {json}");
    }
}

/// A bare block with `levels` blocks nested one inside the other, the innermost with one
/// attribute.
fn nested_blocks(levels: usize) -> String {
    let mut json = r#"{"attributes":{"a":{"type":"string","optional":true}}}"#.to_string();
    for _ in 0..levels {
        json = format!(r#"{{"block_types":{{"b":{{"nesting_mode":"single","block":{json}}}}}}}"#);
    }
    json
}

/// The loader recurses once per nested block, under its own cap (`MAX_SCHEMA_DEPTH`), on a
/// 1 MiB stack in debug and release builds; one level more is an error naming the place.
#[test]
fn nested_blocks_at_the_cap_and_past_it() {
    let result = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let at_cap = nested_blocks(tfwire::MAX_SCHEMA_DEPTH);
            let want = format!(
                "{}[\"object\",{{\"a\":\"string\"}}]{}",
                r#"["object",{"b":"#.repeat(tfwire::MAX_SCHEMA_DEPTH),
                "}]".repeat(tfwire::MAX_SCHEMA_DEPTH)
            );
            assert_eq!(ty(&at_cap), want);
            parse_err(&nested_blocks(tfwire::MAX_SCHEMA_DEPTH + 1))
        })
        .unwrap()
        .join()
        .unwrap();
    let path = vec![r#"block type "b""#; tfwire::MAX_SCHEMA_DEPTH + 1].join(", ");
    assert_eq!(
        result,
        format!("at {path}: blocks and nested types nested deeper than 32 levels")
    );
}
