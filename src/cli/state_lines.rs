//! The lines `tfwire state` prints for an instance: `--format text` (the address and the
//! outcome, with `--dump` the DUMP after it) and `--format ndjson` (one JSON object).

use std::fmt::Write as _;

use tfwire::state::{IndexKey, InstanceRef, Mode, Outcome};

/// The DUMP of a value that `program` decoded. That cannot fail (such a value is of the
/// program's type and within `MAX_VALUE_DEPTH`); were it to, the value shows as `null`.
#[inline]
fn dump_decoded(out: &mut String, program: &tfwire::Program, value: tfwire::Value<'_>) {
    let mark = out.len();
    if tfwire::dump::write(out, program, value).is_err() {
        out.truncate(mark);
        out.push_str("null");
    }
}

/// The text line of an instance (and its DUMP after it, with `--dump`), each after `prefix`
/// and newline-terminated.
pub(super) fn text_lines(
    out: &mut String,
    prefix: &str,
    item: &InstanceRef<'_, '_>,
    outcome: &Outcome<'_>,
    dump: bool,
) {
    out.push_str(prefix);
    item.write_address(out);
    out.push('\t');
    match outcome {
        Outcome::Ok(value, m) => {
            out.push_str("ok\n");
            if dump {
                out.push_str(prefix);
                dump_decoded(out, m.program, *value);
                out.push('\n');
            }
        }
        Outcome::Dumped(text, _) => {
            out.push_str("ok\n");
            if dump {
                out.push_str(prefix);
                out.push_str(text);
                out.push('\n');
            }
        }
        Outcome::Error(e, _) => {
            let _ = writeln!(out, "error {e}");
        }
        Outcome::NoSchema => out.push_str("no schema\n"),
        Outcome::Legacy => {
            out.push_str("no schema (legacy flatmap attributes are not supported)\n")
        }
    }
}

/// The NDJSON object of an instance, newline-terminated: the keys in the documented order
/// (`file` is given as JSON).
pub(super) fn ndjson_line(
    out: &mut String,
    address: &mut String,
    file: &str,
    item: &InstanceRef<'_, '_>,
    outcome: &Outcome<'_>,
) {
    let r = item.resource;
    out.push_str("{\"file\":");
    out.push_str(file);
    out.push_str(",\"address\":");
    address.clear();
    item.write_address(address);
    push_json_string(out, address);
    out.push_str(match r.mode {
        Mode::Managed => ",\"mode\":\"managed\",\"type\":",
        Mode::Data => ",\"mode\":\"data\",\"type\":",
    });
    push_json_string(out, &r.type_name);
    out.push_str(",\"name\":");
    push_json_string(out, &r.name);
    out.push_str(",\"module\":");
    push_opt_json_string(out, r.module.as_deref());
    out.push_str(",\"index_key\":");
    match &item.instance.index_key {
        Some(IndexKey::Int(i)) => {
            let _ = write!(out, "{i}");
        }
        Some(IndexKey::String(s)) => push_json_string(out, s),
        None => out.push_str("null"),
    }
    out.push_str(",\"deposed\":");
    push_opt_json_string(out, item.instance.deposed.as_deref());
    out.push_str(",\"provider\":");
    push_json_string(out, &r.provider_address);
    match outcome {
        Outcome::Ok(value, m) => {
            out.push_str(",\"status\":\"ok\",\"value\":");
            dump_decoded(out, m.program, *value);
        }
        Outcome::Dumped(text, _) => {
            out.push_str(",\"status\":\"ok\",\"value\":");
            out.push_str(text);
        }
        Outcome::Error(e, _) => {
            out.push_str(",\"status\":\"error\",\"error\":{\"path\":");
            push_json_string(out, e.display_path());
            let offset = e.offset().unwrap_or_default();
            let _ = write!(out, ",\"offset\":{offset},\"message\":");
            push_json_string(out, e.message());
            out.push('}');
        }
        Outcome::NoSchema | Outcome::Legacy => out.push_str(",\"status\":\"no_schema\""),
    }
    out.push_str("}\n");
}

/// `s` as a JSON string (serde_json's escaping).
pub(super) fn json_string(s: &str) -> String {
    let mut out = String::new();
    push_json_string(&mut out, s);
    out
}

fn push_json_string(out: &mut String, s: &str) {
    tfwire::dump::write_string(out, s);
}

fn push_opt_json_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_json_string(out, s),
        None => out.push_str("null"),
    }
}
