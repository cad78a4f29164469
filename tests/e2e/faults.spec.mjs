// Faults beyond link cuts, and the 1.1 behaviour: the fault bar under the step controls crashes and
// restarts brokers, resets a broker's ZooKeeper connection and deletes /controller (one command per
// press, by mouse or keyboard); the reset buttons are hidden in KRaft; the controller-moved built-in
// opens in the 1.1 behaviour it is written for, with its story, and ends with leader -1; the seed
// incident in 1.1 does not (KafkaZkClient retries broker 2's lost read, so nothing deletes
// /controller), while operator-delete in 1.1 (the controller moved without an expiry, so
// KAFKA-5642 does not apply) ends with leader -1, and its 1.1 story says why.
import { openApp } from './helpers.mjs';

export async function run({ page, baseUrl, screenshot, assert }) {
  await openApp(page, baseUrl);
  // Delete /controller at step 0, as an operator would (broker 3 holds it).
  await page.click('[data-testid=delete-controller]');
  await page.waitForFunction(() => window.splitbrain.step() === 1);
  assert.match(await page.textContent('#ev-1'), /delete \/controller/);
  assert.equal(await page.isDisabled('[data-testid=delete-controller]'), true, 'nothing left to delete');
  // Crash broker 2 at step 5: one step is added and the run forks there.
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  await page.click('[data-testid=crash-b2]');
  await page.waitForFunction(() => window.splitbrain.step() === 6);
  assert.match(await page.textContent('#ev-6'), /FAULT: crash b2/);
  assert.equal(await page.isDisabled('[data-testid=crash-b2]'), true, 'a dead broker cannot crash again');
  assert.match(await page.textContent('[data-testid=restart-b2]'), /start/);
  const aliveB2 = await page.evaluate(() => window.splitbrain.view().nodes.find((n) => n.id === 'b2').alive);
  assert.equal(aliveB2, false);
  // Keyboard: focus the start button and press Enter.
  await page.focus('[data-testid=restart-b2]');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.splitbrain.view().nodes.find((n) => n.id === 'b2').alive);
  assert.match(await page.textContent('#ev-7'), /FAULT: restart b2/);
  await screenshot('1-fault-bar');

  // The built-in written for 1.1 opens in 1.1, with its story.
  await page.selectOption('[data-testid=scenario-select]', 'controller-moved');
  await page.waitForFunction(() => window.splitbrain.view().scenario === 'controller-moved');
  assert.equal(await page.inputValue('[data-testid=mode-select]'), '1.1');
  await page.click('[data-testid=next-caption]');
  assert.match(await page.textContent('[data-testid=story]'), /network fault cuts broker 3/);
  await page.click('[data-testid=step-end]');
  await page.waitForFunction(() => window.splitbrain.step() === window.splitbrain.steps());
  const p3 = await page.evaluate(() => window.splitbrain.view().partitions.find((p) => p.partition === 3).leader);
  assert.equal(p3, -1, 'the window 1.1 left open: leader -1');
  assert.match(await page.textContent('[data-testid=story]'), /in 1\.1 as in 1\.0/);
  await screenshot('2-controller-moved-1.1');

  // The seed incident in 1.1: broker 2's lost read of /controller is retried after the reset, so
  // broker 1 stays the only controller and the group keeps its coordinator.
  await page.selectOption('[data-testid=scenario-select]', 'seed-incident');
  await page.waitForFunction(() => window.splitbrain.view().scenario === 'seed-incident');
  assert.equal(await page.inputValue('[data-testid=mode-select]'), 'legacy', "controller-moved's own mode does not stick");
  await page.selectOption('[data-testid=mode-select]', '1.1');
  await page.waitForFunction(() => window.splitbrain.view().mode === '1.1');
  await page.click('[data-testid=step-end]');
  await page.waitForFunction(() => window.splitbrain.step() === window.splitbrain.steps());
  const si11 = await page.evaluate(() => window.splitbrain.view());
  assert.notEqual(si11.partitions.find((p) => p.partition === 3).leader, -1, '1.1: the blip leaves __consumer_offsets-3 led');
  assert.equal(await page.getAttribute('[data-testid=consumer-c1]', 'data-status'), 'stable', '1.1: the group has a coordinator');

  // operator-delete in 1.1: no session of broker 1 expired, so 1.1's fix does not act; the 1.1
  // story says so, and the run ends like 1.0.
  await page.selectOption('[data-testid=scenario-select]', 'operator-delete');
  await page.waitForFunction(() => window.splitbrain.view().scenario === 'operator-delete');
  // (It has no mode of its own, so the 1.1 picked above stays.)
  await page.selectOption('[data-testid=mode-select]', '1.1');
  await page.waitForFunction(() => window.splitbrain.view().mode === '1.1');
  await page.click('[data-testid=step-end]');
  await page.waitForFunction(() => window.splitbrain.step() === window.splitbrain.steps());
  const p3in11 = await page.evaluate(() => window.splitbrain.view().partitions.find((p) => p.partition === 3).leader);
  assert.equal(p3in11, -1, '1.1 ends with __consumer_offsets-3 at leader -1');
  assert.match(await page.textContent('[data-testid=story]'), /1\.1 ends like 1\.0 when the controller moves without an expiry/);
  assert.equal(await page.getAttribute('[data-testid=consumer-c1]', 'data-status'), 'coordinator_not_available', 'the group has no coordinator in 1.1');

  // Reset a broker's ZooKeeper connection: a fresh seed-incident, at step 30 (before the scripted
  // reset at 16.129 s) broker 2 is connected to zk1; its reset button, pressed with the keyboard,
  // adds one fault step that drops the connection.
  await openApp(page, baseUrl);
  await page.fill('[data-testid=scrub]', '30');
  await page.waitForFunction(() => window.splitbrain.step() === 30);
  const b2 = () => page.evaluate(() => window.splitbrain.view().nodes.find((n) => n.id === 'b2'));
  assert.equal((await b2()).zk_server, 'zk1', 'broker 2 talks to zk1');
  assert.equal(await page.getAttribute('[data-testid=node-b2]', 'data-session'), 'connected');
  const resetBtn = page.locator('[data-testid=reset-b2]');
  assert.equal(await resetBtn.evaluate((el) => el.tagName), 'BUTTON');
  assert.match(await resetBtn.getAttribute('aria-label'), /^Reset broker 2's ZooKeeper connection \(the TCP connection to zk1/);
  assert.equal(await resetBtn.isDisabled(), false);
  const markers = '[data-testid=lanes-marker][data-kind=reset]';
  assert.equal(await page.locator(markers).count(), 0, 'no reset marker before the press (the scripted one is at step 35)');
  await resetBtn.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.splitbrain.step() === 31);
  // The step's event is broker 2's ZooKeeper client seeing the connection drop (a session event;
  // the fault is its mark, drawn in the lanes).
  assert.match(await page.getAttribute('#ev-31', 'class'), /\bk-session\b/, "step 31 is broker 2's session event");
  assert.equal(await page.getAttribute('#ev-31', 'data-step'), '31');
  assert.equal(await page.locator(`${markers}[data-node=b2][data-step="31"]`).count(), 1, 'a reset marker on b2 at step 31');
  assert.equal(await page.locator(`${markers}[data-node=zk1][data-step="31"]`).count(), 1, 'and on zk1, the other end');
  assert.equal(await page.getAttribute('[data-testid=node-b2]', 'data-session'), 'disconnected', "broker 2's client is disconnected");
  assert.deepEqual((await b2()).status, { session: 'disconnected' }, 'the core agrees');
  assert.equal(await page.getAttribute('[data-testid=node-b1]', 'data-session'), 'connected', 'broker 1 is untouched');
  await screenshot('3-reset-b2');
  // Undo takes the press back.
  await page.click('[data-testid=undo]');
  await page.waitForFunction(() => window.splitbrain.step() === 30);
  assert.equal(await page.locator(`${markers}[data-node=b2][data-step="31"]`).count(), 0, 'undone');
  // KRaft brokers hold no ZooKeeper connection: no reset buttons.
  assert.equal(await page.locator('[data-testid=fault-bar] [data-testid^=reset-b]').count(), 3, 'one per broker in ZooKeeper modes');
  await page.selectOption('[data-testid=mode-select]', 'kraft');
  await page.waitForFunction(() => window.splitbrain.view().mode === 'kraft');
  assert.equal(await page.locator('[data-testid=fault-bar] [data-testid^=reset-]').count(), 0, 'hidden in KRaft');
}
