#!/usr/bin/env python3
"""Summarises the `l2_sides` probe (kernels.cu): L2 read latencies per SM and line.

    python3 tests/hardware/l2_sides.py LOG [LOG ...]

LOG holds the `clk l2_sides PARAMS v0 v1 ...` lines that `bench l2_sides lines=N` prints:
per CTA (smid, 0), then (first read, second read) per line, in SM clock cycles.

Prints the second reads' latency (a line's copy next to the reading SM), the first reads split
into two groups at the widest gap between the sorted latencies (home slice near the SM or
across the fabric), the one-way fabric crossing that the difference implies
(`l2.fabric_latency`), and for every SM the share of its first reads that crossed. An SM
whose share is near 0 or near 1 means the split is by address alone, not by SM side.
"""
import statistics
import sys


def parse(paths):
    runs = []
    for path in paths:
        try:
            f = open(path)
        except OSError as e:
            sys.exit(f"{path}: {e.strerror}")
        with f:
            for line in f:
                t = line.split()
                if len(t) < 3 or t[0] != "clk" or t[1] != "l2_sides":
                    continue
                params = dict(kv.split("=", 1) for kv in t[2:] if "=" in kv)
                vals = [int(x) for x in t[2:] if "=" not in x]
                lines = int(params.get("lines", 16))
                per = 2 * (lines + 1)
                if not vals or len(vals) % per:
                    sys.exit(f"{path}: {len(vals)} values, not a multiple of {per} (lines={lines})")
                for c in range(len(vals) // per):
                    blk = vals[c * per:(c + 1) * per]
                    sm = blk[0]
                    pairs = [(blk[2 + 2 * i], blk[3 + 2 * i]) for i in range(lines)]
                    runs.append((sm, pairs))
    return runs


def split(xs):
    """Threshold at the widest gap between sorted values in their middle 90%."""
    s = sorted(xs)
    lo, hi = len(s) // 20, len(s) - len(s) // 20 - 1
    best, at = -1, None
    for i in range(max(lo, 0), max(hi, 1)):
        gap = s[i + 1] - s[i]
        if gap > best:
            best, at = gap, (s[i] + s[i + 1]) / 2
    return at


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runs = parse(sys.argv[1:])
    if not runs:
        sys.exit("no `clk l2_sides` lines")
    first = [a for _, ps in runs for a, _ in ps]
    second = [b for _, ps in runs for _, b in ps]
    near2 = statistics.median(second)
    cut = split(first)
    far = [a for a in first if a > cut]
    near = [a for a in first if a <= cut]
    print(f"{len(runs)} CTAs, {len(first)} lines")
    print(f"second reads: median {near2:.0f} cycles (p10 {sorted(second)[len(second) // 10]}, "
          f"p90 {sorted(second)[len(second) * 9 // 10]})")
    print(f"first reads: split at {cut:.0f}: {len(near)} at median "
          f"{statistics.median(near):.0f}, {len(far)} at median "
          f"{statistics.median(far) if far else float('nan'):.0f} cycles")
    if far and near:
        gap = statistics.median(far) - statistics.median(near)
        print(f"far - near first reads: {gap:.0f} cycles; one fabric crossing ~{gap / 2:.0f}")
    share = {}
    for sm, ps in runs:
        n, k = share.get(sm, (0, 0))
        share[sm] = (n + len(ps), k + sum(1 for a, _ in ps if a > cut))
    cells = [f"{sm}:{k / n:.2f}" for sm, (n, k) in sorted(share.items())]
    print("far share per SM: " + " ".join(cells))


if __name__ == "__main__":
    main()
