// The SM drawn as blocks (SVG): per sub-core the fetch/L0I stage, the warp slots, the issue
// stage, the operand collectors in front of the register banks and the execution units; shared
// by the sub-cores the L1I, the memory pipelines, the L1D/shared memory and the link to L2 and
// DRAM. Each block lists what it holds in the current cycle, read from the same recorded frames
// as the pipeline grid (timelineJson's frames). Block sizes are fixed for the whole window so
// the picture does not jump while it animates.
const NS = 'http://www.w3.org/2000/svg';
const LINE = 13;
const HEAD = 16;
const PAD = 4;
const COL_W = 232;
const GAP = 8;
const MAX_LINES = 8;

const STALL_NAME = { mem_structural: 'mem_struct', comp_structural: 'comp_struct', i_fetch: 'ifetch' };
const STATE = { issued: 'issued', ready: 'ready', stalled: 'stalled', draining: 'draining' };
const CHAR_W = 6.7; // 11px monospace

/** Breaks a line at spaces into pieces that fit a block of width w. */
function wrap(t, w) {
  const max = Math.max(8, Math.floor((w - 2 * PAD) / CHAR_W));
  const out = [];
  let cur = '';
  for (const word of t.split(' ')) {
    if (cur && cur.length + 1 + word.length > max) {
      out.push(cur);
      cur = '  ' + word;
    } else cur = cur ? `${cur} ${word}` : word;
  }
  if (cur) out.push(cur);
  return out;
}

const hex = (pc) => '0x' + pc.toString(16).padStart(4, '0');

/** What each block holds in frame f: {id: lines[]}. Ids: sc{s}-fetch, sc{s}-slots, sc{s}-issue,
 *  sc{s}-regs, sc{s}-units, l1i, mem{p}, l1d, l2. */
export function smContents(tl, f, keptSlots) {
  const op = (o) => tl.kernels[o.kernel]?.ops[o.op] ?? '?';
  const n = f.subcores.length;
  const out = {};
  let fetching = 0;
  f.subcores.forEach((sf, s) => {
    const fetch = [];
    const slots = [];
    const kept = keptSlots?.[s] ?? sf.slots.map((_, k) => k);
    for (const k of kept) {
      const st = sf.slots[k] || { state: 'empty' };
      const w = k * n + s;
      if (st.state === 'empty') {
        slots.push(`slot ${k}: empty`);
        continue;
      }
      const why = st.state === 'stalled' ? ` ${STALL_NAME[st.why] ?? st.why}` : '';
      const iss = sf.issued.find((o) => o.warp === w);
      slots.push(`slot ${k} w${w}: ${STATE[st.state] ?? st.state}${why}${iss ? ` ${op(iss)}` : ''}`);
      if (st.state === 'stalled' && st.why === 'i_fetch') fetch.push(`w${w} waits for its instructions`);
    }
    fetching += fetch.length;
    out[`sc${s}-fetch`] = fetch;
    out[`sc${s}-slots`] = slots;
    out[`sc${s}-issue`] = sf.issued.map((o) => `w${o.warp} ${op(o)} @${hex(o.pc)}`);
    if (!sf.issued.length) {
      // Why the scheduler issued nothing: its warps' stall reasons, most frequent first.
      const why = {};
      for (const st of sf.slots) if (st.state === 'stalled') why[STALL_NAME[st.why] ?? st.why] = (why[STALL_NAME[st.why] ?? st.why] ?? 0) + 1;
      const ws = Object.entries(why).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      const busy = sf.slots.some((st) => st.state !== 'empty');
      if (busy) out[`sc${s}-issue`] = [`nothing issued${ws.length ? `: ${ws.map(([k, v]) => `${v} ${k}`).join(', ')}` : ''}`];
    }
    out[`sc${s}-regs`] = sf.collectors.map((c, i) => (c ? `collector ${i}: w${c.warp} ${op(c)}` : null)).filter(Boolean);
    out[`sc${s}-units`] = sf.units.map((u) => `${tl.units[u.unit]}: w${u.inst.warp} ${op(u.inst)} (${f.cycle - u.start + 1}/${u.end - u.start})`);
  });
  out.l1i = fetching ? [`${fetching} warp${fetching > 1 ? 's' : ''} waiting for instruction fetch`] : [];
  f.mem.forEach((m, p) => {
    const l = [];
    if (m.dispatch) l.push(`dispatch: w${m.dispatch.warp} ${op(m.dispatch)}`);
    if (m.addr) l.push(`address/coalesce: w${m.addr.warp} ${op(m.addr)}`);
    if (m.buffered) l.push(`${m.buffered} request${m.buffered > 1 ? 's' : ''} buffered`);
    if (m.waiting?.length) l.push(`waiting: ${m.waiting.map((o) => `w${o.warp} ${op(o)}`).join(', ')}`);
    if (m.writeback) l.push(`write-back: w${m.writeback.warp} ${op(m.writeback)}`);
    out[`mem${p}`] = l;
  });
  out.l1d = (f.l1?.accesses || []).map((a) => `${a.write ? 'write' : 'read'} line 0x${a.line.toString(16)} set ${a.set}: ${a.outcome.replace('_', ' ')}`);
  out.l2 = [`${f.mem_outstanding ?? 0} request${f.mem_outstanding === 1 ? '' : 's'} outstanding in L2/DRAM`];
  return out;
}

/** The slots that hold a warp somewhere in the window, per sub-core (as the grid's rows). */
function keptSlots(sm) {
  return Array.from({ length: sm.subcores }, (_, s) => {
    const k = new Set();
    for (const f of sm.frames) f.subcores[s].slots.forEach((st, i) => st.state !== 'empty' && k.add(i));
    return [...k].sort((a, b) => a - b);
  });
}

const TITLES = { fetch: 'Fetch / L0I', slots: 'Warp slots', issue: 'Issue', regs: 'Register banks: operand collectors', units: 'Execution units' };

/** Builds the block layout of an SM's window: {blocks: [{id, title, x, y, w, lines}], width, height}. */
export function smLayout(tl, sm) {
  const kept = keptSlots(sm);
  const W = sm.subcores * COL_W + (sm.subcores - 1) * GAP;
  const pipes = sm.frames[0].mem.length;
  const pw = (W - (pipes - 1) * GAP) / Math.max(1, pipes);
  const widthOf = (id) => (id.startsWith('sc') ? COL_W - 2 * PAD : id.startsWith('mem') ? pw : W);
  const most = {};
  for (const f of sm.frames) {
    const c = smContents(tl, f, kept);
    for (const [id, l] of Object.entries(c)) most[id] = Math.max(most[id] ?? 0, l.flatMap((t) => wrap(t, widthOf(id))).length);
  }
  const lines = (id) => Math.max(1, Math.min(MAX_LINES, most[id] ?? 1));
  const blocks = [];
  blocks.push({ id: 'l1i', title: 'L1 instruction cache (shared)', x: 0, y: 0, w: W, lines: 1 });
  let top = HEAD + LINE + 2 * PAD + GAP;
  let bottom = top;
  for (let s = 0; s < sm.subcores; s++) {
    let y = top + HEAD;
    for (const part of ['fetch', 'slots', 'issue', 'regs', 'units']) {
      const id = `sc${s}-${part}`;
      const n = part === 'slots' ? Math.max(1, Math.min(3 * MAX_LINES, most[id] ?? 1)) : lines(id);
      blocks.push({ id, title: TITLES[part], x: s * (COL_W + GAP) + PAD, y, w: COL_W - 2 * PAD, lines: n });
      y += HEAD + n * LINE + 2 * PAD + 4;
    }
    bottom = Math.max(bottom, y);
  }
  const cores = { top, bottom };
  let y = bottom + GAP;
  let rowH = 0;
  for (let p = 0; p < pipes; p++) {
    const n = lines(`mem${p}`);
    blocks.push({ id: `mem${p}`, title: `Memory pipeline ${p}`, x: p * (pw + GAP), y, w: pw, lines: n });
    rowH = Math.max(rowH, HEAD + n * LINE + 2 * PAD);
  }
  y += rowH + GAP;
  const l1n = lines('l1d');
  blocks.push({ id: 'l1d', title: 'L1 data cache / shared memory', x: 0, y, w: W, lines: l1n });
  y += HEAD + l1n * LINE + 2 * PAD + GAP;
  blocks.push({ id: 'l2', title: 'Link to L2 and DRAM', x: 0, y, w: W, lines: 1 });
  y += HEAD + LINE + 2 * PAD;
  return { blocks, kept, cores, width: W, height: y + 2 };
}

function el(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Draws the SM's blocks with frame f's contents into the svg element. */
export function drawSm(svg, tl, sm, layout, f) {
  const c = smContents(tl, f, layout.kept);
  svg.setAttribute('viewBox', `0 0 ${layout.width} ${layout.height}`);
  svg.setAttribute('width', String(layout.width));
  svg.setAttribute('height', String(layout.height));
  svg.replaceChildren();
  svg.append(el('title', {}, `SM ${sm.sm} in cycle ${f.cycle}`));
  for (let s = 0; s < sm.subcores; s++) {
    const x = s * (COL_W + GAP);
    svg.append(el('rect', { x: x + 0.5, y: layout.cores.top + 0.5, width: COL_W - 1, height: layout.cores.bottom - layout.cores.top, fill: '#f6f7f9', stroke: '#8a939e', rx: 6 }));
    svg.append(el('text', { x: x + PAD + 2, y: layout.cores.top + 12, class: 'sm-core' }, `Sub-core ${s}`));
  }
  for (const b of layout.blocks) {
    const lines = (c[b.id] || []).flatMap((t) => wrap(t, b.w));
    const busy = lines.length > 0 && b.id !== 'l2' ? true : b.id === 'l2' && (f.mem_outstanding ?? 0) > 0;
    const g = el('g', { id: `sm-${b.id}`, 'data-block': b.id, class: busy ? 'sm-block busy' : 'sm-block' });
    // The block's full contents as its tooltip (lines drawn below may be wrapped or cut).
    g.append(el('title', {}, `${b.title}: ${(c[b.id] || []).join('; ') || 'nothing'}`));
    const hgt = HEAD + b.lines * LINE + 2 * PAD;
    g.append(el('rect', { x: b.x + 0.5, y: b.y + 0.5, width: b.w - 1, height: hgt - 1, rx: 4, fill: busy ? '#fff' : '#fbfbfb', stroke: busy ? '#2457a6' : '#b4bbc4', 'stroke-width': busy ? 1.5 : 1 }));
    g.append(el('text', { x: b.x + PAD, y: b.y + PAD + 10, class: 'sm-title' }, b.title));
    const shown = lines.length > b.lines ? [...lines.slice(0, b.lines - 1), `+${lines.length - b.lines + 1} more`] : lines;
    if (!shown.length) g.append(el('text', { x: b.x + PAD, y: b.y + HEAD + PAD + 9, class: 'sm-empty' }, '–'));
    shown.forEach((t, i) => {
      const cls = /stalled|nothing issued/.test(t) ? 'sm-line stalled' : /issued/.test(t) ? 'sm-line issued' : 'sm-line';
      g.append(el('text', { x: b.x + PAD, y: b.y + HEAD + PAD + 9 + i * LINE, class: cls }, t));
    });
    svg.append(g);
  }
  // The links between the SM's shared blocks and the memory side.
  const arrow = (x, y1, y2) => svg.append(el('line', { x1: x, y1, x2: x, y2, stroke: '#5c6570', 'stroke-width': 1.5, 'marker-end': 'url(#sm-arrow)' }));
  const defs = el('defs', {});
  const mk = el('marker', { id: 'sm-arrow', viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 6, markerHeight: 6, orient: 'auto' });
  mk.append(el('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#5c6570' }));
  defs.append(mk);
  svg.prepend(defs);
  const l1d = layout.blocks.find((b) => b.id === 'l1d');
  const l2 = layout.blocks.find((b) => b.id === 'l2');
  arrow(layout.width / 2, l1d.y + HEAD + l1d.lines * LINE + 2 * PAD, l2.y - 1);
  return c;
}
