// Hostile input in Chromium: script payloads in the sentence box, the URL
// state and every attribute stay text; out-of-range settings are clamped with a
// visible note and the tab stays responsive; the demo and a component work
// under a strict Content-Security-Policy sent as an HTTP header.
import { afterAll, describe, expect, test } from 'vitest';
import { serveStatic } from '../../scripts/serve.mjs';
import { MAX_SENTENCE, outOfRange, tokenize } from '../../web/src/model.js';
import { openSettings, ready, root, settled, urlWritten, watchedPage, withElements } from './browser.js';
import { useBrowser, useForFile } from './use-browser.js';

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
const ATTRIBUTES = ['sentence', 'seed', 'd-model', 'd-k', 'heads', 'mask', 'valid-len', 'step', 'head', 'lang', 'kernel', 'bandwidth', 'query', 'panel', 'hidden-size',
  'source', 'scoring', 'valid-lens', 'swap', 'window', 'linformer-k', 'max-n', 'positional'];
const TAGS = ['attention-explorer', 'attention-steps', 'attention-heads', 'attention-compare', 'attention-scaling', 'attention-pooling',
  'attention-cross', 'attention-positions', 'attention-cost', 'attention-transformer'];
const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
// The URL keys of web/src/state.js.
const URL_KEYS = ['s', 'seed', 'dm', 'dk', 'h', 'mask', 'vl', 'step', 'head', 'lang', 'kernel', 'bw', 'panel', 'x', 'wq', 'wk', 'wv', 'wo'];

/** A plain page that loads dist/components.js with one <script src> and holds `body`. */
const plainPage = (body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hostile</title>
<script type="module" src="/dist/components.js"></script></head>
<body>${body}</body></html>`;
const attr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The repo root on 127.0.0.1 (the static server of npm start), every response with `csp` (if given)
 * as a Content-Security-Policy header; `page(name, html)` serves html at /__page/<name>.
 */
async function cspServer(csp) {
  const pages = {};
  const srv = await serveStatic(root, 0, { pages, headers: csp ? { 'content-security-policy': csp } : {} });
  const url = `http://127.0.0.1:${srv.address().port}`;
  return {
    url,
    page: (name, html) => ((pages[`/__page/${name}`] = html), `${url}/__page/${name}`),
    close: () => new Promise((done) => (srv.close(done), srv.closeAllConnections())),
  };
}

const { launched: b } = useBrowser({ serve: null }); // b.browser
const plain = useForFile(() => cspServer(null));
const strict = useForFile(() => cspServer(STRICT));

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

/**
 * One page of components for the tests that only need new elements each (payloads in markup, clamped
 * settings): `withElements` replaces its body, so each test's elements are new while the module
 * stays loaded (a page load per test took about 1.5 s of the file's time). Closed after the file.
 */
let elements = null;
const elementsPage = async () => {
  elements ??= hostilePage().then(async (w) => {
    await w.page.goto(plain.page('elements', plainPage('')));
    return w;
  });
  return elements;
};
afterAll(async () => (await elements)?.context.close());

/** Resolves with a rAF timestamp, or fails if the page does not paint a frame within 15 s (generous: a frozen tab never paints; a busy 2-core CI machine can be slow). */
async function responsive(page) {
  const frame = page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(performance.now()))));
  const frozen = new Promise((_, fail) => setTimeout(() => fail(new Error('no animation frame within 15 s: the tab is frozen')), 15000));
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


// The steps panel inside the explorer: its main heatmap's column labels.
const explorerTokens = (page) =>
  page.evaluate(() => {
    const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot;
    return [...steps.querySelector('figure.heatmap tbody').querySelectorAll('th')].map((th) => th.textContent);
  });

describe('payloads are data', () => {
  // One page, each payload typed in turn: its tokens, the box and the URL's s= keep it as text. (A
  // link's s= read back into the same tokens is the URL-key test below.)
  test('typed into the sentence box, one payload after another', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(`${plain.url}/site/?panel=steps`);
    await ready(page);
    for (const payload of PAYLOADS) {
      await page.locator('attention-explorer').locator('#in-sentence').fill(payload);
      await page.waitForFunction((want) => {
        const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps');
        return steps.getAttribute('sentence') === want && 'ready' in steps.dataset;
      }, payload);
      await ready(page);
      await responsive(page);
      expect(await explorerTokens(page), payload).toEqual(tokenize(payload));
      expect(await page.locator('attention-explorer').locator('#in-sentence').inputValue()).toBe(payload);
      expect(new URL(await urlWritten(page)).searchParams.get('s'), payload).toBe(payload);
      expectInert(await scan(page));
    }
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

  test.each(PAYLOADS)('in every attribute of every element (markup): %s', async (payload) => {
    const { page, problems } = await elementsPage();
    await withElements(page, TAGS.map((tag) => `<${tag} ${ATTRIBUTES.map((a) => `${a}="${attr(payload)}"`).join(' ')}></${tag}>`).join('\n'));
    await responsive(page);
    const labels = await page.evaluate(() => {
      const steps = document.querySelector('attention-steps').shadowRoot;
      return [...steps.querySelector('figure.heatmap tbody').querySelectorAll('th')].map((th) => th.textContent);
    });
    expect(labels).toEqual(tokenize(payload));
    expectInert(await scan(page));
    expect(problems.dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
  });

  // Through setAttribute on live elements: for each payload in turn (and all of them in one value),
  // every attribute of every element, one setAttribute after another (each runs its element's
  // attributeChangedCallback; the element renders once for them all). One page for all.
  test('in every attribute of every element (setAttribute on live elements)', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(plain.page('attrs-live', plainPage(TAGS.map((tag) => `<${tag}></${tag}>`).join('\n'))));
    await settled(page);
    for (const value of [...PAYLOADS, PAYLOADS.join(' ')]) {
      await page.evaluate(([names, v]) => {
        for (const el of document.querySelectorAll('attention-explorer, attention-steps, attention-heads, attention-compare, attention-scaling, attention-pooling'))
          for (const name of names) el.setAttribute(name, `${v} ${name}`);
      }, [ATTRIBUTES, value]);
      await responsive(page);
      await settled(page);
      expectInert(await scan(page));
    }
    await settled(page);
    expectInert(await scan(page));
    expect(problems.dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });
});

describe('typed matrices through the inputs property', () => {
  test('payload strings, non-finite numbers and wrong shapes give a visible error, never a frozen tab', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(plain.page('inputs', plainPage('<attention-steps sentence="one two three" step="weights"></attention-steps>')));
    await settled(page);
    const cases = [
      { X: [PAYLOADS.slice(0, 8)] },
      { X: [[1, 2, 3, 4, 5, 6, 7, Infinity]] },
      { Wq: [[1, 2], [3, 4]] },
      { Wq: { rows: 8, cols: 1e6, data: { length: 8e6 } } },
    ];
    const shown = [];
    for (const inputs of cases) {
      await page.evaluate((value) => {
        document.querySelector('attention-steps').inputs = value;
      }, inputs);
      await responsive(page);
      await settled(page);
      shown.push(await page.evaluate(() => document.querySelector('attention-steps').shadowRoot.querySelector('[role="alert"]')?.textContent ?? 'no error shown'));
    }
    // A string is not a number, Infinity not finite, a 2×2 W_Q not d_model × d_k, 10⁶ columns beyond
    // the page: each named as the author's matrix (own-numbers.js), before the library is called.
    expect(shown[0]).toMatch(/^Your numbers could not be shown: your X \(inputs\.X\) holds .+ at \[0\]\[0\]; every entry must be a finite number/);
    expect(shown[1]).toMatch(/^Your numbers could not be shown: your X \(inputs\.X\) holds Infinity at \[0\]\[7\]/);
    expect(shown[2]).toMatch(/^Your numbers could not be shown: your W_Q \(inputs\.Wq\) is 2×2 but must be 8×2/);
    expect(shown[3]).toMatch(/^Your numbers could not be shown: your W_Q \(inputs\.Wq\) is 1000000 wide/);
    expectInert(await scan(page));
    expect(problems.dialogs).toEqual([]);
    await context.close();
  });
});

describe('outOfRange (the note\'s source)', () => {
  test('lists exactly the settings used other than as given', () => {
    expect(outOfRange({ sentence: 'a b c', seed: '7', dModel: '8', dK: '4', heads: '2', mask: 'causal', validLen: '3' })).toEqual([]);
    expect(outOfRange({ dModel: '64', dK: '1', heads: '8', validLen: '0', seed: '0' })).toEqual([]);
    expect(outOfRange({ dModel: '65', dK: '0', heads: '9', validLen: '129', seed: '-1' }).map((c) => `${c.name} ${c.given}→${c.used}`)).toEqual(['seed -1→0', 'd-model 65→64', 'd-k 0→1', 'heads 9→8', 'valid-len 129→128']);
    expect(outOfRange({ dModel: '2.5' })).toEqual([{ name: 'd-model', given: '2.5', used: '3' }]);
    expect(outOfRange({ sentence: Array.from({ length: 129 }, (_, i) => `w${i}`).join(' ') })).toEqual([{ name: 'sentence', given: '129', used: '128', unit: 'tokens' }]);
    expect(outOfRange({ sentence: Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ') })).toEqual([]);
  });
});

describe('the custom X box', () => {
  test.each(PAYLOADS.slice(0, 4))('a payload typed as a matrix is refused with the note, and stays text: %s', async (payload) => {
    const { page, problems, context } = await hostilePage();
    await page.goto(`${plain.url}/site/?panel=steps`);
    await ready(page);
    const explorer = page.locator('attention-explorer');
    await openSettings(page);
    await explorer.locator('[part="custom-x"] > summary').click();
    await explorer.locator('#in-x').fill(payload);
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('#in-x-status').textContent !== '');
    expect(await explorer.locator('#in-x-status').textContent()).toBe('Not used: expected 1 or more rows of 8 numbers.');
    expect(await explorer.locator('#in-x').inputValue()).toBe(payload);
    await responsive(page);
    expectInert(await scan(page));
    expect(problems.dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});

describe('exports keep payloads as text', () => {
  test('the SVG and CSV of a heatmap whose tokens are payloads', async () => {
    const { page, problems, context } = await hostilePage();
    const sentence = PAYLOADS.slice(0, 4).join(' ');
    await page.goto(`${plain.url}/site/?${new URLSearchParams({ s: sentence, step: 'weights' })}`);
    await ready(page);
    const bar = page.locator('attention-explorer').locator('attention-steps figure[data-role="main"] .export');
    const read = async (fmt) => {
      const [download] = await Promise.all([page.waitForEvent('download'), bar.getByRole('button', { name: new RegExp(fmt) }).click()]);
      const chunks = [];
      for await (const c of await download.createReadStream()) chunks.push(c);
      return Buffer.concat(chunks).toString('utf8');
    };
    const svgText = await read('SVG');
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const all = [...doc.querySelectorAll('*')];
      return {
        error: doc.querySelector('parsererror') !== null,
        scripts: all.filter((e) => ['script', 'foreignObject', 'img', 'iframe'].includes(e.localName)).length,
        handlers: all.flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
        texts: all.filter((e) => e.localName === 'text').map((e) => e.textContent),
      };
    }, svgText);
    expect(parsed.error).toBe(false);
    expect(parsed.scripts).toBe(0);
    expect(parsed.handlers).toEqual([]);
    for (const token of tokenize(sentence)) expect(parsed.texts).toContain(token);
    const csv = await read('CSV');
    expect(csv.split('\n')[0]).toBe(['', ...tokenize(sentence)].map((t) => `"${t.replaceAll('"', '""')}"`).join(','));
    expect(problems.dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});

describe('the checks can fail', () => {
  test('a handler planted in a nested shadow root, and a dialog, are both caught', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(`${plain.url}/site/?panel=steps`);
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
      return { value: cell.dataset.value, text: cell.textContent, katex: steps.querySelectorAll('.formula .katex').length, bg: ((td) => { const c = td.closest('figure').querySelector('canvas'); const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); const r = devicePixelRatio; return `rgba(${[...c.getContext('2d').getImageData((x + (Number(td.dataset.j) + 0.5) * w) * r, (y + (Number(td.dataset.i) + 0.5) * h) * r, 1, 1).data].join(', ')})`; })(cell) };
    });
    expect(Number.isFinite(Number(shown.value))).toBe(true);
    expect(shown.text).toMatch(/^−?\d\.\d\d$/);
    expect(shown.katex).toBe(1);
    // The heatmap colours apply (the palette is not an inline <style> the policy drops).
    expect(shown.bg).not.toBe('rgba(0, 0, 0, 0)');
    const fonts = await page.evaluate(() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family));
    expect(fonts.some((f) => f.includes('KaTeX_Main'))).toBe(true);
    // The downloads (PNG through a canvas, SVG, CSV: blob: links) work under the policy.
    const exportBar = page.locator('attention-explorer').locator('attention-steps figure[data-role="main"] .export');
    for (const fmt of ['PNG', 'SVG', 'CSV']) {
      const [download] = await Promise.all([page.waitForEvent('download'), exportBar.getByRole('button', { name: new RegExp(fmt) }).click()]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`\\.${fmt.toLowerCase()}$`));
    }
    // Every panel renders (charts, tables, formulas) without a violation.
    for (const id of ['heads', 'compare', 'scaling', 'pooling', 'backward']) {
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
    await ready(page, 'attention-steps');
    const value = await page.evaluate(() => document.querySelector('attention-steps').shadowRoot.querySelector('figure[data-role=main] td[data-i="1"][data-j="0"]').dataset.value);
    expect(Number(value)).toBeGreaterThan(0);
    expect(Number(value)).toBeLessThan(1);
    expect(await cspProblems(page, problems)).toEqual([]);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test("without 'wasm-unsafe-eval' the element says the module could not load (no endless spinner)", async () => {
    const noWasm = await cspServer("default-src 'self'; script-src 'self'; style-src 'self'");
    const { page, problems, context } = await hostilePage();
    await page.goto(noWasm.page('nowasm', plainPage('<attention-steps sentence="one two three"></attention-steps>')));
    await page.waitForFunction(() => document.querySelector('attention-steps').shadowRoot.querySelector('[role="alert"]') !== null);
    const text = await page.evaluate(() => document.querySelector('attention-steps').shadowRoot.querySelector('[role="alert"]').textContent);
    expect(text).toMatch(/WebAssembly|wasm/i);
    expect((await cspProblems(page, problems)).length).toBeGreaterThan(0);
    await context.close();
    await noWasm.close();
  });

  test('an inline script on the same page is refused (the header is in force)', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(strict.page('inline', plainPage('<script>window.__ran = 1</script><p style="color: red">x</p>')));
    expect(await page.evaluate(() => window.__ran ?? null)).toBe(null);
    expect((await cspProblems(page, problems)).length).toBeGreaterThan(0);
    await context.close();
  });
});

const MANY = Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(' ');
// Each case: the attributes given, the note expected (name: given → used), and where it shows.
const RANGE_CASES = [
  { attrs: { 'd-model': '1e9' }, note: 'd-model: 1e9 → 64' },
  { attrs: { 'd-model': 'Infinity', 'd-k': '1000000000' }, note: 'd-model: Infinity → 8; d-k: 1000000000 → 64' },
  { attrs: { heads: '-3' }, note: 'heads: -3 → 1' },
  { attrs: { seed: 'NaN' }, note: 'seed: NaN → 42' },
  { attrs: { 'valid-len': '-5', mask: 'padding' }, note: 'valid-len: -5 → 0' },
  { attrs: { mask: 'everything' }, note: 'mask: everything → none' },
  { attrs: { sentence: MANY }, note: 'sentence: 10000 tokens → the first 128' },
  { attrs: { sentence: 'x'.repeat(100_000) }, note: 'sentence: 100000 characters → the first 1600' },
  { attrs: { bandwidth: '-1' }, note: 'bandwidth: -1 → 1', only: 'attention-pooling' },
  { attrs: { bandwidth: '0', query: '1e9', kernel: 'nope' }, note: 'kernel: nope → gaussian; bandwidth: 0 → 1; query: 1e9 → 2.5', only: 'attention-pooling' },
  { attrs: { 'hidden-size': '1e9' }, note: 'hidden-size: 1e9 → 64', only: 'attention-compare' },
  // Everything at once: every element computes at the largest sizes it allows (32 tokens, d_model 64, 8 heads of 64).
  // The Transformer block's steps have no "concat" (its heads feed W_O inside the attention step).
  { attrs: { sentence: MANY, 'd-model': '1e9', 'd-k': '1e9', heads: '1e9', step: 'concat' }, note: 'd-model: 1e9 → 64; d-k: 1e9 → 8; heads: 1e9 → 8; sentence: 10000 tokens → the first 128',
    notes: { 'attention-transformer': 'd-model: 1e9 → 64; d-k: 1e9 → 8; heads: 1e9 → 8; sentence: 10000 tokens → the first 128; step: concat → X' } },
];

const noteOf = (page, selector) => page.evaluate((sel) => document.querySelector(sel).shadowRoot.querySelector('.root > [data-role="out-of-range"]')?.textContent ?? null, selector);

describe('out-of-range settings are clamped with a visible note; the tab stays responsive', () => {
  test.each(RANGE_CASES)('attributes → $note', async ({ attrs, note, notes = {}, only }) => {
    const { page, problems } = await elementsPage();
    const tags = only ? [only] : TAGS;
    await withElements(page, tags.map((tag) => `<${tag}></${tag}>`).join('\n'));
    // Applied to live elements, then timed only by whether a frame still comes.
    await page.evaluate(([list, a]) => {
      for (const t of list) {
        const el = document.querySelector(t);
        for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
      }
    }, [tags, attrs]);
    await responsive(page);
    await settled(page);
    await responsive(page);
    for (const tag of tags) {
      const shown = await noteOf(page, tag);
      expect(shown, tag).toBe(`Out of range, so changed: ${notes[tag] ?? note}.`);
      expect(await page.evaluate((t) => document.querySelector(t).shadowRoot.querySelector('[data-role="out-of-range"]').checkVisibility(), tag)).toBe(true);
    }
    if (!only) {
      // The explorer's own fields show the values in use; a nested panel leaves the note to it.
      const used = await page.evaluate(() => {
        const ex = document.querySelector('attention-explorer').shadowRoot;
        const fields = Object.fromEntries([...ex.querySelectorAll('[data-key]')].filter((e) => e.id?.startsWith('in-') && e.value !== undefined).map((e) => [e.dataset.key, e.value]));
        const steps = ex.querySelector('attention-steps').shadowRoot;
        return { fields, nestedNote: steps.querySelector('[data-role="out-of-range"]') !== null, tokens: steps.querySelector('figure.heatmap tbody').querySelectorAll('th').length };
      });
      expect(used.nestedNote).toBe(false);
      expect(used.tokens).toBeLessThanOrEqual(128);
      if ('d-model' in attrs) expect(Number(used.fields['d-model'])).toBeLessThanOrEqual(64);
      if ('heads' in attrs) expect(used.fields.heads).toBe(Number(attrs.heads) > 0 ? '8' : '1');
      if ('seed' in attrs) expect(used.fields.seed).toBe('42');
      if (attrs.sentence === MANY) expect(used.tokens).toBe(128);
    }
    expect(problems.console).toEqual([]);
    expect(problems.dialogs).toEqual([]);
  });

  test('from the URL: d_model 1e9, 10,000 tokens, negative heads, NaN seed, bandwidth -1', async () => {
    const { page, problems, context } = await hostilePage();
    const query = new URLSearchParams({ s: MANY, dm: '1e9', dk: '1e9', h: '-3', seed: 'NaN', bw: '-1', kernel: 'boxcar' });
    await page.goto(`${plain.url}/site/?${query}`);
    await ready(page);
    await responsive(page);
    expect(await noteOf(page, 'attention-explorer')).toBe('Out of range, so changed: seed: NaN → 42; d-model: 1e9 → 64; d-k: 1e9 → 64; heads: -3 → 1; sentence: 10000 tokens → the first 128.');
    expect(await explorerTokens(page)).toHaveLength(128);
    await page.locator('attention-explorer').locator('#ptab-pooling').click();
    await ready(page);
    await responsive(page);
    const pooling = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-pooling').shadowRoot.querySelector('[data-role="out-of-range"]')?.textContent);
    expect(pooling).toBe('Out of range, so changed: bandwidth: -1 → 1.');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('10,000 tokens typed into the sentence box', async () => {
    const { page, problems, context } = await hostilePage();
    await page.goto(`${plain.url}/site/?panel=steps`);
    await ready(page);
    await page.locator('attention-explorer').locator('#in-sentence').fill('字'.repeat(10_000));
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('[data-role="out-of-range"]') !== null);
    await ready(page);
    await responsive(page);
    // The box itself keeps MAX_SENTENCE characters (maxlength); their tokens (one per character) are cut to the first 128.
    const kept = tokenize('字'.repeat(MAX_SENTENCE), Infinity).length;
    expect(kept).toBeGreaterThan(128);
    expect(await page.locator('attention-explorer').locator('#in-sentence').inputValue()).toBe('字'.repeat(MAX_SENTENCE));
    expect(await noteOf(page, 'attention-explorer')).toBe(`Out of range, so changed: sentence: ${kept} tokens → the first 128.`);
    expect(await explorerTokens(page)).toEqual(Array(128).fill('字'));
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
