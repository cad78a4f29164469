// Smoke test: the page loads, the Yew app renders its root element, and the
// browser console shows no errors.
export async function run({ page, baseUrl, screenshot, assert, consoleErrors, pageErrors }) {
  const response = await page.goto(baseUrl, { waitUntil: 'load' });
  assert.ok(response && response.ok(), `GET ${baseUrl} returned ${response && response.status()}`);
  assert.match(await page.title(), /splitbrain/);

  await page.waitForSelector('[data-testid=app-root]', { state: 'visible', timeout: 30_000 });
  // The inline fallback message must stay hidden once the app is running.
  assert.equal(await page.isVisible('#wasm-fallback'), false, 'wasm fallback message is visible');

  await screenshot('loaded');

  assert.deepEqual(pageErrors, [], 'uncaught exceptions in the page');
  assert.deepEqual(consoleErrors, [], 'console errors');
}
