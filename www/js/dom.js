// Tiny DOM helpers (no framework).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Formats a number for tables: integers exact with thin grouping, ratios to 4 decimals. */
export function fmt(v) {
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    return Math.abs(v) >= 1000 ? v.toFixed(1) : v.toFixed(4);
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(fmt).join(', ');
  return String(v);
}

/** A table with a caption; rows are arrays of cells; numeric cells are right-aligned. Focusable,
 *  so that a keyboard can scroll it where a narrow screen makes it scroll sideways. */
export function table(caption, head, rows, attrs = {}) {
  return h(
    'table',
    { class: 'data', tabindex: '0', ...attrs },
    h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col', text: c })))),
    h(
      'tbody',
      {},
      rows.map((r) => h('tr', {}, r.map((c, i) => (i === 0 ? h('th', { scope: 'row', text: fmt(c) }) : h('td', { class: typeof c === 'number' ? 'num' : '', text: fmt(c) }))))),
    ),
  );
}

export function download(name, data, type) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const a = h('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}
