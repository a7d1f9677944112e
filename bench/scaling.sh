#!/usr/bin/env bash
# Serial fraction, exchanges per cycle, and the speed-up they predict at more threads.
#
# Each trace runs in each mode at 1 and 2 threads (ROUNDS rounds, alternating which count runs
# first; the fastest of each kept). From the two wall times T1 and T2 and the exchanges between
# threads the CLI reports at 2 threads (`thread exchanges` line: fork/joins and window
# hand-offs, X over C simulated cycles), an Amdahl model with an exchange cost:
#
#   T(n) = T1 * (s + (1 - s) / n) + X * c * ceil(log2 n)
#
# where c is the cost of one exchange between two threads (EXCHANGE_US, default 1 us; a
# barrier over n threads costs about log2 n of them). The serial fraction s follows from T2:
#   s = 2 * (T2 - X * c) / T1 - 1   (clamped to 0..1)
# and the columns 4x/8x/16x are T1 / T(n): a PREDICTION, not a measurement. Measure the thread
# sweep on a machine with that many cores (bench/run.sh THREADS="1 2 4 8 16") before relying on
# it.
#
# usage: bench/scaling.sh   env: TRACES="a.wwt b.wwt" (default: sample-traces/large/*.wwt and
#        a generated vecadd-1m); MODES="cycle hybrid fast"; ROUNDS=3; GPU=titanv; EXCHANGE_US=1;
#        BIN=/path/to/warpweave (else a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GPU=${GPU:-titanv}
ROUNDS=${ROUNDS:-3}
MODES=${MODES:-"cycle hybrid fast"}
EXCHANGE_US=${EXCHANGE_US:-1}
OUT=$ROOT/target/bench
mkdir -p "$OUT"
if [ -z "${BIN:-}" ]; then
  echo "building the CLI (release)..." >&2
  cargo build --release --features cli -q -p warpweave
  BIN=$ROOT/target/release/warpweave
fi
if [ -n "${TRACES:-}" ]; then
  read -r -a traces <<<"$TRACES"
else
  traces=("$ROOT"/sample-traces/large/*.wwt)
  f=$OUT/vecadd-1m.wwt
  [ -f "$f" ] || { echo "generating vecadd-1m..." >&2; "$BIN" gen vecadd -p n=2097152 -o "$f" >/dev/null; }
  traces+=("$f")
fi

# one TRACE MODE THREADS: prints "seconds exchanges cycles" of one run
one() {
  "$BIN" run --gpu "$GPU" --trace "$1" --mode "$2" --threads "$3" -q 2>&1 |
    awk '/^simulated in/ { s = $3; sub(/s:?$/, "", s) }
         /^thread exchanges/ { x = $3; c = $5 }
         END { print s, x, c }'
}

echo "# warpweave scaling prediction ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, GPU $GPU, fastest of $ROUNDS round(s), exchange cost ${EXCHANGE_US} us)"
echo
echo "Measured: 1 and 2 threads. Predicted (Amdahl plus the exchange cost, see bench/README.md): 4, 8 and 16 threads."
echo
echo "| trace | mode | 1 thread s | 2 threads s | 2x measured | serial fraction | exchanges / cycle | 4x predicted | 8x predicted | 16x predicted |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for t in "${traces[@]}"; do
  name=$(basename "$t" .wwt)
  for mode in $MODES; do
    t1=; t2=; x2=0; cyc=0
    for ((r = 0; r < ROUNDS; r++)); do
      order="1 2"
      ((r % 2)) && order="2 1"
      for th in $order; do
        read -r s x c < <(one "$t" "$mode" "$th")
        if [ "$th" = 1 ]; then
          [ -z "$t1" ] || [ "$(echo "$s < $t1" | bc -l)" = 1 ] && t1=$s
        else
          [ -z "$t2" ] || [ "$(echo "$s < $t2" | bc -l)" = 1 ] && t2=$s
          x2=$x; cyc=$c
        fi
      done
    done
    awk -v n="$name" -v m="$mode" -v t1="$t1" -v t2="$t2" -v x="$x2" -v c="$cyc" -v us="$EXCHANGE_US" 'BEGIN {
      xc = x * us / 1e6
      s = 2 * (t2 - xc) / t1 - 1; if (s < 0) s = 0; if (s > 1) s = 1
      printf "| %s | %s | %.3f | %.3f | %.2f | %.2f | %.3f |", n, m, t1, t2, t1 / t2, s, (c > 0 ? x / c : 0)
      for (k = 2; k <= 4; k++) { p = 2 ^ k; tn = t1 * (s + (1 - s) / p) + xc * k; printf " %.1f |", t1 / tn }
      printf "\n" }'
  done
done
