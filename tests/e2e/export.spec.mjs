// Exports: make faults in the playground, download each export and check it; the scenario export
// runs in the CLI to the same final state as the page's JSON-lines export, and reopens in the page.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApp, dragAcross } from './helpers.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function save(page, testid, dir) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid=${testid}]`)]);
  const file = path.join(dir, dl.suggestedFilename());
  await dl.saveAs(file);
  return { name: dl.suggestedFilename(), text: readFileSync(file, 'utf8'), file };
}

export async function run({ page, baseUrl, screenshot, assert, log }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'splitbrain-export-'));
  await openApp(page, baseUrl);
  await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
  for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowRight');
  await dragAcross(page, 'zk1-b2', { at: 0.6, halfLength: 20 });
  await page.waitForSelector('[data-link="zk1-b2"][data-state=cut]', { state: 'attached' });
  for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowRight');
  await dragAcross(page, 'zk1-b2', { at: 0.6, halfLength: 20 });
  await page.waitForSelector('[data-link="zk1-b2"][data-state=up]', { state: 'attached' });
  const steps = await page.evaluate(() => window.splitbrain.steps());

  const jsonl = await save(page, 'export-jsonl', dir);
  assert.equal(jsonl.name, 'seed-incident-legacy.jsonl');
  const lines = jsonl.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, steps + 1, 'one line per event plus the final summary');
  assert.ok(lines[30].line.includes('cut'), `step 31 is the cut: ${lines[30].line}`);
  const pageFinal = lines.at(-1).final;
  assert.ok(pageFinal && pageFinal.partitions.length === 50);

  const log4j = await save(page, 'export-log', dir);
  assert.match(log4j.text.split('\n')[0], /^\[2018-03-\d\d \d\d:\d\d:\d\d,\d{3}\] (INFO|WARN|ERROR|DEBUG) /);
  const mmd = await save(page, 'export-mermaid', dir);
  assert.match(mmd.text, /^sequenceDiagram\n/);
  assert.match(mmd.text, /participant b1/);
  const svg = await save(page, 'export-svg', dir);
  assert.match(svg.text, /^<\?xml[^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg.text, /data-node="b1"/);
  assert.match(svg.text, /<style><!\[CDATA\[/);
  // The SVG file is well-formed XML: the browser's parser says so.
  const parseError = await page.evaluate((t) => {
    const d = new DOMParser().parseFromString(t, 'image/svg+xml');
    return d.querySelector('parsererror')?.textContent ?? null;
  }, svg.text);
  assert.equal(parseError, null, 'SVG parses');

  const sc = await save(page, 'export-scenario', dir);
  const scenario = JSON.parse(sc.text);
  assert.equal(scenario.mode, 'legacy');
  assert.deepEqual(scenario.after_steps.map((f) => f.after_step), [30, 56]);
  assert.match(await page.textContent('[data-testid=export-status]'), /Saved seed-incident-legacy-with-faults\.json/);

  // The CLI runs the exported scenario to the same final state.
  const out = execFileSync('cargo', ['run', '-q', '-p', 'splitbrain-cli', '--', 'run', sc.file, '--json'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const cliLines = out.trim().split('\n');
  assert.equal(cliLines.length, lines.length, 'the CLI run has as many steps');
  const cliFinal = JSON.parse(cliLines.at(-1)).final;
  assert.deepEqual({ ...cliFinal, scenario: pageFinal.scenario }, pageFinal, 'same final state in the CLI');
  log(`export spec: CLI replayed ${cliLines.length - 1} steps of the exported scenario to the page's final state`);

  // And the playground reopens it: same number of steps, same end.
  await page.setInputFiles('[data-testid=scenario-file]', { name: sc.name, mimeType: 'application/json', buffer: Buffer.from(sc.text) });
  await page.waitForFunction((n) => window.splitbrain.steps() === n, steps);
  await page.click('[data-testid=step-end]');
  const reopened = await page.evaluate(() => window.splitbrain.view());
  assert.deepEqual(reopened.partitions, pageFinal.partitions);
  await screenshot('reopened');
}
