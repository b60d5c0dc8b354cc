//! The acceptance test: the corpus's `aws_security_group` and `aws_instance` instances into
//! derived structs, strings borrowed from the state text.

use super::*;

#[derive(Debug, Deserialize)]
struct SecurityGroup<'a> {
    id: &'a str,
    arn: &'a str,
    name: &'a str,
    name_prefix: &'a str,
    description: &'a str,
    owner_id: &'a str,
    vpc_id: &'a str,
    revoke_rules_on_delete: bool,
    #[serde(borrow)]
    tags: Option<BTreeMap<&'a str, &'a str>>,
    #[serde(borrow)]
    tags_all: Option<HashMap<&'a str, &'a str>>,
    #[serde(borrow)]
    ingress: Vec<SgRule<'a>>,
    #[serde(borrow)]
    egress: Vec<SgRule<'a>>,
    #[serde(borrow)]
    timeouts: Option<Timeouts<'a>>,
}

#[derive(Debug, Deserialize)]
struct SgRule<'a> {
    from_port: i64,
    to_port: i64,
    protocol: &'a str,
    description: &'a str,
    #[serde(borrow)]
    cidr_blocks: Vec<&'a str>,
    #[serde(borrow)]
    ipv6_cidr_blocks: Vec<&'a str>,
    #[serde(borrow)]
    prefix_list_ids: Vec<&'a str>,
    #[serde(borrow)]
    security_groups: BTreeSet<&'a str>,
    #[serde(rename = "self")]
    self_: bool,
}

#[derive(Debug, Deserialize)]
struct Timeouts<'a> {
    create: Option<&'a str>,
    delete: Option<&'a str>,
}

#[derive(Debug, Deserialize)]
struct Instance<'a> {
    id: &'a str,
    arn: &'a str,
    ami: &'a str,
    instance_type: &'a str,
    instance_state: &'a str,
    availability_zone: &'a str,
    subnet_id: &'a str,
    private_ip: &'a str,
    public_ip: Option<&'a str>,
    cpu_core_count: u32,
    cpu_threads_per_core: u8,
    ebs_optimized: bool,
    monitoring: bool,
    host_id: Option<&'a str>,
    user_data: Option<&'a str>,
    #[serde(borrow)]
    tags: Option<BTreeMap<&'a str, &'a str>>,
    #[serde(borrow)]
    security_groups: Vec<&'a str>,
    #[serde(borrow)]
    vpc_security_group_ids: BTreeSet<&'a str>,
    #[serde(borrow)]
    root_block_device: Vec<RootBlockDevice<'a>>,
    #[serde(borrow)]
    metadata_options: Vec<MetadataOptions<'a>>,
    #[serde(borrow)]
    credit_specification: Vec<BTreeMap<&'a str, Option<&'a str>>>,
    ebs_block_device: Vec<IgnoredAny>,
    #[serde(borrow)]
    timeouts: Option<Timeouts<'a>>,
}

#[derive(Debug, Deserialize)]
struct RootBlockDevice<'a> {
    device_name: &'a str,
    volume_id: &'a str,
    volume_type: &'a str,
    volume_size: u32,
    iops: u32,
    throughput: Option<u32>,
    encrypted: bool,
    delete_on_termination: bool,
    kms_key_id: &'a str,
}

#[derive(Debug, Deserialize)]
struct MetadataOptions<'a> {
    http_endpoint: &'a str,
    http_put_response_hop_limit: u8,
    http_tokens: &'a str,
}

/// Every non-empty `&str` of `strs` lies inside `text`.
fn assert_borrowed<'a>(text: &str, what: &str, strs: impl IntoIterator<Item = &'a str>) {
    let range = text.as_bytes().as_ptr_range();
    let mut n = 0;
    for s in strs {
        assert!(
            range.contains(&s.as_ptr()),
            "{what}: {s:?} is not borrowed from the state text"
        );
        n += 1;
    }
    assert!(n > 0, "{what}: no strings");
}

/// The issue's acceptance test: every `aws_security_group` and `aws_instance` instance of
/// the corpus's state files into derived structs, strings borrowed from the state text.
#[test]
fn corpus_security_groups_and_instances() {
    const TYPES: [&str; 2] = ["aws_security_group", "aws_instance"];
    let corpus = corpus();
    let mut set = SchemaSet::new();
    let doc = corpus.join("schemas/derived/driftctl-aws-3.62.0.schemas.json");
    set.add_json(&std::fs::read_to_string(doc).unwrap())
        .unwrap();
    // Two of the instances have an attribute the aws 3.62.0 schema does not (a driftctl
    // fixture's deliberate one, and an aws 2.x one): skipped.
    let options = DecodeOptions::default().with_skip_unknown_attributes(true);
    let (mut counted, mut found) = (0, 0);
    let mut seen = Vec::new();
    for path in state_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        // Counted independently, with serde_json.
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        for r in doc["resources"].as_array().into_iter().flatten() {
            if r["mode"] == "managed" && TYPES.iter().any(|t| r["type"] == *t) {
                counted += r["instances"].as_array().map_or(0, Vec::len);
            }
        }
        let state = StateFile::parse(&text).unwrap();
        let bump = Bump::new();
        for item in state.instances() {
            let ty = item.resource.type_name.as_str();
            if item.resource.mode != Mode::Managed || !TYPES.contains(&ty) {
                continue;
            }
            found += 1;
            let what = format!("{file}: {}", item.address());
            let Outcome::Ok(value, m) = set.decode(item, &bump, &options) else {
                panic!("{what}: does not decode");
            };
            let root = m.program.typed(value);
            if ty == "aws_security_group" {
                let sg: SecurityGroup = from_typed(root).unwrap();
                let rules = sg.ingress.iter().chain(&sg.egress);
                let rule_strs = rules.flat_map(|r| {
                    [r.protocol, r.description]
                        .into_iter()
                        .chain(r.cidr_blocks.iter().copied())
                        .chain(r.ipv6_cidr_blocks.iter().copied())
                        .chain(r.prefix_list_ids.iter().copied())
                        .chain(r.security_groups.iter().copied())
                });
                let tags = sg.tags.iter().flat_map(|t| t.iter());
                let tags_all = sg.tags_all.iter().flat_map(|t| t.iter());
                let strs = [
                    sg.id,
                    sg.arn,
                    sg.name,
                    sg.description,
                    sg.owner_id,
                    sg.vpc_id,
                ]
                .into_iter()
                .chain(rule_strs)
                .chain(tags.chain(tags_all).flat_map(|(k, v)| [*k, *v]))
                .filter(|s| !s.is_empty());
                assert_borrowed(&text, &what, strs);
                let ingress: Vec<String> = sg
                    .ingress
                    .iter()
                    .map(|r| {
                        format!(
                            "{}-{}/{} {:?} self={} {:?}",
                            r.from_port,
                            r.to_port,
                            r.protocol,
                            r.cidr_blocks,
                            r.self_,
                            r.description
                        )
                    })
                    .collect();
                assert!(sg
                    .timeouts
                    .is_none_or(|t| t.create.is_none() && t.delete.is_none()));
                assert_eq!(sg.name_prefix, "");
                assert!(!sg.revoke_rules_on_delete);
                assert!(sg.egress.iter().all(|r| r.prefix_list_ids.is_empty()
                    && r.security_groups.is_empty()
                    && r.ipv6_cidr_blocks.len() <= 1));
                seen.push(format!(
                    "{what}: {} {} {:?} ingress {ingress:?} egress {} tags {:?} tags_all {:?} {}",
                    sg.id,
                    sg.name,
                    sg.description,
                    sg.egress.len(),
                    sg.tags,
                    sg.tags_all.map(|t| t.len()),
                    sg.arn
                ));
            } else {
                let i: Instance = from_typed(root).unwrap();
                let devices = i
                    .root_block_device
                    .iter()
                    .flat_map(|d| [d.device_name, d.volume_id, d.volume_type, d.kms_key_id]);
                let meta = i
                    .metadata_options
                    .iter()
                    .flat_map(|m| [m.http_endpoint, m.http_tokens]);
                let strs = [
                    i.id,
                    i.arn,
                    i.ami,
                    i.instance_type,
                    i.instance_state,
                    i.availability_zone,
                    i.subnet_id,
                    i.private_ip,
                ]
                .into_iter()
                .chain(i.public_ip)
                .chain(
                    i.tags
                        .iter()
                        .flat_map(|t| t.iter().flat_map(|(k, v)| [*k, *v])),
                )
                .chain(i.security_groups.iter().copied())
                .chain(i.vpc_security_group_ids.iter().copied())
                .chain(devices)
                .chain(meta)
                .chain(
                    i.credit_specification
                        .iter()
                        .flat_map(|c| c.values().flatten().copied()),
                )
                .filter(|s| !s.is_empty());
                assert_borrowed(&text, &what, strs);
                assert!(i.host_id.is_none() && i.user_data.is_none() && i.timeouts.is_none());
                assert!(i.ebs_block_device.is_empty());
                assert_eq!((i.cpu_core_count, i.cpu_threads_per_core), (1, 2));
                assert!(!i.ebs_optimized && !i.monitoring);
                let rbd: Vec<String> = i
                    .root_block_device
                    .iter()
                    .map(|d| {
                        format!(
                            "{} {} {} {}GiB iops={} throughput={:?} encrypted={} delete={}",
                            d.device_name,
                            d.volume_id,
                            d.volume_type,
                            d.volume_size,
                            d.iops,
                            d.throughput,
                            d.encrypted,
                            d.delete_on_termination
                        )
                    })
                    .collect();
                let md = &i.metadata_options[0];
                seen.push(format!(
                    "{what}: {} {} {} {} {} {} {:?} sg {:?} {:?} root {rbd:?} metadata {}/{}/{} credits {:?} tags {:?}",
                    i.id,
                    i.ami,
                    i.instance_type,
                    i.instance_state,
                    i.availability_zone,
                    i.private_ip,
                    i.public_ip,
                    i.security_groups,
                    i.vpc_security_group_ids,
                    md.http_endpoint,
                    md.http_put_response_hop_limit,
                    md.http_tokens,
                    i.credit_specification,
                    i.tags
                ));
            }
        }
    }
    assert_eq!(
        counted, 5,
        "instances of the two types in the corpus (serde_json)"
    );
    assert_eq!(
        found, counted,
        "instances of the two types tfwire's StateFile found"
    );
    assert_eq!(seen.len(), counted);
    let want = [
        r#"state-test-aws_ec2_instance.tfstate: aws_instance.test: i-0d3650a23f4e45dc0 ami-0697b068b80d79421 t3.nano running eu-west-3b 172.31.22.12 Some("35.180.126.180") sg ["default"] {"sg-9e0204ff"} root ["/dev/xvda vol-081c7272a57a09db1 gp2 8GiB iops=100 throughput=None encrypted=false delete=true"] metadata enabled/1/optional credits [{"cpu_credits": Some("unlimited")}] tags None"#,
        r#"state-test-aws_lb_listener.tfstate: aws_security_group.lb_sg: sg-0d8b60865ca657bb3 allow_tls_lb "Allow TLS inbound traffic" ingress ["443-443/tcp [\"10.100.0.0/16\"] self=false \"TLS from VPC\""] egress 1 tags Some({}) tags_all Some(0) arn:aws:ec2:us-east-1:533948124879:security-group/sg-0d8b60865ca657bb3"#,
        r#"state-test-aws_vpc_security_group.tfstate: aws_security_group.test-sg: sg-0254c038e32f25530 foo "Managed by Terraform" ingress ["0-0/-1 [\"0.0.0.0/0\"] self=false \"Foo\""] egress 1 tags Some({"Name": "Foo SG"}) tags_all None arn:aws:ec2:eu-west-3:047081014315:security-group/sg-0254c038e32f25530"#,
        r#"state-test-unsupported_attribute.tfstate: aws_instance.web: i-002c7d44410fee60e ami-0f8e5edde3a79f541 t3.micro running eu-west-3a 172.31.11.192 Some("15.188.23.233") sg ["default"] {"sg-a74815c8"} root ["/dev/sda1 vol-08b1deab4881e2b00 gp2 8GiB iops=100 throughput=Some(0) encrypted=false delete=true"] metadata enabled/1/optional credits [{"cpu_credits": Some("unlimited")}] tags Some({"Name": "HelloWorld"})"#,
        r#"state-testdata-v4-valid.tfstate: aws_instance.vm: i-07dbbae1c3fc4c194 ami-0aa9ac13698fff547 t3.nano running eu-west-3b 172.31.16.40 Some("15.236.123.61") sg ["default"] {"sg-a74815c8"} root ["/dev/xvda vol-0d30c5228ef04fe70 gp2 8GiB iops=100 throughput=None encrypted=false delete=true"] metadata enabled/1/optional credits [{"cpu_credits": Some("unlimited")}] tags Some({"Name": "DEMO VM DESTROY ME - default", "Terraform": "true"})"#,
    ];
    assert_eq!(seen, want);
}
