#!/usr/bin/env bash
# Installs what the browser app needs, idempotently: each step is guarded by a version check,
# so a second run costs nothing. The traps avoided:
# no wasm-pack npm package, no `playwright install` browser downloads, no Debian binaryen.
#
#   1. rustup target wasm32-unknown-unknown
#   2. Node.js and npm from Debian, if missing
#   3. npm ci (uPlot for the page; playwright-core and axe-core for the tests) from the committed
#      package-lock.json
# and with --tests, what the browser tests need:
#   4. Debian chromium + chromium-driver (for playwright-core and wasm-bindgen-test)
#   5. wasm-bindgen-cli (its test runner) at exactly the wasm-bindgen version locked in Cargo.lock
# The page's JavaScript bindings need no install: scripts/build-wasm.sh builds them with the
# workspace's own binder (crate/bind).
set -euo pipefail
cd "$(dirname "$0")/.."
TESTS=""
[ "${1:-}" = "--tests" ] && TESTS=1

say() { printf '\033[1m[install-web]\033[0m %s\n' "$*"; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
APT_UPDATED=""
apt_install() {
  [ -n "$APT_UPDATED" ] || { $SUDO apt-get update; APT_UPDATED=1; }
  $SUDO apt-get install -y --no-install-recommends "$@"
}

# 1. wasm target
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "wasm32-unknown-unknown target: present"
else
  say "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. Node.js
if command -v node >/dev/null && command -v npm >/dev/null; then
  say "node: $(node --version)"
else
  say "installing Debian nodejs + npm"
  apt_install nodejs npm
fi

# 3. npm packages from the lockfile: skip when every locked package is installed at its version
npm_ok=$(node -e '
  const fs = require("fs");
  const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
  let ok = true;
  for (const [k, v] of Object.entries(lock.packages || {})) {
    if (!k) continue;
    try { ok = ok && JSON.parse(fs.readFileSync(k + "/package.json", "utf8")).version === v.version; }
    catch { ok = false; }
  }
  console.log(ok ? "yes" : "no");' 2>/dev/null || echo no)
if [ "${npm_ok}" = yes ]; then
  say "node_modules: matches package-lock.json"
else
  say "npm ci"
  npm ci --no-audit --no-fund
fi

if [ -z "$TESTS" ]; then
  say "done"
  exit 0
fi

# 4. Chromium and chromedriver from Debian
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  say "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
else
  say "installing Debian chromium + chromium-driver"
  apt_install chromium chromium-driver
fi

# 5. wasm-bindgen-cli matching Cargo.lock
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock || true)
if [ -z "${WB_VERSION}" ]; then
  WB_VERSION=$(grep -o 'wasm-bindgen = "=[0-9.]*"' crate/Cargo.toml | grep -o '[0-9][0-9.]*' | head -n1)
fi
if [ -z "${WB_VERSION}" ]; then
  echo "install-web-toolchain: cannot find the wasm-bindgen version in Cargo.lock or crate/Cargo.toml" >&2
  exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "${have}" = "${WB_VERSION}" ]; then
  say "wasm-bindgen-cli ${have}: present"
else
  say "cargo install wasm-bindgen-cli --version ${WB_VERSION} (a few minutes; found '${have:-none}')"
  # No --locked: the CLI's own lockfile pins a crate version the registry lacks.
  # A tool, built as such: optimised at level 1, no LTO, no debug info (about 3.5 CPU
  # minutes to build; it spends seconds per test run).
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_DEBUG=false \
    cargo install wasm-bindgen-cli --version "${WB_VERSION}"
fi

say "done"
