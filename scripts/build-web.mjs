#!/usr/bin/env node
// Builds the demo site into site/ and the self-contained components module
// into dist/components.js (+ dist/components.d.ts, dist/katex-fonts/), and beside each the train
// panel's module worker (attention-train-worker.js, with the training build in it).
// The .wasm files sit next to each bundle; KaTeX's woff2 fonts in katex-fonts/; the trained
// checkpoints in site/checkpoints/ (dist/components.js finds dist/checkpoints/, from the build).
// Usage: node scripts/build-web.mjs [--if-missing]
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { TRAIN_WORKER, bundleConfig, entriesConfig, katexDir } from '../web/vite.config.mjs';
import { EXPLORER_TAG, PANELS } from '../web/src/panels.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'web');
const dist = join(root, 'dist');
const site = join(root, 'site');
const WASM = ['attention-lab-simd.wasm', 'attention-lab-scalar.wasm'];
// The training build: <attention-train>'s worker loads it, and the panels that show gradients fetch
// training.js when one of them is shown; its .wasm sit next to both.
const TRAINING_WASM = ['attention-lab-training-simd.wasm', 'attention-lab-training-scalar.wasm'];
const WORKER_ENTRY = join(web, 'src/components/train/worker.js');
// The shipped checkpoints (lab.loadTrained) and the reader (lab.loadReader), fetched only when a panel shows trained weights.
const CHECKPOINTS = ['dates.bin', 'reverse.bin', 'grammar.bin', 'repeat.bin', 'reader/reader.bin'].map((f) => join('checkpoints', f));

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const outputs = [join(dist, 'components.js'), join(dist, 'components', 'explorer.js'), join(dist, TRAIN_WORKER), join(site, 'app.js'), join(site, 'training.js'), join(site, TRAIN_WORKER), join(site, 'index.html'), ...[...WASM, ...TRAINING_WASM, ...CHECKPOINTS].map((w) => join(site, w))];
if (process.argv.includes('--if-missing') && outputs.every(existsSync)) {
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const sources = Math.max(newest(web), ...[...WASM, ...TRAINING_WASM, ...CHECKPOINTS].map((w) => statSync(join(dist, w)).mtimeMs), statSync(join(dist, 'api.js')).mtimeMs, statSync(join(root, 'scripts/prerender-tex.mjs')).mtimeMs);
  if (built >= sources) {
    console.log('build-web: site/ and dist/components.js are up to date');
    process.exit(0);
  }
}

for (const w of [...WASM, ...TRAINING_WASM, ...CHECKPOINTS])
  if (!existsSync(join(dist, w))) {
    console.error(`build-web: dist/${w} is missing; run \`node scripts/build.mjs\` first`);
    process.exit(1);
  }

function copyFonts(to) {
  mkdirSync(to, { recursive: true });
  const fonts = join(katexDir, 'dist/fonts');
  for (const f of readdirSync(fonts)) if (f.endsWith('.woff2')) copyFileSync(join(fonts, f), join(to, f));
}

// 1. The components module for blogs and bundlers.
await build(bundleConfig({ entry: join(web, 'src/components/index.js'), outDir: dist, fileName: 'components.js' }));
await build(bundleConfig({ entry: WORKER_ENTRY, outDir: dist, fileName: TRAIN_WORKER }));
copyFileSync(join(web, 'src/components.d.ts'), join(dist, 'components.d.ts'));
copyFonts(join(dist, 'katex-fonts'));
await buildPanelEntries();

// 2. The demo site: static files with relative URLs only.
mkdirSync(site, { recursive: true });
await build(bundleConfig({ entry: join(web, 'src/main.js'), outDir: site, fileName: 'app.js' }));
await build(bundleConfig({ entry: WORKER_ENTRY, outDir: site, fileName: TRAIN_WORKER }));
for (const f of ['index.html', 'page.css']) copyFileSync(join(web, f), join(site, f));
// The training entry as one bundle beside app.js (web/src/training-lab.js imports ./training.js;
// dist/components.js finds dist/training.js there instead, with the package's module tree).
await build(bundleConfig({ entry: join(dist, 'training.js'), outDir: site, fileName: 'training.js' }));
mkdirSync(join(site, 'checkpoints', 'reader'), { recursive: true });
for (const w of [...WASM, ...TRAINING_WASM, ...CHECKPOINTS]) copyFileSync(join(dist, w), join(site, w));
// The FMA build's .wasm where it was made (scripts/build.mjs; its glue is a stub elsewhere).
const FMA_WASM = 'attention-lab-fma.wasm';
if (existsSync(join(dist, FMA_WASM))) copyFileSync(join(dist, FMA_WASM), join(site, FMA_WASM));
else rmSync(join(site, FMA_WASM), { force: true });
copyFonts(join(site, 'katex-fonts'));
console.log('build-web: wrote site/ and dist/components.js');

/**
 * 1b. One entry point per panel, `attention-lab/components/<id>` (dist/components/<id>.js): it
 * defines that panel's element only, so a page that embeds one panel loads its code and what it
 * shares with the others, not every panel; `explorer.js` defines the explorer, whose panels arrive
 * on their first show (panels.js). Each has a declaration file naming its class.
 */
async function buildPanelEntries() {
  const out = join(dist, 'components');
  const sources = join(root, 'build', 'panel-entries');
  rmSync(sources, { recursive: true, force: true });
  mkdirSync(sources, { recursive: true });
  const rows = [...PANELS, { id: 'explorer', tag: EXPLORER_TAG, module: './components/attention-explorer.js' }];
  const classOf = classNames();
  const entries = {};
  const at = (rel) => JSON.stringify(join(web, 'src', rel));
  for (const { id, tag, module, strings = [] } of rows) {
    const name = classOf[tag];
    entries[id] = join(sources, `${id}.js`);
    const tables = strings.map((table) => `import ${table} from ${at(`strings/${table}.js`)};\n`).join('');
    writeFileSync(
      entries[id],
      `${tables}import { addStrings } from ${at('i18n.js')};\nimport { ${name} } from ${at(module)};\n` +
        `addStrings({ ${strings.join(', ')} });\n${name}.define();\nexport { ${name} };\nexport { getLab } from ${at('lab.js')};\n`,
    );
  }
  await build(entriesConfig({ entries, outDir: out }));
  for (const { id, tag } of rows) writeFileSync(join(out, `${id}.d.ts`), `// <${tag}> only: importing this module defines it.\nexport { ${classOf[tag]}, getLab } from '../components.js';\n`);
}

/** Each element's class name by tag, from the tag map of components.d.ts. */
function classNames() {
  const map = readFileSync(join(web, 'src/components.d.ts'), 'utf8').match(/interface HTMLElementTagNameMap \{([\s\S]*?)\}/)[1];
  return Object.fromEntries([...map.matchAll(/'([\w-]+)': (\w+);/g)].map((m) => [m[1], m[2]]));
}
