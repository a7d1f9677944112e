// Exports of a finished run: the JSON envelope as the library wrote it (config, mode, trace hash,
// version), CSV in long form (one measurement per row), and Chrome-trace JSON for Perfetto (made
// by the wasm, in cycles).
import { download } from './dom.js';

export function exportJson(run) {
  download(`warpweave-${stem(run)}.json`, run.json, 'application/json');
}

/** Long-form CSV rows [scope, metric, value] of every scalar in the result. */
export function csvRows(env) {
  const rows = [];
  const walk = (v, scope, metric) => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x !== 'object')) rows.push([scope, metric, v.join(' ')]);
      else v.forEach((x, i) => walk(x, `${scope ? scope + '.' : ''}${metric}[${i}]`, ''));
      return;
    }
    if (typeof v === 'object') {
      const sc = metric ? `${scope ? scope + '.' : ''}${metric}` : scope;
      for (const [k, x] of Object.entries(v)) walk(x, sc, k);
      return;
    }
    rows.push([scope, metric, v]);
  };
  walk(env.result, 'result', '');
  for (const [k, v] of [['tool', env.tool], ['version', env.version], ['mode', env.mode], ['gpu', env.gpu], ['trace', env.trace?.name], ['trace_hash', env.trace?.hash]]) rows.unshift(['run', k, v]);
  return rows;
}

export function toCsv(rows) {
  const q = (s) => {
    const t = String(s);
    return /[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  };
  return 'scope,metric,value\n' + rows.map((r) => r.map(q).join(',')).join('\n') + '\n';
}

export function exportCsv(run) {
  download(`warpweave-${stem(run)}.csv`, toCsv(csvRows(run.env)), 'text/csv');
}

/**
 * Chrome trace / Perfetto JSON of the run, built by the simulator itself (the wasm export
 * chromeTrace, the same Rust code as `warpweave run --timeline`): one simulated cycle reads as one
 * nanosecond in Perfetto; the kernels and the IPC and hit-rate counters over the whole run, and
 * the recorded window (when there is one) with a named track per sub-core, execution unit and
 * memory-pipeline stage. sim: the SimWorker that owns the wasm.
 */
export async function chromeTrace(sim, run) {
  const window = run.view?.chrome ? JSON.stringify(run.view.chrome) : undefined;
  return sim.call('chromeTrace', run.json, window);
}

export async function exportChromeTrace(sim, run) {
  download(`warpweave-${stem(run)}.trace.json`, await chromeTrace(sim, run), 'application/json');
}

function stem(run) {
  return `${(run.env.trace?.name || 'run').replace(/[^\w.-]+/g, '_').slice(0, 60)}-${run.env.mode}`;
}
