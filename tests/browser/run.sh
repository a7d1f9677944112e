#!/usr/bin/env bash
# Browser tests: the wasm API under wasm-bindgen-test (node, Chromium page, Chromium dedicated
# worker), then the app in headless Chromium
# (node --test + playwright-core, /usr/bin/chromium). Screenshots land in tests/artifacts/.
# Builds www/pkg (release) first; the Chromium tests always run that release wasm.
# Usage: tests/browser/run.sh [--dev]   (--dev: debug wasm build)
#        WW_WASM_PREBUILT=1 tests/browser/run.sh   (scripts/test.sh: bind the release .wasm its
#                                                   wasm32 step built; no second cargo build)
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -n "${WW_WASM_PREBUILT:-}" ]; then
  scripts/build-wasm.sh --prebuilt
else
  scripts/build-wasm.sh "$@"
fi

# The page's bindings come from the workspace's binder (crate/bind); they must be what
# wasm-bindgen's own CLI, installed for its test runner, writes from the same module.
echo "== bindings: crate/bind against wasm-bindgen --target web"
profile=release
[ "${1:-}" = "--dev" ] && profile=debug
cli_pkg=$(mktemp -d)
wasm-bindgen --target web --out-dir "$cli_pkg" "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$profile/warpweave.wasm"
diff -r --exclude='*.gz' "$cli_pkg" www/pkg
rm -rf "$cli_pkg"
echo "identical"

# The same wasm API tests three ways: node, a page in headless Chromium, and a dedicated Web
# Worker in headless Chromium (where the app runs the wasm). One build serves all three.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
echo "== wasm-bindgen-test (wasm API in node)"
cargo test --target wasm32-unknown-unknown -p warpweave --test wasm_api
echo "== wasm-bindgen-test (wasm API in headless Chromium, main thread)"
WASM_BINDGEN_USE_BROWSER=1 cargo test --target wasm32-unknown-unknown -p warpweave --test wasm_api
echo "== wasm-bindgen-test (wasm API in headless Chromium, dedicated worker)"
WASM_BINDGEN_USE_DEDICATED_WORKER=1 cargo test --target wasm32-unknown-unknown -p warpweave --test wasm_api

echo "== browser tests (Chromium)"
mkdir -p tests/artifacts
node --test --test-concurrency=1 tests/browser/
ls tests/artifacts/*.png 2>/dev/null | sed 's/^/screenshot: /'
