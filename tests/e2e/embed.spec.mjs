// Embedding: the sample blog post's iframes each reach their moment of the seed incident (the last
// one is operator-delete in the fenced behaviour) and size themselves through postMessage; the docs page mounts a widget into a div; keys step only the
// focused widget; "open in the full playground" opens the same step; bad embed options are named
// in a message and never inserted as HTML.

async function widgetIn(frame) {
  await frame.waitForSelector('[data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  return frame;
}

const info = (f) => f.textContent('[data-testid=step-info]');

export async function run({ page, baseUrl, screenshot, assert }) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(baseUrl + 'blog-sample.html', { waitUntil: 'load' });
  const moments = [
    ['moment-elected', 31, 2006, /Broker 1 wins the race/],
    ['moment-stale', 447, 2006, /Broker 2 has loaded every partition state/],
    ['moment-leaderless', 635, 2006, /removing replica 1 from the ISR re-reads ZooKeeper/],
    // operator-delete in 2.1.0 (fenced): broker 1's batched writes reach the ensemble's leader
    // after broker 2 bumped /controller_epoch; the story says the fence refuses the write. (In
    // seed-incident 2.1 retries broker 2's lost read, so no write is left for the fence to refuse.)
    ['moment-fenced', 252, 717, /refuses the write of __consumer_offsets-3 with BADVERSION/],
  ];
  // Before the wasm: each iframe names the snapshot page rendered at build time (prerender
  // --embeds), and embed.html draws it from that page alone. Here the widget's wasm is refused:
  // the picture stays, with a note.
  const bare = await page.context().newPage();
  const bareFetches = [];
  const perFrame = new Map();
  const note = (r, name) => perFrame.set(r.frame(), [...(perFrame.get(r.frame()) || []), name]);
  bare.on('request', (r) => {
    const name = new URL(r.url()).pathname.split('/').pop();
    bareFetches.push(name);
    note(r, name);
  });
  bare.on('requestfinished', (r) => note(r, 'done:' + new URL(r.url()).pathname.split('/').pop()));
  await bare.route(/splitbrain-widget_bg\.wasm$/, (route) => route.abort());
  await bare.goto(baseUrl + 'blog-sample.html', { waitUntil: 'load' });
  for (const [id, step, , caption] of moments) {
    const handle = await bare.$(`iframe[data-testid=${id}]`);
    assert.match(await handle.getAttribute('src'), /&snapshot=[0-9a-f]{16}$/, `${id} names its snapshot`);
    await handle.scrollIntoViewIfNeeded();
    const frame = await handle.contentFrame();
    const snap = '#widget > [data-testid=snapshot]';
    await frame.waitForSelector(`${snap} svg.graph [data-node=b1]`, { timeout: 10_000 });
    assert.equal(await frame.getAttribute(snap, 'inert'), '', `${id}: the snapshot takes no clicks or focus`);
    assert.match(await frame.textContent(`${snap} .story`), new RegExp(`Step ${step}`), `${id} snapshot at step ${step}`);
    assert.match(await frame.textContent(`${snap} .story`), caption, `${id} snapshot caption`);
    // The wasm was refused: the picture stays, and says why it does not move.
    await frame.waitForSelector('#widget > [data-testid=load-failed]', { timeout: 10_000 });
    assert.match(await frame.textContent('[data-testid=load-failed]'), /could not be loaded/);
    assert.ok(await frame.isVisible(`${snap} svg.graph`), `${id}: the snapshot stays when the wasm fails`);
  }
  assert.ok(bareFetches.some((f) => /^[0-9a-f]{16}\.html$/.test(f)), `snapshot pages fetched: ${bareFetches}`);
  // In each iframe the picture has arrived before the widget's script is asked for: nothing
  // shares the line with it.
  const frames = [...perFrame.values()].filter((names) => names.includes('embed.html'));
  assert.equal(frames.length, moments.length, 'one iframe per moment');
  for (const names of frames) {
    const snapDone = names.findIndex((f) => /^done:[0-9a-f]{16}\.html$/.test(f));
    const jsAsked = names.indexOf('splitbrain-widget.js');
    assert.ok(snapDone >= 0 && jsAsked > snapDone, `snapshot arrived before the widget's script was asked for: ${names}`);
  }
  // A query edited after its snapshot was made (step 32, the key of step 31): the key no longer
  // fits, so no picture of the wrong moment is drawn; without the wasm, only the note.
  const src31 = await bare.getAttribute('iframe[data-testid=moment-elected]', 'src');
  assert.match(src31, /step=31&/);
  await bare.goto(new URL(src31.replace('step=31&', 'step=32&'), baseUrl + 'blog-sample.html').href, { waitUntil: 'load' });
  await bare.waitForSelector('#widget > [data-testid=load-failed]', { timeout: 10_000 });
  assert.equal(await bare.locator('[data-testid=snapshot]').count(), 0, 'no snapshot for an edited query');
  await bare.close();

  for (const [id, step, total, caption] of moments) {
    const handle = await page.$(`iframe[data-testid=${id}]`);
    await handle.scrollIntoViewIfNeeded();
    const frame = await widgetIn(await handle.contentFrame());
    assert.match(await info(frame), new RegExp(`^step ${step} / ${total}`), `${id} is at step ${step}`);
    assert.match(await frame.textContent('[data-testid=story]'), caption, `${id} caption`);
    // The parent sized the iframe to the height the widget reported.
    await page.waitForFunction((id) => {
      const f = document.querySelector(`iframe[data-testid=${id}]`);
      return f.style.height && Math.abs(f.getBoundingClientRect().height - f.contentDocument.documentElement.scrollHeight) < 40;
    }, id, { timeout: 20_000 });
  }
  const last = await (await page.$('iframe[data-testid=moment-leaderless]')).contentFrame();
  assert.match(await last.textContent('[data-testid=partition-table]'), /-1/);
  assert.match(await last.textContent('[data-testid=partition-table]'), /p3 ★ coordinator of the group⚠ -1 \(none\)\[2\]/);
  await screenshot('1-blog-sample');

  // Keys step only the focused widget.
  const first = await (await page.$('iframe[data-testid=moment-elected]')).contentFrame();
  await first.focus('[data-testid=app-root]');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.match(await info(first), /^step 33 \//);
  const stale = await (await page.$('iframe[data-testid=moment-stale]')).contentFrame();
  assert.match(await info(stale), /^step 447 \//, 'the other widget did not move');

  // "Open in the full playground" carries the run and step.
  const href = await last.getAttribute('[data-testid=open-full]', 'href');
  assert.match(href, /^\.\/index\.html#v3\./);
  const full = await page.context().newPage();
  await full.goto(new URL(href, baseUrl + 'embed.html').href, { waitUntil: 'load' });
  await full.waitForFunction(() => window.splitbrain && window.splitbrain.step() === 635, null, { timeout: 30_000 });
  assert.ok(await full.isVisible('[data-testid=export-bar]'), 'the full playground, not the widget');
  await full.close();

  // The docs page: an iframe and two divs mounted by splitbrain-embed.js. The divs hold snapshots
  // rendered at build time (prerender --embeds): drawn with no script, and the widget's wasm is
  // fetched (by this page, not by the iframe) only when a div comes within a screen of the view.
  const widgetFetches = [];
  page.on('request', (r) => {
    if (r.frame() === page.mainFrame() && /splitbrain-widget/.test(r.url())) widgetFetches.push(r.url());
  });
  await page.setViewportSize({ width: 1280, height: 400 });
  await page.goto(baseUrl + 'docs.html', { waitUntil: 'load' });
  const snap = '[data-testid=docs-div] > [data-testid=snapshot]';
  await page.waitForSelector(`${snap} svg.graph [data-node=b1]`, { timeout: 10_000 });
  assert.equal(await page.getAttribute(snap, 'inert'), '', 'the snapshot takes no clicks or focus');
  assert.match(await page.textContent(`${snap} .story`), /Step 447/, 'the snapshot is the moment the options ask for');
  assert.match(await page.textContent(`[data-testid=docs-div-2] > [data-testid=snapshot] .embed-title`), /controller-moved/);
  const top = await page.$eval('[data-testid=docs-div]', (el) => el.getBoundingClientRect().top);
  assert.ok(top > 2 * 400 + 100, `the first div starts below two screens (${top}px), so it is not near the view`);
  await page.waitForTimeout(1000);
  assert.deepEqual(widgetFetches, [], 'no widget wasm while the snapshots are out of view');
  await page.locator('[data-testid=docs-div]').scrollIntoViewIfNeeded();
  await page.waitForSelector('[data-testid=docs-div] [data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  assert.ok(widgetFetches.some((u) => u.endsWith('.wasm')), `the wasm came when the div came into view: ${widgetFetches}`);
  assert.equal(await page.locator('[data-testid=snapshot]').count(), 0, 'the live widgets replaced both snapshots');
  // A div whose option was edited after its snapshot was made (step 448, the snapshot of 447): the
  // snapshot's key no longer fits, so it is dropped and the widget loads at once, far from view.
  const edited = await page.context().newPage();
  await edited.setViewportSize({ width: 1280, height: 400 });
  await edited.route(/docs\.html$/, async (route) => {
    const body = await (await route.fetch()).text();
    const changed = body.replace('data-testid="docs-div" data-scenario="seed-incident" data-step="447"', 'data-testid="docs-div" data-scenario="seed-incident" data-step="448"');
    assert.notEqual(changed, body, 'the docs div is where the test expects it');
    await route.fulfill({ body: changed, contentType: 'text/html' });
  });
  await edited.goto(baseUrl + 'docs.html', { waitUntil: 'load' });
  await edited.waitForSelector('[data-testid=docs-div] [data-testid=app-root] svg.graph [data-node=b1]', { timeout: 30_000 });
  assert.match(await edited.textContent('[data-testid=docs-div] [data-testid=step-info]'), /^step 448 \//);
  await edited.close();
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.match(await page.textContent('[data-testid=docs-div] [data-testid=step-info]'), /^step 447 \//);
  assert.equal(await page.locator('[data-testid=docs-div] [data-testid=notice]').count(), 0, 'no message about options');
  assert.ok(await page.isVisible('[data-testid=docs-div] [data-testid=controller-diff]'), 'controller panel shown');
  assert.equal(await page.locator('[data-testid=docs-div] [data-testid=partition-table]').count(), 0, 'only the panels asked for');
  // A second div on the same page: its own run (controller-moved, in the 1.1 behaviour it names),
  // keys step only the focused widget, and no element id appears twice in the document.
  const second = '[data-testid=docs-div-2]';
  await page.waitForSelector(`${second} [data-testid=app-root] svg.graph [data-node=b1]`, { timeout: 30_000 });
  const secondInfo = await page.textContent(`${second} [data-testid=step-info]`);
  const [, at, of] = /^step (\d+) \/ (\d+)/.exec(secondInfo);
  assert.equal(at, of, `controller-moved at its end: ${secondInfo}`);
  assert.match(await page.textContent(`${second} .embed-title`), /1\.1/);
  await page.focus(`${second} [data-testid=app-root]`);
  await page.keyboard.press('ArrowLeft');
  assert.match(await page.textContent(`${second} [data-testid=step-info]`), new RegExp(`^step ${at - 1} /`));
  assert.match(await page.textContent('[data-testid=docs-div] [data-testid=step-info]'), /^step 447 \//, 'the other widget did not move');
  const dupIds = await page.evaluate(() => {
    const seen = new Map();
    for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) || 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  });
  assert.deepEqual(dupIds, [], `duplicate ids: ${dupIds}`);
  const docFrame = await widgetIn(await (await page.$('iframe[data-testid=docs-iframe]')).contentFrame());
  assert.match(await info(docFrame), /^step 635 \//);
  await screenshot('2-docs');

  // Bad options: named in a message, widget still starts, nothing inserted as HTML.
  const xss = encodeURIComponent('<img src=x onerror="parent.__pwned=1">');
  await page.goto(
    `${baseUrl}embed.html?scenario=${xss}&step=abc&panels=story,${xss}&height=5&playground=javascript:alert(1)&mode=turbo`,
    { waitUntil: 'load' },
  );
  await widgetIn(page);
  const notice = await page.textContent('[data-testid=notice]');
  for (const needle of ["no built-in scenario '<img", "step 'abc'", "no panel '<img", "height '5'", 'playground URL', 'turbo']) {
    assert.ok(notice.includes(needle), `notice names ${needle}: ${notice}`);
  }
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.locator('img').count(), 0, 'no element from the URL');
  assert.match(await page.getAttribute('[data-testid=open-full]', 'href'), /^\.\/index\.html#v3\./);
  assert.match(await info(page), /^step 0 \//);
  await screenshot('3-bad-options');

  // A broken link option: message, default scenario.
  await page.goto(`${baseUrl}embed.html?link=v1.AAAA`, { waitUntil: 'load' });
  await widgetIn(page);
  assert.match(await page.textContent('[data-testid=notice]'), /This link could not be opened/);
  assert.deepEqual(errors, []);
}
