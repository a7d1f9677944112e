#!/usr/bin/env bash
# The modes' cycles against `cycle` (the tables of bench/compare.md): `warpweave compare` over
# the large samples and the generated vecadd-1m (bench/run.sh's) on the TITAN V and RTX 2080 Ti
# presets, modes cycle, hybrid and fast. Writes bench/compare.csv with the simulated columns only
# (trace, gpu, mode, cycles, err_pct: cycles against `cycle`, percent): the same from any build and machine. README.md's
# mode errors and the figure of `fast`'s note on memory-bound kernels are checked against it
# (crate/tests/readme_figures.rs).
# usage: bench/compare.sh        env: BIN=path/to/warpweave (default: a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
  cargo build --release --features cli -q -p warpweave
  BIN=target/release/warpweave
fi
v=target/bench/vecadd-1m.wwt
if [ ! -f "$v" ]; then
  mkdir -p target/bench
  "$BIN" gen -q vecadd -p n=2097152 -o "$v" >/dev/null
fi
scratch=$(mktemp -d -t ww-compare.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
traces=$(printf '%s,' sample-traces/large/*.wwt "$v")
"$BIN" compare -q --gpu titanv,rtx2080ti --trace "${traces%,}" --modes cycle,hybrid,fast \
  --csv "$scratch/all.csv" >/dev/null
# The trace by its file's stem; the columns by their names in compare's header.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print "trace,gpu,mode,cycles,err_pct"; next }
  { t = $col["trace"]; sub(/.*\//, "", t); sub(/\.wwt$/, "", t)
    print t "," $col["gpu"] "," $col["mode"] "," $col["cycles"] "," $col["err_pct"] }' \
  "$scratch/all.csv" >bench/compare.csv
cat bench/compare.csv
