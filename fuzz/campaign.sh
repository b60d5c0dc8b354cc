#!/bin/sh
# One fuzzing campaign: fuzz/campaign.sh TARGET [SECONDS]   (default 600)
# Runs `cargo fuzz run` on the target's corpus (fill it first with fuzz/seed.sh), keeps the
# log in fuzz/target/logs/TARGET.log (libFuzzer's final stats at its end) and any crashing input in
# fuzz/artifacts/TARGET/.
set -eu
cd "$(dirname "$0")"
t=$1
secs=${2:-600}
mkdir -p target/logs "artifacts/$t" "corpus/$t"
RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096 -timeout=30 \
    -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"target/logs/$t.log" 2>&1 || true
tail -n 20 "target/logs/$t.log"
