#!/usr/bin/env bash
# Installs what warpweave needs on a fresh Debian machine with Rust, idempotently (every step is
# guarded, so a second run costs nothing):
#   scripts/install-toolchain.sh          what the CLI and the page need: the wasm32 target, Node.js
#                                         and the npm packages (scripts/start.sh)
#   scripts/install-toolchain.sh --tests  and what the tests need: Chromium, chromium-driver and
#                                         wasm-bindgen's test runner (scripts/test.sh)
# SKIP_BROWSER=1 leaves out Node.js, the npm packages, Chromium and the test runner.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null; then
  echo "error: cargo not found; install Rust from https://rustup.rs first" >&2
  exit 1
fi
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
if [ -z "${SKIP_BROWSER:-}" ]; then
  scripts/install-web-toolchain.sh "$@"
fi
