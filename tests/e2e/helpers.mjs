// Shared helpers for the playground specs (not a spec itself).

/** Waits for the Yew app to be mounted and the graph drawn. */
export async function openApp(page, baseUrl) {
  const response = await page.goto(baseUrl, { waitUntil: 'load' });
  if (!response || !response.ok()) throw new Error(`GET ${baseUrl} -> ${response && response.status()}`);
  await page.waitForSelector('[data-testid=app-root] svg.graph [data-node=b1]', { state: 'visible', timeout: 30_000 });
}

/** Screen coordinates of a link's visible segment (its hit line), via the SVG's screen CTM. */
export async function linkScreenSegment(page, name) {
  return page.evaluate((name) => {
    const el = document.querySelector(`[data-testid="link-${name}"]`);
    if (!el) return null;
    const m = el.getScreenCTM();
    const pt = (x, y) => ({ x: m.a * x + m.c * y + m.e, y: m.b * x + m.d * y + m.f });
    const n = (a) => Number(el.getAttribute(a));
    return { p: pt(n('x1'), n('y1')), q: pt(n('x2'), n('y2')) };
  }, name);
}

/** Drags the real mouse across the middle of a link, perpendicular to it. */
export async function dragAcross(page, name, { halfLength = 28, at = 0.5 } = {}) {
  // The real mouse only reaches what is in the viewport.
  await page.evaluate((n) => document.querySelector(`[data-link="${n}"]`).scrollIntoView({ block: 'center' }), name);
  const seg = await linkScreenSegment(page, name);
  if (!seg) throw new Error(`no link ${name}`);
  const mx = seg.p.x + (seg.q.x - seg.p.x) * at;
  const my = seg.p.y + (seg.q.y - seg.p.y) * at;
  const dx = seg.q.x - seg.p.x;
  const dy = seg.q.y - seg.p.y;
  const len = Math.hypot(dx, dy) || 1;
  const nx = -dy / len;
  const ny = dx / len;
  await page.mouse.move(mx - nx * halfLength, my - ny * halfLength);
  await page.mouse.down();
  await page.mouse.move(mx + nx * halfLength, my + ny * halfLength, { steps: 12 });
  await page.mouse.up();
}

export async function linkState(page, name) {
  return page.getAttribute(`[data-link="${name}"]`, 'data-state');
}

export async function stepInfo(page) {
  return (await page.textContent('[data-testid=step-info]')).trim();
}

/** Clicks "Forward" through the real button until it is disabled, timing each click until the
 * DOM shows the new step (MutationObserver on the step counter), and until style and layout are
 * done as well. Returns { times, withLayout } in ms per step. */
export async function stepToEndTimed(page, maxSteps = 5000) {
  return page.evaluate(async (maxSteps) => {
    const btn = document.querySelector('[data-testid=step-forward]');
    const info = document.querySelector('[data-testid=step-info]');
    const times = [];
    const withLayout = [];
    for (let i = 0; i < maxSteps && !btn.disabled; i++) {
      const before = info.textContent;
      const t0 = performance.now();
      const changed = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          if (info.textContent !== before) {
            obs.disconnect();
            resolve(performance.now());
          }
        });
        obs.observe(info, { childList: true, subtree: true, characterData: true });
        setTimeout(() => { obs.disconnect(); resolve(null); }, 2000);
      });
      btn.click();
      const t1 = await changed;
      if (t1 === null) throw new Error(`step ${i}: the step counter did not change within 2 s`);
      // Force style and layout now, to also time what the browser does before it can paint.
      void document.body.offsetHeight;
      const t2 = performance.now();
      times.push(t1 - t0);
      withLayout.push(t2 - t0);
    }
    return { times, withLayout };
  }, maxSteps);
}

export function summarize(times) {
  const s = [...times].sort((a, b) => a - b);
  const q = (f) => s[Math.min(s.length - 1, Math.floor(f * s.length))];
  const mean = s.reduce((a, b) => a + b, 0) / Math.max(1, s.length);
  return { steps: s.length, median: q(0.5), p95: q(0.95), max: s[s.length - 1], mean };
}

export function fmtTimes(t) {
  return `${t.steps} steps: median ${t.median.toFixed(2)} ms, mean ${t.mean.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms, max ${t.max.toFixed(2)} ms`;
}

/** Appends a timing line to target/e2e-step-timing.txt (read by the size report, not asserted). */
export async function recordTiming(label, t) {
  const { appendFileSync, mkdirSync } = await import('node:fs');
  const path = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  mkdirSync(path.join(root, 'target'), { recursive: true });
  appendFileSync(path.join(root, 'target', 'e2e-step-timing.txt'), `${new Date().toISOString()} ${label}: ${fmtTimes(t)}\n`);
}
