// "What your tools would show": Kafka's own tools at the step shown, in a collapsed panel. At the
// end of seed-incident, kafka-topics.sh --zookeeper prints Leader: -1 for __consumer_offsets-3 and
// the AdminClient dialect Leader: none; at the step where broker 2 becomes the acting controller
// (found by stepping and watching the graph's data-acting, not the log's prose), the JMX
// ActiveControllerCount gauges sum to 2. The tabs work by keyboard without stepping the run.
import { openApp, stepInfo } from './helpers.mjs';

const P3_ZK = '\tTopic: __consumer_offsets\tPartition: 3\tLeader: -1\tReplicas: 3,1,2\tIsr: 2';
const P3_ADMIN = '\tTopic: __consumer_offsets\tPartition: 3\tLeader: none\tReplicas: 3,1,2\tIsr: ';
const OUT = '[data-testid=tool-output]';
const ACTIVE = 'kafka.controller:type=KafkaController,name=ActiveControllerCount';

async function outputLines(page) {
  return (await page.textContent(OUT)).split('\n');
}

/** The tool output for `tool` at the step shown (waits for the panel to have rendered it). */
async function waitOutput(page, tool) {
  await page.waitForFunction(
    ([sel, tool]) => {
      const pre = document.querySelector(sel);
      return pre && pre.dataset.tool === tool && Number(pre.dataset.step) === window.splitbrain.step();
    },
    [OUT, tool],
  );
  return outputLines(page);
}

async function selectedTab(page) {
  return page.evaluate(() => {
    const sel = [...document.querySelectorAll('[data-testid=tool-tabs] [role=tab]')].filter((t) => t.getAttribute('aria-selected') === 'true');
    return { n: sel.length, tool: sel[0] && sel[0].dataset.tool, focused: document.activeElement === sel[0], tabindex: sel[0] && sel[0].getAttribute('tabindex') };
  });
}

function activeSum(lines) {
  return lines
    .map((l) => l.split('\t'))
    .filter((f) => f.length === 3 && f[1] === ACTIVE)
    .reduce((s, f) => s + Number(f[2].replace(/^Value=/, '')), 0);
}

export async function run({ page, baseUrl, screenshot, assert }) {
  await openApp(page, baseUrl);
  // Closed: nothing rendered (and nothing computed).
  assert.equal(await page.getAttribute('[data-testid=tools-panel]', 'open'), null, 'the panel starts closed');
  assert.equal(await page.$(OUT), null, 'no tool output while closed');

  // The last step, then open the panel: topics (--zookeeper) is the first tab.
  await page.locator('h1').click();
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.splitbrain.step() === window.splitbrain.steps() && window.splitbrain.steps() > 300);
  const end = await page.evaluate(() => window.splitbrain.step());
  await page.click('[data-testid=tools-summary]');
  let lines = await waitOutput(page, 'topics');
  assert.ok(lines.includes(P3_ZK), `topics shows p3 at leader -1:\n${lines.slice(0, 6).join('\n')}`);
  assert.equal(lines.filter((l) => l.startsWith('\tTopic: __consumer_offsets\tPartition: 3\t')).length, 1);
  assert.match(await page.textContent('[data-testid=tool-command]'), /^\$ kafka-topics\.sh --zookeeper \S+:2181 --describe$/);
  assert.match(await page.textContent('[data-testid=tool-source]'), new RegExp(`^At step ${end}: Kafka 1\\.0\\.0's TopicCommand`));
  await screenshot('tools-topics-end');

  // --unavailable-partitions: no header, only the leaderless partitions, p3 among them.
  await page.check('[data-testid=tool-unavailable]');
  await page.waitForFunction((sel) => !document.querySelector(sel).textContent.startsWith('Topic:'), OUT);
  lines = (await outputLines(page)).filter((l) => l !== '');
  assert.ok(lines.includes(P3_ZK));
  assert.ok(lines.every((l) => /\tLeader: -1\t/.test(l)), 'only leaderless partitions');
  assert.match(await page.textContent('[data-testid=tool-command]'), / --describe --unavailable-partitions$/);
  await page.uncheck('[data-testid=tool-unavailable]');
  await page.waitForFunction((sel) => document.querySelector(sel).textContent.startsWith('Topic:'), OUT);

  // Keyboard: the selected tab is the one Tab stop; → moves to topics-admin and focuses it,
  // without stepping the run.
  await page.focus('#tool-tab-topics');
  assert.deepEqual(await selectedTab(page), { n: 1, tool: 'topics', focused: true, tabindex: '0' });
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await selectedTab(page), { n: 1, tool: 'topics-admin', focused: true, tabindex: '0' });
  assert.equal(await page.evaluate(() => window.splitbrain.step()), end, 'arrow keys on the tabs do not step');
  lines = await waitOutput(page, 'topics-admin');
  assert.ok(lines.includes(P3_ADMIN), `topics-admin shows Leader: none:\n${lines.slice(0, 6).join('\n')}`);
  assert.ok(!lines.some((l) => l.includes('\tLeader: -1\t')), 'the AdminClient never prints -1');
  assert.match(await page.textContent('[data-testid=tool-command]'), /^\$ kafka-topics\.sh --bootstrap-server broker-\d+:9092 --describe$/);
  assert.equal(await page.getAttribute('[data-testid=tool-panel]', 'aria-labelledby'), 'tool-tab-topics-admin');
  // End / Home / ← wrap around the six tools; Tab leaves the tablist for the output.
  await page.keyboard.press('End');
  assert.equal((await selectedTab(page)).tool, 'state-change');
  await page.keyboard.press('Home');
  assert.equal((await selectedTab(page)).tool, 'topics');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await selectedTab(page)).tool, 'state-change');
  await page.keyboard.press('ArrowLeft');
  assert.equal((await selectedTab(page)).tool, 'jmx');
  assert.equal(await page.evaluate(() => window.splitbrain.step()), end, 'Home/End on the tabs do not seek');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'tool-panel');

  // jmx at broker 2's election: from step 0, step forward until the graph draws broker 2 as an
  // acting controller.
  await page.click('button[aria-label="Go to the start (step 0)"]');
  await page.waitForFunction(() => window.splitbrain.step() === 0);
  let step = 0;
  while ((await page.getAttribute('[data-testid=node-b2]', 'data-acting')) !== 'true') {
    assert.ok(step < end, 'broker 2 becomes an acting controller before the end');
    await page.click('[data-testid=step-forward]');
    step += 1;
    await page.waitForFunction((n) => window.splitbrain.step() === n, step);
  }
  lines = await waitOutput(page, 'jmx');
  assert.equal(step, 154, 'the page finds broker 2 elected at step 154, as splitbrain describe does');
  assert.match(await stepInfo(page), /^step 154 \//);
  assert.equal(activeSum(lines), 2, `ActiveControllerCount sums to 2:\n${lines.join('\n')}`);
  assert.ok(lines.includes(`2\t${ACTIVE}\tValue=1`));
  assert.equal(lines.filter((l) => l !== '').length, 9, 'three brokers, three beans');
  await screenshot('tools-jmx-154');
  // One step back, broker 1 alone is active.
  await page.click('[data-testid=step-back]');
  lines = await waitOutput(page, 'jmx');
  assert.equal(activeSum(lines), 1);

  // kcat asks the broker chosen: its bootstrap line names it.
  await page.click('#tool-tab-kcat');
  await page.selectOption('[data-testid=tool-broker]', '3');
  lines = await waitOutput(page, 'kcat');
  assert.equal(lines[0], 'Metadata for all topics (from broker -1: broker-3:9092/bootstrap):');
  assert.equal(await page.textContent('[data-testid=tool-command]'), '$ kcat -L -b broker-3:9092');

  // Kraft has no ZooKeeper: topics --zookeeper refuses with the core's sentence; the AdminClient
  // dialect still answers.
  await page.selectOption('[data-testid=mode-select]', 'kraft');
  await page.waitForFunction(() => window.splitbrain.step() === 0);
  await page.click('#tool-tab-topics');
  await page.waitForSelector('[data-testid=tool-refusal]');
  assert.match(await page.textContent('[data-testid=tool-refusal]'), /no ZooKeeper/);
  assert.equal(await page.textContent(OUT), '');
  await page.click('#tool-tab-topics-admin');
  lines = await waitOutput(page, 'topics-admin');
  assert.ok(lines.some((l) => l.startsWith('\tTopic: __consumer_offsets\tPartition: 3\tLeader: 3\t')), lines.slice(0, 5).join('\n'));

  // Closing the panel drops the output.
  await page.click('[data-testid=tools-summary]');
  await page.waitForSelector(OUT, { state: 'detached' });
}
