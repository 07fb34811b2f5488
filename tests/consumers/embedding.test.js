// docs/embedding.md, tried: each snippet is read from the doc (so the doc and
// this test cannot drift), put into a small site of its tool, built with that
// tool, served on 127.0.0.1 and opened in Debian's Chromium. Each element must
// render (data-ready, heatmap cells or charts, no error shown) with no console
// error and no request leaving 127.0.0.1. The component files come from the
// packed tarball, as listed in the doc's "What to copy".
//
// Tools, at exact versions, installed into each site's temp folder (from the
// npm cache when it has them) and removed afterwards: Hexo and Docusaurus (npm),
// Hugo (Debian's `hugo`, on PATH: .ci/run installs it; skipped locally without
// it, failed in CI). Jupyter Book 1 is Sphinx (pip, not reachable): its built
// layout is assembled by hand. Jupyter Book 2 is mystmd (npm): its site content
// is built with a stub theme (real themes are downloaded) and checked.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FMA_BUILT, freshApp, launch, root, run, serve, writeFiles } from './helpers.js';

/** Exact versions of the tools a site installs. */
const VERSIONS = {
  hexo: { hexo: '8.1.2', 'hexo-renderer-marked': '7.0.1' },
  docusaurus: { '@docusaurus/core': '3.10.2', '@docusaurus/preset-classic': '3.10.2', '@mdx-js/react': '3.1.1', react: '19.2.0', 'react-dom': '19.2.0' },
  mystmd: { mystmd: '1.8.3' },
};

const doc = readFileSync(join(root, 'docs', 'embedding.md'), 'utf8');

/** The fenced code blocks under the `## heading` of the doc, in order: { lang, body }. */
function blocks(heading) {
  const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`) || s.startsWith(`${heading} (`));
  if (!section) throw new Error(`docs/embedding.md has no section "## ${heading}"`);
  // ```` fences may hold ``` fences (the MyST example)
  return [...section.matchAll(/^(`{3,})([\w-]*)\n([\s\S]*?)^\1\s*$/gm)].map((m) => ({ lang: m[2], body: m[3] }));
}

/** The `index`th block of `lang` under `heading` (throws when there is none). */
function block(heading, lang, index = 0) {
  const found = blocks(heading).filter((b) => b.lang === lang);
  if (found.length <= index) throw new Error(`docs/embedding.md, "## ${heading}": no ${lang} block #${index}`);
  return found[index].body;
}

const timings = {};
function timed(label, fn) {
  const start = performance.now();
  try {
    return fn();
  } finally {
    timings[label] = Math.round(performance.now() - start) / 1000;
  }
}

const temps = [];
function tempDir(name) {
  const dir = mkdtempSync(join(tmpdir(), `attention-lab-embed-${name}-`));
  temps.push(dir);
  return dir;
}

/** `npm install` exact versions into a site folder (under a machine-wide lock: npm's cache is shared). */
function npmInstall(dir, deps) {
  const specs = Object.entries(deps).map(([name, v]) => `${name}@${v}`);
  return timed(`install ${Object.keys(deps)[0]}`, () =>
    run('flock', [join(tmpdir(), 'npm.lock'), 'npm', 'install', '--no-audit', '--no-fund', '--no-package-lock', '--prefer-offline', '-E', ...specs], { cwd: dir }),
  );
}

let files; // the packed tarball's dist/ folder
/** Copy the files "What to copy" names into `dest`, as the doc tells a site author to. */
function copyComponents(dest) {
  const listing = blocks('What to copy').find((b) => b.lang === '' && /components\.js/.test(b.body)).body;
  const names = [...listing.matchAll(/^dist\/(\S+)/gm)].map((m) => m[1]);
  expect(names).toEqual(['components.js', 'attention-lab-fma.wasm', 'attention-lab-simd.wasm', 'attention-lab-scalar.wasm', 'katex-fonts/*.woff2']);
  mkdirSync(join(dest, 'katex-fonts'), { recursive: true });
  for (const name of names) {
    if (name.includes('*')) {
      const [dir, pattern] = name.split('/');
      const re = new RegExp(`^${pattern.replace('.', '\\.').replace('*', '.*')}$`);
      const fonts = readdirSync(join(files, dir)).filter((f) => re.test(f));
      expect(fonts.length).toBeGreaterThan(10);
      for (const f of fonts) cpSync(join(files, dir, f), join(dest, dir, f));
    } else if (FMA_BUILT || name !== 'attention-lab-fma.wasm') cpSync(join(files, name), join(dest, name));
  }
}

let browser;

/**
 * Open `url`; wait until every attention-* element on it has rendered; return
 * what each shows, the problems seen and the server's request log.
 */
async function openPage(server, path, { ready, click } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const problems = [];
  const outside = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['data:', 'blob:'].includes(u.protocol) && u.hostname !== '127.0.0.1') outside.push(r.url());
  });
  const url = `${server.url}${path}`;
  try {
    await page.goto(url);
    if (ready) await page.waitForFunction(ready, null, { timeout: 30_000 });
    if (click) await page.click(click); // a client-side navigation (a single-page app's link)
    const elements = () => [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('attention-'));
    await page.waitForFunction(`(${elements})().length > 0 && (${elements})().every((e) => 'ready' in e.dataset)`, null, { timeout: 30_000 });
  } catch (e) {
    await context.close();
    throw new Error(`${url}: the elements did not render (${e.message.split('\n')[0]}); problems: ${problems.join('; ') || 'none'}`);
  }
  const shown = await page.evaluate(() =>
    [...document.querySelectorAll('*')]
      .filter((e) => e.localName.startsWith('attention-'))
      .map((e) => ({
        tag: e.localName,
        attributes: Object.fromEntries([...e.attributes].filter((a) => a.name !== 'data-ready').map((a) => [a.name, a.value])),
        defined: Boolean(customElements.get(e.localName)),
        language: e.language,
        error: e.shadowRoot.querySelector('.error, [role="alert"]')?.textContent ?? null,
        cells: e.shadowRoot.querySelectorAll('td[data-i]').length,
        charts: e.shadowRoot.querySelectorAll('svg').length,
        colorScheme: e.colorScheme,
        columns: [...(e.shadowRoot.querySelector('table') ?? document.createElement('table')).querySelectorAll('th[scope="col"]')].map((th) => th.textContent),
        panel: e.panel,
      })),
  );
  await context.close();
  return { shown, problems, outside, requests: server.requests };
}

/** The checks every tool's page passes: rendered, something computed, nothing wrong, nothing from elsewhere. */
function expectRendered({ shown, problems, outside, requests }, { prefix = '', tags }) {
  expect(shown.map((s) => s.tag)).toEqual(tags);
  for (const s of shown) {
    expect(s.defined).toBe(true);
    expect(s.error).toBeNull();
    expect(s.cells + s.charts).toBeGreaterThan(0);
  }
  expect(problems).toEqual([]);
  expect(outside).toEqual([]);
  // the module, once, from where the snippet says; the .wasm next to it
  expect(requests.filter((r) => r.endsWith('/components.js'))).toEqual([`${prefix}/attention-lab/components.js`]);
  // Chromium has relaxed SIMD: the FMA build, wherever it was built (scripts/build.mjs)
  expect(requests).toContain(`${prefix}/attention-lab/attention-lab-${FMA_BUILT ? 'fma' : 'simd'}.wasm`);
}

beforeAll(async () => {
  const app = freshApp('embedding');
  temps.push(app);
  files = join(app, 'node_modules', 'attention-lab', 'dist');
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  console.log(`embedding snippets, seconds: ${JSON.stringify(timings)}`);
});

describe('docs/embedding.md: plain HTML', () => {
  it('the snippet, as a page, renders both elements', async () => {
    const site = tempDir('html');
    const html = block('Plain HTML', 'html');
    writeFiles(site, { 'index.html': `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>post</title></head><body>\n${html}</body></html>\n` });
    copyComponents(join(site, 'attention-lab'));
    const server = await serve(site);
    try {
      const out = await openPage(server, '/index.html');
      expectRendered(out, { tags: ['attention-steps', 'attention-pooling'] });
      expect(out.shown[0].attributes).toEqual({ sentence: 'the cat sat on the mat', mask: 'causal', step: 'weights' });
      expect(out.shown[1].language).toBe('zh-CN');
    } finally {
      await server.close();
    }
  });
});

describe('docs/embedding.md: Hexo', () => {
  let site;
  beforeAll(() => {
    site = tempDir('hexo');
    writeFiles(site, {
      'package.json': JSON.stringify({ name: 'blog', private: true, hexo: { version: VERSIONS.hexo.hexo } }),
      // a blog under a sub-path (a GitHub project site), which the tag must follow
      '_config.yml': 'title: Attention blog\nurl: http://127.0.0.1/blog\nroot: /blog/\npermalink: :title/\ntheme: mini\nlanguage: en\n',
      'themes/mini/layout/layout.njk': '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>{{ page.title }}</title></head><body>{{ body | safe }}</body></html>\n',
      'themes/mini/layout/post.njk': '<article><h1>{{ page.title }}</h1>{{ page.content | safe }}</article>\n',
      'themes/mini/layout/index.njk': '<p>index</p>\n',
      'scripts/attention.js': block('Hexo', 'js'),
      'source/_posts/attention.md': `---\ntitle: Attention\ndate: 2024-01-02\n---\n\nTwo tags:\n\n${block('Hexo', 'markdown')}`,
    });
    copyComponents(join(site, 'source', 'attention-lab'));
    npmInstall(site, VERSIONS.hexo);
  }, 600_000);

  it(`hexo ${VERSIONS.hexo.hexo} generate: the post's two tags render, under the blog's root`, async () => {
    const log = timed('hexo generate', () => run(process.execPath, [join(site, 'node_modules', 'hexo', 'bin', 'hexo'), 'generate'], { cwd: site }));
    expect(log).not.toMatch(/WARN|ERROR/);
    const html = readFileSync(join(site, 'public', 'attention', 'index.html'), 'utf8');
    expect(html).toContain('<attention-steps sentence="the cat sat on the mat" mask="causal" step="weights"></attention-steps>');
    // Hexo copies source/ as is
    expect(readFileSync(join(site, 'public', 'attention-lab', 'components.js'))).toEqual(readFileSync(join(files, 'components.js')));
    const server = await serve(join(site, 'public'), { prefix: '/blog' });
    try {
      const out = await openPage(server, '/attention/');
      expectRendered(out, { prefix: '/blog', tags: ['attention-steps', 'attention-pooling'] });
      expect(out.shown.map((s) => s.attributes)).toEqual([
        { sentence: 'the cat sat on the mat', mask: 'causal', step: 'weights' },
        { kernel: 'gaussian', bandwidth: '0.5', lang: 'zh-CN' },
      ]);
      expect(out.shown.map((s) => s.language)).toEqual(['en', 'zh-CN']);
    } finally {
      await server.close();
    }
  });
});

// Debian's hugo (0.111.3 in bookworm); .ci/run installs it. Locally, without it, the block is skipped.
const hugoVersion = spawnSync('hugo', ['version'], { encoding: 'utf8' }).stdout?.match(/v(\d+\.\d+\.\d+)/)?.[1];

describe.skipIf(!hugoVersion && !process.env.CI)('docs/embedding.md: Hugo', () => {
  let site;
  beforeAll(() => {
    if (!hugoVersion) throw new Error('hugo is not on PATH: .ci/run must install it (apt-get install hugo)');
    site = tempDir('hugo');
    const layout = (body) => `<!doctype html>\n<html lang="{{ .Site.LanguageCode }}"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>{{ .Title }}</title></head><body>${body}</body></html>\n`;
    writeFiles(site, {
      // a Chinese site under a sub-path, which relURL must follow
      'config.toml': 'baseURL = "http://127.0.0.1/notes/"\nlanguageCode = "zh-CN"\ntitle = "注意力"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n',
      'layouts/_default/single.html': layout('<article><h1>{{ .Title }}</h1>{{ .Content }}</article>'),
      'layouts/_default/list.html': layout('{{ range .Pages }}<a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ end }}'),
      'layouts/index.html': layout('<p>home</p>'),
      'layouts/shortcodes/attention.html': block('Hugo', 'go-html-template'),
      'content/posts/attention.md': `---\ntitle: Attention\n---\n\n${block('Hugo', 'markdown')}`,
      // what the shortcode does with quotes and markup in a value, and an explicit lang
      'content/posts/escaping.md': '---\ntitle: Escaping\n---\n\n{{< attention kind="steps" sentence="a \\"quoted\\" <b>word</b> & more" lang="en" d-model="6" >}}\n',
      // an author's attributes through the shortcode: own tokens, a fixed theme, the explorer keeping its state in the URL
      'content/posts/author.md': "---\ntitle: Author\n---\n\n{{< attention kind=\"steps\" tokens=\"didn't ▁the ##ing\" theme=\"dark\" step=\"weights\" >}}\n\n{{< attention kind=\"explorer\" sync-url=\"\" >}}\n",
    });
    copyComponents(join(site, 'static', 'attention-lab'));
    const log = timed('hugo', () => run('hugo', ['--destination', 'public'], { cwd: site, env: { ...process.env, HUGO_ENVIRONMENT: 'production' } }));
    expect(log).not.toMatch(/WARN|ERROR/);
  });

  it(`hugo ${hugoVersion ?? '(missing)'}: the shortcode renders both elements on a page under the site's sub-path`, async () => {
    const server = await serve(join(site, 'public'), { prefix: '/notes' });
    try {
      const out = await openPage(server, '/posts/attention/');
      expectRendered(out, { prefix: '/notes', tags: ['attention-steps', 'attention-heads'] });
      expect(out.shown.map((s) => s.attributes)).toEqual([
        { sentence: '我爱学习', mask: 'causal', step: 'weights' },
        { sentence: 'the cat sat on the mat', heads: '2', 'd-model': '8', 'd-k': '4' },
      ]);
      // no lang parameter: the page's <html lang="zh-CN">
      expect(out.shown.map((s) => s.language)).toEqual(['zh-CN', 'zh-CN']);
    } finally {
      await server.close();
    }
  });

  it('hugo: a parameter with quotes and markup arrives as the same text; lang="en" wins over the page', async () => {
    const server = await serve(join(site, 'public'), { prefix: '/notes' });
    try {
      const out = await openPage(server, '/posts/escaping/');
      expectRendered(out, { prefix: '/notes', tags: ['attention-steps'] });
      expect(out.shown[0].attributes).toEqual({ sentence: 'a "quoted" <b>word</b> & more', lang: 'en', 'd-model': '6' });
      expect(out.shown[0].language).toBe('en');
    } finally {
      await server.close();
    }
  });

  it('hugo: tokens as given, theme="dark", and <attention-explorer sync-url> reading the link', async () => {
    const server = await serve(join(site, 'public'), { prefix: '/notes' });
    try {
      const out = await openPage(server, '/posts/author/?panel=heads&keep=1');
      expect(out.shown.map((e) => e.tag)).toEqual(['attention-steps', 'attention-explorer']);
      expect(out.problems).toEqual([]);
      expect(out.outside).toEqual([]);
      const [steps, explorer] = out.shown;
      expect(steps.error).toBeNull();
      expect(explorer.error).toBeNull();
      expect(steps.columns).toEqual(["didn't", '▁the', '##ing']);
      expect(steps.colorScheme).toBe('dark');
      expect(explorer.panel).toBe('heads');
      expect(explorer.colorScheme).toBe('light'); // the page declares no colour scheme
    } finally {
      await server.close();
    }
  });
});

describe('docs/embedding.md: Docusaurus / MDX', () => {
  let site;
  let server;
  beforeAll(async () => {
    site = tempDir('docusaurus');
    writeFiles(site, {
      'package.json': JSON.stringify({ name: 'notes', private: true }),
      // a site under a sub-path, which useBaseUrl must follow; no favicon request
      'docusaurus.config.js': `export default {
  title: 'Attention notes',
  url: 'http://127.0.0.1',
  baseUrl: '/notes/',
  onBrokenLinks: 'throw',
  headTags: [{ tagName: 'link', attributes: { rel: 'icon', href: 'data:,' } }],
  presets: [['classic', { docs: { routeBasePath: '/' }, blog: false, pages: false, theme: {} }]],
};
`,
      'docs/index.md': '---\nslug: /\n---\n\n# Notes\n\nRead [about attention](./attention.mdx).\n',
      'docs/attention.mdx': `---\ntitle: Attention\nslug: /attention\n---\n\n${block('Docusaurus / MDX', 'mdx')}`,
      'src/components/Attention.jsx': block('Docusaurus / MDX', 'jsx'),
    });
    copyComponents(join(site, 'static', 'attention-lab'));
    npmInstall(site, VERSIONS.docusaurus);
    // --no-minify: a third less CPU; minifying does not touch the snippet's behaviour
    const build = timed('docusaurus build', () =>
      spawnSync(process.execPath, [join(site, 'node_modules', '@docusaurus', 'core', 'bin', 'docusaurus.mjs'), 'build', '--no-minify'], {
        cwd: site,
        encoding: 'utf8',
        env: { ...process.env, NO_UPDATE_NOTIFIER: '1' },
        maxBuffer: 64 << 20,
      }),
    );
    const log = `${build.stdout}\n${build.stderr}`;
    if (build.status !== 0) throw new Error(`docusaurus build failed:\n${log}`);
    expect(log).not.toMatch(/\[WARNING\]|\[ERROR\]/);
    server = await serve(join(site, 'build'), { prefix: '/notes' });
  }, 900_000);
  afterAll(() => server?.close());

  it(`docusaurus ${VERSIONS.docusaurus['@docusaurus/core']} build: the MDX page, opened directly, renders both elements`, async () => {
    // pre-rendered by the server build; the module is added after hydration
    const html = readFileSync(join(site, 'build', 'attention', 'index.html'), 'utf8');
    expect(html).toContain('<attention-steps sentence="the cat sat on the mat" mask="causal" step="weights"></attention-steps>');
    expect(html).not.toContain('components.js');
    server.requests.length = 0;
    const out = await openPage(server, '/attention');
    expectRendered(out, { prefix: '/notes', tags: ['attention-steps', 'attention-heads'] });
    expect(out.shown.map((s) => s.attributes)).toEqual([
      { sentence: 'the cat sat on the mat', mask: 'causal', step: 'weights' },
      { heads: '2', 'd-model': '8', 'd-k': '4', lang: 'zh-CN' },
    ]);
    expect(out.shown.map((s) => s.language)).toEqual(['en', 'zh-CN']);
  });

  it('docusaurus: reached by a client-side link from another page, the elements render too', async () => {
    server.requests.length = 0;
    // click once React has hydrated the page, so the link is the app's, not a full page load
    const out = await openPage(server, '/', { ready: () => document.documentElement.dataset.hasHydrated === 'true', click: 'article a[href="/notes/attention"]' });
    expectRendered(out, { prefix: '/notes', tags: ['attention-steps', 'attention-heads'] });
    expect(out.requests[0]).toBe('/notes/');
    expect(out.requests).not.toContain('/notes/attention'); // no full page load
  });
});

describe('docs/embedding.md: Jupyter Book / MyST', () => {
  const raw = () => block('Jupyter Book / MyST', 'markdown');
  const rawBody = () => raw().match(/^```\{raw\} html\n([\s\S]*?)^```/m)[1];

  // Jupyter Book 1 is Sphinx (pip, not reachable here). Sphinx's raw directive writes the
  // block's body verbatim into the page, and html_extra_path copies _extra/ to the site root;
  // this test lays out a built site that way by hand and opens it.
  it('Jupyter Book 1 layout (assembled, not built by Sphinx): the {raw} html body at the site root renders the element', async () => {
    const yaml = block('Jupyter Book / MyST', 'yaml');
    expect(yaml).toMatch(/^sphinx:\n {2}config:\n {4}html_extra_path: \['_extra'\]\n$/);
    const site = tempDir('jupyter-book');
    writeFiles(site, { 'page.html': `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>page</title></head><body><main><h1>Attention</h1>\n<div class="output text_html">${rawBody()}</div>\n</main></body></html>\n` });
    copyComponents(join(site, 'attention-lab')); // _extra/attention-lab/ → <site>/attention-lab/
    const server = await serve(site);
    try {
      const out = await openPage(server, '/page.html');
      expectRendered(out, { tags: ['attention-scaling'] });
      expect(out.shown[0].charts).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  // Why not _static/: Jupyter Book 1 adds each _static/**/*.js to every page as a classic script.
  it('components.js loaded as a classic <script> (what Jupyter Book 1 does with _static/) throws, so the doc keeps it out of _static/', async () => {
    const site = tempDir('jupyter-book-static');
    writeFiles(site, { 'page.html': '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>page</title><script src="_static/attention-lab/components.js"></script></head><body><p>page</p></body></html>\n' });
    copyComponents(join(site, '_static', 'attention-lab'));
    const server = await serve(site);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${server.url}/page.html`);
      await page.waitForLoadState('load');
      expect(errors.join('\n')).toMatch(/SyntaxError/);
    } finally {
      await context.close();
      await server.close();
    }
  });

  // Jupyter Book 2 is mystmd. Its HTML themes are downloaded from the network, which is not
  // reachable here, so the site is built with a local stub template (`myst build --site` writes
  // the pages' content as the themes receive it) and that content is checked.
  it(`Jupyter Book 2 (mystmd ${VERSIONS.mystmd.mystmd}): {raw} html and inline HTML do not reach the page, as the doc says`, () => {
    const site = tempDir('mystmd');
    writeFiles(site, {
      'package.json': JSON.stringify({ name: 'book', private: true }),
      'myst.yml': 'version: 1\nproject:\n  id: attention-embedding\nsite:\n  template: ./stub-theme\n',
      'stub-theme/template.yml': 'myst: v1\nkind: site\ntitle: stub\n',
      'raw.md': `# Attention\n\n${raw()}`,
      'inline.md': `# Attention\n\n${rawBody()}\n\nText.\n`,
    });
    npmInstall(site, VERSIONS.mystmd);
    const build = timed('myst build --site', () => spawnSync(process.execPath, [join(site, 'node_modules', 'mystmd', 'dist', 'myst.cjs'), 'build', '--site'], { cwd: site, encoding: 'utf8' }));
    const log = `${build.stdout}\n${build.stderr}`;
    expect(build.status, log).toBe(0);
    expect(log).toContain('raw.md unknown format for raw content: html');
    const mdast = (name) => JSON.parse(readFileSync(join(site, '_build', 'site', 'content', `${name}.json`), 'utf8')).mdast;
    const nodes = (tree) => [tree, ...(tree.children ?? []).flatMap(nodes)];
    // {raw} html: kept only as text under the raw node
    const rawNodes = nodes(mdast('raw'));
    expect(rawNodes.filter((n) => n.type === 'html')).toEqual([]);
    expect(rawNodes.find((n) => n.type === 'text')?.value).toBe(rawBody().trimEnd());
    // inline HTML: the script and the element are dropped
    const inline = nodes(mdast('inline'));
    expect(JSON.stringify(inline)).not.toMatch(/attention-scaling|components\.js/);
    expect(inline.filter((n) => n.type === 'text').map((n) => n.value)).toEqual(['Text.']); // the heading became the title
  }, 300_000);
});
