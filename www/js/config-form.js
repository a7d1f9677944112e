// The configuration form: every key of the effective config, grouped by component (the top-level
// sections of the schema), typed inputs, the preset's value shown beside edited keys. Units are
// read from the key names (`_kb`, `_mhz`, `_bytes`, latencies in cycles) until the schema
// documentation (config::schema_doc, h/config) is exposed; Rust validates every edit and names
// the key it rejects.
import { h } from './dom.js';

const GROUP_TITLES = {
  gpu: 'GPU',
  clocks: 'Clock domains',
  sm: 'SM resources',
  scheduler: 'Warp scheduler',
  frontend: 'Front end (fetch, decode, I-caches)',
  regfile: 'Register file and operand collectors',
  units: 'Execution units',
  latency: 'Instruction latencies',
  mem_pipeline: 'Memory pipeline',
  features: 'Model features',
  l1d: 'L1 data cache',
  shmem: 'Shared memory',
  const_cache: 'Constant cache',
  l2: 'L2 cache',
  noc: 'Interconnect',
  dram: 'DRAM',
  analytic: 'Analytical memory model',
};

export function unitOf(key) {
  const leaf = key.split('.').pop();
  if (leaf.endsWith('_kb')) return 'KiB';
  if (leaf.endsWith('_mhz')) return 'MHz';
  if (leaf.endsWith('_bytes') || leaf === 'interleave_bytes') return 'bytes';
  if (leaf.endsWith('_flits') || leaf === 'flit_bytes') return leaf.endsWith('_flits') ? 'flits' : 'bytes';
  if (leaf.includes('latency') || leaf === 'interval' || /^t_/.test(leaf)) return key.startsWith('dram.') ? 'DRAM cycles' : 'cycles';
  return '';
}

/** Renders the form. keys: [[key, value]] of the effective config; base: Map key->preset value;
 *  docs: Map key->KeyDoc from config::schema_doc (unit, range, kind, doc). */
/** Keys whose value the model overrides under another key's setting: a one-line hint shown
 *  beside the key while that setting holds (values: the effective config as a Map). */
export const HIDDEN_BY = {
  'l1d.cache.size_kb': (vals) =>
    vals.get('l1d.adaptive_carveout') === 'true'
      ? `While l1d.adaptive_carveout is on, the L1 size is chosen per kernel from l1d.unified_kb (${vals.get('l1d.unified_kb') ?? '?'} KiB) minus the shared-memory carve-out, so this value alone changes nothing: turn l1d.adaptive_carveout off to fix the size.`
      : '',
};

export function renderForm(form, keys, base, onEdit, docs = new Map()) {
  form.replaceChildren();
  const vals = new Map(keys);
  const groups = new Map();
  for (const [k, v] of keys) {
    const g = k.split('.')[0];
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push([k, v]);
  }
  for (const [g, items] of groups) {
    const fs = h('fieldset', { class: 'cfg-group', dataset: { group: g } }, h('legend', { text: GROUP_TITLES[g] || g }));
    for (const [k, v] of items) {
      const id = 'cfg-' + k.replace(/\./g, '-');
      const b = base.get(k);
      const d = docs.get(k);
      const kind = d?.kind?.type;
      const range = d && d.min !== null && d.max !== null && d.min !== undefined ? `${d.min} … ${d.max}` : '';
      const title = d ? `${d.doc}${range ? ` (allowed ${range})` : ''}` : '';
      let input;
      if (kind === 'bool' || (!kind && (v === 'true' || v === 'false'))) {
        input = h('input', { type: 'checkbox', id, name: k, checked: v === 'true', title });
      } else if (kind === 'choice') {
        input = h('select', { id, name: k, title }, d.kind.choices.map((c) => h('option', { value: c, text: c, selected: c === v })));
      } else if (kind === 'int' || kind === 'float' || (!kind && /^-?\d+(\.\d+)?$/.test(v))) {
        input = h('input', { type: 'number', id, name: k, value: v, step: kind === 'int' ? 1 : 'any', min: d?.min ?? 0, max: d?.max ?? undefined, title });
      } else {
        input = h('input', { type: 'text', id, name: k, value: v, size: 14, title });
      }
      const edited = b !== undefined && b !== v;
      const unit = d?.unit || unitOf(k);
      const row = h(
        'div',
        { class: 'cfg-row' + (edited ? ' edited' : ''), dataset: { key: k } },
        h('label', { for: id, text: k.split('.').slice(1).join('.') || k }),
        input,
        h('span', { class: 'unit', text: unit, title: range ? `allowed ${range}` : '' }),
        edited ? h('span', { class: 'edited-mark', text: `edited (preset: ${b})` }) : null,
      );
      const hint = HIDDEN_BY[k]?.(vals);
      if (hint) {
        const hid = `${id}-hint`;
        row.append(h('p', { class: 'cfg-hint', id: hid, text: hint }));
        input.setAttribute('aria-describedby', hid);
      }
      input.addEventListener('change', () => onEdit(k, input.type === 'checkbox' ? String(input.checked) : input.value.trim()));
      fs.append(row);
    }
    form.append(fs);
  }
}

export function filterForm(form, text) {
  const t = text.trim().toLowerCase();
  for (const row of form.querySelectorAll('.cfg-row')) row.hidden = t !== '' && !row.dataset.key.toLowerCase().includes(t);
  for (const fs of form.querySelectorAll('fieldset')) fs.hidden = [...fs.querySelectorAll('.cfg-row')].every((r) => r.hidden);
}
