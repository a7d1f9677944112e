// The page: wires the sections to the simulator Worker (worker-client.js). All simulation
// happens in the Worker; this thread only renders, so the page never freezes.
import { SimWorker } from './worker-client.js';
import { h } from './dom.js';
import { encodeState, decodeState, MAX_URL } from './state.js';
import { readUpload, filesFromDrop, formatBytes } from './upload.js';
import { renderResults } from './results.js';
import { renderForm, filterForm } from './config-form.js';
import { exportJson, exportCsv, exportChromeTrace } from './export.js';
import { showViews, clearViews } from './views.js';

const $ = (id) => document.getElementById(id);
const sim = new SimWorker();

const app = {
  presets: [],
  workloads: [],
  preset: 'default',
  overrides: {}, // key -> value text, only keys that differ from the preset
  base: new Map(), // preset values
  docs: new Map(), // key -> KeyDoc (unit, range, kind, doc)
  selection: null, // {kind:'workload', name, params} | {kind:'files', files, label}
  current: null, // the run in flight
  last: null, // {env, json, elapsedMs, state}
};
window.warpweave = app; // for tests and the curious

// Errors appear next to what caused them: 'top' (loading, links), 'run' (under the Run
// button), 'config' (the configuration section, or under the key edited: `row`), 'upload'
// (under the upload buttons) and 'sass' (under the SASS editors). A shown error is scrolled
// into view.
const ERROR_BOX = { top: 'error', run: 'run-error', config: 'config-error', upload: 'upload-error', sass: 'sass-error' };

export function showError(message, where = 'top', row = null) {
  document.querySelectorAll('.cfg-row .error').forEach((e) => where === 'config' && e.remove());
  let el = $(ERROR_BOX[where] || 'error');
  if (row && message) {
    el.hidden = true;
    el = h('div', { class: 'error', role: 'alert' });
    row.append(el);
  }
  el.textContent = message || '';
  el.hidden = !message;
  if (message) el.scrollIntoView({ block: 'center', behavior: 'instant' });
}

function clearErrors(...where) {
  for (const w of where) showError('', w);
}

function setStatus(text, state) {
  const el = $('status');
  el.textContent = text;
  el.dataset.state = state;
}

function modeValue() {
  const m = $('mode').value;
  return m === 'mix' ? $('mix').value.trim() : m;
}

// ---- start-up ----
sim.ready.then(
  async ({ version }) => {
    $('version').textContent = `warpweave ${version}`;
    $('version').dataset.ready = '1';
    try {
      await loadCatalog();
      await applyUrlState(true);
    } catch (e) {
      showError(e.message);
    }
  },
  (e) => {
    $('version').textContent = 'the simulator failed to load';
    showError(e.message);
  },
);

async function loadCatalog() {
  app.presets = await sim.call('presetIds');
  app.workloads = await sim.call('workloads');
  app.docs = new Map((await sim.call('schemaDoc')).map((d) => [d.key, d]));
  app.sassSamples = await sim.call('sassSamples');
  app.preset = app.presets[0];
  $('preset').replaceChildren(...app.presets.map((p) => h('option', { value: p, text: p })));
  renderGallery();
  renderSassGallery();
  await refreshConfig();
  $('run-btn').disabled = false;
}

function renderGallery() {
  const g = $('gallery');
  g.replaceChildren();
  for (const w of app.workloads) {
    const params = h('div', { class: 'params' });
    for (const p of w.params) {
      const id = `p-${w.name}-${p.name}`;
      const input = p.choices.length
        ? h('select', { id, name: p.name }, p.choices.map((c) => h('option', { value: c, text: c, selected: c === p.default })))
        : h('input', { id, name: p.name, type: 'number', value: p.default, min: p.min, max: p.max, title: `${p.min} … ${p.max}` });
      params.append(h('label', { for: id, title: p.doc }, p.name, ' ', input));
    }
    const card = h(
      'article',
      { class: 'card', dataset: { workload: w.name } },
      h('h3', { text: w.name }),
      h('p', { class: 'summary', text: w.summary }),
      h('details', {}, h('summary', { text: 'parameters' }), params),
      h('button', { type: 'button', class: 'run-workload', onclick: () => runWorkload(w.name) }, `Run ${w.name}`),
    );
    g.append(card);
  }
}

// ---- the SASS tab ----
function selectTab(which) {
  for (const t of ['workloads', 'sass']) {
    const on = t === which;
    $(`tab-${t}`).setAttribute('aria-selected', String(on));
    $(`tab-${t}`).tabIndex = on ? 0 : -1;
    $(`panel-${t}`).hidden = !on;
  }
}
$('tab-workloads').addEventListener('click', () => selectTab('workloads'));
$('tab-sass').addEventListener('click', () => selectTab('sass'));
for (const t of ['tab-workloads', 'tab-sass']) {
  $(t).addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    const next = t === 'tab-sass' ? 'workloads' : 'sass';
    selectTab(next);
    $(`tab-${next}`).focus();
  });
}

function renderSassGallery() {
  $('sass-gallery').replaceChildren(
    ...(app.sassSamples || []).map((x) =>
      h(
        'article',
        { class: 'card', dataset: { sass: x.name } },
        h('h3', { text: x.name }),
        h('p', { class: 'summary', text: `${x.summary} (${x.listingName})` }),
        h('div', { class: 'row' },
          h('button', { type: 'button', class: 'load-sass', onclick: () => loadSassSample(x.name) }, 'Edit'),
          h('button', { type: 'button', class: 'run-sass', onclick: () => (loadSassSample(x.name), runSass()) }, `Run ${x.name}`)),
      ),
    ),
  );
}

function loadSassSample(name) {
  const x = app.sassSamples.find((y) => y.name === name);
  if (!x) return false;
  $('sass-listing').value = x.listing;
  $('sass-spec').value = x.spec;
  $('sass-name').textContent = x.listingName;
  app.sassLoaded = { name, listingName: x.listingName };
  return true;
}

function runSass() {
  const listing = $('sass-listing').value;
  const spec = $('sass-spec').value;
  if (!listing.trim() || !spec.trim()) {
    showError(!listing.trim() ? 'Paste or load a SASS listing first (what cuobjdump -sass prints).' : 'Write the launch spec first (grid, block, buffers, args).', 'sass');
    return;
  }
  const x = app.sassLoaded && app.sassSamples.find((y) => y.name === app.sassLoaded.name);
  const sample = x && x.listing === listing && x.spec === spec ? x.name : null;
  const listingName = $('sass-name').textContent || 'listing.sass';
  app.selection = { kind: 'sass', listing, spec, listingName, sample };
  return startRun();
}
$('sass-run').addEventListener('click', () => runSass());
$('sass-file').addEventListener('change', async (e) => {
  const f = e.target.files[0];
  if (!f) return;
  $('sass-listing').value = await f.text();
  $('sass-name').textContent = f.name;
  app.sassLoaded = null;
  e.target.value = '';
});
$('sass-spec-file').addEventListener('change', async (e) => {
  const f = e.target.files[0];
  if (!f) return;
  $('sass-spec').value = await f.text();
  e.target.value = '';
});

function workloadParams(name) {
  const card = document.querySelector(`.card[data-workload="${CSS.escape(name)}"]`);
  const w = app.workloads.find((x) => x.name === name);
  const out = {};
  if (!card || !w) return out;
  for (const p of w.params) {
    const el = card.querySelector(`[name="${CSS.escape(p.name)}"]`);
    if (el && String(el.value) !== String(p.default)) out[p.name] = String(el.value);
  }
  return out;
}

function setWorkloadParams(name, params) {
  const card = document.querySelector(`.card[data-workload="${CSS.escape(name)}"]`);
  if (!card) return;
  for (const [k, v] of Object.entries(params || {})) {
    const el = card.querySelector(`[name="${CSS.escape(k)}"]`);
    if (el) el.value = v;
  }
}

// ---- configuration ----
async function refreshConfig() {
  const baseKeys = await sim.call('configKeys', app.preset, '{}');
  app.base = new Map(baseKeys);
  let keys;
  try {
    keys = await sim.call('configKeys', app.preset, JSON.stringify(app.overrides));
  } catch (e) {
    showError(e.message, 'config');
    keys = baseKeys;
  }
  app.effective = new Map(keys);
  renderForm($('config-form'), keys, app.base, onConfigEdit, app.docs);
  $('config-form').dataset.preset = app.preset;
  $('preset').value = app.preset;
  filterForm($('config-form'), $('config-filter').value);
}

async function onConfigEdit(key, value) {
  const next = { ...app.overrides };
  if (app.base.get(key) === value) delete next[key];
  else next[key] = value;
  let err = null;
  try {
    await sim.call('configKeys', app.preset, JSON.stringify(next));
    app.overrides = next;
  } catch (e) {
    err = e.message;
  }
  await refreshConfig();
  const row = document.querySelector(`.cfg-row[data-key="${CSS.escape(key)}"]`);
  showError(err || '', 'config', err ? row : null);
}

$('preset').addEventListener('change', async () => {
  app.preset = $('preset').value;
  app.overrides = {};
  await refreshConfig();
});
$('mode').addEventListener('change', () => {
  $('mix-label').hidden = $('mode').value !== 'mix';
});
$('config-filter').addEventListener('input', () => filterForm($('config-form'), $('config-filter').value));
$('config-reset').addEventListener('click', async () => {
  app.overrides = {};
  await refreshConfig();
});
$('config-download').addEventListener('click', async () => {
  try {
    const toml = await sim.call('configToml', app.preset, JSON.stringify(app.overrides));
    const { download } = await import('./dom.js');
    download(`warpweave-${app.preset}.toml`, toml, 'text/plain');
  } catch (e) {
    showError(e.message, 'config');
  }
});
$('config-import').addEventListener('change', async (ev) => {
  const f = ev.target.files[0];
  if (!f) return;
  const text = await f.text();
  try {
    let pairs;
    if (/^\s*-[a-z_]+/m.test(text) && !/^\s*\[/m.test(text)) {
      const r = await sim.call('importAccelsimConfig', app.preset, f.name, text);
      pairs = r.overrides;
      $('import-info').textContent = `Imported ${f.name}: ${pairs.length} keys differ from ${app.preset}${r.warnings.length ? `; ${r.warnings.length} notes (see the browser console)` : ''}.`;
      for (const w of r.warnings) console.info(w);
    } else {
      pairs = await sim.call('configDiff', app.preset, text);
    }
    app.overrides = Object.fromEntries(pairs);
    showError('', 'config');
    await refreshConfig();
  } catch (e) {
    showError(e.message, 'config');
  }
  ev.target.value = '';
});

// ---- runs ----
function runWorkload(name) {
  app.selection = { kind: 'workload', name, params: workloadParams(name) };
  return startRun();
}

$('run-btn').addEventListener('click', () => {
  if (!$('panel-sass').hidden && app.selection?.kind !== 'sass') return runSass();
  if (!app.selection) {
    const first = app.workloads[0]?.name;
    if (first) return runWorkload(first);
  }
  return startRun();
});
$('cancel-btn').addEventListener('click', () => app.current?.cancel());

function describeSelection(s) {
  if (!s) return '';
  if (s.kind === 'workload') {
    const p = Object.entries(s.params).map(([k, v]) => `${k}=${v}`).join(', ');
    return `workload ${s.name}${p ? ` (${p})` : ''}`;
  }
  if (s.kind === 'sass') return `SASS ${s.listingName}`;
  return s.label;
}

async function startRun() {
  if (!app.selection) return;
  setStatus('Starting…', 'running');
  if (app.current) {
    const prev = app.current;
    prev.cancel();
    await prev.promise.catch(() => {});
  }
  clearErrors('run', 'upload', 'sass');
  // The previous run's results go at once: a failed run must not leave them on screen.
  app.last = null;
  $('results').hidden = true;
  $('results-body').replaceChildren();
  clearViews();
  const mode = modeValue();
  const s = app.selection;
  const errAt = s.kind === 'sass' ? 'sass' : 'run';
  let config;
  try {
    config = await sim.call('configToml', app.preset, JSON.stringify(app.overrides));
  } catch (e) {
    setStatus('Failed.', 'error');
    showError(e.message, 'config');
    return;
  }
  let source;
  if (s.kind === 'workload') source = { kind: 'workload', name: s.name, params: s.params };
  else if (s.kind === 'sass') source = { kind: 'sass', listing: s.listing, listingName: s.listingName, spec: s.spec };
  else source = { kind: 'files', files: s.files.map((f) => ({ name: f.name, bytes: f.bytes.slice() })) };
  const request = { source, config, mode };
  if ($('rec-on').checked && mode !== 'memory') request.record = recordWindow();
  $('selected').textContent = describeSelection(s);
  $('run-btn').disabled = true;
  $('cancel-btn').disabled = false;
  $('progress-box').hidden = false;
  $('progress').removeAttribute('value'); // indeterminate until the first slice reports
  $('progress-text').textContent =
    s.kind === 'sass' ? 'executing the SASS (every warp, functionally)…' : s.kind === 'workload' ? 'generating the workload (a few seconds for large sizes)…' : 'reading the trace…';
  setStatus('Running…', 'running');
  const t0 = performance.now();
  const run = sim.run(request, (p) => {
    $('progress').value = p.ctasTotal ? p.ctasDone / p.ctasTotal : 0;
    $('progress-text').textContent = `${p.phase} · cycle ${p.cycles.toLocaleString('en-US')} · CTAs ${p.ctasDone.toLocaleString('en-US')} / ${p.ctasTotal.toLocaleString('en-US')} · kernels ${p.kernelsDone} / ${p.kernels}`;
  });
  app.current = run;
  try {
    const { result, timeline } = await run.promise;
    const env = JSON.parse(result);
    const elapsedMs = performance.now() - t0;
    app.last = { env, json: result, elapsedMs, state: currentState() };
    renderResults($('results-body'), env, elapsedMs);
    $('results').hidden = false;
    app.lastTimeline = timeline ? JSON.parse(timeline) : null;
    app.last.view = app.lastTimeline;
    if (app.lastTimeline) showViews(app.lastTimeline, { env, launchLatency: launchLatency(), auto: request.record?.auto });
    setStatus(`Done in ${(elapsedMs / 1000).toFixed(2)} s.`, 'done');
    writeUrlState();
  } catch (e) {
    $('progress-box').hidden = true;
    if (e.kind === 'cancelled') setStatus('Cancelled.', 'cancelled');
    else {
      setStatus('Failed.', 'error');
      showError(e.message, errAt);
    }
  } finally {
    if (app.current === run) app.current = null;
    $('run-btn').disabled = false;
    $('cancel-btn').disabled = true;
  }
}

/** Cycles from the start of the run to the first kernel's first CTA issue: the kernel launch
 *  latency of the effective config (`sm.cta_launch_latency` only spaces later CTAs to an SM). */
function launchLatency() {
  return Number(app.effective?.get('sm.kernel_launch_latency')) || 0;
}

/** The recorded window: the fields, or (left empty) 200 cycles from the first CTA issue. */
function recordWindow() {
  const fromText = $('rec-from').value.trim();
  const toText = $('rec-to').value.trim();
  const auto = fromText === '';
  const from = auto ? launchLatency() : Number(fromText) || 0;
  const to = toText === '' ? from + 200 : Number(toText) || 0;
  return { sm: Number($('rec-sm').value) || 0, from, to, auto };
}

// ---- uploads ----
async function onFiles(fileList) {
  try {
    const up = await readUpload(fileList, app.preset, modeValue());
    const label = up.files.length === 1 ? `${up.files[0].name} (${up.formats[0]}, ${formatBytes(up.total)})` : `${up.files.length} files (${formatBytes(up.total)})`;
    $('upload-info').textContent = `Loaded ${label}.`;
    app.selection = { kind: 'files', files: up.files, label };
    await startRun();
  } catch (e) {
    setStatus('Upload refused.', 'error');
    showError(e.message, 'upload');
  }
}
$('file-input').addEventListener('change', (e) => onFiles(e.target.files).finally(() => (e.target.value = '')));
$('dir-input').addEventListener('change', (e) => onFiles(e.target.files).finally(() => (e.target.value = '')));

let dragDepth = 0;
window.addEventListener('dragenter', (e) => {
  if (![...(e.dataTransfer?.types || [])].includes('Files')) return;
  dragDepth++;
  $('dropveil').hidden = false;
});
window.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) $('dropveil').hidden = true;
});
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', async (e) => {
  e.preventDefault();
  dragDepth = 0;
  $('dropveil').hidden = true;
  const files = await filesFromDrop(e.dataTransfer);
  if (files.length) onFiles(files);
});

// ---- sharing (URL fragment) ----
function currentState() {
  const s = app.selection;
  return {
    preset: app.preset,
    mode: modeValue(),
    workload: s?.kind === 'workload' ? s.name : null,
    sass: s?.kind === 'sass' ? s.sample : null,
    params: s?.kind === 'workload' ? s.params : {},
    overrides: app.overrides,
    upload: s?.kind === 'files' || (s?.kind === 'sass' && !s.sample),
  };
}

function writeUrlState() {
  const frag = encodeState(currentState());
  history.replaceState(null, '', frag);
  const url = location.href;
  $('share-info').textContent = url.length > MAX_URL ? `Link is ${url.length} characters (over ${MAX_URL}): some browsers may cut it.` : '';
  return url;
}

$('share').addEventListener('click', async () => {
  const url = writeUrlState();
  try {
    await navigator.clipboard.writeText(url);
    $('share-info').textContent = 'Link copied.';
  } catch {
    $('share-info').textContent = url;
  }
});

async function applyUrlState(autorun) {
  const st = decodeState(location.hash);
  if (!st) return;
  // Every problem with the link is listed (none replaces another).
  const linkErrors = st.error ? [st.error] : [];
  if (app.presets.includes(st.preset)) {
    app.preset = st.preset;
    $('preset').value = st.preset;
  } else linkErrors.push(`This link names GPU preset "${st.preset}", which this version does not have; using ${app.preset}.`);
  if (st.workload && !app.workloads.some((w) => w.name === st.workload)) linkErrors.push(`This link names workload "${st.workload}", which this version does not have.`);
  if (st.sass && !app.sassSamples.some((x) => x.name === st.sass)) linkErrors.push(`This link names SASS example "${st.sass}", which this version does not have.`);
  showError(linkErrors.join('\n'));
  const known = [...$('mode').options].map((o) => o.value);
  if (known.includes(st.mode) && st.mode !== 'mix') $('mode').value = st.mode;
  else {
    $('mode').value = 'mix';
    $('mix').value = st.mode;
    $('mix-label').hidden = false;
  }
  app.overrides = { ...st.overrides };
  await refreshConfig();
  if (st.upload) {
    setStatus('This link was made with an uploaded trace: load the same trace to reproduce the run (traces never travel in links).', 'idle');
    return;
  }
  if (st.sass && loadSassSample(st.sass)) {
    selectTab('sass');
    const x = app.sassSamples.find((y) => y.name === st.sass);
    app.selection = { kind: 'sass', listing: x.listing, spec: x.spec, listingName: x.listingName, sample: x.name };
    $('selected').textContent = describeSelection(app.selection);
    if (autorun) await startRun();
    return;
  }
  if (st.workload && app.workloads.some((w) => w.name === st.workload)) {
    setWorkloadParams(st.workload, st.params);
    app.selection = { kind: 'workload', name: st.workload, params: { ...st.params } };
    $('selected').textContent = describeSelection(app.selection);
    if (autorun) await startRun();
  }
}
window.addEventListener('hashchange', () => {
  const want = location.hash;
  if (want && app.last && encodeState(app.last.state) === want) return;
  applyUrlState(true);
});

// ---- exports ----
$('export-json').addEventListener('click', () => app.last && exportJson(app.last));
$('export-csv').addEventListener('click', () => app.last && exportCsv(app.last));
$('export-trace').addEventListener('click', () => app.last && exportChromeTrace(sim, app.last).catch((e) => showError(e.message)));
