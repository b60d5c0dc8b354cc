//! Writes the seed corpora of every fuzz target (run by `fuzz/seed.sh`):
//! `seed CORPUS_DIR SHARED_DIR`.
//!
//! - from each conformance case of `SHARED/conformance/generated/*/` and of
//!   `tests/data/conformance/*/`: the type JSON (`type_json`), the schema (`schema_doc`),
//!   the msgpack and JSON values under their type (`*_schema` when the type JSON is short,
//!   `*_differential` always; for `msgpack_differential` also under the low-limits profile,
//!   with limits that vary from case to case);
//! - from `SHARED/workloads/*/`: the schemas and types, and (only the small ones are
//!   inputs) nothing else;
//! - for the `*_fixed` targets: the real example value, and values generated for each
//!   embedded schema by the reference generator and encoders;
//! - for `state_chunks`: the toy state and the Terraform-shaped states of
//!   `fuzz/seeds/state_chunks/`, each behind two chunk-size bytes;
//! - for `roundtrip`, `projection`, `visit`, `arrow_rows` and `dump_straight`: PRNG bytes.

#[path = "../../../tests/reference/mod.rs"]
mod reference;

use std::fs;
use std::path::{Path, PathBuf};

use reference::check::typed_input;
use reference::gen::{gen_value, Rng, Shape, Source};
use reference::{encode, has_unknown};
use tfwire::{Program, Type};

struct Out {
    dir: PathBuf,
    count: usize,
}

impl Out {
    fn put(&mut self, target: &str, name: &str, bytes: &[u8]) {
        let dir = self.dir.join(target);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(name), bytes).unwrap();
        self.count += 1;
    }
}

fn read(p: &Path) -> Option<Vec<u8>> {
    fs::read(p).ok()
}

fn sorted(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn case(out: &mut Out, tag: &str, dir: &Path, i: &str) {
    let Some(tj) = read(&dir.join(format!("{i}.type.json"))) else {
        return;
    };
    out.put("type_json", &format!("{tag}-{i}"), &tj);
    if let Some(s) = read(&dir.join(format!("{i}.schema.json"))) {
        out.put("schema_doc", &format!("{tag}-{i}"), &s);
    }
    let Ok(t) = Type::from_json_bytes(&tj) else {
        return;
    };
    for (fmt, ext) in [("msgpack", "msgpack"), ("json", "json")] {
        let Some(v) = read(&dir.join(format!("{i}.{ext}"))) else {
            continue;
        };
        out.put(
            &format!("{fmt}_differential"),
            &format!("{tag}-{i}"),
            &typed_input(&t, &v),
        );
        if fmt == "msgpack" {
            // The low-limits profile: options bit 7, then a limits byte.
            let mut b = vec![0x80, (out.count as u8).wrapping_mul(0x35)];
            b.extend_from_slice(&typed_input(&t, &v)[1..]);
            out.put("msgpack_differential", &format!("{tag}-{i}-low"), &b);
        }
        let tt = t.to_string();
        if tt.len() < 256 {
            let mut b = vec![0, tt.len() as u8];
            b.extend_from_slice(tt.as_bytes());
            b.extend_from_slice(&v);
            out.put(&format!("{fmt}_schema"), &format!("{tag}-{i}"), &b);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let corpus = PathBuf::from(args.get(1).expect("usage: seed CORPUS_DIR SHARED_DIR"));
    let shared = PathBuf::from(args.get(2).expect("usage: seed CORPUS_DIR SHARED_DIR"));
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Out {
        dir: corpus,
        count: 0,
    };

    let mut folders = sorted(&shared.join("conformance/generated"));
    folders.extend(sorted(&repo.join("tests/data/conformance")));
    for (n, dir) in folders.iter().enumerate() {
        let tag = format!("c{n}");
        for p in sorted(dir) {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if let Some(i) = name.strip_suffix(".type.json") {
                case(&mut out, &tag, dir, i);
            }
        }
    }
    for w in sorted(&shared.join("workloads")) {
        let name = w.file_name().unwrap().to_string_lossy().to_string();
        for (file, target) in [("schema.json", "schema_doc"), ("type.json", "type_json")] {
            if let Some(b) = read(&w.join(file)) {
                out.put(target, &format!("w-{name}"), &b);
            }
        }
    }
    for doc in [
        "tests/data/states/toy.schemas.json",
        "tests/data/example/aws_security_group.schema.json",
    ] {
        if let Some(b) = read(&repo.join(doc)) {
            out.put("schema_doc", &doc.replace('/', "_"), &b);
        }
    }

    // The fixed schemas: the real example value, then generated values.
    let schemas = [
        "fuzz/schemas/aws_security_group.schema.json",
        "fuzz/schemas/azurerm_states.schema.json",
        "fuzz/schemas/deep_dynamic.schema.json",
    ];
    for (ext, target) in [("msgpack", "msgpack_fixed"), ("json", "json_fixed")] {
        if let Some(v) = read(&repo.join(format!("tests/data/example/aws_security_group.{ext}"))) {
            let mut b = vec![0u8];
            b.extend_from_slice(&v);
            out.put(target, "example", &b);
        }
    }
    let mut rng = Rng::new(7);
    for (k, s) in schemas.iter().enumerate() {
        let text = fs::read_to_string(repo.join(s)).unwrap();
        let t = Program::from_schema_json(&text)
            .unwrap()
            .root_type()
            .clone();
        for j in 0..30 {
            let shape = Shape {
                max_len: 2,
                unknowns: j % 2 == 0,
                dyn_depth: 1,
            };
            let plan = gen_value(&mut rng, &t, &shape);
            let mut mp = vec![(k as u8) << 5];
            mp.extend(encode::msgpack(&mut rng, &t, &plan));
            out.put("msgpack_fixed", &format!("gen-{k}-{j}"), &mp);
            if !has_unknown(&plan) {
                let mut js = vec![(k as u8) << 5];
                js.extend(encode::json(&mut rng, &t, &plan));
                out.put("json_fixed", &format!("gen-{k}-{j}"), &js);
            }
        }
    }
    // State files for `state_chunks` (`[a][b]` then the file): the toy state and states
    // written as Terraform writes them for the fuzz schema (`fuzz/seeds/state_chunks/`).
    let mut states = vec![repo.join("tests/data/states/toy.tfstate")];
    states.extend(sorted(&repo.join("fuzz/seeds/state_chunks")));
    for (k, p) in states.iter().enumerate() {
        if let Some(text) = read(p) {
            for (a, b) in [(0u8, 255u8), (7, 3)] {
                let mut bytes = vec![a, b];
                bytes.extend_from_slice(&text);
                out.put("state_chunks", &format!("state-{k}-{a}"), &bytes);
            }
        }
    }
    for j in 0..64 {
        let n = 64 + rng.below(1024);
        let b: Vec<u8> = (0..n).map(|_| rng.byte()).collect();
        out.put("roundtrip", &format!("rng-{j}"), &b);
        out.put("projection", &format!("rng-{j}"), &b);
        out.put("visit", &format!("rng-{j}"), &b);
        out.put("arrow_rows", &format!("rng-{j}"), &b);
        out.put("dump_straight", &format!("rng-{j}"), &b);
    }
    for t in [
        "\"string\"",
        "[\"object\",{\"a\":\"number\"},[\"a\"]]",
        "[\"tuple\",null]",
        "[\"object\",null]",
    ] {
        out.put("type_json", &format!("hand-{}", t.len()), t.as_bytes());
    }
    eprintln!(
        "seed: wrote {} files under {}",
        out.count,
        out.dir.display()
    );
}
