#!/usr/bin/env bash
# go-cty's throughput on the same workloads, through the reference oracle in ../shared/oracle
# (`ctyoracle bench`). Builds the oracle in a temporary directory when Go and Debian's go-cty
# are installed (installs them with apt-get when possible).
#
# Usage: perf/gocty.sh [WORKLOAD,...]
# Prints `WORKLOAD FORMAT MBPS` per line (the oracle's MB/s = 10^6 bytes/s).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${TFWIRE_SHARED:-$(pwd)/../shared}
[ -d "$shared/oracle" ] || { echo "gocty.sh: no $shared/oracle" >&2; exit 1; }
if [ -z "${CTYORACLE:-}" ]; then
  if ! command -v go >/dev/null || [ ! -d /usr/share/gocode/src/github.com/zclconf/go-cty ]; then
    apt-get update -qq && apt-get install -y -qq golang-go golang-github-zclconf-go-cty-dev >/dev/null
  fi
  dir=$(mktemp -d)
  cp -r "$shared/oracle/." "$dir/"
  sh "$dir/build.sh" >/dev/null
  CTYORACLE="$dir/ctyoracle"
fi
workloads_dir="$shared/workloads"
[ -d "$workloads_dir" ] || workloads_dir=perf/workloads
only=${1:-}
for w in "$workloads_dir"/*/; do
  name=$(basename "$w")
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  for fmt in msgpack json; do
    [ -f "$w/value.$fmt" ] || continue
    # About one second of decoding per input: go-cty runs at 1-40 MB/s here.
    bytes=$(stat -c %s "$w/value.$fmt")
    iters=$(( 20000000 / bytes + 1 ))
    line=$("$CTYORACLE" bench --schema "$w/schema.json" --format "$fmt" "$w/value.$fmt" --iters "$iters")
    echo "$name $fmt ${line##*MBps=}"
  done
done
