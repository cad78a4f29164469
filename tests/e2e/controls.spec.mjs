// The other routes through the UI: keyboard cut/heal on a focused link, click to heal, play/pause,
// clicking an event-log line, the story jump, the scrubber, seed reset, and a built-in switch.
import { openApp, linkScreenSegment, linkState, stepInfo } from './helpers.mjs';

export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors }) {
  await openApp(page, baseUrl);

  // Keyboard: Tab into the graph's links, Enter cuts the focused one.
  await page.focus('[data-testid="link-zk1-b2"]');
  const name = await page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  assert.match(name, /^link ZooKeeper zk1–broker 2, up; press Enter to cut it$/, name);
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-link="zk1-b2"][data-state=cut]', { state: 'attached' });
  // A plain click on the cut link heals it.
  await page.evaluate(() => document.querySelector('[data-link="zk1-b2"]').scrollIntoView({ block: 'center' }));
  const seg = await linkScreenSegment(page, 'zk1-b2');
  await page.mouse.click(seg.p.x + (seg.q.x - seg.p.x) * 0.4, seg.p.y + (seg.q.y - seg.p.y) * 0.4);
  await page.waitForSelector('[data-link="zk1-b2"][data-state=up]', { state: 'attached' });
  assert.equal(await page.evaluate(() => window.splitbrain.step()), 2, 'cut and heal are steps 1 and 2');
  // Undo the heal, then undo is spent.
  await page.click('[data-testid=undo]');
  assert.equal(await linkState(page, 'zk1-b2'), 'cut');
  assert.equal(await page.isDisabled('[data-testid=undo]'), true);

  // Reset with the seed in the box: back to the scripted run, step 0.
  await page.fill('[data-testid=seed]', '1');
  await page.click('[data-testid=reset]');
  await page.waitForFunction(() => window.splitbrain.step() === 0 && window.splitbrain.steps() > 600);
  assert.equal(await linkState(page, 'zk1-b2'), 'up');

  // Play advances on its own; pause stops it.
  await page.selectOption('select[aria-label="Playback speed in steps per second"]', '64');
  await page.click('[data-testid=play]');
  await page.waitForFunction(() => window.splitbrain.step() >= 20, null, { timeout: 10_000 });
  await page.click('[data-testid=play]');
  const paused = await page.evaluate(() => window.splitbrain.step());
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.splitbrain.step()), paused, 'pause stops playback');

  // Clicking an event-log line jumps there and marks it current.
  await page.click('#ev-12');
  await page.waitForFunction(() => window.splitbrain.step() === 12);
  assert.match(await page.getAttribute('#ev-12', 'class'), /current/);
  assert.equal(await page.getAttribute('#ev-12', 'aria-current'), 'step');
  assert.match(await stepInfo(page), /^step 12 \//);

  // Next story step jumps forward to a captioned step.
  await page.click('[data-testid=next-caption]');
  const at = await page.evaluate(() => window.splitbrain.step());
  assert.ok(at > 12, `story jump moved forward (to ${at})`);
  assert.match(await page.getAttribute(`#ev-${at}`, 'class'), /captioned/);

  // The scrubber seeks.
  await page.fill('[data-testid=scrub]', '300');
  await page.waitForFunction(() => window.splitbrain.step() === 300);

  // Home / End keys.
  await page.locator('h1').click();
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.splitbrain.step() === window.splitbrain.steps());
  await page.keyboard.press('Home');
  await page.waitForFunction(() => window.splitbrain.step() === 0);

  // Another built-in loads (or, if it is not ready, says why and keeps this run).
  await page.selectOption('[data-testid=scenario-select]', 'clean-failover');
  await page.waitForTimeout(300);
  const notice = await page.locator('[data-testid=notice]').count();
  if (notice === 0) {
    assert.match(await page.textContent('[data-testid=status-banner]'), /clean-failover/);
  } else {
    assert.match(await page.textContent('[data-testid=notice]'), /clean-failover/);
  }
  await screenshot('clean-failover');

  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
}
