// The page loads in Chromium, its module Worker loads the wasm, and the wasm answers its version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useApp, openPage, screenshot, SKIP, ROOT } from './harness.mjs';

const app = useApp();

test('page loads and the worker-owned wasm reports the crate version', { skip: SKIP }, async () => {
  const page = await openPage(app.browser, app.server.url);
  await page.waitForSelector('#version[data-ready="1"]', { timeout: 20000 });
  const shown = (await page.textContent('#version')).trim();
  const cargo = fs.readFileSync(path.join(ROOT, 'crate/Cargo.toml'), 'utf8');
  const want = cargo.match(/^version\s*=\s*"([^"]+)"/m)[1];
  assert.equal(shown, `warpweave ${want}`, page.log.join('\n'));
  await screenshot(page, 'smoke-loaded');
  await page.close();
});
