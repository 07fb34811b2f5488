// Hostile input in Chromium: script payloads in the sentence box, the URL
// state and every attribute stay text; out-of-range settings are clamped with a
// visible note and the tab stays responsive; the demo and a component work
// under a strict Content-Security-Policy sent as an HTTP header.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { TYPES } from '../../scripts/serve.mjs';
import { tokenize } from '../../web/src/model.js';
import { ensureBuilt, launch, ready, root, watchedPage } from './browser.js';

const PAYLOADS = [
  '<img src=x onerror=alert(1)>',
  '"><script>alert(1)</script>',
  'javascript:alert(1)',
  '<svg onload=alert(1)>',
  "'><iframe srcdoc=\"<script>parent.alert(1)</script>\"></iframe>",
  '</style><img src=x onerror="window.__pwned=1">',
  '\\href{javascript:alert(1)}{x} \\htmlId{x}{y}',
  '<a href="javascript:alert(1)">link</a>',
];
// Every attribute any element observes (the explorer's and each panel's own ones).
const ATTRIBUTES = ['sentence', 'seed', 'd-model', 'd-k', 'heads', 'mask', 'valid-len', 'step', 'head', 'lang', 'kernel', 'bandwidth', 'query', 'panel', 'hidden-size'];
const TAGS = ['attention-explorer', 'attention-steps', 'attention-heads', 'attention-compare', 'attention-scaling', 'attention-pooling'];
const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
// The URL keys of web/src/state.js.
const URL_KEYS = ['s', 'seed', 'dm', 'dk', 'h', 'mask', 'vl', 'step', 'head', 'lang', 'kernel', 'bw', 'panel'];

/** A plain page that loads dist/components.js with one <script src> and holds `body`. */
const plainPage = (body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hostile</title>
<script type="module" src="/dist/components.js"></script></head>
<body>${body}</body></html>`;
const attr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The repo root on 127.0.0.1, every response with `csp` (if given) as a
 * Content-Security-Policy header; GET /__page/<name> serves pages[name].
 */
function cspServer(csp) {
  const pages = new Map();
  const srv = createServer((req, res) => {
    const headers = csp ? { 'content-security-policy': csp, 'cache-control': 'no-cache' } : { 'cache-control': 'no-cache' };
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path.startsWith('/__page/') && pages.has(path.slice(8))) {
      res.writeHead(200, { ...headers, 'content-type': TYPES['.html'] }).end(pages.get(path.slice(8)));
      return;
    }
    let file = normalize(join(root, path));
    if (!file.startsWith(root + sep)) return void res.writeHead(403, headers).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return void res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { ...headers, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) =>
    srv.listen(0, '127.0.0.1', () =>
      ok({
        url: `http://127.0.0.1:${srv.address().port}`,
        page: (name, html) => (pages.set(name, html), `http://127.0.0.1:${srv.address().port}/__page/${name}`),
        close: () => new Promise((done) => srv.close(done)),
      }),
    ),
  );
}

let b;
let plain;
let strict;

beforeAll(async () => {
  ensureBuilt();
  b = await launch();
  plain = await cspServer(null);
  strict = await cspServer(STRICT);
});
afterAll(async () => {
  await b?.close();
  await plain?.close();
  await strict?.close();
});

/** A watched page that also records dialogs and CSP violations (from an init script). */
async function hostilePage() {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  w.problems.dialogs = [];
  w.page.on('dialog', (d) => {
    w.problems.dialogs.push(`${d.type()}: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  await w.context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
  });
  return w;
}

/** Resolves with a rAF timestamp, or fails if the page does not paint a frame within 5 s. */
async function responsive(page) {
  const frame = page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(performance.now()))));
  const frozen = new Promise((_, fail) => setTimeout(() => fail(new Error('no animation frame within 5 s: the tab is frozen')), 5000));
  return Promise.race([frame, frozen]);
}

/** Every element in the document and every (nested) shadow root, summarised for the XSS checks. */
const scan = (page) =>
  page.evaluate(() => {
    const found = { img: 0, script: 0, iframe: 0, object: 0, embed: 0, handlers: [], jsUrls: [], svgOnload: 0, pwned: window.__pwned ?? null };
    const walk = (node) => {
      for (const e of node.querySelectorAll('*')) {
        const tag = e.localName;
        if (tag in found && typeof found[tag] === 'number') found[tag]++;
        for (const a of e.attributes) {
          if (/^on/i.test(a.name)) found.handlers.push(`${tag}[${a.name}]`);
          if (/^\s*javascript:/i.test(a.value) && /^(href|src|action|formaction|xlink:href)$/i.test(a.name)) found.jsUrls.push(`${tag}[${a.name}]`);
        }
        if (e.shadowRoot) walk(e.shadowRoot);
      }
    };
    walk(document);
    return found;
  });

/** No element, handler or script came from a payload; the page's own module script is the only script. */
function expectInert(found, scripts = 1) {
  expect(found.img).toBe(0);
  expect(found.iframe + found.object + found.embed).toBe(0);
  expect(found.script).toBe(scripts);
  expect(found.handlers).toEqual([]);
  expect(found.jsUrls).toEqual([]);
  expect(found.pwned).toBe(null);
}

const allReady = (page) => page.waitForFunction((tags) => tags.every((t) => [...document.querySelectorAll(t)].every((el) => 'ready' in el.dataset)), TAGS);

// The steps panel inside the explorer: its main heatmap's column labels.
const explorerTokens = (page) =>
  page.evaluate(() => {
    const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
    return [...steps.querySelector('figure.heatmap tbody').querySelectorAll('th')].map((th) => th.textContent);
  });

describe('payloads are data', () => {
  test.each(PAYLOADS)('typed into the sentence box: %s', async (payload) => {
    const { page, problems, context } = await hostilePage();
    await page.goto(`${plain.url}/site/`);
    await ready(page);
    await page.locator('attention-explorer').locator('#in-sentence').fill(payload);
    await page.waitForFunction((want) => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps');
      return steps.getAttribute('sentence') === want && 'ready' in steps.dataset;
    }, payload);
    await ready(page);
    await responsive(page);
    expect(await explorerTokens(page)).toEqual(tokenize(payload));
    expect(await page.locator('attention-explorer').locator('#in-sentence').inputValue()).toBe(payload);
    // The URL keeps it as a query value, and reading it back reproduces the tokens.
    expect(new URL(page.url()).searchParams.get('s')).toBe(payload);
    await page.reload();
    await ready(page);
    expect(await explorerTokens(page)).toEqual(tokenize(payload));
    expectInert(await scan(page));
    expect(problems.dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test.each(PAYLOADS)('in every URL key and the hash: %s', async (payload) => {
    const { page, problems, context } = await hostilePage();
    const query = new URLSearchParams(URL_KEYS.map((k) => [k, payload]));
    await page.goto(`${plain.url}/site/?${query}#${encodeURIComponent(payload)}`);
    await ready(page);
    await responsive(page);
    expect(await explorerTokens(page)).toEqual(tokenize(payload));
    // Unknown values fall back: English, the first panel, the first step.
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    expectInert(await scan(page));
    expect(problems.dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test.each(PAYLOADS)('in every attribute of every element (markup and setAttribute): %s', async (payload) => {
    const { page, problems, context } = await hostilePage();
    const markup = TAGS.map((tag) => `<${tag} ${ATTRIBUTES.map((a) => `${a}="${attr(payload)}"`).join(' ')}></${tag}>`).join('\n');
    await page.goto(plain.page(`attrs-${PAYLOADS.indexOf(payload)}`, plainPage(markup)));
    await allReady(page);
    await responsive(page);
    const labels = await page.evaluate(() => {
      const steps = document.querySelector('attention-steps').shadowRoot;
      return [...steps.querySelector('figure.heatmap tbody').querySelectorAll('th')].map((th) => th.textContent);
    });
    expect(labels).toEqual(tokenize(payload));
    expectInert(await scan(page));
    // The same through setAttribute on live elements, attribute by attribute.
    for (const a of ATTRIBUTES) {
      await page.evaluate(([name, value]) => {
        for (const el of document.querySelectorAll('attention-explorer, attention-steps, attention-heads, attention-compare, attention-scaling, attention-pooling')) {
          el.setAttribute(name, `${value} ${name}`);
        }
      }, [a, payload]);
      await responsive(page);
    }
    await allReady(page);
    expectInert(await scan(page));
    expect(problems.dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });
});

describe('the checks can fail', () => {
  test('a handler planted in a nested shadow root, and a dialog, are both caught', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(`${plain.url}/site/`);
    await ready(page);
    await page.evaluate(() => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
      steps.querySelector('th').innerHTML = '<img src=x onerror="window.__pwned=1; alert(1)">';
    });
    await page.waitForFunction(() => window.__pwned === 1);
    const found = await scan(page);
    expect(found.img).toBe(1);
    expect(found.handlers).toEqual(['img[onerror]']);
    expect(found.pwned).toBe(1);
    expect(problems.dialogs).toEqual(['alert: 1']);
    await context.close();
  });
});

/** CSP violations seen by the page, plus console errors that mention the policy. */
const cspProblems = async (page, problems) => [...(await page.evaluate(() => window.__violations)), ...problems.console.filter((m) => /Content Security Policy|Content-Security-Policy/i.test(m))];

describe(`under the header ${STRICT}`, () => {
  test('the demo page computes, typesets and loads its fonts with no violation', async () => {
    const { page, problems, context } = await hostilePage();
    const res = await page.goto(`${strict.url}/site/?s=attention+is+all+we+need&step=weights`);
    expect(res.headers()['content-security-policy']).toBe(STRICT);
    await ready(page);
    await page.evaluate(() => document.fonts.ready);
    const shown = await page.evaluate(() => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
      const cell = steps.querySelector('figure[data-role=main] td[data-i]');
      return { value: cell.dataset.value, text: cell.textContent, katex: steps.querySelectorAll('.formula .katex').length, bg: getComputedStyle(cell).backgroundColor };
    });
    expect(Number.isFinite(Number(shown.value))).toBe(true);
    expect(shown.text).toMatch(/^−?\d\.\d\d$/);
    expect(shown.katex).toBe(1);
    // The heatmap colours apply (the palette is not an inline <style> the policy drops).
    expect(shown.bg).not.toBe('rgba(0, 0, 0, 0)');
    const fonts = await page.evaluate(() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family));
    expect(fonts.some((f) => f.includes('KaTeX_Main'))).toBe(true);
    // Every panel renders (charts, tables, formulas) without a violation.
    for (const id of ['heads', 'compare', 'scaling', 'pooling']) {
      await page.locator('attention-explorer').locator(`#ptab-${id}`).click();
      await ready(page);
    }
    expect(await cspProblems(page, problems)).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.dialogs).toEqual([]);
    await context.close();
  });

  test('one component on a plain page computes with no violation', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(strict.page('one', plainPage('<attention-steps sentence="one two three" step="weights" mask="causal"></attention-steps>')));
    await page.waitForFunction(() => 'ready' in (document.querySelector('attention-steps')?.dataset ?? {}));
    const value = await page.evaluate(() => document.querySelector('attention-steps').shadowRoot.querySelector('figure[data-role=main] td[data-i="1"][data-j="0"]').dataset.value);
    expect(Number(value)).toBeGreaterThan(0);
    expect(Number(value)).toBeLessThan(1);
    expect(await cspProblems(page, problems)).toEqual([]);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('an inline script on the same page is refused (the header is in force)', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(strict.page('inline', plainPage('<script>window.__ran = 1</script><p style="color: red">x</p>')));
    expect(await page.evaluate(() => window.__ran ?? null)).toBe(null);
    expect((await cspProblems(page, problems)).length).toBeGreaterThan(0);
    await context.close();
  });
});
