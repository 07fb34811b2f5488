// <attention-steps weights="trained"> in Chromium: the steps of the shipped grammar model's first
// attention layer on the reader's sentence. Each head's weights equal the model's own layer-0
// attention in Node (model.generate, computed inside the core) to within float32 rounding; words
// outside the vocabulary shown as <unk> and named; the training build and the checkpoint fetched
// only with trained weights; Chinese; the URL key; the accessibility audit.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { componentPage, expectAccessible, panelScreenshots, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const grammar = await lab.loadTrained('grammar');

const PANEL = `(() => document.querySelector('attention-steps') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps'))()`;

async function trainedShown(page) {
  await page.waitForFunction((p) => eval(p)?.shadowRoot.querySelector('[data-role="trained-about"]'), PANEL, { timeout: 60_000 });
  await settled(page);
}
const open = async (body, options = {}) => {
  const w = await componentPage(b.browser, s.url, body, { selector: 'attention-steps', ...options });
  return w;
};
const requested = (page) => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));

/** The shown step's figure and the notes by role. */
const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const f = root.querySelector('figure[data-role="main"]');
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] = n.textContent;
    return {
      roles,
      weights: root.querySelector('#weights').value,
      rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
      cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
      values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
      step: root.querySelector('#step-panel').dataset.step,
    };
  }, PANEL);

/** The model's own layer-0 attention of head h on `sentence` (BOS + its tokens), and the labels. */
function expected(sentence, h) {
  const task = lab.tasks.grammar;
  const ids = Array.from(task.encode(sentence));
  const map = grammar.generate(ids, { attention: true }).attention.decoder[0][h];
  const n = ids.length + 1;
  return { labels: [task.vocabulary[task.bos], ...ids.map((id) => task.vocabulary[id])], values: map.slice(0, n).flatMap((row) => row.slice(0, n)) };
}

function expectHead(view, sentence, h) {
  const want = expected(sentence, h);
  expect(view.step).toBe('weights');
  expect(view.rows).toEqual(want.labels);
  expect(view.cols).toEqual(want.labels);
  expect(view.values.length).toBe(want.values.length);
  // The panel's X is LN(√d·E + P) with a layer norm in JavaScript; the core's differs by rounding only.
  view.values.forEach((v, k) => expect(Math.abs(v - want.values[k]), `cell ${k}`).toBeLessThan(1e-6));
}

describe('attention-steps with trained weights (the grammar model, layer 0)', () => {
  test('each head’s weights are the model’s own layer-0 attention; the other head via the picker', async () => {
    const sentence = 'the dog chased the cats. they ran. who ran? the';
    const w = await open(`<attention-steps weights="trained" step="weights" head="1" sentence="${sentence}"></attention-steps>`);
    await trainedShown(w.page);
    const view = await shown(w.page);
    expectHead(view, sentence, 1);
    expect(view.roles['trained-about']).toContain('LN(√48');
    expect(view.roles['trained-unknown']).toBeUndefined();
    // Causal: nothing above the diagonal.
    const n = view.rows.length;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) expect(view.values[i * n + j]).toBe(0);
    await w.page.locator('attention-steps select[data-key="head"]').selectOption('3');
    await w.page.waitForFunction((p) => eval(p).getAttribute('head') === '3', PANEL);
    await settled(w.page);
    expectHead(await shown(w.page), sentence, 3);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('words outside the vocabulary: shown as <unk> and named; the model runs anyway', async () => {
    const w = await open('<attention-steps weights="trained" step="weights" sentence="the cat sat on the mat"></attention-steps>');
    await trainedShown(w.page);
    const view = await shown(w.page);
    expectHead(view, 'the cat sat on the mat', 0);
    expect(view.rows).toEqual(['<bos>', 'the', 'cat', '<unk>', '<unk>', 'the', '<unk>']);
    expect(view.roles['trained-unknown']).toContain('3');
    expect(view.roles['trained-unknown']).toContain('sat, on, mat');
    await w.context.close();
  });

  test('the operands are named as the trained model’s, not as the reader’s own', async () => {
    const w = await open('<attention-steps weights="trained" step="Q"></attention-steps>');
    await trainedShown(w.page);
    const captions = await w.page.evaluate(() => [...document.querySelector('attention-steps').shadowRoot.querySelectorAll('.operands figcaption .name')].map((c) => c.textContent));
    expect(captions[0]).toBe('X (trained)');
    expect(captions.join(' ')).not.toContain('yours');
    await w.context.close();
  });

  test('the checkpoint is fetched only once trained weights are chosen', async () => {
    const w = await open('<attention-steps sentence="the cat sat"></attention-steps>');
    expect((await requested(w.page)).filter((p) => p.endsWith('.bin') || p.includes('training'))).toEqual([]);
    expect((await shown(w.page)).weights).toBe('random');
    await w.page.locator('attention-steps #weights').selectOption('trained');
    await trainedShown(w.page);
    expect((await requested(w.page)).filter((p) => p.endsWith('.bin'))).toEqual(['/dist/checkpoints/grammar.bin']);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('Chinese: the page’s Chinese sentence by default (the model’s example a button away), Chinese notes', async () => {
    const w = await open('<attention-steps lang="zh-CN" weights="trained" step="weights"></attention-steps>');
    await trainedShown(w.page);
    const view = await shown(w.page);
    expectHead(view, '小猫坐在垫子上', 0);
    expect(view.roles['trained-about']).toContain('训练好的权重');
    await w.page.evaluate((p) => eval(p).shadowRoot.querySelector('[data-role="trained-switch"]').click(), PANEL);
    await settled(w.page);
    expectHead(await shown(w.page), '那个男孩遇见了那个女孩。她跑了。谁跑了？', 0);
    await w.context.close();
  });

  test('the built site: stw=trained in the URL and back; accessibility audit', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=steps&step=weights`);
    await ready(page);
    await page.locator('attention-explorer attention-steps #weights').selectOption('trained');
    await trainedShown(page);
    const url = new URL(await urlWritten(page));
    expect(url.searchParams.get('stw')).toBe('trained');
    const again = await context.newPage();
    await again.goto(url.href);
    await trainedShown(again);
    expect((await shown(again)).weights).toBe('trained');
    await expectAccessible(again, 'attention-steps');
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test('screenshot: layer 0, head 3 answers “who ran? the” with the noun “she” stands for (girl)', async () => {
    const sentence = 'the boy met the girl. she ran. who ran? the';
    const bodies = Object.fromEntries(['en', 'zh'].map((l) => [l, `<attention-steps id="s" lang="${l === 'zh' ? 'zh-CN' : 'en'}" weights="trained" step="weights" head="2" sentence="${sentence}"></attention-steps>`]));
    const openTrained = async (body, options) => {
      const w = await open(body, options);
      await trainedShown(w.page);
      const view = await shown(w.page);
      expectHead(view, sentence, 2);
      const n = view.rows.length;
      const last = view.values.slice((n - 1) * n);
      expect(view.rows[last.indexOf(Math.max(...last))]).toBe('girl');
      return w;
    };
    await panelScreenshots(openTrained, { name: 'steps-trained', height: 1400, bodies });
  });
});
