// Swim lanes: one lane per node of the seed incident, the current step highlighted, a click (or
// Enter) on a marker jumps to its step, a cut link's dropped message ends at the step that
// dropped it with a ✕, the lanes export as a standalone SVG file, and the side-by-side run has
// its own lanes.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openApp, dragAcross } from './helpers.mjs';

const stepOf = async (page) => {
  const m = /^step (\d+) \//.exec((await page.textContent('[data-testid=step-info]')).trim());
  return Number(m[1]);
};

async function pressUntil(page, key, pred, max = 600) {
  for (let i = 0; i < max; i++) {
    if (await pred()) return true;
    await page.keyboard.press(key);
  }
  return pred();
}

export async function run({ page, baseUrl, screenshot, assert, log }) {
  await openApp(page, baseUrl);
  const lanes = await page.$$eval('[data-testid=lanes] [data-testid=lanes-lane]', (els) => els.map((e) => e.dataset.lane));
  assert.deepEqual(lanes, ['zk1', 'zk2', 'zk3', 'b1', 'b2', 'b3', 'c1'], 'one lane per node');
  assert.ok(await page.$('[data-testid=lanes] > title'), 'the SVG has a title');

  // After stepping, the current step is highlighted, and it is the page's step.
  await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
  for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await stepOf(page), 12);
  assert.equal(await page.getAttribute('[data-testid=lanes-now]', 'data-step'), '12');
  assert.equal(await page.getAttribute('[data-testid=lanes]', 'data-current-step'), '12');
  const arrows = await page.$$eval('[data-testid=lanes-arrow]', (els) => els.map((e) => ({ ...e.dataset })));
  assert.ok(arrows.length > 0, 'messages are drawn');
  for (const a of arrows) {
    assert.ok(Number(a.endStep) <= 12, `nothing ends after the current step: ${JSON.stringify(a)}`);
    if (a.fate === 'delivered') assert.ok(Number(a.endStep) > Number(a.sentStep), JSON.stringify(a));
    if (a.fate === 'in-flight') assert.equal(a.endStep, '12');
  }
  assert.ok(arrows.some((a) => a.fate === 'in-flight'), 'something is in flight');
  await screenshot('1-step-12');

  // The scripted cuts of b3 (at 9 s): markers on b3's lane; a click on one jumps to its step.
  const cutSeen = () => page.$('[data-testid=lanes-marker][data-kind=cut][data-node=b3]');
  assert.ok(await pressUntil(page, 'ArrowRight', cutSeen), 'the cut of b3 appears in the lanes');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
  const here = await stepOf(page);
  const marker = page.locator('[data-testid=lanes-marker][data-kind=cut][data-node=b3]').first();
  const markerStep = Number(await marker.getAttribute('data-step'));
  assert.ok(markerStep < here, `the marker (${markerStep}) is before the current step (${here})`);
  assert.match(await marker.getAttribute('aria-label'), /^b3: link cut \(with zk\d\) at step \d+/);
  await marker.click();
  await page.waitForFunction((s) => window.splitbrain.step() === s, markerStep);
  assert.equal(await stepOf(page), markerStep, 'a click on the marker jumps to its step');
  assert.equal(await page.getAttribute('[data-testid=lanes-now]', 'data-step'), String(markerStep));
  // Keyboard: focus an arrow, Enter jumps to where it ends.
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
  const now = await stepOf(page);
  const ends = await page.$$eval('[data-testid=lanes-arrow][data-fate=delivered]', (els) => els.map((e) => Number(e.dataset.endStep)));
  const arrowEnd = ends.find((s) => s < now);
  assert.ok(arrowEnd !== undefined, `a delivered arrow before step ${now}`);
  const arrow = page.locator(`[data-testid=lanes-arrow][data-fate=delivered][data-end-step="${arrowEnd}"]`).first();
  await arrow.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((s) => window.splitbrain.step() === s, arrowEnd);
  assert.equal(await stepOf(page), arrowEnd, 'Enter on a focused arrow jumps to its delivery');

  // Back near the start: a cut dragged on zk1–b2 drops b2's ZooKeeper traffic; the dropped arrow
  // stops at the step that dropped it (after the cut), with a ✕.
  await page.keyboard.press('Home');
  await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
  for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowRight');
  await dragAcross(page, 'zk1-b2', { at: 0.6, halfLength: 20 });
  await page.waitForSelector('[data-link="zk1-b2"][data-state=cut]', { state: 'attached' });
  const cutStep = await stepOf(page);
  assert.ok(await page.$(`[data-testid=lanes-marker][data-kind=cut][data-node=b2][data-step="${cutStep}"]`), 'the cut is a marker on b2 at its step');
  await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
  const dropSel = '[data-testid=lanes-arrow][data-fate=dropped]';
  const onLink = (d) => (d.from === 'b2' && d.to === 'zk1') || (d.from === 'zk1' && d.to === 'b2');
  const droppedOnLink = async () =>
    (await page.$$eval(dropSel, (els) => els.map((e) => ({ ...e.dataset })))).filter(onLink);
  assert.ok(await pressUntil(page, 'ArrowRight', async () => (await droppedOnLink()).length > 0, 300), 'a dropped arrow on the cut link');
  const dropped = (await droppedOnLink())[0];
  assert.ok(Number(dropped.endStep) > cutStep, `it ends after the cut (${dropped.endStep} > ${cutStep})`);
  const geom = await page.$eval(`${dropSel}[data-id="${dropped.id}"]`, (g) => {
    const line = g.querySelector('line.shaft');
    const x = g.querySelector('[data-testid=lanes-drop]');
    const lane = (n) => document.querySelector(`[data-testid=lanes] [data-lane="${n}"] line`);
    return {
      x2: Number(line.getAttribute('x2')),
      y2: Number(line.getAttribute('y2')),
      markX: x ? Number(x.getAttribute('x')) : null,
      y1: Number(line.getAttribute('y1')),
      toY: Number(lane(g.dataset.to).getAttribute('y1')),
      nowX: Number(document.querySelector('[data-testid=lanes-now]').getAttribute('x')) + 9,
      nowStep: Number(document.querySelector('[data-testid=lanes-now]').dataset.step),
    };
  });
  assert.equal(geom.markX, geom.x2, 'the ✕ sits where the arrow stops');
  assert.notEqual(geom.y2, geom.toY, 'it stops short of the receiver');
  assert.ok(Math.abs(geom.y2 - geom.y1) < Math.abs(geom.toY - geom.y1), 'short of the receiver');
  const colX = geom.nowX - (geom.nowStep - Number(dropped.endStep)) * 18;
  assert.ok(Math.abs(geom.x2 - colX) < 0.2, `it ends at its drop step's column (${geom.x2} vs ${colX})`);
  await screenshot('2-dropped-at-cut');

  // Export: a standalone SVG of the lanes.
  const dir = mkdtempSync(path.join(tmpdir(), 'splitbrain-lanes-'));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=lanes-export]')]);
  const file = path.join(dir, dl.suggestedFilename());
  await dl.saveAs(file);
  assert.match(dl.suggestedFilename(), /^seed-incident-legacy-lanes-step-\d+\.svg$/);
  const svg = readFileSync(file, 'utf8');
  assert.match(svg, /^<\?xml[^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+"/);
  for (const n of ['zk1', 'zk2', 'zk3', 'b1', 'b2', 'b3', 'c1']) assert.match(svg, new RegExp(`data-lane="${n}"`));
  assert.match(svg, /data-fate="dropped"/);
  const parsed = await page.evaluate((t) => {
    const d = new DOMParser().parseFromString(t, 'image/svg+xml');
    return { err: d.querySelector('parsererror')?.textContent ?? null, lanes: d.querySelectorAll('[data-lane]').length, title: d.querySelector('title')?.textContent };
  }, svg);
  assert.equal(parsed.err, null, 'the SVG parses');
  assert.equal(parsed.lanes, 7);
  assert.match(parsed.title, /^Swim lanes of the legacy run/);
  assert.match(await page.textContent('[data-testid=lanes-export-status]'), /Saved seed-incident-legacy-lanes-step-\d+\.svg/);

  // Side by side: the fenced run has its own lanes, in lockstep; a click there moves the main run
  // to that moment.
  await page.click('[data-testid=undo]');
  await page.selectOption('[data-testid=compare-select]', 'fenced');
  await page.waitForSelector('[data-testid=compare-lanes] [data-testid=compare-lanes-lane]');
  const other = await page.$$eval('[data-testid=compare-lanes] [data-testid=compare-lanes-lane]', (els) => els.map((e) => e.dataset.lane));
  assert.deepEqual(other, ['zk1', 'zk2', 'zk3', 'b1', 'b2', 'b3', 'c1']);
  await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
  const cmpCut = () => page.$('[data-testid=compare-lanes-marker][data-kind=cut][data-node=b3]');
  assert.ok(await pressUntil(page, 'ArrowRight', cmpCut), 'the fenced run shows the cut of b3 too');
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
  const cm = page.locator('[data-testid=compare-lanes-marker][data-kind=cut][data-node=b3]').first();
  const cmStep = Number(await cm.getAttribute('data-step'));
  const before = await stepOf(page);
  await cm.click();
  await page.waitForFunction((s) => window.splitbrain.step() < s, before);
  const cur = Number(await page.getAttribute('[data-testid=compare-lanes]', 'data-current-step'));
  assert.ok(cur >= cmStep && cur < cmStep + 8, `the fenced lanes are at the marker's moment (${cur} vs ${cmStep})`);
  await screenshot('3-compare');
  log(`lanes spec: cut at ${cutStep}, dropped arrow ${dropped.id} ends at ${dropped.endStep}`);
}
