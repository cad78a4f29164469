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

  // The worker then computes the counterexample's point of no return; loaded, the run's timeline
  // carries a focusable marker that seeks to it.
  await page.waitForFunction(() => !/Looking for/.test(document.querySelector('[data-testid=explore-no-return]').textContent), null, { timeout: 60_000 });
  const nr = (await page.textContent('[data-testid=explore-no-return]')).trim();
  log(`    explore spec: ${nr}`);
  const point = /^Point of no return: from step (\d+) on, (\d+) of (\d+) continuations still end at leader -1\./.exec(nr);
  assert.ok(point || nr === 'No point of no return was found for it.', nr);
  await page.click('[data-testid=explore-load]');
  await page.waitForFunction(() => document.querySelector('[data-testid=step-info]').textContent.startsWith('step 0 /'));
  if (point) {
    const mark = await page.waitForSelector('[data-testid=no-return-mark]', { state: 'visible', timeout: 5_000 });
    const label = await mark.getAttribute('aria-label');
    assert.equal(label, `Point of no return: from step ${point[1]} on, ${point[2]} of ${point[3]} continuations still end at leader -1. Go to step ${point[1]}.`);
    assert.match((await page.textContent('[data-testid=no-return]')).trim(), new RegExp(`^Point of no return: from step ${point[1]} on`));
    await mark.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction((s) => window.splitbrain.step() === s, Number(point[1]));
    await screenshot('2b-no-return');
  } else {
    assert.equal(await page.$('[data-testid=no-return-mark]'), null, 'no marker without a point');
  }
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
