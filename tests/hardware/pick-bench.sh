#!/usr/bin/env bash
# Prints the prebuilt bench (from build.sh) that runs on this machine's driver:
#   pick-bench.sh DIR SM    -> DIR/bench-smSM (CUDA 13 runtime) if it runs, else
#                              DIR/bench12-smSM (CUDA 12 runtime); exit 1 if neither runs.
# Probe: a 32-element vecadd, so a failure is the driver, not the workload.
dir=${1:?usage: pick-bench.sh DIR SM}
sm=${2:?usage: pick-bench.sh DIR SM}
for b in "$dir/bench-sm$sm" "$dir/bench12-sm$sm"; do
    if [[ -x "$b" ]] && "$b" vecadd n=32 >/dev/null 2>&1; then
        echo "$b"
        exit 0
    fi
done
echo "pick-bench.sh: neither $dir/bench-sm$sm nor $dir/bench12-sm$sm runs here" >&2
for b in "$dir/bench-sm$sm" "$dir/bench12-sm$sm"; do [[ -x "$b" ]] && "$b" vecadd n=32 >&2; done
exit 1
