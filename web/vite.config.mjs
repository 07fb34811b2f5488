// Vite settings for the two bundles built by scripts/build-web.mjs: the
// self-contained components module and the demo page's app.js. KaTeX's CSS is
// served as a virtual module: its element rules (for shadow roots) and its
// @font-face rules (woff2 only, base URL filled in at run time).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
export const katexDir = dirname(require.resolve('katex/package.json'));

function katexCss() {
  const css = readFileSync(join(katexDir, 'dist/katex.min.css'), 'utf8');
  const faces = css.match(/@font-face\{[^}]*\}/g) ?? [];
  const rules = css.replace(/@font-face\{[^}]*\}/g, '');
  const woff2 = faces.map((f) => f.replace(/src:[^;}]*/, (src) => {
    const file = src.match(/url\(fonts\/([^)]+\.woff2)\)/)[1];
    return `src:url(__KATEX_FONTS__/${file}) format("woff2")`;
  }));
  return { rules, fontFaces: woff2.join('\n') };
}

const VIRTUAL = 'virtual:katex-css';

export function katexPlugin() {
  return {
    name: 'attention-lab-katex-css',
    resolveId: (id) => (id === VIRTUAL ? `\0${VIRTUAL}` : null),
    load(id) {
      if (id !== `\0${VIRTUAL}`) return null;
      const { rules, fontFaces } = katexCss();
      return `export const rules = ${JSON.stringify(rules)};\nexport const fontFaces = ${JSON.stringify(fontFaces)};\n`;
    },
  };
}

/** A one-file ES module build of `entry` into outDir/fileName. */
export function bundleConfig({ entry, outDir, fileName }) {
  return {
    configFile: false,
    logLevel: 'warn',
    plugins: [katexPlugin()],
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
