// Step seed-incident to the end through the Forward button: __consumer_offsets-3 has leader -1 and
// the consumer is stuck with COORDINATOR_NOT_AVAILABLE; step back until the leader is restored.
// Prints the time to render one step (performance.now around a click), not asserted.
import { openApp, stepInfo, stepToEndTimed, summarize, fmtTimes, recordTiming } from './helpers.mjs';

const P3 = '[data-testid=partition-table] tr[data-partition="__consumer_offsets-3"]';

export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors, log }) {
  await openApp(page, baseUrl);
  assert.equal(await page.getAttribute(P3, 'data-leader'), '3', 'partition 3 starts with leader 3');
  assert.match(await page.textContent('[data-testid=hash-calc]'), /abs\(2005287903\) % 50 = 3/);

  // The story: the first caption.
  await page.click('[data-testid=next-caption]');
  await page.waitForSelector('[data-testid=story].now');
  const firstStory = await page.textContent('[data-testid=story]');
  assert.ok(firstStory.length > 20, 'a story caption is shown');
  await screenshot('1-first-story-step');
  await page.click('button[aria-label="Go to the start (step 0)"]');

  const { times, withLayout } = await stepToEndTimed(page);
  const t = summarize(times);
  const tl = summarize(withLayout);
  log(`    time to render one step (seed-incident, 3 brokers), click -> DOM updated: ${fmtTimes(t)}`);
  log(`    ... including style and layout: ${fmtTimes(tl)}`);
  await recordTiming('seed-incident, 3 brokers, click -> DOM updated', t);
  await recordTiming('seed-incident, 3 brokers, click -> DOM updated + style/layout', tl);
  const rustSide = await page.evaluate(() => window.splitbrain.lastRenderMs());
  log(`    last step, dispatch -> effect (Rust side): ${rustSide.toFixed(2)} ms`);
  assert.ok(times.length > 300, `stepped through ${times.length} events`);

  const total = await page.evaluate(() => window.splitbrain.steps());
  assert.equal(await stepInfo(page).then((s) => s.split(' · ')[0]), `step ${total} / ${total}`);
  assert.equal(await page.getAttribute(P3, 'data-leader'), '-1', 'leader -1 at the end');
  assert.match(await page.textContent(`${P3} td.leader`), /-1 \(none\)/, 'leader -1 is written out');
  assert.match(await page.getAttribute(P3, 'class'), /leaderless/);
  assert.match(await page.textContent('[data-testid=consumer-status]'), /COORDINATOR_NOT_AVAILABLE/);
  assert.equal(await page.getAttribute('[data-testid=consumer-c1]', 'data-status'), 'coordinator_not_available');
  assert.match(await page.textContent('[data-node=c1]'), /COORDINATOR_NOT_AVAILABLE/, 'the graph shows the stuck consumer');
  assert.match(await page.textContent('[data-testid=status-banner]'), /no coordinator/);
  assert.ok((await page.locator('[data-testid=time-gap]').count()) >= 1, 'the 2-day gap is marked in the log');
  assert.match(await page.textContent('[data-testid=time-gap]'), /2 days pass/);
  const v = await page.evaluate(() => window.splitbrain.view());
  assert.equal(v.partitions.find((p) => p.partition === 3).leader, -1, 'core agrees: leader -1');
  await screenshot('2-end-leader-minus-1');
  await page.locator('[data-testid=partition-table]').screenshot({ path: 'tests/screenshots/incident-2b-partition-table.png' }).catch(() => {});

  // Step back with the button until partition 3 has a leader again (clicked in the page: the
  // leader -1 write is some 1400 steps before the end, too many for one round trip per click).
  const back = await page.evaluate(async (sel) => {
    const btn = document.querySelector('[data-testid=step-back]');
    const info = document.querySelector('[data-testid=step-info]');
    let n = 0;
    while (document.querySelector(sel).getAttribute('data-leader') === '-1' && n < 3000 && !btn.disabled) {
      const before = info.textContent;
      const changed = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          if (info.textContent !== before) { obs.disconnect(); resolve(true); }
        });
        obs.observe(info, { childList: true, subtree: true, characterData: true });
        setTimeout(() => { obs.disconnect(); resolve(false); }, 2000);
      });
      btn.click();
      if (!(await changed)) throw new Error(`step back ${n}: the step counter did not change`);
      n++;
    }
    return n;
  }, P3);
  const restored = await page.getAttribute(P3, 'data-leader');
  assert.notEqual(restored, '-1', 'stepping back restores the leader');
  log(`    leader of __consumer_offsets-3 restored to ${restored} after ${back} step(s) back (${await stepInfo(page)})`);
  const line = await page.textContent('#event-log .current');
  log(`    current log line: ${line.replace(/\s+/g, ' ').slice(0, 160)}`);
  await screenshot('3-stepped-back-leader-restored');

  // The same scenario with the KAFKA-6082 fix (fenced controller writes): no leader -1 at the end.
  await page.selectOption('[data-testid=mode-select]', 'fenced');
  await page.waitForFunction(() => window.splitbrain.view().mode === 'fenced' && window.splitbrain.step() === 0);
  await page.click('[data-testid=step-end]');
  await page.waitForFunction(() => window.splitbrain.step() === window.splitbrain.steps());
  assert.notEqual(await page.getAttribute(P3, 'data-leader'), '-1', 'fenced: partition 3 keeps a leader');
  assert.equal(await page.getAttribute('[data-testid=consumer-c1]', 'data-status'), 'stable', 'fenced: the group has a coordinator');
  // The seed incident tells the fenced story too: at the end, its last caption. (In 2.1 the blip
  // is harmless: the lost read is retried, so nothing deletes /controller and no deposed write is
  // left for the fence to refuse; operator-delete shows the fence at work.)
  assert.match(await page.textContent('[data-testid=story]'), /finds its coordinator: the group is served/);
  const fencedEnd = await page.evaluate(() => window.splitbrain.view());
  assert.equal(fencedEnd.zk_controller, 2, 'fenced: broker 2 holds /controller at the end');
  assert.deepEqual(fencedEnd.acting_controllers, [2], 'fenced: one acting controller');
  await screenshot('3b-fenced-end');
  // KRaft has no story of its own: the captions are hidden, and the page says which runs they tell.
  await page.selectOption('[data-testid=mode-select]', 'kraft');
  await page.waitForFunction(() => window.splitbrain.view().mode === 'kraft');
  assert.match(await page.textContent('[data-testid=story]'), /captions describe the legacy, 1\.1 and fenced runs/);
  await page.selectOption('[data-testid=mode-select]', 'legacy');
  await page.waitForFunction(() => window.splitbrain.view().mode === 'legacy');

  // Phone width: the picture first, nothing overflowing horizontally.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll at phone width (overflow ${overflow}px)`);
  await screenshot('4-phone', { fullPage: false });

  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
}
