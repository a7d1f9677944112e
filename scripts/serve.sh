#!/usr/bin/env bash
# Serves the browser app (www/) on localhost (scripts/serve.py, on Python's http.server): .wasm as
# application/wasm and .js as text/javascript, which module Workers and
# WebAssembly.instantiateStreaming need, and the gzip copies scripts/build-wasm.sh writes
# (FILE.gz) with Content-Encoding: gzip to clients that accept gzip (the wasm goes from about
# 3.3 MB to about 1 MB). A static host needs the same: the two MIME types, and either its own
# compression or the precompressed files (nginx `gzip_static on;`, Caddy `file_server
# { precompressed gzip }`, or Content-Encoding: gzip set on the .gz copies).
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
exec python3 scripts/serve.py "${PORT}" www
