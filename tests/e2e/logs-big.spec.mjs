// "Your logs" with a million lines: a 1 000 000-line file (two brokers' Kafka 1.0.0 controller.log
// lines, about 120 MB) is parsed in the page's Web Worker while a PerformanceObserver('longtask')
// watches the page's main thread. Prints the time to the answer, the progress values seen and the
// long tasks; fails if the main thread was blocked for 50 ms or more before the answer arrived
// (drawing the answer is reported, not judged), if no progress was shown, or if the page does not
// answer within 120 s. Then a 300 MB file is refused with one message, before anything is read.
import { mkdtempSync, openSync, writeSync, closeSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const LINES = 1_000_000;

function bigLog(file) {
  const fd = openSync(file, 'w');
  let chunk = [];
  const t0 = Date.UTC(2018, 2, 10, 15, 0, 0);
  for (let i = 0; i < LINES; i++) {
    const d = new Date(t0 + i * 7).toISOString().replace('T', ' ').replace('Z', '').replace('.', ',');
    const b = 1 + (i % 2);
    chunk.push(
      i % 3 === 0
        ? `[${d}] INFO [Controller ${b}]: Broker ${b} is checking partitions [t,${i % 50}] (kafka.controller.KafkaController)`
        : `[${d}] TRACE [Controller id=${b} epoch=${i % 7}] Sending UpdateMetadata request to broker ${3 - b} for partition t-${i % 50} (state.change.logger)`,
    );
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
  const answered = await page.waitForFunction(
    () => document.querySelector('[data-testid=logs-answer][aria-busy=false]') && performance.now() - window.__t0,
    null,
    { timeout: 120_000, polling: 100 },
  );
  const ms = await answered.jsonValue();
  const { longtasks, progress } = await page.evaluate(() => ({ longtasks: window.__longtasks, progress: window.__progress }));
  const counts = await page.$$eval('[data-count]', (els) => Object.fromEntries(els.map((e) => [e.dataset.count, Number(e.textContent)])));
  const shown = [...new Set(progress.map((p) => Math.round(p * 100)))];
  log(`    logs: ${LINES} lines answered in ${(ms / 1000).toFixed(1)} s; counts ${JSON.stringify(counts)}; progress % seen ${JSON.stringify(shown.slice(0, 30))}; long tasks ${JSON.stringify(longtasks)}`);
  await screenshot('answer');
  const before = longtasks.filter((t) => t.at + t.ms < ms - 500);
  assert.deepEqual(before, [], 'main-thread tasks of 50 ms or more while the worker parsed');
  assert.ok(progress.length > 0, 'a progress bar was shown');
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
