#!/usr/bin/env bash
# Builds the wasm module for the browser app into www/pkg (git-ignored) and copies the npm
# front-end libraries (uPlot) into www/vendor (git-ignored), and writes gzip copies of what the page
# loads (FILE.gz beside FILE, git-ignored).
#
#   cargo build --lib --release --target wasm32-unknown-unknown -p warpweave
#   cargo build --profile bind -p warpweave-bind       (the binder, crate/bind; built once)
#   target/bind/warpweave-bind target/wasm32-unknown-unknown/release/warpweave.wasm www/pkg
# The binder writes what `wasm-bindgen --target web --out-dir www/pkg` writes, from the
# wasm-bindgen library at the version the module is built with (no CLI to install).
#
# Usage: scripts/build-wasm.sh [--dev]   (--dev: unoptimised debug build, faster to compile)
#        scripts/build-wasm.sh --prebuilt  (no cargo build: bind the release .wasm that
#                                           scripts/test.sh's wasm32 step has just built)
set -euo pipefail
cd "$(dirname "$0")/.."

PROFILE=release
FLAG=--release
BUILD=1
if [ "${1:-}" = "--dev" ]; then PROFILE=debug; FLAG=""; fi
if [ "${1:-}" = "--prebuilt" ]; then BUILD=""; fi

if [ -n "$BUILD" ]; then
  cargo build --lib ${FLAG} --target wasm32-unknown-unknown -p warpweave
fi
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')
WASM="${TARGET_DIR}/wasm32-unknown-unknown/${PROFILE}/warpweave.wasm"
[ -f "$WASM" ] || { echo "build-wasm: $WASM missing (build it, or drop --prebuilt)" >&2; exit 1; }
cargo build --profile bind -p warpweave-bind -q
"${TARGET_DIR}/bind/warpweave-bind" "$WASM" www/pkg

mkdir -p www/vendor
if [ -d node_modules/uplot/dist ]; then
  cp node_modules/uplot/dist/uPlot.esm.js node_modules/uplot/dist/uPlot.min.css www/vendor/
else
  echo "build-wasm: node_modules/uplot missing (run npm ci); charts will fall back to tables" >&2
fi
# Precompressed copies beside the files a page load fetches (the wasm, the JS modules, the CSS):
# scripts/serve.sh sends FILE.gz with Content-Encoding: gzip to a client that accepts gzip, and
# any static host that serves precompressed files (nginx gzip_static, Caddy precompressed) can
# do the same. Git ignores them.
find www -name '*.gz' -delete
find www/pkg www/js www/vendor www/css www/worker.js www/index.html -type f \
  \( -name '*.wasm' -o -name '*.js' -o -name '*.css' -o -name '*.html' \) -exec gzip -9 -k -n -f {} +
ls -l www/pkg/warpweave_bg.wasm www/pkg/warpweave_bg.wasm.gz
