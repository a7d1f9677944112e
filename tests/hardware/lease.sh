#!/usr/bin/env bash
# Everything a lent GPU machine is for, in one command (device time is scarce and the machine
# keeps nothing): build the folder of build.sh with the machine's own CUDA, run every workload
# under ncu (run.sh), run a few under the Compute Sanitizer tracer (trace.sh), and pack what
# came out into $OUT for the trip back. Each step goes on when the one before it failed, and
# what is done is copied to $OUT at once, so a run cut off still returns its first results.
#
#   OUT=/some/dir tests/hardware/lease.sh [PRESET]          (PRESET: default h100)
#   WW_SKIP_NCU=1: the tracer only; WW_SKIP_TRACE=1: ncu only; WW_DIST: the build folder.
#   Every trace runs under `timeout -s KILL 45` and two failures end the tracer step: a hung
#   debugger once cost a session 8 of its 30 device minutes.
#
# Back here: tar xzf hardware.tar.gz; copy results/PRESET.csv to tests/hardware/results/; then
# `cargo test --features cli --test hardware_compare -- --nocapture`, and for each traced
# workload `warpweave import-sanitizer --records t/NAME/records.wwsan --sass t/NAME/kernels.sass`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
preset=${1:-h100}
out=${OUT:-$here/../../target/lease}
dist=${WW_DIST:-/tmp/ww-dist}
mkdir -p "$out"
pack() { tar czf "$out/hardware.tar.gz" -C "$dist" results sass t 2>/dev/null || true; }
{
    echo "== machine"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem \
        --format=csv
    command -v nvcc ncu compute-sanitizer
    nvcc --version | tail -2
    ncu --version | tail -1
    echo "== build ($(date -u +%T))"
    "$here/build.sh" "$dist" || echo "lease: build.sh FAILED"
    mkdir -p "$dist/results" "$dist/t"
    if [[ -z "${WW_SKIP_NCU:-}" ]]; then  # WW_SKIP_NCU=1: the tracer only
        echo "== ncu ($(date -u +%T))"
        "$dist/run.sh" "$preset" || echo "lease: run.sh FAILED"
        cp "$dist/results/$preset.csv" "$out/" 2>/dev/null
        pack
    fi
    [[ -n "${WW_SKIP_TRACE:-}" ]] && { echo "== done ($(date -u +%T))"; exit 0; }  # ncu only
    echo "== tracer ($(date -u +%T))"
    export WWTRACE_VERBOSE=1
    while read -r name params; do
        [[ -z "$name" || "$name" == \#* ]] && continue
        tag="$name-$(echo "$params" | tr ' =' '_-')"
        # shellcheck disable=SC2086
        if ! timeout -s KILL 45 "$dist/trace.sh" "$dist/t/$tag" "$name" $params; then
            echo "lease: trace $tag FAILED"
            fails=$((${fails:-0} + 1))
        fi
        ls -l "$dist/t/$tag" 2>/dev/null
        pack
        [[ ${fails:-0} -ge 2 ]] && { echo "lease: two traces failed, the rest skipped"; break; }
    done < "$here/trace-workloads.txt"
    echo "== done ($(date -u +%T))"
} 2>&1 | tee "$out/lease.log"
pack
ls -l "$out"
