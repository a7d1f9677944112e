#!/usr/bin/env bash
# Size and decode speed of warpweave's compact trace format against the Accel-Sim text.
#
# For every trace folder (sample-traces/text/*, the folders under $REAL_TRACES when it is set,
# and any folders given as arguments) it prints: text bytes (all files of the folder), `zstd -19` and
# `xz -9` of the concatenated text, the compact file's bytes, text/compact ratio, compact against
# the better of zstd/xz, and decode speed in warp instructions per second (WIPS), native (serial,
# one thread) and in wasm under node (when the wasm32 target and node are available).
#
# usage: bench/trace_size.sh [trace-folder ...]
# env:   SECS (decode seconds per measurement, default 1), NO_WASM=1 to skip wasm,
#        REAL_TRACES (a folder of trace folders, e.g. real GPU traces kept outside the repository)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${SECS:-1}
OUT=$ROOT/target/trace-size
mkdir -p "$OUT"

traces=()
for d in "${REAL_TRACES:-/nonexistent}"/*/ "$ROOT"/sample-traces/text/*/ "$@"; do
  [ -d "$d" ] && { [ -f "$d/kernelslist.g" ] || [ -f "$d/kernelslist" ]; } && traces+=("${d%/}")
done
[ ${#traces[@]} -gt 0 ] || { echo "no trace folders found" >&2; exit 1; }

echo "building the CLI (release)..." >&2
cargo build --release --features cli -q -p warpweave
BIN=$ROOT/target/release/warpweave

WASM=$ROOT/target/wasm32-unknown-unknown/release/warpweave.wasm
if [ -z "${NO_WASM:-}" ] && command -v node >/dev/null && rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  echo "building the library for wasm32 (release)..." >&2
  cargo build --release --lib --target wasm32-unknown-unknown -q -p warpweave || WASM=
else
  WASM=
fi

printf '%-30s %10s %9s %9s %9s %8s %9s %14s %14s\n' trace text_B zstd19_B xz9_B compact_B ratio vs_best native_WIPS wasm_WIPS
for d in "${traces[@]}"; do
  name=$(basename "$d")
  files=$(find "$d" -maxdepth 1 -type f ! -name 'README*' | sort)
  text=$(cat $files | wc -c)
  z=$(cat $files | zstd -19 -c -q | wc -c)
  x=$(cat $files | xz -9 -c | wc -c)
  wwt=$OUT/$name.wwt
  "$BIN" convert "$d" -o "$wwt" --quiet --verify 2>"$OUT/$name.log"
  c=$(stat -c %s "$wwt")
  native=$("$BIN" convert "$wwt" --bench-decode "$SECS" | awk '/serial/ { for (i = 1; i <= NF; i++) if ($(i+1) == "WIPS") { print $i; exit } }')
  wasm=-
  if [ -n "$WASM" ]; then
    wasm=$(node "$ROOT/bench/wasm_decode.mjs" "$WASM" "$SECS" "$wwt" | awk '{ print $5 }')
  fi
  best=$(( z < x ? z : x ))
  printf '%-30s %10d %9d %9d %9d %8.1f %9.3f %14s %14s\n' "$name" "$text" "$z" "$x" "$c" \
    "$(echo "$text / $c" | bc -l)" "$(echo "$c / $best" | bc -l)" "$native" "$wasm"
done
echo "(vs_best = compact / min(zstd -19, xz -9): below 1 means the compact file is smaller than both)"
