// A bad scenario file shows a clear message and keeps the current run; a good file with 5 and 9
// brokers loads and draws without overlap; the step time with 5 brokers is printed.
import { openApp, stepToEndTimed, summarize, fmtTimes, recordTiming } from './helpers.mjs';

function scenario(n) {
  const brokers = Array.from({ length: n }, (_, i) => i + 1);
  return JSON.stringify({
    name: `cluster-${n}`,
    description: `${n} brokers; the controller loses ZooKeeper for a while.`,
    seed: 7,
    cluster: { brokers, controller: 1 },
    consumers: [{ id: 1, group: 'payments-group' }],
    script: [
      { at_ms: 1000, do: { op: 'cut', a: 'b1', b: 'zk' } },
      { at_ms: 12000, do: { op: 'heal', a: 'b1', b: 'zk' } },
    ],
    end_ms: 30000,
  });
}

async function overlaps(page) {
  return page.evaluate(() => {
    const boxes = [...document.querySelectorAll('svg.graph [data-node] > rect.box')].map((r) => r.getBoundingClientRect());
    let n = 0;
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) n++;
      }
    return n;
  });
}

export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors, log }) {
  await openApp(page, baseUrl);
  const stepsBefore = await page.evaluate(() => window.splitbrain.steps());

  await page.setInputFiles('[data-testid=scenario-file]', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"name": "x", "cluster": ') });
  await page.waitForSelector('[data-testid=notice].error');
  const msg = await page.textContent('[data-testid=notice]');
  assert.match(msg, /broken\.json/, msg);
  assert.match(msg, /Still showing 'seed-incident'/, msg);
  assert.equal(await page.evaluate(() => window.splitbrain.steps()), stepsBefore, 'current run kept');
  assert.ok(await page.isVisible('svg.graph [data-node=b3]'), 'graph still drawn');
  await screenshot('1-bad-file');

  // Valid JSON, invalid scenario: the core's one-line reason is shown.
  await page.setInputFiles('[data-testid=scenario-file]', { name: 'ten.json', mimeType: 'application/json', buffer: Buffer.from(scenario(10)) });
  await page.waitForFunction(() => /1 to 9/.test(document.querySelector('[data-testid=notice]')?.textContent || ''));

  // Bad seed text.
  await page.fill('[data-testid=seed]', 'abc');
  await page.click('[data-testid=reset]');
  await page.waitForFunction(() => /not a whole number/.test(document.querySelector('[data-testid=notice]')?.textContent || ''));

  for (const n of [5, 9]) {
    await page.setInputFiles('[data-testid=scenario-file]', { name: `cluster-${n}.json`, mimeType: 'application/json', buffer: Buffer.from(scenario(n)) });
    await page.waitForFunction((n) => document.querySelectorAll('svg.graph .node.broker').length === n, n);
    assert.equal(await page.locator('[data-testid=notice]').count(), 0, 'a good file clears the message');
    assert.equal(await overlaps(page), 0, `${n} brokers: node boxes overlap`);
    if (n === 5) {
      const { times, withLayout } = await stepToEndTimed(page, 400);
      const t = summarize(times);
      const tl = summarize(withLayout);
      log(`    time to render one step (5 brokers), click -> DOM updated: ${fmtTimes(t)}`);
      log(`    ... including style and layout: ${fmtTimes(tl)}`);
      await recordTiming('5 brokers, click -> DOM updated', t);
      await recordTiming('5 brokers, click -> DOM updated + style/layout', tl);
    } else {
      await page.click('[data-testid=step-end]');
    }
    await page.waitForTimeout(150);
    await screenshot(`2-${n}-brokers`);
  }
  // Phone width with 9 brokers: still no overlap (the drawing scales as one).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(150);
  assert.equal(await overlaps(page), 0, '9 brokers at phone width: node boxes overlap');
  await screenshot('3-9-brokers-phone', { fullPage: false });

  // Back to a built-in through the picker.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.selectOption('[data-testid=scenario-select]', 'seed-incident');
  await page.waitForFunction(() => document.querySelectorAll('svg.graph .node.broker').length === 3);

  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
}
