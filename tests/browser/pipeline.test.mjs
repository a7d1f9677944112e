// The pipeline and cache views (the text picture; the L1D state per cycle) and the Perfetto export
// of the recorded run in Chromium: the gallery's
// vecadd on the teaching GPU in cycle mode, cycles 20..60 of SM 0 recorded. Stepping forward and
// back, jumping and the keyboard move the current cycle; the page's text for a cycle equals, byte
// for byte, the block `warpweave run --mode cycle --show-pipeline --cycles 20..60 --color never`
// prints for it (the golden file, which the native library's test `session::golden` keeps equal
// to the library's picture; when the CLI binary is built it is checked against it here too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { useApp, openPage, screenshot, SKIP, ROOT, ARTIFACTS } from './harness.mjs';

const WINDOW = [20, 60];
const GOLDEN = path.join(ROOT, 'tests/browser/fixtures/golden/pipeline-vecadd-teaching.txt');

/** The golden picture cut into per-cycle blocks: cycle -> text (with its blank line). */
function blocks(text) {
  const out = new Map();
  for (const b of text.split(/\n\n/)) {
    const m = /^SM 0 cycle (\d+)/.exec(b);
    if (m) out.set(Number(m[1]), b + '\n\n');
  }
  return out;
}

const app = useApp();

test('the golden picture is what the CLI prints', { skip: SKIP }, (t) => {
  const bin = ['debug', 'release'].map((p) => path.join(ROOT, 'target', p, 'warpweave')).find((p) => fs.existsSync(p));
  if (!bin) {
    t.skip('no CLI binary in target/ (cargo build --features cli)');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ww-pipe-'));
  const trace = path.join(dir, 'vecadd.wwt');
  execFileSync(bin, ['gen', 'vecadd', '-o', trace], { stdio: 'pipe' });
  const out = execFileSync(bin, ['run', '--trace', trace, '--gpu', 'teaching', '--mode', 'cycle', '--show-pipeline', '--cycles', `${WINDOW[0]}..${WINDOW[1]}`, '--color', 'never', '--quiet'], { encoding: 'utf8' });
  const golden = fs.readFileSync(GOLDEN, 'utf8');
  assert.ok(out.startsWith(golden), 'the CLI picture differs from the golden file');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('pipeline view steps forward and back; its text equals the CLI picture', { skip: SKIP }, async () => {
  const want = blocks(fs.readFileSync(GOLDEN, 'utf8'));
  assert.equal(want.size, WINDOW[1] - WINDOW[0]);
  const page = await openPage(app.browser, app.server.url);
  await page.waitForSelector('#version[data-ready="1"]', { timeout: 20000 });
  await page.waitForSelector('.card[data-workload="vecadd"]', { timeout: 20000 });
  await page.selectOption('#preset', 'teaching');
  await page.waitForSelector('#config-form[data-preset="teaching"]');
  await page.selectOption('#mode', 'cycle');
  await page.check('#rec-on');
  await page.fill('#rec-sm', '0');
  await page.fill('#rec-from', String(WINDOW[0]));
  await page.fill('#rec-to', String(WINDOW[1]));
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('status').dataset.state), null, { timeout: 60000 });
  assert.equal(await page.$eval('#status', (e) => e.dataset.state), 'done', page.log.join('\n'));
  await page.waitForSelector('#views:not([hidden])');

  const cycle = () => page.$eval('#pipe-cycle', (e) => Number(e.dataset.cycle));
  const text = () => page.$eval('#pipe-text', (e) => e.textContent);
  assert.equal(await cycle(), WINDOW[0]);
  assert.equal(await text(), want.get(WINDOW[0]));
  assert.ok(await page.$eval('#pipe-back', (b) => b.disabled), 'no step back from the first cycle');

  // Forward three times, back once.
  for (let i = 0; i < 3; i++) await page.click('#pipe-fwd');
  assert.equal(await cycle(), WINDOW[0] + 3);
  await page.click('#pipe-back');
  assert.equal(await cycle(), WINDOW[0] + 2);
  assert.equal(await text(), want.get(WINDOW[0] + 2));

  // Jump to a cycle; the table lists the same warps as the picture.
  const J = 41;
  await page.fill('#pipe-jump', String(J));
  await page.click('#pipe-go');
  assert.equal(await cycle(), J);
  assert.equal(await text(), want.get(J));
  const rows = await page.$$eval('#pipe-slots tbody tr', (tr) => tr.map((r) => [...r.children].map((c) => c.textContent)));
  const picSlots = [...want.get(J).matchAll(/slot (\d+) +w(\d+) +(\S+)/g)].filter((m) => m[3] !== '-').map((m) => [`w${m[2]}`, m[3]]);
  const tableSlots = rows.filter((r) => r[1]).map((r) => [r[1], r[2] === 'stalled' ? r[3] : r[2]]);
  assert.deepEqual(tableSlots, picSlots);

  // Keyboard: the canvas takes arrows, Home and End.
  await page.focus('#pipe-canvas');
  await page.keyboard.press('ArrowRight');
  assert.equal(await cycle(), J + 1);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await cycle(), J - 1);
  assert.equal(await text(), want.get(J - 1));
  await page.keyboard.press('End');
  assert.equal(await cycle(), WINDOW[1] - 1);
  assert.equal(await text(), want.get(WINDOW[1] - 1));
  assert.ok(await page.$eval('#pipe-fwd', (b) => b.disabled), 'no step forward from the last cycle');
  await page.keyboard.press('Home');
  assert.equal(await cycle(), WINDOW[0]);

  // Play at 60 cycles/s moves forward; pause stops.
  await page.selectOption('#pipe-speed', '60');
  await page.click('#pipe-play');
  await page.waitForFunction((c) => Number(document.getElementById('pipe-cycle').dataset.cycle) >= c, WINDOW[0] + 5, { timeout: 5000 });
  await page.click('#pipe-play');
  const stopped = await cycle();
  await page.waitForTimeout(200);
  assert.equal(await cycle(), stopped, 'pause stops the animation');
  assert.equal(await text(), want.get(stopped));
  await screenshot(page, 'pipeline-view');
  await (await page.$('#pipeline')).screenshot({ path: path.join(ARTIFACTS, 'pipeline-view-section.png') });
  await page.close();
});

test('cache view: the L1 accesses of a cycle and the lines they leave', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await page.waitForSelector('#version[data-ready="1"]', { timeout: 20000 });
  await page.waitForSelector('.card[data-workload="vecadd"]', { timeout: 20000 });
  await page.selectOption('#preset', 'teaching');
  await page.waitForSelector('#config-form[data-preset="teaching"]');
  await page.selectOption('#mode', 'cycle');
  await page.fill('#rec-from', '0');
  await page.fill('#rec-to', '400');
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('status').dataset.state), null, { timeout: 60000 });
  assert.equal(await page.$eval('#status', (e) => e.dataset.state), 'done', page.log.join('\n'));
  await page.waitForSelector('#cacheview:not([hidden])');
  // The recorded frames (from the Worker) name the first cycle with an L1 access.
  const first = await page.evaluate(() => {
    const fr = window.warpweave.lastTimeline.timeline.sms[0].frames;
    const f = fr.find((x) => x.l1 && x.l1.accesses.length);
    return f && { cycle: f.cycle, accesses: f.l1.accesses };
  });
  assert.ok(first, 'vecadd loads through the L1 within 400 cycles');
  await page.fill('#pipe-jump', String(first.cycle));
  await page.click('#pipe-go');
  const rows = await page.$$eval('#cache-accesses tbody tr', (tr) => tr.map((r) => [...r.children].map((c) => c.textContent)));
  assert.equal(rows.length, first.accesses.length);
  assert.deepEqual(
    rows.map((r) => [Number(r[0]), r[2], r[5]]),
    first.accesses.map((a) => [a.set, '0x' + a.line.toString(16), a.outcome.replace('_', ' ')]),
  );
  // vecadd's first access to each line is a cold miss, and the miss leaves the line valid.
  assert.ok(first.accesses.every((a) => a.outcome === 'miss'));
  const lines = await page.$$eval('#cache-lines tbody tr', (tr) => tr.map((r) => r.children[2].textContent));
  for (const a of first.accesses) assert.ok(lines.includes('0x' + a.line.toString(16)), `line 0x${a.line.toString(16)} is valid after its miss`);
  // Hit-rate over time: a chart with its data table.
  assert.ok(await page.$('#chart-hit-time table'));
  await page.$eval('#cacheview', (e) => e.scrollIntoView());
  await screenshot(page, 'cache-view');
  await (await page.$('#cacheview')).screenshot({ path: path.join(ARTIFACTS, 'cache-view-section.png') });
  await page.close();
});

test('the Perfetto export of a recorded run is in cycles, with the window per sub-core and memory pipeline', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await page.waitForSelector('#version[data-ready="1"]', { timeout: 20000 });
  await page.waitForSelector('.card[data-workload="vecadd"]', { timeout: 20000 });
  await page.selectOption('#preset', 'teaching');
  await page.waitForSelector('#config-form[data-preset="teaching"]');
  await page.selectOption('#mode', 'cycle');
  await page.check('#rec-on');
  await page.fill('#rec-sm', '0');
  await page.fill('#rec-from', String(WINDOW[0]));
  await page.fill('#rec-to', String(WINDOW[1]));
  await page.click('.card[data-workload="vecadd"] button.run-workload');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('status').dataset.state), null, { timeout: 60000 });
  assert.equal(await page.$eval('#status', (e) => e.dataset.state), 'done', page.log.join('\n'));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-trace')]);
  assert.match(dl.suggestedFilename(), /\.trace\.json$/);
  const t = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  const env = JSON.parse(await page.evaluate(() => window.warpweave.last.json));
  const ev = t.traceEvents;
  // One cycle is one nanosecond: the kernel's span is its cycles / 1000 microseconds.
  const k = ev.find((e) => e.cat === 'kernel');
  assert.equal(Math.round(k.dur * 1000), env.result.kernels[0].cycles);
  assert.match(ev.find((e) => e.name === 'process_name').args.name, /1 ns = 1 cycle/);
  const names = ev.filter((e) => e.name === 'process_name').map((e) => e.args.name);
  for (const want of ['SM 0 (1 ns = 1 cycle)', 'SM 0 sub-core 0', 'SM 0 sub-core 1', 'SM 0 memory pipeline 0']) assert.ok(names.includes(want), `${want} in ${names}`);
  assert.ok(ev.some((e) => e.ph === 'C' && e.name === 'core' && typeof e.args.IPC === 'number'));
  assert.ok(ev.some((e) => e.ph === 'C' && e.name === 'hit rate'));
  assert.deepEqual(t.otherData.window, WINDOW);
  await page.close();
});
