// Results: a summary first, then one section per part of the report. Memory-mode reports
// (mem::functional) get their dedicated tables (cache levels, DRAM, per-PC hot spots) and a
// chart with its table; any other report is rendered generically (scalars as a metric table,
// arrays of records as tables), so every number the library returns is shown.
import { h, table, fmt } from './dom.js';
import { chart } from './charts.js';

const MAX_ROWS = 200;

/** Summary rows [metric, value] of a result envelope. */
export function summaryRows(env, elapsedMs) {
  const r = env.result || {};
  const rows = [
    ['trace', env.trace?.name],
    ['trace hash', env.trace?.hash],
    ['GPU', env.gpu],
    ['mode', env.mode],
    ['kernels', env.trace?.kernels?.length],
    ['CTAs', (env.trace?.kernels || []).reduce((a, k) => a + k.ctas, 0)],
  ];
  if (typeof r.cycles === 'number') {
    rows.push(['cycles', r.cycles]);
    rows.push(['IPC (warp instructions per cycle)', r.ipc]);
    rows.push(['simulated time (µs)', r.seconds * 1e6]);
    rows.push(['warp instructions', r.warp_insts]);
    rows.push(['thread instructions', r.thread_insts]);
    const k = r.kernels?.[0];
    if (k && typeof k.exec_cycles === 'number') {
      rows.push(['kernel 0 duration cycles (compare with a measured kernel duration × clock)', k.duration_cycles]);
      rows.push(['kernel 0 execution cycles (first CTA issued to last CTA done)', k.exec_cycles]);
      rows.push(['kernel 0 launch overhead cycles (Nsight Compute elapsed cycles include all of it)', k.launch_cycles]);
    }
    const k0 = r.kernels?.[0]?.occupancy;
    if (k0) rows.push(['occupancy (kernel 0)', `${k0.ctas_per_sm} CTAs/SM (${k0.ctas_per_sm * k0.warps_per_cta} warps), limited by ${k0.limiter}`]);
    if (r.core) rows.push(['SM core model', r.core]);
    if (r.model) rows.push(['model', Object.entries(r.model).map(([k, v]) => `${k}=${v}`).join(' ')]);
  }
  if (env.mode === 'memory' && Array.isArray(r.kernels)) {
    const sum = (f) => r.kernels.reduce((a, k) => a + f(k), 0);
    const l1a = sum((k) => k.l1.accesses);
    const l2a = sum((k) => k.l2.accesses);
    rows.push(['memory instructions', sum((k) => k.mem_instructions)]);
    rows.push(['L1 requests', l1a]);
    rows.push(['L1 hit rate', l1a ? sum((k) => k.l1.hits) / l1a : 0]);
    rows.push(['L2 requests', l2a]);
    rows.push(['L2 hit rate', l2a ? sum((k) => k.l2.hits) / l2a : 0]);
    rows.push(['DRAM read sectors', sum((k) => k.dram_read_sectors)]);
    rows.push(['DRAM write sectors', sum((k) => k.dram_write_sectors)]);
  }
  if (env.held_out) rows.push(['accuracy of this GPU preset', env.held_out]);
  if (elapsedMs !== undefined) rows.push(['wall time in this browser (ms)', Math.round(elapsedMs)]);
  return rows.filter((r) => r[1] !== undefined);
}

/** Hit rate of a cache level's counters, or undefined without accesses. */
const rate = (l) => (l && l.accesses ? l.hits / l.accesses : undefined);
const pct = (v) => (typeof v === 'number' ? `${(100 * v).toFixed(1)} %` : undefined);

/** Bytes with a binary unit. */
function bytes(n) {
  if (typeof n !== 'number') return undefined;
  const u = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) {
    n /= 1024;
    i++;
  }
  return `${i ? n.toFixed(1) : n} ${u[i]}`;
}

/** The one-screen overview of a result: [key, label, value, detail] tiles, in reading order. */
export function overviewTiles(env) {
  const r = env.result || {};
  const tiles = [];
  const add = (key, label, value, detail) => value !== undefined && value !== null && value !== '' && tiles.push([key, label, value, detail]);
  const n = (v) => (typeof v === 'number' ? v.toLocaleString('en-US') : undefined);
  if (typeof r.cycles === 'number') {
    const durs = (r.kernels || []).map((k) => k.duration_cycles).filter((v) => typeof v === 'number');
    add('cycles', 'Cycles', n(r.cycles), durs.length ? `duration ${durs.length > 1 ? `${n(durs.reduce((a, b) => a + b, 0))} over ${durs.length} kernels` : n(durs[0])} (kernel start to end, comparable with a measured duration)` : undefined);
    add('ipc', 'IPC', typeof r.ipc === 'number' ? r.ipc.toFixed(3) : undefined, `${n(r.warp_insts)} warp instructions`);
    if (typeof r.seconds === 'number') add('time', 'Simulated time', `${(r.seconds * 1e6).toFixed(2)} µs`, undefined);
    if (r.stall_stack) {
      const all = Object.entries(r.stall_stack);
      const tot = all.reduce((a, [, v]) => a + v, 0) || 1;
      const top = all.filter(([k, v]) => k !== 'issued' && v > 0).sort((a, b) => b[1] - a[1]).slice(0, 3);
      add('stalls', 'Largest stall reasons', top.length ? top.map(([k, v]) => `${k.replace(/_/g, ' ')} ${((100 * v) / tot).toFixed(1)} %`).join(', ') : 'none', 'share of scheduler cycles without an issue');
    }
    const m = r.memory || {};
    add('l1', 'L1D hit rate', pct(rate(m.sm?.l1)), m.sm?.l1 ? `${n(m.sm.l1.accesses)} accesses` : undefined);
    add('l2', 'L2 hit rate', pct(rate(m.partitions?.l2)), m.partitions?.l2 ? `${n(m.partitions.l2.accesses)} accesses` : undefined);
    const d = m.partitions?.dram;
    if (d) add('dram', 'DRAM traffic', bytes(d.read_bytes + d.write_bytes), `${bytes(d.read_bytes)} read, ${bytes(d.write_bytes)} written`);
  } else if (env.mode === 'memory' && Array.isArray(r.kernels)) {
    const sum = (f) => r.kernels.reduce((a, k) => a + f(k), 0);
    add('l1', 'L1D hit rate', pct(rate({ accesses: sum((k) => k.l1.accesses), hits: sum((k) => k.l1.hits) })), `${n(sum((k) => k.l1.accesses))} requests`);
    add('l2', 'L2 hit rate', pct(rate({ accesses: sum((k) => k.l2.accesses), hits: sum((k) => k.l2.hits) })), `${n(sum((k) => k.l2.accesses))} requests`);
    const rd = sum((k) => k.dram_read_sectors) * 32;
    const wr = sum((k) => k.dram_write_sectors) * 32;
    add('dram', 'DRAM traffic', bytes(rd + wr), `${bytes(rd)} read, ${bytes(wr)} written`);
  }
  add('mode', 'Mode and core model', [env.mode, r.core].filter(Boolean).join(', '), r.model ? Object.entries(r.model).map(([k, v]) => `${k}=${v}`).join(' ') : undefined);
  const nk = env.trace?.kernels?.length ?? 0;
  add('gpu', 'GPU and trace', env.gpu, `${env.trace?.name ?? ''} (${nk} kernel${nk === 1 ? '' : 's'})`);
  add('accuracy', 'Error against hardware', env.held_out ?? 'not measured for this preset', env.held_out ? undefined : 'only presets fitted to a real GPU carry a measured error');
  return tiles;
}

function overview(env, elapsedMs) {
  const r = env.result || {};
  const dl = h(
    'dl',
    { class: 'tiles', id: 'overview-tiles' },
    overviewTiles(env).map(([key, label, value, detail]) => h('div', { class: `tile tile-${key}`, dataset: { key } }, h('dt', { text: label }), h('dd', { class: 'tile-value', text: value }), detail ? h('dd', { class: 'tile-detail', text: detail }) : null)),
  );
  const sec = h('section', { class: 'res', id: 'res-overview', 'aria-labelledby': 'overview-h' }, h('h3', { id: 'overview-h', text: 'At a glance' }), dl);
  // What dominates the result and is easy to misread (the CLI prints the same notes).
  if (Array.isArray(r.notes) && r.notes.length) sec.append(h('div', { id: 'res-notes' }, h('h4', { text: 'Notes' }), h('ul', { id: 'notes-list' }, r.notes.map((x) => h('li', { text: x })))));
  if (elapsedMs !== undefined) sec.append(h('p', { class: 'hint', text: `Simulated in this browser in ${Math.round(elapsedMs).toLocaleString('en-US')} ms.` }));
  return sec;
}

export function renderResults(container, env, elapsedMs) {
  container.replaceChildren();
  container.append(overview(env, elapsedMs));
  // The long tables, collapsed under the overview.
  const more = h('details', { id: 'res-tables', class: 'res-tables' }, h('summary', { text: 'All tables and charts' }));
  container.append(more);
  more.append(h('section', { class: 'res', id: 'res-summary' }, table('Summary', ['metric', 'value'], summaryRows(env, elapsedMs), { id: 'summary-table' })));
  const r = env.result || {};
  if (env.mode === 'memory' && Array.isArray(r.kernels)) renderMemory(more, r);
  else if (typeof r.cycles === 'number' && r.stall_stack) {
    renderTiming(more, r);
    const t = env.ipc_over_time;
    if (t && t.cycle.length) {
      more.append(
        h('section', { class: 'res', id: 'res-ipc-time' }, h('h3', { text: 'IPC over time' }),
          chart({ id: 'chart-ipc-time', title: `IPC over time (samples every ${t.interval} cycles)`, xLabel: 'cycle', x: t.cycle, series: [{ label: 'IPC (whole GPU)', values: t.ipc, dash: [] }] })),
      );
      const l1 = t.l1_hit_rate || [];
      const l2 = t.l2_hit_rate || [];
      if (l1.some((v) => v !== null) || l2.some((v) => v !== null)) {
        more.append(
          h('section', { class: 'res', id: 'res-hit-time' }, h('h3', { text: 'Cache hit rates over time' }),
            h('p', { class: 'hint', text: 'Hits / accesses in each interval; an empty cell is an interval without accesses to that level.' }),
            chart({
              id: 'chart-hit-time',
              title: `Hit rate per level over time (samples every ${t.interval} cycles)`,
              xLabel: 'cycle',
              x: t.cycle,
              series: [
                { label: 'L1D hit rate (all SMs)', values: l1, dash: [] },
                { label: 'L2 hit rate (all slices)', values: l2, dash: [6, 4] },
              ],
            })),
        );
      }
    }
  }
  more.append(h('section', { class: 'res' }, h('details', {}, h('summary', { text: 'Full report (every field)' }), generic(r, 'result'))));
}

const LEVELS = [
  ['l1', 'L1D'],
  ['constant', 'constant cache'],
  ['l2', 'L2'],
];

function renderMemory(container, r) {
  // Cache statistics per level.
  const cacheRows = [];
  r.kernels.forEach((k, i) => {
    for (const [key, label] of LEVELS) {
      const l = k[key];
      cacheRows.push([`${i}: ${label}`, l.accesses, l.hits, l.hit_rate, l.reads, l.read_hit_rate, l.writes, l.write_hit_rate, l.sectors, l.sector_hits, l.next_read_sectors, l.next_write_sectors]);
    }
  });
  const sec = h('section', { class: 'res', id: 'res-caches' }, h('h3', { text: 'Caches' }));
  sec.append(
    table('Cache statistics per kernel and level', ['kernel: level', 'accesses', 'hits', 'hit rate', 'reads', 'read hit rate', 'writes', 'write hit rate', 'sectors', 'sector hits', 'next-level read sectors', 'next-level write sectors'], cacheRows, { id: 'cache-table' }),
  );
  const x = r.kernels.map((_, i) => i);
  sec.append(
    chart({
      id: 'chart-hitrate',
      title: 'Hit rate per kernel',
      xLabel: 'kernel',
      x,
      series: [
        { label: 'L1D hit rate', values: r.kernels.map((k) => k.l1.hit_rate), dash: [] },
        { label: 'L2 hit rate', values: r.kernels.map((k) => k.l2.hit_rate), dash: [6, 4] },
        { label: 'SDCM-predicted L1 hit rate', values: r.kernels.map((k) => k.sdcm?.l1_hit_rate ?? null), dash: [2, 3] },
      ],
    }),
  );
  container.append(sec);

  // Kernels overview (divergence, carve-out, shared memory).
  const kRows = r.kernels.map((k, i) => [`${i}: ${k.name}`, k.ctas, k.mem_instructions, k.requests, k.sectors, k.sectors_per_instruction, k.requests_per_instruction, k.l1_global_load_hit_rate, k.carveout?.l1_kb, k.carveout?.shmem_kb, k.atomics]);
  container.append(
    h(
      'section',
      { class: 'res', id: 'res-kernels' },
      h('h3', { text: 'Kernels' }),
      table('Per kernel: coalescing and carve-out', ['kernel', 'CTAs', 'memory instructions', 'line requests', 'sectors', 'sectors / instruction', 'requests / instruction', 'L1 global-load hit rate', 'L1 KiB', 'shared KiB', 'atomics'], kRows, { id: 'kernel-table' }),
    ),
  );

  // DRAM.
  const dRows = r.kernels.map((k, i) => [`${i}: ${k.name}`, k.dram_read_sectors, k.dram_write_sectors, (k.dram_read_sectors + k.dram_write_sectors) * 32]);
  container.append(h('section', { class: 'res', id: 'res-dram' }, h('h3', { text: 'DRAM' }), table('DRAM traffic per kernel (32-byte sectors)', ['kernel', 'read sectors', 'write sectors', 'bytes'], dRows, { id: 'dram-table' })));

  // Shared memory.
  const sRows = r.kernels.map((k, i) => [`${i}: ${k.name}`, ...Object.values(k.shared || {}).filter((v) => typeof v === 'number')]);
  const sHead = ['kernel', ...Object.entries(r.kernels[0]?.shared || {}).filter(([, v]) => typeof v === 'number').map(([k]) => k.replace(/_/g, ' '))];
  if (sHead.length > 1) container.append(h('section', { class: 'res', id: 'res-shared' }, h('h3', { text: 'Shared memory' }), table('Shared memory per kernel', sHead, sRows)));

  // Per-PC hot spots.
  const pcs = [];
  r.kernels.forEach((k, i) => (k.per_pc || []).forEach((p) => pcs.push({ k: i, ...p })));
  pcs.sort((a, b) => b.requests - a.requests || a.k - b.k || a.pc - b.pc);
  const top = pcs.slice(0, 30);
  const pcRows = top.map((p) => [`${p.k}: 0x${p.pc.toString(16).padStart(4, '0')}`, p.requests, p.l1_hits, p.l2_hits, p.dram, p.requests ? p.l1_hits / p.requests : 0]);
  container.append(
    h('section', { class: 'res', id: 'res-hotspots' }, h('h3', { text: 'Hot spots' }), table(`Memory instructions with the most line requests (top ${top.length} of ${pcs.length})`, ['kernel: PC', 'requests', 'L1 hits', 'L2 hits', 'DRAM', 'L1 hit rate'], pcRows, { id: 'pc-table' })),
  );

  // SDCM baseline.
  const sd = r.kernels.map((k, i) => [`${i}: ${k.name}`, ...Object.values(k.sdcm || {}).filter((v) => typeof v === 'number')]);
  const sdHead = ['kernel', ...Object.entries(r.kernels[0]?.sdcm || {}).filter(([, v]) => typeof v === 'number').map(([k]) => k.replace(/_/g, ' '))];
  if (sdHead.length > 1) container.append(h('section', { class: 'res' }, h('h3', { text: 'Reuse-distance (SDCM) baseline' }), table('SDCM prediction per kernel (stack-distance cache model)', sdHead, sd)));
}

/** A table whose last column is a bar drawn with text, so the value never relies on colour. */
function barTable(caption, head, rows, attrs) {
  const t = table(caption, [...head, 'share'], rows.map((r) => [...r.slice(0, -1), r[r.length - 1]]), attrs);
  const max = Math.max(1e-12, ...rows.map((r) => r[r.length - 1]));
  t.querySelectorAll('tbody tr').forEach((tr, i) => {
    const v = rows[i][rows[i].length - 1];
    const td = tr.lastChild;
    td.replaceChildren(h('span', { class: 'bar', style: `width:${Math.round((100 * v) / max)}px` }), ` ${(100 * v).toFixed(1)} %`);
  });
  return t;
}

function renderTiming(container, r) {
  // Stall (CPI) stack.
  const st = Object.entries(r.stall_stack);
  const tot = st.reduce((a, [, v]) => a + v, 0) || 1;
  container.append(
    h('section', { class: 'res', id: 'res-stalls' }, h('h3', { text: 'Stall (CPI) stack' }),
      barTable('Scheduler cycles by reason, all SMs and sub-cores', ['reason', 'scheduler-cycles', 'CPI contribution'], st.map(([k, v]) => [k.replace(/_/g, ' '), v, r.warp_insts ? v / r.warp_insts : 0, v / tot]), { id: 'stall-table' })),
  );
  // Unit utilisation.
  const t = r.totals || {};
  const units = Object.entries(t.units || {});
  const sub = Math.max(1, (t.subcores || []).length);
  const ac = Math.max(1, t.active_cycles || 1);
  container.append(
    h('section', { class: 'res', id: 'res-units' }, h('h3', { text: 'Execution units' }),
      barTable('Unit dispatches and busy cycles (share: busy cycles per sub-core active cycle)', ['unit', 'dispatches', 'busy cycles', 'utilisation'], units.map(([k, u]) => [k, u.dispatches, u.busy_cycles, Math.min(1, u.busy_cycles / (ac * sub))]), { id: 'unit-table' })),
  );
  // Per kernel.
  const kRows = (r.kernels || []).map((k) => [`${k.launch}: ${k.name}`, k.ctas, k.launched_at, k.end_at, k.cycles, k.warp_insts, k.ipc, `${k.occupancy?.ctas_per_sm} (${k.occupancy?.limiter})`]);
  container.append(h('section', { class: 'res', id: 'res-kernels' }, h('h3', { text: 'Kernels' }), table('Per kernel', ['kernel', 'CTAs', 'launched at', 'ended at', 'cycles', 'warp instructions', 'IPC', 'CTAs per SM (limiter)'], kRows, { id: 'kernel-table' })));
  // Per SM and per sub-core.
  const sms = r.per_sm || [];
  const smSec = h('section', { class: 'res', id: 'res-sms' }, h('h3', { text: 'SMs and sub-cores' }));
  smSec.append(chart({ id: 'chart-sm-ipc', title: 'IPC per SM (active cycles)', xLabel: 'SM', x: sms.map((s) => s.id), series: [{ label: 'IPC', values: sms.map((s) => s.ipc), dash: [] }] }));
  smSec.append(table('Per SM', ['SM', 'warp instructions', 'active cycles', 'IPC', 'sub-core IPC'], sms.map((s) => [s.id, s.warp_insts, s.active_cycles, s.ipc, s.subcore_ipc.map((x) => x.toFixed(3)).join(' / ')]), { id: 'sm-table' }));
  smSec.append(
    table('Per sub-core (all SMs)', ['sub-core', 'warp instructions', 'thread instructions', 'L0I hits', 'L0I misses', 'register-bank conflicts', 'result-bus conflicts', 'WAR holds'], (t.subcores || []).map((c, i) => [i, c.warp_insts, c.thread_insts, c.l0i_hits, c.l0i_misses, c.reg_bank_conflicts, c.result_bus_conflicts, c.war_holds]), { id: 'subcore-table' }),
  );
  container.append(smSec);
  // Caches and memory requests.
  const m = t.mem || {};
  const cRows = [['L1I hits', t.l1i_hits], ['L1I misses', t.l1i_misses], ...Object.entries(m).map(([k, v]) => [k.replace(/_/g, ' '), v])].filter((x) => typeof x[1] === 'number');
  container.append(h('section', { class: 'res', id: 'res-caches' }, h('h3', { text: 'Caches and memory requests' }), table('Instruction caches and memory pipeline', ['counter', 'value'], cRows, { id: 'cache-table' })));
  // Per-PC hot spots.
  const pcs = [];
  (r.kernels || []).forEach((k) => (k.per_pc || []).forEach((p) => pcs.push({ k: k.launch, ...p })));
  pcs.sort((a, b) => b.stall_cycles - a.stall_cycles || b.issued - a.issued || a.k - b.k || a.pc - b.pc);
  const top = pcs.slice(0, 30);
  container.append(
    h('section', { class: 'res', id: 'res-hotspots' }, h('h3', { text: 'Hot spots' }),
      table(`Instructions with the most stall cycles (top ${top.length} of ${pcs.length})`, ['kernel: PC', 'issued', 'stall cycles', 'stall cycles per issue'], top.map((p) => [`${p.k}: 0x${p.pc.toString(16).padStart(4, '0')}`, p.issued, p.stall_cycles, p.issued ? p.stall_cycles / p.issued : 0]), { id: 'pc-table' })),
  );
}

/** Generic rendering of any JSON report. */
export function generic(v, name) {
  if (Array.isArray(v)) {
    if (v.length && v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) {
      const cols = [...new Set(v.flatMap((x) => Object.keys(x).filter((k) => typeof x[k] !== 'object' || x[k] === null)))];
      const rows = v.slice(0, MAX_ROWS).map((x, i) => [i, ...cols.map((c) => x[c])]);
      const wrap = h('div', {}, table(`${name} (${v.length} rows${v.length > MAX_ROWS ? `, first ${MAX_ROWS} shown` : ''})`, ['#', ...cols], rows));
      const nestedKeys = [...new Set(v.flatMap((x) => Object.keys(x).filter((k) => x[k] && typeof x[k] === 'object')))];
      for (const k of nestedKeys) {
        v.slice(0, 16).forEach((x, i) => {
          if (x[k] && typeof x[k] === 'object') wrap.append(h('details', {}, h('summary', { text: `${name}[${i}].${k}` }), generic(x[k], `${name}[${i}].${k}`)));
        });
      }
      return wrap;
    }
    return h('p', { text: `${name}: ${fmt(v.slice(0, 64))}${v.length > 64 ? ' …' : ''}` });
  }
  if (v && typeof v === 'object') {
    const scalars = Object.entries(v).filter(([, x]) => x === null || typeof x !== 'object' || (Array.isArray(x) && x.every((y) => typeof y !== 'object')));
    const nested = Object.entries(v).filter(([, x]) => x && typeof x === 'object' && !(Array.isArray(x) && x.every((y) => typeof y !== 'object')));
    const wrap = h('div', {});
    if (scalars.length) wrap.append(table(name, ['metric', 'value'], scalars));
    for (const [k, x] of nested) wrap.append(h('details', { open: nested.length <= 4 }, h('summary', { text: `${name}.${k}` }), generic(x, `${name}.${k}`)));
    return wrap;
  }
  return h('p', { text: `${name}: ${fmt(v)}` });
}
