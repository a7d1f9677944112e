// The page a student opens: the one-screen overview of a result with the tables collapsed under
// it, the drawn SM stepping with the pipeline grid, an accessibility check (axe-core), the wasm
// served gzip-compressed by scripts/serve.sh, and the time from navigation to a first result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { useApp, openPage, screenshot, SKIP, ROOT, ARTIFACTS } from './harness.mjs';

const FIX = path.join(ROOT, 'tests/browser/fixtures');
const golden = (name) => JSON.parse(fs.readFileSync(path.join(FIX, 'golden', `${name}.json`), 'utf8'));

const app = useApp();

async function ready(page, preset = 'teaching') {
  await page.waitForSelector('#version[data-ready="1"]', { timeout: 20000 });
  await page.waitForSelector('.card[data-workload="vecadd"]', { timeout: 20000 });
  await page.waitForSelector('#config-form fieldset', { timeout: 20000 });
  if (preset) {
    await page.selectOption('#preset', preset);
    await page.waitForSelector(`#config-form[data-preset="${preset}"]`);
  }
}

async function waitDone(page, timeout = 60000) {
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.getElementById('status').dataset.state), null, { timeout });
  const st = await page.$eval('#status', (e) => e.dataset.state);
  const err = await page.$$eval('.error:not([hidden])', (es) => es.map((e) => e.textContent).join(' | '));
  assert.equal(st, 'done', `run did not finish: ${err}\n${page.log.join('\n')}`);
  return JSON.parse(await page.evaluate(() => window.warpweave.last.json));
}

const tiles = (page) => page.$$eval('#overview-tiles .tile', (ts) => Object.fromEntries(ts.map((t) => [t.dataset.key, [...t.querySelectorAll('dd')].map((d) => d.textContent)])));

test('overview: one screen of figures before the tables, which are collapsed', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'cycle');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  const json = await waitDone(page);
  const want = golden('vecadd-cycle');
  assert.deepEqual(json, want, 'the page result equals the CLI JSON');
  const r = want.result;
  const t = await tiles(page);
  assert.equal(t.cycles[0], r.cycles.toLocaleString('en-US'));
  assert.match(t.cycles[1], new RegExp(`duration ${r.kernels[0].duration_cycles.toLocaleString('en-US')}`));
  assert.equal(t.ipc[0], r.ipc.toFixed(3));
  assert.equal(t.time[0], `${(r.seconds * 1e6).toFixed(2)} µs`);
  // The three largest reasons a scheduler did not issue, largest first.
  const tot = Object.values(r.stall_stack).reduce((a, b) => a + b, 0);
  const top = Object.entries(r.stall_stack).filter(([k, v]) => k !== 'issued' && v > 0).sort((a, b) => b[1] - a[1]).slice(0, 3);
  assert.equal(t.stalls[0], top.map(([k, v]) => `${k.replace(/_/g, ' ')} ${((100 * v) / tot).toFixed(1)} %`).join(', '));
  const l1 = r.memory.sm.l1;
  const l2 = r.memory.partitions.l2;
  assert.equal(t.l1[0], `${((100 * l1.hits) / l1.accesses).toFixed(1)} %`);
  assert.equal(t.l2[0], `${((100 * l2.hits) / l2.accesses).toFixed(1)} %`);
  assert.match(t.dram[1], /read/);
  assert.equal(t.mode[0], `cycle, ${r.core}`);
  assert.equal(t.accuracy[0], 'not measured for this preset');
  // The overview fits one screen and comes first; every long table is inside the closed details.
  const box = await page.$eval('#res-overview', (e) => e.getBoundingClientRect().height);
  assert.ok(box < 900, `overview is ${box}px high`);
  assert.equal(await page.$eval('#results-body', (b) => b.firstElementChild.id), 'res-overview');
  assert.equal(await page.$eval('#res-tables', (d) => d.open), false);
  for (const id of ['summary-table', 'stall-table', 'unit-table', 'kernel-table', 'sm-table', 'pc-table']) assert.ok(await page.$(`#res-tables #${id}`), `${id} under the overview`);
  assert.equal(await page.isVisible('#stall-table'), false);
  await page.click('#res-tables > summary');
  assert.equal(await page.isVisible('#stall-table'), true);
  await page.$eval('#res-overview', (e) => e.scrollIntoView());
  await screenshot(page, 'overview');
  await (await page.$('#res-overview')).screenshot({ path: path.join(ARTIFACTS, 'overview-section.png') });
  await page.close();
});

test('overview: a preset measured on hardware shows its error; memory mode shows its hit rates and traffic', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page, 'h100');
  await page.selectOption('#mode', 'memory');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  const json = await waitDone(page);
  assert.ok(json.held_out, 'the h100 preset carries its held-out error');
  const t = await tiles(page);
  assert.equal(t.accuracy[0], json.held_out);
  const sum = (f) => json.result.kernels.reduce((a, k) => a + f(k), 0);
  assert.equal(t.l2[0], `${((100 * sum((k) => k.l2.hits)) / sum((k) => k.l2.accesses)).toFixed(1)} %`);
  assert.ok(t.dram, 'DRAM traffic shown');
  assert.equal(t.mode[0], 'memory');
  await page.close();
});

test('the drawn SM shows what each block holds in the current cycle and steps with the grid', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'cycle');
  await page.fill('#rec-from', '20');
  await page.fill('#rec-to', '60');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await waitDone(page);
  await page.waitForSelector('#smview:not([hidden]) #sm-svg g[data-block]');
  // Blocks: the sub-cores with their stages, the shared L1I, memory pipelines, L1D and L2 link.
  const ids = await page.$$eval('#sm-svg g[data-block]', (gs) => gs.map((g) => g.dataset.block));
  const nsub = await page.evaluate(() => window.warpweave.lastTimeline.timeline.sms[0].subcores);
  for (let s = 0; s < nsub; s++) for (const p of ['fetch', 'slots', 'issue', 'regs', 'units']) assert.ok(ids.includes(`sc${s}-${p}`), `sc${s}-${p}`);
  for (const b of ['l1i', 'mem0', 'l1d', 'l2']) assert.ok(ids.includes(b), b);
  // A cycle where some sub-core issues: its issue block names the warp and opcode the frames hold.
  const want = await page.evaluate(() => {
    const tl = window.warpweave.lastTimeline.timeline;
    for (const f of tl.sms[0].frames) {
      const s = f.subcores.findIndex((sc) => sc.issued.length);
      if (s >= 0 && f.cycle > 20) {
        const o = f.subcores[s].issued[0];
        const st = f.subcores.flatMap((sc, si) => sc.slots.map((x, k) => ({ x, w: k * f.subcores.length + si, si }))).find((y) => y.x.state === 'stalled');
        return { cycle: f.cycle, s, warp: o.warp, op: tl.kernels[o.kernel].ops[o.op], stalled: st && { s: st.si, w: st.w, why: st.x.why } };
      }
    }
    return null;
  });
  assert.ok(want, 'some instruction issues in cycles 21..59');
  await page.fill('#pipe-jump', String(want.cycle));
  await page.click('#pipe-go');
  assert.equal(await page.$eval('#pipe-cycle', (e) => Number(e.dataset.cycle)), want.cycle);
  const issue = await page.$eval(`#sm-sc${want.s}-issue`, (g) => g.textContent);
  assert.ok(issue.includes(`w${want.warp} ${want.op}`), `issue block of sub-core ${want.s} in cycle ${want.cycle}: ${issue}`);
  const slots = await page.$eval(`#sm-sc${want.s}-slots`, (g) => g.textContent);
  assert.ok(slots.includes(`w${want.warp}: issued ${want.op}`), slots);
  if (want.stalled) {
    const names = { mem_structural: 'mem_struct', comp_structural: 'comp_struct', i_fetch: 'ifetch' };
    const st = await page.$eval(`#sm-sc${want.stalled.s}-slots`, (g) => g.textContent);
    assert.ok(st.includes(`w${want.stalled.w}: stalled ${names[want.stalled.why] ?? want.stalled.why}`), st);
  }
  // The same controls move it: one step on, the picture follows the frames of the next cycle.
  await page.click('#pipe-fwd');
  const next = await page.evaluate((c) => {
    const tl = window.warpweave.lastTimeline.timeline;
    const f = tl.sms[0].frames.find((x) => x.cycle === c + 1);
    return f.subcores.map((sc) => ({ issued: sc.issued.map((o) => `w${o.warp} ${tl.kernels[o.kernel].ops[o.op]}`), warps: sc.slots.some((x) => x.state !== 'empty') }));
  }, want.cycle);
  for (let s = 0; s < next.length; s++) {
    const txt = await page.$eval(`#sm-sc${s}-issue`, (g) => g.textContent);
    for (const x of next[s].issued) assert.ok(txt.includes(x), `sub-core ${s} cycle ${want.cycle + 1}: ${txt} lacks ${x}`);
    if (!next[s].issued.length) assert.ok(next[s].warps ? txt.includes('nothing issued') : txt.endsWith('–'), `sub-core ${s} issues nothing: ${txt}`);
  }
  assert.match(await page.$eval('#sm-svg title', (e) => e.textContent), new RegExp(`cycle ${want.cycle + 1}$`));
  // The grid and the text picture stay beside it.
  assert.ok(await page.isVisible('#pipe-canvas'));
  assert.match(await page.$eval('#pipe-text', (e) => e.textContent), new RegExp(`cycle ${want.cycle + 1}`));
  // A cycle where a sub-core's warps are all stalled: its issue block says why nothing issued.
  const idle = await page.evaluate(() => {
    const names = { mem_structural: 'mem_struct', comp_structural: 'comp_struct', i_fetch: 'ifetch' };
    for (const f of window.warpweave.lastTimeline.timeline.sms[0].frames) {
      const s = f.subcores.findIndex((sc) => !sc.issued.length && sc.slots.some((x) => x.state === 'stalled'));
      if (s >= 0) return { cycle: f.cycle, s, why: f.subcores[s].slots.filter((x) => x.state === 'stalled').map((x) => names[x.why] ?? x.why) };
    }
    return null;
  });
  if (idle) {
    await page.fill('#pipe-jump', String(idle.cycle));
    await page.click('#pipe-go');
    const txt = await page.$eval(`#sm-sc${idle.s}-issue`, (g) => g.textContent);
    assert.ok(txt.includes('nothing issued'), txt);
    for (const w of new Set(idle.why)) assert.ok(txt.includes(`${idle.why.filter((x) => x === w).length} ${w}`), `${txt} lacks ${w}`);
  }
  await (await page.$('#smview')).screenshot({ path: path.join(ARTIFACTS, 'sm-view-section.png') });
  await page.close();
});

test('accessibility: axe-core finds no serious or critical violation after a run', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'cycle');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await waitDone(page);
  await page.waitForSelector('#views:not([hidden])');
  // Every collapsed part open, so its content is checked too.
  await page.$$eval('details', (ds) => ds.forEach((d) => (d.open = true)));
  await page.addScriptTag({ path: path.join(ROOT, 'node_modules/axe-core/axe.min.js') });
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return { passes: r.passes.length, violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })) };
  });
  console.log(`axe: ${res.passes} rules pass, ${res.violations.length} violated`);
  assert.ok(res.passes > 10, 'axe ran its rules');
  for (const v of res.violations) console.log(`axe: ${v.impact} ${v.id}: ${v.help} (${v.nodes.join(', ')})`);
  const bad = res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], JSON.stringify(bad, null, 1));
  await page.close();
});

test('accessibility: axe-core on a phone, on the SASS tab and with an error shown', { skip: SKIP }, async () => {
  const page = await app.browser.newPage({ viewport: { width: 390, height: 844 } });
  page.log = [];
  await page.goto(app.server.url);
  await ready(page);
  const scan = async (what) => {
    await page.addScriptTag({ path: path.join(ROOT, 'node_modules/axe-core/axe.min.js') });
    const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations.filter((x) => ['serious', 'critical'].includes(x.impact)).map((x) => `${x.id}: ${x.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')}`));
    assert.deepEqual(v, [], `${what}: ${v.join('; ')}`);
  };
  await page.selectOption('#mode', 'memory');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await waitDone(page);
  await page.$$eval('details', (ds) => ds.forEach((d) => (d.open = true)));
  await scan('phone, after a run');
  await page.click('#tab-sass');
  await scan('SASS tab');
  await page.click('#tab-workloads');
  await page.selectOption('#mode', 'mix');
  await page.fill('#mix', 'bogus=1');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'error', null, { timeout: 30000 });
  await scan('an error shown');
  await page.close();
});

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function get(url, headers) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

test('scripts/serve.sh sends the wasm gzip-compressed to a client that accepts gzip', { skip: SKIP || (!fs.existsSync(path.join(ROOT, 'www/pkg/warpweave_bg.wasm.gz')) && 'no www/pkg/*.gz: run scripts/build-wasm.sh') }, async () => {
  const port = await freePort();
  const srv = spawn(path.join(ROOT, 'scripts/serve.sh'), [String(port)], { cwd: ROOT, stdio: 'ignore' });
  try {
    const base = `http://127.0.0.1:${port}/`;
    let up = false;
    for (let i = 0; i < 100 && !up; i++) {
      up = await get(base, {}).then(() => true, () => new Promise((r) => setTimeout(() => r(false), 100)));
    }
    assert.ok(up, 'serve.sh answers');
    const raw = fs.readFileSync(path.join(ROOT, 'www/pkg/warpweave_bg.wasm'));
    const gz = await get(base + 'pkg/warpweave_bg.wasm', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(gz.status, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers['content-type'], 'application/wasm');
    assert.ok(gz.body.length < raw.length / 2, `compressed ${gz.body.length} of ${raw.length} bytes`);
    const zlib = await import('node:zlib');
    assert.ok(zlib.gunzipSync(gz.body).equals(raw), 'the gzip copy decompresses to the wasm');
    const js = await get(base + 'js/main.js', { 'accept-encoding': 'gzip' });
    assert.equal(js.headers['content-encoding'], 'gzip');
    assert.match(js.headers['content-type'], /^text\/javascript/);
    // A client that does not accept gzip gets the plain file.
    const plain = await get(base + 'pkg/warpweave_bg.wasm', { 'accept-encoding': 'identity' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.length, raw.length);
    console.log(`wasm: ${raw.length} bytes, ${gz.body.length} bytes gzip-compressed`);
  } finally {
    srv.kill('SIGTERM');
  }
});

test('time from navigation to a visible first result (printed, not asserted)', { skip: SKIP }, async () => {
  // A share link that runs on arrival: the teaching GPU, vecadd in cycle mode.
  const page = await app.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const t0 = Date.now();
  await page.goto(`${app.server.url}#v=1&gpu=teaching&mode=cycle&w=vecadd`);
  const wasm = page.waitForSelector('#version[data-ready="1"]', { timeout: 60000 }).then(() => Date.now() - t0);
  await page.waitForSelector('#res-overview .tile-cycles', { state: 'visible', timeout: 60000 });
  const ms = Date.now() - t0;
  const nav = await page.evaluate(() => Math.round(performance.now()));
  console.log(`navigation to a visible first result: ${ms} ms (simulator ready after ${await wasm} ms; page clock ${nav} ms)`);
  await page.close();
});
