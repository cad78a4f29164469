// "Find a split brain": the explorer searches fault schedules in legacy mode, finds a shrunk
// leader -1 counterexample, loads it into the timeline, and the end of that run shows a
// partition with leader -1.
import { openApp } from './helpers.mjs';

export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors, log }) {
  await openApp(page, baseUrl);
  // Seed 3: the explorer searches with the run's seed, and on seed-incident's cluster seed 3 finds
  // a counterexample within the page's 2000 schedules (as `splitbrain explore --seed 3` does).
  await page.fill('[data-testid=seed]', '3');
  await page.click('[data-testid=reset]');
  await page.waitForFunction(() => window.splitbrain.view().seed === 3 && window.splitbrain.step() === 0);
  await page.selectOption('[data-testid=mode-select]', 'legacy');
  await page.click('[data-testid=explore-start]');
  await page.waitForSelector('[data-testid=explore-progress]', { state: 'attached', timeout: 10_000 });
  await screenshot('1-running');
  await page.waitForSelector('[data-testid=explore-result]', { state: 'visible', timeout: 90_000 });
  const result = (await page.textContent('[data-testid=explore-result]')).trim();
  const rate = (await page.textContent('[data-testid=explore-rate]')).trim();
  log(`    explore spec: ${result}; ${rate}`);
  assert.match(result, /^Found: leader -1 after \d+ schedules \(\d+ faults, shrunk from \d+\)$/, result);
  await screenshot('2-found');

  await page.click('[data-testid=explore-load]');
  await page.waitForFunction(() => document.querySelector('[data-testid=step-info]').textContent.startsWith('step 0 /'));
  await page.click('[data-testid=step-end]');
  await page.waitForFunction(() => document.querySelector('[data-testid=step-end]').disabled, null, { timeout: 30_000 });
  await page.waitForSelector('[data-testid=partition-table] tr[data-leader="-1"]', { state: 'attached', timeout: 10_000 });
  const leaderless = (await page.textContent('[data-testid=leaderless-count]')).trim();
  assert.match(leaderless, /^[1-9]\d* of \d+ without a leader/, leaderless);
  await screenshot('3-loaded-end');

  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
  log(`    explore spec: loaded counterexample ends with ${leaderless}`);
}
