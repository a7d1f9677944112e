#!/usr/bin/env bash
# Speed of `cycle` mode with each SM core model (core.model = accelsim / modern), one thread,
# on the large sample traces and on titanv (the bench's GPU) and h100: simulated warp
# instructions per second (WIPS), best of ROUNDS runs. BASE_BIN=/path/to/an/older/warpweave adds
# its rows (the same traces read by that build: BASE_TRACES=folder of its sample traces) as the
# "before" of a change. Prints markdown; not a test (figures depend on the machine).
#
# usage: bench/core_models.sh   env: ROUNDS=3 GPUS="titanv h100" BIN=target/release/warpweave
#        BASE_BIN= BASE_TRACES=
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/warpweave}
ROUNDS=${ROUNDS:-3}
GPUS=${GPUS:-titanv h100}
[[ -x $BIN ]] || cargo build --release --features cli >&2
ACCELSIM="--set core.model=accelsim --set scheduler.policy=gto --set regfile.ports_per_bank=2 --set frontend.ibuffer_size=2 --set frontend.fetch_width=2 --set frontend.decode_width=2"
MODERN="--set core.model=modern --set scheduler.policy=cggty --set regfile.banks=2 --set regfile.ports_per_bank=1 --set frontend.ibuffer_size=3 --set frontend.fetch_width=1 --set frontend.decode_width=1 --set mem_pipeline.subcore_unit=true"

# best WIPS and the cycles of `$@` over ROUNDS runs
best() {
    local b=0 cyc=0 out w
    for _ in $(seq "$ROUNDS"); do
        out=$("$@" --threads 1 -q 2>&1)
        w=$(grep -o '[0-9]* warp instructions per second' <<<"$out" | grep -o '^[0-9]*')
        cyc=$(grep -o '^cycles [0-9]*' <<<"$out" | grep -o '[0-9]*')
        (( w > b )) && b=$w
    done
    echo "$b $cyc"
}

echo "| trace | GPU | build | core | cycles | WIPS (best of $ROUNDS) |"
echo "|---|---|---|---|---:|---:|"
for t in sample-traces/large/*.wwt; do
    n=$(basename "$t")
    for g in $GPUS; do
        if [[ -n ${BASE_BIN:-} ]]; then
            read -r w c < <(best "$BASE_BIN" run --gpu "$g" --trace "${BASE_TRACES:-sample-traces/large}/$n")
            echo "| $n | $g | before | preset's | $c | $w |"
        fi
        for core in accelsim modern; do
            sets=$ACCELSIM; [[ $core == modern ]] && sets=$MODERN
            # shellcheck disable=SC2086
            read -r w c < <(best "$BIN" run --gpu "$g" --trace "$t" $sets)
            echo "| $n | $g | this | $core | $c | $w |"
        done
    done
done
