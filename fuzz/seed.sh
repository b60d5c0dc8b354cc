#!/bin/sh
# Fills fuzz/corpus/TARGET/ with seed inputs for every target (corpora are not committed):
# the conformance cases of ../shared/conformance/generated/*/ and tests/data/conformance/*/,
# the schemas and types of ../shared/workloads/*/, the real example value, values generated
# for the embedded schemas, and PRNG bytes for `roundtrip`; for `skip_differential` (below) the
# hand-written cases of fuzz/seeds/skip_differential/ and conformance values and type JSON
# behind a mode byte.
#   fuzz/seed.sh [SHARED_DIR]      (default: ../shared beside the repository)
set -eu
cd "$(dirname "$0")"
shared=${1:-../../shared}
cargo run --quiet --release --manifest-path seed/Cargo.toml --target-dir target/seed -- corpus "$shared"

# skip_differential: `[mode][bytes]`, mode 0 JSON, 1 MessagePack. The hand-written edge cases
# (surrogates, bad UTF-8, 0xc1, ext forms, nesting at and past MAX_DEPTH), cases 0-19 of each
# conformance folder in both formats, and the workloads' type JSON, each under 64 KiB (the
# campaigns' -max_len): about 125 files.
out=corpus/skip_differential
mkdir -p "$out"
cp seeds/skip_differential/* "$out/"
k=0
for dir in "$shared"/conformance/generated/*/ ../tests/data/conformance/*/; do
    k=$((k + 1))
    i=0
    while [ "$i" -lt 20 ]; do
        for ext in json msgpack; do
            f="$dir$i.$ext"
            if [ -f "$f" ] && [ "$(wc -c <"$f")" -lt 65536 ]; then
                {
                    if [ "$ext" = json ]; then printf '\000'; else printf '\001'; fi
                    cat "$f"
                } >"$out/c$k-$i-$ext"
            fi
        done
        i=$((i + 1))
    done
done
for f in "$shared"/workloads/*/type.json; do
    if [ -f "$f" ] && [ "$(wc -c <"$f")" -lt 65536 ]; then
        w=$(basename "$(dirname "$f")")
        { printf '\000'; cat "$f"; } >"$out/w-$w-type"
    fi
done
echo "seed: skip_differential seeds written under $out"
