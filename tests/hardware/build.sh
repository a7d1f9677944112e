#!/usr/bin/env bash
# Builds everything of tests/hardware that a GPU machine needs into one folder that can be
# copied there and run with only the NVIDIA driver, ncu and compute-sanitizer present:
#
#   tests/hardware/build.sh [OUT]      (default OUT: target/cuda/dist, ignored by git)
#
#   OUT/bench-sm{75,80,90}        the workloads (bench.cu + kernels.cu), CUDA 13.5 runtime
#                                 linked statically (needs a CUDA 13 driver, r580+)
#   OUT/bench12-sm{75,80,90}      the same with the CUDA 12.9 runtime and 12.9 ptxas cubins
#                                 (CUDA 12 drivers, r525+); PyPI toolchain only
#   OUT/pick-bench.sh             picks the one the driver runs (run.sh and trace.sh use it)
#   OUT/libwwtrace.so             the Compute Sanitizer tracer (tracer/wwtrace.cpp)
#   OUT/libsanitizer-public.so    its one dependency besides libc/libstdc++ (rpath $ORIGIN)
#   OUT/wwtrace_patches.fatbin    the tracer's device patches for sm_70, 75, 80, 90
#   OUT/sass/kernels-smXX.sass    cuobjdump -sass of bench-smXX (sm_70: of kernels.cu alone)
#   OUT/run.sh, workloads.txt     the ncu driver (uses OUT/bench-smXX when no nvcc is there)
#   OUT/trace.sh                  runs one workload under the tracer -> records file
#
# Uses a system CUDA when `nvcc` is on PATH (WW_NVCC to force one), else the PyPI toolchain of
# setup-cuda.sh. sm_70: CUDA 13 (the PyPI nvcc) no longer targets Volta, so its PTX is
# assembled by the CUDA 12.9 ptxas; its SASS is printed by declaring the cubin sm_75 to the
# CUDA 13 cuobjdump (Volta and Turing share the encoding; cuobjdump 13 refuses SM70).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/target/cuda/dist}
mkdir -p "$out/sass" "$out/obj"
obj="$out/obj"

if [[ -z "${WW_NVCC:-}" ]] && command -v nvcc >/dev/null; then
    WW_NVCC=$(command -v nvcc)
    cuda_root=$(cd "$(dirname "$WW_NVCC")/.." && pwd)
    WW_CUOBJDUMP=${WW_CUOBJDUMP:-$(command -v cuobjdump)}
    WW_PTXAS12=${WW_PTXAS12:-}
    WW_SANITIZER_INC=${WW_SANITIZER_INC:-$cuda_root/compute-sanitizer/include}
    WW_SANITIZER_LIB=${WW_SANITIZER_LIB:-$cuda_root/compute-sanitizer}
    WW_CUDA12_INC=${WW_CUDA12_INC:-$cuda_root/include}
else
    eval "$("$here/setup-cuda.sh")"
fi
echo "nvcc: $WW_NVCC ($("$WW_NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
flags=(-O3 -lineinfo -std=c++17 -Xcompiler -Wall,-Wextra --Werror all-warnings)
san=(-I"$WW_SANITIZER_INC")

# Native targets of this nvcc.
for sm in 75 80 90; do
    "$WW_NVCC" "${flags[@]}" -arch=sm_$sm -o "$out/bench-sm$sm" "$here/bench.cu"
    # The SASS of the very binary trace.sh runs (its PCs are what the tracer records).
    "$WW_CUOBJDUMP" -sass "$out/bench-sm$sm" > "$out/sass/kernels-sm$sm.sass"
done

# The same for CUDA 12 drivers (r525..r575), with the PyPI toolchain only: nvcc 13.5's front
# end with a ptxas shim (PTX .version lowered, assembled by the CUDA 12.9 ptxas: cubins of the
# CUDA 12 ELF ABI) and the CUDA 12.9 runtime linked statically -> OUT/bench12-smXX.
if [[ -n "${WW_PTXAS12:-}" && -n "${WW_CUDART12_LIB:-}" ]]; then
    shim="$out/obj/nvcc12"
    nvroot=$(cd "$(dirname "$WW_NVCC")/.." && pwd)
    mkdir -p "$shim"
    cp -a "$nvroot/bin" "$shim/bin"
    for d in include nvvm lib; do ln -sfn "$nvroot/$d" "$shim/$d"; done
    cp "$WW_PTXAS12" "$shim/bin/ptxas12"
    cat > "$shim/bin/ptxas" <<'SH'
#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
for a in "$@"; do [[ "$a" == *.ptx && -f "$a" ]] && sed -i 's/^\.version .*/.version 8.8/' "$a"; done
exec "$here/ptxas12" "$@"
SH
    chmod +x "$shim/bin/ptxas"
    for sm in 75 80 90; do
        "$shim/bin/nvcc" "${flags[@]}" -arch=sm_$sm -cudart none -o "$out/bench12-sm$sm" \
            "$here/bench.cu" "$WW_CUDART12_LIB/libcudart_static.a" -lrt -ldl -lpthread
        "$WW_CUOBJDUMP" -sass "$out/bench12-sm$sm" > "$out/sass/bench12-sm$sm.sass"
    done
fi

# The tracer's patches, through the 12.9 ptxas when there is one: CUDA 12 ELF cubins load on
# CUDA 12 and 13 drivers alike.
patch_nvcc=$WW_NVCC
[[ -n "${shim:-}" ]] && patch_nvcc="$shim/bin/nvcc"
for sm in 75 80 90; do
    "$patch_nvcc" --cubin --compile-as-tools-patch -O3 -arch=sm_$sm "${san[@]}" \
        -o "$obj/patches-sm$sm.cubin" "$here/tracer/wwtrace_patches.cu"
done

# sm_70: natively if this nvcc still has it, else CUDA 13 PTX through the CUDA 12.9 ptxas.
sm70() {  # $1 source, $2 output cubin, $3 extra ptxas flag
    if "$WW_NVCC" --list-gpu-code 2>/dev/null | grep -qx sm_70; then
        "$WW_NVCC" -O3 -lineinfo -arch=sm_70 -cubin ${3:+--compile-as-tools-patch} "${san[@]}" \
            -o "$2" "$1"
        return
    fi
    [[ -n "${WW_PTXAS12:-}" ]] || { echo "sm_70 needs a CUDA <= 12 ptxas (WW_PTXAS12)"; return 1; }
    "$WW_NVCC" -O3 -lineinfo -arch=compute_75 -ptx ${3:+--compile-as-tools-patch} "${san[@]}" \
        -o "$2.ptx75" "$1"
    sed -e 's/^\.version .*/.version 8.8/' -e 's/^\.target sm_75/.target sm_70/' "$2.ptx75" > "$2.ptx"
    "$WW_PTXAS12" -O3 -lineinfo -arch=sm_70 ${3:+$3} -o "$2" "$2.ptx"
}
# A system CUDA 13 with no CUDA 12 ptxas beside it (a GPU machine building for itself) has no
# Volta at all: sm_70 is then left out of the patches and the SASS, with a message.
images=()
if sm70 "$here/kernels.cu" "$obj/kernels-sm70.cubin" "" &&
    sm70 "$here/tracer/wwtrace_patches.cu" "$obj/patches-sm70.cubin" --compile-as-tools-patch; then
    images+=(--image3=kind=elf,sm=70,file="$obj/patches-sm70.cubin")
python3 - "$obj/kernels-sm70.cubin" "$obj/kernels-sm70-as75.cubin" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
flags = struct.unpack_from("<I", b, 0x30)[0]
assert flags & 0xff == 70, hex(flags)
struct.pack_into("<I", b, 0x30, 0x4b054b)  # EF_CUDA_SM75 | virtual SM75
open(sys.argv[2], "wb").write(b)
PY
"$WW_CUOBJDUMP" -sass "$obj/kernels-sm70-as75.cubin" 2>/dev/null \
    | sed 's/EF_CUDA_SM75 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM75)/EF_CUDA_SM70 (disassembled as SM75)/' \
    > "$out/sass/kernels-sm70.sass"
else
    echo "build.sh: no sm_70 (this nvcc has no Volta and no CUDA 12 ptxas is set): left out"
fi

# The patches of every target in one fatbin.
fatbinary=$(dirname "$WW_NVCC")/fatbinary
"$fatbinary" --64 --create="$out/wwtrace_patches.fatbin" "${images[@]}" \
    --image3=kind=elf,sm=75,file="$obj/patches-sm75.cubin" \
    --image3=kind=elf,sm=80,file="$obj/patches-sm80.cubin" \
    --image3=kind=elf,sm=90,file="$obj/patches-sm90.cubin"

# The injected host library and its one CUDA dependency.
g++ -std=c++17 -O2 -Wall -Wextra -Werror -fPIC -shared -I"$WW_SANITIZER_INC" -I"$WW_CUDA12_INC" \
    -o "$out/libwwtrace.so" "$here/tracer/wwtrace.cpp" -L"$WW_SANITIZER_LIB" \
    -lsanitizer-public -Wl,-rpath,'$ORIGIN'
cp "$WW_SANITIZER_LIB/libsanitizer-public.so" "$out/"
cp "$here/run.sh" "$here/trace.sh" "$here/pick-bench.sh" "$here/workloads.txt" "$out/"
rm -rf "$obj"
du -sh "$out"
