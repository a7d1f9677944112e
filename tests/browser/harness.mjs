// Shared helpers for the browser tests: a static server for www/ on a free port, and Debian's
// Chromium driven by playwright-core (no browser downloads: see TOOLCHAIN.md).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const WWW = path.join(ROOT, 'www');
export const ARTIFACTS = path.join(ROOT, 'tests/artifacts');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.toml': 'text/plain; charset=utf-8',
};

/** Serves www/ on 127.0.0.1 at a free port; resolves to { url, close }. */
export function serve() {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    let p = path.normalize(decodeURIComponent(u.pathname)).replace(/^([/\\])+/, '');
    if (p === '' || p.endsWith('/')) p += 'index.html';
    const file = path.join(WWW, p);
    if (!file.startsWith(WWW)) {
      res.writeHead(403).end();
      return;
    }
    fs.readFile(file, (err, data) => {
      if (err) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/** Launches Debian's Chromium headless. */
export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh page that collects console output and page errors (for failure messages). */
export async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const log = [];
  page.on('console', (m) => log.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => log.push(`[pageerror] ${e.message}`));
  page.log = log;
  await page.goto(url);
  return page;
}

/** Saves a full-page screenshot under tests/artifacts/ (git-ignored). */
export async function screenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** True when the wasm build exists; the tests skip with a clear reason otherwise. */
export function haveWasm() {
  return fs.existsSync(path.join(WWW, 'pkg/warpweave_bg.wasm'));
}

export function haveChromium() {
  return fs.existsSync(CHROMIUM);
}

export const SKIP = !haveWasm()
  ? 'www/pkg missing: run scripts/build-wasm.sh'
  : !haveChromium()
    ? `no Chromium at ${CHROMIUM}: run scripts/install-web-toolchain.sh`
    : false;

// One static server and one Chromium per test file, started before its tests and closed after:
// `const app = useApp();` then `openPage(app.browser, app.server.url)`.
export function useApp() {
  const app = { server: null, browser: null };
  before(async () => {
    if (SKIP) return;
    app.server = await serve();
    app.browser = await launch();
  });
  after(async () => {
    await app.browser?.close();
    await app.server?.close();
  });
  return app;
}
