// Browser glue for sharing (see share.rs): the import worker, the URL, downloads, files,
// and images of the stage. No network: the worker is a file of this site, images are
// drawn from data URLs.

let worker = null;
let ready = false;
let nextId = 0;
const pending = new Map();
const queued = [];
// An answer not back by then is reported, so that the page never waits forever.
const ANSWER_TIMEOUT_MS = 30000;

function settle(id, text) {
  const entry = pending.get(id);
  if (!entry) return;
  pending.delete(id);
  clearTimeout(entry.timer);
  entry.done(text);
}

function failAll(reason) {
  for (const id of [...pending.keys()]) settle(id, `err\n${reason}`);
  queued.length = 0;
  worker?.terminate();
  worker = null;
  ready = false;
}

export function codecRequest(url, request, done) {
  if (!worker) {
    worker = new Worker(url);
    worker.onmessage = (e) => {
      const text = String(e.data);
      // The worker says so once its wasm runs: messages sent before would be lost.
      if (text === 'ready') {
        ready = true;
        for (const message of queued.splice(0)) worker.postMessage(message);
        return;
      }
      const cut = text.indexOf('\n');
      settle(Number(text.slice(0, cut)), text.slice(cut + 1));
    };
    worker.onerror = (e) => {
      e.preventDefault();
      failAll(`the import worker failed: ${e.message || 'it did not load'}`);
    };
  }
  nextId += 1;
  const id = nextId;
  const timer = setTimeout(() => settle(id, 'err\nthe import worker did not answer in time'), ANSWER_TIMEOUT_MS);
  pending.set(id, { done, timer });
  const message = `${id}\n${request}`;
  if (ready) worker.postMessage(message); else queued.push(message);
}

// A worker that posts its bytes once (the lessons' Russian texts): done(bytes), or
// done(undefined) if it fails to load or says nothing in time.
export function workerBytes(url, done) {
  let settled = false;
  const w = new Worker(url);
  const finish = (bytes) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    w.terminate();
    done(bytes);
  };
  // It says its bytes as soon as its wasm runs: a worker that cannot load says nothing.
  const timer = setTimeout(() => finish(undefined), 10000);
  w.onmessage = (e) => finish(e.data instanceof Uint8Array ? e.data : undefined);
  w.onerror = (e) => { e.preventDefault(); finish(undefined); };
}

// A scenario's or lesson's payload (x=, lx=) travels in the fragment, which browsers never
// send to the server: static hosts refuse request lines past about 8 KB. The page reads the
// query and the fragment as one.
const PAYLOAD = /(^|&)(l?x=[^&]*)/;
function withPayloadInFragment(query) {
  const q = query.replace(/^\?/, '');
  const m = q.match(PAYLOAD);
  if (!m) return query;
  const rest = q.replace(PAYLOAD, '').replace(/^&/, '');
  return `${rest ? `?${rest}` : ''}#${m[2]}`;
}

export function locationQuery() {
  // A link pasted over this one that differs only in its payload does not reload the page
  // by itself (our own replaceState never fires this).
  window.addEventListener('hashchange', () => {
    if (/^#(.*&)?l?x=/.test(window.location.hash)) window.location.reload();
  });
  const { search, hash } = window.location;
  const fragment = hash.replace(/^#/, '');
  if (!fragment) return search;
  // A payload in the fragment names what opens: the query's own scenario or lesson, left
  // from an earlier link, does not count.
  const own = /^(s|x|lesson|lx)=/;
  const rest = PAYLOAD.test(fragment)
    ? search.replace(/^\?/, '').split('&').filter((p) => p && !own.test(p)).join('&')
    : search.replace(/^\?/, '');
  return `?${rest}${rest ? '&' : ''}${fragment}`;
}

export function replaceQuery(query) {
  const target = withPayloadInFragment(query);
  if (`${window.location.search}${window.location.hash}` !== target) {
    history.replaceState(null, '', `${window.location.pathname}${target}`);
  }
}

export function linkFor(query) {
  return `${window.location.origin}${window.location.pathname}${withPayloadInFragment(query)}`;
}

export function copyText(text, done) {
  const fallback = () => {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    done(ok);
  };
  if (navigator.clipboard?.writeText) {
    navigator.clipboard.writeText(text).then(() => done(true), fallback);
  } else {
    fallback();
  }
}

function downloadBlob(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 5000);
}

export function downloadText(name, mime, text) {
  downloadBlob(name, new Blob([text], { type: mime }));
}

// The first file of a change event (file picker) or a drop event; `done(name, text, error)`.
export function readFile(event, maxBytes, done) {
  const files = event.dataTransfer?.files ?? event.target?.files;
  const file = files && files[0];
  if (!file) return;
  if (event.target && event.target.files) event.target.value = '';
  if (file.size > maxBytes) {
    done(file.name, '', `the file is ${file.size} bytes; the limit is ${maxBytes}`);
    return;
  }
  // Strict UTF-8, as the command line reads files: a binary file is refused, not shown as
  // garbled text.
  file.arrayBuffer().then((bytes) => {
    let text;
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch {
      done(file.name, '', 'the file is not UTF-8 text (a scenario or a lesson is a .toml or .json file)');
      return;
    }
    done(file.name, text, '');
  }, (e) => done(file.name, '', String(e)));
}

// Computed styles written inline, so that the SVG looks the same outside the page.
const PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity',
  'stroke-linecap', 'opacity', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor',
  'dominant-baseline', 'visibility', 'display', 'marker-end', 'marker-start', 'paint-order'];

// An SVG made by the page (not on screen), with the page's styles: laid out off screen
// inside the app for a moment, so that the theme applies.
export function svgFromMarkup(markup) {
  const holder = document.createElement('div');
  holder.className = 'export-holder';
  holder.setAttribute('aria-hidden', 'true');
  holder.innerHTML = markup;
  (document.querySelector('.app') || document.body).appendChild(holder);
  try {
    return svgOf(holder.querySelector('svg'));
  } finally {
    holder.remove();
  }
}

export function svgText(selector) {
  return svgOf(document.querySelector(selector));
}

function svgOf(source) {
  if (!source) return '';
  const copy = source.cloneNode(true);
  const inline = (from, to) => {
    const style = getComputedStyle(from);
    to.setAttribute('style', PROPS.map((p) => `${p}:${style.getPropertyValue(p)}`).join(';'));
    to.removeAttribute('class');
    to.removeAttribute('tabindex');
  };
  inline(source, copy);
  const from = source.querySelectorAll('*');
  const to = copy.querySelectorAll('*');
  from.forEach((el, i) => inline(el, to[i]));
  // Drawn for the picture only (the diagram's own lane labels; the page pins its own).
  copy.querySelectorAll('[data-export-only]').forEach((el) => { el.style.visibility = 'visible'; });
  // A picture cut on screen (the diagram's pinned lane labels) is exported whole.
  const whole = source.dataset?.exportViewbox;
  if (whole) copy.setAttribute('viewBox', whole);
  const box = whole ? (() => { const [x, y, w, h] = whole.split(' ').map(Number); return { x, y, width: w, height: h }; })() : source.viewBox?.baseVal;
  const rect = source.getBoundingClientRect();
  const width = box && box.width ? box.width : rect.width;
  const height = box && box.height ? box.height : rect.height;
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(width));
  copy.setAttribute('height', String(height));
  const bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bg.setAttribute('x', String(box ? box.x : 0));
  bg.setAttribute('y', String(box ? box.y : 0));
  bg.setAttribute('width', String(width));
  bg.setAttribute('height', String(height));
  const page = getComputedStyle(source.closest('section, main, body') || document.body).backgroundColor;
  bg.setAttribute('fill', page && page !== 'rgba(0, 0, 0, 0)' ? page : getComputedStyle(document.body).backgroundColor);
  copy.insertBefore(bg, copy.firstChild);
  return new XMLSerializer().serializeToString(copy);
}

export function downloadSvgText(name, svg) {
  downloadBlob(name, new Blob([svg], { type: 'image/svg+xml' }));
}

// Draws an SVG text on a canvas (twice the size, for sharp slides) and downloads a PNG;
// `done(error)` with '' on success.
export function downloadPng(name, svg, done) {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
  const width = Number(doc.getAttribute('width')) || 800;
  const height = Number(doc.getAttribute('height')) || 400;
  const image = new Image();
  image.onload = () => {
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    const context = canvas.getContext('2d');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    canvas.toBlob((blob) => {
      if (blob) { downloadBlob(name, blob); done(''); } else { done('the browser could not encode a PNG'); }
    }, 'image/png');
  };
  image.onerror = () => done('the browser could not draw the SVG');
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
