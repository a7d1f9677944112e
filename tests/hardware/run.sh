#!/usr/bin/env bash
# Runs the CUDA versions of the built-in workloads under Nsight Compute and writes
# results/<preset>.csv next to this script (see README.md). Needs ncu, a GPU, and nvcc or the
# prebuilt bench-smXX of build.sh; run it as a
# user allowed to read GPU performance counters (or with sudo -E).
#
#   tests/hardware/run.sh PRESET [SM]      e.g. tests/hardware/run.sh h100 90
#   WW_WORKLOADS=FILE: another workload list (default: workloads.txt next to this script)
#
# Clocks: by default the card is measured as found (ncu --clock-control none); every row records
# the SM and DRAM clock rates ncu measured over the kernel, so rows stay comparable. On a machine
# of your own, WW_NCU_CLOCK=base locks the base clocks for the run (ncu restores them after).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
preset=${1:?usage: run.sh PRESET [SM] (PRESET: the warpweave preset to compare with, e.g. h100)}
sm=${2:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)}
out="$here/results"
mkdir -p "$out"
bin="$out/bench-sm$sm"
if command -v nvcc >/dev/null && [[ -f "$here/bench.cu" ]]; then  # in the repo; build.sh's folder has the prebuilt bench
    nvcc -O3 -lineinfo -std=c++17 -arch="sm_$sm" -o "$bin" "$here/bench.cu"
    cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
elif [[ -x "$here/pick-bench.sh" ]]; then  # the folder build.sh made, copied to this machine
    bin=$("$here/pick-bench.sh" "$here" "$sm")
    cuda="prebuilt-$(basename "$bin")"
else
    echo "no nvcc and no prebuilt bench next to run.sh (run tests/hardware/build.sh elsewhere)"
    exit 1
fi

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
ncu_version=$(ncu --version | tail -1 | sed 's/.*Version //')
clock=${WW_NCU_CLOCK:-none}
metrics="sm__cycles_elapsed.max,gpc__cycles_elapsed.max,sm__cycles_active.avg,\
l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,\
dram__sectors_read.sum,dram__sectors_write.sum,smsp__inst_executed.sum,\
sm__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second,gpu__time_duration.sum"

# L2 traffic from the SMs alone (srcunit_tex): on GPUs whose L2 is split in two halves (A100,
# H100) the plain lts__t_sectors counts also include the traffic between the halves (the
# "L2 fabric"), which the simulator has no counterpart for. Asked for only where this ncu
# knows them (empty columns otherwise).
known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
tex=""
for m in lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum \
    lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum; do
    grep -qx "${m%.*}" <<<"$known" && tex="$tex,$m"
done
metrics="$metrics$tex"
echo "L2 metrics by source unit:${tex:- none known to this ncu}"

csv="$out/$preset.csv"
echo "preset,gpu,sm,driver,cuda,ncu,workload,params,kernel,sm_cycles,gpc_cycles,sm_active_cycles,l1_hit_pct,l2_hit_pct,l2_read_sectors,l2_write_sectors,l2_atom_sectors,l2_red_sectors,dram_read_sectors,dram_write_sectors,warp_insts,sm_hz,dram_hz,duration_ns,clock_control,l2_tex_read_sectors,l2_tex_write_sectors,l2_tex_read_hit_sectors,l2_tex_write_hit_sectors" > "$csv"
raw="$out/ncu-raw"
mkdir -p "$raw"
n=0
while read -r name params; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    n=$((n + 1))
    tag="$n-$name"
    # shellcheck disable=SC2086
    ncu --csv --page raw --print-units base --cache-control all --clock-control "$clock" \
        --metrics "$metrics" "$bin" "$name" $params > "$raw/$tag.csv"
    python3 - "$raw/$tag.csv" "$preset" "$gpu" "$sm" "$driver" "$cuda" "$ncu_version" "$name" "$params" "$clock" >> "$csv" <<'PY'
import csv, sys
path, preset, gpu, sm, driver, cuda, ncu, name, params, clock = sys.argv[1:]
lines = [l for l in open(path) if l.startswith('"')]
rows = list(csv.reader(lines))
head, data = rows[0], rows[2:]  # rows[1] holds the units
if len(data) != 1:
    sys.exit(f"{path}: expected one kernel, found {len(data)}")
d = dict(zip(head, data[0]))
def g(k):
    return d.get(k, "").replace(",", "")
keys = ["sm__cycles_elapsed.max", "gpc__cycles_elapsed.max", "sm__cycles_active.avg",
        "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct",
        "lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum",
        "lts__t_sectors_op_atom.sum", "lts__t_sectors_op_red.sum",
        "dram__sectors_read.sum", "dram__sectors_write.sum", "smsp__inst_executed.sum",
        "sm__cycles_elapsed.avg.per_second", "dram__cycles_elapsed.avg.per_second",
        "gpu__time_duration.sum"]
out = [preset, gpu, sm, driver, cuda, ncu, name, " ".join(params.split()), d.get("Kernel Name", "")]
out += [g(k) for k in keys] + [clock]
out += [g(k) for k in ["lts__t_sectors_srcunit_tex_op_read.sum",
                       "lts__t_sectors_srcunit_tex_op_write.sum",
                       "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
                       "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum"]]
csv.writer(sys.stdout, lineterminator="\n").writerow(out)
PY
    echo "$tag done"
done < "${WW_WORKLOADS:-$here/workloads.txt}"
echo "wrote $csv ($n kernels). Compare: cargo test --features cli --test hardware_compare -- --nocapture"
