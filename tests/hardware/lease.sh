#!/usr/bin/env bash
# Everything a lent GPU machine is for, in one command (device time is scarce and the machine
# keeps nothing). Steps, each copied to $OUT as soon as it is done, each going on when the one
# before it failed, so a run cut off still returns what it finished:
#   1. build the folder of build.sh with the machine's own CUDA;
#   2. ncu over workloads.txt (results/PRESET.csv; skipped with WW_SKIP_BASE=1) and over
#      holdout-workloads.txt (results/PRESET-holdout.csv);
#   3. the probes of holdout-workloads.txt run plainly, 3 times each: their in-kernel clock
#      readings (probes.log: `clk WORKLOAD PARAMS t0 t1 ...`), and the `l2_sides` probe
#      (l2_sides.log, summarised by l2_sides.py: L2 latency of a line's first and second
#      read from every SM, the near and far sides of the L2);
#   4. nsys over both lists in one process (`bench --list`, L2 flushed before each launch,
#      3 launches each): kernel durations as Nsight Systems sees them (durations.csv), plus
#      the CUDA-event time of each launch (durations.log);
#   5. the Compute Sanitizer tracer over holdout-workloads.txt and trace-workloads.txt;
#   6. with WW_SWEEP_BIN=path/to/warpweave: the thread sweep of the CLI on this machine's cores
#      (sweep.csv: trace, mode, threads, wall seconds, result hash).
#
#   OUT=/some/dir tests/hardware/lease.sh [PRESET]          (PRESET: default h100)
#   WW_NO_SWEEP=1: no thread sweep; WW_SKIP_NCU=1: no ncu; WW_SKIP_TRACE=1: no tracer; WW_ONLY_TRACE=1: no probes, no
#   durations; WW_TRACE_LIST: the tracer's list (default holdout-workloads.txt); WW_DIST: the
#   build folder.
#   Every trace runs under `timeout -s KILL 45` and two failures end the tracer step: a hung
#   debugger once cost 8 of 30 device minutes.
#
# Back here: tar xzf hardware.tar.gz; copy results/*.csv to tests/hardware/results/; then
# `cargo test --features cli --test hardware_compare -- --nocapture`, and for each traced
# workload `warpweave import-sanitizer --records t/NAME/records.wwsan --sass t/NAME/kernels.sass`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
preset=${1:-h100}
out=${OUT:-$here/../../target/lease}
dist=${WW_DIST:-$(mktemp -d -t ww-dist.XXXXXX)}
mkdir -p "$out"
# The records of big traces stay behind (files coming back are limited): they are imported
# there into compact traces (t/NAME.wwt) when WW_SWEEP_BIN names a warpweave binary.
pack() {
    tar czf "$out/hardware.tar.gz" -C "$dist" --exclude='*/kernels.sass' --exclude='*/trace' \
        results sass t 2>/dev/null || true
}
stamp() { echo "== $1 ($(date -u +%T))"; }
{
    stamp machine
    nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.mem \
        --format=csv
    command -v nvcc ncu nsys compute-sanitizer
    nvcc --version | tail -2
    ncu --version | tail -1
    nsys --version 2>/dev/null
    nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket" ; free -g | head -2
    stamp build
    # A folder build.sh made elsewhere (WW_PREBUILT) first: if the machine's own build fails,
    # its prebuilt bench still runs.
    [[ -d "${WW_PREBUILT:-}" ]] && { mkdir -p "$dist"; cp -a "$WW_PREBUILT/." "$dist/"; }
    "$here/build.sh" "$dist" || echo "lease: build.sh FAILED"
    cp "$here/holdout-workloads.txt" "$dist/" 2>/dev/null
    mkdir -p "$dist/results" "$dist/t"
    sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
    bin=$("$dist/pick-bench.sh" "$dist" "$sm" 2>/dev/null)
    [[ -x "$bin" ]] || bin="$dist/results/bench-sm$sm"
    if [[ -z "${WW_SKIP_NCU:-}" ]]; then
        stamp "ncu holdout"
        WW_WORKLOADS="$here/holdout-workloads.txt" "$dist/run.sh" "$preset-holdout" ||
            echo "lease: run.sh holdout FAILED"
        cp "$dist/results/$preset-holdout.csv" "$out/" 2>/dev/null
        pack
        if [[ -z "${WW_SKIP_BASE:-}" ]]; then
            stamp "ncu base"
            "$dist/run.sh" "$preset" || echo "lease: run.sh FAILED"
            cp "$dist/results/$preset.csv" "$out/" 2>/dev/null
            pack
        fi
        bin=$("$dist/pick-bench.sh" "$dist" "$sm" 2>/dev/null) || bin="$dist/results/bench-sm$sm"
        [[ -x "$bin" ]] || bin="$dist/results/bench-sm$sm"
    fi
    if [[ -z "${WW_ONLY_TRACE:-}" ]]; then  # WW_ONLY_TRACE=1: build, then the tracer alone
    stamp "probes ($bin)"
    for r in 1 2 3; do
        grep -E '^(l1_lines|mshr_merge|local_spill|ifetch|loop_probe|ffma_chain|issue_order)' \
            "$here/holdout-workloads.txt" | while read -r name params; do
            # shellcheck disable=SC2086
            timeout 20 "$bin" "$name" $params
        done
    done > "$out/probes.log" 2>&1
    tail -5 "$out/probes.log"
    stamp "l2 sides"
    for r in 1 2 3; do timeout 20 "$bin" l2_sides lines=16; done > "$out/l2_sides.log" 2>&1
    python3 "$here/l2_sides.py" "$out/l2_sides.log" 2>&1 | head -5
    stamp nsys
    grep -hvE '^\s*(#|$)' "$here/holdout-workloads.txt" "$here/workloads.txt" > "$dist/all-workloads.txt"
    if command -v nsys >/dev/null; then
        timeout 150 nsys profile -t cuda -o "$dist/nsys-all" --force-overwrite true \
            "$bin" --list "$dist/all-workloads.txt" 3 > "$out/durations.log" 2>&1
        nsys stats -r cuda_gpu_trace -f csv -o "$dist/nsys" "$dist/nsys-all.nsys-rep" >/dev/null 2>&1
        cp "$dist"/nsys*.csv "$out/" 2>/dev/null
        ls "$dist" | grep nsys
    else
        timeout 150 "$bin" --list "$dist/all-workloads.txt" 3 > "$out/durations.log" 2>&1
    fi
    tail -3 "$out/durations.log"
    fi
    if [[ -z "${WW_SKIP_TRACE:-}" ]]; then
        stamp tracer
        export WWTRACE_VERBOSE=1
        fails=0
        while read -r name params; do
            [[ -z "$name" || "$name" == \#* ]] && continue
            tag="$name-$(echo "$params" | tr ' =' '_-')"
            # shellcheck disable=SC2086
            if ! timeout -s KILL 45 "$dist/trace.sh" "$dist/t/$tag" "$name" $params > "$dist/t/$tag.log" 2>&1; then
                echo "lease: trace $tag FAILED"; tail -3 "$dist/t/$tag.log"
                fails=$((fails + 1))
            fi
            ww=${WW_SWEEP_BIN:-}
            if [[ -x "$ww" && -f "$dist/t/$tag/records.wwsan" ]]; then
                if "$ww" import-sanitizer --records "$dist/t/$tag/records.wwsan" \
                    --sass "$dist/t/$tag/kernels.sass" -o "$dist/t/$tag/trace" >> "$dist/t/$tag.log" 2>&1 &&
                    "$ww" convert "$dist/t/$tag/trace" -o "$dist/t/$tag.wwt" >> "$dist/t/$tag.log" 2>&1; then
                    [[ $(stat -c %s "$dist/t/$tag/records.wwsan") -gt 4000000 ]] && rm "$dist/t/$tag/records.wwsan"
                else
                    echo "lease: import $tag FAILED"; tail -3 "$dist/t/$tag.log"
                fi
            fi
            ls -l "$dist/t/$tag" "$dist/t/$tag.wwt" 2>/dev/null | tail -3
            [[ $fails -ge 2 ]] && { echo "lease: two traces failed, the rest skipped"; break; }
        done < <(cat "${WW_TRACE_LIST:-$here/holdout-workloads.txt}")
        pack
    fi
    if [[ -n "${WW_SWEEP_BIN:-}" && -x "${WW_SWEEP_BIN}" && -z "${WW_NO_SWEEP:-}" ]]; then
        stamp "thread sweep"
        sw="$dist/sweep"; mkdir -p "$sw"
        "$WW_SWEEP_BIN" gen matmul_naive -p m=512,n=512,k=128 -o "$sw/matmul_naive-512.wwt" >/dev/null 2>&1
        "$WW_SWEEP_BIN" gen vecadd -p n=2097152 -o "$sw/vecadd-2m.wwt" >/dev/null 2>&1
        echo "trace,gpu,mode,threads,wall_s,result_sha" > "$out/sweep.csv"
        for tr in "$sw/matmul_naive-512.wwt" "$sw/vecadd-2m.wwt" "$here/../../sample-traces/large/reduction-256k.wwt"; do
            for mode in cycle fast; do
                for th in 1 2 4 8 16; do
                    TIMEFORMAT=%R
                    wall=$( { time timeout 60 "$WW_SWEEP_BIN" run --trace "$tr" --gpu h100 --mode "$mode" \
                        --threads "$th" -q --json "$sw/r.json" >/dev/null 2>&1; } 2>&1 )
                    h=$(python3 -c 'import json,sys,hashlib; d=json.load(open(sys.argv[1])); k=["cycles","warp_insts","kernels","stall_stack","totals","per_sm","memory"]; print(hashlib.sha256(json.dumps({x:d.get(x) for x in k},sort_keys=True).encode()).hexdigest()[:16])' "$sw/r.json" 2>/dev/null)
                    rm -f "$sw/r.json"
                    echo "$(basename "$tr"),h100,$mode,$th,$wall,$h" | tee -a "$out/sweep.csv"
                done
            done
        done
    fi
    stamp done
} 2>&1 | tee "$out/lease.log"
pack
ls -l "$out"
