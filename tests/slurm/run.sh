#!/usr/bin/env bash
# End-to-end test of `warpweave sweep --emit slurm` on a real single-node SLURM cluster.
#
#   tests/slurm/run.sh [WARPWEAVE_BINARY] [PLAN]
#
# Installs Debian's slurmctld/slurmd/slurm-client/munge if missing (needs root and apt-get; if
# that is impossible it prints SKIP and exits 0), starts a private munged, slurmctld and slurmd
# under one temporary folder (SLURM_CONF points there, nothing system-wide changes, ports 16817/
# 16818), runs the plan locally, emits it as a job array, submits it with sbatch, waits (timeout),
# collects the parts, and checks that the collected CSV equals the local one byte for byte.
# Always tears down (EXIT trap). About 10 s after the install.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-${WARPWEAVE_BIN:-$ROOT/target/debug/warpweave}}
PLAN=${2:-${SWEEP_PLAN:-$ROOT/configs/sweeps/test-2x2.toml}}
TIMEOUT=${SLURM_TEST_TIMEOUT:-60}
CHUNKS=${SLURM_TEST_CHUNKS:-3}

say() { echo "[slurm-test] $*"; }
die() { say "FAIL: $*"; exit 1; }

[ -x "$BIN" ] || die "no CLI binary at $BIN (build it: cargo build --features cli)"
[ -f "$PLAN" ] || die "no plan at $PLAN"
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
PLAN=$(cd "$(dirname "$PLAN")" && pwd)/$(basename "$PLAN")

have_slurm() {
  for c in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged mungekey; do
    command -v "$c" >/dev/null 2>&1 || return 1
  done
}
# The daemons and the install need root: re-run under passwordless sudo when that is possible.
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  exec sudo -n -E env "PATH=$PATH" "$0" "$BIN" "$PLAN"
fi
if ! have_slurm; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    say "SKIP: SLURM/munge are not installed and apt-get cannot install them (needs root and apt-get)"
    exit 0
  fi
  say "installing slurmctld slurmd slurm-client munge"
  export DEBIAN_FRONTEND=noninteractive
  pkgs="slurmctld slurmd slurm-client munge"
  aptlog=$(mktemp -t ww-slurm-apt.XXXXXX)
  if ! apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends $pkgs >"$aptlog" 2>&1; then
    apt-get -o DPkg::Lock::Timeout=300 update >>"$aptlog" 2>&1 || true
    if ! apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends $pkgs >>"$aptlog" 2>&1; then
      tail -5 "$aptlog"
      say "SKIP: apt-get could not install the SLURM packages (see $aptlog)"
      exit 0
    fi
  fi
  have_slurm || die "packages installed but commands still missing"
fi

START=$(date +%s)
B=$(mktemp -d -t ww-slurm.XXXXXX)
chmod 755 "$B"
mkdir -p "$B/munge" "$B/log" "$B/state" "$B/spool" "$B/run"
chmod 755 "$B/munge"
export SLURM_CONF="$B/slurm.conf"
DAEMONS=()
OK=0

alive() { # PID is running and not a zombie
  [ -r "/proc/$1/stat" ] || return 1
  local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || echo Z)
  [ "$st" != Z ]
}

teardown() {
  set +e
  if [ -f "$SLURM_CONF" ] && [ -n "${CTLD:-}" ] && alive "$CTLD"; then
    scancel --user=root >/dev/null 2>&1
    for _ in $(seq 50); do
      [ -z "$(squeue -h 2>/dev/null)" ] && break
      sleep 0.2
    done
    scontrol shutdown >/dev/null 2>&1
  fi
  local mpid=""
  [ -f "$B/munge/pid" ] && mpid=$(cat "$B/munge/pid")
  for p in "${DAEMONS[@]}" $mpid; do
    for _ in $(seq 25); do alive "$p" || break; sleep 0.2; done
    alive "$p" && kill "$p" 2>/dev/null
    for _ in $(seq 25); do alive "$p" || break; sleep 0.2; done
    alive "$p" && kill -9 "$p" 2>/dev/null
  done
  if [ "$OK" = 1 ]; then
    rm -rf "$B"
  else
    say "logs kept in $B/log"
    for f in "$B"/log/*.log "$B"/out/slurm/logs/*.out; do
      [ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }
    done
  fi
}
trap teardown EXIT

# --- munge ---------------------------------------------------------------------------------------
mungekey -c -f -k "$B/munge/munge.key"
munged --key-file="$B/munge/munge.key" -S "$B/munge/munge.socket.2" --pid-file="$B/munge/pid" \
  --log-file="$B/log/munged.log" --seed-file="$B/munge/seed" </dev/null >/dev/null 2>&1 \
  || die "munged did not start (see $B/log/munged.log)"

# --- slurm.conf ----------------------------------------------------------------------------------
NODE=$(hostname -s)
LAYOUT=$(slurmd -C | head -1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
MEM=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
cat >"$SLURM_CONF" <<CONF
ClusterName=ci
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$B/munge/munge.socket.2
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
StateSaveLocation=$B/state
SlurmdSpoolDir=$B/spool
SlurmctldPidFile=$B/run/slurmctld.pid
SlurmdPidFile=$B/run/slurmd.pid
SlurmctldLogFile=$B/log/slurmctld.log
SlurmdLogFile=$B/log/slurmd.log
NodeName=$NODE NodeAddr=127.0.0.1 $LAYOUT RealMemory=$MEM
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -D -i </dev/null >"$B/log/slurmctld.out" 2>&1 &
CTLD=$!
DAEMONS+=("$CTLD")
slurmd -D -N "$NODE" </dev/null >"$B/log/slurmd.out" 2>&1 &
DAEMONS+=("$!")

for i in $(seq 150); do
  st=$(sinfo -h -n "$NODE" -o %t 2>/dev/null || true)
  [ "$st" = idle ] && break
  [ "$i" = 150 ] && die "node $NODE never became idle (state: '${st}')"
  sleep 0.2
done
say "cluster up in $(( $(date +%s) - START )) s"

# --- local run and SLURM run ---------------------------------------------------------------------
mkdir -p "$B/out"
"$BIN" sweep "$PLAN" --out "$B/out/local" --quiet >/dev/null
"$BIN" sweep "$PLAN" --emit slurm "$B/out/slurm" --chunks "$CHUNKS" >/dev/null
JOB=$(sbatch --parsable "$B/out/slurm/sweep.sbatch") || die "sbatch failed"
say "submitted array job $JOB ($CHUNKS tasks)"

DEADLINE=$(( $(date +%s) + TIMEOUT ))
while :; do
  n=0
  for i in $(seq 0 $((CHUNKS - 1))); do
    [ -f "$B/out/slurm/part-$i.json" ] && n=$((n + 1))
  done
  [ "$n" = "$CHUNKS" ] && break
  if [ -z "$(squeue -h -j "$JOB" 2>/dev/null)" ]; then
    sleep 0.5   # parts are renamed into place just before a task ends
    n=0
    for i in $(seq 0 $((CHUNKS - 1))); do [ -f "$B/out/slurm/part-$i.json" ] && n=$((n + 1)); done
    [ "$n" = "$CHUNKS" ] && break
    die "the job left the queue with $n of $CHUNKS parts written"
  fi
  [ "$(date +%s)" -ge "$DEADLINE" ] && die "timed out after ${TIMEOUT} s with $n of $CHUNKS parts"
  sleep 0.3
done

"$BIN" sweep collect "$B/out/slurm" >/dev/null
if ! cmp -s "$B/out/local/results.csv" "$B/out/slurm/results.csv"; then
  diff "$B/out/local/results.csv" "$B/out/slurm/results.csv" || true
  die "collected CSV differs from the local run"
fi
for f in "$B"/out/local/plots/*.svg "$B"/out/local/plots/*.png; do
  cmp -s "$f" "$B/out/slurm/plots/$(basename "$f")" || die "plot $(basename "$f") differs"
done
rows=$(( $(wc -l <"$B/out/local/results.csv") - 1 ))
OK=1
say "PASS: $rows runs, collected CSV and plots equal the local run ($(( $(date +%s) - START )) s)"
