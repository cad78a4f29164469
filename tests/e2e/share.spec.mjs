// Permalinks: make cuts and step, copy the link, open it in a new browser context and compare the
// rendered state and step; then hostile fragments (wrong version, bad base64, oversized, cut short,
// HTML and script in names) each show a clear message and the default scenario, and nothing from
// the URL is inserted as HTML.
import { deflateRawSync } from 'node:zlib';
import { openApp, dragAcross, stepInfo } from './helpers.mjs';

const link = (obj) => 'v3.' + deflateRawSync(Buffer.from(JSON.stringify(obj))).toString('base64url');

async function rendered(page) {
  return page.evaluate(() => ({
    step: window.splitbrain.step(),
    view: JSON.stringify(window.splitbrain.view()),
    info: document.querySelector('[data-testid=step-info]').textContent,
    banner: document.querySelector('[data-testid=status-banner]').textContent,
    cuts: [...document.querySelectorAll('svg.graph [data-link]')].map((l) => l.dataset.link + '=' + l.dataset.state).join(' '),
    partitions: document.querySelector('[data-testid=partition-table]')?.textContent ?? '',
    mode: document.querySelector('[data-testid=mode-select]').value,
  }));
}

async function expectDefaultWithNotice(page, baseUrl, fragment, needle, assert) {
  await page.goto(baseUrl + 'index.html#' + fragment, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  const notice = (await page.textContent('[data-testid=notice]')) || '';
  assert.match(notice, needle, `notice for ${fragment.slice(0, 40)}…: ${notice}`);
  assert.match(notice, /Showing the default scenario/);
  assert.equal(await page.inputValue('[data-testid=scenario-select]'), 'seed-incident');
  assert.match(await stepInfo(page), /^step 0 \//);
  return notice;
}

export async function run({ page, context, baseUrl, screenshot, assert }) {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  await openApp(page, baseUrl);
  await page.selectOption('[data-testid=mode-select]', 'fenced');
  await page.waitForFunction(() => window.splitbrain.view().mode === 'fenced');
  // Step 20 steps, cut b2–ZooKeeper with the mouse, 30 more steps, cut b1–b3, 10 more.
  await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
  await dragAcross(page, 'zk1-b2', { at: 0.6, halfLength: 20 });
  await page.waitForSelector('[data-link="zk1-b2"][data-state=cut]', { state: 'attached' });
  for (let i = 0; i < 30; i++) await page.click('[data-testid=step-forward]');
  await dragAcross(page, 'b1-b3');
  await page.waitForSelector('[data-link="b1-b3"][data-state=cut]', { state: 'attached' });
  for (let i = 0; i < 10; i++) await page.click('[data-testid=step-forward]');
  await page.waitForFunction(() => window.splitbrain.step() === 62);
  const before = await rendered(page);

  await page.click('[data-testid=copy-link]');
  const url = await page.inputValue('[data-testid=share-url]');
  assert.match(url, /#v3\.[A-Za-z0-9_-]+$/, url);
  // The address bar follows the run too.
  assert.equal(await page.evaluate(() => location.hash.slice(1)), url.split('#')[1]);
  assert.match(await page.textContent('[data-testid=share-status]'), /copied|Ctrl\+C/);
  await screenshot('1-copied');

  // "Copy embed code": an <iframe> of embed.html beside the page, carrying the same run and step.
  await page.click('[data-testid=copy-embed]');
  const code = await page.inputValue('[data-testid=embed-code]');
  const m = /^<iframe class="splitbrain" title="splitbrain: seed-incident at step 62" src="([^"]+)" style="[^"]+" loading="lazy"><\/iframe>$/.exec(code);
  assert.ok(m, `embed code: ${code}`);
  const src = m[1].replaceAll('&amp;', '&');
  assert.equal(src, `${new URL('embed.html', baseUrl).href}?link=${url.split('#')[1]}&panels=story`);
  // The status follows the clipboard's promise, which may settle after the click returns (seen
  // on a loaded 2-core machine): wait for it rather than read it once.
  await page.waitForFunction(() => /Embed code copied|Ctrl\+C/.test(document.querySelector('[data-testid=share-status]').textContent), null, { timeout: 5000 });
  const widget = await page.context().newPage();
  await widget.goto(src, { waitUntil: 'load' });
  await widget.waitForSelector('[data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  assert.match(await widget.textContent('[data-testid=step-info]'), /^step 62 \//, 'the embed opens at the same step');
  assert.equal(await widget.getAttribute('svg.graph [data-link="zk1-b2"]', 'data-state'), 'cut', 'with the same cuts');
  assert.equal(await widget.locator('[data-testid=notice]').count(), 0, 'no message about options');
  await widget.close();

  const fresh = await context.browser().newContext({ viewport: { width: 1280, height: 800 } });
  const p2 = await fresh.newPage();
  const errors = [];
  p2.on('pageerror', (e) => errors.push(String(e)));
  await p2.goto(url, { waitUntil: 'load' });
  await p2.waitForSelector('[data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  await p2.waitForFunction(() => window.splitbrain && window.splitbrain.step() === 62);
  const after = await rendered(p2);
  assert.deepEqual(after, before, 'the link reopens the same run at the same step');
  assert.equal(await p2.isVisible('[data-testid=notice]'), false);
  // Stepping on from the restored run goes where the original goes.
  await page.click('[data-testid=step-end]');
  await p2.click('[data-testid=step-end]');
  assert.deepEqual(await rendered(p2), await rendered(page), 'same end of the run');
  await p2.screenshot({ path: new URL('../screenshots/share-2-reopened.png', import.meta.url).pathname, fullPage: true });
  assert.deepEqual(errors, []);
  await fresh.close();

  // Hostile and broken fragments.
  const good = url.split('#')[1];
  await expectDefaultWithNotice(page, baseUrl, 'v9.' + good.slice(3), /newer splitbrain/, assert);
  await expectDefaultWithNotice(page, baseUrl, 'v1.%%%not*base64', /not valid base64url/, assert);
  await expectDefaultWithNotice(page, baseUrl, 'v1.' + 'A'.repeat(70_000), /limit is 65536/, assert);
  await expectDefaultWithNotice(page, baseUrl, good.slice(0, Math.floor(good.length / 2)), /corrupted|not valid|base64/, assert);
  await expectDefaultWithNotice(page, baseUrl, 'hello', /no version prefix/, assert);
  const xss = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  const n1 = await expectDefaultWithNotice(page, baseUrl, link({ builtin: xss, seed: 1, step: 3 }), /unknown built-in/, assert);
  assert.ok(n1.includes('<img src=x'), 'the name is shown as text');
  // A scenario that is valid except for HTML in its name opens, with the name as plain text.
  const custom = {
    name: xss,
    description: xss,
    cluster: { brokers: [1, 2, 3] },
    consumers: [{ id: 1, group: xss }],
    script: [{ at_ms: 1000, do: { op: 'cut', a: 'b1', b: 'zk' } }],
  };
  await page.goto(baseUrl + 'index.html#' + link({ scenario: custom, seed: 5, step: 4 }), { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  await page.waitForFunction(() => window.splitbrain.step() === 4);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no markup from the link ran');
  assert.equal(await page.locator('[data-testid=app-root] img, [data-testid=app-root] script').count(), 0);
  assert.ok((await page.textContent('[data-testid=app-root]')).includes('<img src=x'), 'shown as text');
  await screenshot('3-hostile-names');
}
