//! Replays every input of `tests/regressions/` through the checks of the fuzz target that
//! found it (`reference/check.rs`). A file is `TARGET.what-it-exercises.bin`; the findings
//! behind them are in `fuzz/README.md`.

#[path = "reference/mod.rs"]
mod reference;

use std::path::{Path, PathBuf};

use reference::check::{self, Format};
use tfwire::Program;

fn replay(target: &str, data: &[u8]) {
    match target {
        "msgpack_differential" => check::typed_differential(Format::Msgpack, data),
        "state_chunks" => reference::state::state_chunks(data),
        "dump_straight" => {
            reference::dumps::dumps(data);
        }
        "json_differential" => check::typed_differential(Format::Json, data),
        "msgpack_schema" => check::schema_text(Format::Msgpack, data),
        "json_schema" => check::schema_text(Format::Json, data),
        "msgpack_fixed" | "json_fixed" => {
            let f = if target == "msgpack_fixed" {
                Format::Msgpack
            } else {
                Format::Json
            };
            let schemas = ["aws_security_group", "azurerm_states", "deep_dynamic"];
            let i = (data.first().copied().unwrap_or(0) as usize >> 5) % 4 % 3;
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("fuzz/schemas/{}.schema.json", schemas[i]));
            let text = std::fs::read_to_string(path).unwrap();
            check::fixed(&Program::from_schema_json(&text).unwrap(), f, data);
        }
        "roundtrip" => check::roundtrip(data),
        "projection" => reference::project::projection(data),
        "visit" => reference::visit::visit(data),
        "stream_chunks" => check::stream_chunks(data),
        "type_json" => check::type_json(data),
        "schema_doc" => check::schema_doc(data),
        #[cfg(feature = "arrow")]
        "arrow_rows" => reference::arrow_rows::rows(data),
        #[cfg(not(feature = "arrow"))]
        "arrow_rows" => eprintln!("arrow_rows inputs need --features arrow"),
        t => panic!("unknown target {t}"),
    }
}

/// `(target, path)` of every regression input.
fn inputs() -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let target = name.split('.').next().unwrap().to_string();
            (target, p)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_regression_input_passes_its_target_checks() {
    let all = inputs();
    assert!(all.len() >= 5, "the regression inputs are there");
    for (target, path) in &all {
        let data = std::fs::read(path).unwrap();
        let r = std::panic::catch_unwind(|| replay(target, &data));
        assert!(r.is_ok(), "{} failed its checks", path.display());
    }
}
