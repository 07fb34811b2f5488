// <attention-transformer weights="trained"> in Chromium: a layer of the shipped grammar model in its
// own pre-norm order, every step's numbers equal to Node's computation from the same checkpoint
// (trained/grammar-stream.js with the Node build; tests/js/grammar-stream.test.js ties that stream to
// the core's own attention maps and greedy output); the text says pre-norm; a 404 gives the error
// note and the random block stays; Chinese; tw, tfl in the URL and back; the accessibility audit.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { LAYER_STEPS, sentenceLayerSteps } from '../../web/src/trained/grammar-stream.js';
import { componentPage, expectAccessible, panelScreenshots, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const grammar = await lab.loadTrained('grammar');

const PANEL = `(() => document.querySelector('attention-transformer') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer'))()`;
const SENTENCE = 'the dog chased the cats. they ran. who ran? the';

async function trainedShown(page, layer = 0) {
  await page.waitForFunction(([p, l]) => {
    const root = eval(p)?.shadowRoot;
    return root?.querySelector('[data-role="trained-steps"]') && root.querySelector('#layer')?.value === String(l);
  }, [PANEL, layer], { timeout: 60_000 });
  await settled(page);
}
const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-transformer', ...options });

const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] = n.textContent;
    const steps = Object.fromEntries([...root.querySelectorAll('[data-role="trained-steps"] figure[data-matrix]')].map((f) => [f.dataset.matrix, { rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent), values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)) }]));
    return { roles, steps, heading: root.querySelector('h2').textContent, weights: root.querySelector('#weights').value };
  }, PANEL);

function expectLayer(view, sentence, layer) {
  const { steps, ids } = sentenceLayerSteps(lab, grammar, sentence, layer);
  const labels = ids.map((id) => lab.tasks.grammar.vocabulary[id]);
  expect(Object.keys(view.steps)).toEqual(LAYER_STEPS);
  for (const key of LAYER_STEPS) {
    expect(view.steps[key].rows, key).toEqual(labels);
    const want = Array.from(steps[key].data);
    expect(view.steps[key].values.length, key).toBe(want.length);
    // Chromium's SIMD build and Node's may round a product differently: float32 rounding only.
    view.steps[key].values.forEach((v, k) => expect(Math.abs(v - want[k]), `${key} cell ${k}`).toBeLessThan(1e-5 + 1e-5 * Math.abs(want[k])));
  }
}

describe('attention-transformer with trained weights (a layer of the grammar model, pre-norm)', () => {
  test('layer 1, then layer 2 by the picker: every step equals Node’s; the text says pre-norm', async () => {
    const w = await open(`<attention-transformer weights="trained" sentence="${SENTENCE}"></attention-transformer>`);
    await trainedShown(w.page, 0);
    const view = await shown(w.page);
    expect(view.heading).toContain('pre-norm');
    expect(view.roles['trained-about']).toContain('pre-norm');
    expectLayer(view, SENTENCE, 0);
    await w.page.locator('attention-transformer #layer').selectOption('1');
    await trainedShown(w.page, 1);
    expectLayer(await shown(w.page), SENTENCE, 1);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('a 404 gives the error note over the random block; the panel recovers', async () => {
    const w = await open('<attention-transformer sentence="the dog ran"></attention-transformer>');
    await w.page.route('**/grammar.bin', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await w.page.locator('attention-transformer #weights').selectOption('trained');
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-error"]'), PANEL);
    const failed = await shown(w.page);
    expect(failed.roles['trained-error']).toContain('404');
    expect(failed.heading).toBe('A Transformer encoder block, step by step');
    await w.page.unroute('**/grammar.bin');
    await w.page.evaluate((p) => (eval(p).setAttribute('weights', 'random'), eval(p).setAttribute('weights', 'trained')), PANEL);
    await trainedShown(w.page, 0);
    expectLayer(await shown(w.page), 'the dog ran', 0);
    expect(w.problems.console.filter((m) => !m.includes('404'))).toEqual([]);
    await w.context.close();
  });

  test('Chinese: the Chinese example (a button away from the page’s sentence), Chinese text', async () => {
    const w = await open('<attention-transformer lang="zh-CN" weights="trained" layer="1"></attention-transformer>');
    await trainedShown(w.page, 1);
    await w.page.evaluate((p) => eval(p).shadowRoot.querySelector('[data-role="trained-switch"]').click(), PANEL);
    await settled(w.page);
    const view = await shown(w.page);
    expect(view.heading).toContain('前置层规范化');
    expectLayer(view, '那个男孩遇见了那个女孩。她跑了。谁跑了？', 1);
    await w.context.close();
  });

  test('the built site: tw, tfl in the URL and back; accessibility audit', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=transformer`);
    await ready(page);
    await page.locator('attention-explorer attention-transformer #weights').selectOption('trained');
    await trainedShown(page, 0);
    await page.locator('attention-explorer attention-transformer #layer').selectOption('1');
    await trainedShown(page, 1);
    const url = new URL(await urlWritten(page));
    expect([url.searchParams.get('tw'), url.searchParams.get('tfl')]).toEqual(['trained', '1']);
    const again = await context.newPage();
    await again.goto(url.href);
    await trainedShown(again, 1);
    await expectAccessible(again, 'attention-transformer');
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });
});
