#!/usr/bin/env bash
# Serves the browser app (www/) on localhost. Python's http.server sends .wasm as application/wasm
# and .js as text/javascript, which module Workers and WebAssembly.instantiateStreaming need.
#
# Usage: scripts/serve.sh [PORT]   (default 8080; builds www/pkg first when it is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${1:-${PORT:-8080}}"
if [ ! -f www/pkg/warpweave_bg.wasm ]; then
  echo "serve: www/pkg missing, building the wasm module first" >&2
  scripts/build-wasm.sh
fi
echo "warpweave: open http://localhost:${PORT}/"
exec python3 -m http.server "${PORT}" --bind 127.0.0.1 --directory www
