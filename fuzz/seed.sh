#!/bin/sh
# Fills fuzz/corpus/TARGET/ with seed inputs for every target (corpora are not committed):
# the conformance cases of ../shared/conformance/generated/*/ and tests/data/conformance/*/,
# the schemas and types of ../shared/workloads/*/, the real example value, values generated
# for the embedded schemas, and PRNG bytes for `roundtrip`.
#   fuzz/seed.sh [SHARED_DIR]      (default: ../shared beside the repository)
set -eu
cd "$(dirname "$0")"
shared=${1:-../../shared}
cargo run --quiet --release --manifest-path seed/Cargo.toml --target-dir target/seed -- corpus "$shared"
