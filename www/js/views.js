// The pipeline view (warp slots and units x cycles, one column per cycle) and the cache
// view (the recorded SM's L1D, sets x ways, with this cycle's hits and misses), with the drawn
// SM (sm-view.js). All step together: back, forward, play at a chosen speed, jump to a cycle;
// keyboard on the pipeline canvas (arrows, Home/End, Space). Colour never carries meaning alone: every cell has a letter
// or a shape, and the text picture and tables below give the same content for the current cycle.
// Data: the wasm's timelineJson() = {timeline: {from, to, units, kernels, sms: [...]}, text}.
import { h, table } from './dom.js';
import { cacheState } from './cache-state.js';
import { smLayout, drawSm } from './sm-view.js';

const $ = (id) => document.getElementById(id);

// Slot states: letter, fill colour, meaning.
const SLOT = {
  issued: ['I', '#1f4e99', 'issued this cycle'],
  ready: ['R', '#6fae5f', 'ready to issue'],
  stalled: ['S', '#e8a33d', 'stalled (reason in the table)'],
  draining: ['D', '#b9bec5', 'draining (nothing left to issue)'],
  empty: ['', '#ffffff', 'no warp'],
};
// Stall reasons as the text picture names them (StallKind::name).
const STALL_NAME = { mem_structural: 'mem_struct', comp_structural: 'comp_struct', i_fetch: 'ifetch' };
const CELL_W = 12;
const CELL_H = 14;
const LABEL_W = 110;

const view = { data: null, si: 0, fi: 0, rows: [], timer: null };

export function clearViews() {
  stop();
  view.data = null;
  $('views').hidden = true;
}

/** Why a window shows no warp: the run ended first, or the window lies inside the launch
 *  latency (before the first CTA issues) or after the SM's last CTA. */
function emptyReason(tl, sm, ctx) {
  const k0 = ctx?.env?.result?.kernels?.[0];
  const cycles = ctx?.env?.result?.cycles;
  const launch = typeof k0?.launch_cycles === 'number' ? k0.launch_cycles : ctx?.launchLatency;
  if (typeof cycles === 'number' && tl.from >= cycles) return `the run ended at cycle ${cycles.toLocaleString('en-US')}, before the window starts.`;
  if (launch && tl.to <= launch)
    return `the window (cycles ${tl.from}..${tl.to}) lies inside the kernel launch latency: the first CTA is issued at cycle ${launch.toLocaleString('en-US')} (sm.kernel_launch_latency). Leave "cycles from" empty to start at the first issue, or set it to ${launch}.`;
  return `SM ${sm} held no warp in these cycles (its CTAs had not arrived or had finished); try another SM or window.`;
}

/** Shows a recorded window (the parsed timelineJson); ctx: {env, launchLatency, auto} to
 *  explain an empty window. */
export function showViews(data, ctx = {}) {
  stop();
  const tl = data.timeline;
  const sm = tl.sms[0];
  const busy = sm && sm.frames.some((f) => f.subcores.some((sc) => sc.slots.some((x) => x.state !== 'empty')));
  if (!sm || !sm.frames.length) {
    $('views').hidden = false;
    $('views-info').textContent = `Nothing was recorded: ${emptyReason(tl, tl.sms[0]?.sm ?? 0, ctx)}`;
    $('pipe-controls').hidden = true;
    $('pipeline').hidden = true;
    $('smview').hidden = true;
    $('cacheview').hidden = true;
    return;
  }
  view.data = data;
  view.si = 0;
  view.fi = 0;
  view.rows = layoutRows(sm);
  view.sm = smLayout(tl, sm);
  $('views').hidden = false;
  $('smview').hidden = false;
  $('pipe-controls').hidden = false;
  $('pipeline').hidden = false;
  const first = sm.frames[0].cycle;
  const last = sm.frames[sm.frames.length - 1].cycle;
  const start = ctx.auto && ctx.launchLatency ? ' The window starts where the first CTA is issued, after the kernel launch latency.' : '';
  $('views-info').textContent = `SM ${sm.sm}, cycles ${first} to ${last} (${sm.frames.length} frames${sm.truncated ? ', truncated' : ''}).${start}${busy ? '' : ` No warp in this window: ${emptyReason(tl, sm.sm, ctx)}`}`;
  $('views-info').dataset.empty = busy ? '0' : '1';
  $('pipe-slider').max = String(sm.frames.length - 1);
  $('pipe-jump').min = String(first);
  $('pipe-jump').max = String(last);
  $('pipe-legend').textContent =
    'Warp slot rows: ' +
    Object.values(SLOT)
      .filter((s) => s[0])
      .map((s) => `${s[0]} = ${s[2]}`)
      .join(', ') +
    `.${view.dropped ? ` ${view.dropped} unit, collector or memory rows held nothing in this window and are not drawn (in hybrid and fast modes those modules are analytical and have no per-cycle state).` : ''} Unit and collector rows: the number of instructions in them. Memory rows: D dispatch, A address/coalesce, number of buffered requests, W write-back. L1D row: H = all hits, M = a miss (count when several). The outlined column is the current cycle.`;
  $('cacheview').hidden = !sm.frames[0].l1;
  drawPipeline();
  go(0);
}

// ---- rows of the pipeline chart ----
function layoutRows(sm) {
  const rows = [];
  const n = sm.subcores;
  for (let s = 0; s < n; s++) {
    const slots = new Set();
    const units = new Set();
    let cus = 0;
    for (const f of sm.frames) {
      const sf = f.subcores[s];
      sf.slots.forEach((st, k) => st.state !== 'empty' && slots.add(k));
      sf.units.forEach((u) => units.add(u.unit));
      cus = Math.max(cus, sf.collectors.length);
    }
    for (const k of [...slots].sort((a, b) => a - b)) rows.push({ kind: 'slot', s, k, label: `sc${s} slot ${k} w${k * n + s}` });
    if (cus) rows.push({ kind: 'cu', s, label: `sc${s} collectors` });
    for (const u of [...units].sort((a, b) => a - b)) rows.push({ kind: 'unit', s, u, label: `sc${s} ${view.data.timeline.units[u]}` });
  }
  const pipes = sm.frames[0].mem.length;
  for (let p = 0; p < pipes; p++) rows.push({ kind: 'mem', p, label: `mem pipe ${p}` });
  if (sm.frames[0].l1) rows.push({ kind: 'l1', label: 'L1D accesses' });
  // Rows with nothing in the whole window (a module the mode makes analytical) are left out.
  const kept = rows.filter((row) => row.kind === 'slot' || sm.frames.some((f) => cellOf(row, f)[0] !== ''));
  view.dropped = rows.length - kept.length;
  return kept;
}

function cellOf(row, f) {
  switch (row.kind) {
    case 'slot': {
      const st = f.subcores[row.s].slots[row.k] || { state: 'empty' };
      const d = SLOT[st.state] || SLOT.empty;
      return [d[0], d[1]];
    }
    case 'cu': {
      const c = f.subcores[row.s].collectors.filter(Boolean).length;
      return c ? [String(c), '#c9d6ec'] : ['', '#fff'];
    }
    case 'unit': {
      const c = f.subcores[row.s].units.filter((x) => x.unit === row.u).length;
      return c ? [String(c), '#d9c7ea'] : ['', '#fff'];
    }
    case 'mem': {
      const m = f.mem[row.p];
      if (m.writeback) return ['W', '#f2d4b4'];
      if (m.addr) return ['A', '#f2d4b4'];
      if (m.dispatch) return ['D', '#f2d4b4'];
      if (m.buffered) return [String(m.buffered), '#f7e6d3'];
      return ['', '#fff'];
    }
    case 'l1': {
      const a = f.l1?.accesses || [];
      if (!a.length) return ['', '#fff'];
      const miss = a.filter((x) => x.outcome !== 'hit').length;
      if (!miss) return [a.length > 1 ? `${a.length}` : 'H', '#bfe3bf'];
      return [miss > 1 ? `${miss}` : 'M', '#f4b6b6'];
    }
    default:
      return ['', '#fff'];
  }
}

// The row labels live on their own canvas, sticky at the left of the scrolled box, so they stay
// in view while the cycles scroll.
function drawLabels(H) {
  const c = $('pipe-labels');
  c.width = LABEL_W;
  c.height = H;
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, LABEL_W, H);
  g.font = '10px ui-monospace, monospace';
  g.textBaseline = 'middle';
  g.fillStyle = '#000';
  g.fillText('cycle', 2, CELL_H / 2);
  view.rows.forEach((row, r) => g.fillText(row.label, 2, (r + 1) * CELL_H + CELL_H / 2));
}

function drawPipeline() {
  const sm = view.data.timeline.sms[view.si];
  const c = $('pipe-canvas');
  const W = sm.frames.length * CELL_W;
  const H = (view.rows.length + 1) * CELL_H + 4;
  drawLabels(H);
  c.width = W;
  c.height = H;
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  g.font = '10px ui-monospace, monospace';
  g.textBaseline = 'middle';
  // Cycle ruler every 10 cycles.
  g.fillStyle = '#000';
  sm.frames.forEach((f, i) => {
    if (f.cycle % 10 === 0) g.fillText(String(f.cycle), i * CELL_W, CELL_H / 2);
  });
  view.rows.forEach((row, r) => {
    const y = (r + 1) * CELL_H;
    sm.frames.forEach((f, i) => {
      const [txt, fill] = cellOf(row, f);
      const x = i * CELL_W;
      g.fillStyle = fill;
      g.fillRect(x, y, CELL_W - 1, CELL_H - 1);
      if (txt) {
        g.fillStyle = fill === '#1f4e99' ? '#fff' : '#000';
        g.textAlign = 'center';
        g.fillText(txt.length > 2 ? '+' : txt, x + CELL_W / 2, y + CELL_H / 2);
      }
    });
  });
  view.base = g.getImageData(0, 0, W, H);
}

function drawCursor() {
  const c = $('pipe-canvas');
  const g = c.getContext('2d');
  g.putImageData(view.base, 0, 0);
  const x = view.fi * CELL_W;
  g.strokeStyle = '#000';
  g.lineWidth = 2;
  g.strokeRect(x + 1, CELL_H - 1, CELL_W - 1, view.rows.length * CELL_H + 2);
  // Keep the cursor in view (the scrolled box starts with the sticky labels).
  const sc = c.parentElement;
  const sx = LABEL_W + x;
  if (sx < sc.scrollLeft + LABEL_W || sx > sc.scrollLeft + sc.clientWidth - CELL_W) sc.scrollLeft = Math.max(0, x - (sc.clientWidth - LABEL_W) / 2);
}

// ---- the current cycle ----
function go(fi) {
  const sm = view.data.timeline.sms[view.si];
  view.fi = Math.max(0, Math.min(sm.frames.length - 1, fi));
  const f = sm.frames[view.fi];
  $('pipe-slider').value = String(view.fi);
  $('pipe-cycle').textContent = `cycle ${f.cycle}`;
  $('pipe-cycle').dataset.cycle = String(f.cycle);
  $('pipe-text').textContent = view.data.text[view.si][view.fi];
  $('pipe-back').disabled = view.fi === 0;
  $('pipe-fwd').disabled = view.fi === sm.frames.length - 1;
  drawCursor();
  drawSm($('sm-svg'), view.data.timeline, sm, view.sm, f);
  $('sm-svg').setAttribute('aria-label', `SM ${sm.sm} in cycle ${f.cycle}: sub-cores, memory pipelines and caches; the text picture below gives the same content`);
  renderSlotTable(f);
  if (f.l1) renderCache(sm, view.fi);
}

function opName(o) {
  return view.data.timeline.kernels[o.kernel]?.ops[o.op] ?? '?';
}

function renderSlotTable(f) {
  const rows = [];
  const n = f.subcores.length;
  f.subcores.forEach((sf, s) => {
    sf.slots.forEach((st, k) => {
      if (st.state === 'empty') return;
      const w = k * n + s;
      const iss = sf.issued.filter((o) => o.warp === w).map((o) => `${opName(o)} @0x${o.pc.toString(16).padStart(4, '0')}`).join(' ');
      rows.push([`sc${s} slot ${k}`, `w${w}`, st.state, STALL_NAME[st.why] ?? st.why ?? '', iss]);
    });
    const units = sf.units.map((u) => `${view.data.timeline.units[u.unit]}: w${u.inst.warp} ${opName(u.inst)} (stage ${f.cycle - u.start})`);
    if (units.length) rows.push([`sc${s} units`, '', '', '', units.join('; ')]);
  });
  $('pipe-table').replaceChildren(table(`Warp slots in cycle ${f.cycle}`, ['slot', 'warp', 'state', 'why', 'issued / in flight'], rows, { id: 'pipe-slots' }));
}

// ---- cache view ----
const hex = (v) => '0x' + v.toString(16);
const bits = (m, n) => Array.from({ length: n }, (_, i) => ((m >> i) & 1 ? '1' : '0')).join('');

function renderCache(sm, fi) {
  const f = sm.frames[fi];
  const st = cacheState(sm.frames, fi);
  if (!st) return;
  const { geom, ways } = st;
  const nsec = geom.line_bytes / geom.sector_bytes;
  const per = 64; // sets per column block
  const blocks = Math.max(1, Math.ceil(geom.sets / per));
  const wayW = Math.max(28, nsec * 7);
  const rowH = 14;
  const blockW = 40 + geom.assoc * (wayW + 2) + 16;
  const c = $('cache-canvas');
  c.width = blocks * blockW;
  c.height = Math.min(geom.sets, per) * rowH + 20;
  const g = c.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.width, c.height);
  g.font = '9px ui-monospace, monospace';
  g.textBaseline = 'middle';
  const pos = (set, way) => {
    const b = Math.floor(set / per);
    return [b * blockW + 40 + way * (wayW + 2), 16 + (set % per) * rowH];
  };
  for (let b = 0; b < blocks; b++) {
    g.fillStyle = '#000';
    for (let w = 0; w < geom.assoc; w++) g.fillText(`w${w}`, b * blockW + 40 + w * (wayW + 2), 7);
  }
  for (let set = 0; set < geom.sets; set++) {
    const [x0, y] = pos(set, 0);
    g.fillStyle = '#000';
    g.textAlign = 'right';
    if (set % 4 === 0) g.fillText(`set ${set}`, x0 - 4, y + rowH / 2);
    g.textAlign = 'left';
    for (let w = 0; w < geom.assoc; w++) {
      const [x] = pos(set, w);
      const e = ways.get(set * geom.assoc + w);
      g.strokeStyle = '#c5cad1';
      g.lineWidth = 1;
      g.strokeRect(x + 0.5, y + 0.5, wayW - 1, rowH - 1);
      if (!e) continue;
      // One strip per sector: light = valid, dark = valid and dirty, blank = invalid.
      const sw = (wayW - 2) / nsec;
      for (let s = 0; s < nsec; s++) {
        if (!((e.valid >> s) & 1)) continue;
        g.fillStyle = (e.dirty >> s) & 1 ? '#6a3d9a' : '#8fb3e0';
        g.fillRect(x + 1 + s * sw, y + 1, sw - 0.5, rowH - 2);
      }
    }
  }
  // This cycle's accesses: a hit is a thick square outline, a miss an X over the way.
  for (const a of f.l1.accesses) {
    if (a.way === null) continue;
    const [x, y] = pos(a.set, a.way);
    g.lineWidth = 2;
    if (a.outcome === 'hit') {
      g.strokeStyle = '#1b7a1b';
      g.strokeRect(x, y, wayW, rowH);
    } else {
      g.strokeStyle = '#b00020';
      g.beginPath();
      g.moveTo(x, y);
      g.lineTo(x + wayW, y + rowH);
      g.moveTo(x + wayW, y);
      g.lineTo(x, y + rowH);
      g.stroke();
    }
  }
  $('cache-legend').textContent = `${geom.sets} sets × ${geom.assoc} ways, ${geom.line_bytes} B lines of ${nsec} sectors. Each way shows its sectors: light = valid, dark = valid and dirty, blank = invalid. This cycle's accesses: square outline = hit, X = miss (listed in the table).`;
  const acc = f.l1.accesses.map((a) => [a.set, a.way === null ? '-' : a.way, hex(a.line), bits(a.sectors, nsec), a.write ? 'write' : 'read', a.outcome.replace('_', ' ')]);
  const valid = [...ways.entries()].sort((x, y) => x[0] - y[0]).map(([, w]) => [w.set, w.way, hex(w.line), bits(w.valid, nsec), bits(w.dirty, nsec)]);
  $('cache-view-table').replaceChildren(
    table(`L1D accesses in cycle ${f.cycle}`, ['set', 'way', 'line', 'sectors (0 first)', 'kind', 'outcome'], acc, { id: 'cache-accesses' }),
    h('details', {}, h('summary', { text: `Valid lines at the end of cycle ${f.cycle} (${valid.length})` }), table('Valid L1D lines', ['set', 'way', 'line', 'valid sectors', 'dirty sectors'], valid, { id: 'cache-lines' })),
  );
}

// ---- controls ----
function stop() {
  if (view.timer) clearInterval(view.timer);
  view.timer = null;
  $('pipe-play').textContent = 'Play';
  $('pipe-play').setAttribute('aria-pressed', 'false');
}

function play() {
  if (!view.data) return;
  if (view.timer) return stop();
  const sm = view.data.timeline.sms[view.si];
  if (view.fi >= sm.frames.length - 1) go(0);
  $('pipe-play').textContent = 'Pause';
  $('pipe-play').setAttribute('aria-pressed', 'true');
  view.timer = setInterval(() => {
    if (view.fi >= sm.frames.length - 1) return stop();
    go(view.fi + 1);
  }, 1000 / Number($('pipe-speed').value));
}

function jump() {
  if (!view.data) return;
  const want = Number($('pipe-jump').value);
  const fr = view.data.timeline.sms[view.si].frames;
  let i = fr.findIndex((f) => f.cycle >= want);
  if (i < 0) i = fr.length - 1;
  go(i);
}

$('pipe-back').addEventListener('click', () => view.data && go(view.fi - 1));
$('pipe-fwd').addEventListener('click', () => view.data && go(view.fi + 1));
$('pipe-play').addEventListener('click', play);
$('pipe-speed').addEventListener('change', () => {
  if (view.timer) {
    stop();
    play();
  }
});
$('pipe-go').addEventListener('click', jump);
$('pipe-jump').addEventListener('keydown', (e) => e.key === 'Enter' && jump());
$('pipe-slider').addEventListener('input', () => view.data && go(Number($('pipe-slider').value)));
$('pipe-canvas').addEventListener('keydown', (e) => {
  if (!view.data) return;
  const last = view.data.timeline.sms[view.si].frames.length - 1;
  const act = { ArrowLeft: () => go(view.fi - 1), ArrowRight: () => go(view.fi + 1), Home: () => go(0), End: () => go(last), ' ': play }[e.key];
  if (act) {
    e.preventDefault();
    act();
  }
});
