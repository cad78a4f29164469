// The explorer in a Web Worker: on the page's defaults (seed-incident, its default seed, legacy)
// "Find a split brain" finds a leader -1 counterexample off the main thread. Prints
// "explorer found in X s (N schedules)"; fails after 10 s, or if a PerformanceObserver('longtask')
// saw a main-thread task of 50 ms or more during the search. The worker's files are fetched only
// when the search starts, not with the page.
import { openApp } from './helpers.mjs';

const LIMIT_S = 10;

export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors, log }) {
  const workerFetches = [];
  page.on('request', (r) => {
    if (/explorer_worker/.test(r.url())) workerFetches.push(r.url());
  });
  await openApp(page, baseUrl);
  const defaults = await page.evaluate(() => ({ seed: window.splitbrain.view().seed }));
  await page.selectOption('[data-testid=mode-select]', 'legacy');
  await page.waitForFunction(() => window.splitbrain.step() === 0);
  assert.deepEqual(workerFetches, [], 'the worker is not part of the first load');

  // The observer starts just before the click; the clock starts at the click.
  await page.evaluate(() => {
    window.__longtasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__longtasks.push({ afterClickMs: Math.round(e.startTime - window.__exploreT0), ms: Math.round(e.duration) });
      }
    }).observe({ type: 'longtask' });
    window.__exploreT0 = performance.now();
  });
  await page.click('[data-testid=explore-start]');
  const outcome = await page.waitForFunction(
    (limitMs) => {
      const el = document.querySelector('[data-testid=explore-result]');
      const ms = performance.now() - window.__exploreT0;
      if (el) return { text: el.textContent.trim(), ms };
      if (ms > limitMs) return { text: null, ms };
      return false;
    },
    LIMIT_S * 1000,
    { timeout: (LIMIT_S + 20) * 1000, polling: 50 },
  );
  const { text, ms } = await outcome.jsonValue();
  const longtasks = await page.evaluate(() => window.__longtasks);
  const rate = await page.textContent('[data-testid=explore-rate]').catch(() => '');
  const m = /after (\d+) schedules/.exec(text || '');
  log(`    explorer found in ${(ms / 1000).toFixed(2)} s (${m ? m[1] : '?'} schedules) on seed ${defaults.seed}, in a Web Worker; page: ${(rate || '').trim()}; long tasks: ${JSON.stringify(longtasks)}`);
  await screenshot('found');
  assert.ok(workerFetches.some((u) => u.endsWith('explorer_worker_bg.wasm')), `the worker's wasm was fetched when the search started: ${workerFetches}`);
  assert.ok(text !== null, `no result within ${LIMIT_S} s`);
  assert.match(text, /^Found: leader -1 after \d+ schedules \(\d+ faults, shrunk from \d+\)$/, text);
  assert.ok(ms <= LIMIT_S * 1000, `found in ${(ms / 1000).toFixed(2)} s, over ${LIMIT_S} s`);
  assert.deepEqual(longtasks, [], 'main-thread tasks of 50 ms or more during the search');
  assert.equal(await page.$('[data-testid=explore-note]'), null, 'no main-thread fallback note');

  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
}
