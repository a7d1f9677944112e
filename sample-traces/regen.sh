#!/usr/bin/env bash
# Rewrites every trace listed in sample-traces/MANIFEST.toml with `warpweave gen`.
# Usage: sample-traces/regen.sh [path/to/warpweave]   (default: builds the CLI in dev profile)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build -q -p warpweave --features cli
  bin=target/debug/warpweave
fi
python3 - "$bin" <<'PY'
import subprocess, sys, tomllib, shutil, os
bin = sys.argv[1]
m = tomllib.load(open("sample-traces/MANIFEST.toml", "rb"))
for t in m["trace"]:
    out = os.path.join("sample-traces", t["path"])
    if t["format"] == "text" and os.path.isdir(out):
        shutil.rmtree(out)
    cmd = [bin, "gen", t["workload"], "--format", t["format"], "-o", out]
    if t["params"]:
        cmd += ["--param", ",".join(t["params"])]
    subprocess.run(cmd, check=True)
PY
