#!/usr/bin/env bash
# Browser tests: the wasm API under wasm-bindgen-test (node), then the app in headless Chromium
# (node --test + playwright-core, /usr/bin/chromium). Screenshots land in tests/artifacts/.
# Builds www/pkg (release) first. Usage: tests/browser/run.sh [--dev]   (--dev: debug wasm build)
set -euo pipefail
cd "$(dirname "$0")/../.."

scripts/build-wasm.sh "$@"

echo "== wasm-bindgen-test (wasm API in node)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown -p warpweave --test wasm_api

echo "== browser tests (Chromium)"
mkdir -p tests/artifacts
node --test --test-concurrency=1 tests/browser/
