//! The report of `tfwire bench`: a text table per encoding, or JSON, each headed by the CPU
//! and the commit measured.

use super::{Encoding, Row};

fn machine() -> (String, String) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    (cpu, commit)
}

pub(super) fn render_text(rows: &[Row], what: &str) -> String {
    let (cpu, commit) = machine();
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mut out = format!("# tfwire bench ({what}) — commit {commit}, {cpu}, {cores} cores; median MB/s of interleaved rounds; (×N) = tfwire / peer\n");
    for encoding in [Encoding::Msgpack, Encoding::Json] {
        let rows: Vec<&Row> = rows.iter().filter(|r| r.encoding == encoding).collect();
        if rows.is_empty() {
            continue;
        }
        // Every contender of any row, in order of appearance (tfwire first); a row without
        // one (the typed peers outside their workload) shows `—`.
        let mut columns: Vec<&str> = Vec::new();
        for (name, _) in rows.iter().flat_map(|r| &r.results) {
            if !columns.contains(name) {
                columns.push(name);
            }
        }
        out.push_str(&format!(
            "\n## {}\n\n| workload | bytes | arena/input |",
            encoding.name()
        ));
        for name in &columns {
            out.push_str(&format!(" {name} |"));
        }
        out.push_str("\n|---|---:|---:|");
        for _ in &columns {
            out.push_str("---:|");
        }
        out.push('\n');
        for row in rows {
            let ours = row.results.first().and_then(|r| r.1);
            out.push_str(&format!(
                "| {} | {} | {:.2} |",
                row.workload,
                row.bytes,
                row.arena as f64 / row.bytes as f64
            ));
            for (i, name) in columns.iter().enumerate() {
                let result = row.results.iter().find(|(n, _)| n == name).map(|r| r.1);
                match (result, ours) {
                    (Some(Some(m)), Some(o)) if i > 0 => {
                        out.push_str(&format!(" {m:.0} (×{:.2}) |", o / m))
                    }
                    (Some(Some(m)), _) => out.push_str(&format!(" {m:.0} |")),
                    (Some(None), _) => out.push_str(" failed |"),
                    (None, _) => out.push_str(" — |"),
                }
            }
            out.push('\n');
        }
    }
    out
}

pub(super) fn render_json(rows: &[Row], what: &str) -> String {
    let (cpu, commit) = machine();
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let results: serde_json::Map<String, serde_json::Value> =
                r.results.iter().map(|(n, m)| (n.to_string(), m.map_or(serde_json::Value::Null, |m| serde_json::json!(m)))).collect();
            serde_json::json!({"workload": r.workload, "format": r.encoding.name(), "bytes": r.bytes, "arena_bytes": r.arena, "mbps": results})
        })
        .collect();
    let doc = serde_json::json!({"commit": commit, "cpu": cpu, "measures": what, "unit": "MB/s (10^6 bytes/s), median of rounds", "rows": rows});
    format!("{doc:#}\n")
}
