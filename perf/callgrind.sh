#!/usr/bin/env bash
# Instruction counts per decode for each workload and encoding, with valgrind's callgrind:
# stable on noisy machines, for before/after comparisons (perf/optimizations.md).
#
# Usage: perf/callgrind.sh [WORKLOAD,...]      (default: every workload found)
# Environment: CONTENDER=rmpv (default tfwire) counts a peer instead; ENCODE=1 counts
# encodes (`tfwire bench --encode`) instead of decodes.
# Prints one line per workload and encoding: `WORKLOAD FORMAT BYTES INSTRUCTIONS_PER_DECODE
# INSTRUCTIONS_PER_BYTE`. Each count is (run with 11 decodes − run with 1 decode) / 10, so schema
# loading, compilation and the correctness check are excluded.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
# valgrind cannot run AVX-512 code: always an x86-64-v3 build, in its own target directory
# (so a `-C target-cpu=native` build for the wall-clock bench is not overwritten).
export RUSTFLAGS="-C target-cpu=x86-64-v3"
export CARGO_TARGET_DIR=${CALLGRIND_TARGET_DIR:-target/callgrind}
cargo build --release --quiet --features bench
bin=$CARGO_TARGET_DIR/release/tfwire
only=${1:-}
contender=${CONTENDER:-tfwire}
mode=()
[ "${ENCODE:-0}" = 1 ] && mode=(--encode)
workloads=$($bin bench "${mode[@]}" --json --rounds 1 --round-ms 0 --contenders "$contender" ${only:+--only "$only"} \
  | python3 -c 'import json,sys; [print(r["workload"], r["format"], r["bytes"]) for r in json.load(sys.stdin)["rows"]]')
count() { # WORKLOAD FORMAT ROUNDS
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" bench "${mode[@]}" --json --only "$1" \
    --format "$2" --contenders "$contender" --rounds "$3" --round-ms 0 2>&1 >/dev/null | awk '/refs:/ {gsub(",","",$NF); print $NF}'
}
while read -r name format bytes; do
  one=$(count "$name" "$format" 1)
  eleven=$(count "$name" "$format" 11)
  per=$(( (eleven - one) / 10 ))
  echo "$name $format $bytes $per $(python3 -c "print(round($per/$bytes, 2))")"
done <<< "$workloads"
