// "Your logs" (issue 31): the playground's header links to logs.html; the page says that nothing
// leaves the browser, refuses an empty read and a binary file with one message each, then reads
// two brokers' controller.log files (Kafka 1.0.0's own format, given through the file input) in
// its Web Worker and draws the answer. The answer's expectations are structural (data-testid,
// data-kind, data-broker, data-epoch ...): broker 1 stays controller after broker 2 is elected in
// epoch 2 and both select a leader for [t,0], so the real import's timeline has lanes for brokers
// 1 and 2, a band per epoch, and an overlapping_controllers signature. Screenshots: timeline,
// verdicts. The page's own wasm never links the parser: the worker's wasm is fetched only when
// logs are given, and the playground never fetches either.
import { openApp } from './helpers.mjs';
import { readFileSync } from 'node:fs';

const BROKER1 = `[2018-03-10 15:48:30,006] INFO [Controller 1]: 1 successfully elected as the controller (kafka.controller.KafkaController)
[2018-03-10 15:48:30,010] INFO [Controller 1]: Broker 1 starting become controller state transition (kafka.controller.KafkaController)
[2018-03-10 15:49:00,200] INFO [OfflinePartitionLeaderSelector]: Selected new leader and ISR {"leader":1,"leader_epoch":14,"isr":[1]} for offline partition [t,0] (kafka.controller.OfflinePartitionLeaderSelector)
[2018-03-10 15:49:10,512] INFO [Controller 1]: Broker 1 resigning as the controller (kafka.controller.KafkaController)
`;
const BROKER2 = `[2018-03-10 15:48:50,021] INFO [Controller 2]: 2 successfully elected as the controller (kafka.controller.KafkaController)
[2018-03-10 15:48:50,400] INFO [OfflinePartitionLeaderSelector]: Selected new leader and ISR {"leader":2,"leader_epoch":14,"isr":[2]} for offline partition [t,0] (kafka.controller.OfflinePartitionLeaderSelector)
`;

// Lines that name no broker (a selector's own logIdent), pasted.
const ORPHAN = `[2018-03-10 15:48:50,400] INFO [OfflinePartitionLeaderSelector]: Selected new leader and ISR {"leader":2,"leader_epoch":14,"isr":[2]} for offline partition [t,0] (kafka.controller.OfflinePartitionLeaderSelector)
`;

const text = (name, body) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(body) });

export async function run({ page, baseUrl, screenshot, assert, log, consoleErrors, pageErrors }) {
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop()));

  // The playground: a plain, keyboard-reachable link, and none of the logs page's files.
  await openApp(page, baseUrl);
  const link = page.locator('[data-testid=logs-link]');
  assert.equal(await link.getAttribute('href'), 'logs.html');
  await link.focus();
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'logs-link');
  assert.ok(!fetched.some((f) => /splitbrain-logs|import_worker/.test(f)), `the playground fetched ${fetched}`);

  await page.goto(new URL('logs.html', baseUrl).href, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=logs-root]', { timeout: 30_000 });
  assert.match(await page.textContent('[data-testid=privacy]'), /Nothing leaves the browser/);
  assert.ok(!fetched.some((f) => /import_worker/.test(f)), 'the worker is fetched only when logs are given');

  // Bad input: nothing to read, then a binary file. One message each, no crash.
  await page.click('[data-testid=logs-read]');
  await page.waitForSelector('[data-testid=logs-refused]');
  // ... dropped on the drop zone (a DataTransfer drop, as a file manager's drag gives).
  const dt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    d.items.add(new File([new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3])], 'core.bin', { type: 'application/octet-stream' }));
    return d;
  });
  await page.dispatchEvent('[data-testid=drop-zone]', 'dragover', { dataTransfer: dt });
  await page.dispatchEvent('[data-testid=drop-zone]', 'drop', { dataTransfer: dt });
  const note = await page.waitForSelector('[data-testid=file-note]', { timeout: 30_000 });
  assert.match(await note.textContent(), /not a text file/);
  assert.match(await page.textContent('[data-testid=logs-outcome]'), /^Read/, 'the status region says the import is over');
  assert.ok(fetched.includes('import_worker_bg.wasm'), 'the worker wasm was fetched');
  await page.click('[data-testid=logs-clear]');
  await page.waitForSelector('[data-testid=logs-answer]', { state: 'detached' });

  // Two brokers' files, through the file input.
  await page.setInputFiles('[data-testid=logs-file]', [text('kafka-1-controller.log', BROKER1), text('kafka-2-controller.log', BROKER2)]);
  await page.waitForSelector('[data-testid=logs-answer][aria-busy=false]', { timeout: 60_000 });
  assert.equal(await page.locator('[data-testid=file-row]').count(), 2, 'one row per file');
  assert.equal(await page.$('[data-testid=logs-error]'), null, 'no worker failure');

  // Export: the report JSON, downloaded (the only copy that leaves the tab).
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
  assert.equal(dl.suggestedFilename(), 'splitbrain-logs-report.json');
  const exported = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  assert.equal(typeof exported.report.verdict, 'string');

  await page.locator('[data-testid=timeline], [data-testid=timeline-empty]').first().scrollIntoViewIfNeeded();
  await screenshot('timeline');
  await page.locator('[data-testid=fit]').scrollIntoViewIfNeeded();
  await screenshot('verdicts');
  assert.deepEqual(pageErrors, [], 'uncaught exceptions');
  assert.deepEqual(consoleErrors, [], 'console errors');

  // What the real import reads in these lines (the parser is a stub until it lands: then these fail).
  const counts = await page.$$eval('[data-count]', (els) => Object.fromEntries(els.map((e) => [e.dataset.count, Number(e.textContent)])));
  log(`    logs: counts ${JSON.stringify(counts)}`);
  assert.equal(await page.$('[data-testid=nothing-read]'), null, 'the import read no line of the two files (is the parser still a stub?)');
  assert.equal(counts.lines, 6, 'six lines read');
  assert.equal(exported.report.files.length, 2, 'the export lists both files');
  const rows = await page.$$eval('[data-testid=file-row]', (els) => els.map((e) => e.dataset.broker));
  assert.deepEqual(rows, ['1', '2'], 'each file is its broker\'s');

  // A paste whose lines name no broker: the page offers to name it, and reads again with it.
  await page.fill('[data-testid=logs-paste]', ORPHAN);
  await page.click('[data-testid=logs-read]');
  const orphan = '[data-testid=file-row][data-file="2"]';
  await page.waitForSelector(`${orphan} [data-testid=broker-input]`, { timeout: 30_000 });
  await page.fill(`${orphan} [data-testid=broker-input]`, '3');
  await page.press(`${orphan} [data-testid=broker-input]`, 'Tab');
  await page.waitForSelector(`${orphan}[data-broker="3"][data-source=user]`, { timeout: 30_000 });
  await page.fill('[data-testid=logs-paste]', '');
  await page.click('[data-testid=logs-read]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=file-row]').length === 2 && document.querySelector('[data-testid=logs-answer][aria-busy=false]'));

  // The timeline and the signatures (the import's later rooms).
  assert.equal(await page.getAttribute('[data-testid=verdict]', 'data-alarm'), 'true');
  assert.ok(await page.$('[data-testid=signature][data-kind=overlapping_controllers]'), 'an overlapping_controllers signature');
  const lanes = await page.$$eval('[data-testid=lane]', (els) => els.map((e) => e.dataset.broker));
  assert.deepEqual(lanes.filter((b) => b !== 'unknown'), ['1', '2'], 'a lane per broker');
  const bands = await page.$$eval('[data-testid=band]', (els) => els.map((e) => e.dataset.controller));
  assert.ok(bands.includes('1') && bands.includes('2'), `a band per controller epoch: ${bands}`);
  assert.ok(await page.$('[data-testid=timeline] .log-marker[data-kind=elected]'), 'elections are drawn');
  const modes = await page.$$eval('[data-testid=mode-verdict]', (els) => els.map((e) => e.dataset.mode));
  if (modes.length) assert.deepEqual(modes, ['1.0', '1.1', '2.1', 'KRaft'], 'one verdict per behaviour');
  else assert.ok(await page.$('[data-testid=fit-missing]'), 'no verdicts: the fit says what is missing');
}
