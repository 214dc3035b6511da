// Trunk post-build hook (Trunk.toml): minifies the page's JavaScript glue in release builds,
// and has the workers' loaders call wasm-bindgen's init the way it asks (see the end).
// Trunk's own minifier gives up on wasm-bindgen's `export default` and leaves the file as it
// is (43 KB); terser (installed by scripts/setup.sh from package-lock.json) takes it to
// ~19 KB. The snippets the page preloads (share.js, placement.js) are minified too. Each
// file's subresource-integrity hash in index.html is written again to match.
import { readFile, writeFile, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join, sep } from 'node:path';

if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);
const stage = process.env.TRUNK_STAGING_DIR;
if (!stage) {
  console.error('minify-js: TRUNK_STAGING_DIR is not set (run by trunk build, see Trunk.toml)');
  process.exit(1);
}
let minify;
try {
  ({ minify } = await import('terser'));
} catch {
  console.error('minify-js: terser is missing: run scripts/setup.sh (npm ci installs it)');
  process.exit(1);
}
const html = join(stage, 'index.html');
let page = await readFile(html, 'utf8');
// The page's glue (eos-web-HASH.js; the worker's glue is a classic script) and its snippets
// (snippets/eos-web-HASH/src/*.js, preloaded with the page).
const snippets = (await readdir(stage, { recursive: true }))
  .filter((n) => /^snippets\/eos-web-[0-9a-f]+\/.*\.js$/.test(n.split(sep).join('/')));
const glue = (await readdir(stage)).filter((n) => /^eos-web-[0-9a-f]+\.js$/.test(n));
for (const name of [...glue, ...snippets].map((n) => n.split(sep).join('/'))) {
  const file = join(stage, name);
  const out = await minify(await readFile(file, 'utf8'), { module: true, toplevel: true, ecma: 2020, compress: { passes: 2 }, mangle: true });
  if (!out.code) throw new Error(`minify-js: terser gave nothing for ${name}`);
  await writeFile(file, out.code);
  const integrity = `sha384-${createHash('sha384').update(out.code).digest('base64')}`;
  // The modulepreload link of this file carries its hash.
  const escaped = name.replace(/[.*+?^$()|[\]\\/{}]/g, '\\$&');
  const tag = new RegExp(`<link[^>]*${escaped}[^>]*>`);
  const before = page;
  page = page.replace(tag, (t) => t.replace(/integrity=("?)sha384-[A-Za-z0-9+/=]+/, `integrity=$1${integrity}`));
  if (page === before && /integrity=/.test(before.match(tag)?.[0] ?? '')) throw new Error(`minify-js: could not update the integrity of ${name}`);
}
await writeFile(html, page);

// The workers' loaders (Trunk's data-loader-shim) call wasm-bindgen's init with a bare path,
// which it answers with a "deprecated parameters" warning in the console on every load: they
// pass the object it asks for instead.
for (const name of (await readdir(stage)).filter((n) => n.endsWith('_loader.js'))) {
  const file = join(stage, name);
  const text = await readFile(file, 'utf8');
  const fixed = text.replace(/wasm_bindgen\(("[^"]+_bg\.wasm")\)/, 'wasm_bindgen({ module_or_path: $1 })');
  if (fixed === text) throw new Error(`minify-js: the loader ${name} is not the expected shim: ${text}`);
  await writeFile(file, fixed);
}
