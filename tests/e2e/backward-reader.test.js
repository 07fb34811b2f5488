// <attention-backward weights="reader"> in Chromium: the backward pass of one head (`reader-model`,
// `layer`, `head`) of the reader trained on real text. Its P equals the reader's own attention map
// of that head in Node (reader.attend, the core's); its dQ and dK equal lab.attentionBackward in Node
// on that head's Q, K, V from reader.attend's trace; through the model, layer and head pickers;
// Chinese; bkw, bkrm, bkl, head in the URL and back; the accessibility audit. No trained value is
// written here: the shipped file may be retrained.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { targetFor } from '../../web/src/components/backward/backward-model.js';
import { componentPage, expectAccessible, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const readers = { en: await lab.loadReader({ language: 'en' }), 'zh-CN': await lab.loadReader({ language: 'zh-CN' }) };

const PANEL = `(() => document.querySelector('attention-backward') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-backward'))()`;
const ANIMAL = "The animal didn't cross the street because it was too tired.";
const ANIMAL_ZH = '动物没有过马路，因为它太累了。';
const SEED = 42; // the shared settings' default seed: the target T's

/** Wait until the reader's head is shown at step `step`, and settled. */
async function readerShown(page, step, about) {
  await page.waitForFunction(([p, k, a]) => {
    const root = eval(p)?.shadowRoot;
    return root?.querySelector('[data-role="reader-backward"]')?.textContent.includes(a) && root.querySelector('#step-panel')?.dataset.step === k;
  }, [PANEL, step, about], { timeout: 60_000 });
  await settled(page);
}
const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-backward', ...options });

const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const f = root.querySelector('#step-panel figure[data-matrix]');
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] ??= n.textContent;
    return { roles, matrix: f.dataset.matrix, rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent), values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)), weightGrads: root.querySelectorAll('[data-role="weight-grad"]').length };
  }, PANEL);

/** Node's numbers for head `h` of `layer` of the reader's `model`: the core's own map P, and attentionBackward's dQ, dK. */
function expected(lang, sentence, model, layer, h) {
  const run = readers[lang].attend(sentence, { model, trace: true });
  const by = Object.fromEntries(run.steps[layer][h].map((st) => [st.id, st.matrix]));
  const mask = model === 'decoder' ? { mask: 'causal' } : {};
  const forward = lab.scaledDotProductAttention(by.Q, by.K, by.V, mask);
  const T = targetFor(run.tokens.length, by.V.cols, SEED);
  const dO = { rows: T.rows, cols: T.cols, data: forward.output.data.map((v, k) => v - T.data[k]) };
  const g = lab.attentionBackward(by.Q, by.K, by.V, dO, mask);
  return { tokens: run.tokens, P: Array.from(run.attention[layer][h].data), dQ: Array.from(g.dQ.data), dK: Array.from(g.dK.data) };
}

const close = (got, want, tol, where) => {
  expect(got.length, where).toBe(want.length);
  got.forEach((v, k) => expect(Math.abs(v - want[k]), `${where} cell ${k}`).toBeLessThan(tol + 1e-5 * Math.abs(want[k])));
};

async function expectSteps(page, lang, sentence, model, layer, h) {
  const want = expected(lang, sentence, model, layer, h);
  for (const [step, tol] of [['P', 2e-6], ['dQ', 1e-5], ['dK', 1e-5]]) {
    await page.evaluate(([p, k]) => eval(p).setAttribute('step', k), [PANEL, step]);
    await settled(page);
    const view = await shown(page);
    expect(view.matrix).toBe(step);
    expect(view.rows).toEqual(want.tokens);
    close(view.values, want[step], tol, `${model} ${layer} ${h} ${step}`);
  }
}

describe('attention-backward weights="reader": a head of the reader trained on real text', () => {
  test('decoder layer 2 head 3, then the encoder and head 2 by the pickers: P is the reader’s own map; dQ, dK are attentionBackward’s on its trace’s Q, K, V', async () => {
    const w = await open(`<attention-backward weights="reader" reader-model="decoder" layer="1" head="2" sentence="${ANIMAL}"></attention-backward>`);
    await readerShown(w.page, 'S', 'Head 3 of layer 2 of the reader’s decoder');
    const view = await shown(w.page);
    expect(view.rows[0]).toBe('<bos>');
    expect(view.weightGrads).toBe(0);
    await expectSteps(w.page, 'en', ANIMAL, 'decoder', 1, 2);
    await w.page.locator('attention-backward #reader-model').selectOption('encoder');
    await w.page.locator('attention-backward #reader-head').selectOption('1');
    await readerShown(w.page, 'dK', 'Head 2 of layer 2 of the reader’s encoder');
    expect(await w.page.evaluate((p) => eval(p).getAttribute('head'), PANEL)).toBe('1');
    await expectSteps(w.page, 'en', ANIMAL, 'encoder', 1, 1);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('Chinese: the Chinese reader’s pieces and numbers, its note in Chinese', async () => {
    const w = await open(`<attention-backward lang="zh-CN" weights="reader" layer="3" sentence="${ANIMAL_ZH}"></attention-backward>`, { lang: 'zh-CN' });
    await readerShown(w.page, 'S', '编码器第 4 层第 1 个头');
    await expectSteps(w.page, 'zh-CN', ANIMAL_ZH, 'encoder', 3, 0);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('the built site: bkw=reader, bkrm, bkl and head in the URL and back; accessibility audit', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=backward&s=${encodeURIComponent(ANIMAL)}`);
    await ready(page);
    await page.locator('attention-explorer attention-backward #weights').selectOption('reader');
    await readerShown(page, 'S', 'Head 1 of layer 1 of the reader’s encoder');
    await page.locator('attention-explorer attention-backward #reader-model').selectOption('decoder');
    await page.locator('attention-explorer attention-backward #layer').selectOption('3');
    await page.locator('attention-explorer attention-backward #reader-head').selectOption('3');
    await readerShown(page, 'S', 'Head 4 of layer 4 of the reader’s decoder');
    const url = new URL(await urlWritten(page));
    expect(['bkw', 'bkrm', 'bkl', 'head'].map((k) => url.searchParams.get(k))).toEqual(['reader', 'decoder', '3', '3']);
    const again = await context.newPage();
    await again.goto(url.href);
    await readerShown(again, 'S', 'Head 4 of layer 4 of the reader’s decoder');
    await expectSteps(again, 'en', ANIMAL, 'decoder', 3, 3);
    await expectAccessible(again, 'attention-backward');
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });
});
