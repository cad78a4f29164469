// Two behaviours side by side in lockstep: the seed incident in legacy beside the KAFKA-6082 fix;
// at the step legacy shows leader -1 the fenced picture, at the same virtual time, has partition 3
// led. A cut in the main picture reaches both; the comparison travels in the permalink; picking
// the compared behaviour as the main one swaps them; KRaft draws its voters.
import { openApp, dragAcross } from './helpers.mjs';

const ms = (t) => {
  const m = /(?:(\d+)d\+)?(\d+)\.(\d{3})s/.exec(t);
  return (Number(m[1] || 0) * 86400 + Number(m[2])) * 1000 + Number(m[3]);
};
const mainTime = async (page) => ms(await page.textContent('[data-testid=step-info]'));
const otherTime = async (page) => ms(await page.textContent('[data-testid=compare-step]'));

export async function run({ page, context, baseUrl, screenshot, assert }) {
  await openApp(page, baseUrl);
  await page.selectOption('[data-testid=compare-select]', 'fenced');
  await page.waitForSelector('[data-testid=compare] svg.graph [data-node=b1]');
  await page.click('[data-testid=step-end]');
  await page.waitForFunction(() => window.splitbrain.step() === window.splitbrain.steps());
  const div = await page.textContent('[data-testid=divergence]');
  assert.match(div, /legacy: __consumer_offsets-3 leader -1 \(none\)/, div);
  assert.match(await page.textContent('[data-testid=compare-leader]'), /^fenced: leader \d/, 'fenced has partition 3 led');
  assert.match(div, /the runs differ here/);
  assert.ok((await otherTime(page)) <= (await mainTime(page)), 'lockstep: never ahead of the main run');
  // The runs differ, and the page says why (the core's verdict): the fix acting, or a timing shift.
  await page.waitForSelector('[data-testid=compare-why]', { state: 'visible', timeout: 5000 });
  const verdict = await page.getAttribute('[data-testid=compare-why]', 'data-verdict');
  const why = (await page.textContent('[data-testid=compare-why]')).trim();
  assert.match(verdict, /^(fix|timing)$/, `a reason is named: ${verdict}`);
  assert.match(why, verdict === 'fix' ? /^Why: .*made the difference/ : /^Why: not the fix: .*timing shift/, why);
  assert.match(why, /__consumer_offsets-3/, `the reason names the partition: ${why}`);
  await screenshot('1-legacy-vs-fenced-at-end');

  // Back to step 100: both at the same moment, and the same (nothing has diverged yet at t=0).
  await page.click('[data-testid=step-back]');
  for (let s = 0; s < 5; s++) await page.keyboard.press('ArrowLeft');
  const t1 = await mainTime(page);
  assert.ok((await otherTime(page)) <= t1);
  await page.keyboard.press('Home');
  assert.doesNotMatch(await page.textContent('[data-testid=divergence]'), /differ/, 'identical at step 0');
  assert.equal(await page.locator('[data-testid=compare-why]').count(), 0, 'no reason shown while the runs agree');

  // A cut in the main picture is replayed, at its time, in the other run.
  for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');
  await dragAcross(page, 'zk1-b2', { at: 0.6, halfLength: 20 });
  await page.waitForSelector('[data-testid=compare] [data-link="zk1-b2"][data-state=cut]', { state: 'attached', timeout: 5000 });

  // The comparison travels in the link.
  await page.click('[data-testid=copy-link]');
  const url = await page.inputValue('[data-testid=share-url]');
  const fresh = await context.browser().newContext();
  const p2 = await fresh.newPage();
  await p2.goto(url, { waitUntil: 'load' });
  await p2.waitForSelector('[data-testid=compare] [data-link="zk1-b2"][data-state=cut]', { state: 'attached', timeout: 30_000 });
  assert.equal(await p2.inputValue('[data-testid=compare-select]'), 'fenced');
  assert.equal(await p2.textContent('[data-testid=compare-step]'), await page.textContent('[data-testid=compare-step]'));
  await fresh.close();

  // Making fenced the main behaviour swaps the two.
  await page.selectOption('[data-testid=mode-select]', 'fenced');
  await page.waitForFunction(() => window.splitbrain.view().mode === 'fenced');
  assert.equal(await page.inputValue('[data-testid=compare-select]'), 'legacy');
  // KRaft beside: its quorum is drawn instead of ZooKeeper.
  await page.selectOption('[data-testid=compare-select]', 'kraft');
  await page.waitForSelector('[data-testid=compare] svg.graph [data-node=q1]');
  await page.selectOption('[data-testid=compare-select]', 'none');
  await page.waitForSelector('[data-testid=compare]', { state: 'detached' });
  await screenshot('2-off');
}
