#!/usr/bin/env bash
# Runs one workload of bench under the warpweave Compute Sanitizer tracer and writes its
# records and the kernels' SASS, ready for `warpweave import-sanitizer`:
#
#   trace.sh OUTDIR WORKLOAD key=value ...       e.g. trace.sh t/vecadd vecadd n=4096
#
# Needs: the folder made by build.sh (bench-smXX, libwwtrace.so, libsanitizer-public.so,
# wwtrace_patches.fatbin, sass/) and the NVIDIA driver. compute-sanitizer itself is not used:
# the driver loads the tracer through CUDA_INJECTION64_PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: trace.sh OUTDIR WORKLOAD key=value ...}
shift
sm=${WW_SM:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)}
if [[ -x "$here/pick-bench.sh" ]]; then
    bin=$("$here/pick-bench.sh" "$here" "$sm")
else
    bin="$here/results/bench-sm$sm"  # built by run.sh with the machine's nvcc
fi
[[ -x "$bin" ]] || { echo "no bench for sm_$sm next to trace.sh (run build.sh or run.sh first)"; exit 1; }
mkdir -p "$dir"
# libsanitizer-public.so loads its sibling libraries from its own folder: where the machine has
# compute-sanitizer, its folder comes first, so the copy next to this script is only a fallback.
if san=$(command -v compute-sanitizer); then
    for d in "$(dirname "$san")/../compute-sanitizer" "$(dirname "$(readlink -f "$san")")"; do
        if [[ -f "$d/libsanitizer-public.so" ]]; then
            export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
            break
        fi
    done
fi
# Eager module loading: every module is loaded (and patched) at context creation.
CUDA_MODULE_LOADING=EAGER CUDA_INJECTION64_PATH="$here/libwwtrace.so" WWTRACE_PATCHES="$here/wwtrace_patches.fatbin" \
    WWTRACE_OUT="$dir/records.wwsan" "$bin" "$@"
sass="$here/sass/$(basename "$bin").sass"  # the SASS of the very binary that ran
[[ "$(basename "$bin")" == bench-sm* ]] && sass="$here/sass/kernels-sm$sm.sass"
if [[ ! -f "$sass" ]]; then
    cuobjdump -sass "$bin" > "$dir/kernels.sass"
else
    cp "$sass" "$dir/kernels.sass"
fi
echo "wrote $dir/records.wwsan and $dir/kernels.sass; next:"
echo "  warpweave import-sanitizer --records $dir/records.wwsan --sass $dir/kernels.sass -o $dir/trace"
