// Drag the real mouse across the link from broker 1 to its ZooKeeper server (zk2 in seed-incident's
// ensemble): it is drawn cut and the core has it cut; dragging across it again heals it; Undo
// restores the cut; a server–server link (zk2–zk3) is cut the same way. A drag's pointer moves
// redraw only the stroke, not the graph.
import { openApp, dragAcross, linkState, stepInfo } from './helpers.mjs';

export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors, log }) {
  await openApp(page, baseUrl);
  assert.equal(await linkState(page, 'zk2-b1'), 'up');
  await screenshot('1-loaded');

  // The stroke is its own component: the 12 pointer moves of the drag redraw it, not the graph.
  const before = await page.evaluate(() => window.splitbrain.renders());
  await dragAcross(page, 'zk2-b1', { halfLength: 14 });
  await page.waitForSelector('[data-link="zk2-b1"][data-state=cut]', { state: 'attached', timeout: 5000 });
  const after = await page.evaluate(() => window.splitbrain.renders());
  const graphRenders = after.graph - before.graph;
  const strokeRenders = after.stroke - before.stroke;
  log(`    one drag (12 moves): the stroke rendered ${strokeRenders} times, the graph ${graphRenders}`);
  assert.ok(strokeRenders >= 6, `the stroke follows the pointer (${strokeRenders} renders)`);
  assert.ok(graphRenders <= 3, `the graph renders for the cut, not for each move (${graphRenders} renders)`);
  assert.ok(await page.isVisible('[data-link="zk2-b1"] .cut-mark'), 'the cut is marked on the link');
  // Only the crossed link was cut.
  assert.equal(await page.locator('svg.graph [data-state=cut]').count(), 1, 'exactly one link cut');
  const link = await page.evaluate(() => window.splitbrain.view().links.find((l) => l.a === 'zk2' && l.b === 'b1'));
  assert.equal(link.a_to_b, false, 'core: zk2 -> b1 dropped');
  assert.equal(link.b_to_a, false, 'core: b1 -> zk2 dropped');
  assert.match(await stepInfo(page), /^step 1 \//, 'the cut is step 1');
  assert.match(await page.textContent('#ev-1'), /cut b1 <-> zk2|cut zk2 <-> b1/, 'the log shows the cut as step 1');
  const label = await page.getAttribute('[data-testid="link-zk2-b1"]', 'aria-label');
  assert.match(label, /cut both ways; press Enter to heal/, `accessible name says cut: ${label}`);

  // Step on a few events with the keyboard: broker 1's connection to zk2 goes bad.
  await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
  for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => window.splitbrain.step() === 41);
  await screenshot('2-cut-b1-zk2');

  // Drag across it again: healed.
  await dragAcross(page, 'zk2-b1', { at: 0.35, halfLength: 14 });
  await page.waitForSelector('[data-link="zk2-b1"][data-state=up]', { state: 'attached', timeout: 5000 });
  // Undo restores the cut future.
  await page.click('[data-testid=undo]');
  await page.waitForSelector('[data-link="zk2-b1"][data-state=cut]', { state: 'attached', timeout: 5000 });

  // A one-way cut through the mode select: only replies (zk1 -> b2, b2's server) dropped, drawn with direction.
  await page.selectOption('select[aria-label="What a drag across a link cuts"]', 'replies');
  await dragAcross(page, 'zk1-b2', { at: 0.6, halfLength: 20 });
  await page.waitForSelector('[data-link="zk1-b2"][data-state=oneway] .oneway-arrow', { state: 'attached', timeout: 5000 });
  const l2 = await page.evaluate(() => window.splitbrain.view().links.find((l) => l.a === 'zk1' && l.b === 'b2'));
  assert.deepEqual([l2.a_to_b, l2.b_to_a], [false, true], 'core: only zk1 -> b2 is cut');
  await screenshot('3-oneway');

  // A server–server link of the ensemble is cut by dragging, like any other.
  await page.selectOption('select[aria-label="What a drag across a link cuts"]', 'both');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => window.splitbrain.step() === 0);
  assert.equal(await linkState(page, 'zk2-zk3'), 'up');
  await dragAcross(page, 'zk2-zk3', { at: 0.25, halfLength: 10 });
  await page.waitForSelector('[data-link="zk2-zk3"][data-state=cut]', { state: 'attached', timeout: 5000 });
  const peer = await page.evaluate(() => window.splitbrain.view().links.find((l) => l.a === 'zk2' && l.b === 'zk3'));
  assert.deepEqual([peer.a_to_b, peer.b_to_a], [false, false], 'core: zk2 <-> zk3 cut both ways');
  assert.match(await page.getAttribute('[data-testid="link-zk2-zk3"]', 'aria-label'), /ZooKeeper zk2–ZooKeeper zk3, cut both ways/);
  await screenshot('4-server-link-cut');

  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');
  log('    cut spec: drag cut, heal, undo and one-way cut all went through the real pointer events');
}
