#!/usr/bin/env python3
"""The probes table from the log lease.sh brings back.

    python3 tests/hardware/probes_csv.py probes.log "NVIDIA H100 80GB HBM3 (driver D, CUDA C)" \\
        > tests/hardware/results/h100-probes.csv
    python3 tests/hardware/probes_csv.py --self-test

probes.log holds `clk WORKLOAD PARAMS t0 t1 ...` lines, one per probe run (lease.sh runs each
probe of holdout-workloads.txt three times): a (start, end) pair of SM clock readings per warp.
The table has, per probe and warp, the median delta of the runs, in the order the probes first
appear; `crate/src/validate/probes.rs` reads it. Probes with their own summary (`l2_sides`)
are left out. The log keeps the absolute readings, which tell the order the warps ran in.

--self-test: turns results/h100-probes.csv into a log of three runs per probe (each warp's
delta lowered, kept and raised) and checks that the table comes back byte for byte.
"""
import os
import statistics
import sys

HEADER = "workload,params,warp,cycles"
OWN_SUMMARY = {"l2_sides"}


def table(log_lines, gpu):
    runs = {}
    order = []
    for line in log_lines:
        t = line.split()
        if len(t) < 2 or t[0] != "clk" or t[1] in OWN_SUMMARY:
            continue
        params = " ".join(x for x in t[2:] if "=" in x)
        vals = [int(x) for x in t[2:] if "=" not in x]
        if len(vals) % 2:
            raise SystemExit(f"`{line.strip()[:80]}`: an odd count of clock readings")
        key = (t[1], params)
        if key not in runs:
            runs[key] = []
            order.append(key)
        runs[key].append([vals[2 * i + 1] - vals[2 * i] for i in range(len(vals) // 2)])
    out = [
        f"# In-kernel SM clock (clock64) deltas of the probes of holdout-workloads.txt on an {gpu}, "
        f"run plainly (no profiler); per warp, the median of {max((len(r) for r in runs.values()), default=0)} runs.",
        HEADER,
    ]
    for key in order:
        per_run = runs[key]
        warps = min(len(r) for r in per_run)
        for w in range(warps):
            med = statistics.median_low([r[w] for r in per_run])
            out.append(f"{key[0]},{key[1]},{w},{med}")
    return "\n".join(out) + "\n"


def self_test():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "results", "h100-probes.csv")
    text = open(path).read()
    comment = text.splitlines()[0]
    prefix = "# In-kernel SM clock (clock64) deltas of the probes of holdout-workloads.txt on an "
    gpu = comment[len(prefix):comment.index(", run plainly")]
    rows = {}
    order = []
    for line in text.splitlines()[2:]:
        w, p, warp, cycles = line.split(",")
        if (w, p) not in rows:
            rows[(w, p)] = []
            order.append((w, p))
        rows[(w, p)].append(int(cycles))
    log = []
    for shift in (-5, 0, 7):
        for (w, p) in order:
            pairs = []
            for i, c in enumerate(rows[(w, p)]):
                start = 1000 * (i + 1)
                pairs += [start, start + c + shift]
            log.append(" ".join(["clk", w] + ([p] if p else []) + [str(x) for x in pairs]))
    log.append("clk l2_sides lines=1 5 0 300 250")
    got = table(log, gpu)
    if got != text:
        for a, b in zip(got.splitlines(), text.splitlines()):
            if a != b:
                raise SystemExit(f"self-test: `{a}` where the table has `{b}`")
        raise SystemExit("self-test: line counts differ")
    print(f"probes_csv self-test: {len(text.splitlines()) - 2} rows round-trip")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    try:
        f = open(sys.argv[1])
    except OSError as e:
        raise SystemExit(f"{sys.argv[1]}: {e.strerror}")
    with f:
        sys.stdout.write(table(f, sys.argv[2]))


if __name__ == "__main__":
    main()
