// The module Web Worker that owns the wasm. The page talks to it only with plain messages:
//
//   page -> worker: {type:'hello'} | {type:'run', id, source, config, mode, record?} | {type:'cancel', id}
//                   source: {kind:'workload', name, params} | {kind:'files', files}
//                           | {kind:'sass', listing, listingName, spec}
//                   record: {sm, from, to} asks for the pipeline/cache views' window
//   worker -> page: {type:'ready', version, api} | {type:'progress', id, phase, cycles, ctasDone, ctasTotal}
//                   {type:'result', id, result, timeline?} | {type:'error', id, kind, message}
//
// Runs proceed in slices (SimHandle.runFor) so progress is posted at most ~10 times a second and a
// cancel message is heard between slices; the page also terminates the Worker outright when a
// cancel is not acknowledged at once.
import init, * as ww from './pkg/warpweave.js';

let panicMessage = null;
const origError = console.error;
// console_error_panic_hook writes the panic to console.error: remember it for the error report.
console.error = (...args) => {
  const s = args.map(String).join(' ');
  if (s.includes('panicked at')) panicMessage = s;
  origError.apply(console, args);
};

const ready = init().then(
  () => ({ ok: true }),
  (e) => ({ ok: false, message: String(e && e.message ? e.message : e) }),
);
let cancelled = new Set();

self.onmessage = async (e) => {
  const msg = e.data || {};
  const st = await ready;
  if (!st.ok) {
    self.postMessage({ type: 'error', id: msg.id, kind: 'load', message: 'The simulator module failed to load: ' + st.message });
    return;
  }
  try {
    switch (msg.type) {
      case 'hello':
        self.postMessage({ type: 'ready', version: ww.version(), api: apiInfo() });
        break;
      case 'cancel':
        cancelled.add(msg.id);
        break;
      case 'call':
        // Small synchronous queries (presets, schema, workloads, config import, export helpers).
        self.postMessage({ type: 'reply', id: msg.id, value: callApi(msg.fn, msg.args || []) });
        break;
      case 'run':
        await run(msg);
        break;
      default:
        self.postMessage({ type: 'error', id: msg.id, kind: 'input', message: 'unknown message ' + msg.type });
    }
  } catch (err) {
    self.postMessage({ type: 'error', id: msg.id, ...describe(err) });
  }
};

function apiInfo() {
  return Object.keys(ww).filter((k) => typeof ww[k] === 'function' && k !== 'default');
}

function callApi(fn, args) {
  if (typeof ww[fn] !== 'function' || fn === 'default' || fn.startsWith('init')) {
    throw new Error('the simulator has no function ' + fn);
  }
  return ww[fn](...args);
}

// Classifies an exception: wasm out-of-memory, a Rust panic, or an input error from Rust.
export function describe(err) {
  const message = String(err && err.message !== undefined ? err.message : err);
  if (err instanceof RangeError || /out of memory|memory access out of bounds|Cannot allocate/i.test(message)) {
    return { kind: 'oom', message: 'The browser ran out of memory for this run (' + message + '). Use the command-line tool for large traces.' };
  }
  if (err instanceof WebAssembly.RuntimeError || panicMessage) {
    const m = panicMessage || message;
    panicMessage = null;
    return { kind: 'panic', message: 'The simulator stopped on an internal error: ' + m };
  }
  return { kind: 'input', message };
}

const SLICE_MS = 100; // at most ~10 progress messages per second

async function run(msg) {
  const { id } = msg;
  const t0 = performance.now();
  if (typeof ww.SimHandle !== 'function') {
    throw new Error('this build of the simulator has no SimHandle (the engine has not landed yet)');
  }
  const handle = openHandle(msg);
  try {
    if (msg.record) handle.record(msg.record.sm, msg.record.from, msg.record.to);
    let slice = 2000; // cycles per runFor call, adapted so one slice takes about SLICE_MS
    let lastPost = 0;
    for (;;) {
      if (cancelled.has(id)) {
        cancelled.delete(id);
        self.postMessage({ type: 'cancelled', id });
        return;
      }
      const s0 = performance.now();
      const p = handle.runFor(slice);
      const dt = performance.now() - s0;
      if (dt < SLICE_MS / 4) slice = Math.min(slice * 2, 1 << 24);
      else if (dt > SLICE_MS) slice = Math.max(16, Math.floor(slice / 2));
      const now = performance.now();
      if (p.done || now - lastPost >= SLICE_MS) {
        lastPost = now;
        self.postMessage({ type: 'progress', id, ...p, elapsedMs: now - t0 });
      }
      if (p.done) break;
      // Yield to the event loop so a 'cancel' message can be delivered between slices.
      await new Promise((r) => setTimeout(r, 0));
    }
    const result = handle.resultJson();
    const timeline = msg.record ? handle.timelineJson() : undefined;
    self.postMessage({ type: 'result', id, result, timeline, elapsedMs: performance.now() - t0 });
  } finally {
    handle.free();
  }
}

function openHandle(msg) {
  const { source, config, mode } = msg;
  if (source.kind === 'workload') {
    return ww.SimHandle.fromWorkload(source.name, JSON.stringify(source.params || {}), config, mode);
  }
  if (source.kind === 'sass') {
    return ww.SimHandle.fromSass(source.listing, source.listingName, source.spec, config, mode);
  }
  // Uploaded files: [{name, bytes: Uint8Array}]
  const names = source.files.map((f) => f.name);
  const datas = source.files.map((f) => f.bytes);
  return ww.SimHandle.fromFiles(names, datas, config, mode);
}
