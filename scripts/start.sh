#!/usr/bin/env bash
# Sets up a fresh machine and runs the main job:
#   1. installs what the CLI and the page need (wasm32 target, Node.js, npm packages),
#   2. builds the browser app and, as soon as it exists, serves it on
#      http://localhost:${PORT:-8080}/ (in the background until step 3 is done),
#   3. builds the `warpweave` CLI, simulates a shipped sample trace on the RTX 2080 Ti preset and
#      executes a kernel from its shipped SASS listing on the H100 preset (no nvcc needed) and
#      one from its CUDA source (nvcc from PyPI wheels, no GPU); then keeps serving (Ctrl-C
#      stops it).
# NO_SERVE=1 builds the page but does not serve it (for scripted checks).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== 1/3 toolchain"
scripts/install-toolchain.sh

echo "== 2/3 browser app"
scripts/build-wasm.sh
server=""
if [ -z "${NO_SERVE:-}" ]; then
  scripts/serve.sh &
  server=$!
  trap 'kill "$server" 2>/dev/null || true' EXIT INT TERM
fi

echo "== 3/3 CLI: build and a sample run"
cargo build --release --features cli
bin=target/release/warpweave
"$bin" info sample-traces/vecadd-64k.wwt
"$bin" run --gpu rtx2080ti --trace sample-traces/vecadd-64k.wwt
"$bin" run --gpu h100 --sass tests/exec/teaching.sm_90.sass --launch tests/exec/matmul.toml
# The same kernels from their CUDA source, compiled by a GPU-free nvcc from PyPI wheels
# (WW_NO_CUDA=1 leaves it out).
if [ -z "${WW_NO_CUDA:-}" ]; then
  eval "$(WW_CUDA_PARTS=compiler tests/hardware/setup-cuda.sh)"
  WW_NVCC="$WW_NVCC" WW_CUOBJDUMP="$WW_CUOBJDUMP" \
    "$bin" run --gpu h100 --cuda tests/exec/teaching.cu --launch tests/exec/vecmul.toml
fi

if [ -n "$server" ]; then
  echo "warpweave: the page is served on http://localhost:${PORT:-8080}/ (Ctrl-C stops it)"
  wait "$server"
fi
