// Browser benchmarks (not tests): load to interactive, step back at depth 100,000, and frame
// time while playing with about 1,000 messages in flight. Serves dist/ (trunk build
// --release) to headless Chromium and prints medians and p95s as JSON; BENCHMARKS.md records
// them. Run: node e2e/bench.mjs
//
// BENCH_ONLY=load|deep|frame runs one measure; DIST=dir serves another build (say one without
// wasm-opt, which keeps function names); BENCH_PROFILE=1 records a CPU profile while playing
// and prints the functions with the most self time and the most total time (BENCH_MATCH, a
// regular expression, picks which; BENCH_PROFILE_OUT=file keeps the whole profile).
// BENCH_SCROLL=selector plays with that part in view, BENCH_SHOT=file.png takes a picture at
// the end of the playing, BENCH_DEBUG=1 reports where the held parts are, BENCH_CSS=rules
// adds a style sheet (say, to switch animations off). BENCH_ONLY=spot (only on demand)
// counts the lesson steps whose spotlight is wholly on the first 1280×720 screen, unscrolled,
// in English and in Russian, and lists the others.
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = process.env.DIST ?? join(root, 'dist');
const only = process.env.BENCH_ONLY ?? '';
const wants = (name) => only === '' || only === name;
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
// The functions with the most self time in a CDP CPU profile, in ms.
function topSelf(profile, n) {
  const dt = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const self = new Map();
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName || `(${node.callFrame.url.split('/').pop() || 'anonymous'})`;
    self.set(name, (self.get(name) ?? 0) + (node.hitCount ?? 0) * dt);
  }
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([f, ms]) => `${round(ms)} ${f}`);
}
// Inclusive time per function: each sample counts once for every function on its stack.
function topTotal(profile, n, match) {
  const dt = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const total = new Map();
  for (const id of profile.samples) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) seen.add(byId.get(at).callFrame.functionName);
    for (const f of seen) if (f && match.test(f)) total.set(f, (total.get(f) ?? 0) + dt);
  }
  return [...total].sort((a, b) => b[1] - a[1]).slice(0, n).map(([f, ms]) => `${round(ms)} ${f.replace(/::h[0-9a-f]{16}$/, '').slice(0, 140)}`);
}
const clockStep = (page) => page.evaluate(() => Number(document.querySelector('#clock').textContent.match(/step (\d+)/)[1]));

// 1. Load to interactive: navigation start to the first lesson step on screen, 7 loads.
if (wants('load')) {
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
if (wants('deep')) {
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
if (wants('frame')) {
  const page = await openPage();
  await importScenario(page, 'bench-busy.toml', busy);
  // Run to the thick of it: 1.6 s of simulated time, when the wire is full.
  const third = await page.evaluate(() => {
    const s = document.querySelector('#scrub');
    s.value = String(Math.floor(Number(s.max) / 3));
    s.dispatchEvent(new Event('input', { bubbles: true }));
    s.dispatchEvent(new Event('change', { bubbles: true }));
    return Number(s.value);
  });
  // Wait for the seek to be drawn and settle, so that only playing is measured.
  await page.waitForFunction((t) => document.querySelector('#clock').textContent.includes(`step ${t}`), third, { timeout: 120000 });
  await page.waitForTimeout(1000);
  const inFlight = await page.evaluate(() => document.querySelectorAll('.flights li, .flight').length);
  // BENCH_HIDE=selector,... takes parts of the page out, to see what the frame time is made of.
  if (process.env.BENCH_PROFILE === 'mutations') {
    // What each step changes in the DOM, by kind and by the changed element's class.
    await page.evaluate(() => {
      window.__mutations = {};
      window.__cellBursts = [];
      new MutationObserver((list) => {
        const added = list.reduce((n, m) => n + [...m.addedNodes].filter((x) => x.classList?.contains('cell')).length, 0);
        if (added > 0) window.__cellBursts.push([Math.round(performance.now()), added, document.querySelector('#clock').textContent.match(/step (\d+)/)[1]]);
        for (const m of list) {
          const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
          const k = `${m.type} ${m.attributeName ?? ''} ${el?.tagName?.toLowerCase()}.${(el?.className?.baseVal ?? el?.className ?? '').split(' ')[0]}`;
          window.__mutations[k] = (window.__mutations[k] ?? 0) + 1;
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
  }
  if (process.env.BENCH_PROFILE === 'survive') {
    // How many cells one step keeps (keyed cells should all survive but the stride's).
    results.survive = await page.evaluate(async () => {
      const out = [];
      for (let i = 0; i < 40; i++) {
        const logs = [...document.querySelectorAll('ol.log')];
        const firstKeys = logs.map((l) => `${l.dataset.partition}@${l.dataset.broker}:${l.querySelector('li.cell .offset')?.textContent}-${l.querySelector('li.cell:last-child .offset')?.textContent}/${l.children.length}`);
        const before = [...document.querySelectorAll('li.cell')];
        before.forEach((el) => { el.__old = true; });
        document.querySelectorAll('ol.log, section.partition, .partition-head, li.earlier').forEach((el) => { el.__old = true; });
        const txt = document.querySelector('#clock').textContent;
        if (i < 5) {
          window.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
          while (document.querySelector('#clock').textContent === txt) await new Promise((r) => setTimeout(r, 0));
          await new Promise((r) => setTimeout(r, 30));
        } else {
          document.querySelector('#play').click();
          await new Promise((r) => setTimeout(r, i * 100));
          document.querySelector('#play').click();
          await new Promise((r) => setTimeout(r, 50));
        }
        const after = [...document.querySelectorAll('li.cell')];
        const logs2 = [...document.querySelectorAll('ol.log')];
        out.push({ logs: firstKeys.join(' '), logs2: logs2.map((l) => `${l.querySelector('li.cell .offset')?.textContent}-${l.querySelector('li.cell:last-child .offset')?.textContent}/${l.children.length}/${[...l.children].filter((c) => !c.__old).length}/${l.__old ? 'ol' : 'OLNEW'}/${l.closest('section').__old ? 's' : 'SNEW'}`).join(' '), before: before.length, after: after.length, kept: after.filter((el) => el.__old).length, stillInDom: before.filter((el) => el.isConnected).length });
      }
      return out;
    });
  }
  if (process.env.BENCH_HIDE) await page.addStyleTag({ content: `${process.env.BENCH_HIDE} { display: none !important; }` });
  if (process.env.BENCH_CSS) await page.addStyleTag({ content: process.env.BENCH_CSS });
  if (process.env.BENCH_PROFILE) {
    // Where the elements are: a count per section of the page.
    results.elements = await page.evaluate(() => Object.fromEntries(
      [...document.querySelectorAll('.app > *, .stage > *, .clients > *, .brokers > *')]
        .map((el, i) => [`${i} ${el.tagName.toLowerCase()}.${el.className.baseVal ?? el.className}`.slice(0, 60), el.querySelectorAll('*').length])));
  }
  await page.selectOption('#speed', { index: 6 }).catch(() => {});
  const cdp = process.env.BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
  const tracing = process.env.BENCH_PROFILE === 'trace';
  const events = [];
  if (cdp && tracing) {
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    await cdp.send('Tracing.start', { categories: process.env.BENCH_TRACE_CATEGORIES ?? 'devtools.timeline,blink', transferMode: 'ReportEvents' });
  } else if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const stepBefore = await clockStep(page);
  await page.click('#play');
  // BENCH_SCROLL=selector: play with that part of the page in view (the playback buttons
  // stay on screen: the controls bar is sticky).
  if (process.env.BENCH_SCROLL) await page.evaluate((sel) => document.querySelector(sel)?.scrollIntoView(), process.env.BENCH_SCROLL);
  if (process.env.BENCH_DEBUG) results.where = await page.evaluate(() => ({ arrows: document.querySelectorAll('#space-time .arrow').length, wire: document.querySelectorAll('#space-time .arrow.wire').length, scrollY: window.scrollY, held: [...document.querySelectorAll('.held')].map((e) => Math.round(e.getBoundingClientRect().top)) }));
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
  if (process.env.BENCH_SHOT) await page.screenshot({ path: process.env.BENCH_SHOT });
  await page.click('#play');
  if (process.env.BENCH_PROFILE === 'mutations') {
    results.steps_played = (await clockStep(page)) - stepBefore;
    results.cell_bursts = await page.evaluate(() => JSON.stringify(window.__cellBursts));
    results.mutations = await page.evaluate(() => Object.entries(window.__mutations).sort((a, b) => b[1] - a[1]).slice(0, 30));
  }
  if (cdp && tracing) {
    const done = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
    await cdp.send('Tracing.end');
    await done;
    const total = new Map();
    for (const e of events) if (e.ph === 'X' && e.dur) total.set(e.name, (total.get(e.name) ?? 0) + e.dur / 1000);
    // Machine-independent work counts: objects laid out, elements restyled, per frame.
    const perFrame = (x) => round(x / Math.max(1, frames.length));
    const sum = (name, pick) => events.filter((e) => e.name === name).reduce((a, e) => a + (pick(e) ?? 0), 0);
    results.work_per_frame = {
      layout_objects: perFrame(sum('Layout', (e) => e.args?.beginData?.dirtyObjects)),
      restyled_elements: perFrame(sum('UpdateLayoutTree', (e) => e.args?.elementCount)),
      layouts: perFrame(events.filter((e) => e.name === 'Layout').length),
      frames: frames.length,
      steps: (await clockStep(page)) - stepBefore,
    };
    results.trace_top_ms = [...total].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([n, ms]) => `${round(ms)} ${n}`);
    // The longest tasks of a few kinds, to see what the slow frames are made of.
    const longest = (name) => events.filter((e) => e.name === name && e.dur).map((e) => round(e.dur / 1000)).sort((a, b) => b - a).slice(0, 12);
    results.longest_ms = Object.fromEntries(['FireAnimationFrame', 'TimerFire', 'Layout', 'Paint', 'MajorGC', 'MinorGC', 'V8.GC_SCAVENGER', 'BlinkGC.AtomicPhase', 'FunctionCall'].map((n) => [n, longest(n)]));
  } else if (cdp) {
    const profile = (await cdp.send('Profiler.stop')).profile;
    if (process.env.BENCH_PROFILE_OUT) await (await import('node:fs/promises')).writeFile(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
    results.profile_top_self_ms = topSelf(profile, 40);
    results.profile_top_total_ms = topTotal(profile, 60, new RegExp(process.env.BENCH_MATCH ?? 'eos_|yew::|TimerFire|Run'));
  }
  // The main thread's work per frame, from a trace of a second stretch of playing: the
  // interval between frames cannot be under the display's 16.7 ms, so its p95 does not say
  // whether a frame's work fits in a frame; the work itself does. Each frame runs from one
  // of the measuring loop's animation-frame callbacks to the next; its work is the
  // renderer's main-thread tasks that start in it (script, style, layout, paint).
  if (!process.env.BENCH_PROFILE) {
    const tracer = await page.context().newCDPSession(page);
    const traced = [];
    tracer.on('Tracing.dataCollected', (e) => traced.push(...e.value));
    await tracer.send('Tracing.start', { categories: 'toplevel,devtools.timeline', transferMode: 'ReportEvents' });
    await page.click('#play');
    await page.evaluate(async () => {
      const end = performance.now() + 4000;
      while (performance.now() < end) await new Promise((r) => requestAnimationFrame(r));
    });
    await page.click('#play');
    const done = new Promise((ok) => tracer.once('Tracing.tracingComplete', ok));
    await tracer.send('Tracing.end');
    await done;
    const mains = new Set(traced.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    const on = (e) => mains.has(`${e.pid}:${e.tid}`);
    const tasks = traced.filter((e) => on(e) && e.ph === 'X' && e.dur && (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask')).sort((a, b) => a.ts - b.ts);
    // A frame starts with the task that runs its animation-frame callbacks (the page's own
    // and the measuring loop's run in one task).
    const fired = traced.filter((e) => on(e) && e.name === 'FireAnimationFrame').map((e) => e.ts);
    const starts = [...new Set(fired.map((ts) => tasks.find((k) => k.ts <= ts && ts <= k.ts + k.dur)?.ts ?? ts))].sort((a, b) => a - b);
    const work = [];
    let t = 0;
    for (let i = 0; i + 1 < starts.length; i++) {
      let busy = 0;
      while (t < tasks.length && tasks[t].ts < starts[i]) t++;
      for (let k = t; k < tasks.length && tasks[k].ts < starts[i + 1]; k++) busy += tasks[k].dur / 1000;
      work.push(busy);
    }
    if (process.env.BENCH_DEBUG) {
      // What the slowest frames are made of: the main thread's events in them, by name.
      const slow = work.map((w, i) => [w, i]).sort((a, b) => b[0] - a[0]).slice(0, 6);
      results.slowest_frames = slow.map(([w, i]) => {
        const by = {};
        for (const e of traced) if (on(e) && e.ph === 'X' && e.dur && e.ts >= starts[i] && e.ts < starts[i + 1]) by[e.name] = (by[e.name] ?? 0) + e.dur / 1000;
        return [round(w), Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([n, ms]) => `${round(ms)} ${n}`)];
      });
    }
    results.main_thread_work_per_frame_ms = work.length
      ? { frames: work.length, median: round(median(work)), p95: round(p95(work)), over_16_7: work.filter((w) => w > 16.7).length, slowest: [...work].sort((a, b) => b - a).slice(0, 8).map(round) }
      : { error: 'no frames in the trace' };
  }
  results.frame_time_playing_16x_ms = { frames: frames.length, median: round(median(frames)), p95: round(p95(frames)), slowest: [...frames].sort((a, b) => b - a).slice(0, 16).map(round), over_17: frames.filter((f) => f > 17.5).length, over_20: frames.filter((f) => f > 20).length, messages_listed_on_screen: inFlight };
  await page.close();
}

// 4. Lesson spotlights on the first screen (on demand: BENCH_ONLY=spot).
if (only === 'spot') {
  const { readdir, readFile: read } = await import('node:fs/promises');
  const dir = join(root, 'lessons');
  const lessons = (await readdir(dir)).filter((f) => f.endsWith('.toml')).sort();
  for (const lang of ['en', 'ru']) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('#clock');
    if (lang === 'ru') {
      // The choice is kept in localStorage, so the pages below open in Russian.
      await page.getByRole('button', { name: 'RU', exact: true }).click();
      await page.waitForFunction(() => document.documentElement.lang === 'ru');
    }
    const out = { fits: 0, spotlit: 0, below: [] };
    for (const file of lessons) {
      const id = file.replace(/\.toml$/, '');
      const steps = ((await read(join(dir, file), 'utf8')).match(/^\[\[steps\]\]/gm) ?? []).length;
      for (let ls = 0; ls < steps; ls++) {
        await page.goto(`${url}?lesson=${id}&ls=${ls}`, { waitUntil: 'load' });
        await page.waitForSelector('#clock');
        await page.waitForFunction((l) => document.documentElement.lang === l, lang);
        await page.waitForTimeout(300);
        const box = await page.evaluate(() => {
          const r = document.querySelector('.spotlight')?.getBoundingClientRect();
          return r && { top: Math.round(r.top), bottom: Math.round(r.bottom) };
        });
        if (!box) continue;
        out.spotlit++;
        if (box.top >= 0 && box.bottom <= 720) out.fits++;
        else out.below.push(`${id} ls=${ls}: ${box.top}..${box.bottom}`);
      }
    }
    results[`lesson_spotlight_on_first_screen_${lang}`] = out;
    await page.close();
  }
}

console.log(JSON.stringify(results, null, 2));
await browser.close();
server.close();
