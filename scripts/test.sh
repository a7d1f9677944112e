#!/usr/bin/env bash
# Runs every test: formatting, clippy, the Rust unit/integration/end-to-end tests, the wasm32
# build, a sweep on a real single-node SLURM (tests/slurm), and the browser tests in headless
# Chromium. Installs what it needs first (idempotent).
# Usage: scripts/test.sh            (everything)
#        SKIP_BROWSER=1 scripts/test.sh   (no wasm, Chromium or npm: Rust only)
#        WW_NO_CUDA=1 scripts/test.sh     (no CUDA wheels: the tests that compile CUDA say so)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n== %s\n' "$*"; }

step "toolchain"
scripts/install-toolchain.sh --tests

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (lib, cli, tests)"
cargo clippy --all-targets --features cli -- -D warnings
cargo clippy --profile bind -p warpweave-bind -- -D warnings

# A GPU-free CUDA compiler from PyPI wheels (target/cuda, kept between runs), so that the tests
# that compile CUDA (`run --cuda`, `cuda sass`) run too; WW_NO_CUDA=1 leaves them out.
if [ -z "${WW_NO_CUDA:-}" ]; then
  step "CUDA compiler from PyPI wheels (tests/hardware/setup-cuda.sh)"
  eval "$(WW_CUDA_PARTS=compiler tests/hardware/setup-cuda.sh)"
  export WW_NVCC WW_CUOBJDUMP
fi

step "hardware scripts (the probes table from lease.sh's log, round trip)"
python3 tests/hardware/probes_csv.py --self-test

log=$(mktemp -t warpweave-cargo-test.XXXXXX)
trap 'rm -f "$log"' EXIT
step "cargo test (dev profile: opt-level 1, dependencies at 2; --features cli)"
cargo test --features cli 2>&1 | tee "$log"
# The real GPU traces are public data kept outside the repository, never in it: the tests that
# read them are ignored by default (their names contain "real") and run here when they exist
# ($WARPWEAVE_SHARED/real-traces, or shared/real-traces in a folder above the clone, as
# crate/src/testing.rs looks for them).
real=""
if [ -n "${WARPWEAVE_SHARED:-}" ] && [ -d "$WARPWEAVE_SHARED/real-traces" ]; then
  real=$WARPWEAVE_SHARED/real-traces
else
  d=$PWD
  while [ "$d" != / ]; do
    [ -d "$d/shared/real-traces" ] && { real=$d/shared/real-traces; break; }
    d=$(dirname "$d")
  done
fi
if [ -n "$real" ]; then
  step "cargo test: the ignored tests that read the real traces ($real)"
  cargo test --features cli -- --ignored real 2>&1 | tee -a "$log"
else
  echo "skipped the tests that need the real traces (shared/real-traces not found above the clone; WARPWEAVE_SHARED names its folder)"
fi
step "fuzz targets: the stable mutation loop, ${FUZZ_SECS:-10} s per target"
FUZZ_SECS="${FUZZ_SECS:-10}" cargo test --features cli --lib fuzz_mutation_loop -- --ignored --nocapture 2>&1 | tee -a "$log"
# The engine's hand-written `unsafe`, all in engine/sync (the crew's hand-off and the SM state
# shared item by item), under Miri, on nightly (installed here if missing;
# WW_NO_MIRI=1 leaves it out): its unit tests and a parallel step of the whole engine.
# Tree Borrows: crossbeam-epoch, under rayon, trips Stacked Borrows in code that is not ours;
# leaks ignored: rayon's global pool outlives the test by design.
if [ -z "${WW_NO_MIRI:-}" ]; then
  step "Miri: engine/sync and a parallel step"
  rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
  rustup +nightly component list --installed | grep -q '^miri' || rustup +nightly component add miri
  MIRIFLAGS="-Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks" \
    cargo +nightly miri test -p warpweave --features parallel --lib -- \
    engine::sync engine::tests::parallel_stepping_equals_serial 2>&1 | tee -a "$log"
fi
# The crew's hand-off protocol under loom (the interleavings of two and three threads up to
# three and two preemptions; a few seconds), built with `--cfg loom` in a folder of its own so the
# other builds stay.
step "loom: the hand-off protocols of engine/sync"
RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=3 \
  cargo test -p warpweave --features parallel --lib --target-dir target/loom -- \
  engine::sync::loom_models 2>&1 | tee -a "$log"
grep -E '^test result:' "$log" | awk '{p+=$4; f+=$6} END {printf "rust: %d passed, %d failed\n", p, f}'

step "sweep on a real single-node SLURM (sbatch job array, collected CSV = local CSV)"
cargo build --features cli --bin warpweave
tests/slurm/run.sh target/debug/warpweave

step "wasm32 library build"
cargo build --lib --release --target wasm32-unknown-unknown -p warpweave

if [ -z "${SKIP_BROWSER:-}" ] && [ -f tests/browser/run.sh ]; then
  step "browser tests (headless Chromium)"
  WW_WASM_PREBUILT=1 tests/browser/run.sh
fi
echo
echo "all tests passed"
