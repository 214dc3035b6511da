// Browser benchmarks (not tests): load to interactive, step back at depth 100,000, and frame
// time while playing with about 1,000 messages in flight. Serves dist/ (trunk build
// --release) to headless Chromium and prints medians and p95s as JSON; BENCHMARKS.md records
// them. Run: node e2e/bench.mjs
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml' };
const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  try {
    const file = join(dist, path.endsWith('/') ? path + 'index.html' : path);
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch { res.writeHead(404).end(); }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const round = (x) => Math.round(x * 10) / 10;
const results = {};

// A long run: four consumers polling every millisecond while one producer sends 2,000
// records, about 150,000 steps.
const deep = `version = 1
name = "bench-deep"
[[topics]]
name = "t"
partitions = 1
[[producers]]
name = "p"
client = "java"
linger_ms = 0
[[producers.sends]]
topic = "t"
key_prefix = "k"
count = 2000
interval_us = 5000
${[0, 1, 2, 3].map((i) => `[[consumers]]
name = "c${i}"
topic = "t"
poll_interval_ms = 1
max_empty_polls = 10000
`).join('')}[limits]
max_steps = 250000
`;
// About 1,000 produce requests on the wire at once: 8 producers, 500 ms links, one record
// every 4 ms each, up to 200 requests in flight per connection.
const busy = `version = 1
name = "bench-busy"
[network]
latency_us = 500000
[[topics]]
name = "t"
partitions = 8
${Array.from({ length: 8 }, (_, i) => `[[producers]]
name = "p${i}"
client = "java"
linger_ms = 0
enable_idempotence = false
acks = 1
max_in_flight_requests_per_connection = 200
[[producers.sends]]
topic = "t"
key_prefix = "k${i}-"
count = 1500
interval_us = 4000
`).join('')}`;

async function openPage() {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#clock');
  await page.click('#leave-lesson');
  return page;
}
async function importScenario(page, name, text) {
  await page.locator('#import-file').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForFunction((n) => document.querySelector('#share-status')?.textContent?.includes(`Imported ${n}`), name, { timeout: 120000 });
}
const clockStep = (page) => page.evaluate(() => Number(document.querySelector('#clock').textContent.match(/step (\d+)/)[1]));

// 1. Load to interactive: navigation start to the first lesson step on screen, 7 loads.
{
  const times = [];
  for (let i = 0; i < 7; i++) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('#lesson-panel #lesson-next');
    times.push(await page.evaluate(() => performance.now()));
    await page.close();
  }
  results.load_to_interactive_ms = { median: round(median(times)), max: round(Math.max(...times)) };
}

// 2. Step back at depth 100,000 (and jumps across the whole run).
{
  const page = await openPage();
  await importScenario(page, 'bench-deep.toml', deep);
  const total = await page.evaluate(() => Number(document.querySelector('#scrub')?.max ?? 0));
  const t0 = Date.now();
  await page.keyboard.press('End');
  await page.waitForFunction((t) => document.querySelector('#clock').textContent.includes(`step ${t}`), total, { timeout: 600000 });
  results.deep_run = { steps: total, run_to_end_ms: Date.now() - t0 };
  // Seek to 100,000 with the scrub bar, then step back 30 times, timing each.
  await page.evaluate(() => {
    const s = document.querySelector('#scrub');
    s.value = '100000';
    s.dispatchEvent(new Event('input', { bubbles: true }));
    s.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.waitForFunction(() => document.querySelector('#clock').textContent.includes('step 100000'), null, { timeout: 60000 });
  const backs = await page.evaluate(async () => {
    const out = [];
    const read = () => Number(document.querySelector('#clock').textContent.match(/step (\d+)/)[1]);
    for (let i = 0; i < 30; i++) {
      const before = read();
      const t = performance.now();
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
      while (read() !== before - 1) await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(r));
      out.push(performance.now() - t);
    }
    return out;
  });
  results.step_back_at_depth_100000_ms = { median: round(median(backs)), p95: round(p95(backs)), at: await clockStep(page) };
  const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
  results.deep_run.js_heap_mb = round(memory / 1e6);
  await page.close();
}

// 3. Frame time while playing at 16× with ~1,000 messages in flight.
{
  const page = await openPage();
  await importScenario(page, 'bench-busy.toml', busy);
  // Run to the thick of it: 1.6 s of simulated time, when the wire is full.
  await page.evaluate(() => {
    const s = document.querySelector('#scrub');
    s.value = String(Math.floor(Number(s.max) / 3));
    s.dispatchEvent(new Event('input', { bubbles: true }));
    s.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.waitForTimeout(500);
  const inFlight = await page.evaluate(() => document.querySelectorAll('.flights li, .flight').length);
  await page.selectOption('#speed', { index: 6 }).catch(() => {});
  await page.click('#play');
  const frames = await page.evaluate(async () => {
    const deltas = [];
    let last = performance.now();
    const end = last + 4000;
    while (performance.now() < end) {
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      deltas.push(now - last);
      last = now;
    }
    return deltas;
  });
  await page.click('#play');
  results.frame_time_playing_16x_ms = { frames: frames.length, median: round(median(frames)), p95: round(p95(frames)), messages_listed_on_screen: inFlight };
  await page.close();
}

console.log(JSON.stringify(results, null, 2));
await browser.close();
server.close();
