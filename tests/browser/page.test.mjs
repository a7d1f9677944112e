// The page in plain use: each view updates its own table, the config filter, the pipeline
// labels while the cycles scroll, errors beside what caused them (and no stale results), the
// recorded window on a GPU with a launch latency, the carve-out hint, archive uploads, and the
// SASS tab.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { useApp, openPage, screenshot, SKIP, ROOT } from './harness.mjs';

const FIX = path.join(ROOT, 'tests/browser/fixtures');
const SAMPLE = path.join(ROOT, 'sample-traces/text/vecadd-100');
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

async function finished(page, timeout = 60000) {
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.getElementById('status').dataset.state), null, { timeout });
  return page.$eval('#status', (e) => e.dataset.state);
}

async function waitDone(page, timeout) {
  const st = await finished(page, timeout);
  const err = await page.$$eval('.error:not([hidden])', (es) => es.map((e) => e.textContent).join(' | '));
  assert.equal(st, 'done', `run did not finish: ${err}\n${page.log.join('\n')}`);
  return JSON.parse(await page.evaluate(() => window.warpweave.last.json));
}

/** True when the element is shown and lies within the viewport. */
const inView = (page, sel) =>
  page.$eval(sel, (e) => {
    const r = e.getBoundingClientRect();
    return !e.hidden && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
  });

// ---- archives built here (no archive tool needed) ----
function tar(files) {
  const out = [];
  for (const [name, data] of files) {
    const hd = Buffer.alloc(512);
    hd.write(name, 0);
    hd.write('0000644', 100);
    hd.write(data.length.toString(8).padStart(11, '0'), 124);
    hd.write('0', 156);
    hd.write('ustar\u000000', 257, 'latin1');
    hd.write('        ', 148);
    let sum = 0;
    for (const b of hd) sum += b;
    hd.write(sum.toString(8).padStart(6, '0') + '\u0000', 148, 'latin1');
    out.push(hd, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  out.push(Buffer.alloc(1024));
  return Buffer.concat(out);
}

function zip(files) {
  const locals = [];
  const central = [];
  let off = 0;
  for (const [name, data] of files) {
    const c = zlib.deflateRawSync(data);
    const n = Buffer.from(name);
    const common = Buffer.alloc(26);
    common.writeUInt16LE(20, 0);
    common.writeUInt16LE(8, 4);
    common.writeUInt32LE(zlib.crc32 ? zlib.crc32(data) : 0, 10);
    common.writeUInt32LE(c.length, 14);
    common.writeUInt32LE(data.length, 18);
    common.writeUInt16LE(n.length, 22);
    const local = Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), common, n, c]);
    const tail = Buffer.alloc(14); // comment length, disk, attributes, then the local header's offset
    tail.writeUInt32LE(off, 10);
    central.push(Buffer.concat([Buffer.from('PK\u0001\u0002', 'latin1'), Buffer.from([20, 0]), common, tail, n]));
    locals.push(local);
    off += local.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.write('PK\u0005\u0006', 0, 'latin1');
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(off, 16);
  return Buffer.concat([...locals, cd, end]);
}

const folder = () => [
  ['vecadd-100/kernelslist.g', fs.readFileSync(path.join(SAMPLE, 'kernelslist.g'))],
  ['vecadd-100/kernel-1.traceg', fs.readFileSync(path.join(SAMPLE, 'kernel-1.traceg'))],
];

test('the cache view and the results each update their own table (distinct ids)', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'cycle');
  await page.fill('#rec-from', '0');
  await page.fill('#rec-to', '200');
  await page.click('.card[data-workload="matmul_tiled"] button.run-workload');
  await waitDone(page);
  await page.waitForSelector('#cacheview:not([hidden])');
  const dup = await page.evaluate(() => {
    const seen = new Map();
    for (const e of document.querySelectorAll('[id]')) seen.set(e.id, (seen.get(e.id) || 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  });
  assert.deepEqual(dup, [], 'ids used twice');
  await page.fill('#pipe-jump', '63');
  await page.click('#pipe-go');
  assert.equal(await page.$eval('#cacheview #cache-accesses caption', (c) => c.textContent), 'L1D accesses in cycle 63');
  assert.equal(await page.$eval('#results #cache-table caption', (c) => c.textContent), 'Instruction caches and memory pipeline');
  await page.close();
});

test('the config filter shows only the matching keys', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.fill('#config-filter', 'size_kb');
  const shown = await page.$$eval('#config-form .cfg-row', (rows) => rows.filter((r) => r.checkVisibility()).map((r) => r.dataset.key));
  assert.ok(shown.length > 0);
  assert.ok(shown.every((k) => k.includes('size_kb')), shown.join(', '));
  await page.fill('#config-filter', '');
  const all = await page.$$eval('#config-form .cfg-row', (rows) => rows.filter((r) => r.checkVisibility()).length);
  assert.ok(all > shown.length);
  await page.close();
});

test('the pipeline row labels stay in view while the cycles scroll', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'cycle');
  await page.fill('#rec-from', '0');
  await page.fill('#rec-to', '400');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await waitDone(page);
  await page.waitForSelector('#pipeline:not([hidden])');
  await page.fill('#pipe-jump', '300');
  await page.click('#pipe-go');
  const g = await page.evaluate(() => {
    const box = document.getElementById('pipe-scroll');
    const lab = document.getElementById('pipe-labels');
    return { scrolled: box.scrollLeft, box: box.getBoundingClientRect().left + box.clientLeft, labels: lab.getBoundingClientRect().left, w: lab.width };
  });
  assert.ok(g.scrolled > 0, 'the canvas scrolled to cycle 300');
  assert.ok(Math.abs(g.labels - g.box) < 1, `labels at ${g.labels}, box at ${g.box}`);
  assert.ok(g.w > 0);
  await (await page.$('#pipeline')).screenshot({ path: path.join(ROOT, 'tests/artifacts/pipeline-sticky-labels.png') });
  await page.close();
});

test('a failed run clears the old results and shows its error beside the Run button; a config error beside its key', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'memory');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await waitDone(page);
  assert.ok(await page.$eval('#results', (e) => !e.hidden));
  await page.selectOption('#mode', 'mix');
  await page.fill('#mix', 'bogus=1');
  await page.click('#run-btn');
  assert.equal(await finished(page), 'error');
  assert.ok(await page.$eval('#results', (e) => e.hidden), 'the previous results are gone');
  assert.match(await page.textContent('#run-error'), /bogus/);
  assert.ok(await inView(page, '#run-error'), 'the run error is in view');
  assert.ok(await page.$eval('#error', (e) => e.hidden), 'nothing at the top of the page');
  // A config value out of range: the error sits in the key's row, in view.
  const key = await page.evaluate(() => {
    const d = [...window.warpweave.docs.values()].find((x) => x.kind?.type === 'int' && x.max !== null && x.max !== undefined && x.max < 1e9);
    return d.key;
  });
  const id = 'cfg-' + key.replace(/\./g, '-');
  const max = await page.$eval(`#${CSS_escape(id)}`, (e) => Number(e.max));
  await page.fill(`#${CSS_escape(id)}`, String(max + 1));
  await page.press(`#${CSS_escape(id)}`, 'Tab');
  const rowErr = `.cfg-row[data-key="${key}"] .error`;
  await page.waitForSelector(rowErr);
  assert.match(await page.textContent(rowErr), new RegExp(key.split('.').pop()));
  assert.ok(await inView(page, rowErr), 'the config error is in view');
  await screenshot(page, 'errors-in-place');
  await page.close();
});

function CSS_escape(id) {
  return id.replace(/([^\w-])/g, '\\$1');
}

test('on a GPU with a launch latency the window starts at the first CTA issue', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page, null); // the page's default preset
  const lat = await page.evaluate(() => Number(window.warpweave.effective.get('sm.kernel_launch_latency')));
  assert.ok(lat > 1000, `the default preset's launch latency is ${lat}`);
  await page.selectOption('#mode', 'cycle');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  const env = await waitDone(page);
  await page.waitForSelector('#pipeline:not([hidden])');
  const v = await page.evaluate(() => {
    const sm = window.warpweave.lastTimeline.timeline.sms[0];
    return { first: sm.frames[0].cycle, busy: sm.frames.filter((f) => f.subcores.some((s) => s.slots.some((x) => x.state !== 'empty'))).length, info: document.getElementById('views-info').textContent, empty: document.getElementById('views-info').dataset.empty };
  });
  assert.equal(v.first, lat, 'the window starts at the first CTA issue, the kernel launch latency');
  assert.ok(v.busy > 0, `no warp in the window: ${v.info}`);
  assert.equal(v.empty, '0');
  assert.match(v.info, /first CTA is issued/);
  assert.ok(env.result.kernels[0].launch_cycles > 0);
  // A window set inside the launch latency says why it is empty.
  await page.fill('#rec-from', '0');
  await page.fill('#rec-to', '100');
  await page.click('#run-btn');
  await waitDone(page);
  await page.waitForSelector('#views:not([hidden])');
  assert.match(await page.textContent('#views-info'), /inside the kernel launch latency/);
  await page.close();
});

test('l1d.cache.size_kb says it changes nothing while the carve-out is adaptive', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page, null); // the page's default preset
  await page.fill('#config-filter', 'l1d');
  if (!(await page.isChecked('#cfg-l1d-adaptive_carveout'))) {
    await page.check('#cfg-l1d-adaptive_carveout');
    await page.waitForSelector('.cfg-row.edited[data-key="l1d.adaptive_carveout"]');
  }
  assert.match(await page.textContent('#cfg-l1d-cache-size_kb-hint'), /adaptive_carveout/);
  assert.ok(await page.isVisible('#cfg-l1d-cache-size_kb-hint'));
  await page.uncheck('#cfg-l1d-adaptive_carveout');
  await page.waitForFunction(() => !document.getElementById('cfg-l1d-cache-size_kb-hint'));
  await page.close();
});

test('uploads: a .zip and a .tar.gz of a trace folder, a kernels list beside a .traceg.gz; named after the folder', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'memory');
  const want = golden('vecadd100-upload-memory');
  for (const [name, buffer] of [
    ['vecadd-100.zip', zip(folder())],
    ['vecadd-100.tar.gz', zlib.gzipSync(tar(folder()))],
  ]) {
    await page.setInputFiles('#file-input', [{ name, mimeType: 'application/octet-stream', buffer }]);
    await page.waitForFunction((n) => document.getElementById('upload-info').textContent.includes(n), name);
    const env = await waitDone(page);
    assert.deepEqual(env.result, want.result, name);
    assert.equal(env.trace.name, 'vecadd-100', name);
    const shown = await page.$eval('#summary-table', (t) => [...t.querySelectorAll('tr')].find((r) => r.firstChild.textContent === 'trace')?.lastChild.textContent);
    assert.equal(shown, 'vecadd-100');
  }
  await page.setInputFiles('#file-input', [
    { name: 'kernelslist.g', mimeType: 'text/plain', buffer: fs.readFileSync(path.join(SAMPLE, 'kernelslist.g')) },
    { name: 'kernel-1.traceg.gz', mimeType: 'application/gzip', buffer: zlib.gzipSync(fs.readFileSync(path.join(SAMPLE, 'kernel-1.traceg'))) },
  ]);
  await page.waitForFunction(() => document.getElementById('upload-info').textContent.includes('2 files'));
  const env = await waitDone(page);
  assert.equal(env.trace.name, 'kernel-1.traceg.gz');
  assert.deepEqual({ ...env.result, trace: want.result.trace }, want.result);
  await page.close();
});

test('SASS tab: a teaching kernel from the gallery runs and equals the native library', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'memory');
  await page.click('#tab-sass');
  await page.waitForSelector('.card[data-sass="vecmul"]');
  assert.ok(await page.isHidden('#gallery'));
  await page.click('.card[data-sass="vecmul"] button.run-sass');
  const env = await waitDone(page);
  assert.deepEqual(env, golden('sass-vecmul-memory'));
  assert.equal(env.trace.kernels[0].name, '_Z6vecmulPfS_');
  assert.match(await page.inputValue('#sass-spec'), /kernel = "vecmul"/);
  assert.match(page.url(), /sass=vecmul/);
  // A listing the executor refuses: the error sits under the editors.
  await page.fill('#sass-spec', 'kernel = "nosuch"\ngrid = 1\nblock = 32\n');
  await page.click('#sass-run');
  assert.equal(await finished(page), 'error');
  assert.match(await page.textContent('#sass-error'), /nosuch/);
  assert.ok(await inView(page, '#sass-error'));
  // The share link of the unedited example reproduces the run.
  const url = app.server.url + '#v=1&gpu=teaching&mode=memory&sass=vecmul';
  const page2 = await openPage(app.browser, url);
  const env2 = await waitDone(page2);
  assert.deepEqual(env2, env);
  await screenshot(page2, 'sass-tab');
  await page.close();
  await page2.close();
});

test('a bad link lists every problem and a later run does not replace it', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url + '#v=1&gpu=rtx9999&mode=memory&w=vecadd');
  await waitDone(page);
  assert.match(await page.textContent('#error'), /rtx9999/);
  await page.click('.card[data-workload="saxpy"] button.run-workload');
  await waitDone(page);
  assert.match(await page.textContent('#error'), /rtx9999/);
  await page.close();
});

test('on a phone (390x844) the page does not scroll sideways after a run', { skip: SKIP }, async () => {
  const page = await app.browser.newPage({ viewport: { width: 390, height: 844 } });
  page.log = [];
  await page.goto(app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'cycle');
  await page.fill('#rec-to', '100');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await waitDone(page);
  const over = await page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const bad = [...document.querySelectorAll('#results *, #config *, #views *')].filter((e) => {
      if (!e.checkVisibility()) return false;
      // Inside a box that scrolls sideways on its own is fine.
      for (let p = e.parentElement; p; p = p.parentElement) if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX) && p.getBoundingClientRect().right <= w + 1) return false;
      return e.getBoundingClientRect().right > w + 1;
    });
    return { scroll: document.documentElement.scrollWidth, w, bad: bad.slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className}`) };
  });
  assert.deepEqual(over.bad, [], `cut at the right: ${over.bad.join(', ')}`);
  assert.ok(over.scroll <= over.w, `page is ${over.scroll} px wide in a ${over.w} px viewport`);
  await screenshot(page, 'phone');
  await page.close();
});

test('fast mode: no pipeline row that stays empty, stall names as the text picture spells them', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'fast');
  await page.fill('#rec-from', '0');
  await page.fill('#rec-to', '300');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await waitDone(page);
  await page.waitForSelector('#pipeline:not([hidden])');
  const r = await page.evaluate(() => {
    const tl = window.warpweave.lastTimeline;
    const whys = new Set();
    for (const f of tl.timeline.sms[0].frames) for (const sc of f.subcores) for (const s of sc.slots) if (s.why) whys.add(s.why);
    return { whys: [...whys], text: tl.text[0].join('') };
  });
  const names = [];
  for (let i = 0; i < 300; i += 7) {
    await page.fill('#pipe-jump', String(i));
    await page.click('#pipe-go');
    names.push(...(await page.$$eval('#pipe-slots tbody tr', (tr) => tr.map((x) => x.children[3].textContent).filter(Boolean))));
  }
  for (const n of new Set(names)) assert.ok(r.text.includes(n), `stall "${n}" is not what the text picture prints`);
  assert.ok(!names.includes('i_fetch'));
  await page.close();
});
