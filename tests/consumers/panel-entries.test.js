// One panel on a page, from the installed tarball served as a CDN, in Chromium: each per-panel entry
// point (`attention-lab/components/<id>`, dist/components/<id>.js) defines its element alone, renders
// with its own words (no raw string key on screen), and the bytes the page fetched are printed and
// held to a budget, gzip -9 as a CDN serves them. The explorer's entry point loads a panel's code on
// the panel's first show. The panel list comes from the registry (web/src/panels.js).
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PANELS } from '../../web/src/panels.js';
import { freshApp, launch, packed, root, serve, writeFiles } from './helpers.js';

const { version } = packed();
const KB = 1024;
// What one panel's page fetches in all (its code and the code it shares, the .wasm, the KaTeX fonts
// its formulas use), gzip -9, as measured on 2026-12-06 (docs/performance.md, "One panel on a page"):
// the steps panel, whose formulas are typeset at build time, within 200 KB (193 measured; the
// all-in-one module's page: about 350 KB); the others up to about 300, KaTeX's script (75) fetched on
// their first formula; the backward panel also loads the training build (389).
const BUDGET = { steps: 200 * KB, backward: 430 * KB };
const PANEL_BUDGET = 330 * KB;

const strings = await Promise.all(readdirSync(join(root, 'web/src/strings')).map((f) => import(join(root, 'web/src/strings', f))));
const KEYS = [...new Set(strings.flatMap((m) => [...Object.keys(m.default.en), ...Object.keys(m.default['zh-CN'])]))];

const pageFor = (cdn, script, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>One panel</title>
<script type="module" src="${cdn}/dist/components/${script}.js"></script></head>
<body>${body}</body></html>
`;

/** Every text and attribute value under `selector`'s shadow roots, nested ones included (run in the page). */
const SHOWN_TEXT = `(selector) => {
  const out = [];
  const walk = (node) => {
    if (node.nodeType === 3) out.push(node.data);
    if (node.nodeType === 1) for (const a of node.attributes) if (a.name === 'aria-label' || a.name === 'title') out.push(a.value);
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.childNodes) walk(child);
  };
  document.querySelectorAll(selector).forEach(walk);
  return out.join('\\n');
}`;

describe('one panel on a page: the per-panel entry points, in Chromium', () => {
  let app;
  let pkgDir;
  let cdn;
  let blog;
  let browser;
  const fetched = {};

  beforeAll(async () => {
    app = freshApp('panels');
    pkgDir = join(app, 'node_modules', 'attention-lab');
    cdn = await serve(pkgDir, { prefix: `/npm/attention-lab@${version}`, cors: true });
    const pages = Object.fromEntries(PANELS.map(({ id, tag }) => [`${id}.html`, pageFor(cdn.url, id, `<${tag} sentence="the cat sat on the mat" lang="zh-CN"></${tag}>`)]));
    pages['explorer.html'] = pageFor(cdn.url, 'explorer', '<attention-explorer sentence="the cat sat"></attention-explorer>');
    pages['all-in-one.html'] = pageFor(cdn.url, '../components', '<attention-steps sentence="the cat sat on the mat" lang="zh-CN"></attention-steps>');
    writeFiles(join(app, 'blog'), pages);
    blog = await serve(join(app, 'blog'));
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of [cdn, blog]) await s?.close();
    if (app) rmSync(app, { recursive: true, force: true });
    const rows = Object.entries(fetched).map(([id, f]) => `  ${id.padEnd(12)} ${(f.bytes / KB).toFixed(1).padStart(6)} KB gzip in ${f.files} files`);
    if (rows.length) console.log(`One panel on a page, everything fetched (gzip -9):\n${rows.join('\n')}`);
  });

  /** Open `name`.html, wait for `selector` to settle; the problems, the package files fetched and their gzip size. */
  async function open(name, selector) {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const problems = [];
    tab.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    tab.on('pageerror', (e) => problems.push(String(e)));
    tab.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
    const files = [];
    tab.on('response', (r) => r.url().startsWith(cdn.url) && files.push(r.url().slice(cdn.url.length + 1)));
    await tab.goto(`${blog.url}/${name}.html`);
    await tab.waitForFunction((sel) => customElements.get(sel), selector, { timeout: 30_000 });
    await tab.evaluate((sel) => document.querySelector(sel).updateComplete, selector);
    const bytes = () => files.reduce((sum, f) => sum + gzipSync(readFileSync(join(pkgDir, f)), { level: 9 }).length, 0);
    return { tab, context, problems, files, bytes };
  }

  it.each(PANELS.map((p) => [p.id, p]))('%s: its entry defines it alone; it renders in Chinese with no raw string key', async (id, { tag }) => {
    const { tab, context, problems, files, bytes } = await open(id, tag);
    const defined = await tab.evaluate((tags) => tags.filter((t) => customElements.get(t)), [...PANELS.map((p) => p.tag), 'attention-explorer']);
    const text = await tab.evaluate(`(${SHOWN_TEXT})(${JSON.stringify(tag)})`);
    fetched[id] = { bytes: bytes(), files: files.length };
    if (process.env.ATTENTION_LAB_LIST_FETCHED) console.log(id, files.map((f) => `${f} ${(gzipSync(readFileSync(join(pkgDir, f)), { level: 9 }).length / KB).toFixed(1)}`).join('\n'));
    await context.close();
    expect(defined).toEqual([tag]);
    expect(text.length).toBeGreaterThan(100);
    expect(text).toMatch(/[\u4e00-\u9fff]/);
    expect(KEYS.filter((key) => text.includes(key))).toEqual([]);
    expect(files).toContain(`dist/components/${id}.js`);
    expect(files.filter((f) => f.endsWith('.wasm'))).toHaveLength(1);
    // KaTeX's script only where a formula was not typeset at build time: never for the steps panel.
    if (id === 'steps') expect(files.filter((f) => /\/katex-[\w-]+\.js$/.test(f))).toEqual([]);
    if (id === 'scaling') expect(files.filter((f) => /\/katex-[\w-]+\.js$/.test(f))).toHaveLength(1);
    expect(fetched[id].bytes).toBeLessThanOrEqual(BUDGET[id] ?? PANEL_BUDGET);
    expect(problems).toEqual([]);
  });

  it('the all-in-one module, for comparison, fetches more for the same steps panel', async () => {
    const { context, problems, files, bytes } = await open('all-in-one', 'attention-steps');
    fetched['steps, all-in-one'] = { bytes: bytes(), files: files.length };
    await context.close();
    expect(problems).toEqual([]);
    expect(fetched['steps, all-in-one'].bytes).toBeGreaterThan(fetched.steps?.bytes ?? 0);
  });

  it("the explorer's entry loads a panel's code on the panel's first show", async () => {
    const { tab, context, problems, files, bytes } = await open('explorer', 'attention-explorer');
    const defined = () => tab.evaluate((tags) => tags.filter((t) => customElements.get(t)), PANELS.map((p) => p.tag));
    expect(await defined()).toEqual(['attention-steps']);
    await tab.evaluate(async () => {
      const explorer = document.querySelector('attention-explorer');
      explorer.selectPanel('cost');
      await explorer.updateComplete;
    });
    expect(await defined()).toEqual(['attention-steps', 'attention-cost']);
    const text = await tab.evaluate(`(${SHOWN_TEXT})('attention-explorer')`);
    expect(KEYS.filter((key) => text.includes(key))).toEqual([]);
    expect(await tab.evaluate(() => 'ready' in document.querySelector('attention-explorer').panels.cost.dataset)).toBe(true);
    fetched['explorer (steps, then cost)'] = { bytes: bytes(), files: files.length };
    await context.close();
    expect(problems).toEqual([]);
  });

  it("a panel whose code cannot be fetched says so in the explorer, and the other panels still work", async () => {
    const { tab, context } = await open('explorer', 'attention-explorer');
    // Every chunk not fetched yet fails from now on: the next panel's code cannot arrive.
    await tab.route('**/dist/components/*.js', (route) => route.abort());
    const shown = await tab.evaluate(async () => {
      const explorer = document.querySelector('attention-explorer');
      explorer.selectPanel('decoding');
      await explorer.updateComplete;
      const failed = explorer.panels.decoding.textContent;
      explorer.selectPanel('steps');
      await explorer.updateComplete;
      return { failed, defined: Boolean(customElements.get('attention-decoding')), steps: 'ready' in explorer.panels.steps.dataset };
    });
    await context.close();
    expect(shown.failed).toMatch(/^This panel’s code could not be loaded \(.+\)\. The other panels still work/);
    expect(shown.defined).toBe(false);
    expect(shown.steps).toBe(true);
  });
});
