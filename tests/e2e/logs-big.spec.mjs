// "Your logs" with a million lines: a 1 000 000-line file (the seed blog's reconstructed Kafka 1.0.0
// lines, crates/import/tests/logs/seed-blog-1.0, over and over: about 150 MB, a third of it typed)
// is parsed in the page's Web Worker, then the timeline, signatures and the fitted replays. It is
// a benchmark with a few functional checks: it prints the time to the answer, the progress values
// seen and the main thread's long tasks (a report, never judged), and fails only if no progress was
// shown, if the page did not handle a keystroke in the paste box before the answer arrived (the tab
// stays responsive), or if it does not answer within 120 s. Then a 300 MB file is refused with one
// message, before anything is read.
import { mkdtempSync, openSync, writeSync, closeSync, ftruncateSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LINES = 1_000_000;
const SEED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../crates/import/tests/logs/seed-blog-1.0');

function seedLines() {
  const out = [];
  for (const b of readdirSync(SEED).filter((d) => d.startsWith('broker')).sort()) {
    for (const f of readdirSync(path.join(SEED, b)).sort()) {
      out.push(...readFileSync(path.join(SEED, b, f), 'utf8').split('\n').filter((l) => l.length > 0));
    }
  }
  return out;
}

function bigLog(file) {
  const fd = openSync(file, 'w');
  let chunk = [];
  const src = seedLines();
  for (let i = 0; i < LINES; i++) {
    chunk.push(src[i % src.length]);
    if (chunk.length === 10_000) {
      writeSync(fd, chunk.join('\n') + '\n');
      chunk = [];
    }
  }
  if (chunk.length) writeSync(fd, chunk.join('\n') + '\n');
  closeSync(fd);
}

export async function run({ page, baseUrl, screenshot, assert, log, consoleErrors, pageErrors }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'splitbrain-logs-'));
  const big = path.join(dir, 'controller.log');
  bigLog(big);

  await page.goto(new URL('logs.html', baseUrl).href, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=logs-root]', { timeout: 30_000 });
  await page.evaluate(() => {
    window.__longtasks = [];
    window.__progress = [];
    window.__typed = null;
    document.querySelector('[data-testid=logs-paste]').addEventListener('input', () => {
      if (window.__typed === null) window.__typed = performance.now() - window.__t0;
    });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push({ at: Math.round(e.startTime - window.__t0), ms: Math.round(e.duration) });
    }).observe({ type: 'longtask' });
    new MutationObserver(() => {
      const p = document.querySelector('[data-testid=logs-progress]');
      if (p) window.__progress.push(Number(p.getAttribute('value')) / Number(p.getAttribute('max')));
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
    window.__t0 = performance.now();
  });
  await page.setInputFiles('[data-testid=logs-file]', big);
  // A keystroke while the worker reads: the main thread must handle it before the answer.
  await page.waitForSelector('[data-testid=logs-progress]', { timeout: 60_000 });
  await page.type('[data-testid=logs-paste]', 'x');
  const answered = await page.waitForFunction(
    () => document.querySelector('[data-testid=logs-answer][aria-busy=false]') && performance.now() - window.__t0,
    null,
    { timeout: 120_000, polling: 100 },
  );
  const ms = await answered.jsonValue();
  const { longtasks, progress, typed } = await page.evaluate(() => ({ longtasks: window.__longtasks, progress: window.__progress, typed: window.__typed }));
  const counts = await page.$$eval('[data-count]', (els) => Object.fromEntries(els.map((e) => [e.dataset.count, Number(e.textContent)])));
  const shown = [...new Set(progress.map((p) => Math.round(p * 100)))];
  log(`    logs: ${LINES} lines answered in ${(ms / 1000).toFixed(1)} s; counts ${JSON.stringify(counts)}; progress % seen ${JSON.stringify(shown.slice(0, 30))}; long tasks ${JSON.stringify(longtasks)}`);
  await screenshot('answer');
  log(`    logs: keystroke handled at ${typed === null ? 'never' : (typed / 1000).toFixed(1) + ' s'}`);
  assert.ok(progress.length > 0, 'a progress bar was shown');
  assert.ok(typed !== null && typed < ms, `a keystroke during the read was handled before the answer (at ${typed} ms, answer at ${ms} ms)`);
  assert.equal(await page.$('[data-testid=logs-error]'), null, 'no worker failure');

  // Too much: refused before anything is read (a sparse 300 MB file).
  const huge = path.join(dir, 'huge.log');
  const fd = openSync(huge, 'w');
  ftruncateSync(fd, 300 * 1024 * 1024);
  closeSync(fd);
  await page.setInputFiles('[data-testid=logs-file]', huge);
  const refused = await page.waitForSelector('[data-testid=logs-refused]', { timeout: 30_000 });
  assert.match(await refused.textContent(), /at most 256\.0 MB/);
  assert.equal(await page.$('[data-testid=logs-progress]'), null, 'nothing is being read');
  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
}
