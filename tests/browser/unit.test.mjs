// Pure front-end logic, in node (no browser): URL state, format detection, the CLI command of
// the size refusal, long-form CSV and the Chrome trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeState, decodeState } from '../../www/js/state.js';
import { detectFormat, cliCommand } from '../../www/js/upload.js';
import { csvRows, toCsv, chromeTrace } from '../../www/js/export.js';

test('URL state round-trips and carries only what differs', () => {
  const s = { preset: 'a100', mode: 'hybrid', workload: 'matmul_tiled', params: { n: '256' }, overrides: { 'l1d.cache.size_kb': '64' }, upload: false, sass: null };
  const frag = encodeState(s);
  assert.equal(frag, '#v=1&gpu=a100&mode=hybrid&w=matmul_tiled&p.n=256&c.l1d.cache.size_kb=64');
  assert.deepEqual(decodeState(frag), s);
  assert.equal(decodeState(''), null);
  assert.equal(decodeState('#foo=bar'), null);
  const up = decodeState(encodeState({ preset: 'teaching', mode: 'alu=cycle,memory=analytical', upload: true, params: {}, overrides: {} }));
  assert.equal(up.upload, true);
  assert.equal(up.workload, null);
  assert.equal(up.mode, 'alu=cycle,memory=analytical');
  assert.match(decodeState('#v=9&gpu=x').error, /newer version/);
  // An unedited example of the SASS tab travels by name.
  const sa = decodeState(encodeState({ preset: 'teaching', mode: 'memory', sass: 'vecmul', params: {}, overrides: {} }));
  assert.equal(sa.sass, 'vecmul');
  assert.equal(sa.workload, null);
});

test('a single-preset edit of every key stays under 2000 characters', () => {
  const long = 'x'.repeat(40);
  const frag = encodeState({ preset: 'rtx2080ti', mode: 'cycle', workload: 'transpose_tiled', params: { rows: '4096', cols: '4096', pad: '1' }, overrides: { [`frontend.l1i.${long}`]: '123456' } });
  assert.ok(('https://example.org/warpweave/' + frag).length < 2000);
});

test('format detection from magic bytes', () => {
  const b = (...x) => Uint8Array.from(x);
  assert.equal(detectFormat(b(0x89, 0x57, 0x57, 0x54, 0x52, 0x43, 0x0d, 0x0a, 1)), 'compact');
  assert.equal(detectFormat(b(0x1f, 0x8b, 8)), 'text+gzip');
  assert.equal(detectFormat(b(0x28, 0xb5, 0x2f, 0xfd)), 'text+zstd');
  assert.equal(detectFormat(b(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)), 'text+xz');
  assert.equal(detectFormat(new TextEncoder().encode('-kernel name = k\n')), 'text');
  assert.equal(detectFormat(b(0, 1, 2)), 'unknown');
  assert.equal(detectFormat(b()), 'empty');
});

test('the refusal names the exact CLI command', () => {
  assert.equal(cliCommand([{ name: 'big.traceg' }], 'a100', 'fast'), 'warpweave run --trace big.traceg --gpu a100 --mode fast');
  assert.equal(cliCommand([{ name: "it's.wwt" }], 'a100', 'cycle'), "warpweave run --trace 'it'\\''s.wwt' --gpu a100 --mode cycle");
  assert.equal(cliCommand([{ name: 'x', webkitRelativePath: 'run1/kernelslist.g' }, { name: 'y', webkitRelativePath: 'run1/kernel-1.traceg' }], 't', 'memory'), 'warpweave run --trace run1 --gpu t --mode memory');
});

test('long-form CSV has one row per measurement', () => {
  const env = { tool: 'warpweave', version: '0.1.0', mode: 'cycle', gpu: 't', trace: { name: 'n', hash: 'h' }, result: { cycles: 246, kernels: [{ name: 'k,1', ipc: 0.5 }], model: { alu: 'cycle' } } };
  const rows = csvRows(env);
  assert.deepEqual(rows.slice(-4), [['result', 'cycles', 246], ['result.kernels[0]', 'name', 'k,1'], ['result.kernels[0]', 'ipc', 0.5], ['result.model', 'alu', 'cycle']]);
  assert.match(toCsv(rows), /^scope,metric,value\n/);
  assert.match(toCsv(rows), /result\.kernels\[0\],name,"k,1"\n/);
});

test('the Chrome trace export asks the simulator for it, with the window when there is one', async () => {
  const calls = [];
  const sim = { call: async (...args) => { calls.push(args); return '{"traceEvents":[]}'; } };
  const view = { chrome: { traceEvents: [{ ph: 'X', name: 'FFMA', pid: 12, tid: 13, ts: 0.005, dur: 0.004 }] } };
  assert.equal(await chromeTrace(sim, { json: '{"mode":"cycle"}', view }), '{"traceEvents":[]}');
  assert.equal(await chromeTrace(sim, { json: '{"mode":"memory"}' }), '{"traceEvents":[]}');
  assert.deepEqual(calls, [
    ['chromeTrace', '{"mode":"cycle"}', JSON.stringify(view.chrome)],
    ['chromeTrace', '{"mode":"memory"}', undefined],
  ]);
});

test('cache view state: the last snapshot plus every change up to the cycle', async () => {
  const { cacheState } = await import('../../www/js/cache-state.js');
  const geometry = { sets: 2, assoc: 2, line_bytes: 128, sector_bytes: 32 };
  const way = (set, w, line, valid, dirty = 0) => ({ set, way: w, line, valid, dirty });
  const frames = [
    { l1: { snapshot: { geometry, ways: [way(0, 1, 0x100, 15)] }, accesses: [], changed: [] } },
    { l1: { accesses: [], changed: [way(1, 1, 0x80, 1)] } },
    { l1: { accesses: [], changed: [way(0, 1, null, 0)] } },
    { l1: { snapshot: { geometry, ways: [] }, accesses: [], changed: [] } },
  ];
  const at = (i) => [...cacheState(frames, i).ways.values()].map((w) => [w.set, w.way, w.line]);
  assert.deepEqual(at(0), [[0, 1, 0x100]]);
  assert.deepEqual(at(1), [[0, 1, 0x100], [1, 1, 0x80]]);
  assert.deepEqual(at(2), [[1, 1, 0x80]]);
  assert.deepEqual(at(3), []);
  assert.equal(cacheState([{ l1: { accesses: [], changed: [] } }], 0), null);
});

