#!/usr/bin/env node
// End-to-end test runner for the splitbrain web app.
//
//   node tests/e2e/run.mjs [NAME_FILTER...]
//
// Serves dist/ (the output of `trunk build --release`) from a tiny built-in
// static server on 127.0.0.1 with a free port, starts headless Chromium via
// playwright-core, and runs every tests/e2e/*.spec.mjs (or those whose file
// name contains one of the filters). Each spec exports
//
//   export async function run({ page, baseUrl, screenshot, assert, errors, consoleErrors, pageErrors, log }) {}
//
// and gets a fresh browser context and page. `screenshot(name)` saves
// tests/screenshots/<spec>-<name>.png. A spec fails when it throws or when the
// page had an uncaught exception (pageerror). Exit code 1 if any spec fails.
//
// Environment:
//   E2E_DIST      directory to serve (default: <repo>/dist)
//   E2E_BASE_URL  test an already-running server instead (e.g. trunk serve)
//   CHROMIUM      browser executable (default: /usr/bin/chromium)
//   E2E_TIMEOUT   per-spec timeout in ms (default: 120000)
//   E2E_HEADED=1  show the browser window

import { createServer } from 'node:http';
import { createReadStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const testsDir = path.resolve(here, '..');
const repoRoot = path.resolve(testsDir, '..');
const require = createRequire(path.join(testsDir, 'package.json'));

let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch (e) {
  console.error('e2e: playwright-core is not installed; run scripts/setup.sh (npm ci in tests/)');
  process.exit(1);
}

const distDir = path.resolve(process.env.E2E_DIST || path.join(repoRoot, 'dist'));
const screenshotDir = path.join(testsDir, 'screenshots');
const specTimeout = Number(process.env.E2E_TIMEOUT || 120000);
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const chromiumArgs = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

function startStaticServer(root) {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    let file = path.resolve(root, '.' + path.posix.normalize('/' + rel));
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = path.join(file, 'index.html');
    } catch {
      /* handled below */
    }
    let st;
    try {
      st = statSync(file);
      if (!st.isFile()) throw new Error('not a file');
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found: ' + rel);
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file).toLowerCase()] || 'application/octet-stream',
      'Content-Length': st.size,
      'Cache-Control': 'no-store',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function withTimeout(promise, ms, what) {
  let t;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

async function main() {
  const filters = process.argv.slice(2);
  const specs = readdirSync(here)
    .filter((f) => f.endsWith('.spec.mjs'))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
  if (specs.length === 0) {
    console.error(`e2e: no spec files matched in ${path.relative(repoRoot, here)}`);
    process.exit(1);
  }

  let server = null;
  let baseUrl = process.env.E2E_BASE_URL;
  if (!baseUrl) {
    if (!existsSync(path.join(distDir, 'index.html'))) {
      console.error(`e2e: ${distDir}/index.html not found; run \`trunk build --release\` first`);
      process.exit(1);
    }
    server = await startStaticServer(distDir);
    baseUrl = `http://127.0.0.1:${server.address().port}/`;
    console.log(`e2e: serving ${path.relative(repoRoot, distDir) || '.'} at ${baseUrl}`);
  } else {
    console.log(`e2e: testing ${baseUrl}`);
  }
  if (!baseUrl.endsWith('/')) baseUrl += '/';

  mkdirSync(screenshotDir, { recursive: true });
  // launch() gives the browser a new, empty temporary profile of its own.
  const headed = process.env.E2E_HEADED === '1';
  const browser = await chromium.launch({
    executablePath,
    headless: !headed,
    args: chromiumArgs.filter((a) => !headed || a !== '--headless=new'),
  });
  console.log(`e2e: ${executablePath} ${browser.version()}`);

  const screenshots = [];
  const results = [];
  for (const file of specs) {
    const name = file.replace(/\.spec\.mjs$/, '');
    const started = Date.now();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const consoleErrors = [];
    const pageErrors = [];
    const logs = [];
    page.on('console', (msg) => {
      const line = `[console.${msg.type()}] ${msg.text()}`;
      logs.push(line);
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => {
      pageErrors.push(String(err && err.stack ? err.stack : err));
      logs.push(`[pageerror] ${err}`);
    });
    page.on('response', (res) => {
      if (res.status() >= 400) logs.push(`[http ${res.status()}] ${res.url()}`);
    });
    page.on('requestfailed', (req) => {
      logs.push(`[requestfailed] ${req.url()} ${req.failure()?.errorText ?? ''}`);
    });
    const screenshot = async (shotName = 'page', options = {}) => {
      const safe = String(shotName).replace(/[^A-Za-z0-9._-]+/g, '_');
      const out = path.join(screenshotDir, `${name}-${safe}.png`);
      await page.screenshot({ path: out, fullPage: true, ...options });
      screenshots.push(out);
      return out;
    };
    const errors = () => [...consoleErrors, ...pageErrors];
    let error = null;
    try {
      const mod = await import(pathToFileURL(path.join(here, file)).href);
      if (typeof mod.run !== 'function') throw new Error(`${file} does not export async function run(...)`);
      await withTimeout(
        mod.run({ page, baseUrl, screenshot, assert, errors, consoleErrors, pageErrors, log: console.log, context }),
        specTimeout,
        `spec ${name}`,
      );
      if (pageErrors.length > 0 && !mod.allowPageErrors) {
        throw new Error(`uncaught exception(s) in the page:\n  ${pageErrors.join('\n  ')}`);
      }
    } catch (e) {
      error = e;
      try {
        await screenshot('failure');
      } catch {
        /* page may be gone */
      }
    }
    await context.close().catch(() => {});
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    results.push({ name, ok: !error });
    if (error) {
      console.log(`FAIL ${name} (${secs} s)`);
      console.log(String(error && error.stack ? error.stack : error).replace(/^/gm, '    '));
      if (logs.length) {
        console.log('    browser log:');
        for (const l of logs.slice(-40)) console.log('      ' + l);
      }
    } else {
      console.log(`ok   ${name} (${secs} s)`);
    }
  }

  await browser.close();
  if (server) await new Promise((r) => server.close(r));

  if (screenshots.length) {
    console.log('e2e: screenshots:');
    for (const s of screenshots) console.log('  ' + path.relative(repoRoot, s));
  }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error('e2e: runner error:', e && e.stack ? e.stack : e);
  process.exit(1);
});
