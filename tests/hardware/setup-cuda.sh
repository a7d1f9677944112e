#!/usr/bin/env bash
# Installs a CUDA toolchain that needs no GPU from PyPI wheels into a Python venv under
# target/cuda (ignored by git) and prints where things are, as shell assignments:
#
#   eval "$(tests/hardware/setup-cuda.sh)"      # sets WW_NVCC, WW_PTXAS12, WW_CUOBJDUMP, ...
#   eval "$(WW_CUDA_PARTS=compiler tests/hardware/setup-cuda.sh)"   # nvcc and cuobjdump only
#
# Why two CUDA versions: the only PyPI wheel with a whole nvcc (cudafe++, cicc, nvlink) is
# CUDA 13 (`nvidia-cuda-nvcc` + `nvidia-cuda-crt` + `nvidia-nvvm`); `nvidia-cuda-nvcc-cu12`
# holds ptxas alone. CUDA 13 no longer targets sm_70, so build.sh compiles sm_70 as
# CUDA 13 PTX -> CUDA 12.9 ptxas. The Compute Sanitizer API is the CUDA 12.9 one
# (`nvidia-cuda-sanitizer-api-cu12`), which matches a 12.x driver and compute-sanitizer.
# build.sh and run.sh prefer a system CUDA (nvcc on PATH) when there is one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="${WW_CUDA_VENV:-$root/target/cuda/venv}"
log() { echo "$@" >&2; }

if [[ ! -x "$venv/bin/python" ]]; then
    log "creating $venv"
    python3 -m venv "$venv"
fi
# The compiler alone (nvcc, cuobjdump, nvdisasm: what `warpweave run --cuda` and
# `warpweave cuda sass` need) with WW_CUDA_PARTS=compiler; everything the hardware work needs
# otherwise.
pkgs=(nvidia-cuda-nvcc==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-nvvm==13.5.37
      nvidia-cuda-runtime==13.5.37 nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37)
if [[ "${WW_CUDA_PARTS:-all}" != compiler ]]; then
    pkgs+=(nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79
           nvidia-cuda-sanitizer-api-cu12==12.9.79 nvidia-cuda-cupti-cu12==12.9.79)
fi
names=()
for p in "${pkgs[@]}"; do names+=("${p%%==*}"); done
if ! "$venv/bin/python" -m pip show "${names[@]}" >/dev/null 2>&1; then
    log "installing ${pkgs[*]}"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pkgs[@]}" >&2
fi
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
nv="$site/nvidia"
cat <<ENV
WW_NVCC=$nv/cu13/bin/nvcc
WW_PTXAS12=$nv/cuda_nvcc/bin/ptxas
WW_CUOBJDUMP=$nv/cu13/bin/cuobjdump
WW_NVDISASM=$nv/cu13/bin/nvdisasm
WW_CUDA_INC=$nv/cu13/include
WW_CUDART_LIB=$nv/cu13/lib
WW_SANITIZER_INC=$nv/cuda_sanitizer_api/include
WW_SANITIZER_LIB=$nv/cuda_sanitizer_api/lib
WW_CUDA12_INC=$nv/cuda_runtime/include
WW_CUDART12_LIB=$nv/cuda_runtime/lib
ENV
