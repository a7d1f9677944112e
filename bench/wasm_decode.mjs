// Decode speed of the compact format in WebAssembly (node), without wasm-bindgen: instantiates the
// library's wasm32 build and calls its plain C-ABI exports `ww_compact_alloc` / `ww_compact_decode`
// (crate/src/trace/compact/mod.rs, module wasm_bench).
//
// usage: node bench/wasm_decode.mjs target/wasm32-unknown-unknown/release/warpweave.wasm SECONDS a.wwt [b.wwt ...]
// prints one line per file: <file> <warp instructions> <rounds> <seconds> <warp instructions per second>
import fs from 'node:fs';

const [wasmPath, secsArg, ...files] = process.argv.slice(2);
const secs = Number(secsArg);
const mod = await WebAssembly.compile(fs.readFileSync(wasmPath));
// Stub every import (wasm-bindgen placeholders, if any): the decode path never calls them.
const imports = {};
for (const imp of WebAssembly.Module.imports(mod)) {
  imports[imp.module] ??= {};
  if (imp.kind === 'function') {
    imports[imp.module][imp.name] = () => { throw new Error(`unexpected import call ${imp.module}.${imp.name}`); };
  }
}
const instance = await WebAssembly.instantiate(mod, imports);
const { memory, ww_compact_alloc, ww_compact_decode } = instance.exports;
for (const f of files) {
  const data = fs.readFileSync(f);
  const ptr = ww_compact_alloc(data.length);
  new Uint8Array(memory.buffer, ptr, data.length).set(data);
  let n = 0;
  let rounds = 0;
  const t0 = performance.now();
  while (rounds === 0 || performance.now() - t0 < 1000 * secs) {
    n = ww_compact_decode(ptr, data.length);
    if (n < 0) throw new Error(`${f}: decode failed in wasm`);
    rounds++;
  }
  const dt = (performance.now() - t0) / 1000;
  console.log(`${f} ${n} ${rounds} ${dt.toFixed(3)} ${Math.round((n * rounds) / dt)}`);
}
