// Picture first (issue 13 part 5): at laptop width the graph is the largest thing on screen, as
// in RaftScope, with the ZooKeeper ensemble drawn as the metadata store; on a phone, 9 brokers
// stay readable (no overlap, labels of a legible size, no sideways scrolling).
import { openApp } from './helpers.mjs';

/** Visible area (px², clipped to the viewport) of the graph and of every other panel or card. */
async function areas(page) {
  return page.evaluate(() => {
    const vw = window.innerWidth, vh = window.innerHeight;
    const visible = (el) => {
      const r = el.getBoundingClientRect();
      const w = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
      const h = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
      return w * h;
    };
    const graph = document.querySelector('[data-testid=app-root] svg.graph');
    const others = [...document.querySelectorAll('[data-testid=app-root] section, [data-testid=app-root] header')]
      .filter((el) => !el.contains(graph))
      .map((el) => ({ name: el.getAttribute('aria-label') || el.getAttribute('data-testid') || el.className, area: visible(el) }));
    return { graph: visible(graph), others };
  });
}

function scenario(n) {
  const brokers = Array.from({ length: n }, (_, i) => i + 1);
  return JSON.stringify({
    name: `cluster-${n}`,
    description: `${n} brokers on a three-server ensemble.`,
    seed: 7,
    cluster: { brokers, controller: 1, zookeeper: { servers: 3 } },
    consumers: [{ id: 1, group: 'payments-group' }],
    end_ms: 20000,
  });
}

export async function run({ page, baseUrl, screenshot, assert, log }) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, baseUrl);
  const a = await areas(page);
  const biggest = a.others.reduce((m, o) => (o.area > m.area ? o : m), { area: 0 });
  log(`    1280x800: graph ${Math.round(a.graph / 1000)}k px², next largest ${biggest.name} ${Math.round(biggest.area / 1000)}k px²`);
  assert.ok(a.graph > biggest.area, `the graph (${a.graph}) is the largest thing on screen, not ${biggest.name} (${biggest.area})`);
  assert.ok(a.graph >= 0.25 * 1280 * 800, `the graph covers a quarter of the screen (${a.graph})`);
  // The metadata store: the ensemble's servers drawn in the picture, one of them the leader.
  assert.equal(await page.locator('svg.graph .zk-server').count(), 3);
  assert.equal(await page.locator('svg.graph .zk-server.leader').count(), 1);
  await screenshot('laptop', { fullPage: false });

  // A phone with 9 brokers.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.setInputFiles('[data-testid=scenario-file]', { name: 'cluster-9.json', mimeType: 'application/json', buffer: Buffer.from(scenario(9)) });
  await page.waitForFunction(() => document.querySelectorAll('svg.graph .node.broker').length === 9);
  await page.waitForTimeout(150);
  const phone = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll('svg.graph .node.broker > rect.box')].map((r) => r.getBoundingClientRect());
    let overlaps = 0;
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const p = boxes[i], q = boxes[j];
        if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) overlaps++;
      }
    const titles = [...document.querySelectorAll('svg.graph .node.broker text.title')].map((t) => t.getBoundingClientRect().height);
    const svg = document.querySelector('svg.graph').getBoundingClientRect();
    return { overlaps, minTitle: Math.min(...titles), svgWidth: svg.width, scrollX: document.documentElement.scrollWidth - window.innerWidth };
  });
  log(`    390x844, 9 brokers: title text ${phone.minTitle.toFixed(1)} px high, graph ${Math.round(phone.svgWidth)} px wide, overlaps ${phone.overlaps}`);
  assert.equal(phone.overlaps, 0, 'no broker overlaps another');
  assert.ok(phone.minTitle >= 8, `broker names legible (${phone.minTitle} px)`);
  assert.ok(phone.svgWidth >= 340, `the graph uses the phone's width (${phone.svgWidth} px)`);
  assert.ok(phone.scrollX <= 1, `no sideways scrolling (${phone.scrollX} px)`);
  await screenshot('phone-9-brokers', { fullPage: false });
}
