#!/usr/bin/env bash
# Functional execution rate of `run --launch` (issue 31): warp instructions executed per
# second, single-threaded native, for kernels of tests/hardware/kernels.cu from the sm_90
# listing of the measured binary, and the time from a .cu file to a printed result (nvcc
# included) for a teaching kernel when nvcc is found ($WW_NVCC or PATH). Prints markdown.
# Not a test: figures depend on the machine and its load.
#
# usage: bench/exec_rate.sh    env: BIN=/path/to/warpweave (default: target/release/warpweave)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$root/target/release/warpweave}
[[ -x $bin ]] || (cd "$root/crate" && cargo build --release --features cli --bin warpweave >&2)
dir=$root/target/bench/exec
mkdir -p "$dir"
sass=$root/tests/hardware/traced/h100-holdout/kernels.sm_90.sass.xz
spec() { # name kernel grid block shared args buffers...
    local f=$dir/$1.toml
    printf 'kernel = "%s"\ngrid = %s\nblock = %s\nshared = %s\nargs = %s\n' "$2" "$3" "$4" "$5" "$6" > "$f"
    shift 6
    for b in "$@"; do
        IFS=: read -r name ty len init <<<"$b"
        printf '[[buffer]]\nname = "%s"\ntype = "%s"\nlen = %s\ninit = %s\n' "$name" "$ty" "$len" "$init" >> "$f"
    done
}
spec vecadd-1m vecadd 8192 128 0 '["a", "b", "c", 1048576]' a:f32:1048576:'"iota"' b:f32:1048576:'"iota"' c:f32:1048576:'"zeros"'
spec matmul_tiled-256 matmul_tiled16 '[16, 16]' '[16, 16]' 0 '["a", "b", "c", 256, 256, 256]' a:f32:65536:'{ random = 1 }' b:f32:65536:'{ random = 2 }' c:f32:65536:'"zeros"'
spec reduction-1m reduction 4096 256 1024 '["a", "o", 1048576]' a:f32:1048576:'{ random = 1 }' o:f32:4096:'"zeros"'
spec histogram-256k histogram_atomic 264 256 0 '["a", "h", 262144, 16]' a:u32:262144:'{ random = 3, max = 100000 }' h:u32:16:'"zeros"'
echo "| kernel (sm_90 SASS) | warp insts | exec s | M warp insts/s |"
echo "|---|---:|---:|---:|"
for t in vecadd-1m matmul_tiled-256 reduction-1m histogram-256k; do
    line=$("$bin" run --gpu h100 --sass "$sass" --launch "$dir/$t.toml" --max-cycles 1 2>&1 >/dev/null | grep '^executed')
    n=$(sed 's/executed \([0-9]*\) .*/\1/' <<<"$line")
    s=$(sed 's/.* in \([0-9.]*\) s .*/\1/' <<<"$line")
    r=$(sed 's/.*(\([0-9.]*\) M .*/\1/' <<<"$line")
    echo "| $t | $n | $s | $r |"
done
if nvcc=${WW_NVCC:-$(command -v nvcc || true)}; [[ -n $nvcc ]]; then
    start=$(date +%s.%N)
    WW_NVCC=$nvcc "$bin" run -q --gpu h100 --cuda "$root/tests/exec/teaching.cu" --launch "$root/tests/exec/vecmul.toml" > /dev/null
    end=$(date +%s.%N)
    printf '\n.cu to printed result (vecmul, nvcc included): %.2f s\n' "$(echo "$end - $start" | bc)"
fi
