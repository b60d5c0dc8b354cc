//! Every resource type, data source and provider configuration of every providers-schema
//! document in the corpus compiles, and its program decodes the type it was compiled from.

mod common;

use tfwire::schema::{ProviderSchemas, SchemaSource};
use tfwire::Program;

#[test]
fn every_corpus_schema_compiles() {
    let Some(shared) = common::shared_dir("corpus schemas not compiled") else {
        return;
    };
    let dir = shared.join("corpus/schemas");
    let mut docs = 0;
    let mut compiled = 0;
    let mut ops = 0;
    for sub in [dir.clone(), dir.join("derived")] {
        let mut files: Vec<_> = std::fs::read_dir(&sub)
            .expect("schemas dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("readable");
            // Two cdktf fixtures have `"resource_schemas": []`, which is not a document.
            let Ok(SchemaSource::Document(doc)) = SchemaSource::parse(&text) else {
                continue;
            };
            docs += 1;
            for provider in doc.providers.values() {
                let blocks = provider
                    .resources
                    .values()
                    .chain(provider.data_sources.values())
                    .chain(provider.provider.iter());
                for schema in blocks {
                    let program = Program::from_block(&schema.block).unwrap();
                    assert_eq!(program.root_type(), &schema.block.implied_type().unwrap());
                    assert!(program.to_string().starts_with("; type "));
                    ops += op_count(&program);
                    compiled += 1;
                }
            }
        }
    }
    eprintln!("compiled {compiled} schemas of {docs} documents into {ops} ops");
    // 41 providers-schema documents, less the two cdktf fixtures above.
    assert_eq!(docs, 39);
    assert_eq!(compiled, 7_929);
}

#[test]
fn aws_4_13_has_980_resource_types_that_all_compile() {
    let Some(shared) = common::shared_dir("aws document not compiled") else {
        return;
    };
    let path = shared.join("corpus/schemas/tfjson-120_basic-aws-null.schemas.json");
    let doc = ProviderSchemas::parse(&std::fs::read_to_string(path).expect("aws document"))
        .expect("parses");
    let aws = &doc.providers["registry.terraform.io/hashicorp/aws"];
    assert_eq!(aws.resources.len(), 980);
    let programs: Vec<Program> = aws
        .resources
        .values()
        .map(|s| Program::from_block(&s.block).unwrap())
        .collect();
    assert_eq!(programs.len(), 980);
    // Hash-consing: identical sub-types share one op. `aws_instance`'s type has 118 nodes
    // (one per attribute, element and block at every depth) but only 30 distinct sub-types.
    let block = &aws.resources["aws_instance"].block;
    let instance = Program::from_block(block).unwrap();
    assert_eq!(nodes(&block.implied_type().unwrap()), 118);
    assert_eq!(op_count(&instance), 30);
}

/// The ops of a program, from its disassembly (`;` header lines, then one line per op).
fn op_count(program: &Program) -> usize {
    let text = program.to_string();
    text.lines().filter(|l| !l.starts_with(';')).count()
}

fn nodes(ty: &tfwire::Type) -> usize {
    use tfwire::Type;
    1 + match ty {
        Type::List(t) | Type::Set(t) | Type::Map(t) => nodes(t),
        Type::Object(o) => o.attrs().iter().map(|(_, t)| nodes(t)).sum(),
        Type::Tuple(ts) => ts.iter().map(nodes).sum(),
        _ => 0,
    }
}
