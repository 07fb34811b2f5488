// <attention-cross weights="trained"> in Chromium: the shipped dates model's greedy output for a
// typed date and its cross-attention (every head, and their average), equal number for number to
// what the library gives in Node for the same checkpoint and input; the training build and the
// checkpoint fetched only once trained weights are chosen; characters outside the vocabulary
// noted (the model still answers); Chinese; the explorer's URL state; the accessibility audit; a
// screenshot. No console error, nothing from the network.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { componentPage, expectAccessible, panelScreenshots, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const dates = await lab.loadTrained('dates');

/** The panel inside `page` (alone, or inside the explorer). */
const PANEL = `(() => document.querySelector('attention-cross') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-cross'))()`;

/** Wait for the trained view (the model loaded and run) and for every heatmap to be filled. */
async function trainedShown(page) {
  await page.waitForFunction((p) => eval(p)?.shadowRoot.querySelector('[data-role="trained-output"]'), PANEL, { timeout: 60_000 });
  await settled(page);
}

const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-cross', ...options });

/** The paths of every resource the page has fetched since it loaded (the Resource Timing entries). */
const requested = (page) => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
const openTrained = async (body, options) => {
  const w = await open(body, options);
  await trainedShown(w.page);
  return w;
};

/** What the trained view shows: notes by role, the form's fields, every heatmap's labels and values. */
const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const figures = {};
    for (const f of root.querySelectorAll('[data-role="trained-maps"] figure[data-matrix]')) {
      figures[f.dataset.matrix] = {
        caption: f.querySelector('figcaption').textContent,
        rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
        cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
        values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
      };
    }
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] = n.textContent;
    const visible = (sel) => root.querySelector(sel)?.checkVisibility() ?? false;
    return {
      figures,
      roles,
      output: root.querySelector('[data-role="trained-output"]')?.dataset.output,
      date: root.querySelector('#date').value,
      weights: root.querySelector('#weights').value,
      fields: { date: visible('#date'), source: visible('#source'), scoring: visible('#scoring') },
      lang: root.querySelector('.root')?.getAttribute('lang'),
    };
  }, PANEL);

/** Node's answer for `text`: the decode and the cross-attention [head] of layer 0, labelled. */
function expected(text) {
  const chars = Array.from(text);
  const ids = lab.tasks.dates.encode(text);
  const r = dates.generate(ids, { attention: true });
  const heads = r.attention.cross[0];
  // The average in float64, independently of the page's (a library matmul in float32).
  const average = heads[0].map((row, i) => row.map((_, j) => heads.reduce((sum, A) => sum + A[i][j], 0) / heads.length));
  return {
    output: r.text,
    rows: r.tokens.map((id) => lab.tasks.dates.vocabulary[id]),
    cols: chars.map((c) => (c === ' ' ? '␣' : c)),
    heads: heads.map((A) => A.flat()),
    average: average.flat(),
    unknown: chars.filter((_, i) => ids[i] === lab.tasks.dates.unk),
  };
}

function expectSame(view, want) {
  expect(view.output).toBe(want.output);
  const keys = Object.keys(view.figures);
  expect(keys).toEqual(['average-0', 'head-0-0', 'head-0-1', 'head-0-2', 'head-0-3']);
  for (const k of keys) {
    expect(view.figures[k].rows, k).toEqual(want.rows);
    expect(view.figures[k].cols, k).toEqual(want.cols);
  }
  want.heads.forEach((values, h) => expect(view.figures[`head-0-${h}`].values).toEqual(values));
  const avg = view.figures['average-0'].values;
  expect(avg.length).toBe(want.average.length);
  avg.forEach((v, k) => expect(Math.abs(v - want.average[k])).toBeLessThan(1e-6));
}

describe('attention-cross with trained weights', () => {
  test('a typed English date: the output and every cross-attention value are Node’s', async () => {
    const w = await openTrained('<attention-cross weights="trained" date="Tuesday, the 1st of December 2026"></attention-cross>');
    const view = await shown(w.page);
    const want = expected('Tuesday, the 1st of December 2026');
    expect(want.output).toBe('2026-12-01');
    expectSame(view, want);
    expect(view.roles['trained-output']).toContain('2026-12-01');
    expect(view.roles['trained-output']).toContain('the right date');
    expect(view.roles['trained-unknown']).toBeUndefined();
    expect(view.fields).toEqual({ date: true, source: false, scoring: false });
    // Each row of a head sums to 1 (a softmax over the source).
    const { values, cols } = view.figures['head-0-0'];
    for (let i = 0; i < values.length / cols.length; i++) expect(values.slice(i * cols.length, (i + 1) * cols.length).reduce((a, v) => a + v, 0)).toBeCloseTo(1, 5);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('the reader types another form: the panel follows, still equal to Node', async () => {
    const w = await openTrained('<attention-cross weights="trained"></attention-cross>');
    expect((await shown(w.page)).date).toBe('');
    expectSame(await shown(w.page), expected('December 1, 2026')); // the English default
    await w.page.locator('attention-cross #date').fill('03/15/2031');
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-output"]').textContent.includes('03/15/2031'), PANEL);
    await settled(w.page);
    const view = await shown(w.page);
    expectSame(view, expected('03/15/2031'));
    expect(view.output).toBe('2031-03-15');
    await w.context.close();
  });

  test('training build and checkpoint fetched only when trained weights are chosen, once', async () => {
    const w = await open('<attention-cross sentence="the cat sat"></attention-cross>');
    let requests = await requested(w.page);
    const fetched = (part) => requests.filter((p) => p.includes(part));
    expect(requests).toContain('/dist/components.js');
    expect(fetched('.bin')).toEqual([]);
    expect(fetched('training')).toEqual([]);
    expect(Object.keys((await shown(w.page)).figures)).toEqual([]);
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'trained'), PANEL);
    await trainedShown(w.page);
    requests = await requested(w.page);
    expect(fetched('.bin')).toEqual(['/dist/checkpoints/dates.bin']);
    expect(fetched('training.js')).toContain('/dist/training.js');
    expect(fetched('attention-lab-training-')).toHaveLength(2); // the training glue and its .wasm
    const before = requests.length;
    // Back to random weights and to trained again: nothing more is fetched.
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'random'), PANEL);
    await settled(w.page);
    expect((await shown(w.page)).fields).toEqual({ date: false, source: true, scoring: true });
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'trained'), PANEL);
    await trainedShown(w.page);
    expect((await requested(w.page)).slice(before)).toEqual([]);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('a checkpoint that cannot be fetched: the error note, random weights still work, a later change tries again', async () => {
    const w = await open('<attention-cross sentence="the cat sat"></attention-cross>');
    await w.page.route('**/dates.bin', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'trained'), PANEL);
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-error"]'), PANEL);
    const note = await w.page.evaluate((p) => eval(p).shadowRoot.querySelector('[data-role="trained-error"]').textContent, PANEL);
    expect(note).toContain('The trained dates model could not be loaded');
    expect(note).toContain('404');
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'random'), PANEL);
    await settled(w.page);
    expect(await w.page.evaluate((p) => eval(p).shadowRoot.querySelectorAll('figure[data-matrix="weights"]').length, PANEL)).toBe(1);
    await w.page.unroute('**/dates.bin');
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'trained'), PANEL);
    await trainedShown(w.page);
    expectSame(await shown(w.page), expected('December 1, 2026'));
    // The only console message is the browser's own line about the 404.
    expect(w.problems.console.filter((m) => !m.includes('404'))).toEqual([]);
    await w.context.close();
  });

  test('a bad date: the model answers anyway, characters outside its vocabulary noted', async () => {
    const text = 'Décembre 1, 2026!';
    const w = await openTrained(`<attention-cross weights="trained" date="${text}"></attention-cross>`);
    const view = await shown(w.page);
    const want = expected(text);
    expect(want.unknown).toEqual(['é', '!']);
    expectSame(view, want);
    expect(view.roles['trained-unknown']).toContain('“é” “!”');
    // Not a date at all: an output all the same, said not to be this input's date.
    await w.page.locator('attention-cross #date').fill('hello');
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-output"]').textContent.includes('hello'), PANEL);
    await settled(w.page);
    const other = await shown(w.page);
    expectSame(other, expected('hello'));
    expect(other.roles['trained-output']).toContain('not a date that this input writes');
    expect(other.roles['trained-unknown']).toBeUndefined();
    // An unknown weights value: random weights, said in the out-of-range note.
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'learned'), PANEL);
    await settled(w.page);
    expect((await shown(w.page)).roles['out-of-range']).toContain('weights: learned → random');
    expect(w.problems.console).toEqual([]);
    await w.context.close();
  });

  test('Chinese: a Chinese date by default, Chinese labels, Node’s numbers', async () => {
    const w = await openTrained('<attention-cross lang="zh-CN" weights="trained"></attention-cross>');
    const view = await shown(w.page);
    expect(view.lang).toBe('zh-CN');
    expectSame(view, expected('2026年12月1日'));
    expect(view.roles['trained-output']).toContain('日期正确');
    expect(view.figures['average-0'].caption).toContain('4 个头平均后的交叉注意力');
    await w.page.locator('attention-cross #date').fill('二〇三一年三月十五日');
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-output"]').textContent.includes('二〇三一'), PANEL);
    await settled(w.page);
    expectSame(await shown(w.page), expected('二〇三一年三月十五日'));
    await w.context.close();
  });

  test('the built site: weights and date in the URL, and back from it (checkpoint beside app.js)', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const requests = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(`${s.url}/site/?panel=cross`);
    await ready(page);
    expect(requests.filter((p) => p.endsWith('.bin') || p.endsWith('training.js'))).toEqual([]);
    const panel = page.locator('attention-explorer attention-cross');
    await panel.locator('#weights').selectOption('trained');
    await trainedShown(page);
    await panel.locator('#date').fill('1 Mar 2031');
    await page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-output"]').textContent.includes('1 Mar 2031'), PANEL);
    const url = new URL(await urlWritten(page));
    expect(url.searchParams.get('xw')).toBe('trained');
    expect(url.searchParams.get('xdate')).toBe('1 Mar 2031');
    expect(requests.filter((p) => p.endsWith('.bin'))).toEqual(['/site/checkpoints/dates.bin']);
    const again = await context.newPage();
    await again.goto(url.href);
    await trainedShown(again);
    const view = await shown(again);
    expect(view).toMatchObject({ weights: 'trained', date: '1 Mar 2031' });
    expectSame(view, expected('1 Mar 2031'));
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  for (const [lang, scheme] of [['en', 'light'], ['zh-CN', 'dark']])
    test(`accessibility of the trained view (${lang}, ${scheme}): names, table headers, AA contrast`, async () => {
      const { page, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, colorScheme: scheme, locale: lang });
      await page.goto(`${s.url}/site/?panel=cross&xw=trained&lang=${lang}`);
      await ready(page);
      await trainedShown(page);
      const r = await expectAccessible(page, 'attention-cross');
      expect(r.tables).toBe(5);
      await context.close();
    });

  test('screenshots at 1280 px (English kept in docs/screenshots) and a 375 px layout', async () => {
    await panelScreenshots(openTrained, {
      name: 'cross-trained',
      height: 1500,
      bodies: {
        en: '<attention-cross id="s" lang="en" weights="trained" date="Tuesday, the 1st of December 2026"></attention-cross>',
        zh: '<attention-cross id="s" lang="zh-CN" weights="trained" date="2026年12月1日星期二"></attention-cross>',
      },
    });
  });
});
