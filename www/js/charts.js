// Charts: uPlot (from npm, copied to www/vendor by scripts/build-wasm.sh) with a data table behind
// every chart; series differ by dash pattern and marker as well as colour, so colour never carries
// meaning alone. PNG/SVG export per chart. Without uPlot the table alone is shown.
import { h, table, download } from './dom.js';

let uPlotMod = null;
const uPlotReady = import('../vendor/uPlot.esm.js').then(
  (m) => (uPlotMod = m.default),
  () => null,
);

const COLORS = ['#1f4e99', '#b3541e', '#2e7d32', '#6a1b9a'];

/** spec: {id, title, xLabel, x: [...], series: [{label, values, dash}]} */
export function chart(spec) {
  const fig = h('figure', { class: 'chart', id: spec.id });
  fig.append(h('figcaption', { text: spec.title }));
  const plot = h('div', { class: 'plot', role: 'img', 'aria-label': `${spec.title}: chart; the same data is in the table below` });
  fig.append(plot);
  const rows = spec.x.map((x, i) => [x, ...spec.series.map((s) => (s.values[i] === null ? '' : s.values[i]))]);
  const tbl = table(`${spec.title}: data`, [spec.xLabel, ...spec.series.map((s) => s.label)], rows);
  fig.append(h('details', { class: 'chart-data' }, h('summary', { text: 'Data table' }), tbl));
  fig.append(
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', onclick: () => exportPng(fig, spec) }, 'PNG'),
      h('button', { type: 'button', onclick: () => exportSvg(spec) }, 'SVG'),
    ),
  );
  uPlotReady.then(() => {
    if (!uPlotMod) {
      plot.textContent = 'Chart library not available; see the data table.';
      return;
    }
    const opts = {
      width: Math.min(720, document.body.clientWidth - 60),
      height: 260,
      scales: { x: { time: false } },
      axes: [{ label: spec.xLabel }, {}],
      series: [
        { label: spec.xLabel },
        ...spec.series.map((s, i) => ({
          label: s.label,
          stroke: COLORS[i % COLORS.length],
          width: 2,
          dash: s.dash,
          points: { show: true, size: 7 + 2 * i, fill: i % 2 ? '#fff' : COLORS[i % COLORS.length] },
        })),
      ],
    };
    const data = [spec.x, ...spec.series.map((s) => s.values)];
    // eslint-disable-next-line new-cap
    fig.uplot = new uPlotMod(opts, data, plot);
  });
  return fig;
}

function exportPng(fig, spec) {
  const c = fig.querySelector('canvas');
  if (!c) return;
  c.toBlob((b) => download(`${spec.id}.png`, b, 'image/png'));
}

/** A self-contained SVG line chart of the same data. */
export function svgOf(spec) {
  const W = 720;
  const H = 300;
  const L = 60;
  const B = 40;
  const vals = spec.series.flatMap((s) => s.values.filter((v) => v !== null && v !== undefined));
  const ymax = Math.max(1e-12, ...vals);
  const ymin = Math.min(0, ...vals);
  const xmin = Math.min(...spec.x);
  const xmax = Math.max(xmin + 1, ...spec.x);
  const X = (x) => L + ((x - xmin) / (xmax - xmin)) * (W - L - 20);
  const Y = (y) => H - B - ((y - ymin) / (ymax - ymin)) * (H - B - 20);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  let out = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 20 * spec.series.length}" font-family="sans-serif" font-size="12">`;
  out += `<title>${esc(spec.title)}</title><rect width="100%" height="100%" fill="#fff"/>`;
  out += `<line x1="${L}" y1="${H - B}" x2="${W - 20}" y2="${H - B}" stroke="#000"/><line x1="${L}" y1="20" x2="${L}" y2="${H - B}" stroke="#000"/>`;
  out += `<text x="${(W + L) / 2}" y="${H - 8}" text-anchor="middle">${esc(spec.xLabel)}</text>`;
  out += `<text x="${L - 6}" y="24" text-anchor="end">${ymax.toPrecision(3)}</text><text x="${L - 6}" y="${H - B}" text-anchor="end">${ymin}</text>`;
  spec.series.forEach((s, i) => {
    const pts = spec.x.map((x, j) => [x, s.values[j]]).filter(([, v]) => v !== null && v !== undefined);
    const d = pts.map(([x, v], j) => `${j ? 'L' : 'M'}${X(x).toFixed(1)},${Y(v).toFixed(1)}`).join('');
    const dash = (s.dash || []).join(',');
    out += `<path d="${d}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
    for (const [x, v] of pts) out += `<circle cx="${X(x).toFixed(1)}" cy="${Y(v).toFixed(1)}" r="${3 + i}" fill="${i % 2 ? '#fff' : COLORS[i % COLORS.length]}" stroke="${COLORS[i % COLORS.length]}"/>`;
    out += `<text x="${L}" y="${H + 14 + 20 * i}">${esc(s.label)}${dash ? ` (dashed ${dash})` : ' (solid)'}</text>`;
  });
  return out + '</svg>';
}

function exportSvg(spec) {
  download(`${spec.id}.svg`, svgOf(spec), 'image/svg+xml');
}
