// End-to-end tests: serve dist/ on 127.0.0.1, drive Debian's Chromium with playwright-core,
// act as a person would, and fail on any console error, failed request or request to
// another host. Screenshots go to e2e/artifacts/ (look at them).
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const artifacts = join(root, 'e2e', 'artifacts');
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
};

function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dist, path.endsWith('/') ? path + 'index.html' : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

const cliText = (args) => {
  const bin = join(root, 'target', 'debug', 'eos-sim');
  return execFileSync(existsSync(bin) ? bin : 'cargo',
    existsSync(bin) ? args : ['run', '--quiet', '-p', 'eos-core', '--bin', 'eos-sim', '--', ...args],
    { cwd: root, encoding: 'utf8' });
};
const cli = (args) => JSON.parse(cliText(args));

const tests = [];
// Tests start in the free playground (the page opens on a lesson) unless `lesson` is set.
// blocked: requests the test itself makes fail (page.route), which are not a problem.
const test = (name, fn, { lesson = false, blocked = null } = {}) => tests.push({ name, fn, lesson, blocked });
const assert = (cond, msg) => { if (!cond) throw new Error(msg); };

const clockText = (page) => page.locator('#clock').innerText();
const stepNumber = async (page) => Number((await clockText(page)).match(/step (\d+)/)?.[1] ?? NaN);
const cells = (page, partition) => page.locator(`.brokers ol.log[data-partition="${partition}"] li.cell`);

test('the default scenario opens, ready to step', async (page) => {
  assert((await page.title()) === 'Exactly-Once Playground', 'page title');
  const picked = await page.locator('#scenario-picker option:checked').innerText();
  assert(picked.includes('Frozen broker'), `default scenario is the frozen broker, got ${picked}`);
  assert((await stepNumber(page)) === 0, 'starts at step 0');
  assert((await page.locator('.brokers li.cell').count()) === 0, 'logs start empty');
  await page.screenshot({ path: join(artifacts, '01-start.png'), fullPage: true });
});

test('a message on the wire moves along its link as time passes', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-cost');
  const positions = () => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.stage .flights li[data-msg]')]
    .map((li) => [li.dataset.msg, Number(li.querySelector('.way .dot').style.left.replace('%', ''))])));
  let before = await positions();
  let moved = null;
  for (let i = 0; i < 80 && !moved; i++) {
    await page.click('#step');
    const now = await positions();
    for (const [id, left] of Object.entries(now)) {
      assert(left >= 0 && left <= 100, `message ${id} on its link: ${left}%`);
      if (id in before && left > before[id]) moved = { id, from: before[id], to: left };
    }
    before = now;
  }
  assert(moved, 'some message moved along its link between two steps');
  await page.locator('.stage .flights').screenshot({ path: join(artifacts, '36-on-the-wire.png') });
});

test('the event log holds the whole run: earlier lines by the page, a step number moves the run there', async (page) => {
  await page.keyboard.press('End');
  const lines = page.locator('#event-log li.event:not(.hint):not(.earlier)');
  const before = await lines.count();
  assert(before === 14, `the latest 14 lines at first (${before})`);
  // The newest line is in the log's box, at its bottom; the box scrolls (it is shorter than
  // the run's narration once earlier lines are added).
  const newestShown = () => page.evaluate(() => {
    const box = document.querySelector('.event-scroll').getBoundingClientRect();
    const last = [...document.querySelectorAll('#event-log li.event')].pop().getBoundingClientRect();
    return last.bottom <= box.bottom + 1 && last.bottom >= box.bottom - 12;
  });
  assert(await newestShown(), 'the log shows its newest line');
  const firstStep = async () => Number((await lines.first().locator('.step').innerText()).slice(1));
  const oldest = await firstStep();
  await page.click('#events-earlier');
  const after = await lines.count();
  assert(after > before, `earlier lines added (${before} → ${after})`);
  assert((await firstStep()) < oldest, 'the first line is now an earlier step');
  while (await page.locator('#events-earlier').count()) await page.click('#events-earlier');
  assert((await firstStep()) === 1, 'every line back to step 1 can be read');
  // The last page's button goes away: the focus moves to the oldest line, not to the body.
  const focused = await page.evaluate(() => document.activeElement?.matches('#event-log li.event:not(.earlier) button.step') && document.activeElement.textContent);
  assert(focused === '#1', `the focus is on the oldest line's step number (${focused})`);
  const scrolls = await page.locator('.event-scroll').evaluate((el) => el.scrollHeight > el.clientHeight + 100);
  assert(scrolls, 'the whole run scrolls inside the log box');
  await page.screenshot({ path: join(artifacts, '50-event-log-whole-run.png'), fullPage: false });
  // A line's step number moves the run to that step; the log then ends there.
  const target = lines.nth(5);
  const step = Number((await target.locator('.step').innerText()).slice(1));
  await target.locator('.step').click();
  assert((await stepNumber(page)) === step, `the run moved to step ${step} (${await stepNumber(page)})`);
  assert((await page.locator('#event-log li.current').count()) >= 1, 'that step is highlighted');
  const last = Number((await lines.last().locator('.step').innerText()).slice(1));
  assert(last === step, `the log ends at the current step (${last})`);
  // One tab stop for the whole log; ↑ moves to the line before.
  assert((await page.locator('#event-log button.step[tabindex="0"]').count()) === 1, 'one tab stop in the event log');
  await page.locator('#event-log button.step[tabindex="0"]').focus();
  const from = await page.evaluate(() => document.activeElement.getAttribute('data-rove'));
  await page.keyboard.press('ArrowUp');
  const to = await page.evaluate(() => document.activeElement.getAttribute('data-rove'));
  assert(from && to && from !== to, `↑ moves inside the log (${from} → ${to})`);
});

test('stepping narrates, freezes the broker, and the log grows', async (page) => {
  for (let i = 0; i < 7; i++) await page.click('#step');
  assert((await stepNumber(page)) === 7, 'seven steps taken');
  const text = await page.locator('#event-log').innerText();
  assert(/freezes for 6\.000 s/.test(text), 'the freeze is narrated');
  assert((await page.locator('section.partition.frozen').count()) === 3, 'all three partitions look frozen');
  await page.screenshot({ path: join(artifacts, '02-frozen.png'), fullPage: true });
  while ((await cells(page, 'events-0').count()) === 0) {
    assert((await stepNumber(page)) < 60, 'the record lands within 60 steps');
    await page.click('#step');
  }
  const log = await page.locator('#event-log').innerText();
  assert(/appends record v0 at offset 0 of events-0/.test(log), 'the append is narrated');
  await page.screenshot({ path: join(artifacts, '03-appended.png'), fullPage: true });
});

test('the finished run agrees with the CLI report', async (page) => {
  await page.click('#run-to-end');
  assert((await clockText(page)).includes('finished'), 'run finished');
  const report = cli(['run', 'seed-frozen-broker', '--json']);
  const d = report.deliveries[0];
  assert((await stepNumber(page)) === report.steps, `steps: UI ${await stepNumber(page)} vs CLI ${report.steps}`);
  assert((await cells(page, 'events-0').count()) === d.copies.length, 'copies in the log');
  const cell = await cells(page, 'events-0').first().innerText();
  assert(cell.includes('v0') && cell.includes('order-42') && cell.includes('pid 0 · e0 · seq 0'), `cell: ${cell}`);
  assert((await page.locator('.brokers li.cell.dup').count()) === report.outcome.duplicates, 'duplicates match');
  await page.screenshot({ path: join(artifacts, '04-finished.png'), fullPage: true });
});

test('step back then forward gives the identical state', async (page) => {
  for (let i = 0; i < 12; i++) await page.click('#step');
  const before = [await clockText(page), await page.locator('main').innerText()];
  await page.click('#step-back');
  assert((await stepNumber(page)) === 11, 'stepped back');
  await page.click('#step');
  const after = [await clockText(page), await page.locator('main').innerText()];
  assert(before[0] === after[0] && before[1] === after[1], 'identical after back and forth');
});

test('the keyboard steps, steps back and resets', async (page) => {
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert((await stepNumber(page)) === 3, 'ArrowRight steps');
  await page.keyboard.press('ArrowLeft');
  assert((await stepNumber(page)) === 2, 'ArrowLeft steps back');
  await page.keyboard.press('End');
  assert((await clockText(page)).includes('finished'), 'End runs to the end');
  await page.keyboard.press('Home');
  assert((await stepNumber(page)) === 0, 'Home resets');
});

test('the keyboard presses what has the focus; Escape closes the Share menu and the inspector, giving the focus back', async (page) => {
  // The first Tab reaches the skip links; one leads to the diagram, past the stage.
  await page.reload();
  await page.waitForSelector('#skip-controls', { state: 'attached' });
  await page.keyboard.press('Tab');
  const first = await page.evaluate(() => document.activeElement.id || document.activeElement.tagName);
  assert(first === 'skip-controls', `the first Tab is a skip link: ${first}`);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert(await page.evaluate(() => document.activeElement.id === 'diagram'), 'Skip to the diagram');
  // Space on a focused button is that button, not play/pause.
  await page.focus('#step');
  await page.keyboard.press(' ');
  assert((await stepNumber(page)) === 1 && (await page.locator('#play').innerText()).includes('Play'), 'Space on Step steps');
  // Alt+← is the browser's Back, not a step back.
  await page.keyboard.press('Alt+ArrowLeft');
  assert((await stepNumber(page)) === 1, 'Alt+← is left to the browser');
  await page.focus('#share-menu summary');
  await page.keyboard.press('Enter');
  assert((await page.locator('#share-menu').getAttribute('open')) !== null, 'Enter opens Share');
  await page.keyboard.press('Escape');
  assert((await page.locator('#share-menu').getAttribute('open')) === null, 'Escape closes Share');
  assert(await page.evaluate(() => document.activeElement.matches('#share-menu summary')), 'the focus is back on Share');
  // A record opened with Space; Escape closes the inspector and the focus goes back to it.
  await page.keyboard.press('End');
  const cell = page.locator('.cell[role=button]').first();
  await cell.focus();
  await page.keyboard.press(' ');
  await page.locator('#inspector').waitFor();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('#inspector'));
  assert(await page.evaluate(() => document.activeElement.matches('.cell[role=button]')), 'the focus is back on the record');
  // Closed by something else (another scenario picked), it leaves the focus where it is.
  await page.locator('.cell[role=button]').first().click();
  await page.locator('#inspector').waitFor();
  await page.focus('#scenario-picker');
  await page.selectOption('#scenario-picker', 'seed-commit-abort');
  await page.waitForFunction(() => !document.querySelector('#inspector'));
  assert(await page.evaluate(() => document.activeElement.id === 'scenario-picker'), 'the focus stays on the picker');
});

test('a log, the diagram and a compare column are one tab stop each; ↑/↓ move inside, ←/→ still step', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-exactly-once');
  await page.locator('#compare-table').waitFor();
  await page.focus('#step');
  await page.keyboard.press('End');
  const stops = (sel) => page.evaluate((sel) => document.querySelectorAll(`${sel} [data-rove][tabindex="0"]`).length, sel);
  const items = (sel) => page.evaluate((sel) => document.querySelectorAll(`${sel} [data-rove]`).length, sel);
  assert((await items('#space-time')) > 5 && (await stops('#space-time')) === 1, 'the diagram: many arrows, one tab stop');
  const logs = await page.evaluate(() => [...document.querySelectorAll('ol.log')]
    .filter((ol) => ol.querySelector('[data-rove]'))
    .map((ol) => ol.querySelectorAll('[data-rove][tabindex="0"]').length));
  assert(logs.length > 0 && logs.every((n) => n === 1), `one tab stop per log: ${logs}`);
  // ↓ moves to the next cell of the same log, and that cell becomes the log's tab stop.
  const first = page.locator('ol.log [data-rove][tabindex="0"]').first();
  await first.focus();
  const [offset, log, broker] = await page.evaluate(() => [document.activeElement.dataset.rove, document.activeElement.closest('ol').dataset.partition, document.activeElement.closest('ol').dataset.broker]);
  const step = await stepNumber(page);
  await page.keyboard.press('ArrowDown');
  const moved = await page.evaluate(() => [document.activeElement.dataset.rove, document.activeElement.closest('ol')?.dataset.partition, document.activeElement.getAttribute('tabindex')]);
  assert(moved[0] !== offset && moved[1] === log && moved[2] === '0', `↓ moves inside the log: ${offset} → ${moved}`);
  await page.keyboard.press('ArrowUp');
  assert(await page.evaluate((o) => document.activeElement.dataset.rove === o, offset), '↑ comes back');
  assert((await stepNumber(page)) === step, '↑/↓ do not step the run');
  // At a log's last cell ↓ stays there: it does not run on into the next log.
  const last = page.locator(`ol.log[data-partition="${log}"][data-broker="${broker}"] [data-rove]`).last();
  await last.focus();
  const lastKey = await last.getAttribute('data-rove');
  await page.keyboard.press('ArrowDown');
  assert(await page.evaluate(([l, k]) => document.activeElement.closest('ol')?.dataset.partition === l && document.activeElement.dataset.rove === k, [log, lastKey]), '↓ at the last cell stays on it');
  await first.focus();
  // Tab leaves the log at once: the next stop is outside it.
  await page.keyboard.press('Tab');
  assert(await page.evaluate((l) => document.activeElement.closest('ol')?.dataset.partition !== l, log), 'Tab leaves the log');
  // The diagram: ↓ from its stop is another arrow; ← still steps back.
  await page.locator('#space-time [data-rove][tabindex="0"]').focus();
  const arrow = await page.evaluate(() => document.activeElement.dataset.rove);
  await page.keyboard.press('ArrowUp');
  assert(await page.evaluate((a) => document.activeElement.closest('#space-time') && document.activeElement.dataset.rove !== a, arrow), '↑ moves to another arrow');
  await page.keyboard.press('ArrowLeft');
  assert((await stepNumber(page)) === step - 1, '← still steps back with the focus on an arrow');
  // The compare table: one stop per guarantee's column.
  await page.locator('#compare-table').scrollIntoViewIfNeeded();
  assert((await stops('#compare-table')) === 3, 'a tab stop per column of the compare table');
  await page.locator('#compare-table [data-rove][tabindex="0"]').first().focus();
  const lane = await page.evaluate(() => document.activeElement.dataset.rove.split(':')[0]);
  await page.keyboard.press('ArrowDown');
  const down = await page.evaluate(() => document.activeElement.dataset.rove);
  assert(down.startsWith(lane + ':'), `↓ stays in its column: ${down}`);
  // The three columns' stops share the row: Tab goes to the next column on that row.
  await page.keyboard.press('Tab');
  const next = await page.evaluate(() => document.activeElement.dataset.rove ?? '');
  assert(!next.startsWith(lane + ':') && next.split(':')[1] === down.split(':')[1], `Tab goes to the next column, same row: ${down} → ${next}`);
  // A message on the wire that arrives takes the focus with it: it goes to the list's next
  // message or to the message's arrow, never to the page's body.
  await page.keyboard.press('Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  const wire = page.locator('.flights [data-rove][tabindex="0"]');
  assert((await wire.count()) === 1, 'a message on the wire at step 3');
  await wire.focus();
  const msg = await wire.getAttribute('data-msg');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert(await page.evaluate((m) => !document.querySelector(`.flights [data-msg="${m}"]`), msg), 'the message has arrived');
  assert(await page.evaluate(() => document.activeElement !== document.body && document.activeElement.isConnected), 'the focus stays on the page when its message arrives');
});

test('the diagram fills its card early in a run, and keeps a focused arrow in view as the run grows', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-exactly-once');
  await page.focus('#step');
  await page.keyboard.press('Home');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
  // Few moments (enough to fill at up to 170 px a column): the columns spread, so the drawing reaches the frame's right end (within
  // the room left for a scroll bar) instead of stopping half way.
  const fill = await page.evaluate(() => {
    const box = document.querySelector('.space-time-scroll').getBoundingClientRect();
    const svg = document.querySelector('#space-time').getBoundingClientRect();
    return [box.right - svg.right, box.width];
  });
  assert(fill[0] >= -1 && fill[0] <= 40, `the drawing ends at the frame's right end: ${fill[0]} px short of ${fill[1]}`);
  // An arrow with the focus stays in the box's view while the run grows past it.
  await page.locator('#space-time [data-rove][tabindex="0"]').focus();
  const key = await page.evaluate(() => document.activeElement.dataset.rove);
  for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowRight');
  const seen = await page.evaluate((k) => {
    const a = document.activeElement, box = document.querySelector('.space-time-scroll');
    if (a?.dataset.rove !== k) return `the focus moved to ${a?.dataset.rove}`;
    const [r, b] = [a.getBoundingClientRect(), box.getBoundingClientRect()];
    return r.right > b.left && r.right <= b.right ? 'ok' : `off view: ${r.left}–${r.right} in ${b.left}–${b.right}`;
  }, key);
  assert(seen === 'ok', `the focused arrow is in view: ${seen}`);
  assert(await page.locator('#space-time-now').isVisible(), '"Back to now" is offered');
  await page.click('#space-time-now');
  assert(await page.evaluate(() => document.querySelector('.space-time-scroll').scrollLeft === 0), 'back at now');
  assert(await page.evaluate(() => document.activeElement?.id === 'diagram'), 'the focus goes to the diagram, not the page\'s body');
});

test('the theme button forces light or dark over the system\'s, and a reload keeps it', async (page) => {
  const theme = () => page.evaluate(() => [document.documentElement.dataset.theme, getComputedStyle(document.body).backgroundColor]);
  // The system's theme, followed as it changes.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 5000 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light', null, { timeout: 5000 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 5000 });
  await page.click('#theme');
  assert((await theme()).join() === 'light,rgb(245, 247, 250)', `light: ${await theme()}`);
  await page.reload();
  await page.waitForSelector('#theme');
  assert((await theme())[0] === 'light', 'a reload keeps the choice');
  await page.click('#theme');
  assert((await theme())[0] === 'dark', 'then dark');
  await page.click('#theme');
  const label = () => page.locator('#theme').getAttribute('aria-label');
  // The label names what the next click chooses, in the cycle's order.
  assert((await theme())[0] === 'dark' && (await label()) === 'Theme: as the system\'s (click for light)', `then the system's again: ${await label()}`);
  // On a light system the first click shows dark: every click changes what is seen.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light', null, { timeout: 5000 });
  await page.click('#theme');
  assert((await theme())[0] === 'dark', 'a light system: auto, then dark');
  await page.click('#theme');
  assert((await theme())[0] === 'light' && (await label()) === 'Theme: light (click for the system\'s)', `then light, chosen: ${await label()}`);
  await page.click('#theme');
  assert((await theme())[0] === 'light' && (await label()) === 'Theme: as the system\'s (click for dark)', `then the system's: ${await label()}`);
});

test('a lost ack without idempotence shows a duplicate', async (page) => {
  await page.selectOption('#scenario-picker', 'lost-ack-idempotence-off');
  // Mid-run the oracle counts what it can already tell; a loss is known at the end.
  for (let i = 0; i < 4; i++) await page.click('#step');
  const mid = await page.locator('#outcome-bar').innerText();
  assert(/at this step/i.test(mid) && mid.includes('lost: known at the end') && mid.includes('duplicates: 0'), `mid-run: ${mid}`);
  await page.click('#run-to-end');
  const end = await page.locator('#outcome-bar').innerText();
  assert(/verdict/i.test(end) && end.includes('duplicates: 3') && end.includes('lost: 0'), `the verdict: ${end}`);
  const report = cli(['run', 'lost-ack-idempotence-off', '--json']);
  assert(report.outcome.duplicates === 3, 'CLI sees three duplicates (the stuck acks of v1 and v2 too)');
  assert((await page.locator('.brokers li.cell.dup').count()) === 3, 'three cells marked DUPLICATE');
  assert((await cells(page, 'payments-0').count()) === 6, 'six records in the log');
  await page.screenshot({ path: join(artifacts, '05-duplicate.png'), fullPage: true });
  // A deposed leader's extra copies, above its high watermark, are a zombie's: nobody reads
  // them and the oracle counts none, so they are tagged, not alarmed as duplicates.
  await page.goto(url + '?s=paused-leader-fenced-loss&step=41', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  const zombies = page.locator('.brokers li.cell.zombie[data-tag="ZOMBIE"]');
  assert((await zombies.count()) >= 2 && (await page.locator('.brokers li.cell.dup').count()) === 0, 'zombie copies, no DUPLICATE');
  assert((await zombies.first().getAttribute('title')).includes("only in the deposed leader's log"), 'its tooltip says why');
  assert((await page.locator('#outcome-bar').innerText()).includes('duplicates: 0'), 'the oracle counts none');
  // An input at-most-once has moved past with no output is lost already: the oracle's bar
  // says so mid-run, as the three lanes do, not "known at the end".
  await page.goto(url + '?s=rpw-crash-at-most-once&step=120', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  const lostSoFar = await page.locator('#outcome-lost').innerText();
  assert(/lost: 1 so far/.test(lostSoFar), `the bar mid-run: ${lostSoFar}`);
});

test('the stage shows countdown rings, a lost ack fading under a cross, and a recognised duplicate flashing', async (page) => {
  await page.selectOption('#scenario-picker', 'lost-ack-idempotence-on');
  // Steps with → until `selector` is on screen (at most `limit` steps).
  const stepUntil = async (selector, limit = 200) => {
    for (let i = 0; i < limit && (await page.locator(selector).count()) === 0; i++) {
      await page.keyboard.press('ArrowRight');
    }
    assert((await page.locator(selector).count()) > 0, `${selector} appears`);
  };
  await stepUntil('article.producer .timer.request');
  const ring = await page.locator('article.producer .timer.request').first().getAttribute('title');
  assert(ring.includes('request.timeout.ms'), `the ring says what it counts down: ${ring}`);
  await stepUntil('.stage .flights li.lost');
  const lost = await page.locator('.stage .flights li.lost').innerText();
  assert(/ack for payments-0/.test(lost) && /lost/.test(lost), `the lost ack is listed: ${lost}`);
  assert((await page.locator('.stage .flights li.lost .cross').count()) === 1, 'under a cross');
  await page.locator('.stage .flights').screenshot({ path: join(artifacts, '39-lost-ack-cross.png') });
  await stepUntil('article.producer .timer.backoff, .partition.dedup-flash');
  await stepUntil('.partition.dedup-flash');
  const flash = await page.locator('.partition.dedup-flash .flash').innerText();
  assert(/duplicate recognised: seq \d+(–\d+)? is already at offset \d+/.test(flash), `the flash says why: ${flash}`);
  await page.screenshot({ path: join(artifacts, '40-dedup-flash.png'), fullPage: false });
  await page.keyboard.press('ArrowRight');
  // The retries of v1 and v2 (stuck behind the lost ack) are recognised at the next steps:
  // each flash says its own sequence, and none outlives its step.
  await page.waitForFunction((prev) => document.querySelector('.partition.dedup-flash .flash')?.innerText !== prev, flash);
  for (let i = 0; i < 6 && (await page.locator('.partition.dedup-flash').count()) > 0; i++) {
    await page.keyboard.press('ArrowRight');
  }
  await page.waitForFunction(() => !document.querySelector('.partition.dedup-flash'));
});

test('scrub bar, jumps between notable events, and playback speed', async (page) => {
  await page.keyboard.press('Shift+ArrowRight');
  const first = await stepNumber(page);
  assert(first > 0, 'Shift+→ jumps forward');
  const tone = await page.locator('#event-log li.current').first().getAttribute('class');
  assert(/retry|dedup|dup|reject|loss|freeze|ok|commit|abort/.test(tone), `lands on a notable event: ${tone}`);
  await page.click('#next-event');
  const second = await stepNumber(page);
  assert(second > first, 'next event moves on');
  await page.click('#prev-event');
  assert((await stepNumber(page)) === first, 'previous event comes back');
  const report = cli(['run', 'seed-frozen-broker', '--json']);
  const max = Number(await page.locator('#scrub').getAttribute('max'));
  assert(max === report.steps, `scrub spans the run: ${max} vs ${report.steps}`);
  const seek = async (n) => page.locator('#scrub').evaluate((el, v) => {
    el.value = String(v); el.dispatchEvent(new Event('input', { bubbles: true }));
  }, n);
  await seek(max);
  assert((await stepNumber(page)) === max && (await clockText(page)).includes('finished'), 'scrubbed to the end');
  await seek(5);
  assert((await stepNumber(page)) === 5, 'scrubbed back to step 5');
  // 27 steps remain: at 1× they take about 9.5 s, at 16× about 0.6 s. Allow 5 s.
  await page.selectOption('#speed', '64');
  const started = Date.now();
  await page.click('#play');
  await page.waitForFunction(() => document.querySelector('#clock')?.textContent?.includes('finished'), null, { timeout: 5000 });
  assert(Date.now() - started < 5000, '16× playback reaches the end well before 1× could');
  await page.screenshot({ path: join(artifacts, '08-controls.png'), fullPage: false });
});

test('a playback button that its own press disables hands the focus on, in sight', async (page) => {
  await page.click('#step');
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  await page.focus('#run-to-end');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#run-to-end').disabled);
  await page.waitForTimeout(50);
  assert((await focused()) === 'step-back', `after End, the focus is on Back: ${await focused()}`);
  await page.focus('#reset');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#reset').disabled);
  await page.waitForTimeout(50);
  assert((await focused()) === 'step', `after Reset, the focus is on Step: ${await focused()}`);
  // A press that leaves its button enabled keeps the focus where it was.
  await page.keyboard.press('Enter');
  await page.waitForTimeout(50);
  assert((await focused()) === 'step', `Step keeps it: ${await focused()}`);
});

test('the only broker crashed for good under a processor: every lane ends, and the table says why it is empty', async (page) => {
  await page.goto(url + '?s=rpw-crash-exactly-once&seed=1&step=60', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  await page.selectOption('#fault-target', 'broker-0');
  await page.click('#fault-crash');
  await page.click('#run-to-end');
  await page.waitForFunction(() => /finished/.test(document.querySelector('#clock')?.textContent || ''), null, { timeout: 20000 });
  // The restarted processor, hearing nothing from its group coordinator, stops: no lane runs
  // to its step limit.
  const offline = page.locator('#compare-offline');
  await offline.waitFor({ timeout: 20000 });
  assert(/orders-0, invoices-0/.test(await offline.innerText()), `the partitions without a leader: ${await offline.innerText()}`);
  assert(!/step limit/.test(await page.locator('body').innerText()), 'no lane stopped at its step limit');
  const oracle = await page.locator('.brokers').innerText();
  assert(/lost: 6/.test(oracle), `the oracle: ${oracle.slice(0, 200)}`);
  await offline.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '09b-only-broker-down.png'), fullPage: false });
});

test('a fault by click joins the schedule and changes only the future', async (page) => {
  for (let i = 0; i < 3; i++) await page.click('#step');
  const before = await page.locator('#event-log').innerText();
  await page.selectOption('#fault-target', 'broker-0');
  await page.click('#fault-crash');
  assert((await stepNumber(page)) === 3, 'still at step 3');
  assert((await page.locator('#event-log').innerText()) === before, 'the past is unchanged');
  const schedule = await page.locator('#fault-schedule').innerText();
  assert(/crash broker 0/.test(schedule) && /freeze broker 0/.test(schedule), `schedule: ${schedule}`);
  assert((await page.locator('.faults .injected').innerText()).includes('+1'), 'marked as added by click');
  await page.click('#run-to-end');
  const reader = await page.locator('article.consumer').innerText();
  assert(reader.includes('nothing read yet'), `with broker 0 down the reader reads nothing: ${reader}`);
  assert((await page.locator('section.partition.crashed').count()) === 3, 'the broker looks crashed');
  // A process that is down can be restarted, not crashed or frozen again.
  assert(await page.locator('#fault-crash').isDisabled() && await page.locator('#fault-freeze').isDisabled(), 'no crash of a crashed broker');
  assert(await page.locator('#fault-restart').isEnabled(), 'it can be restarted');
  await page.selectOption('#fault-target', { index: 1 });
  assert(await page.locator('#fault-crash').isEnabled() && await page.locator('#fault-restart').isDisabled(), 'a running process: crash, not restart');
  await page.screenshot({ path: join(artifacts, '09-fault-by-click.png'), fullPage: true });
  // A second press of the same fault at the same moment adds nothing; a fault added by
  // click comes out again, and the run is the one before it.
  const toEnd = async () => { if (await page.locator('#run-to-end').isEnabled()) await page.click('#run-to-end'); };
  await page.click('#remove-fault-0');
  assert((await page.locator('#added-faults').count()) === 0 && (await page.locator('.faults .injected').count()) === 0, 'none added by click now');
  await toEnd();
  const untouched = await traceHash(page);
  await page.click('#reset');
  await page.click('#step');
  await page.selectOption('#fault-target', 'broker-0');
  await page.click('#fault-crash');
  await page.click('#fault-crash');
  assert((await page.locator('#added-faults li').count()) === 1, 'the crash, once');
  assert(/already in the fault schedule/.test(await page.locator('.error[role=alert]').innerText()), 'the second press says why');
  assert(/already in the fault schedule/.test(await page.locator('.faults .field-error').innerText()), 'where it was pressed too');
  assert(/\bat \d+ ms: crash broker 0\b/.test(await page.locator('#added-faults').innerText()), 'named as the schedule names it');
  await toEnd();
  assert((await traceHash(page)) !== untouched, 'the crash changed the run');
  await page.click('#remove-fault-0');
  assert((await page.locator('#added-faults').count()) === 0, 'taken out');
  // The focus goes to the schedule's title, not to the process picker, where End would
  // pick the last process instead of running to the end.
  await page.waitForFunction(() => document.activeElement?.id === 'fault-schedule-title', null, { timeout: 3000 });
  const picked = await page.locator('#fault-target').inputValue();
  await page.keyboard.press('End');
  assert((await page.locator('#fault-target').inputValue()) === picked, 'End left the picker alone');
  await toEnd();
  assert((await traceHash(page)) === untouched, 'the run as before the faults');
});

test('while playing, parts out of view wait, and catch up on pause or when scrolled to', async (page) => {
  await page.setViewportSize({ width: 1280, height: 400 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const clock = () => page.locator('#clock').innerText();
  const nowLabel = () => page.locator('#space-time .now-label:not(.narrow)').textContent();
  const time = (text) => text.match(/· ([\d.]+ m?s)/)?.[1];
  assert(time(await nowLabel()) === time(await clock()), 'in step before playing');
  await page.click('#play');
  await page.waitForFunction(() => /step ([6-9]|\d\d)/.test(document.querySelector('#clock').textContent), null, { timeout: 20000 });
  const playing = await clock();
  assert(time(await nowLabel()) !== time(playing), `the diagram, off screen, waits: ${await nowLabel()} vs ${playing}`);
  // Scrolled to while playing: it catches up.
  await page.locator('#space-time').evaluate((el) => el.scrollIntoView());
  await page.waitForFunction(() => {
    const t = (s) => s.match(/· ([\d.]+ m?s)/)?.[1];
    return t(document.querySelector('#space-time .now-label:not(.narrow)').textContent) === t(document.querySelector('#clock').textContent);
  }, null, { timeout: 5000 });
  await page.click('#play');
  // Paused: everything shows the step on screen, off screen too.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(300);
  assert(time(await nowLabel()) === time(await clock()), `paused, the diagram is in step: ${await nowLabel()} vs ${await clock()}`);
});

test('the space-time diagram draws messages; clicking an arrow opens it in the inspector', async (page) => {
  for (let i = 0; i < 8; i++) await page.click('#step');
  const diagram = page.locator('#space-time');
  await diagram.scrollIntoViewIfNeeded();
  const delivered = diagram.locator('g.arrow:not(.wire)');
  assert((await delivered.count()) >= 3, `arrows for delivered messages: ${await delivered.count()}`);
  assert((await diagram.locator('.freeze-band').count()) === 1, 'the freeze is a band on the broker lane');
  const lanes = await diagram.locator('.lane-label').evaluateAll((ts) => ts.map((t) => t.textContent).join('|'));
  assert(lanes === 'producer app|broker 0|consumer reader', `one lane per process: ${lanes}`);
  await delivered.first().click();
  const inspector = page.locator('#inspector');
  await inspector.waitFor();
  const text = await inspector.innerText();
  assert(/Message #\d+: init producer id/.test(text), `inspector title: ${text}`);
  assert(text.includes('app') && text.includes('broker 0') && text.includes('delivered'), `message details: ${text}`);
  await page.screenshot({ path: join(artifacts, '11-space-time-inspector.png'), fullPage: false });
  await page.keyboard.press('Escape');
  assert((await inspector.count()) === 0, 'Esc closes the inspector');
  // Keyboard: focus an arrow and press Enter.
  await delivered.nth(1).focus();
  await page.keyboard.press('Enter');
  await inspector.waitFor();
  assert((await inspector.innerText()).includes('Message #'), 'Enter opens the focused arrow');
  await page.click('#inspector-close');
  assert((await inspector.count()) === 0, 'the close button closes it');
  // A lane's name takes a click anywhere across the names' pane and most of the lane's
  // height, not only on its letters: a finger finds it.
  const name = page.locator('.lane-labels .lane-label').nth(1);
  const box = await name.boundingBox();
  assert(box.height >= 40, `a lane name's target is ${box.height} px high`);
  await page.mouse.click(box.x + box.width - 4, box.y + 3);
  await inspector.waitFor();
  assert((await page.locator('#inspector-title').innerText()) === 'Broker 0', 'the lane name opens its process');
  await page.click('#inspector-close');
});

test('the inspector opens away from what was clicked', async (page) => {
  // The newest arrow is at the right end of the diagram, where the panel used to open.
  await page.goto(url + '?s=rpw-crash-at-least-once', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  await page.keyboard.press('End');
  const diagram = page.locator('#space-time');
  await diagram.scrollIntoViewIfNeeded();
  const newest = diagram.locator('g.arrow:not(.wire)').last();
  await newest.click();
  const inspector = page.locator('#inspector');
  await page.waitForFunction(() => document.querySelector('#inspector')?.dataset.dock);
  const [a, b] = [await newest.locator('.shaft').boundingBox(), await inspector.boundingBox()];
  const overlaps = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  assert(!overlaps && (await inspector.getAttribute('data-dock')) === 'left', `arrow ${JSON.stringify(a)}, panel ${JSON.stringify(b)}`);
  // A delivered message says what it carried, as one on the wire does.
  const rows = await inspector.locator('dl.rows').innerText();
  assert(/content/.test(rows) && /delivered/.test(rows), `a delivered message's content: ${rows}`);
  // Something on the left (the producer card) keeps the panel on the right.
  await page.keyboard.press('Escape');
  await page.locator('article.producer').first().click();
  await page.waitForFunction(() => document.querySelector('#inspector')?.dataset.dock === 'right');
  // Folded to its title, it leaves what was under it to be seen and clicked; something new
  // opens unfolded.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('#controls').scrollIntoViewIfNeeded();
  const tall = (await inspector.boundingBox()).height;
  await page.click('#inspector-fold');
  assert((await page.locator('#inspector-fold').getAttribute('aria-expanded')) === 'false', 'the fold button says folded');
  const folded = await inspector.boundingBox();
  assert(folded.height < 80 && folded.height < tall, `folded to its title: ${folded.height} px (was ${tall})`);
  assert((await inspector.locator('dl.rows').isHidden()), 'its rows are hidden');
  await page.screenshot({ path: join(artifacts, '12b-inspector-folded.png'), fullPage: false });
  await page.click('#inspector-fold');
  assert((await inspector.boundingBox()).height === tall, 'unfolded to its full height');
  await page.click('#inspector-fold');
  await page.locator('#space-time g.arrow:not(.wire)').last().click();
  await page.waitForFunction(() => !document.querySelector('#inspector')?.classList.contains('folded'));
});

test('the keyboard never works under the inspector: the panel moves away from what takes the focus', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + '?s=rpw-crash-exactly-once&step=40', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  await page.locator('article.producer').first().click();
  await page.waitForFunction(() => document.querySelector('#inspector')?.dataset.dock === 'right');
  // A log cell on screen under the panel (the panel docks right of the producer card).
  const found = await page.evaluate(() => {
    const panel = document.querySelector('#inspector');
    const p = panel.getBoundingClientRect();
    const under = [...document.querySelectorAll('li.cell')].find((e) => {
      const r = e.getBoundingClientRect();
      return e.checkVisibility() && r.top >= 0 && r.bottom <= innerHeight
        && !(r.right <= p.left || r.left >= p.right || r.bottom <= p.top || r.top >= p.bottom);
    });
    if (!under) return false;
    under.focus();
    return document.activeElement === under;
  });
  assert(found, 'a focusable log cell under the panel at 1280×720');
  await page.waitForFunction(() => {
    const p = document.querySelector('#inspector').getBoundingClientRect();
    const r = document.activeElement.getBoundingClientRect();
    return r.right <= p.left || r.left >= p.right || r.bottom <= p.top || r.top >= p.bottom;
  }, null, { timeout: 3000 }).catch(() => { throw new Error('the focused cell is still under the panel'); });
  assert((await page.locator('#inspector').getAttribute('data-dock')) === 'left', 'the panel went to the other corner');
});

test('Tab from the inspector goes on after what opened it, Shift+Tab back to it', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + '?s=rpw-crash-exactly-once', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  const cards = page.locator('article.card:is(.producer, .processor)');
  await cards.first().focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('#inspector');
  await page.focus('#inspector-close');
  await page.keyboard.press('Tab');
  const next = await page.evaluate(() => document.activeElement?.closest('article')?.dataset.spot ?? document.activeElement?.id);
  const second = await cards.nth(1).getAttribute('data-spot');
  assert(next === second, `Tab from the panel's last button goes to the card after the opener: ${next} (want ${second})`);
  await page.focus('#inspector-fold');
  await page.keyboard.press('Shift+Tab');
  assert(await page.evaluate(() => document.activeElement?.matches('article.producer')), 'Shift+Tab from its first button goes back to the opener');
  // And Tab from the opener goes into the panel, as into a popover, not past it.
  await page.keyboard.press('Tab');
  const into = await page.evaluate(() => document.activeElement?.id);
  assert(into === 'inspector-fold', `Tab from the opener goes to the panel's first button (${into})`);
});

test('at the end the oracle names each loss with the step that settles it', async (page) => {
  await page.goto(url + '?s=unclean-election-loss', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  assert((await page.locator('#outcome-named').count()) === 0, 'nothing named before the end');
  await page.keyboard.press('End');
  const named = page.locator('#outcome-named li');
  await named.first().waitFor();
  const report = cli(['run', 'unclean-election-loss', '--json']);
  const lost = report.anomalies.filter((a) => a.kind === 'lost-write');
  assert((await named.count()) === lost.length, `one line per loss: ${await named.allInnerTexts()}`);
  assert((await named.first().innerText()).includes(lost[0].detail), `the oracle's words: ${await named.first().innerText()}`);
  const settled = lost[0].events[lost[0].events.length - 1];
  await named.first().locator('button.step').click();
  assert((await stepNumber(page)) === settled, `its step button goes to step ${settled}: ${await stepNumber(page)}`);
});

test('a cut link is a band on both lanes, and the role lines say the follower is cut off and out of sync', async (page) => {
  await page.goto(url + '?s=network-partition-isr-shrink&step=7', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  assert((await page.locator('#space-time .cut-band').count()) === 2, 'a band on broker 0\'s lane and on broker 1\'s');
  const roles = await page.locator('.partition-role').allInnerTexts();
  assert(roles[0].includes('ISR 0') && !roles[0].includes('ISR 0, 1'), `the leader's ISR shrank: ${roles}`);
  assert(roles[1].includes('out of sync, cut off'), `the follower: ${roles}`);
  assert((await page.locator('.partition-role.warn').count()) === 2, 'both lines stand out');
  // After the heal and the rejoin, nothing stands out, and the band has closed.
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelectorAll('.partition-role.warn').length === 0);
  const report = cli(['run', 'network-partition-isr-shrink', '--json']);
  assert(report.outcome.lost === 0 && report.reads.reader.records === 2, 'the CLI agrees: nothing lost, two read');
  // Broker 1's story: out of the ISR, back in; each entry goes to its step.
  await page.locator('.lane-labels .lane-label').nth(2).click();
  const links = page.locator('#inspector .step-link');
  await links.first().waitFor();
  const told = await links.allInnerTexts();
  assert(told.length === 2 && told[0].includes('out of the ISR') && told[1].includes('back in the ISR'), `the story: ${told}`);
  const shrunk = Number(told[0].match(/^#(\d+)/)[1]);
  await links.first().click();
  assert((await stepNumber(page)) === shrunk, `the story's first entry goes to step ${shrunk} (${await stepNumber(page)})`);
  // The entry of the step jumped to is marked; the rest of the story stays, marked as later
  // in the run, and goes forward to its step.
  assert((await links.first().getAttribute('aria-current')) === 'step', 'the entry at the current step is marked');
  assert((await links.count()) === 2, 'the story keeps its later entry');
  const later = page.locator('#inspector .step-link.later');
  assert((await later.count()) === 1 && (await later.innerText()).includes('back in the ISR'), `later: ${await later.allInnerTexts()}`);
  assert((await later.getAttribute('aria-label')).startsWith('later in this run: '), 'a screen reader hears it is later');
  await page.screenshot({ path: join(artifacts, '45-story-later.png'), fullPage: false });
  const back = Number(told[1].match(/^#(\d+)/)[1]);
  await later.click();
  assert((await stepNumber(page)) === back, `the later entry goes to step ${back} (${await stepNumber(page)})`);
  assert((await page.locator('#inspector .step-link.later').count()) === 0, 'there, nothing is later');
});

test('on a phone the inspector opens clear of the playback bar and of what was clicked', async (page) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(url + '?s=seed-frozen-broker', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  await page.keyboard.press('End');
  // The record low on the screen (the panel then opens at the top), the bar stuck at the top.
  const cell = page.locator('.brokers li.cell').first();
  await cell.scrollIntoViewIfNeeded();
  const top = (await cell.boundingBox()).y;
  await page.evaluate((dy) => window.scrollBy(0, dy), top - 620);
  await page.waitForTimeout(100);
  await cell.click();
  const inspector = page.locator('#inspector');
  await page.waitForFunction(() => document.querySelector('#inspector')?.dataset.dock);
  assert((await inspector.getAttribute('data-dock')) === 'top', 'a record low on the screen docks the panel at the top');
  const [bar, panel, c] = [await page.locator('#controls').boundingBox(), await inspector.boundingBox(), await cell.boundingBox()];
  assert(bar.y < 20, `the bar is stuck at the top: ${JSON.stringify(bar)}`);
  assert(panel.y >= bar.y + bar.height, `the panel starts below the bar: ${JSON.stringify(panel)}, bar ${JSON.stringify(bar)}`);
  assert(panel.y + panel.height <= c.y, `the panel ends above the record: ${JSON.stringify(panel)}, record ${JSON.stringify(c)}`);
  // The step buttons stay in reach: a tap on Back, where it is on the screen, steps back
  // with the panel open (page.click would first scroll the page, moving the bar).
  const before = await stepNumber(page);
  const back = await page.locator('#step-back').boundingBox();
  await page.mouse.click(back.x + back.width / 2, back.y + back.height / 2);
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(artifacts, '12c-inspector-phone.png'), fullPage: false });
  assert((await stepNumber(page)) === before - 1, `a tap on Back steps back (${before} → ${await stepNumber(page)})`);
});

test('clicking a record cell shows its ledger entry', async (page) => {
  await page.selectOption('#scenario-picker', 'lost-ack-idempotence-off');
  await page.click('#run-to-end');
  // The first second copy is v2's: the retries went out newest first.
  await page.locator('.brokers li.cell.dup').first().click();
  const inspector = page.locator('#inspector');
  await inspector.waitFor();
  const text = await inspector.innerText();
  for (const want of ['ledger status', 'delivered', 'appends', 'payments-0 @2', 'payments-0 @3', 'reads', 'Anomaly duplicate']) {
    assert(text.includes(want), `ledger entry shows "${want}": ${text}`);
  }
  assert((await page.locator('.brokers li.cell.dup.selected').count()) === 1, 'the cell is marked selected');
  await page.screenshot({ path: join(artifacts, '12-record-ledger.png'), fullPage: false });
  await page.locator('article.producer').click();
  const producer = await inspector.innerText();
  assert(producer.includes('Producer') && producer.includes('next sequences'), `producer details: ${producer}`);
});

test('dropping a message on the wire by click changes the run and joins the schedule', async (page) => {
  for (let i = 0; i < 6; i++) await page.click('#step');
  const before = await page.locator('#event-log').innerText();
  const wire = page.locator('#space-time g.arrow.wire');
  assert((await wire.count()) === 1, 'the produce is on the wire');
  await wire.scrollIntoViewIfNeeded();
  await wire.click();
  const inspector = page.locator('#inspector');
  await inspector.waitFor();
  const text = await inspector.innerText();
  assert(text.includes('produce') && text.includes('on the wire') && text.includes('events-0'), `in-flight details: ${text}`);
  await page.screenshot({ path: join(artifacts, '13-message-faults.png'), fullPage: false });
  await page.click('#msg-drop');
  assert((await stepNumber(page)) === 6, 'still at step 6');
  assert((await page.locator('#event-log').innerText()) === before, 'the past is unchanged');
  const schedule = await page.locator('#fault-schedule').innerText();
  assert(/drop the first Produce request from app to broker 0/.test(schedule), `schedule: ${schedule}`);
  // The panel says so, and the same drop is not offered twice for this moment.
  assert(await page.locator('#msg-drop').isDisabled(), 'Drop it is not offered again');
  assert(/Added to the fault schedule/.test(await inspector.innerText()), 'the panel says the drop was added');
  assert(!(await page.locator('#msg-delay').isDisabled()), 'a delay is still offered');
  await page.click('#step');
  assert(/The network drops the Produce request "produce[^"]*" from app to broker 0/.test(await page.locator('#event-log').innerText()), 'the drop is narrated');
  // Its cross sits at the moment of the loss, on the now line, not right of it as if to
  // come; a click on it names the message and how it was lost.
  const lost = page.locator('#space-time g.mark.lost[data-msg]').last();
  const cross = await lost.locator('path').boundingBox();
  const now = await page.locator('#space-time line.now').boundingBox();
  assert(cross && now && cross.x + cross.width / 2 <= now.x + now.width / 2 + 1, `the cross (${cross?.x}) is not right of now (${now?.x})`);
  await page.screenshot({ path: join(artifacts, '13b-message-dropped.png'), fullPage: false });
  await lost.click();
  const gone = await inspector.innerText();
  assert(/lost: it never arrives/.test(gone) && /step 7/.test(gone) && /scheduled fault/.test(gone), `the lost message: ${gone}`);
  // By keyboard: Enter on the cross opens it, Escape closes it and gives the focus back.
  await page.keyboard.press('Escape');
  await inspector.waitFor({ state: 'detached' });
  const msg = await lost.getAttribute('data-msg');
  await lost.focus();
  await page.keyboard.press('Enter');
  await inspector.waitFor();
  await page.keyboard.press('Escape');
  await inspector.waitFor({ state: 'detached' });
  const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-msg'));
  assert(focused === msg, `Escape gives the focus back to the cross (${focused}, not ${msg})`);
  await page.click('#run-to-end');
  const report = cli(['run', 'seed-frozen-broker', '--json']);
  const steps = await stepNumber(page);
  assert(steps !== report.steps, `the run changed: ${steps} steps vs ${report.steps} without the drop`);
  await page.selectOption('#event-filter', 'broker-0');
  const brokerLines = await page.locator('#event-log li .text').allInnerTexts();
  assert(brokerLines.length > 0 && brokerLines.every((t) => /broker 0|reader|app/.test(t)), `broker filter: ${brokerLines}`);
  assert((await page.locator('#event-log li.current').count()) >= 1, 'current event still highlighted');
  await page.screenshot({ path: join(artifacts, '14-after-drop.png'), fullPage: true });
});

test('a freeze lasts the length chosen, and absurd lengths are refused with a message', async (page) => {
  await page.click('#step');
  await page.selectOption('#fault-target', 'broker-0');
  await page.fill('#freeze-seconds', '0');
  const error = await page.locator('.faults .field-error').innerText();
  assert(error.includes('out of range'), `error: ${error}`);
  assert(await page.locator('#fault-freeze').isDisabled(), 'freeze disabled while invalid');
  await page.fill('#freeze-seconds', '100000');
  const absurd = await page.locator('.faults .field-error').innerText();
  assert(absurd.includes('1 to 120 seconds'), `an absurd length is refused: ${absurd}`);
  await page.click('.quick-freeze .chip:has-text("10 s")');
  assert((await page.locator('#fault-freeze').innerText()).includes('Freeze 10 s'), 'chip picks 10 s');
  await page.click('#fault-freeze');
  const schedule = await page.locator('#fault-schedule').innerText();
  assert(/freeze broker 0 for 10\.000 s/.test(schedule), `schedule: ${schedule}`);
  await page.screenshot({ path: join(artifacts, '15-freeze-length.png'), fullPage: false });
});

test('looks right at 1280×720, narrow, and in the light theme', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  for (let i = 0; i < 12; i++) await page.click('#step');
  await page.locator('#space-time g.arrow').first().click();
  await page.locator('#inspector').waitFor();
  await page.screenshot({ path: join(artifacts, '16-1280x720.png'), fullPage: false });
  await page.locator('#space-time').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '17-1280x720-diagram.png'), fullPage: false });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.keyboard.press('Escape');
  await page.screenshot({ path: join(artifacts, '17-1280x720-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(artifacts, '18-light.png'), fullPage: true });
  await page.setViewportSize({ width: 560, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(artifacts, '19-narrow.png'), fullPage: false });
  const overflow = await page.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1
      && !e.closest('.space-time-scroll') && !e.closest('.compare'));
    return { by: document.documentElement.scrollWidth - window.innerWidth, wide: wide.slice(0, 5).map((e) => `${e.tagName}.${e.className}#${e.id}`) };
  });
  assert(overflow.by <= 0, `no horizontal page scroll at 560 px (${JSON.stringify(overflow)})`);
  // A phone: the diagram takes the card's whole width, names over its lanes; a name still
  // opens its process.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#diagram').scrollIntoViewIfNeeded();
  const [card, scroller] = await page.evaluate(() => [document.querySelector('#diagram'), document.querySelector('.space-time-scroll')]
    .map((e) => e.getBoundingClientRect()).map((r) => ({ left: r.left, width: r.width })));
  assert(scroller.width > card.width * 0.8, `the diagram spans its card on a phone: ${JSON.stringify({ card, scroller })}`);
  // The names stand left of the now line, from the first step on (a short drawing opens
  // wide enough for them).
  if (await page.locator('#reset').isEnabled()) await page.click('#reset');
  for (let i = 0; i < 3; i++) {
    const clash = await page.evaluate(() => {
      const now = document.querySelector('#space-time line.now').getBoundingClientRect().left;
      return [...document.querySelectorAll('.lane-labels text')].map((t) => t.getBoundingClientRect())
        .filter((r) => r.right > now - 2).map((r) => ({ right: r.right, now }));
    });
    assert(clash.length === 0, `step ${i}: a lane's name over the now line: ${JSON.stringify(clash)}`);
    await page.click('#step');
  }
  await page.locator('.lane-labels .lane-label text').first().click();
  await page.locator('#inspector').waitFor();
  await page.keyboard.press('Escape');
});

test('three guarantees side by side: the ledger agrees with eos-sim compare', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-exactly-once');
  const table = page.locator('#compare-table');
  await table.waitFor();
  const report = cli(['compare', 'rpw-crash-exactly-once', '--json']);
  const lanes = await table.locator('thead th.lane').allInnerTexts();
  assert(JSON.stringify(lanes) === JSON.stringify(['at-most-once', 'at-least-once', 'exactly-once']), `lanes: ${lanes}`);
  const rows = await table.locator('tbody tr').count();
  assert(rows === report['exactly-once'].processing.inputs, `one row per input (${rows})`);
  assert((await table.locator('td.lost').count()) === report['at-most-once'].processing.lost, 'losses marked');
  assert((await table.locator('td.dup').count()) === report['at-least-once'].processing.duplicates, 'duplicates marked');
  // The keyboard reaches the lower half by skip links, and a cell says what it is.
  for (const [skip, to] of [['#skip-lanes', 'lanes'], ['#skip-outcomes', 'outcomes'], ['#skip-fork', 'fork']]) {
    await page.focus(skip);
    await page.keyboard.press('Enter');
    assert((await page.evaluate(() => document.activeElement?.id)) === to, `${skip} moves the focus to #${to}`);
  }
  const named = await table.locator('tbody button.cell-open').first().getAttribute('aria-label');
  assert(/^v\d+ under at-most-once: .+\. Open in the inspector$/.test(named), `a cell's name: ${named}`);
  const eos = await table.locator('tbody tr td:nth-child(4)').allInnerTexts();
  assert(eos.every((t) => t === '1'), `exactly-once column is all 1: ${eos}`);
  await table.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '10-three-guarantees.png'), fullPage: true });
  // On a phone the three lanes fit: exactly-once needs no sideways scroll.
  await page.setViewportSize({ width: 390, height: 844 });
  const eosHead = await table.locator('thead th.exactly-once').boundingBox();
  assert(eosHead && eosHead.x + eosHead.width <= 390, `exactly-once in view on a phone: ${JSON.stringify(eosHead)}`);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.selectOption('#scenario-picker', 'seed-frozen-broker');
  assert((await page.locator('#compare-table').count()) === 0, 'no ledger without a processor');
});

test('a count in the compare ledger opens that input in that lane\'s whole run', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-at-least-once');
  const report = cli(['compare', 'rpw-crash-at-least-once', '--json']);
  const dupInput = Object.entries(report['at-least-once'].processing.ledger).find(([, n]) => n > 1)[0];
  const lostInput = Object.entries(report['at-most-once'].processing.ledger).find(([, n]) => n === 0)[0];
  const row = (input) => page.locator('#compare-table tbody tr', { has: page.locator(`th:text-is("${input}")`) });
  // At step 0: the table counts whole runs, and so does the inspector.
  await row(dupInput).locator('td.dup button').click();
  const title = await page.locator('#inspector-title').innerText();
  assert(title === `at-least-once lane · input ${dupInput}: 2 visible copies of ${dupInput}′`, `the duplicate: ${title}`);
  const dup = await page.locator('#inspector').innerText();
  const anomaly = report['at-least-once'].anomalies.find((a) => a.kind === 'duplicate').detail;
  assert(dup.includes(anomaly), `the CLI's anomaly (${anomaly}) in the inspector: ${dup}`);
  assert((await page.locator('#compare-table td.selected').count()) === 1, 'the count is marked as inspected');
  await page.screenshot({ path: join(artifacts, '10b-compare-input.png'), fullPage: false });
  // The loss, by keyboard.
  await row(lostInput).locator('td.lost button').focus();
  await page.keyboard.press('Enter');
  const lost = await page.locator('#inspector').innerText();
  assert((await page.locator('#inspector-title').innerText()).startsWith(`at-most-once lane · input ${lostInput}: 0 visible copies`), 'the loss');
  assert(lost.includes(`No copy of ${lostInput}′, the output of ${lostInput},`), `why nothing is visible: ${lost}`);
  await page.keyboard.press('Escape');
  assert((await page.locator('#inspector').count()) === 0, 'Escape closes it');
});

test('three lanes follow the clock: each guarantee\'s output log and counts at this moment', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-at-least-once');
  const lanes = await page.locator('.lane-stage > h3').allInnerTexts();
  assert(JSON.stringify(lanes) === JSON.stringify(['at-most-once', 'at-least-once', 'exactly-once']), `lanes: ${lanes}`);
  assert((await page.locator('.lane-stage li.cell').count()) === 0, 'nothing written at step 0');
  // Each lane is a small stage: its processor, under that lane's guarantee, and its wire.
  for (const g of ['at-most-once', 'at-least-once', 'exactly-once']) {
    const card = await page.locator(`.lane-stage.${g} article.processor`).innerText();
    assert(card.includes(g), `${g} lane's processor card: ${card}`);
  }
  assert((await page.locator('.lane-stage [data-spot], .lane-stage [tabindex]').count()) === 0, 'a lane is another run: nothing in it to spotlight, no record yet');
  for (let i = 0; i < 12; i++) await page.click('#step');
  assert((await page.locator('.lane-stage .flights li[data-msg]').count()) > 0, 'messages on the lanes\' wires');
  await page.click('#run-to-end');
  const report = cli(['compare', 'rpw-crash-at-least-once', '--json']);
  const alo = await page.locator('.lane-stage.at-least-once .lane-counts').innerText();
  assert(new RegExp(`duplicates\\s+${report['at-least-once'].processing.duplicates}\\b`).test(alo), `${alo} vs the CLI`);
  assert((await page.locator('.lane-stage.at-least-once li.cell.dup').count()) >= 1, 'the duplicate is in the at-least-once log');
  assert((await page.locator('.lane-stage.exactly-once li.cell.dup').count()) === 0, 'none under exactly-once');
  // The lanes' tops (their processors and wires) just under the sticky controls.
  await page.evaluate(() => { document.querySelector('.lane-stages').scrollIntoView(); window.scrollBy(0, -110); });
  await page.mouse.move(2, 2);
  await page.waitForTimeout(600); // the cells' landing
  await page.screenshot({ path: join(artifacts, '42-three-lanes.png'), fullPage: false });
  // A lane's record opens in the inspector, from the lane's own run.
  assert((await page.locator('.lane-stage [data-spot]').count()) === 0, 'lessons spotlight only the stage');
  await page.locator('.lane-stage.at-least-once li.cell.dup').first().click();
  const inspector = page.locator('#inspector');
  await inspector.waitFor();
  const title = await page.locator('#inspector-title').innerText();
  assert(title.startsWith('at-least-once lane · Record'), `the lane's record: ${title}`);
  assert((await inspector.innerText()).includes('Anomaly duplicate'), 'its ledger names the duplicate');
  assert((await page.locator('.lane-stage.at-least-once li.cell.selected').count()) === 1, 'the cell is marked as inspected');
  await page.screenshot({ path: join(artifacts, '42b-lane-record.png'), fullPage: false });
  await page.keyboard.press('Escape');
  assert((await inspector.count()) === 0, 'Escape closes it');
  await page.keyboard.press('Home');
  assert((await page.locator('.lane-stage li.cell').count()) === 0, 'back at the start, the lanes are too');
  // The lane under the run's own guarantee is the run, step for step, also in the middle of
  // a millisecond (at step 40 the COMMIT marker is on the wire, not yet written).
  await page.goto(url + '?s=rpw-crash-exactly-once&step=40', { waitUntil: 'load' });
  await page.locator('.lane-stage.exactly-once').waitFor();
  for (const step of [40, 41, 39]) {
    if (step === 41) await page.click('#step');
    if (step === 39) { await page.click('#step-back'); await page.click('#step-back'); }
    const hw = async (scope) => page.locator(`${scope} .partition`, { hasText: 'invoices-0' }).first().locator('.hw').innerText();
    const [stage, lane] = [await hw('main.stage'), await hw('.lane-stage.exactly-once')];
    assert(stage === lane, `step ${step}: the stage's invoices-0 reads ${stage}, the exactly-once lane ${lane}`);
  }
});

test('transactions: markers, an aborted record and two isolation levels', async (page) => {
  await page.selectOption('#scenario-picker', 'seed-commit-abort');
  await page.click('#run-to-end');
  const report = cli(['run', 'seed-commit-abort', '--json']);
  const log = page.locator('.brokers ol.log[data-partition="events-1"] li');
  const classes = await log.evaluateAll((lis) => lis.map((li) => li.className));
  assert(JSON.stringify(classes) === JSON.stringify(['cell txn-committed', 'cell marker marker-commit', 'cell txn-aborted', 'cell marker marker-abort']),
    `events-1 cells: ${classes}`);
  const committed = await page.locator('article.consumer', { hasText: 'committed-reader' }).first().innerText();
  assert(committed.includes(`${report.reads['committed-reader'].records} read`), `committed reader: ${committed}`);
  const uncommitted = await page.locator('article.consumer', { hasText: 'uncommitted-reader' }).innerText();
  assert(uncommitted.includes(`${report.reads['uncommitted-reader'].records} read`), `uncommitted reader: ${uncommitted}`);
  assert((await page.locator('.coordinator .state.lit').innerText()) === 'CompleteAbort', 'coordinator state lit');
  await page.screenshot({ path: join(artifacts, '06-transactions.png'), fullPage: true });
});

test('read-process-write: an open transaction pins the last stable offset', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-exactly-once');
  let pinned = false;
  for (let i = 0; i < 120 && !pinned; i++) {
    await page.click('#step');
    pinned = (await page.locator('.lso').count()) > 0;
  }
  assert(pinned, 'the LSO shows below the HW while a transaction is open');
  assert((await page.locator('.brokers li.cell.txn-open').count()) > 0, 'open-transaction records are marked');
  // The LSO is a line in the log, on the left of the first record of the open transaction.
  const lsoCell = await page.locator('.brokers ol.log li.cell.line-lso').first().getAttribute('class');
  assert(lsoCell.includes('txn-open'), `the record after the LSO line is the open transaction's: ${lsoCell}`);
  assert((await page.locator('.stage article.processor.exactly-once').count()) === 1, 'processor card with its guarantee');
  await page.screenshot({ path: join(artifacts, '07-read-process-write.png'), fullPage: true });
  await page.click('#run-to-end');
  const report = cli(['run', 'rpw-crash-exactly-once', '--json']);
  assert(report.processing.visible_outputs === 12 && report.processing.duplicates === 0, 'CLI: exactly once');
  assert((await page.locator('.brokers li.cell.dup').count()) === 0, 'no duplicate on screen');
});

test('flink: barriers in channels, a blocked input while aligning, and the checkpoint timeline', async (page) => {
  await page.selectOption('#scenario-picker', 'flink-alignment-two-inputs');
  assert(await page.locator('section.flink').isVisible(), 'the Flink stage is shown');
  let blocked = false;
  for (let i = 0; i < 400 && !blocked; i++) {
    await page.click('#step');
    blocked = (await page.locator('.channel.blocked').count()) > 0;
  }
  assert(blocked, 'an input of the counter is blocked while it aligns');
  assert((await page.locator('.channel .item.barrier').count()) > 0, 'a barrier is drawn in a channel');
  await page.screenshot({ path: join(artifacts, '20-flink-aligning.png'), fullPage: true });
  // The blocked channel opens in the inspector from the keyboard: what blocks it, and each
  // record it holds, as the stage draws them.
  const channel = page.locator('.channel.blocked').first();
  for (let i = 0; i < 30 && (await channel.locator('.item.record').count()) === 0; i++) await page.click('#step');
  const drawn = await channel.locator('.item.record').allInnerTexts();
  assert(drawn.length > 0, 'the blocked channel buffers records');
  await channel.focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('#inspector');
  const ends = (await channel.locator('.channel-ends').innerText()).trim();
  assert((await page.locator('#inspector-title').innerText()) === ends, `the inspector names ${ends}`);
  assert(await channel.evaluate((c) => c.classList.contains('selected')), 'the channel is marked as the one inspected');
  // The row spans the stage, so no corner is clear of it: the panel keeps above or below it.
  await page.waitForFunction(() => document.querySelector('#inspector')?.dataset.dock);
  const [row, panel] = [await channel.boundingBox(), await page.locator('#inspector').boundingBox()];
  assert(panel.y + panel.height <= row.y || panel.y >= row.y + row.height,
    `the panel keeps clear of the channel's row: panel ${JSON.stringify(panel)}, row ${JSON.stringify(row)}`);
  const rows = await page.locator('#inspector dd').allInnerTexts();
  assert(rows.some((r) => /^by barrier \d+, in since .+; inputs still without it: 1$/.test(r)), `why it is blocked: ${rows}`);
  const listed = rows.filter((r) => r.startsWith('record ')).map((r) => r.split(' ')[1]);
  assert(listed.length === drawn.length && listed.every((r, i) => r === drawn[i]), `its records, in order: ${listed} vs ${drawn}`);
  // From the keyboard each listed item opens from its row: Tab to it, Enter.
  const picks = page.locator('#inspector .row-pick');
  assert((await picks.count()) === (await channel.locator('.item.record, .item.barrier').count()), 'a row button per item');
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.classList.contains('row-pick'))) break;
  }
  const text = await page.evaluate(() => document.activeElement?.textContent ?? '');
  assert(/^(record|barrier) /.test(text), `Tab reaches an item's row: ${text}`);
  await page.keyboard.press('Enter');
  const wanted = text.startsWith('record ') ? `Record ${text.split(' ')[1]} in the job` : `checkpoint ${text.split(' ')[1]} · `;
  await page.waitForFunction((w) => (document.querySelector('#inspector-title')?.textContent ?? '').startsWith(w), wanted);
  await page.keyboard.press('Escape');
  // The items themselves are reached by the keyboard too: Tab from the channel to its
  // items' stop, ↓ to the next item, Enter to open it.
  await channel.focus();
  await page.keyboard.press('Tab');
  const onItem = () => page.evaluate(() => document.activeElement?.matches('.channel .item.pickable') && document.activeElement.textContent);
  const first = await onItem();
  assert(first === (await channel.locator('.item.pickable').first().innerText()), `Tab goes from the channel to its first item: ${first}`);
  await page.keyboard.press('ArrowDown');
  const second = await onItem();
  const items = channel.locator('.item.pickable');
  const next = (await items.count()) > 1 ? await items.nth(1).innerText() : first;
  assert(second && second === next, `↓ to the next, or stays on the only one: ${second} (${next})`);
  await page.keyboard.press('Enter');
  const opened = second.startsWith('v') ? `Record ${second} in the job` : `checkpoint ${second.slice(1)} · `;
  await page.waitForFunction((w) => (document.querySelector('#inspector-title')?.textContent ?? '').startsWith(w), opened);
  await page.keyboard.press('Escape');
  // A click on a barrier opens its checkpoint, lit on the timeline.
  const barrier = page.locator('.channel .item.barrier').first();
  const id = (await barrier.innerText()).slice(1);
  await barrier.click();
  await page.waitForFunction((n) => (document.querySelector('#inspector-title')?.textContent ?? '').startsWith(`checkpoint ${n} · `), id);
  assert((await page.locator('.checkpoint.selected').count()) === 1, 'its checkpoint lit on the timeline');
  // A click on one of its records opens that record, not the channel: where it is, and the
  // inspector follows it as the run steps on.
  const last = channel.locator('.item.record').last();
  const name = await last.innerText();
  await last.click();
  await page.waitForFunction((n) => document.querySelector('#inspector-title')?.textContent === `Record ${n} in the job`, name);
  const where = async () => (await page.locator('#inspector dd').first().innerText()).replace(/\u00a0/g, ' ');
  assert((await where()).startsWith(`${ends} · record `), `where it is: ${await where()}`);
  assert(await last.evaluate((e) => e.classList.contains('selected')), 'the record is marked as the one inspected');
  for (let i = 0; i < 300 && (await where()).startsWith(ends); i++) await page.click('#step');
  const after = await page.locator('#inspector').innerText();
  assert(after.includes(`Record ${name} in the job`) && !(await where()).startsWith(ends), `followed on past its channel: ${after}`);
  await page.keyboard.press('Escape');
  await page.click('#run-to-end');
  const report = cli(['run', 'flink-alignment-two-inputs', '--json']);
  assert((await page.locator('.checkpoint.completed').count()) === Math.min(8, report.flink.completed),
    `completed checkpoints on the timeline vs CLI ${report.flink.completed}`);
  assert((await page.locator('.flink-phase').innerText()).includes('finished'), 'the job finished');
  const state = await page.locator('.flink-tasks').innerText();
  const st = report.flink.output.state;
  const count = Array.isArray(st) ? st[0][1] : Object.values(st)[0];
  assert(count === 40 && state.includes(`alice=${count}`), `state shown: ${state}`);
});

test('flink: a task crashed by click fails the job over and restores the last checkpoint', async (page) => {
  await page.selectOption('#scenario-picker', 'flink-barrier-walkthrough');
  for (let i = 0; i < 40; i++) await page.click('#step');
  await page.selectOption('#fault-target', 'map-0');
  await page.click('#fault-crash');
  await page.click('#run-to-end');
  assert((await page.locator('.flink-summary').innerText()).includes('failovers: 1'), 'one failover');
  await page.click('section.flink .task >> nth=1');
  const inspector = await page.locator('.inspector').innerText();
  assert(inspector.includes('map'), `the inspector shows the task: ${inspector}`);
  await page.screenshot({ path: join(artifacts, '21-flink-failover.png'), fullPage: true });
  const reader = await page.locator('article.consumer').innerText();
  assert(/^8 read/m.test(reader) || reader.includes('8 read:'), `the read_committed reader still reads 8 records once: ${reader}`);
  assert((await page.locator('#flink-verdict').innerText()) === 'the same output as a failure-free run', 'a restored job loses nothing');
  // At the end the job's output is set against a failure-free run, as eos-sim run does.
  await page.selectOption('#scenario-picker', 'flink-2pc-txn-timeout-loss');
  await page.click('#run-to-end');
  const verdict = await page.locator('#flink-verdict').innerText();
  const cliSays = cliText(['run', 'flink-2pc-txn-timeout-loss']).match(/vs failure-free run: (\d+) lost/);
  assert(cliSays && verdict === `against a failure-free run: ${cliSays[1]} lost`, `the silent loss, as the CLI counts it: ${verdict} / ${cliSays}`);
});

test('every built-in scenario runs to the end in the page with the native trace hash', async (page) => {
  const names = await page.locator('#scenario-picker option').evaluateAll((os) => os.map((o) => o.value));
  assert(names.length >= 20, `all scenarios listed (${names.length})`);
  for (const name of names) {
    await page.selectOption('#scenario-picker', name);
    await page.click('#run-to-end');
    const report = cli(['run', name, '--json']);
    assert((await stepNumber(page)) === report.steps, `${name}: steps UI ${await stepNumber(page)} vs CLI ${report.steps}`);
    // Counted on the leaders' logs: a follower holds copies of the same duplicates.
    const dups = await page.locator('.brokers section.partition').evaluateAll((ss) => ss
      .filter((s) => /· leader( · ISR [0-9, ]+)?$/.test((s.querySelector('.partition-role')?.textContent ?? '').trim()))
      .reduce((n, s) => n + s.querySelectorAll('li.cell.dup').length, 0));
    assert(dups === report.outcome.duplicates, `${name}: duplicates ${dups} vs ${report.outcome.duplicates}`);
    // The oracle's verdict on screen is the report's outcome (a Flink job's own losses are
    // on its stage, so the bar of Kafka counts is not shown there).
    if (report.flink) {
      assert((await page.locator('#outcome-bar').count()) === 0, `${name}: no Kafka counts for a Flink job`);
    } else {
      const bar = await page.locator('#outcome-bar').innerText();
      const { duplicates, lost, aborted_reads: aborted } = report.outcome;
      assert(/verdict/i.test(bar) && bar.includes(`duplicates: ${duplicates}`) && bar.includes(`lost: ${lost}`) && bar.includes(`aborted reads: ${aborted}`),
        `${name}: the oracle's counts ${bar.replace(/\n/g, ' ')} vs the CLI's ${JSON.stringify(report.outcome)}`);
    }
    const hash = (await page.locator('#trace-hash').innerText()).trim();
    assert(hash === report.trace_hash, `${name}: trace hash in the browser ${hash} vs native ${report.trace_hash}`);
  }
});


// Lessons. The answers below are the lessons' own (lessons/*.toml, checked by eos-sim check).
const lessonStep = async (page) => (await page.locator('#lesson-step').innerText()).trim();
const answer = async (page, value) => {
  if ((await page.locator('#answer-number').count()) > 0) await page.fill('#answer-number', String(value));
  else await page.check(`input[name="choice"][value="${value}"]`);
  await page.click('#reveal');
  return page.locator('#feedback');
};
// Walks a lesson from its first step to its last: answers[i] answers narration step i.
async function walkLesson(page, answers, shots) {
  const total = Number((await lessonStep(page)).match(/of (\d+)/)[1]);
  for (let i = 0; i < total; i++) {
    assert((await lessonStep(page)) === `Step ${i + 1} of ${total}`, `at step ${i + 1}: ${await lessonStep(page)}`);
    assert((await page.locator('#lesson-text').innerText()).trim().length > 20, 'narration shown');
    if ((await page.locator('#question.asking').count()) > 0) {
      assert(i in answers, `step ${i + 1} asks something the test does not know`);
      assert(await page.locator('#lesson-next').isDisabled(), 'Next waits for the prediction');
      const before = await stepNumber(page);
      const feedback = await answer(page, answers[i]);
      assert((await feedback.getAttribute('class')).includes('correct') && !(await feedback.getAttribute('class')).includes('incorrect'),
        `step ${i + 1}: right answer graded right: ${await feedback.innerText()}`);
      assert((await stepNumber(page)) >= before, 'the reveal plays to the point');
      if (shots?.[i]) await page.screenshot({ path: join(artifacts, shots[i]), fullPage: false });
    }
    if (i + 1 < total) await page.click('#lesson-next');
  }
  // The last step's Next leads on to the next lesson (or there is none after the last).
  const last = page.locator('#lesson-next');
  assert((await last.isDisabled()) || /Next lesson|Следующий урок/.test(await last.innerText()), `the last step's Next: ${await last.innerText()}`);
}

test('the page opens on the first lesson, spotlighting what the narration names', async (page) => {
  assert((await page.locator('#lesson-title').innerText()) === 'The idempotent producer and the frozen broker', 'first lesson');
  assert((await lessonStep(page)) === 'Step 1 of 6', 'first step');
  const step = await stepNumber(page);
  assert(step > 0, `the run is at the first point (step ${step})`);
  assert((await page.locator('[data-spot~="app"].spotlight').count()) === 1, 'the producer app is spotlighted');
  assert((await page.locator('#lesson-text strong').count()) > 0, 'Markdown bold rendered as <strong>');
  assert((await page.locator('#lesson-text code').count()) > 0, 'Markdown code rendered as <code>');
  await page.screenshot({ path: join(artifacts, '20-lesson-start.png'), fullPage: false });
  await page.keyboard.press('PageDown');
  assert((await lessonStep(page)) === 'Step 2 of 6', 'PageDown moves to the next step');
  assert((await stepNumber(page)) > step, 'and the run follows');
  assert((await page.locator('section.partition.spotlight').count()) >= 1, 'broker-0 spotlights its partitions');
  // "Show where" brings what the step lights into view, just below the sticky bar (not
  // under it, and not a screen's fifth further down).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.click('#show-spotlight');
  await page.waitForFunction(() => {
    const r = document.querySelector('.spotlight')?.getBoundingClientRect();
    const bar = document.querySelector('.controls')?.getBoundingClientRect();
    return r && bar && r.top >= bar.bottom - 1 && r.top <= bar.bottom + 48;
  }, null, { timeout: 5000 }).catch(async () => {
    const at = await page.evaluate(() => [document.querySelector('.spotlight')?.getBoundingClientRect().top, document.querySelector('.controls')?.getBoundingClientRect().bottom]);
    throw new Error(`"Show where": the spotlight's top and the bar's bottom: ${at}`);
  });
  // And the focus with it, on the partition lit (not in the Tab order otherwise).
  assert(await page.evaluate(() => document.activeElement?.matches('section.partition.spotlight') && document.activeElement.tabIndex === -1), 'the focus on the lit partition');
  // "↑ Lesson" in the bar goes back up to the step's text, which "Show where" scrolled away.
  assert(await page.evaluate(() => document.querySelector('#lesson-text').getBoundingClientRect().top < 0), 'the step\'s text is scrolled away');
  await page.click('#to-lesson');
  await page.waitForFunction(() => {
    const r = document.querySelector('#lesson-text')?.getBoundingClientRect();
    return r && r.top >= 0 && r.top < innerHeight / 2;
  }, null, { timeout: 5000 });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.keyboard.press('PageUp');
  assert((await lessonStep(page)) === 'Step 1 of 6' && (await stepNumber(page)) === step, 'PageUp comes back');
  await page.keyboard.press('ArrowRight');
  assert((await stepNumber(page)) === step + 1, 'the arrow keys still step the run');
  // Tab follows the header row as it is seen: the lesson navigator, then Share at its right.
  await page.focus('#leave-lesson');
  await page.keyboard.press('Tab');
  assert(await page.evaluate(() => document.activeElement.matches('.share > summary')), 'Share follows the lesson navigator');
  await page.keyboard.press('Shift+Tab');
  assert(await page.evaluate(() => document.activeElement.id === 'leave-lesson'), 'and Shift+Tab goes back');
}, { lesson: true });

test('a question: predict wrong, see the real value, try again, predict right', async (page) => {
  for (let i = 0; i < 3; i++) await page.click('#lesson-next');
  assert((await lessonStep(page)) === 'Step 4 of 6', 'at the first question');
  const held = await stepNumber(page);
  assert((await page.locator('#question.asking').count()) === 1, 'the question comes before the point');
  assert(await page.locator('#reveal').isDisabled(), 'Reveal waits for an answer');
  await page.screenshot({ path: join(artifacts, '21-lesson-question.png'), fullPage: false });
  let feedback = await answer(page, 1);
  const wrong = await feedback.innerText();
  assert((await feedback.getAttribute('class')).includes('incorrect'), `wrong answer graded wrong: ${wrong}`);
  assert(/The simulation reads 3/.test(wrong), `shows the real value: ${wrong}`);
  assert((await stepNumber(page)) > held, 'the reveal played the run to the point');
  await page.screenshot({ path: join(artifacts, '22-lesson-wrong.png'), fullPage: false });
  await page.click('#try-again');
  assert((await stepNumber(page)) === held, 'trying again goes back before the point');
  feedback = await answer(page, 3);
  assert((await feedback.getAttribute('class')).includes(' correct'), `right answer graded right: ${await feedback.innerText()}`);
  await page.click('#lesson-next');
  feedback = await answer(page, 1);
  const choice = await feedback.innerText();
  assert((await feedback.getAttribute('class')).includes('incorrect') && /The right answer: 1/.test(choice), `choice feedback: ${choice}`);
  await page.screenshot({ path: join(artifacts, '23-lesson-choice-wrong.png'), fullPage: false });
}, { lesson: true });

test('two lessons walked start to finish; a try-it loads the changed scenario', async (page) => {
  await walkLesson(page, { 3: 3, 4: 0, 5: 1 }, { 5: '24-lesson-last-step.png' });
  assert((await page.locator('#try-it-0').count()) === 1, 'the last step offers a try-it');
  await page.click('#try-it-0');
  const trying = page.locator('#trying');
  await trying.waitFor();
  assert((await trying.innerText()).length > 10, 'the try-it is named');
  // The setting it changed, named as the fork names it.
  assert(/idempotence( \([^)]*\))?: on → off/.test(await trying.locator('.trying-change').innerText()), `the change: ${await trying.innerText()}`);
  // The header says the built-in is changed, in the picker and above the summary.
  const picked = await page.locator('#scenario-picker option:checked').innerText();
  assert(/\(changed\)$/.test(picked), `the picker names the changed run: ${picked}`);
  assert(/\(changed\)\. Changed by the lesson\./.test(await page.locator('.summary').innerText()), 'the summary says the lesson changed the run');
  await page.click('#run-to-end');
  assert((await page.locator('.brokers li.cell.dup').count()) >= 1, 'without idempotence the changed run has a duplicate');
  await page.screenshot({ path: join(artifacts, '25-try-it.png'), fullPage: false });
  // A try-it link's step past its run's end opens the end, and says so.
  await page.goto(url + '?lesson=idempotent-producer&ls=5&try=0&step=99999', { waitUntil: 'load' });
  await page.locator('#trying').waitFor();
  await page.locator('.error[role=alert]').waitFor({ timeout: 10000 });
  assert(/asks for step 99999, but its run ends at step \d+: showing its last step/.test(await page.locator('.error[role=alert]').innerText()), 'a try-it step past the end is named');
  assert(/finished/.test(await clockText(page)), `the try-it run's end: ${await clockText(page)}`);
  await page.click('#back-to-lesson');
  assert((await lessonStep(page)) === 'Step 6 of 6', 'back at the lesson step');
  assert(!/\(changed\)/.test(await page.locator('#scenario-picker option:checked').innerText()), 'back in the lesson the picker names the built-in');
  assert((await page.locator('.brokers li.cell.dup').count()) === 0, 'the lesson run again');
  await page.click('#next-lesson');
  assert((await lessonStep(page)) === 'Step 1 of 4', 'the second lesson starts at its first step');
  assert((await page.locator('#scenario-picker option:checked').getAttribute('value')) === 'rpw-crash-at-least-once', 'its scenario loaded');
  await walkLesson(page, { 1: 8, 3: 2 });
  await page.click('#lesson-contents-toggle');
  const entries = await page.locator('#lesson-contents li').allInnerTexts();
  const builtins = cliText(['lessons']).trim().split('\n').filter((l) => l.trim()).length;
  assert(entries.length === builtins, `every built-in lesson listed: ${entries.length} of ${builtins}`);
  assert(/6\/6 steps seen · 3\/3 right answers/.test(entries[0]) && /done/.test(entries[0]), `first lesson done: ${entries[0]}`);
  assert(/4\/4 steps seen · 2\/2 right answers/.test(entries[1]), `second lesson done: ${entries[1]}`);
  await page.screenshot({ path: join(artifacts, '26-lesson-contents.png'), fullPage: false });
}, { lesson: true });

test('progress survives a reload and clears', async (page) => {
  await page.click('#lesson-next');
  await page.click('#lesson-next');
  await page.reload();
  await page.waitForSelector('#lesson-panel');
  await page.click('#lesson-contents-toggle');
  // Opened, the contents have the focus on the lesson open now, the next Tab stop in them.
  await page.waitForFunction(() => document.activeElement?.id === 'toc-current' && document.activeElement.getAttribute('aria-current') === 'true');
  const first = await page.locator('#lesson-contents li').first().innerText();
  assert(/3\/6 steps seen · 0\/3 right answers/.test(first), `progress after reload: ${first}`);
  await page.click('#clear-progress');
  const cleared = await page.locator('#lesson-contents li').first().innerText();
  assert(/0\/6 steps seen/.test(cleared), `cleared: ${cleared}`);
  await page.reload();
  await page.waitForSelector('#lesson-panel');
  await page.click('#lesson-contents-toggle');
  const after = await page.locator('#lesson-contents li').first().innerText();
  assert(/1\/6 steps seen/.test(after), `only the step shown since: ${after}`);
  await page.locator('#lesson-contents li').nth(2).locator('button').click();
  assert((await page.locator('#lesson-title').innerText()).length > 0 && (await lessonStep(page)) === 'Step 1 of 5', 'the contents open a lesson');
}, { lesson: true });

test('Russian: the chrome and the lesson switch, and the choice persists', async (page) => {
  // The lessons' Russian texts are a worker of their own, which only a page read in Russian loads.
  const loaded = [];
  page.on('request', (r) => loaded.push(r.url()));
  await page.waitForTimeout(300);
  assert(!loaded.some((u) => u.includes('eos-lessons-ru')), 'an English page does not load the Russian lessons');
  await page.click('#lang-ru');
  await page.locator('#lesson-title', { hasText: 'Идемпотентный продюсер и замерший брокер' }).waitFor({ timeout: 10000 });
  assert(loaded.some((u) => u.includes('eos-lessons-ru')), 'the Russian page loads them');
  assert((await lessonStep(page)).startsWith('Шаг 1 из 6'), `Russian step label: ${await lessonStep(page)}`);
  assert((await page.locator('#reset').innerText()).includes('Сброс'), 'controls in Russian');
  assert(/[а-я]/.test(await page.locator('#lesson-text p').first().innerText()), 'narration in Russian');
  assert((await page.locator('html').getAttribute('lang')) === 'ru', 'html lang');
  await page.reload();
  await page.waitForSelector('#lesson-panel');
  await page.locator('#lesson-title', { hasText: 'Идемпотентный продюсер и замерший брокер' }).waitFor({ timeout: 10000 });
  assert((await page.locator('footer').innerText()).includes('Клавиши'), 'footer in Russian');
  for (let i = 0; i < 3; i++) await page.click('#lesson-next');
  await page.fill('#answer-number', '2');
  // Enter answers, as in any form.
  await page.press('#answer-number', 'Enter');
  assert(/Неверно/.test(await page.locator('#feedback').innerText()), 'feedback in Russian');
  await page.screenshot({ path: join(artifacts, '27-russian.png'), fullPage: false });
  await page.click('#leave-lesson');
  assert((await page.locator('#back-to-lesson').innerText()).includes('Вернуться к уроку'), 'back button in Russian');
  // The playground's chrome is Russian too; the simulation's own sentences stay English.
  // (Headings are upper-cased by CSS: read the text, not the rendering.)
  assert((await page.locator('.faults h2').textContent()) === 'Внедрить сбой', 'fault panel heading in Russian');
  assert((await page.locator('#fault-crash').innerText()) === 'Уронить', 'crash button in Russian');
  assert((await page.locator('#fault-freeze').innerText()) === 'Заморозить на 2 с', 'freeze button in Russian');
  assert((await page.locator('.events h2').textContent()) === 'Что произошло', 'event log heading in Russian');
  const picked = await page.locator('#scenario-picker option:checked').innerText();
  assert(picked === 'Замёрзший брокер, идемпотентный повтор', `scenario title in Russian: ${picked}`);
  assert(/[а-я]/.test(await page.locator('.header .summary').innerText()), 'scenario summary in Russian');
  await page.setViewportSize({ width: 1280, height: 720 });
  if (await page.locator('#reset').isEnabled()) await page.click('#reset');
  for (let i = 0; i < 6; i++) await page.click('#step');
  assert((await page.locator('#clock').innerText()).startsWith('шаг 6'), 'the clock in Russian');
  const wire = page.locator('#space-time g.arrow.wire');
  await wire.scrollIntoViewIfNeeded();
  await wire.click();
  await page.locator('#inspector').waitFor();
  assert((await page.locator('#inspector-title').innerText()).startsWith('Сообщение #'), 'inspector title in Russian');
  assert((await page.locator('#msg-drop').innerText()) === 'Отбросить', 'message fault button in Russian');
  const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert(over <= 0, `no horizontal page scroll at 1280 px in Russian (${over})`);
  await page.locator('.faults').evaluate((el) => el.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: join(artifacts, '27b-russian-playground.png'), fullPage: false });
  await page.screenshot({ path: join(artifacts, '27c-russian-playground-full.png'), fullPage: true });
  // A phone in portrait, in Russian (the longer language): nothing wider than the screen.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.waitForTimeout(200);
  const phone = await page.evaluate(() => ({
    by: document.documentElement.scrollWidth - window.innerWidth,
    fork: document.querySelector('#fork-change')?.getBoundingClientRect().right ?? 0,
    brand: document.querySelector('.brand h1').getBoundingClientRect().right,
  }));
  assert(phone.by <= 0 && phone.fork <= 360 && phone.brand <= 360, `nothing wider than 360 px in Russian: ${JSON.stringify(phone)}`);
  await page.click('#lang-en');
  assert((await page.locator('#back-to-lesson').innerText()).includes('Back to the lesson'), 'English again');
}, { lesson: true });

test('Russian that cannot load says so in both languages, and the page stays English', async (page) => {
  await page.route('**/eos-lessons-ru*', (route) => route.abort());
  const before = await page.locator('#lesson-title').innerText();
  await page.click('#lang-ru');
  const notice = page.locator('.error[role=alert]');
  await notice.waitFor({ timeout: 20000 });
  const text = await notice.innerText();
  assert(text.includes('Русский текст не загрузился') && text.includes('The Russian texts did not load'), `the notice: ${text}`);
  // Nothing the reader had is lost: the chrome and the lesson stay English, and nothing is remembered.
  assert((await page.locator('#lesson-title').innerText()) === before, 'the lesson stays as it was');
  assert((await page.locator('#reset').innerText()).includes('Reset'), 'the controls stay English');
  assert((await page.locator('html').getAttribute('lang')) === 'en', 'html lang stays en');
  assert((await page.evaluate(() => localStorage.getItem('eos.lang'))) !== 'ru', 'Russian is not remembered');
  // A reader who chose Russian before: the page opens in English, whole, and says why.
  await page.evaluate(() => localStorage.setItem('eos.lang', 'ru'));
  await page.reload();
  await page.locator('.error[role=alert]', { hasText: 'The Russian texts did not load' }).waitFor({ timeout: 20000 });
  assert((await page.locator('html').getAttribute('lang')) === 'en', 'html lang is en');
  assert((await page.locator('#reset').innerText()).includes('Reset'), 'the controls are English');
  assert((await page.locator('#lesson-title').innerText()) === before, `the lesson is English: ${await page.locator('#lesson-title').innerText()}`);
}, { lesson: true, blocked: /eos-lessons-ru/ });

test('a page that opens in Russian draws in Russian from its first frame', async (page) => {
  // The chrome's Russian arrives from a worker; the page waits for it before it draws, so
  // the first thing drawn is Russian (no flash of English).
  await page.evaluate(() => localStorage.setItem('eos.lang', 'ru'));
  await page.addInitScript(() => {
    window.__firstResetText = null;
    new MutationObserver(() => {
      const r = document.querySelector('#reset');
      if (r && window.__firstResetText === null) window.__firstResetText = r.innerText;
    }).observe(document, { childList: true, subtree: true });
  });
  await page.reload();
  await page.waitForSelector('#lesson-title');
  await page.locator('#lesson-title', { hasText: 'Идемпотентный продюсер и замерший брокер' }).waitFor({ timeout: 10000 });
  const first = await page.evaluate(() => window.__firstResetText);
  assert(first && first.includes('Сброс'), `the first Reset drawn: ${first}`);
}, { lesson: true });

test('lesson mode at 1280×720, in the light theme and narrow', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.click('#lesson-next');
  await page.screenshot({ path: join(artifacts, '28-lesson-1280x720.png'), fullPage: false });
  // At 1280 px the lesson bar shares the header's row and the playback bar is one row, so
  // on a narration step the stage starts in the top half of a 720 px projector.
  const top = async (sel) => (await page.locator(sel).first().boundingBox()).y;
  assert(Math.abs((await top('#next-lesson')) - (await top('.brand'))) < 20, 'the lesson bar is on the header row');
  assert((await page.locator('#scenario-picker').isVisible()) === false, 'the lesson chose the scenario: no picker');
  // The buttons are one row; the caption of the current step is a row of its own under it.
  const controls = await page.locator('nav.controls').boundingBox();
  const caption = await page.locator('#now-line').boundingBox();
  assert(Math.abs((await top('#reset')) - (await top('#to-lesson'))) < 10, 'the buttons are one row');
  assert(controls.height - caption.height < 80, `the playback bar is one row and the caption (${controls.height} px, ${caption.height} of them the caption)`);
  assert(caption.height < 60, `the caption is two lines at most (${caption.height} px)`);
  assert((await top('main.stage')) < 400, `the stage starts in the top part (${await top('main.stage')})`);
  await page.emulateMedia({ colorScheme: 'light' });
  for (let i = 0; i < 2; i++) await page.click('#lesson-next');
  await page.screenshot({ path: join(artifacts, '29-lesson-light.png'), fullPage: false });
  await page.setViewportSize({ width: 560, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(artifacts, '30-lesson-narrow.png'), fullPage: false });
  const by = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert(by <= 0, `no horizontal page scroll at 560 px (${by})`);
  // Narrow too, the lesson chose the scenario: the picker returns with the free playground.
  assert((await page.locator('#scenario-picker').isVisible()) === false, 'no picker in a lesson at 560 px');
  const bar = await page.locator('.lesson-nav').boundingBox();
  assert(bar.height < 110, `the lesson bar and Share take at most two rows (${bar.height} px)`);
  await page.click('#leave-lesson');
  await page.selectOption('#scenario-picker', 'seed-commit-abort');
  await page.locator('#back-to-lesson').waitFor();
  assert((await page.locator('#lesson-panel').count()) === 0, 'picking a scenario leaves the lesson');
  await page.click('#back-to-lesson');
  assert((await lessonStep(page)) === 'Step 4 of 6', 'back at the same step');
  assert((await page.locator('#scenario-picker option:checked').getAttribute('value')) === 'seed-frozen-broker', 'the lesson run again');
}, { lesson: true });

test('by keyboard, a lesson step takes the focus to its text, and Try again back to the answer', async (page) => {
  const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  await page.goto(url + '?lesson=delivery-guarantees', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-next');
  await page.focus('#lesson-next');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  assert((await focused()) === 'lesson-text', `Next: the step's text has the focus (${await focused()})`);
  await page.goto(url + '?lesson=delivery-guarantees&ls=1', { waitUntil: 'load' });
  await page.waitForSelector('#answer-number');
  await page.focus('#answer-number');
  await page.keyboard.type('5');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#try-again');
  await page.focus('#try-again');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  assert((await focused()) === 'answer-number', `Try again: the answer field has the focus (${await focused()})`);
  // Leaving the lesson puts the focus on Step, where the arrows still step the run.
  await page.click('#leave-lesson');
  await page.waitForTimeout(300);
  assert((await focused()) === 'step', `Free playground: Step has the focus (${await focused()})`);
}, { lesson: true });

test('the arrows browse the scenario picker without loading; Enter loads, leaving puts it back', async (page) => {
  await page.goto(url + '?s=rpw-crash-exactly-once&step=5', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  await page.focus('#scenario-picker');
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(400);
  assert((await stepNumber(page)) === 5 && page.url().includes('rpw-crash-exactly-once'), `an arrow loads nothing: ${page.url()}`);
  await page.keyboard.press('Tab');
  await page.waitForTimeout(300);
  assert((await page.locator('#scenario-picker').inputValue()) === 'rpw-crash-exactly-once', 'leaving puts the pick back');
  await page.focus('#scenario-picker');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(600);
  assert(page.url().includes('rpw-crash-at-least-once'), `Enter loads the one browsed to: ${page.url()}`);
  // A letter browses too (type-ahead), and Escape puts back what is loaded.
  await page.focus('#scenario-picker');
  await page.keyboard.press('l');
  await page.waitForTimeout(400);
  const browsed = await page.locator('#scenario-picker').inputValue();
  assert(browsed !== 'rpw-crash-at-least-once' && page.url().includes('rpw-crash-at-least-once'), `a letter browses to ${browsed} and loads nothing: ${page.url()}`);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  assert((await page.locator('#scenario-picker').inputValue()) === 'rpw-crash-at-least-once', 'Escape puts the pick back');
  assert(page.url().includes('rpw-crash-at-least-once'), `Escape loads nothing: ${page.url()}`);
});

test('at 1280×720 an answer sits beside its question, and the stage starts on screen', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + '?lesson=idempotent-producer&ls=4', { waitUntil: 'load' });
  await page.waitForSelector('#question.asking');
  const feedback = await answer(page, 0);
  await feedback.waitFor();
  const [f, q] = [await feedback.boundingBox(), await page.locator('#question').boundingBox()];
  assert(f.x + f.width <= q.x && f.y < q.y + q.height, `the answer left of the question: ${JSON.stringify({ f, q })}`);
  const stage = (await page.locator('main.stage').boundingBox()).y;
  assert(stage < 650, `the stage starts on screen with the answer shown (${stage})`);
  await page.screenshot({ path: join(artifacts, '29b-lesson-answer-1280x720.png'), fullPage: false });
  // The last step's try-its go under the question once answered, not in a row of their own.
  await page.goto(url + '?lesson=idempotent-producer&ls=5', { waitUntil: 'load' });
  await page.waitForSelector('#question.asking');
  await (await answer(page, 1)).waitFor();
  const [t, q5] = [await page.locator('.try-its').boundingBox(), await page.locator('#question').boundingBox()];
  assert(Math.abs(t.x - q5.x) < 2 && t.y >= q5.y + q5.height, `the try-its under the question: ${JSON.stringify({ t, q5 })}`);
  const stage5 = (await page.locator('main.stage').boundingBox()).y;
  // (The playback bar's caption row, one line at 720 px high, included.)
  const caption = (await page.locator('#now-line').boundingBox()).height;
  assert(stage5 - caption < 560, `the stage starts high with the try-its beside the answer (${stage5}, ${caption} of it the caption)`);
  // Beside a long text with no try-its, the answer goes under the question, and the Flink
  // stage still starts on screen.
  await page.goto(url + '?lesson=flink-two-phase-commit&ls=3', { waitUntil: 'load' });
  await page.waitForSelector('#question.asking');
  await page.click('#show-answer');
  await page.locator('#feedback').waitFor();
  const [fl, ql] = [await page.locator('#feedback').boundingBox(), await page.locator('#question').boundingBox()];
  assert(Math.abs(fl.x - ql.x) < 2 && fl.y >= ql.y + ql.height, `the answer under the question: ${JSON.stringify({ fl, ql })}`);
  const flink = (await page.locator('section.flink').boundingBox()).y;
  assert(flink - caption < 600, `the Flink stage starts on screen with the answer shown (${flink}, ${caption} of it the caption)`);
  // The Kafka stage's third column holds what reads and decides, beside the logs: the
  // coordinator a step points at, and the reader a last question asks about, are on the
  // first screen (at the foot of the clients' column they were at y≈1200 and y≈1500).
  const onScreen = async (query, sel) => {
    await page.goto(url + query, { waitUntil: 'load' });
    const box = await page.locator(sel).first().boundingBox();
    assert(box.y + box.height <= 720, `${sel} on the first screen of ${query}: ${JSON.stringify(box)}`);
    assert(await page.locator(sel).first().evaluate((e) => e.classList.contains('spotlight')), `${sel} is the step's spotlight`);
  };
  await onScreen('?lesson=commit-and-abort&ls=0', '.coordinator');
  await onScreen('?lesson=zombie-fencing&ls=2', '.coordinator');
  await onScreen('?lesson=acks-and-a-paused-leader&ls=5', 'article.consumer');
  // A second reader the step points at leads the column, above the coordinator (it was at y=752).
  await onScreen('?lesson=commit-and-abort&ls=4', 'article.consumer.spotlight');
  // A log the step points at comes above the oracle's counts (it ended at y=804), and a
  // processor above its producer (at y=772).
  await onScreen('?lesson=a-commit-waiting-for-its-marker&ls=0', 'section.partition.spotlight');
  assert(await page.$eval('.brokers', (e) => {
    const [bar, log] = [e.querySelector('.outcome-bar'), e.querySelector('.partition')];
    return bar.getBoundingClientRect().top > log.getBoundingClientRect().bottom;
  }), 'the oracle\'s counts under the logs while a log is pointed at');
  await onScreen('?lesson=alo-idempotent-consumer&ls=0', 'article.processor.spotlight');
  assert((await page.$eval('.side', (e) => e.firstElementChild.className)) === 'readers', 'in a lesson the readers lead the column');
  // In the playground the narration leads it, as on the stage's first screen before.
  await page.goto(url + '?s=rpw-crash-exactly-once', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  assert((await page.$eval('.side', (e) => e.firstElementChild.className)) === 'events', 'in the playground the narration leads the column');
}, { lesson: true });

test('an open question hides what would give its answer away; Enter on a choice answers', async (page) => {
  // read-process-write's last step asks how many invoices auditor reads: the three lanes and
  // the compare table show the whole run's totals.
  await page.goto(url + '?lesson=read-process-write&ls=5', { waitUntil: 'load' });
  await page.waitForSelector('#question.asking');
  for (const sel of ['#lanes', 'section.compare', '#outcomes']) {
    const section = page.locator(sel);
    await section.waitFor({ state: 'attached' });
    assert((await section.evaluate((e) => getComputedStyle(e, '::before').content)).includes('hidden while'), `${sel} says why it is hidden`);
    assert(await section.evaluate((e) => [...e.children].every((c) => getComputedStyle(c).display === 'none')), `${sel}'s content is hidden`);
  }
  // The oracle's counts too (they can be the answer); its title stays.
  const bar = page.locator('#outcome-bar');
  assert((await bar.evaluate((e) => getComputedStyle(e, '::before').content)).includes('hidden while'), 'the oracle says why its counts are hidden');
  assert(await bar.evaluate((e) => [...e.querySelectorAll('.count')].every((c) => getComputedStyle(c).display === 'none')), 'the oracle\'s counts are hidden');
  assert(await bar.locator('.what').isVisible(), 'the oracle keeps its title');
  await page.locator('section.compare').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '29c-lesson-veil.png'), fullPage: false });
  // The run holds still until the answer: → and End do nothing, Step and End are disabled,
  // Back still works.
  const held = await stepNumber(page);
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('End');
  await page.waitForTimeout(200);
  assert((await stepNumber(page)) === held, `the run holds at step ${held} (now ${await stepNumber(page)})`);
  assert(await page.locator('#step').isDisabled() && await page.locator('#run-to-end').isDisabled(), 'Step and End wait for the answer');
  await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(200);
  assert((await stepNumber(page)) === held - 1, 'Back still steps back');
  // Enter on the choice in focus answers it, as in any form.
  await page.locator('#question input[type=radio]').nth(1).focus();
  await page.keyboard.press('Enter');
  await page.locator('#feedback.correct').waitFor();
  assert(await page.locator('section.compare table').first().isVisible(), 'the compare table is back once answered');
  assert(await page.locator('#outcome-bar .count').first().isVisible(), 'the oracle\'s counts are back');
  // The right choice is marked among the choices (here the one just given).
  const right = await page.locator('#question .choice.right').allInnerTexts();
  assert(right.length === 1 && right[0] === await page.locator('#question .choice').nth(1).innerText(), `the right choice is marked: ${right}`);
  assert(!(await page.evaluate(() => document.documentElement.classList.contains('lesson-asking'))), 'nothing is hidden any more');
}, { lesson: true });

test('a lesson\'s last step leads on to the next lesson, by click or PageDown', async (page) => {
  await page.goto(url + '?lesson=idempotent-producer&ls=5', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  await answer(page, 1);
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => /lesson=delivery-guarantees/.test(location.search), null, { timeout: 10000 });
  assert((await lessonStep(page)).startsWith('Step 1 of'), `the next lesson's first step: ${await lessonStep(page)}`);
}, { lesson: true });

test('an author\'s lesson file opens in lesson mode, and its link carries it whole', async (page) => {
  // A course author's own lesson, on an inline scenario with its own seed.
  await page.locator('#import-file').setInputFiles(join(root, 'docs', 'examples', 'my-lost-ack.toml'));
  await page.waitForFunction(() => document.querySelector('#lesson-title')?.textContent?.includes('My lesson'), null, { timeout: 15000 });
  assert((await lessonStep(page)) === 'Step 1 of 2', `its first step: ${await lessonStep(page)}`);
  // The lesson travels in the fragment (never sent to the server), its step in the query.
  assert(/[?&]ls=0(&|#)/.test(page.url()) && /#lx=[A-Za-z0-9_-]+$/.test(page.url()), `the link carries the lesson: ${page.url()}`);
  // The same run as eos-sim check's: the first point is the loss, under the lesson's seed.
  assert((await page.locator('.spotlight').count()) > 0, 'the spotlight lights the partition');
  await page.click('#lesson-contents-toggle');
  assert(/My lesson: a lost ack/.test(await page.locator('#lesson-contents li').first().innerText()), 'listed first among the lessons');
  await page.click('#lesson-contents-toggle');
  await page.click('#lesson-next');
  const feedback = await answer(page, 2);
  assert(/^Correct/.test(await feedback.innerText()), `graded against the run: ${await feedback.innerText()}`);
  await page.screenshot({ path: join(artifacts, '36-imported-lesson.png'), fullPage: false });
  // Imported again (its author edited it), it opens at the step the reader is on.
  await page.locator('#import-file').setInputFiles(join(root, 'docs', 'examples', 'my-lost-ack.toml'));
  await page.locator('#feedback').waitFor({ state: 'detached', timeout: 15000 });
  assert((await lessonStep(page)) === 'Step 2 of 2', `the same step: ${await lessonStep(page)}`);
  // A reload opens the link: the worker reads the lesson it carries, at the same step.
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#lesson-title')?.textContent?.includes('My lesson'), null, { timeout: 15000 });
  assert((await lessonStep(page)) === 'Step 2 of 2', `the link's step: ${await lessonStep(page)}`);
  // Its spotlight too, on the consumer its question is about (the stage renders it: a card
  // drawn after the step keeps it).
  await page.waitForTimeout(1000);
  const lit = await page.locator('.spotlight').evaluateAll((els) => els.map((e) => e.getAttribute('data-spot')));
  assert(lit.length === 1 && lit[0] === 'reader', `the link's step spotlights the reader: ${lit}`);
  // A step past the lesson's last opens its last, and says so.
  const linked = page.url();
  await page.goto(linked.replace(/([?&])ls=\d+/, '$1ls=9'), { waitUntil: 'load' });
  await page.locator('.error[role=alert]').waitFor({ timeout: 15000 });
  assert(/has 2 steps, and the link asks for step 10 \(ls=9\): showing its last step/.test(await page.locator('.error[role=alert]').innerText()), 'a late step is the last');
  await page.goto(linked, { waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('#lesson-step')?.textContent?.includes('Step 2 of 2'), null, { timeout: 15000 });
  await page.click('#show-answer');
  await page.click('#try-it-0');
  await page.locator('#trying').waitFor();
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('.readers')?.textContent?.includes('1 read'));
  assert(/[?&]try=0&step=\d+#lx=/.test(page.url()), `a try-it link: ${page.url()}`);
  // Back at the lesson, the revealed answer stays, at the step's own point (the run's end).
  await page.click('#back-to-lesson');
  await page.locator('#feedback').waitFor({ timeout: 10000 });
  await page.waitForFunction(() => /finished/.test(document.querySelector('#clock')?.textContent ?? ''));
  // Leaving the lesson keeps its scenario, linked as an imported scenario under its seed.
  await page.click('#leave-lesson');
  await page.waitForFunction(() => /[?&]seed=7&/.test(location.search) && /^#x=/.test(location.hash));
  const picked = await page.$eval('#scenario-picker', (s) => s.selectedOptions[0]?.textContent ?? '');
  assert(/A lost ack, without idempotence/.test(picked), `the header names it: ${picked}`);
  // A scenario imported during the lesson leaves it, even one named like the lesson's.
  await page.click('#back-to-lesson');
  const sameName = ['version = 1', 'name = "my-lost-ack"', '[[topics]]', 'name = "t"', '[[producers]]', 'name = "p"', '[[producers.sends]]', 'topic = "t"'].join('\n');
  await page.locator('#import-file').setInputFiles({ name: 'same-name.toml', mimeType: 'text/plain', buffer: Buffer.from(sameName) });
  await page.locator('#back-to-lesson').waitFor({ timeout: 15000 });
  assert((await page.locator('#lesson-panel').count()) === 0, 'the lesson is left for the imported scenario');
  // A link that differs only in its fragment, pasted over this one, is opened too.
  await page.evaluate(() => { window.location.hash = '#lx=AAAA'; });
  await page.waitForFunction(() => /cannot be opened/.test(document.querySelector('.error[role=alert]')?.textContent ?? ''), null, { timeout: 15000 });
  // A damaged lesson link (the payload in the query, as older links have it) says so and
  // opens the default view.
  await page.goto(url + '?lx=AAAA&ls=0', { waitUntil: 'load' });
  await page.locator('.error[role=alert]').waitFor({ timeout: 15000 });
  assert(/This link cannot be opened/.test(await page.locator('.error[role=alert]').innerText()), 'refused with a reason');
});

test('a lesson link opens that lesson step; a reload, a try-it and embed mode keep the place', async (page) => {
  await page.click('#lesson-next');
  await page.click('#lesson-next');
  assert(/[?&]lesson=idempotent-producer&ls=2(&|$)/.test(page.url()), `the URL follows the lesson: ${page.url()}`);
  const step = await stepNumber(page);
  await page.reload();
  await page.waitForSelector('#lesson-panel');
  assert((await lessonStep(page)) === 'Step 3 of 6' && (await stepNumber(page)) === step, 'a reload keeps the lesson step');
  // A link to another lesson's step.
  await page.goto(url + '?lesson=lost-ack&ls=1', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  assert(/lost ack/i.test(await page.locator('#lesson-title').innerText()), 'the linked lesson');
  assert(/^Step 2 of \d+$/.test(await lessonStep(page)), `its step: ${await lessonStep(page)}`);
  // A try-it run travels in the link too, with its step.
  await page.goto(url + '?lesson=idempotent-producer&ls=5', { waitUntil: 'load' });
  await answer(page, 1);
  // At the last step, Next leads on to the next lesson (a clicker's PageDown too).
  const onward = page.locator('#lesson-next');
  assert(!(await onward.isDisabled()) && /Next lesson/.test(await onward.innerText()), `the last step's Next: ${await onward.innerText()}`);
  await page.click('#try-it-0');
  await page.locator('#trying').waitFor();
  for (let i = 0; i < 4; i++) await page.click('#step');
  assert(/try=0&step=4/.test(page.url()), `a try-it link: ${page.url()}`);
  const hash = await traceHash(page);
  await page.reload();
  await page.locator('#trying').waitFor();
  await waitStep(page, 4);
  assert((await traceHash(page)) === hash, 'the try-it run restored at its step');
  // A try-it link's step past its run's end opens the end, and says so.
  await page.goto(url + '?lesson=idempotent-producer&ls=5&try=0&step=99999', { waitUntil: 'load' });
  await page.locator('#trying').waitFor();
  await page.locator('.error[role=alert]').waitFor({ timeout: 10000 });
  assert(/asks for step 99999, but its run ends at step \d+: showing its last step/.test(await page.locator('.error[role=alert]').innerText()), 'a try-it step past the end is named');
  assert(/finished/.test(await clockText(page)), `the try-it run's end: ${await clockText(page)}`);
  await page.click('#back-to-lesson');
  assert((await lessonStep(page)) === 'Step 6 of 6', 'back at the lesson step');
  // Embedded: the narration and the stage, PageDown moves through the lesson.
  await page.goto(url + '?lesson=idempotent-producer&ls=0&embed', { waitUntil: 'load' });
  await page.locator('.app.embed #lesson-panel').waitFor();
  assert((await page.locator('#lesson-contents-toggle').count()) === 0, 'no navigator in embed mode');
  await page.keyboard.press('PageDown');
  assert((await lessonStep(page)) === 'Step 2 of 6', 'PageDown moves to the next lesson step');
  assert(/ls=1&embed/.test(page.url()), `the URL keeps embed: ${page.url()}`);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.screenshot({ path: join(artifacts, '31-embed-lesson.png'), fullPage: false });
  // A lesson that does not exist, or a step it does not have.
  // A step the lesson does not have opens its last one, and says so.
  await page.goto(url + '?lesson=lost-ack&ls=99', { waitUntil: 'load' });
  await page.locator('.error[role=alert]').waitFor({ timeout: 10000 });
  assert(/has 5 steps, and the link asks for step 100 \(ls=99\): showing its last step/.test(await page.locator('.error[role=alert]').innerText()), 'a late step is the last');
  assert((await lessonStep(page)) === 'Step 5 of 5', `the lesson's last step: ${await lessonStep(page)}`);
  await page.click('#notice-close');
  assert((await page.locator('.error[role=alert]').count()) === 0, 'the notice is dismissed');
  assert((await lessonStep(page)) === 'Step 5 of 5', 'and the lesson stays');
  await page.waitForFunction(() => document.querySelector('.clients')?.textContent?.includes('idempotence off'));
  for (const [query, message] of [['?lesson=no-such-lesson', /no lesson is called "no-such-lesson"/], ['?lesson=../x', /lesson id/]]) {
    await page.goto(url + query, { waitUntil: 'load' });
    const error = page.locator('.error[role=alert]');
    await error.waitFor({ timeout: 10000 });
    assert(message.test(await error.innerText()), `${query}: ${await error.innerText()}`);
    assert((await page.locator('#back-to-lesson').count()) === 1, `${query}: the lessons are a click away`);
    // A first visit was never in a lesson: it is offered the course, not sent "back".
    const offer = await page.locator('#back-to-lesson').innerText();
    assert(offer.startsWith('Take the lessons'), `${query}: a fresh visit is offered the lessons: ${offer}`);
  }
}, { lesson: true });

test('the cost chart: three guarantees across commit intervals, as eos-sim cost measures them, exported as SVG', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-cost');
  await page.locator('#cost-latency svg').waitFor();
  for (const id of ['#cost-latency', '#cost-messages']) {
    const lines = await page.locator(`${id} svg polyline`).count();
    assert(lines >= 3, `${id}: a line per guarantee (${lines})`);
  }
  // The table under the chart holds the same numbers as the CLI.
  const points = cli(['cost', 'rpw-cost', '--interval', '10,25,50,100,200', '--json']);
  await page.click('.cost-table summary');
  const rows = await page.locator('.cost-table tbody tr').allInnerTexts();
  assert(rows.length === points.length, `${rows.length} rows vs ${points.length} points`);
  const eos200 = points.find((p) => p.guarantee === 'exactly-once' && p.commit_interval_ms === 200);
  const row = rows.find((r) => r.startsWith('exactly-once') && r.split('\t')[1] === '200');
  assert(row && row.includes((eos200.mean_latency_us / 1000).toFixed(1)), `exactly-once at 200 ms: ${row} vs ${eos200.mean_latency_us}`);
  const svg = await download(page, '#cost-latency-svg');
  assert(svg.name === 'rpw-cost-cost-latency.svg' && svg.body.toString('utf8').startsWith('<svg'), `SVG export ${svg.name}`);
  await page.locator('.cost').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '32-cost-chart.png'), fullPage: false });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(artifacts, '33-cost-chart-light.png'), fullPage: false });
});

test('outcomes over time: a line per guarantee, ending where eos-sim compare ends', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-at-least-once');
  await page.locator('#outcomes-visible svg').waitFor();
  for (const id of ['#outcomes-visible', '#outcomes-duplicates', '#outcomes-lost']) {
    const lines = await page.locator(`${id} svg polyline`).count();
    assert(lines >= 3, `${id}: a line per guarantee (${lines})`);
  }
  const report = cli(['compare', 'rpw-crash-at-least-once', '--json']);
  const rows = await page.locator('.outcomes-table tbody tr').allInnerTexts();
  assert(rows.length === 3, `a row per guarantee: ${rows}`);
  for (const row of rows) {
    const [g, steps, , dup, lost] = row.split('\t');
    const p = report[g].processing;
    assert(Number(steps) === report[g].steps, `${g}: steps ${steps} vs ${report[g].steps}`);
    assert(Number(dup) === p.duplicates && Number(lost) === p.lost, `${g}: ${row} vs ${JSON.stringify({ dup: p.duplicates, lost: p.lost })}`);
  }
  assert(rows.some((r) => r.startsWith('at-least-once') && r.split('\t')[3] !== '0'), 'at-least-once duplicates');
  const svg = await download(page, '#outcomes-lost-svg');
  assert(svg.name === 'rpw-crash-at-least-once-outcomes-lost.svg', `SVG export ${svg.name}`);
  await page.locator('.outcomes').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '38-outcomes-over-time.png'), fullPage: false });
});

test('the fork: idempotence flipped at a step, both futures side by side', async (page) => {
  await page.selectOption('#scenario-picker', 'lost-ack-idempotence-off');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  const options = await page.locator('#fork-change option').allInnerTexts();
  assert(options.includes('idempotence (app): off → on') && !options.some((o) => o.startsWith('checkpoints')), `changes offered, each saying which way: ${options}`);
  await page.selectOption('#fork-change', { label: 'idempotence (app): off → on' });
  assert((await page.locator('#fork-here').innerText()).includes('step 4'), 'forks at the step on screen');
  await page.click('#fork-here');
  const parted = await page.locator('.fork-parted').innerText();
  assert(/part at step \d+/.test(parted), parted);
  assert((await page.locator('.fork-side.changed').innerText()).includes('Changed: idempotence (app): off → on'), 'the changed side names the change');
  const asIs = await page.locator('.fork-side.as-is .fork-counts').innerText();
  const changed = await page.locator('.fork-side.changed .fork-counts').innerText();
  assert(asIs.includes('duplicates: 3') && changed.includes('duplicates: 0'), `${asIs} | ${changed}`);
  const fates = await page.locator('.fork-fates tbody tr').allInnerTexts();
  assert(fates.some((r) => r.startsWith('v0')), `v0's fate differs: ${fates}`);
  const steps = await page.locator('.fork-side .fork-events .step').allInnerTexts();
  assert(steps.every((s) => Number(s.slice(1)) > 4), `events after the fork: ${steps}`);
  // Each side names the oracle's findings among its events: where its counts come from.
  const asIsText = await page.locator('.fork-side.as-is').textContent();
  assert(/Duplicate: record v0 .* is stored 2 times/.test(asIsText), `the as-is side names its duplicates: ${asIsText}`);
  assert(!(await page.locator('.fork-side.changed').textContent()).includes('Duplicate:'), 'the changed side has none');
  await page.locator('.fork').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '41-fork.png'), fullPage: false });
  // Another change chosen with a fork on screen: forked at once, at the fork's step.
  const other = options.find((o) => o !== 'idempotence (app): off → on');
  assert(other, `a second change to choose: ${options}`);
  await page.selectOption('#fork-change', { label: other });
  await page.waitForFunction((o) => document.querySelector('.fork-side.changed')?.textContent.includes(`Changed: ${o}`), other, { timeout: 10000 });
  await page.waitForFunction(() => /[?&]fork=[^&]*@4(&|$)/.test(location.search), null, { timeout: 5000 });
  await page.selectOption('#scenario-picker', 'rpw-crash-exactly-once');
  assert((await page.locator('.fork-result').count()) === 0, 'a new scenario clears the fork');
  // A long future: the first 12 events, the rest folded away and opened from the keyboard.
  const guarantee = (await page.locator('#fork-change option').allInnerTexts()).find((o) => o.includes('at-least-once'));
  assert(guarantee, 'the guarantee can be changed');
  await page.selectOption('#fork-change', { label: guarantee });
  await page.click('#fork-here');
  const fold = page.locator('.fork-side.as-is .fork-more summary');
  const folded = Number((await fold.innerText()).replace(/\D/g, ''));
  assert(folded > 0 && (await page.locator('.fork-side.as-is li:visible').count()) === 12, `12 shown, ${folded} folded`);
  await fold.focus();
  await page.keyboard.press('Enter');
  assert((await page.locator('.fork-side.as-is li:visible').count()) === 12 + folded, 'Enter unfolds the rest');
  // A Flink job: each future against its failure-free run, and the key whose state differs.
  await page.selectOption('#scenario-picker', 'flink-at-least-once-overcount');
  await page.selectOption('#fork-change', { label: 'checkpointing: AT_LEAST_ONCE → EXACTLY_ONCE' });
  await page.click('#fork-here');
  const flinkAsIs = await page.locator('.fork-side.as-is .fork-flink').innerText();
  const flinkChanged = await page.locator('.fork-side.changed .fork-flink').innerText();
  assert(flinkAsIs.includes('key alice: 50, not 40') && flinkChanged.includes('the same output as a failure-free run'),
    `${flinkAsIs} | ${flinkChanged}`);
  const keyRow = await page.locator('.fork-fates tbody tr').allInnerTexts();
  assert(keyRow.some((r) => /key alice\s+state 50\s+state 40/.test(r)), `the state row: ${keyRow}`);
  await page.locator('.fork').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, '41b-fork-flink.png'), fullPage: false });
  // The fork travels in the page's link: opened again, the same fork is on screen, with its
  // change chosen.
  await page.waitForFunction(() => /[?&]fork=checkpointing@0(&|$)/.test(location.search), null, { timeout: 5000 });
  await page.goto(page.url());
  await page.waitForSelector('.fork-side.changed .fork-flink', { timeout: 30000 });
  assert((await page.locator('.fork-side.changed .fork-flink').innerText()) === flinkChanged, 'the link opens the same fork');
  const chosen = await page.locator('#fork-change').evaluate((s) => s.options[s.selectedIndex].text);
  assert(chosen === 'checkpointing: AT_LEAST_ONCE → EXACTLY_ONCE', `its change chosen: ${chosen}`);
});

test('a checkpoint opens in the inspector: its acknowledgements and what each snapshot holds, as eos-sim says', async (page) => {
  await page.selectOption('#scenario-picker', 'flink-backpressure-aligned');
  await page.click('#run-to-end');
  const report = cli(['run', 'flink-backpressure-aligned', '--json']).flink;
  const expired = report.checkpoints.find((c) => c.outcome === 'expired');
  const item = page.locator('.checkpoint-timeline li.checkpoint.expired button').first();
  await item.scrollIntoViewIfNeeded();
  const shown = Number((await item.locator('strong').innerText()).replace(/\D/g, ''));
  await item.click();
  const title = await page.locator('#inspector-title').innerText();
  assert(title === `checkpoint ${shown} · expired`, `the title: ${title}`);
  const line = report.checkpoints.find((c) => c.id === shown);
  assert(line && line.outcome === 'expired', `eos-sim has checkpoint ${shown} expired too (first expired: ${expired?.id})`);
  const text = await page.locator('#inspector').innerText();
  assert(text.includes(`acknowledged by ${line.acks} of`), `its acks as eos-sim counts them (${line.acks}): ${text}`);
  assert(text.includes('not acknowledged by'), 'who it waited for');
  assert(text.includes('timed out before every subtask acknowledged it'), 'why it is gone');
  assert((await page.locator('.checkpoint-timeline li.selected').count()) === 1, 'the checkpoint is marked as inspected');
  await page.screenshot({ path: join(artifacts, '45-checkpoint-inspector.png'), fullPage: false });
  // A completed one holds the subtasks' snapshots.
  await page.keyboard.press('Escape');
  await page.locator('.checkpoint-timeline li.checkpoint.completed button').last().click();
  const done = await page.locator('#inspector').innerText();
  assert(/snapshot of source-0\s+offsets events-0 @/.test(done), `a source's offsets in its snapshot: ${done}`);
  assert(!done.includes('not acknowledged by'), 'every subtask acknowledged a completed one');
  await page.keyboard.press('Escape');
});

test('checkpoints under backpressure, aligned vs unaligned: two headless runs drawn side by side, with the channel state each stores', async (page) => {
  await page.selectOption('#scenario-picker', 'flink-backpressure-aligned');
  await page.locator('#ckpt-duration svg').waitFor();
  for (const id of ['#ckpt-duration', '#ckpt-start-delay', '#ckpt-alignment']) {
    const texts = (await page.locator(`${id} svg text`).allTextContents()).map((t) => t.trim());
    assert(texts.some((t) => /^aligned \(\d+ expired/.test(t)) && texts.some((t) => t.startsWith('unaligned')), `${id}: both runs in the legend: ${texts.join('|')}`);
  }
  const aligned = cli(['run', 'flink-backpressure-aligned', '--json']).flink;
  assert(aligned.unaligned === false, 'the scenario as shipped is aligned');
  // Why the aligned checkpoints are slow: their barriers wait behind the queued records (the
  // start delay), not for alignment (each task has one input).
  const delay = (await page.locator('#ckpt-start-delay svg text').allTextContents()).join('|');
  assert(delay.includes('Start delay') && delay.includes('ringed: expired'), `the start-delay chart: ${delay}`);
  assert(aligned.checkpoints.every((c) => c.alignment_ms === 0 && (c.outcome !== 'expired' || c.start_delay_ms === null)), 'the CLI: no alignment; expired ones have no start delay');
  assert(aligned.checkpoints.some((c) => c.outcome === 'completed' && c.start_delay_ms > 100), 'the CLI: the completed one waited behind the backlog');
  assert((await page.locator('#ckpt-explain').innerText()).includes('Start delay'), 'the charts say what start delay means');
  // What unaligned checkpoints pay instead of alignment: the in-flight records they store.
  const channel = (await page.locator('#ckpt-channel-state svg text').allTextContents()).join('|');
  assert(channel.includes('Channel state stored') && channel.includes('in-flight records') && channel.includes('unaligned'), `the channel-state chart: ${channel}`);
  const stored = cli(['run', 'flink-backpressure-unaligned', '--json']).flink.checkpoints.map((c) => c.channel_state_records);
  assert(stored.some((n) => n > 0) && aligned.checkpoints.every((c) => c.channel_state_records === 0), `the CLI agrees: unaligned ${stored}, aligned none`);
  await page.locator('.checkpoints-chart').scrollIntoViewIfNeeded();
  await page.locator('.checkpoints-chart').screenshot({ path: join(artifacts, '37-checkpoint-chart.png') });
  await page.selectOption('#scenario-picker', 'seed-frozen-broker');
  assert((await page.locator('.checkpoints-chart').count()) === 0, 'no chart without a Flink job');
});

test('the two newest lessons: an idempotent consumer with the cost chart, and where exactly-once ends', async (page) => {
  await page.goto(url + '?lesson=alo-idempotent-consumer&ls=0', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  await walkLesson(page, { 2: 13, 3: 12 });
  await page.locator('#lesson-panel #cost-latency svg').waitFor();
  await page.screenshot({ path: join(artifacts, '34-lesson-cost-chart.png'), fullPage: false });
  await page.goto(url + '?lesson=where-exactly-once-ends&ls=0', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  await walkLesson(page, { 3: 30 });
  await page.screenshot({ path: join(artifacts, '35-lesson-where-eos-ends.png'), fullPage: false });
}, { lesson: true });

test('the unclean leader election lesson walks to its end, the leader naming its ISR', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + '?lesson=unclean-leader-election&ls=0', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  assert(/ISR 0$/.test((await page.locator('.partition-role').first().innerText()).trim()), `the ISR shrunk to the leader: ${await page.locator('.partition-role').first().innerText()}`);
  await walkLesson(page, { 1: 1, 2: 0, 3: 1, 4: 1 }, { 2: '38-lesson-unclean-election.png' });
}, { lesson: true });

test('the ISR lesson walks to its end: the follower cut off, dropped from the ISR and back', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + '?lesson=the-isr-and-a-network-partition&ls=0', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  const follower = async () => (await page.locator('.partition-role').nth(1).innerText()).trim();
  assert(/cut off from it$/.test(await follower()), `the follower is cut off: ${await follower()}`);
  await walkLesson(page, { 1: 1, 3: 2 }, { 1: '39-lesson-isr.png' });
}, { lesson: true });

test('the marker lesson walks to its end: a commit decided, its marker refused below min.insync.replicas, then read', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + '?lesson=a-commit-waiting-for-its-marker&ls=2', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  await answer(page, 0);
  const log = await page.locator('#event-log').innerText();
  assert(log.includes('refuses the COMMIT marker') && log.includes('NOT_ENOUGH_REPLICAS'), `the refusal is narrated: ${log.slice(-400)}`);
  const role = (await page.locator('.partition-role').first().innerText()).trim();
  assert(role.includes('ISR 0, under min.insync.replicas=2'), `the leader is alone in the ISR: ${role}`);
  await page.screenshot({ path: join(artifacts, '43-lesson-marker-refused.png'), fullPage: false });
  await page.goto(url + '?lesson=a-commit-waiting-for-its-marker&ls=0', { waitUntil: 'load' });
  await page.waitForSelector('#lesson-panel');
  await walkLesson(page, { 2: 0, 5: 1 });
}, { lesson: true });

test('a lesson captions the current step under its controls, in view when scrolled, as the log tells it', async (page) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url + '?lesson=a-commit-waiting-for-its-marker&ls=3', { waitUntil: 'load' });
  await page.waitForSelector('#now-line');
  const caption = async () => (await page.locator('#now-line .now-text').innerText()).trim();
  const logNow = async () => (await page.locator('#event-log .event.current .text').allInnerTexts()).map((t) => t.trim()).join(' ');
  const first = await caption();
  assert(first.endsWith('nothing it may read yet, held at the last stable offset 0 (high watermark 1).'), `the held poll, after its broker's answer: ${first}`);
  const log = await page.locator('#event-log').innerText();
  assert(log.includes('holds the last stable offset at 0, and read_committed waits there'), `the broker's answer says why: ${log.slice(-600)}`);
  assert(first === await logNow(), `the caption is the log's current line: ${first} / ${await logNow()}`);
  // Steps on to the next poll: nothing changed, so a few words, in the caption and the log.
  let again = '';
  for (let i = 0; i < 12 && !again.includes(' again: '); i++) {
    await page.click('#step');
    again = await caption();
  }
  assert(again.endsWith('at offset 0 again: still held at the last stable offset 0 (high watermark 1).'), `the repeat is short: ${again}`);
  assert(again === await logNow(), 'the log says the same');
  // Scrolled down to the diagram, the sticky bar keeps the caption on screen.
  await page.locator('.space-time, #diagram').first().scrollIntoViewIfNeeded();
  const box = await page.locator('#now-line').boundingBox();
  assert(box && box.y >= 0 && box.y + box.height <= 720, `the caption stays in view: ${JSON.stringify(box)}`);
  await page.screenshot({ path: join(artifacts, '44-lesson-caption.png'), fullPage: false });
  // A press takes the focus to the step's line in the log.
  await page.click('#now-line');
  const focused = await page.evaluate(() => document.activeElement?.closest('.event.current') !== null);
  assert(focused, "the focus is on the log's current line");
  // Outside a lesson the narration box is on the first screen: no caption.
  await page.goto(url + '?s=txn-marker-min-isr&step=29', { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  assert((await page.locator('#now-line').count()) === 0, 'no caption in the playground');
}, { lesson: true });

const traceHash = async (page) => (await page.locator('#trace-hash').innerText()).trim();
const waitStep = (page, n) => page.waitForFunction((n) => document.querySelector('#clock')?.textContent?.includes(`step ${n}`), n, { timeout: 10000 });
const download = async (page, selector) => {
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 15000 }), page.click(selector)]);
  return { name: file.suggestedFilename(), body: await readFile(await file.path()) };
};
const openShare = async (page) => {
  if (!(await page.locator('#share-menu').evaluate((d) => d.open))) await page.click('#share-menu > summary');
};

test('a permalink restores the scenario, the fault added by click, the step and the trace hash', async (page) => {
  for (let i = 0; i < 3; i++) await page.click('#step');
  await page.selectOption('#fault-target', 'broker-0');
  await page.click('#fault-crash');
  for (let i = 0; i < 4; i++) await page.click('#step');
  assert((await stepNumber(page)) === 7, 'at step 7');
  const hash = await traceHash(page);
  const link = page.url();
  assert(/[?&]s=seed-frozen-broker/.test(link) && /[?&]step=7/.test(link) && /[?&]f=at:/.test(link), `the URL follows the page: ${link}`);
  await openShare(page);
  assert((await page.locator('#share-link').inputValue()) === link, 'the Share menu shows the same link');
  await page.click('#share-copy');
  await page.locator('#share-status').waitFor();
  await page.screenshot({ path: join(artifacts, '20-share-menu.png'), fullPage: false });
  const other = await page.context().newPage();
  await other.goto(link, { waitUntil: 'load' });
  await waitStep(other, 7);
  assert((await traceHash(other)) === hash, `trace hash restored: ${await traceHash(other)} vs ${hash}`);
  assert(/crash broker 0/.test(await other.locator('#fault-schedule').innerText()), 'the fault is in the schedule');
  assert((await other.locator('.faults .injected').innerText()).includes('+1'), 'marked as added by click');
  await other.click('#run-to-end');
  await page.click('#run-to-end');
  assert((await traceHash(other)) === (await traceHash(page)), 'the same run to the end');
  await other.close();
});

test('hostile links: a value that is not one is left out with a notice; a link that cannot be opened shows the default view', async (page) => {
  // A value that is not one is left out: the link's scenario opens, and the page says so.
  for (const [query, message, atEnd] of [
    ['?s=seed-commit-abort&step=1000000000000000000', /asks for step 1000000 or later, but its run ends at step \d+: showing its last step/, true],
    ['?s=seed-commit-abort&step=3&msg=99999&step=2', /step= appears more than once: the last one \(step=2\) is used\. This link selects message 99999, which is not on the wire or delivered by step 2: nothing is selected/, false],
    ['?s=seed-commit-abort&step=-5&seed=x&g=always', /step=-5 is not a step number: showing step 0\. seed=x is not a seed.*g=always is not a guarantee/, false],
  ]) {
    await page.goto(url + query, { waitUntil: 'load' });
    const error = page.locator('.error[role=alert]');
    await error.waitFor({ timeout: 10000 });
    const text = await error.innerText();
    assert(message.test(text), `${query}: message ${text}`);
    const picked = await page.locator('#scenario-picker option:checked').innerText();
    assert(picked.includes('Commit and abort'), `${query}: the link's scenario, got ${picked}`);
    assert(atEnd ? /finished/.test(await clockText(page)) : [0, 2].includes(await stepNumber(page)), `${query}: ${await clockText(page)}`);
  }
  const cases = [
    ['?s=no-such-scenario&step=3', /no built-in scenario is called "no-such-scenario"/],
    ['?x=%%%not-base64', /cannot be opened/],
    ['?x=AAAAAAAA&step=2', /cannot be opened/],
    [`?x=${'A'.repeat(9000)}`, /limit/],
    ['?s=seed-frozen-broker&f=at:1,a:explode', /fault 1 does not fit its scenario \(action: "explode" is not a fault/],
  ];
  for (const [query, message] of cases) {
    await page.waitForLoadState('networkidle');
    await page.goto(url + query, { waitUntil: 'load' });
    const error = page.locator('.error[role=alert]');
    await error.waitFor({ timeout: 10000 });
    const text = await error.innerText();
    assert(message.test(text), `${query.slice(0, 40)}: message ${text}`);
    assert((await stepNumber(page)) === 0, `${query.slice(0, 40)}: step 0`);
    const picked = await page.locator('#scenario-picker option:checked').innerText();
    assert(picked.includes('Frozen broker'), `${query.slice(0, 40)}: the default scenario, got ${picked}`);
  }
  await page.screenshot({ path: join(artifacts, '21-hostile-link.png'), fullPage: false });
});

test('a malformed scenario file is refused field by field and nothing is lost', async (page) => {
  for (let i = 0; i < 5; i++) await page.click('#step');
  const hash = await traceHash(page);
  const bad = [
    'version = 1', 'name = "broken"', '[cluster]', 'brokers = 9',
    '[[topics]]', 'name = "t"', 'partitions = 0',
  ].join('\n');
  await page.locator('#import-file').setInputFiles({ name: 'broken.toml', mimeType: 'text/plain', buffer: Buffer.from(bad) });
  const errors = page.locator('#import-errors');
  await errors.waitFor({ timeout: 15000 });
  const text = await errors.innerText();
  assert(/broken\.toml was not imported/.test(text) && /cluster\.brokers/.test(text), `field errors: ${text}`);
  assert((await errors.locator('code.field').count()) >= 2, 'each field is named');
  assert((await stepNumber(page)) === 5 && (await traceHash(page)) === hash, 'the run on screen is unchanged');
  await page.screenshot({ path: join(artifacts, '22-import-errors.png'), fullPage: false });
  await page.locator('#import-file').setInputFiles({ name: 'junk.json', mimeType: 'application/json', buffer: Buffer.from('{"version": 1, "nme": 3}') });
  await page.waitForFunction(() => document.querySelector('#import-errors')?.textContent?.includes('junk.json'));
  assert(/unknown field/.test(await errors.innerText()), 'JSON errors too');
  // A TOML syntax error is one problem, its excerpt and caret kept aligned.
  await page.locator('#import-file').setInputFiles({ name: 'syntax.toml', mimeType: 'text/plain', buffer: Buffer.from('version = = 1\n') });
  await page.waitForFunction(() => document.querySelector('#import-errors')?.textContent?.includes('syntax.toml'));
  assert((await errors.locator('li').count()) === 1 && /1 \| version = = 1\n\s*\|\s+\^/.test(await errors.locator('pre.excerpt').innerText()), `one problem: ${await errors.innerText()}`);
  // An unknown field's list of allowed names (which holds the fix) wraps inside the box.
  await page.locator('#import-file').setInputFiles({ name: 'typo.toml', mimeType: 'text/plain', buffer: Buffer.from('version = 1\nname = "typo"\n[[topics]]\nname = "t"\n[[producers]]\nname = "app"\nrequest_timeout = 2000\n') });
  await page.waitForFunction(() => document.querySelector('#import-errors')?.textContent?.includes('typo.toml'));
  const why = errors.locator('p.why');
  assert(/unknown field `request_timeout`.*`request_timeout_ms`/.test(await why.innerText()), `the fix is in the text: ${await errors.innerText()}`);
  const [wb, eb] = [await why.boundingBox(), await errors.boundingBox()];
  assert(wb.x + wb.width <= eb.x + eb.width && wb.height > 30, `it wraps inside the box: ${JSON.stringify({ wb, eb })}`);
  // A binary file is refused as such, and a file of another kind is named.
  await page.locator('#import-file').setInputFiles({ name: 'binary.toml', mimeType: 'text/plain', buffer: Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x9f]) });
  await page.waitForFunction(() => document.querySelector('#import-errors')?.textContent?.includes('binary.toml'));
  assert(/not UTF-8 text/.test(await errors.innerText()), `binary: ${await errors.innerText()}`);
  await page.locator('#import-file').setInputFiles({ name: 'chart.toml', mimeType: 'text/plain', buffer: Buffer.from('kind = "chart"\nversion = 1\n') });
  await page.waitForFunction(() => document.querySelector('#import-errors')?.textContent?.includes('chart.toml'));
  assert(/kind = "chart": a scenario file has no `kind`/.test(await errors.innerText()), `kind: ${await errors.innerText()}`);
  // A lesson that breaks a rule is refused as `eos-sim check` refuses it.
  const lesson = await readFile(join(root, 'lessons', 'lost-ack.toml'), 'utf8');
  await page.locator('#import-file').setInputFiles({ name: 'wrong.toml', mimeType: 'text/plain', buffer: Buffer.from(lesson.replace(/^id = .*$/m, 'id = "bad id!"')) });
  await page.waitForFunction(() => document.querySelector('#import-errors')?.textContent?.includes('wrong.toml'));
  assert(/\bid\b/.test(await errors.innerText()), `lesson: ${await errors.innerText()}`);
  assert((await stepNumber(page)) === 5 && (await traceHash(page)) === hash, 'the run on screen is still unchanged');
  await page.click('#import-errors-close');
  assert((await errors.count()) === 0, 'dismissed');
});

test('the scenario downloads as TOML with its added faults and imports again to the same run', async (page) => {
  await page.click('#step');
  await page.selectOption('#fault-target', 'broker-0');
  await page.click('#fault-crash');
  await page.click('#run-to-end');
  const hash = await traceHash(page);
  await openShare(page);
  const toml = await download(page, '#share-scenario');
  assert(toml.name === 'seed-frozen-broker.toml', `file name ${toml.name}`);
  const text = toml.body.toString('utf8');
  assert(text.includes('[[faults]]') && /action = "crash"/.test(text), 'the added crash is in the file');
  const trace = await download(page, '#share-trace');
  const json = JSON.parse(trace.body.toString('utf8'));
  assert(json.trace_hash === hash && json.step === (await stepNumber(page)) && json.records.length === json.step, `trace export: ${json.trace_hash} vs ${hash}`);
  assert(json.report && json.report.scenario === 'seed-frozen-broker', 'the report is included');
  await page.click('#reset');
  await page.locator('#import-file').setInputFiles({ name: toml.name, mimeType: 'text/plain', buffer: toml.body });
  await page.waitForFunction(() => document.querySelector('#share-status')?.textContent?.includes('Imported'), null, { timeout: 15000 });
  assert(/#x=[A-Za-z0-9_-]+$/.test(page.url()), `an imported scenario travels in the link's fragment: ${page.url().length} characters`);
  // The picker names it, under its own heading, and the header gives its summary.
  const imported = async (p) => p.locator('#scenario-picker option:checked').evaluate((o) => `${o.parentElement.label}: ${o.textContent}`);
  assert((await imported(page)).startsWith('Your scenario: Frozen broker'), `the picker shows the import: ${await imported(page)}`);
  await page.click('#run-to-end');
  assert((await traceHash(page)) === hash, 'the re-imported scenario runs the same');
  // Its link opens it again, through the import worker.
  await page.click('#reset');
  for (let i = 0; i < 6; i++) await page.click('#step');
  const link = page.url();
  const stepHash = await traceHash(page);
  const other = await page.context().newPage();
  // While the worker reads the link's scenario (held back here), the page says it is
  // opening it instead of showing the default scenario.
  let release;
  const held = new Promise((ok) => { release = ok; });
  await other.route(/eos-codec.*\.js$/, async (route) => { await held; await route.continue(); });
  await other.goto(link, { waitUntil: 'load' });
  await other.locator('.opening-note').waitFor();
  assert(!(await other.locator('#scenario-picker').isVisible()), 'the default scenario is not shown while the link opens');
  release();
  await waitStep(other, 6);
  assert((await other.locator('.opening-note').count()) === 0, 'the note goes once the scenario is open');
  assert((await traceHash(other)) === stepHash, 'the imported scenario\'s link restores it');
  assert((await imported(other)).startsWith('Your scenario: '), `the link's picker shows the import: ${await imported(other)}`);
  await other.close();
});

test('a scenario of 100,000 records plays to its end and steps back (copies of the run stay within a memory budget)', async (page) => {
  // Each copy of this run holds a ledger of 100,000 entries (~25 MB): a copy every 64 steps
  // used to run the page out of memory.
  const text = 'version = 1\nname = "big"\n[[topics]]\nname = "t"\n[[producers]]\nname = "p"\n[[producers.sends]]\ntopic = "t"\ncount = 100000\n';
  await page.locator('#import-file').setInputFiles({ name: 'big.toml', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForFunction(() => document.querySelector('#share-status')?.textContent?.includes('Imported big.toml'), null, { timeout: 60000 });
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('#clock').textContent.includes('finished'), null, { timeout: 120000 });
  const end = await stepNumber(page);
  assert(end > 12000, `the whole run: ${end} steps`);
  await page.keyboard.press('ArrowLeft');
  await waitStep(page, end - 1);
  await page.keyboard.press('Home');
  await waitStep(page, 0);
});

test('drag and drop imports a scenario file', async (page) => {
  const report = cli(['run', 'seed-commit-abort', '--json']);
  // The TOML of a built-in, dropped on the page as a file.
  const text = await readFile(join(root, 'scenarios', 'seed-commit-abort.toml'), 'utf8');
  const data = await page.evaluateHandle((t) => { const d = new DataTransfer(); d.items.add(new File([t], 'dropped.toml')); return d; }, text);
  await page.dispatchEvent('.app', 'drop', { dataTransfer: data });
  await page.waitForFunction(() => document.querySelector('#share-status')?.textContent?.includes('Imported dropped.toml'), null, { timeout: 15000 });
  await page.click('#run-to-end');
  assert((await traceHash(page)) === report.trace_hash, 'the dropped scenario runs as the built-in does');
});

test('embed mode shows the stage and minimal controls, and PageDown steps', async (page) => {
  await page.waitForLoadState('networkidle');
  await page.goto(url + '?s=lost-ack-idempotence-off&embed', { waitUntil: 'load' });
  await page.locator('.app.embed').waitFor();
  for (const gone of ['#scenario-picker', '#space-time', '#share-menu', '#scrub', '#run-to-end', 'footer']) {
    assert((await page.locator(gone).count()) === 0, `no ${gone} in embed mode`);
  }
  for (const there of ['#step', '#step-back', '#play', '#reset', 'main.stage']) {
    assert((await page.locator(there).count()) === 1, `${there} in embed mode`);
  }
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  assert((await stepNumber(page)) === 3, 'PageDown steps');
  await page.keyboard.press('PageUp');
  assert((await stepNumber(page)) === 2, 'PageUp steps back');
  assert(/[?&]embed/.test(page.url()) && /step=2/.test(page.url()), `the URL keeps embed: ${page.url()}`);
  await page.setViewportSize({ width: 960, height: 540 });
  await page.screenshot({ path: join(artifacts, '23-embed.png'), fullPage: false });
});

test('the seed in the header reruns the scenario, and a seed that is not a number is refused', async (page) => {
  await page.selectOption('#scenario-picker', 'lost-ack-idempotence-off');
  await page.click('#run-to-end');
  await page.fill('#seed', '7');
  await page.press('#seed', 'Enter');
  await waitStep(page, 0);
  assert(/[?&]seed=7(&|$)/.test(page.url()), `the link carries the seed: ${page.url()}`);
  await page.click('#run-to-end');
  const report = cli(['run', 'lost-ack-idempotence-off', '--seed', '7', '--json']);
  assert((await traceHash(page)) === report.trace_hash, 'the page and the CLI agree under seed 7');
  await page.fill('#seed', 'abc');
  await page.press('#seed', 'Enter');
  const error = await page.locator('#seed-error').innerText();
  assert(/"abc" is not a seed/.test(error), `a sentence says what is allowed: ${error}`);
  assert((await traceHash(page)) === report.trace_hash && /finished/.test(await clockText(page)), 'the run on screen is kept');
  await page.fill('#seed', '1');
  await page.press('#seed', 'Enter');
  assert((await page.locator('#seed-error').count()) === 0, 'a good seed clears the message');
});

test('the guarantee in the header reruns the processor under another guarantee, and the link keeps it', async (page) => {
  await page.selectOption('#scenario-picker', 'rpw-crash-exactly-once');
  assert((await page.locator('#guarantee').inputValue()) === 'exactly-once', 'the file says exactly-once');
  await page.selectOption('#guarantee', 'at-least-once');
  await waitStep(page, 0);
  assert(/[?&]g=at-least-once(&|$)/.test(page.url()), `the link carries the guarantee: ${page.url()}`);
  await page.click('#run-to-end');
  const alo = cli(['compare', 'rpw-crash-exactly-once', '--json'])['at-least-once'].outcome;
  assert(alo.duplicates > 0 && (await page.locator('.brokers li.cell.dup').count()) === alo.duplicates, `the page shows the at-least-once duplicates (${alo.duplicates})`);
  assert((await page.locator('.stage article.processor').first().innerText()).includes('at-least-once'), 'the processor card says so');
  await page.reload();
  await page.waitForSelector('#guarantee');
  assert((await page.locator('#guarantee').inputValue()) === 'at-least-once', 'a reload keeps it');
  await page.selectOption('#scenario-picker', 'lost-ack-idempotence-off');
  assert((await page.locator('#guarantee').count()) === 0, 'no processor, no guarantee to pick');
});

test('the diagram and the logs export as SVG and PNG', async (page) => {
  await page.selectOption('#scenario-picker', 'lost-ack-idempotence-off');
  await page.click('#run-to-end');
  await openShare(page);
  const svg = await download(page, '#share-svg');
  const svgText = svg.body.toString('utf8');
  assert(svgText.startsWith('<svg') && svgText.includes('style="') && !svgText.includes('class="'), 'an SVG with inline styles');
  // The page cuts the diagram's own lane names off (it pins its own); the picture has them.
  assert(/viewBox="0 0 /.test(svgText), 'the picture is the whole diagram');
  assert(/visibility: ?visible[^>]*>producer app</.test(svgText), 'the picture names its lanes');
  const png = await download(page, '#share-png');
  assert(png.body.subarray(1, 4).toString() === 'PNG' && png.body.length > 5000, `a PNG (${png.body.length} bytes)`);
  const logs = await download(page, '#share-logs-png');
  assert(logs.body.subarray(1, 4).toString() === 'PNG', 'the logs as PNG');
  const logsSvg = await download(page, '#share-logs-svg');
  assert(logsSvg.body.toString('utf8').includes('payments-0'), 'the logs as SVG');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(artifacts, '24-export-diagram.png'), png.body);
  await writeFile(join(artifacts, '25-export-logs.png'), logs.body);
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await download(page, '#share-logs-png');
  await writeFile(join(artifacts, '26-export-logs-light.png'), light.body);
  await page.screenshot({ path: join(artifacts, '27-share-menu-light.png'), fullPage: false });
});

await mkdir(artifacts, { recursive: true });
const server = await serve();
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic',
    '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let passed = 0, failed = 0;
// E2E_ONLY=text runs only the tests whose name contains it (for a quick look while working).
const only = process.env.E2E_ONLY;
for (const { name, fn, lesson, blocked } of tests.filter((t) => !only || t.name.includes(only))) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // The page keeps its URL in step with what it shows (history.replaceState), and
  // Chromium may then abort the favicon request of the moment before: not a problem.
  page.on('requestfailed', (r) => {
    if (/favicon.*\.svg$/.test(r.url()) && r.failure()?.errorText === 'net::ERR_ABORTED') return;
    if (blocked?.test(r.url())) return;
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:')) problems.push(`request to another host: ${r.url()}`); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  try {
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('#clock', { timeout: 15000 });
    if (!lesson) await page.click('#leave-lesson');
    await fn(page);
    assert(problems.length === 0, problems.join('; '));
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
    if (problems.length) console.log(`     also: ${problems.slice(0, 5).join('; ')}`);
    await page.screenshot({ path: join(artifacts, `failed-${passed + failed}.png`), fullPage: true }).catch(() => {});
  }
  await context.close();
}
await browser.close();
server.close();
console.log(`e2e: ${passed} passed, ${failed} failed (screenshots in e2e/artifacts/)`);
process.exit(failed === 0 ? 0 : 1);
