// <attention-heads weights="trained"> in Chromium: every head of one layer of the shipped grammar
// model on the reader's sentence. Each head's weights equal the model's own attention of that layer
// in Node (model.generate, computed inside the core), number for number to within float32 rounding,
// for layer 1 and layer 2 (whose input the page computes through layer 1 with the library's calls);
// words outside the vocabulary shown as <unk>; a 404 gives the error note and the panel recovers;
// the checkpoint fetched only with trained weights; Chinese; the URL keys; the accessibility audit.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { componentPage, expectAccessible, panelScreenshots, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const grammar = await lab.loadTrained('grammar');

const PANEL = `(() => document.querySelector('attention-heads') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads'))()`;

async function trainedShown(page, layer = 0) {
  await page.waitForFunction(
    ([p, l]) => {
      const root = eval(p)?.shadowRoot;
      return root?.querySelector('[data-role="trained-about"]') && root.querySelector('#layer')?.value === String(l);
    },
    [PANEL, layer],
    { timeout: 60_000 },
  );
  await settled(page);
}
const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-heads', ...options });
const requested = (page) => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));

/** Each head's weights figure (labels and values) and the notes by role. */
const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] = n.textContent;
    const heads = [...root.querySelectorAll('[part="heads"] figure[data-head]')].map((f) => ({
      rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
      values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
    }));
    return { roles, heads, weights: root.querySelector('#weights').value, layer: root.querySelector('#layer')?.value };
  }, PANEL);

/** The model's own attention of `layer` on `sentence` (BOS + its tokens), per head, and the labels. */
function expected(sentence, layer) {
  const task = lab.tasks.grammar;
  const ids = Array.from(task.encode(sentence));
  const maps = grammar.generate(ids, { attention: true }).attention.decoder[layer];
  const n = ids.length + 1;
  return { labels: [task.vocabulary[task.bos], ...ids.map((id) => task.vocabulary[id])], heads: maps.map((map) => map.slice(0, n).flatMap((row) => row.slice(0, n))) };
}

function expectLayer(view, sentence, layer) {
  const want = expected(sentence, layer);
  expect(view.heads.length).toBe(grammar.config.heads);
  view.heads.forEach((head, h) => {
    expect(head.rows).toEqual(want.labels);
    expect(head.values.length).toBe(want.heads[h].length);
    // The page's layer norms (and, for layer 2, its biases and ReLU) are JavaScript; the core's differ by rounding only.
    head.values.forEach((v, k) => expect(Math.abs(v - want.heads[h][k]), `head ${h + 1} cell ${k}`).toBeLessThan(2e-6));
  });
}

describe('attention-heads with trained weights (the grammar model)', () => {
  test('layer 1 and, via the picker, layer 2: every head equals the model’s own attention', async () => {
    const sentence = 'the dog chased the cats. they ran. who ran? the';
    const w = await open(`<attention-heads weights="trained" sentence="${sentence}"></attention-heads>`);
    await trainedShown(w.page, 0);
    const first = await shown(w.page);
    expectLayer(first, sentence, 0);
    expect(first.roles['trained-about']).toContain('layer 1');
    expect(first.roles['trained-unknown']).toBeUndefined();
    await w.page.locator('attention-heads #layer').selectOption('1');
    await trainedShown(w.page, 1);
    expect(await w.page.evaluate((p) => eval(p).getAttribute('layer'), PANEL)).toBe('1');
    const second = await shown(w.page);
    expectLayer(second, sentence, 1);
    expect(second.roles['trained-about']).toContain('layer 2');
    expect(second.heads[0].values).not.toEqual(first.heads[0].values);
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('words outside the vocabulary: <unk>, named; a layer out of range is kept to the model’s', async () => {
    const w = await open('<attention-heads weights="trained" layer="7" sentence="the cat sat on the mat"></attention-heads>');
    await trainedShown(w.page, 1);
    const view = await shown(w.page);
    expectLayer(view, 'the cat sat on the mat', 1);
    expect(view.heads[0].rows).toEqual(['<bos>', 'the', 'cat', '<unk>', '<unk>', 'the', '<unk>']);
    expect(view.roles['trained-unknown']).toContain('sat, on, mat');
    await w.context.close();
  });

  test('fetched only with trained weights; a 404 gives the error note, and the panel recovers', async () => {
    const w = await open('<attention-heads sentence="the cat sat"></attention-heads>');
    expect((await requested(w.page)).filter((p) => p.endsWith('.bin') || p.includes('training'))).toEqual([]);
    expect((await shown(w.page)).weights).toBe('random');
    await w.page.route('**/grammar.bin', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await w.page.locator('attention-heads #weights').selectOption('trained');
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="trained-error"]'), PANEL);
    expect((await shown(w.page)).roles['trained-error']).toContain('404');
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'random'), PANEL);
    await settled(w.page);
    expect((await shown(w.page)).heads.length).toBe(1);
    await w.page.unroute('**/grammar.bin');
    await w.page.evaluate((p) => eval(p).setAttribute('weights', 'trained'), PANEL);
    await trainedShown(w.page, 0);
    expectLayer(await shown(w.page), 'the cat sat', 0);
    expect(w.problems.console.filter((m) => !m.includes('404'))).toEqual([]);
    await w.context.close();
  });

  test('Chinese: the page’s Chinese sentence by default (the model’s example a button away), Chinese notes', async () => {
    const w = await open('<attention-heads lang="zh-CN" weights="trained" layer="1"></attention-heads>');
    await trainedShown(w.page, 1);
    expectLayer(await shown(w.page), '小猫坐在垫子上', 1);
    await w.page.evaluate(() => document.querySelector('attention-heads').shadowRoot.querySelector('[data-role="trained-switch"]').click());
    await settled(w.page);
    const view = await shown(w.page);
    expectLayer(view, '那个男孩遇见了那个女孩。她跑了。谁跑了？', 1);
    expect(view.roles['trained-about']).toContain('第 2 个注意力层');
    await w.context.close();
  });

  test('the built site: hw=trained&hl=1 in the URL and back; accessibility audit', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=heads`);
    await ready(page);
    await page.locator('attention-explorer attention-heads #weights').selectOption('trained');
    await trainedShown(page, 0);
    await page.locator('attention-explorer attention-heads #layer').selectOption('1');
    await trainedShown(page, 1);
    const url = new URL(await urlWritten(page));
    expect(url.searchParams.get('hw')).toBe('trained');
    expect(url.searchParams.get('hl')).toBe('1');
    const again = await context.newPage();
    await again.goto(url.href);
    await trainedShown(again, 1);
    expect((await shown(again)).weights).toBe('trained');
    await expectAccessible(again, 'attention-heads');
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test('screenshot: layer 1’s heads on “the boy met the girl. she ran. who ran? the”', async () => {
    const sentence = 'the boy met the girl. she ran. who ran? the';
    const bodies = Object.fromEntries(['en', 'zh'].map((l) => [l, `<attention-heads id="s" lang="${l === 'zh' ? 'zh-CN' : 'en'}" weights="trained" layer="0" sentence="${sentence}"></attention-heads>`]));
    const openTrained = async (body, options) => {
      const w = await open(body, options);
      await trainedShown(w.page, 0);
      expectLayer(await shown(w.page), sentence, 0);
      return w;
    };
    await panelScreenshots(openTrained, { name: 'heads-trained', height: 1600, bodies });
  });
});
