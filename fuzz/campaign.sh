#!/bin/sh
# One fuzzing campaign: fuzz/campaign.sh TARGET [SECONDS]   (default 600)
# Runs `cargo fuzz run` on the target's corpus (fill it first with fuzz/seed.sh), keeps the
# log in fuzz/target/logs/TARGET[.LEVEL].log (libFuzzer's final stats at its end) and any
# crashing input in fuzz/artifacts/TARGET/.
#
# The JSON string scanner's SIMD level is chosen at run time; TFWIRE_SIMD=scalar|sse2|avx2|avx512
# in the environment caps it (never above what the CPU has), so a campaign per level reaches
# each classifier under AddressSanitizer: `TFWIRE_SIMD=sse2 fuzz/campaign.sh json_fixed 600`.
set -eu
cd "$(dirname "$0")"
t=$1
secs=${2:-600}
log="target/logs/$t${TFWIRE_SIMD:+.$TFWIRE_SIMD}.log"
mkdir -p target/logs "artifacts/$t" "corpus/$t"
RUSTC_BOOTSTRAP=1 cargo fuzz run "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096 -timeout=30 \
    -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$log" 2>&1 || true
echo "TFWIRE_SIMD=${TFWIRE_SIMD:-(best)}"
tail -n 20 "$log"
