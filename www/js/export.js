// Exports of a finished run: the JSON envelope as the library wrote it (config, mode, trace hash,
// version), CSV in long form (one measurement per row), and Chrome-trace JSON for Perfetto.
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
 * Chrome trace (the JSON Array/Object format Perfetto and chrome://tracing open). Kernels become
 * complete ('X') events on the GPU track; timestamps are simulated cycles shown as microseconds
 * (1 cycle = 1 us in the viewer). With a timeline (timing modes) warp slots get their own tracks;
 * the memory mode has no time, so its kernels are laid end to end, one unit each, with their
 * statistics as arguments.
 */
/**
 * env: the result envelope; view: the recorded window (timelineJson), if any. Counters: IPC and
 * the L1D/L2 hit rates over time (pid 1); the window's per-SM tracks keep the CLI's
 * `--timeline` events with pid = 100 + SM.
 */
export function chromeTrace(env, view) {
  const events = [{ name: 'process_name', ph: 'M', pid: 1, tid: 0, args: { name: `warpweave ${env.gpu} (${env.mode})` } }];
  events.push({ name: 'thread_name', ph: 'M', pid: 1, tid: 0, args: { name: 'kernels' } });
  const r = env.result || {};
  const kernels = Array.isArray(r.kernels) ? r.kernels : env.trace?.kernels || [];
  let t = 0;
  kernels.forEach((k, i) => {
    const start = typeof k.launched_at === 'number' ? k.launched_at : t;
    const dur = typeof k.cycles === 'number' ? k.cycles : 1;
    const args = {};
    for (const [key, v] of Object.entries(k)) if (typeof v !== 'object') args[key] = v;
    events.push({ name: k.name || `kernel ${i}`, cat: 'kernel', ph: 'X', pid: 1, tid: 0, ts: start, dur, args });
    t = start + dur;
  });
  const tl = r.timeline;
  if (tl && Array.isArray(tl.events)) {
    for (const e of tl.events) events.push({ cat: 'warp', ph: 'X', pid: 2, ...e });
  }
  const series = env.ipc_over_time;
  if (series && Array.isArray(series.cycle)) {
    series.cycle.forEach((c, i) => {
      events.push({ name: 'IPC', ph: 'C', pid: 1, ts: c, args: { ipc: series.ipc[i] } });
      const l1 = series.l1_hit_rate?.[i];
      const l2 = series.l2_hit_rate?.[i];
      const args = {};
      if (l1 !== null && l1 !== undefined) args.L1D = l1;
      if (l2 !== null && l2 !== undefined) args.L2 = l2;
      if (Object.keys(args).length) events.push({ name: 'hit rate', ph: 'C', pid: 1, ts: c, args });
    });
  }
  for (const e of view?.chrome?.traceEvents || []) events.push({ ...e, pid: 100 + (e.pid || 0) });
  return JSON.stringify({ traceEvents: events, displayTimeUnit: 'ns', otherData: { tool: env.tool, version: env.version, trace_hash: env.trace?.hash, time_unit: 'cycles' } });
}

export function exportChromeTrace(run) {
  download(`warpweave-${stem(run)}.trace.json`, chromeTrace(run.env, run.view), 'application/json');
}

function stem(run) {
  return `${(run.env.trace?.name || 'run').replace(/[^\w.-]+/g, '_').slice(0, 60)}-${run.env.mode}`;
}
