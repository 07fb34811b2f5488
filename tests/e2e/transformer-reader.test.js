// <attention-transformer weights="reader"> in Chromium: a layer of the reader trained on real text in
// its own pre-norm order. Every step's numbers equal Node's computation from the same file
// (trained/reader-stream.js with the Node build), and the layer output the panel shows is checked
// against the core: LN₁ of it times the next layer's W_Q is that layer's Q in reader.attend's trace
// (the core's own layer inputs). The encoder/decoder switch and the layer picker; Chinese; trm, tfl
// in the URL and back; the accessibility audit. No trained value is written here: the shipped
// file may be retrained.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { TABLE_LIMIT } from '../../web/src/heatmap/table.js';
import { layerNorm, layerWeights } from '../../web/src/trained/pre-norm-stack.js';
import { LAYER_STEPS, readerLayerSteps, readerStack } from '../../web/src/trained/reader-stream.js';
import { componentPage, expectAccessible, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const readers = { en: await lab.loadReader({ language: 'en' }), 'zh-CN': await lab.loadReader({ language: 'zh-CN' }) };

const PANEL = `(() => document.querySelector('attention-transformer') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer'))()`;
const ANIMAL = "The animal didn't cross the street because it was too tired.";
const ANIMAL_ZH = '动物没有过马路，因为它太累了。';

const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-transformer', ...options });

/** Wait until `model`'s layer `layer` is shown and settled. */
async function layerShown(page, model, layer) {
  await page.waitForFunction(([p, m, l]) => {
    const root = eval(p)?.shadowRoot;
    return root?.querySelector('[data-role="reader-layer-steps"] li') && root.querySelector('#reader-model')?.value === m && root.querySelector('#layer')?.value === String(l);
  }, [PANEL, model, layer], { timeout: 60_000 });
  await settled(page);
}

/** Each step's rows and values (data-value), the notes by role. */
const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] ??= n.textContent;
    const steps = Object.fromEntries([...root.querySelectorAll('[data-role="reader-layer-steps"] figure[data-matrix]')].map((f) => [f.dataset.matrix, { rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent), values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)) }]));
    return { roles, steps, layers: [...root.querySelectorAll('#layer option')].map((o) => o.value) };
  }, PANEL);

/** The view against Node's stream of the same reader, and its output against the core's next layer. */
function expectLayer(view, lang, sentence, model, layer) {
  const reader = readers[lang];
  const { steps, tokens } = readerLayerSteps(lab, reader, model, sentence, layer);
  const run = reader.attend(sentence, { model, trace: true });
  expect(tokens).toEqual(run.tokens);
  expect(Object.keys(view.steps)).toEqual(LAYER_STEPS);
  for (const key of LAYER_STEPS) {
    expect(view.steps[key].rows, key).toEqual(run.tokens);
    const want = steps[key].data;
    // A matrix of more cells than TABLE_LIMIT has a table of headers only (the decoder's hidden layer, 384 wide): the steps around it hold it to Node's.
    expect(view.steps[key].values.length, key).toBe(want.length > TABLE_LIMIT ? 0 : want.length);
    // Chromium's build and Node's may round a product differently: float32 rounding only.
    view.steps[key].values.forEach((v, k) => expect(Math.abs(v - want[k]), `${model} ${layer} ${key} cell ${k}`).toBeLessThan(1e-5 + 1e-5 * Math.abs(want[k])));
  }
  const c = reader.models[model];
  const layers = model === 'encoder' ? c.encoderLayers : c.decoderLayers;
  expect(view.layers.length).toBe(layers);
  if (layer + 1 === layers) return;
  // The core: the next layer reads LN₁ of the output shown; its Q per head is reader.attend's.
  const output = { rows: run.tokens.length, cols: c.dModel, data: Float32Array.from(view.steps.output.values) };
  const next = layerWeights(readerStack(reader, model), layer + 1);
  const Q = lab.matmul(layerNorm(output, ...next.norm1), next.Wq);
  const dK = c.dModel / c.heads;
  for (let h = 0; h < c.heads; h++) {
    const want = run.steps[layer + 1][h].find((st) => st.id === 'Q').matrix;
    for (let i = 0; i < want.rows; i++)
      for (let j = 0; j < dK; j++) {
        const w = want.data[i * dK + j];
        expect(Math.abs(Q.data[i * c.dModel + h * dK + j] - w), `${model} layer ${layer + 2} head ${h + 1} Q ${i} ${j}`).toBeLessThan(2e-5 + 2e-5 * Math.abs(w));
      }
  }
}

describe('attention-transformer weights="reader": a layer of the reader trained on real text, pre-norm', () => {
  test('encoder layer 2, then the decoder by its switch and layer 4 by the picker: every step equals Node’s, and the output shown is what the core’s next layer reads', async () => {
    const w = await open(`<attention-transformer weights="reader" layer="1" sentence="${ANIMAL}"></attention-transformer>`);
    await layerShown(w.page, 'encoder', 1);
    const encoder = await shown(w.page);
    expect(encoder.roles['reader-layer']).toContain('pre-norm');
    expectLayer(encoder, 'en', ANIMAL, 'encoder', 1);
    await w.page.locator('attention-transformer #reader-model').selectOption('decoder');
    await layerShown(w.page, 'decoder', 1);
    expectLayer(await shown(w.page), 'en', ANIMAL, 'decoder', 1);
    await w.page.locator('attention-transformer #layer').selectOption('3');
    await layerShown(w.page, 'decoder', 3);
    expect(await w.page.evaluate((p) => eval(p).getAttribute('layer'), PANEL)).toBe('3');
    expectLayer(await shown(w.page), 'en', ANIMAL, 'decoder', 3);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('Chinese: the Chinese reader’s pieces and numbers, its notes in Chinese', async () => {
    const w = await open(`<attention-transformer lang="zh-CN" weights="reader" sentence="${ANIMAL_ZH}"></attention-transformer>`, { lang: 'zh-CN' });
    await layerShown(w.page, 'encoder', 0);
    const view = await shown(w.page);
    expect(view.roles['reader-layer']).toContain('前置层规范化');
    expectLayer(view, 'zh-CN', ANIMAL_ZH, 'encoder', 0);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('the built site: tw=reader&trm=decoder&tfl=2 in the URL and back; only the sentence among the settings; accessibility audit', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=transformer&s=${encodeURIComponent(ANIMAL)}`);
    await ready(page);
    await page.locator('attention-explorer attention-transformer #weights').selectOption('reader');
    await layerShown(page, 'encoder', 0);
    await page.locator('attention-explorer attention-transformer #reader-model').selectOption('decoder');
    await page.locator('attention-explorer attention-transformer #layer').selectOption('2');
    await layerShown(page, 'decoder', 2);
    const url = new URL(await urlWritten(page));
    expect([url.searchParams.get('tw'), url.searchParams.get('trm'), url.searchParams.get('tfl')]).toEqual(['reader', 'decoder', '2']);
    const again = await context.newPage();
    await again.goto(url.href);
    await layerShown(again, 'decoder', 2);
    expectLayer(await shown(again), 'en', ANIMAL, 'decoder', 2);
    const fields = await again.evaluate(() => [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('.field[data-setting]')].filter((f) => !f.hidden).map((f) => f.dataset.setting));
    expect(fields).toEqual(['sentence']);
    await expectAccessible(again, 'attention-transformer');
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });
});
