#!/usr/bin/env bash
# The speed table (issue 6): simulated warp instructions per second (WIPS), wall time and peak
# memory per trace, mode and thread count, plus compact-trace decode speed. Prints a markdown
# table and writes it to bench/results.md (commit it so changes can be compared).
#
# Traces: sample-traces/large/*.wwt and generated vecadd traces of about 1M and (BIG=1) 10M warp
# instructions. GPU: titanv (80 SMs, Volta), the config the goals are stated for.
# Modes: `cycle` = --model memory=cycle (cycle SM and cycle memory system), `memory` =
# cycle SM with the analytical memory model (the default); `hybrid` and `fast` print n/a until
# the CLI accepts them (`warpweave run --mode`).
#
# usage: bench/run.sh   env: BIG=1 adds the ~10M trace; THREADS="1 2"; GPU=titanv;
#        PROFILE=dev to skip the release build (numbers then are for opt-level 1)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GPU=${GPU:-titanv}
THREADS=${THREADS:-"1 2"}
OUT=$ROOT/target/bench
mkdir -p "$OUT"

PROFILE=${PROFILE:-release}
echo "building the CLI ($PROFILE)..." >&2
cargo build --profile "$PROFILE" --features cli -q -p warpweave
case $PROFILE in dev) BIN=$ROOT/target/debug/warpweave ;; *) BIN=$ROOT/target/$PROFILE/warpweave ;; esac

traces=("$ROOT"/sample-traces/large/*.wwt)
gen() { # name n
  local f=$OUT/$1.wwt
  [ -f "$f" ] || "$BIN" gen vecadd -p "n=$2" -o "$f" -q >/dev/null 2>&1 || "$BIN" gen vecadd -p "n=$2" -o "$f" >/dev/null
  traces+=("$f")
}
gen vecadd-1m 2097152
[ -n "${BIG:-}" ] && gen vecadd-10m 20971520

has_mode() { "$BIN" run --help | grep -qE -- "--mode[ =<]"; }

{
echo "# warpweave speed ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), GPU $GPU, profile $PROFILE, load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| trace | mode | threads | cycles | warp insts | wall s | WIPS | peak MB |"
echo "|---|---|---|---|---|---|---|---|"
for t in "${traces[@]}"; do
  name=$(basename "$t" .wwt)
  for mode in cycle memory hybrid fast; do
    case $mode in
      cycle) margs=(--model memory=cycle) ;;
      memory) margs=(--model memory=analytical) ;;
      *) if has_mode; then margs=(--mode "$mode"); else echo "| $name | $mode | - | n/a | n/a | n/a | n/a | n/a |"; continue; fi ;;
    esac
    for th in $THREADS; do
      log=$OUT/$name.$mode.$th.txt
      "$BIN" run --gpu "$GPU" --trace "$t" "${margs[@]}" --threads "$th" -q >"$log" 2>&1 || { echo "| $name | $mode | $th | failed: $(tail -1 "$log") |"; continue; }
      cycles=$(grep -m1 -oE '^cycles[^0-9]*[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
      line=$(grep -m1 '^simulated in' "$log")
      secs=$(echo "$line" | awk '{print $3}')
      wips=$(echo "$line" | awk '{print $5}')
      insts=$(grep -m1 -oE 'warp insts [0-9]+' "$log" | awk '{print $3}')
      peak=$(grep -m1 '^peak memory' "$log" | awk '{print $3}')
      echo "| $name | $mode | $th | $cycles | $insts | $secs | $wips | $peak |"
    done
  done
done
echo
echo "## Trace decode (compact, native)"
echo
for t in "${traces[@]}"; do
  "$BIN" convert "$t" --bench-decode 0.5 -q 2>&1 | sed 's/^/    /'
done
} | tee bench/results.md
