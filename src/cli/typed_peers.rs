//! The typed peers: what a Rust author who knows one resource type at compile time would write.
//! `#[derive(Deserialize)]` structs of `aws_instance` (every attribute and block of the schema
//! of the `aws_instance` workload, `perf/workloads/aws_instance/schema.json`: driftctl's aws
//! 3.62.0), read by serde_json, sonic-rs (JSON) and rmp-serde (MessagePack) from the same bytes
//! tfwire decodes.
//!
//! Types, as such an author would pick them: every attribute `Option` (any cty value may be
//! null), strings [`Str`] (borrowed from the input unless JSON escapes force a copy), numbers
//! `i64` (every number attribute of aws_instance is an integer in the provider), sets and lists
//! `Vec`, maps `BTreeMap`, list and set blocks `Option<Vec<Block>>` (state files leave absent
//! blocks null), the single block `timeouts` `Option<Timeouts>`. Unknown keys are ignored
//! (serde's default), so the peers check less than tfwire: no unknown or missing attribute, no
//! duplicate key, no set deduplication, no cty number range beyond i64. Their decode includes
//! dropping the result, as it does for the untyped peers.
//!
//! Shared by `src/cli/bench.rs` and the criterion benches `benches/json.rs` and
//! `benches/msgpack.rs` (`#[path]`). [`check`] compares a typed result with the input's untyped
//! tree, so that a wrong typed decode is never timed.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, Error, Visitor};
use serde::{Deserialize, Serialize};

/// The workload the typed peers decode (`perf/workloads/aws_instance`).
pub const WORKLOAD: &str = "aws_instance";

/// A string borrowed from the input, or owned when the input escapes it (JSON `\n`, `\"`, …).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(StrVisitor)
    }
}

/// A `map(string)` attribute.
pub type Tags<'a> = BTreeMap<Str<'a>, Str<'a>>;

/// The workload's value: the schema's one list block, `aws_instance`.
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct Root<'a> {
    #[serde(borrow)]
    pub aws_instance: Option<Vec<AwsInstance<'a>>>,
}

/// One `aws_instance` (aws provider 3.62.0 schema): 39 attributes, 10 nested block types.
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct AwsInstance<'a> {
    #[serde(borrow)]
    pub ami: Option<Str<'a>>,
    #[serde(borrow)]
    pub arn: Option<Str<'a>>,
    pub associate_public_ip_address: Option<bool>,
    #[serde(borrow)]
    pub availability_zone: Option<Str<'a>>,
    #[serde(borrow)]
    pub capacity_reservation_specification: Option<Vec<CapacityReservationSpecification<'a>>>,
    pub cpu_core_count: Option<i64>,
    pub cpu_threads_per_core: Option<i64>,
    #[serde(borrow)]
    pub credit_specification: Option<Vec<CreditSpecification<'a>>>,
    pub disable_api_termination: Option<bool>,
    #[serde(borrow)]
    pub ebs_block_device: Option<Vec<EbsBlockDevice<'a>>>,
    pub ebs_optimized: Option<bool>,
    pub enclave_options: Option<Vec<EnclaveOptions>>,
    #[serde(borrow)]
    pub ephemeral_block_device: Option<Vec<EphemeralBlockDevice<'a>>>,
    pub get_password_data: Option<bool>,
    pub hibernation: Option<bool>,
    #[serde(borrow)]
    pub host_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub iam_instance_profile: Option<Str<'a>>,
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
    #[serde(borrow)]
    pub instance_initiated_shutdown_behavior: Option<Str<'a>>,
    #[serde(borrow)]
    pub instance_state: Option<Str<'a>>,
    #[serde(borrow)]
    pub instance_type: Option<Str<'a>>,
    pub ipv6_address_count: Option<i64>,
    #[serde(borrow)]
    pub ipv6_addresses: Option<Vec<Str<'a>>>,
    #[serde(borrow)]
    pub key_name: Option<Str<'a>>,
    #[serde(borrow)]
    pub launch_template: Option<Vec<LaunchTemplate<'a>>>,
    #[serde(borrow)]
    pub metadata_options: Option<Vec<MetadataOptions<'a>>>,
    pub monitoring: Option<bool>,
    #[serde(borrow)]
    pub network_interface: Option<Vec<NetworkInterface<'a>>>,
    #[serde(borrow)]
    pub outpost_arn: Option<Str<'a>>,
    #[serde(borrow)]
    pub password_data: Option<Str<'a>>,
    #[serde(borrow)]
    pub placement_group: Option<Str<'a>>,
    #[serde(borrow)]
    pub primary_network_interface_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub private_dns: Option<Str<'a>>,
    #[serde(borrow)]
    pub private_ip: Option<Str<'a>>,
    #[serde(borrow)]
    pub public_dns: Option<Str<'a>>,
    #[serde(borrow)]
    pub public_ip: Option<Str<'a>>,
    #[serde(borrow)]
    pub root_block_device: Option<Vec<RootBlockDevice<'a>>>,
    #[serde(borrow)]
    pub secondary_private_ips: Option<Vec<Str<'a>>>,
    #[serde(borrow)]
    pub security_groups: Option<Vec<Str<'a>>>,
    pub source_dest_check: Option<bool>,
    #[serde(borrow)]
    pub subnet_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub tags: Option<Tags<'a>>,
    #[serde(borrow)]
    pub tags_all: Option<Tags<'a>>,
    #[serde(borrow)]
    pub tenancy: Option<Str<'a>>,
    #[serde(borrow)]
    pub timeouts: Option<Timeouts<'a>>,
    #[serde(borrow)]
    pub user_data: Option<Str<'a>>,
    #[serde(borrow)]
    pub user_data_base64: Option<Str<'a>>,
    #[serde(borrow)]
    pub volume_tags: Option<Tags<'a>>,
    #[serde(borrow)]
    pub vpc_security_group_ids: Option<Vec<Str<'a>>>,
}

/// Block `capacity_reservation_specification` (list, at most 1).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct CapacityReservationSpecification<'a> {
    #[serde(borrow)]
    pub capacity_reservation_preference: Option<Str<'a>>,
    #[serde(borrow)]
    pub capacity_reservation_target: Option<Vec<CapacityReservationTarget<'a>>>,
}

/// Block `capacity_reservation_specification.capacity_reservation_target` (list, at most 1).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct CapacityReservationTarget<'a> {
    #[serde(borrow)]
    pub capacity_reservation_id: Option<Str<'a>>,
}

/// Block `credit_specification` (list, at most 1).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct CreditSpecification<'a> {
    #[serde(borrow)]
    pub cpu_credits: Option<Str<'a>>,
}

/// Block `ebs_block_device` (set).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct EbsBlockDevice<'a> {
    pub delete_on_termination: Option<bool>,
    #[serde(borrow)]
    pub device_name: Option<Str<'a>>,
    pub encrypted: Option<bool>,
    pub iops: Option<i64>,
    #[serde(borrow)]
    pub kms_key_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub snapshot_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub tags: Option<Tags<'a>>,
    pub throughput: Option<i64>,
    #[serde(borrow)]
    pub volume_id: Option<Str<'a>>,
    pub volume_size: Option<i64>,
    #[serde(borrow)]
    pub volume_type: Option<Str<'a>>,
}

/// Block `enclave_options` (list, at most 1).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct EnclaveOptions {
    pub enabled: Option<bool>,
}

/// Block `ephemeral_block_device` (set).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct EphemeralBlockDevice<'a> {
    #[serde(borrow)]
    pub device_name: Option<Str<'a>>,
    pub no_device: Option<bool>,
    #[serde(borrow)]
    pub virtual_name: Option<Str<'a>>,
}

/// Block `launch_template` (list, at most 1).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct LaunchTemplate<'a> {
    #[serde(borrow)]
    pub id: Option<Str<'a>>,
    #[serde(borrow)]
    pub name: Option<Str<'a>>,
    #[serde(borrow)]
    pub version: Option<Str<'a>>,
}

/// Block `metadata_options` (list, at most 1).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct MetadataOptions<'a> {
    #[serde(borrow)]
    pub http_endpoint: Option<Str<'a>>,
    pub http_put_response_hop_limit: Option<i64>,
    #[serde(borrow)]
    pub http_tokens: Option<Str<'a>>,
}

/// Block `network_interface` (set).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct NetworkInterface<'a> {
    pub delete_on_termination: Option<bool>,
    pub device_index: Option<i64>,
    #[serde(borrow)]
    pub network_interface_id: Option<Str<'a>>,
}

/// Block `root_block_device` (list, at most 1).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct RootBlockDevice<'a> {
    pub delete_on_termination: Option<bool>,
    #[serde(borrow)]
    pub device_name: Option<Str<'a>>,
    pub encrypted: Option<bool>,
    pub iops: Option<i64>,
    #[serde(borrow)]
    pub kms_key_id: Option<Str<'a>>,
    #[serde(borrow)]
    pub tags: Option<Tags<'a>>,
    pub throughput: Option<i64>,
    #[serde(borrow)]
    pub volume_id: Option<Str<'a>>,
    pub volume_size: Option<i64>,
    #[serde(borrow)]
    pub volume_type: Option<Str<'a>>,
}

/// Block `timeouts` (single).
#[derive(Debug, PartialEq, Deserialize, Serialize)]
pub struct Timeouts<'a> {
    #[serde(borrow)]
    pub create: Option<Str<'a>>,
    #[serde(borrow)]
    pub delete: Option<Str<'a>>,
    #[serde(borrow)]
    pub update: Option<Str<'a>>,
}

/// JSON into the typed struct with serde_json.
pub fn serde_json(input: &[u8]) -> Result<Root<'_>, String> {
    serde_json::from_slice(input).map_err(|e| format!("serde_json: {e}"))
}

/// JSON into the typed struct with sonic-rs.
pub fn sonic_rs(input: &[u8]) -> Result<Root<'_>, String> {
    sonic_rs::from_slice(input).map_err(|e| format!("sonic_rs: {e}"))
}

/// MessagePack into the typed struct with rmp-serde.
pub fn rmp_serde(input: &[u8]) -> Result<Root<'_>, String> {
    rmp_serde::from_slice(input).map_err(|e| format!("rmp_serde: {e}"))
}

/// The input as an untyped tree (serde_json `Value`; MessagePack through rmpv), to check a
/// typed result against.
pub fn untyped(input: &[u8], msgpack: bool) -> Result<serde_json::Value, String> {
    if msgpack {
        let mut rd = input;
        let v = rmpv::decode::read_value(&mut rd).map_err(|e| format!("rmpv: {e}"))?;
        serde_json::to_value(&v).map_err(|e| format!("rmpv to JSON: {e}"))
    } else {
        serde_json::from_slice(input).map_err(|e| format!("serde_json Value: {e}"))
    }
}

/// Checks that `typed`, written back as a tree, equals `untyped` (the input's own tree): every
/// attribute of the schema present with the same value, nothing left out or added. Errors name
/// the first differing path.
pub fn check(typed: &Root<'_>, untyped: &serde_json::Value) -> Result<(), String> {
    let written = serde_json::to_value(typed).map_err(|e| format!("writing back: {e}"))?;
    first_difference(&written, untyped, &mut String::new())
}

fn first_difference(
    a: &serde_json::Value,
    b: &serde_json::Value,
    path: &mut String,
) -> Result<(), String> {
    use serde_json::Value;
    fn here(path: &str, what: &str) -> Result<(), String> {
        let at = if path.is_empty() { "(root)" } else { path };
        Err(format!(
            "typed decode differs from the input at {at}: {what}"
        ))
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let Some(w) = y.get(k) else {
                    return here(path, &format!("attribute {k:?} not in the input"));
                };
                let len = path.len();
                path.push('.');
                path.push_str(k);
                first_difference(v, w, path)?;
                path.truncate(len);
            }
            match y.keys().find(|k| !x.contains_key(*k)) {
                Some(k) => here(path, &format!("attribute {k:?} of the input not decoded")),
                None => Ok(()),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return here(
                    path,
                    &format!("{} elements, the input has {}", x.len(), y.len()),
                );
            }
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                first_difference(v, w, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        (x, y) if x == y => Ok(()),
        (x, y) => here(path, &format!("{x} against the input's {y}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(file: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("perf/workloads")
            .join(WORKLOAD)
            .join(file);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn every_peer_decodes_the_workload_as_its_untyped_tree() {
        let json = workload("value.json");
        let msgpack = workload("value.msgpack");
        let untyped_json = untyped(&json, false).unwrap();
        let untyped_msgpack = untyped(&msgpack, true).unwrap();
        assert_eq!(untyped_json, untyped_msgpack);
        for typed in [serde_json(&json), sonic_rs(&json), rmp_serde(&msgpack)] {
            let typed = typed.unwrap();
            check(&typed, &untyped_json).unwrap();
            let instances = typed.aws_instance.as_ref().unwrap();
            assert_eq!(instances.len(), 711);
            // Zero-copy: the workload has no escaped strings.
            assert!(matches!(instances[0].id, Some(Str(Cow::Borrowed(_)))));
        }
    }

    #[test]
    fn check_names_the_first_difference() {
        let json = workload("value.json");
        let untyped = untyped(&json, false).unwrap();
        let mut typed = serde_json(&json).unwrap();
        typed.aws_instance.as_mut().unwrap()[2].cpu_core_count = Some(99);
        let err = check(&typed, &untyped).unwrap_err();
        assert!(err.contains(".aws_instance[2].cpu_core_count"), "{err}");
        typed.aws_instance.as_mut().unwrap().pop();
        let err = check(&typed, &untyped).unwrap_err();
        assert!(err.contains("710 elements, the input has 711"), "{err}");
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        let s: Str<'_> = ::serde_json::from_str(r#""abc""#).unwrap();
        assert!(matches!(s.0, Cow::Borrowed("abc")));
        let s: Str<'_> = ::serde_json::from_str(r#""a\nb""#).unwrap();
        assert!(matches!(s.0, Cow::Owned(ref o) if o == "a\nb"));
        let s: Str<'_> = ::sonic_rs::from_str(r#""a\"b""#).unwrap();
        assert_eq!(s.0, "a\"b");
    }
}
