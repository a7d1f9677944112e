// Simulation speed in WebAssembly (node), without wasm-bindgen: instantiates the library's
// wasm32 build and calls its plain C-ABI exports `ww_compact_alloc` (trace/compact/mod.rs) and
// `ww_simulate` / `ww_sim_cycles` (crate/src/engine/wasm_bench.rs). GPU: titanv, one thread.
//
// usage: node bench/wasm_sim.mjs target/wasm32-unknown-unknown/release/warpweave.wasm MODE a.wwt [b.wwt ...]
//        MODE: cycle | hybrid | fast | memory
// prints one line per file: <file> <mode> <cycles> <warp instructions> <seconds> <warp instructions per second>
// WARM=1: each file is simulated untimed first in the same instance, again and again for at
// least half a second (V8 compiles wasm with its baseline tier and re-compiles hot functions
// with its optimising tier in the background: after one short run, a 30 ms simulation still
// ran ~40% slower than in steady state), and then once timed: the steady-state speed, with the
// wasm memory grown. Without it the timed run includes that warm-up (cold: what a page pays on
// its first simulation).
import fs from 'node:fs';

const [wasmPath, mode, ...files] = process.argv.slice(2);
const modes = { cycle: 0, hybrid: 1, fast: 2, memory: 3 };
if (!(mode in modes)) throw new Error(`mode ${mode}: expected one of ${Object.keys(modes)}`);
const mod = await WebAssembly.compile(fs.readFileSync(wasmPath));
// Stub every import (wasm-bindgen placeholders, if any): the simulation path never calls them.
const imports = {};
for (const imp of WebAssembly.Module.imports(mod)) {
  imports[imp.module] ??= {};
  if (imp.kind === 'function') {
    imports[imp.module][imp.name] = () => { throw new Error(`unexpected import call ${imp.module}.${imp.name}`); };
  }
}
const instance = await WebAssembly.instantiate(mod, imports);
const { memory, ww_compact_alloc, ww_simulate, ww_sim_cycles } = instance.exports;
for (const f of files) {
  const data = fs.readFileSync(f);
  const ptr = ww_compact_alloc(data.length);
  new Uint8Array(memory.buffer, ptr, data.length).set(data);
  if (process.env.WARM) {
    const until = performance.now() + 500;
    do ww_simulate(ptr, data.length, modes[mode]);
    while (performance.now() < until);
  }
  const t0 = performance.now();
  const n = ww_simulate(ptr, data.length, modes[mode]);
  const dt = (performance.now() - t0) / 1000;
  if (n < 0) throw new Error(`${f}: simulation failed in wasm`);
  console.log(`${f} ${mode} ${ww_sim_cycles()} ${n} ${dt.toFixed(3)} ${Math.round(n / dt)}`);
}
