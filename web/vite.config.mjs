// Vite settings for the two bundles built by scripts/build-web.mjs: the
// self-contained components module and the demo page's app.js. KaTeX's CSS is
// served as a virtual module: its element rules (for shadow roots) and its
// @font-face rules (woff2 only, base URL filled in at run time).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const katexDir = dirname(require.resolve('katex/package.json'));
const webDir = dirname(fileURLToPath(import.meta.url));

// Asset URLs stay literal in the bundles: `new URL('./file', import.meta.url)` next to
// components.js (or app.js), so the files are found relative to the bundle and a consumer's
// bundler (Vite, webpack) sees and copies them. While building, the literals are hidden as
// __ATTN_ASSET__('file') so this build neither inlines nor moves them; renderChunk restores them.
// The checkpoints (bindings/train/trained.js: '../checkpoints/<task>.bin' beside dist/train/) are
// kept too, as './checkpoints/<task>.bin': a bundle is one file, with that folder beside it.
const HIDE = /new URL\((['"])(?:\.\/)?([\w./-]+\.(?:wasm|woff2|bin))\1,\s*import\.meta\.url\)/g;
/** The train panel's worker as the bundles name it (built from web/src/components/train/worker.js). */
export const TRAIN_WORKER = 'attention-train-worker.js';
const WORKER = /new URL\((['"])\.\/worker\.js\1,\s*import\.meta\.url\)/;
const RESTORE = /__ATTN_ASSET__\(\s*(["'`])([\w./-]+)\1\s*\)/g;

/**
 * `base`: where the assets are from the bundle's chunks ('./' beside them; '../' for the per-panel
 * entry points in dist/components/, whose .wasm, fonts, checkpoints and training entry are in dist/).
 */
export function keepAssetUrls({ base = './' } = {}) {
  return {
    name: 'attention-lab-keep-asset-urls',
    enforce: 'pre',
    transform(code, id) {
      // The training entry the panels that show gradients import on first use (training-lab.js).
      if (base !== './' && /web[\\/]src[\\/]training-lab\.js$/.test(id)) {
        if (!code.includes(`'./training.js'`)) throw new Error(`${id}: no './training.js' to point at ${base}training.js`);
        return { code: code.replace(`'./training.js'`, `'${base}training.js'`), map: null };
      }
      // <attention-train>'s module worker is its own bundle next to this one (build-web.mjs):
      // hidden from Vite's worker bundling, which would copy the training .wasm under a new name.
      if (/components[\\/]train[\\/]attention-train\.js$/.test(id)) {
        if (!WORKER.test(code)) throw new Error(`${id}: no new URL('./worker.js', import.meta.url) to point at ${TRAIN_WORKER}`);
        return { code: code.replace(WORKER, `new URL(__ATTN_ASSET__('${TRAIN_WORKER}'), import.meta.url)`), map: null };
      }
      // The library's entries and the Emscripten glue name the .wasm next to themselves, trained.js and the reader the checkpoints.
      if (!/dist[\\/](index|training|train[\\/]trained|reader[\\/]reader|attention-lab-fma|attention-lab-(?:training-)?(?:simd|scalar))\.js$/.test(id)) return null;
      return { code: code.replace(HIDE, (m, q, file) => `new URL(__ATTN_ASSET__(${q}${file}${q}), import.meta.url)`), map: null };
    },
    renderChunk(code) {
      return { code: code.replace(RESTORE, (m, q, file) => `"${base}${file.replace(/^(?:\.\.\/)+/, '')}"`), map: null };
    },
  };
}

function katexCss() {
  const css = readFileSync(join(katexDir, 'dist/katex.min.css'), 'utf8');
  const faces = css.match(/@font-face\{[^}]*\}/g) ?? [];
  const rules = css.replace(/@font-face\{[^}]*\}/g, '');
  // Each face as code: text before the URL + the woff2 file's URL next to the bundle + text after.
  const parts = faces.map((face) => {
    const file = face.match(/url\(fonts\/([^)]+\.woff2)\)/)[1];
    const [before, after] = face.replace(/src:[^;}]*/, 'src:url(@URL@) format("woff2")').split('@URL@');
    return `${JSON.stringify(before)} + new URL(__ATTN_ASSET__(${JSON.stringify(`katex-fonts/${file}`)}), import.meta.url).href + ${JSON.stringify(after)}`;
  });
  return { rules, fontFaces: `() => [\n${parts.join(',\n')}\n].join('\\n')` };
}

const VIRTUAL = 'virtual:katex-css';
// The formulas typeset at build time (scripts/prerender-tex.mjs runs the steps panel on dist/'s
// library to find them), computed once per build process.
const PRERENDERED = 'virtual:prerendered-tex';
let prerendered = null;

export function katexPlugin() {
  return {
    name: 'attention-lab-katex-css',
    resolveId: (id) => (id === VIRTUAL || id === PRERENDERED ? `\0${id}` : null),
    async load(id) {
      if (id === `\0${PRERENDERED}`) {
        prerendered ??= import('../scripts/prerender-tex.mjs').then((m) => m.prerenderedTex());
        return `export default ${JSON.stringify(await prerendered)};\n`;
      }
      if (id !== `\0${VIRTUAL}`) return null;
      const { rules, fontFaces } = katexCss();
      return `export const rules = ${JSON.stringify(rules)};\n/** The @font-face rules, each src a woff2 file next to the bundle. */\nexport const fontFaces = ${fontFaces};\n`;
    },
  };
}

// The demo page's icon (web/favicon.svg, named in index.html), written next to its app.js so a
// browser asking for it gets no 404. A file, not a data: URL, which a CSP's img-src may refuse.
const PAGE_ENTRY = join(webDir, 'src/main.js');
function pageIcon() {
  return {
    name: 'attention-lab-page-icon',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'favicon.svg', source: readFileSync(join(webDir, 'favicon.svg')) });
    },
  };
}

/**
 * The per-panel entry points: `entries` ({ name: file }) built into outDir/<name>.js together, the
 * code they share in chunks beside them, the assets one folder up (dist/components/ → dist/).
 */
export function entriesConfig({ entries, outDir }) {
  return {
    configFile: false,
    logLevel: 'warn',
    plugins: [katexPlugin(), keepAssetUrls({ base: '../' })],
    build: {
      outDir,
      emptyOutDir: true,
      copyPublicDir: false,
      target: 'es2022',
      minify: true,
      reportCompressedSize: false,
      lib: { entry: entries, formats: ['es'], fileName: (format, name) => `${name}.js` },
      rolldownOptions: { treeshake: { moduleSideEffects: true }, output: { chunkFileNames: (chunk) => (chunk.name === 'katex' ? 'katex-[hash].js' : 'shared-[hash].js'), minify: true } },
    },
  };
}

/** A one-file ES module build of `entry` into outDir/fileName (the demo page's with its icon). */
export function bundleConfig({ entry, outDir, fileName }) {
  return {
    configFile: false,
    logLevel: 'warn',
    plugins: [katexPlugin(), keepAssetUrls(), ...(entry === PAGE_ENTRY ? [pageIcon()] : [])],
    build: {
      outDir,
      emptyOutDir: false,
      copyPublicDir: false,
      target: 'es2022',
      minify: true,
      reportCompressedSize: false,
      lib: { entry, formats: ['es'], fileName: () => fileName },
      rolldownOptions: { treeshake: { moduleSideEffects: true }, output: { codeSplitting: false, minify: true } },
    },
  };
}
