// <attention-backward weights="trained"> in Chromium: the backward pass of one head (`layer`, `head`)
// of the shipped grammar model on the reader's sentence. Its P equals the model's own attention of
// that head in Node (model.generate, inside the core); its dQ and dK equal lab.attentionBackward in
// Node on that head's Q, K, V; a 404 gives the error note and the panel recovers; Chinese; in the
// explorer the head the reader picked in the steps panel is the head this panel follows (before, it
// always showed head 1), and bkw, bkl, head round-trip through the URL; the accessibility audit.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { columns, targetFor } from '../../web/src/components/backward/backward-model.js';
import { layerInput } from '../../web/src/trained/grammar-stream.js';
import { componentPage, expectAccessible, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const grammar = await lab.loadTrained('grammar');

const PANEL = `(() => document.querySelector('attention-backward') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-backward'))()`;
const SENTENCE = 'the dog chased the cats. they ran. who ran? the';

async function trainedShown(page, step) {
  await page.waitForFunction(([p, k]) => {
    const root = eval(p)?.shadowRoot;
    return root?.querySelector('[data-role="trained-about"]') && root.querySelector('#step-panel')?.dataset.step === k;
  }, [PANEL, step], { timeout: 60_000 });
  await settled(page);
}
const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-backward', ...options });

const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const f = root.querySelector('#step-panel figure[data-matrix]');
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] = n.textContent;
    return { roles, matrix: f.dataset.matrix, rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent), values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)) };
  }, PANEL);

/** Node's numbers for head `h` of `layer`: the core's own attention map P, and attentionBackward's dQ, dK. */
function expected(sentence, layer, h) {
  const run = layerInput(lab, grammar, sentence, layer);
  const n = run.ids.length;
  const P = grammar.generate(run.all, { attention: true }).attention.decoder[layer][h].slice(0, n).flatMap((row) => row.slice(0, n));
  const dK = grammar.config.dModel / grammar.config.heads;
  const [Q, K, V] = [run.Wq, run.Wk, run.Wv].map((W) => lab.matmul(run.X, columns(W, h * dK, dK)));
  const forward = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' });
  const T = targetFor(n, dK, 42);
  const dO = { rows: n, cols: dK, data: forward.output.data.map((v, k) => v - T.data[k]) };
  const g = lab.attentionBackward(Q, K, V, dO, { mask: 'causal' });
  return { P, dQ: Array.from(g.dQ.data), dK: Array.from(g.dK.data) };
}

const close = (got, want, tol) => {
  expect(got.length).toBe(want.length);
  got.forEach((v, k) => expect(Math.abs(v - want[k]), `cell ${k}`).toBeLessThan(tol + 1e-5 * Math.abs(want[k])));
};

async function expectSteps(page, sentence, layer, h) {
  const want = expected(sentence, layer, h);
  for (const [step, tol] of [['P', 2e-6], ['dQ', 1e-5], ['dK', 1e-5]]) {
    await page.evaluate(([p, k]) => eval(p).setAttribute('step', k), [PANEL, step]);
    await trainedShown(page, step);
    const view = await shown(page);
    expect(view.matrix).toBe(step);
    close(view.values, want[step], tol);
  }
}

describe('attention-backward with trained weights (a head of the grammar model)', () => {
  test('layer 2, head 3: P is the model’s own attention; dQ, dK are attentionBackward’s', async () => {
    const w = await open(`<attention-backward weights="trained" layer="1" head="2" sentence="${SENTENCE}"></attention-backward>`);
    await trainedShown(w.page, 'S');
    const view = await shown(w.page);
    expect(view.roles['trained-about']).toContain('layer 2');
    expect(view.roles.head).toContain('head 3');
    expect(view.rows[0]).toBe('<bos>');
    await expectSteps(w.page, SENTENCE, 1, 2);
    await w.page.locator('attention-backward #layer').selectOption('0');
    await expectSteps(w.page, SENTENCE, 0, 2);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('a 404 gives the error note; the panel recovers', async () => {
    const w = await open('<attention-backward sentence="the dog ran"></attention-backward>');
    await w.page.waitForFunction((p) => 'ready' in eval(p).dataset, PANEL);
    await w.page.route('**/grammar.bin', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await w.page.locator('attention-backward #weights').selectOption('trained');
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-error"]'), PANEL);
    expect((await shown(w.page)).roles['trained-error']).toContain('404');
    await w.page.unroute('**/grammar.bin');
    await w.page.evaluate((p) => (eval(p).setAttribute('weights', 'random'), eval(p).setAttribute('weights', 'trained')), PANEL);
    await trainedShown(w.page, 'S');
    await expectSteps(w.page, 'the dog ran', 0, 0);
    expect(w.problems.console.filter((m) => !m.includes('404'))).toEqual([]);
    await w.context.close();
  });

  test('Chinese: Chinese notes, the Chinese example', async () => {
    const w = await open('<attention-backward lang="zh-CN" weights="trained" step="P"></attention-backward>');
    await trainedShown(w.page, 'P');
    expect((await shown(w.page)).roles['trained-about']).toContain('第 1 个注意力层');
    // The page's sentence by default; the model's example a button away.
    await w.page.evaluate((p) => eval(p).shadowRoot.querySelector('[data-role="trained-switch"]').click(), PANEL);
    await settled(w.page);
    close((await shown(w.page)).values, expected('那个男孩遇见了那个女孩。她跑了。谁跑了？', 0, 0).P, 2e-6);
    await w.context.close();
  });

  test('the explorer: the head picked in the steps panel is the head shown; bkw, bkl, head in the URL and back; audit', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=steps&h=4&dm=8&dk=2`);
    await ready(page);
    await page.locator('attention-explorer attention-steps select[data-key="head"]').selectOption('2');
    await page.locator('attention-explorer').locator('#ptab-backward').click();
    await page.waitForFunction((p) => eval(p)?.shadowRoot.querySelector('[data-role="head"]'), PANEL, { timeout: 60_000 });
    expect((await shown(page)).roles.head).toContain('head 3');
    await page.locator('attention-explorer attention-backward #weights').selectOption('trained');
    await trainedShown(page, 'S');
    await page.locator('attention-explorer attention-backward #layer').selectOption('1');
    await page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-about"]').textContent.includes('layer 2'), PANEL);
    expect((await shown(page)).roles.head).toContain('head 3');
    const url = new URL(await urlWritten(page));
    expect([url.searchParams.get('bkw'), url.searchParams.get('bkl'), url.searchParams.get('head')]).toEqual(['trained', '1', '2']);
    const again = await context.newPage();
    await again.goto(url.href);
    await trainedShown(again, 'S');
    const view = await shown(again);
    expect(view.roles['trained-about']).toContain('layer 2');
    expect(view.roles.head).toContain('head 3');
    await expectAccessible(again, 'attention-backward');
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });
});
