//! `tfwire::state` and `tfwire state`: addresses, provider references, the schema set's
//! candidate rules, a hand-made state (tests/data/states/) through the binary with exact
//! output, and every state file of the shared corpus with pinned counts.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bumpalo::Bump;
use tfwire::state::{
    normalize_provider, provider_address, Attributes, IndexKey, Instance, InstanceRef, Mode,
    Outcome, Resource, SchemaSet, StateFile,
};
use tfwire::DecodeOptions;

fn address(
    module: Option<&str>,
    mode: Mode,
    key: Option<IndexKey>,
    deposed: Option<&str>,
) -> String {
    let resource = Resource {
        module: module.map(String::from),
        mode,
        type_name: "aws_instance".into(),
        name: "web".into(),
        provider: String::new(),
        provider_address: String::new(),
        instances: Vec::new(),
    };
    let instance = Instance {
        index_key: key,
        deposed: deposed.map(String::from),
        schema_version: 0,
        attributes: Attributes::Absent,
    };
    InstanceRef {
        resource: &resource,
        instance: &instance,
    }
    .address()
}

#[test]
fn addresses() {
    use IndexKey::{Int, String as Key};
    let (m, d) = (Mode::Managed, Mode::Data);
    assert_eq!(address(None, m, None, None), "aws_instance.web");
    assert_eq!(address(None, m, Some(Int(0)), None), "aws_instance.web[0]");
    assert_eq!(
        address(None, m, Some(Int(-3)), None),
        "aws_instance.web[-3]"
    );
    assert_eq!(address(None, d, None, None), "data.aws_instance.web");
    assert_eq!(
        address(Some("module.x"), m, Some(Int(12)), None),
        "module.x.aws_instance.web[12]"
    );
    assert_eq!(
        address(Some("module.a.module.b"), d, Some(Key("k".into())), None),
        r#"module.a.module.b.data.aws_instance.web["k"]"#
    );
    assert_eq!(
        address(Some(r#"module.a["x"].module.b[1]"#), m, None, None),
        r#"module.a["x"].module.b[1].aws_instance.web"#
    );
    assert_eq!(
        address(None, m, Some(Key("say \"hi\"\\\n\u{1}é".into())), None),
        r#"aws_instance.web["say \"hi\"\\\n\u0001é"]"#
    );
    assert_eq!(
        address(None, m, None, Some("00000001")),
        "aws_instance.web (deposed 00000001)"
    );
    assert_eq!(
        address(Some("module.m"), d, Some(Key(String::new())), Some("ab")),
        r#"module.m.data.aws_instance.web[""] (deposed ab)"#
    );
}

#[test]
fn provider_references() {
    let aws = "registry.terraform.io/hashicorp/aws";
    for r in [
        r#"provider["registry.terraform.io/hashicorp/aws"]"#,
        r#"provider["registry.terraform.io/hashicorp/aws"].west"#,
        r#"module.a.module.b["k.x"].provider["registry.terraform.io/hashicorp/aws"]"#,
        r#"provider["aws"]"#,
        r#"provider["hashicorp/aws"]"#,
        r#"provider["Registry.Terraform.io/HashiCorp/AWS"]"#,
        "provider.aws",
        "provider.aws.west",
        "module.a[0].provider.aws",
    ] {
        assert_eq!(provider_address(r).unwrap(), aws, "{r}");
    }
    assert_eq!(
        provider_address("provider.terraform").unwrap(),
        "terraform.io/builtin/terraform"
    );
    assert_eq!(
        provider_address(r#"provider["registry.opentofu.org/-/null"]"#).unwrap(),
        "registry.opentofu.org/-/null"
    );
    for bad in [
        "",
        "aws",
        "provider",
        "provider.",
        "provider[aws]",
        r#"provider["aws""#,
        r#"provider["aws"]x"#,
        "module.a",
        "module.a.aws",
    ] {
        assert!(provider_address(bad).is_err(), "{bad:?}");
    }
    assert_eq!(
        normalize_provider("integrations/github"),
        "registry.terraform.io/integrations/github"
    );
}

fn doc(provider: &str, attrs: &str) -> String {
    format!(
        r#"{{"format_version":"1.0","provider_schemas":{{"{provider}":{{"resource_schemas":{{
        "thing":{{"version":2,"block":{{"attributes":{attrs}}}}}}},
        "data_source_schemas":{{"thing":{{"block":{{"attributes":{{"d":{{"type":"bool"}}}}}}}}}}}}}}}}"#
    )
}

fn state(provider: &str, instances: &str) -> String {
    format!(
        r#"{{"version":4,"resources":[{{"mode":"managed","type":"thing","name":"t",
        "provider":"{provider}","instances":[{instances}]}}]}}"#
    )
}

fn tfwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tfwire"))
        .args(args)
        .output()
        .unwrap()
}

fn data(name: &str) -> String {
    common::data_dir()
        .join("states")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// stderr with the summary's timing as `seconds=S`.
fn stderr(out: &Output) -> String {
    common::stderr_timeless(out)
}

#[path = "state/cli.rs"]
mod cli;
#[path = "state/corpus.rs"]
mod corpus;
#[path = "state/envelope.rs"]
mod envelope;
