#!/usr/bin/env bash
# Installs what warpweave needs on a fresh Debian machine with Rust: the wasm32 target, and (unless
# SKIP_BROWSER=1) the browser toolchain (Chromium, chromium-driver, wasm-bindgen-cli, npm packages).
# Every step is guarded so a second run costs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null; then
  echo "error: cargo not found; install Rust from https://rustup.rs first" >&2
  exit 1
fi
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
if [ -z "${SKIP_BROWSER:-}" ] && [ -x scripts/install-web-toolchain.sh ]; then
  scripts/install-web-toolchain.sh
fi
