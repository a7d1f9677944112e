#!/usr/bin/env bash
# The sm_70 listing of a CUDA file: `tests/exec/sm70.sh FILE.cu OUT.sass [nvcc flags]`.
# CUDA 13 (the PyPI nvcc) no longer targets Volta and PyPI has no whole CUDA 12 nvcc (its
# nvidia-cuda-nvcc-cu12 wheel holds ptxas alone), so, as tests/hardware/build.sh does: CUDA 13
# PTX for compute_75, retargeted to sm_70 and assembled by the CUDA 12.9 ptxas; the cubin is
# declared sm_75 to the CUDA 13 cuobjdump (Volta and Turing share the encoding; cuobjdump 13
# refuses SM70) and the listing is labelled sm_70 again.
# Needs WW_NVCC, WW_PTXAS12 and WW_CUOBJDUMP: eval "$(tests/hardware/setup-cuda.sh)".
set -euo pipefail
cu=$1 out=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$WW_NVCC" -O3 "$@" -arch=compute_75 -ptx -o "$tmp/k.ptx75" "$cu"
sed -e 's/^\.version .*/.version 8.8/' -e 's/^\.target sm_75/.target sm_70/' "$tmp/k.ptx75" \
    > "$tmp/k.ptx"
"$WW_PTXAS12" -O3 -arch=sm_70 -o "$tmp/k.cubin" "$tmp/k.ptx"
python3 - "$tmp/k.cubin" "$tmp/k75.cubin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
flags = struct.unpack_from("<I", b, 0x30)[0]
assert flags & 0xff == 70, hex(flags)
struct.pack_into("<I", b, 0x30, 0x4b054b)  # EF_CUDA_SM75 | virtual SM75
open(sys.argv[2], "wb").write(b)
PY
"$WW_CUOBJDUMP" -sass "$tmp/k75.cubin" \
    | sed -e 's/code for sm_75/code for sm_70/' -e 's/\.target\tsm_75/.target\tsm_70/' \
        -e 's/EF_CUDA_SM75 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)/EF_CUDA_SM70 (disassembled as SM75)/' \
    > "$out"
