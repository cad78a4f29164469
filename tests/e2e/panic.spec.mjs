// A panic inside the wasm shows an error banner with the message; the page is never blank.
import { openApp } from './helpers.mjs';

// The panic is on purpose: the runner must not fail the spec for the page error it causes.
export const allowPageErrors = true;

export async function run({ page, baseUrl, screenshot, assert }) {
  await openApp(page, baseUrl);
  assert.equal(await page.isVisible('#panic-banner'), false, 'no banner on a normal run');
  await page.evaluate(() => {
    try {
      window.splitbrain.panicForTest('deliberate test panic 42');
    } catch (e) {
      /* the wasm trap surfaces as a RuntimeError here */
    }
  });
  await page.waitForSelector('#panic-banner', { state: 'visible', timeout: 5000 });
  const text = await page.textContent('#panic-banner');
  assert.match(text, /deliberate test panic 42/, text);
  assert.match(text, /Reload the page/, text);
  // The last drawing stays on the page under the banner.
  assert.ok(await page.isVisible('svg.graph'), 'the page is not blank');
  await screenshot('banner', { fullPage: false });
}
