// "Your logs" on the seed blog's reconstructed logs (issue 31's "done when"): the example button
// gives the eight files of crates/import/tests/logs/seed-blog-1.0 to the import; the page shows two
// controller epochs, the split-brain signatures, and the fitted replay side by side — 1.0 reaches
// leader -1, 2.1 refuses broker 1's write (BADVERSION) — and its link opens the fitted scenario in
// the playground, with the logs' broker ids. Screenshots: example-timeline, example-verdicts,
// example-playground. Matches structured attributes only.
export async function run({ page, baseUrl, screenshot, assert, log }) {
  await page.goto(new URL('logs.html', baseUrl).href, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=logs-root]', { timeout: 30_000 });
  await page.click('[data-testid=logs-example]');
  await page.waitForSelector('[data-testid=signature]', { timeout: 60_000 });

  const kinds = await page.$$eval('[data-testid=signature]', (els) => els.map((e) => e.dataset.kind));
  for (const k of ['overlapping_controllers', 'deposed_controller_write', 'leader_none', 'zk_version_mismatch', 'stale_controller_epoch']) {
    assert.ok(kinds.includes(k), `signature ${k} in ${kinds}`);
  }
  const brokers = await page.$$eval('[data-testid=file-row]', (rows) => rows.map((r) => r.dataset.broker));
  assert.equal(brokers.length, 8, `eight files: ${brokers}`);
  assert.deepEqual([...new Set(brokers)].sort(), ['1', '2', '3'], "each file's broker read from its lines or name");
  log(`example: brokers ${brokers}, signatures ${kinds.join(',')}`);

  const verdicts = await page.$$eval('[data-testid=mode-verdict]', (els) =>
    els.map((e) => ({ mode: e.dataset.mode, leader: Number(e.dataset.leader), reproduced: e.dataset.reproduced, words: e.textContent })));
  const v = (m) => verdicts.find((x) => x.mode === m);
  assert.ok(v('1.0') && v('1.0').leader === -1 && v('1.0').reproduced === 'true', `1.0 reaches leader -1: ${JSON.stringify(v('1.0'))}`);
  assert.ok(v('2.1') && v('2.1').leader >= 0 && /BADVERSION/.test(v('2.1').words), `2.1 refuses the write: ${JSON.stringify(v('2.1'))}`);
  assert.ok(v('KRaft') && v('KRaft').leader >= 0, 'KRaft keeps a leader');
  assert.ok(await page.$('[data-testid=fit-notes]'), 'the fit says what the logs do not');

  await page.locator('[data-testid=timeline]').scrollIntoViewIfNeeded();
  await screenshot('example-timeline');
  await page.locator('[data-testid=fit]').scrollIntoViewIfNeeded();
  await screenshot('example-verdicts');

  // The fitted scenario in the playground: the logs' broker ids, no error banner.
  const href = await page.getAttribute('[data-testid=open-playground]', 'href');
  assert.match(href, /^index\.html#v3\./);
  await page.click('[data-testid=open-playground]');
  await page.waitForSelector('[data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  for (const b of ['b1', 'b2', 'b3']) assert.ok(await page.$(`svg.graph [data-node=${b}]`), `broker ${b} drawn`);
  assert.equal(await page.$('.notice.error[data-testid=notice]'), null, 'no error notice');
  await screenshot('example-playground');
}
