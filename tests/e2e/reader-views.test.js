// <attention-heads weights="reader"> in Chromium: the model view of the reader trained on real text
// (lab.loadReader). Checked against the same reader in Node (dist/training-node.js, the same file):
// every map's pieces and weights are reader.attend's, each row sums to 1, the decoder's maps are
// causal (0 after the diagonal), each caption carries reader.heads' label in the page's language and
// its score as a percent, the pronoun head of reader.facts is the one marked, the piece strip is
// reader.tokenize's, the predictions are reader.predict's; a sentence longer than the model reads
// gets the library's truncated note; the reader is fetched only once chosen; a failed load is said
// and tried again; Chinese; the built
// site's URL keys and the accessibility audit. <attention-steps weights="reader">: the chosen
// layer's and head's steps are reader.attend's trace, through the encoder/decoder, layer and head pickers. The numbers are never a trained value: the shipped
// file may be retrained.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { componentPage, expectAccessible, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root (the demo under /site/)
const lab = await initTraining();
const readers = { en: await lab.loadReader({ language: 'en' }), 'zh-CN': await lab.loadReader({ language: 'zh-CN' }) };

const ANIMAL = "The animal didn't cross the street because it was too tired";
const ANIMAL_ZH = '动物没有过马路，因为它太累了';
const PANEL = `(() => document.querySelector('attention-heads') ?? document.querySelector('attention-explorer').shadowRoot.querySelector('attention-heads'))()`;

const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-heads', ...options });
const requested = (page) => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));

/** Wait until the model view of `model` is shown and settled. */
async function viewShown(page, model) {
  await page.waitForFunction(([p, m]) => eval(p)?.shadowRoot.querySelector(`[data-role="reader-grid"][data-model="${m}"] .reader-map`), [PANEL, model], { timeout: 60_000, polling: 100 });
  await settled(page);
}

/** What the panel shows: every map (its place, caption, pronoun mark, row labels, values), the notes by role, the pieces, the predictions. */
const shown = (page) =>
  page.evaluate((p) => {
    const root = eval(p).shadowRoot;
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] ??= n.textContent;
    const maps = [...root.querySelectorAll('.reader-map')].map((m) => ({
      layer: Number(m.dataset.layer),
      head: Number(m.dataset.head),
      pronoun: 'pronoun' in m.dataset,
      caption: m.querySelector('[data-role="map-caption"]').textContent,
      rows: [...m.querySelectorAll('tbody th')].map((th) => th.textContent),
      values: [...m.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
    }));
    return {
      roles,
      maps,
      pieces: [...root.querySelectorAll('[data-role="reader-pieces"] li')].map((li) => li.textContent),
      predictions: [...root.querySelectorAll('[data-role="reader-predictions"] li')].map((li) => ({ id: Number(li.dataset.id), probability: Number(li.dataset.probability), text: li.textContent })),
      weights: root.querySelector('#weights').value,
      weightOptions: [...root.querySelectorAll('#weights option')].map((o) => [o.value, o.textContent]),
      model: root.querySelector('#reader-model')?.value,
    };
  }, PANEL);

/** The percent a text shows ("… (10.6 %)", "…（10.6%）"): the number before its percent sign. */
const shownPercent = (text) => Number(text.match(/([\d.]+)\s?%/)[1]);

/** The view against the reader in Node: pieces, weights, rows summing to 1, causal zeros, captions, the pronoun mark. */
function expectView(view, language, sentence, model) {
  const reader = readers[language];
  const want = reader.attend(sentence, { model });
  const c = reader.models[model];
  const layers = model === 'encoder' ? c.encoderLayers : c.decoderLayers;
  expect(view.model).toBe(model);
  expect(view.maps.map((m) => `${m.layer} ${m.head}`)).toEqual(Array.from({ length: layers * c.heads }, (_, k) => `${Math.floor(k / c.heads)} ${k % c.heads}`));
  expect(view.pieces).toEqual(reader.tokenize(sentence).tokens);
  const n = want.tokens.length;
  const pronoun = reader.facts.pronounHead;
  for (const m of view.maps) {
    const where = `${model} layer ${m.layer + 1} head ${m.head + 1}`;
    expect(m.rows, where).toEqual(want.tokens);
    const data = want.attention[m.layer][m.head].data;
    expect(m.values.length, where).toBe(n * n);
    m.values.forEach((v, k) => expect(Math.abs(v - data[k]), `${where} cell ${k}`).toBeLessThan(1e-6));
    for (let i = 0; i < n; i++) {
      const row = m.values.slice(i * n, (i + 1) * n);
      expect(Math.abs(row.reduce((a, v) => a + v, 0) - 1), `${where} row ${i}`).toBeLessThan(1e-5);
      if (model === 'decoder') expect(row.slice(i + 1).every((v) => v === 0), `${where} row ${i} after the diagonal`).toBe(true);
    }
    const entry = reader.heads.find((h) => h.model === model && h.layer === m.layer && h.head === m.head);
    expect(m.caption, where).toContain(entry.label[language]);
    expect(shownPercent(m.caption), where).toBeCloseTo(entry.score * 100, 1);
    expect(m.pronoun, where).toBe(Boolean(pronoun) && pronoun.model === model && pronoun.layer === m.layer && pronoun.head === m.head);
  }
  if (model === 'encoder' && pronoun) expect(view.maps.filter((m) => m.pronoun).length).toBe(1);
  if (model === 'decoder') {
    const next = reader.predict(sentence, { topK: 5 });
    expect(view.predictions.map((p) => p.id)).toEqual(next.map((p) => p.id));
    view.predictions.forEach((p, k) => {
      expect(Math.abs(p.probability - next[k].probability)).toBeLessThan(1e-6 * next[k].probability + 1e-12);
      expect(p.text).toContain(next[k].token);
      expect(shownPercent(p.text)).toBeCloseTo(next[k].probability * 100, 1);
    });
  } else expect(view.predictions).toEqual([]);
}

describe('attention-heads weights="reader": the model view of the reader trained on real text', () => {
  test('English: fetched only once chosen; encoder, then decoder with its predictions; a long sentence gets the library’s note', async () => {
    const w = await open(`<attention-heads sentence="${ANIMAL}"></attention-heads>`);
    expect((await requested(w.page)).filter((p) => p.endsWith('.bin') || p.includes('training'))).toEqual([]);
    const before = await shown(w.page);
    expect(before.weightOptions.map(([v]) => v)).toEqual(['random', 'trained', 'reader']);
    expect(before.weightOptions[2][1]).toBe('Trained on real text');
    await w.page.locator('attention-heads #weights').selectOption('reader');
    await viewShown(w.page, 'encoder');
    expect((await requested(w.page)).filter((p) => p.endsWith('.bin'))).toEqual(['/dist/checkpoints/reader/reader.bin']);
    const encoder = await shown(w.page);
    expectView(encoder, 'en', ANIMAL, 'encoder');
    expect(encoder.roles['reader-truncated']).toBeUndefined();
    await w.page.locator('attention-heads #reader-model').selectOption('decoder');
    await viewShown(w.page, 'decoder');
    expect(await w.page.evaluate((p) => eval(p).getAttribute('reader-model'), PANEL)).toBe('decoder');
    expectView(await shown(w.page), 'en', ANIMAL, 'decoder');
    // Longer than the model reads: the library's note ({ total, read }) in the page's words; 128 pieces shown.
    const long = `${ANIMAL}. `.repeat(16);
    const cut = readers.en.attend(long, { model: 'decoder' }).truncated;
    expect(cut).toBeTruthy();
    await w.page.evaluate(([p, text]) => eval(p).setAttribute('sentence', text), [PANEL, long]);
    await settled(w.page);
    const longView = await shown(w.page);
    expect(longView.roles['reader-truncated']).toContain(String(cut.total));
    expect(longView.roles['reader-truncated']).toContain(String(cut.read));
    // The page's own cut of the sentence to its token limit is not the reader's: not said.
    expect(longView.roles['out-of-range']).toBeUndefined();
    expect(longView.maps.every((m) => m.rows.length === readers.en.maxLength)).toBe(true);
    // Again, now that the maps below are far from the viewport (a map far away is brought up to date when idle): every map reads the new pieces.
    const other = `Then ${long}`;
    await w.page.evaluate(([p, text]) => eval(p).setAttribute('sentence', text), [PANEL, other]);
    await settled(w.page);
    const tokens = readers.en.attend(other, { model: 'decoder' }).tokens;
    expect((await shown(w.page)).maps.map((m) => m.rows)).toEqual(Array.from({ length: longView.maps.length }, () => tokens));
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });

  test('Chinese: a failed load said and tried again; the Chinese reader’s labels, pieces and pronoun head; the choice named in Chinese; the cut said in Chinese', async () => {
    const w = await open(`<attention-heads lang="zh-CN" sentence="${ANIMAL_ZH}"></attention-heads>`, { lang: 'zh-CN' });
    await w.page.route('**/reader.bin', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await w.page.locator('attention-heads #weights').selectOption('reader');
    await w.page.waitForFunction((p) => eval(p).shadowRoot.querySelector('[data-role="reader-error"]'), PANEL, { polling: 100 });
    expect((await shown(w.page)).roles['reader-error']).toContain('404');
    await w.page.unroute('**/reader.bin');
    // The next render tries again (getReader forgets a failed load): a change of model, say.
    await w.page.evaluate((p) => eval(p).setAttribute('reader-model', 'encoder'), PANEL);
    await viewShown(w.page, 'encoder');
    const view = await shown(w.page);
    expect(view.weightOptions[2][1]).toBe('在真实文本上训练');
    expectView(view, 'zh-CN', ANIMAL_ZH, 'encoder');
    const long = ANIMAL_ZH.repeat(12);
    const cut = readers['zh-CN'].attend(long).truncated;
    await w.page.evaluate(([p, text]) => eval(p).setAttribute('sentence', text), [PANEL, long]);
    await settled(w.page);
    const note = (await shown(w.page)).roles['reader-truncated'];
    expect(note).toContain(`${cut.total} 个片段`);
    expect(note).toContain(String(cut.read));
    expect(w.problems.console.filter((m) => !m.includes('404'))).toEqual([]);
    expect(w.problems.external).toEqual([]);
    await w.context.close();
  });

  test('the built site: hw=reader&hrm=decoder in the URL and back; only the sentence among the settings; accessibility audit', async () => {
    const { page, context, problems } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=heads&s=${encodeURIComponent(ANIMAL)}`);
    await ready(page);
    await page.locator('attention-explorer attention-heads #weights').selectOption('reader');
    await viewShown(page, 'encoder');
    await page.locator('attention-explorer attention-heads #reader-model').selectOption('decoder');
    await viewShown(page, 'decoder');
    const url = new URL(await urlWritten(page));
    expect(url.searchParams.get('hw')).toBe('reader');
    expect(url.searchParams.get('hrm')).toBe('decoder');
    const again = await context.newPage();
    await again.goto(url.href);
    await viewShown(again, 'decoder');
    expectView(await shown(again), 'en', ANIMAL, 'decoder');
    // The seeded model's settings do not change these numbers: the explorer shows the sentence alone.
    const fields = await again.evaluate(() => [...document.querySelector('attention-explorer').shadowRoot.querySelectorAll('.field[data-setting]')].filter((f) => !f.hidden).map((f) => f.dataset.setting));
    expect(fields).toEqual(['sentence']);
    await expectAccessible(again, 'attention-heads');
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test('the steps panel: the chosen layer and head’s steps are reader.attend’s trace, through the model, layer and head pickers', async () => {
    const STEPS = `(() => document.querySelector('attention-steps'))()`;
    const w = await componentPage(b.browser, s.url, `<attention-steps weights="reader" step="weights" layer="1" head="1" sentence="${ANIMAL}"></attention-steps>`, { selector: 'attention-steps' });
    const stepShown = async (want) => {
      await w.page.waitForFunction(([p, key]) => eval(p).shadowRoot.querySelector('[data-role="reader-steps"]')?.textContent.includes(key), [STEPS, want], { timeout: 60_000, polling: 100 });
      await settled(w.page);
      return w.page.evaluate((p) => {
        const root = eval(p).shadowRoot;
        const f = root.querySelector('figure[data-role="main"]');
        return {
          about: root.querySelector('[data-role="reader-steps"]').textContent,
          step: root.querySelector('#step-panel').dataset.step,
          keys: [...root.querySelectorAll('[role="tab"]')].map((tab) => tab.id.replace(/^tab-/, '')),
          rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
          values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
          layers: [...root.querySelectorAll('#layer option')].map((o) => o.value),
          pieces: [...root.querySelectorAll('[data-role="reader-pieces"] li')].map((li) => li.textContent),
        };
      }, STEPS);
    };
    /** The shown step equals the library's trace of that head, and its weights are reader.attend's map. */
    const expectStep = (view, model, layer, head, id) => {
      const run = readers.en.attend(ANIMAL, { model, trace: true });
      const want = run.steps[layer][head].find((st) => st.id === id).matrix;
      expect(view.step).toBe(id);
      expect(view.keys).toEqual(run.steps[layer][head].map((st) => st.id));
      expect(view.rows).toEqual(run.tokens);
      expect(view.values.length).toBe(want.rows * want.cols);
      view.values.forEach((v, k) => expect(Math.abs(v - want.data[k]), `${model} ${layer} ${head} ${id} cell ${k}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(want.data[k]))));
      expect(view.layers.length).toBe(model === 'encoder' ? readers.en.models.encoder.encoderLayers : readers.en.models.decoder.decoderLayers);
      expect(view.pieces).toEqual(readers.en.tokenize(ANIMAL).tokens);
      if (id === 'weights') {
        const n = want.rows;
        for (let i = 0; i < n; i++) expect(Math.abs(view.values.slice(i * n, (i + 1) * n).reduce((a, v) => a + v, 0) - 1)).toBeLessThan(1e-5);
        run.attention[layer][head].data.forEach((v, k) => expect(Math.abs(view.values[k] - v)).toBeLessThan(1e-6));
      }
    };
    expectStep(await stepShown('head 2 of layer 2'), 'encoder', 1, 1, 'weights');
    await w.page.locator('attention-steps #reader-model').selectOption('decoder');
    expectStep(await stepShown('decoder'), 'decoder', 1, 1, 'weights');
    await w.page.locator('attention-steps #layer').selectOption('3');
    const last = await stepShown('layer 4');
    expect(await w.page.evaluate((p) => eval(p).getAttribute('layer'), STEPS)).toBe('3');
    expectStep(last, 'decoder', 3, 1, 'weights');
    await w.page.locator('attention-steps select[data-key="head"]').selectOption('0');
    await w.page.evaluate((p) => eval(p).setAttribute('step', 'scores'), STEPS);
    expectStep(await stepShown('head 1 of layer 4'), 'decoder', 3, 0, 'scores');
    expect(w.problems).toEqual({ console: [], external: [] });
    await w.context.close();
  });
});
