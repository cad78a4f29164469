// The explorer without Web Workers (an old browser): the page says so, loads the explorer's
// wasm on its main thread and searches in short slices; progress and cancel still work.
import { openApp } from './helpers.mjs';

export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors, log }) {
  await page.addInitScript(() => {
    delete window.Worker;
  });
  await openApp(page, baseUrl);
  assert.equal(await page.evaluate(() => typeof Worker), 'undefined');
  // 2.1.0 (fenced) has no leader -1 to find, so the search runs until cancelled: in legacy the
  // fallback can find one and finish before the click lands.
  await page.selectOption('[data-testid=mode-select]', 'fenced');
  await page.click('[data-testid=explore-start]');
  const note = (await (await page.waitForSelector('[data-testid=explore-note]', { timeout: 10_000 })).textContent()).trim();
  assert.match(note, /could not start a background worker/, note);
  // Progress moves past zero: the slices run.
  await page.waitForFunction(() => {
    const p = document.querySelector('[data-testid=explore-progress]');
    return p && Number(p.value) > 0;
  }, null, { timeout: 30_000 });
  const tried = await page.$eval('[data-testid=explore-progress]', (p) => Number(p.value));
  await screenshot('running');
  await page.click('[data-testid=explore-cancel]');
  const result = (await (await page.waitForSelector('[data-testid=explore-result]')).textContent()).trim();
  assert.match(result, /^Cancelled after \d+ schedules$/, result);
  const after = Number(/(\d+)/.exec(result)[1]);
  assert.ok(after >= tried, `${after} >= ${tried}`);
  // No slice runs after the cancel: the count stays.
  await page.waitForTimeout(300);
  assert.equal((await page.textContent('[data-testid=explore-result]')).trim(), result);
  log(`    explore-fallback spec: ${note.slice(0, 40)}…; ${result}`);
  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
}
