#!/usr/bin/env python3
"""SASS of kernels.cu against warpweave's workload models (tests/hardware/README.md's table).

  sass_stats.py SASS_DIR WARPWEAVE     (SASS_DIR: build.sh's OUT/sass; WARPWEAVE: the CLI)

Per kernel and target: static SASS instructions up to the last EXIT (no trailing BRA/NOPs),
global / shared loads and stores, barriers, loops (backward branches) with their body size and
memory instructions; and the same counted on the model: warp 0 of CTA 0 of `warpweave gen`
(dynamic instructions, distinct PCs, memory instructions per loop iteration).
"""
import collections, os, re, subprocess, sys, tempfile

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
FUNC = re.compile(r"Function : (\S+)")


def parse_sass(path):
    funcs, cur = {}, None
    for line in open(path):
        m = FUNC.search(line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = LINE.search(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), (m.group(2) or "").strip(), m.group(3), m.group(4)))
    return funcs


def kind(op):
    b = op.split(".")[0]
    return {"LDG": "ldg", "STG": "stg", "LDS": "lds", "STS": "sts", "BAR": "bar",
            "RED": "stg", "ATOMG": "ldg"}.get(b)


def sass_stats(insts):
    last_exit = max(i for i, x in enumerate(insts) if x[2] == "EXIT")
    body = insts[: last_exit + 1]
    c = collections.Counter(kind(x[2]) for x in body)
    loops = []
    for i, (pc, pred, op, args) in enumerate(body):
        if op.startswith("BRA"):
            t = re.search(r"0x([0-9a-f]+)", args)
            if t and int(t.group(1), 16) <= pc:
                tgt = int(t.group(1), 16)
                inner = [x for x in body if tgt <= x[0] <= pc]
                mem = sum(1 for x in inner if kind(x[2]) in ("ldg", "stg", "lds", "sts"))
                loops.append((len(inner), mem))
    return len(body), c, loops


def model_stats(ww, workload, params, bv):
    with tempfile.TemporaryDirectory() as d:
        p = ",".join(params + [f"binary_version={bv}"])
        subprocess.run([ww, "gen", workload, "-p", p, "-o", d, "--format", "text"], check=True,
                       capture_output=True)
        f = [x for x in os.listdir(d) if x.endswith(".traceg")][0]
        insts, in_w0 = [], False
        for line in open(os.path.join(d, f)):
            if line.startswith("warp = "):
                if in_w0:
                    break
                in_w0 = line.strip() == "warp = 0"
                continue
            if in_w0 and re.match(r"^[0-9a-f]{4} ", line):
                t = line.split()
                pc, n = int(t[0], 16), int(t[2])
                insts.append((pc, t[3 + n]))
    c = collections.Counter(kind(op) for _, op in insts)
    seen = collections.Counter(pc for pc, _ in insts)
    ops = dict(insts)
    body = sum(1 for pc in ops if seen[pc] > 1)
    mem_per_iter = sum(1 for pc, op in ops.items() if seen[pc] > 1 and kind(op) in ("ldg", "stg", "lds", "sts"))
    return len(insts), len(seen), c, (body, mem_per_iter), max(seen.values())


# (kernel in kernels.cu, workload, params, binary version -> target)
CASES = [
    ("vecadd", "vecadd", ["n=4096"]),
    ("vecadd4", "vecadd", ["n=4096", "vec=4"]),
    ("saxpy", "saxpy", ["n=4096"]),
    ("transpose_naive", "transpose_naive", ["rows=64", "cols=64"]),
    ("transpose_tiled0", "transpose_tiled", ["rows=64", "cols=64"]),
    ("matmul_naive", "matmul_naive", ["m=32", "n=32", "k=32"]),
    ("matmul_tiled16", "matmul_tiled", ["m=32", "n=32", "k=32"]),
    ("reduction", "reduction", ["n=1024"]),
    ("pointer_chase", "pointer_chase", ["footprint=4096", "stride=128", "iters=16"]),
    ("ffma_dep", "ffma_dep", ["n=128"]),
    ("ffma_indep8", "ffma_indep", ["n=64", "chains=8"]),
    ("stream_load8", "stream_load", ["ctas=2", "threads=64", "reps=2", "unroll=8", "warm=0"]),
]


def fmt(c):
    return f"{c['ldg']}/{c['stg']}/{c['lds']}/{c['sts']}/{c['bar']}"


def main():
    sass_dir, ww = sys.argv[1], sys.argv[2]
    print("| kernel | sm | SASS static (LDG/STG/LDS/STS/BAR) | SASS loops (body, mem) | model warp 0: dynamic, PCs (LDG/STG/LDS/STS/BAR) | model loop (body, mem) x trips |")
    print("|---|---|---|---|---|---|")
    for sm in (70, 75, 80, 90):
        funcs = parse_sass(os.path.join(sass_dir, f"kernels-sm{sm}.sass"))
        for kern, wl, params in CASES:
            n, c, loops = sass_stats(funcs[kern])
            try:
                mn, mpcs, mc, mit, trips = model_stats(ww, wl, params, sm)
                model = f"{mn}, {mpcs} ({fmt(mc)})"
                mm = f"({mit[0]}, {mit[1]}) x {trips}" if trips > 1 else "-"
            except subprocess.CalledProcessError as e:
                model, mm = f"gen failed: {e.stderr.decode().strip()[:60]}", ""
            lp = " ".join(f"({a}, {b})" for a, b in loops) or "-"
            print(f"| {kern} | {sm} | {n} ({fmt(c)}) | {lp} | {model} | {mm} |")


main()
