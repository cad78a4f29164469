// The first paint (issue 13, "picture first" and "page weight"): dist/index.html carries the
// default scenario's page rendered at build time (crates/app/src/bin/prerender.rs), so the graph
// is drawn from the HTML and CSS alone. With every script and wasm request refused, the graph is
// still there, inert; once the page starts, the live page replaces it (one graph, no first paint
// left); and a permalink hides the default run's first paint instead of showing the wrong run.
import { openApp } from './helpers.mjs';

export async function run({ page, baseUrl, screenshot, assert, log }) {
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop() || 'index.html'));
  await page.route(/\.(wasm|js)(\?.*)?$/, (route) => route.abort());
  await page.goto(baseUrl, { waitUntil: 'load' });
  const fp = '[data-testid=first-paint]';
  await page.waitForSelector(`${fp} svg.graph [data-node=b1]`, { state: 'visible', timeout: 10_000 });
  for (const b of ['b1', 'b2', 'b3']) {
    assert.ok(await page.isVisible(`${fp} svg.graph [data-node=${b}]`), `broker ${b} drawn without scripts`);
  }
  assert.ok((await page.locator(`${fp} svg.graph .zk-server`).count()) >= 3, 'the ZooKeeper ensemble is drawn');
  assert.equal(await page.getAttribute(fp, 'inert'), '', 'the first paint takes no clicks or focus');
  assert.equal(await page.locator('[data-testid=app-root]').count(), 0, 'no live-page test id in the first paint');
  const drawn = [...new Set(fetched.filter((f) => !/\.(wasm|js)$/.test(f)))];
  log(`first paint drawn from: ${drawn.join(', ')} (scripts and wasm refused)`);
  await screenshot('no-scripts');

  // A permalink: the default run's first paint is hidden until the linked run starts.
  const p2 = await page.context().newPage();
  await p2.route(/\.(wasm|js)(\?.*)?$/, (route) => route.abort());
  await p2.goto(`${baseUrl}#v3.some-link`, { waitUntil: 'load' });
  assert.equal(await p2.isVisible(`${fp} svg.graph`), false, 'a link does not show the default run first');
  await p2.close();

  // The live page replaces the first paint.
  await page.unroute(/\.(wasm|js)(\?.*)?$/);
  await openApp(page, baseUrl);
  assert.equal(await page.locator(fp).count(), 0, 'the first paint is gone once the page runs');
  assert.equal(await page.locator('svg.graph').count(), 1, 'one graph');
  assert.equal(await page.isVisible('#wasm-fallback'), false);
}
