import zlib from 'node:zlib';
// The browser app end to end in Debian's Chromium: a gallery run equal to the native library's
// result, an upload of a sample trace, a shared URL reproducing a run, cancel during a long run,
// a corrupt file and a too-big file giving clear errors. Screenshots go to tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useApp, openPage, screenshot, SKIP, ROOT } from './harness.mjs';

const FIX = path.join(ROOT, 'tests/browser/fixtures');
// The Accel-Sim sample folder shipped in the repository (sample-traces/text/vecadd-100, made by
// `warpweave gen`); gzipped on the fly for the compressed-upload checks.
const SAMPLE_VECADD = path.join(ROOT, 'sample-traces/text/vecadd-100');
const sampleGz = () => zlib.gzipSync(fs.readFileSync(path.join(SAMPLE_VECADD, 'kernel-1.traceg')), { level: 9 });
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

async function waitDone(page, timeout = 30000) {
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.getElementById('status').dataset.state), null, { timeout });
  const st = await page.$eval('#status', (e) => e.dataset.state);
  const err = await page.$$eval('.error:not([hidden])', (es) => es.map((e) => e.textContent).join(' | '));
  assert.equal(st, 'done', `run did not finish: ${err}\n${page.log.join('\n')}`);
  return page.evaluate(() => window.warpweave.last.json);
}

test('gallery run in cycle mode: same cycles and result as the native library', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'cycle');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  const json = JSON.parse(await waitDone(page));
  const want = golden('vecadd-cycle');
  assert.equal(json.result.cycles, want.result.cycles);
  assert.deepEqual(json, want);
  const cyc = await page.$eval('#summary-table', (t) => [...t.querySelectorAll('tr')].find((r) => r.firstChild.textContent === 'cycles')?.lastChild.textContent);
  assert.equal(cyc, want.result.cycles.toLocaleString('en-US'));
  // The result's notes listed under the summary, as the CLI prints them.
  const notes = await page.$$eval('#notes-list li', (li) => li.map((x) => x.textContent));
  assert.deepEqual(notes, want.result.notes);
  assert.ok(await page.$('#stall-table'));
  await screenshot(page, 'gallery-cycle');
  await page.close();
});

test('gallery run in memory mode gives exactly the native library result', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'memory');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  const json = await waitDone(page);
  assert.deepEqual(JSON.parse(json), golden('vecadd-memory'));
  // The summary table shows the same numbers.
  const l2 = await page.$eval('#summary-table', (t) => [...t.querySelectorAll('tr')].find((r) => r.firstChild.textContent === 'L2 requests')?.lastChild.textContent);
  const g = golden('vecadd-memory').result.kernels.reduce((a, k) => a + k.l2.accesses, 0);
  assert.equal(l2, g.toLocaleString('en-US'));
  await screenshot(page, 'gallery-run');
  await page.close();
});

test('upload of a sample Accel-Sim trace folder and of a gzipped kernel file', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'memory');
  const dir = SAMPLE_VECADD;
  await page.setInputFiles('#file-input', [
    { name: 'kernelslist.g', mimeType: 'text/plain', buffer: fs.readFileSync(path.join(dir, 'kernelslist.g')) },
    { name: 'kernel-1.traceg', mimeType: 'text/plain', buffer: fs.readFileSync(path.join(dir, 'kernel-1.traceg')) },
  ]);
  const json = JSON.parse(await waitDone(page));
  const want = golden('vecadd100-upload-memory');
  // Loose files (no folder) are named after their kernel file; the golden, after its folder.
  assert.equal(json.trace.name, 'kernel-1.traceg');
  assert.deepEqual({ ...json.result, trace: want.result.trace }, want.result);
  assert.equal(json.trace.kernels[0].name, '_Z6vecaddPKfS0_Pfi');
  await screenshot(page, 'upload-folder');
  await page.setInputFiles('#file-input', [{ name: 'kernel-1.traceg.gz', mimeType: 'application/gzip', buffer: sampleGz() }]);
  await page.waitForFunction(() => /kernel-1\.traceg\.gz \(text\+gzip/.test(document.getElementById('upload-info').textContent));
  const gz = JSON.parse(await waitDone(page));
  // Same kernel; without kernelslist.g there are no MemcpyHtoD commands, so the L2 starts cold.
  assert.deepEqual(gz.trace.kernels, want.trace.kernels);
  const pick = (k) => [k.mem_instructions, k.requests, k.sectors, k.l1.accesses, k.l1.hits];
  assert.deepEqual(gz.result.kernels.map(pick), want.result.kernels.map(pick));
  assert.equal(gz.result.kernels[0].l2.hits, 0);
  await page.close();
});

test('a shared URL reproduces the run', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'memory');
  await page.click('.card[data-workload="transpose_naive"] summary');
  const first = await page.$('.card[data-workload="transpose_naive"] .params input');
  const pname = await first.getAttribute('name');
  const pval = String(Number(await first.inputValue()) * 2);
  await first.fill(pval);
  await page.fill('#config-filter', 'l2.cache.latency');
  const old = Number(await page.inputValue('#cfg-l2-cache-latency'));
  await page.fill('#cfg-l2-cache-latency', String(old + 7));
  await page.press('#cfg-l2-cache-latency', 'Tab');
  await page.waitForSelector('.cfg-row.edited[data-key="l2.cache.latency"]');
  await page.click('.card[data-workload="transpose_naive"] button.run-workload');
  const json = await waitDone(page);
  const url = page.url();
  assert.ok(url.length < 2000, `share link of ${url.length} characters`);
  assert.match(url, /#v=1&/);
  assert.match(url, new RegExp(`p\\.${pname}=${pval}`));
  assert.match(url, new RegExp(`c\\.l2\\.cache\\.latency=${old + 7}`));
  assert.match(url, /gpu=teaching/);
  const env = JSON.parse(json);
  assert.equal(env.config.l2.cache.latency, old + 7);
  const page2 = await openPage(app.browser, url);
  const json2 = await waitDone(page2);
  assert.equal(json2, json);
  await screenshot(page2, 'shared-url');
  await page.close();
  await page2.close();
});

test('cancel stops a long run at once and the next run works', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await ready(page);
  await page.selectOption('#mode', 'memory');
  await page.click('.card[data-workload="matmul_naive"] summary');
  const inputs = await page.$$('.card[data-workload="matmul_naive"] .params input[type=number]');
  for (const i of inputs) {
    const max = await i.getAttribute('max');
    const name = await i.getAttribute('name');
    if (/^(n|m|k|size|dim)$/.test(name) && max) await i.fill(String(Math.min(Number(max), 1024)));
  }
  await page.click('.card[data-workload="matmul_naive"] button.run-workload');
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'running');
  await page.waitForTimeout(300);
  const t0 = Date.now();
  await page.click('#cancel-btn');
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'cancelled', null, { timeout: 5000 });
  const dt = Date.now() - t0;
  assert.ok(dt < 1500, `cancel took ${dt} ms`);
  await page.selectOption('#mode', 'memory');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  const json = await waitDone(page);
  assert.deepEqual(JSON.parse(json), golden('vecadd-memory'));
  await page.close();
});

test('a corrupt file and a too-big file give clear errors', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url + '?maxUpload=4096');
  await ready(page, null);
  await page.setInputFiles('#file-input', [{ name: 'junk.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0, 159, 146, 150, 7, 1, 2, 3]) }]);
  // Errors of a run sit under the Run button; a refused upload's under the upload buttons.
  await page.waitForFunction(() => !document.getElementById('run-error').hidden);
  assert.match(await page.textContent('#run-error'), /junk\.bin: format: not a warpweave compact trace/);
  // A gzip stream cut short.
  const gz = sampleGz();
  await page.setInputFiles('#file-input', [{ name: 'kernel-1.traceg.gz', mimeType: 'application/gzip', buffer: gz.subarray(0, 300) }]);
  // The status is still "error" from the previous file: wait for this file's own message.
  await page.waitForFunction(() => /kernel-1\.traceg\.gz/.test(document.getElementById('run-error').textContent));
  assert.match(await page.textContent('#run-error'), /kernel-1\.traceg\.gz/);
  // Bigger than the limit: refused before reading, with the CLI command.
  await page.setInputFiles('#file-input', [{ name: 'big trace.traceg', mimeType: 'text/plain', buffer: Buffer.alloc(5000, 0x41) }]);
  await page.waitForFunction(() => /command-line/.test(document.getElementById('upload-error').textContent));
  const msg = await page.textContent('#upload-error');
  assert.match(msg, /4\.0 KiB/);
  const preset = await page.evaluate(() => window.warpweave.preset);
  assert.ok(msg.includes(`warpweave run --trace 'big trace.traceg' --gpu ${preset} --mode cycle`), msg);
  await screenshot(page, 'errors');
  await page.close();
});
