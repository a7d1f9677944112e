#!/usr/bin/env bash
# Per-launch cost: a kernels list that launches one tiny kernel (vecadd of 100 elements, one
# CTA) N times, for each N in $NS. Prints N, wall seconds, milliseconds per launch and peak RSS;
# the milliseconds per launch stay flat as N grows when the cost of a launch does not depend on
# how many came before (the block scheduler counts unfinished and queued launches per stream).
#
# usage: bench/launches.sh            env: NS (default "5000 10000 20000"), MODE (default cycle),
#                                           BIN (a warpweave binary; default: a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
NS=${NS:-"5000 10000 20000"}
MODE=${MODE:-cycle}
if [ -z "${BIN:-}" ]; then
  cargo build --release --features cli -q -p warpweave
  BIN=$PWD/target/release/warpweave
fi
OUT=$PWD/target/bench-launches
rm -rf "$OUT"
mkdir -p "$OUT"
"$BIN" gen vecadd -p n=100 --format text -o "$OUT/one" >/dev/null 2>&1
printf '%8s %8s %12s %10s\n' launches "wall s" "ms/launch" "peak MB"
for n in $NS; do
  d=$OUT/n$n
  mkdir -p "$d"
  cp "$OUT/one/kernel-1.traceg" "$d/"
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print "kernel-1.traceg" }' > "$d/kernelslist.g"
  s=$( { /usr/bin/time -f '%e %M' "$BIN" run -q --mode "$MODE" --trace "$d" >/dev/null; } 2>&1 | tail -1)
  read -r wall kb <<<"$s"
  awk -v n="$n" -v w="$wall" -v kb="$kb" 'BEGIN { printf "%8d %8.2f %12.3f %10.0f\n", n, w, 1000 * w / n, kb / 1024 }'
done
