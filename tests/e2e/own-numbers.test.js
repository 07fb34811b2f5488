// An author's own numbers, in Chromium: their Q, K, V shown number for number as the
// library computes from them (the steps start at the scores, labelled as theirs), a trained
// model's attention weights shown as given in the steps and heads panels, tokens shown as given,
// and every mismatch a visible note in English and in Chinese, with no heatmap behind it.
import { afterAll, describe, expect, test } from 'vitest';
import { errorText } from '../../web/src/error-text.js';
import { translator } from '../../web/src/i18n.js';
import { buildModel } from '../../web/src/model.js';
import { randomMatrix } from '../../web/src/random.js';
import { componentPage, withElements } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser();
const lab = await loadLab();

const open = (body, selector) => componentPage(b.browser, s.url, body, { selector });
const nested = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));

/** Set attributes (null removes) and `inputs` on the element `sel`, and wait until it has nothing pending. */
const give = (page, sel, { attrs = {}, inputs } = {}) =>
  page.evaluate(
    async ([sel, attrs, inputs]) => {
      const el = document.querySelector(sel);
      for (const [name, value] of Object.entries(attrs)) value === null ? el.removeAttribute(name) : el.setAttribute(name, value);
      if (inputs !== undefined) el.inputs = inputs;
      else el.requestRender();
      await el.updateComplete;
    },
    [sel, attrs, inputs],
  );

/** What element `sel` shows: its figures (caption, row and column headers, cell values), alert, notes. */
const shown = (page, sel) =>
  page.evaluate((sel) => {
    const root = document.querySelector(sel).shadowRoot;
    const figures = [...root.querySelectorAll('figure.heatmap')].map((f) => ({
      role: f.dataset.role,
      head: f.dataset.head,
      caption: f.querySelector('figcaption').textContent,
      rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
      cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
      values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
    }));
    const notes = [...root.querySelectorAll('[data-role="own-numbers"]')].map((p) => p.textContent);
    const tabs = [...root.querySelectorAll('[role="tab"]')].map((t) => t.textContent);
    return { figures, notes, tabs, alert: root.querySelector('[role="alert"]')?.textContent ?? null, explain: root.querySelector('#step-panel .muted')?.textContent };
  }, sel);

const TOKENS = ["didn't", '▁the', '##ing', 'New York'];
const Q = randomMatrix(4, 4, 11);
const K = randomMatrix(4, 4, 12);
const V = randomMatrix(4, 6, 13);

describe('Q, K, V given: the steps start at the scores, every number the library’s for them', () => {
  test('one head, causal mask, tokens given: each step number for number, named as the author’s', async () => {
    const { page, context } = await open('<attention-steps mask="causal"></attention-steps>', 'attention-steps');
    await give(page, 'attention-steps', { inputs: { Q: nested(Q), K: nested(K), V: nested(V), tokens: TOKENS } });
    const want = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal', trace: true });
    const keys = await page.evaluate(() => document.querySelector('attention-steps').stepKeys);
    expect(keys).toEqual(['scores', 'scaled', 'masked', 'weights', 'output']);
    for (const step of want.steps) {
      await give(page, 'attention-steps', { attrs: { step: step.id } });
      const { figures, alert } = await shown(page, 'attention-steps');
      expect(alert).toBeNull();
      const main = figures.find((f) => f.role === 'main');
      // A hidden score is stored as float32's most negative finite value and shown (data-value) as −∞.
      const hidden = (v, k) => (step.mask && step.mask[k] === 0 ? -Infinity : v);
      expect(main.values, step.id).toEqual(Array.from(step.matrix.data, hidden));
      expect(main.rows).toEqual(TOKENS);
      if (step.id === 'scores') {
        expect(figures.filter((f) => f.role !== 'main').map((f) => f.caption.split(' ').slice(0, 2).join(' '))).toEqual(['Q (yours)', 'K (yours)']);
        expect(main.cols).toEqual(TOKENS);
      }
    }
    await give(page, 'attention-steps', { attrs: { step: 'scores' } });
    expect((await shown(page, 'attention-steps')).notes.join()).toContain('Q, K and V are yours (inputs.Q, inputs.K, inputs.V: 4 rows, d_k = 4)');
    await give(page, 'attention-steps', { attrs: { lang: 'zh-CN' } });
    const zh = await shown(page, 'attention-steps');
    expect(zh.figures.filter((f) => f.role !== 'main').map((f) => f.caption.split(' ')[0])).toEqual(['Q（你的）', 'K（你的）']);
    expect(zh.notes.join()).toContain('Q、K、V 是你给的');
    await context.close();
  });

  test('two heads: the steps and heads panels show each head’s weights from its own slices', async () => {
    const { page, context } = await open('<attention-steps heads="2" step="weights"></attention-steps><attention-heads heads="2"></attention-heads>', 'attention-steps, attention-heads');
    const inputs = { Q: nested(Q), K: nested(K), V: nested(V), tokens: TOKENS };
    await give(page, 'attention-steps', { inputs });
    await give(page, 'attention-heads', { inputs });
    const slice = (m, from, count) => ({ rows: m.rows, cols: count, data: Float32Array.from(nested(m).flatMap((r) => r.slice(from, from + count))) });
    const heads = [0, 1].map((h) => lab.scaledDotProductAttention(slice(Q, 2 * h, 2), slice(K, 2 * h, 2), slice(V, 3 * h, 3)));
    const grid = (await shown(page, 'attention-heads')).figures.filter((f) => f.head !== undefined);
    expect(grid.map((f) => f.values)).toEqual(heads.map((r) => Array.from(r.weights.data)));
    expect(grid[0].rows).toEqual(TOKENS);
    await give(page, 'attention-steps', { attrs: { head: '1' } });
    expect((await shown(page, 'attention-steps')).figures.find((f) => f.role === 'main').values).toEqual(Array.from(heads[1].weights.data));
    const concat = (await shown(page, 'attention-heads')).figures.find((f) => f.caption.startsWith('Concat'));
    expect(concat.values).toEqual(nested(heads[0].output).flatMap((row, i) => [...row, ...nested(heads[1].output)[i]]));
    await context.close();
  });
});

describe('a trained model’s attention weights, shown as given', () => {
  // A Hugging Face output_attentions slice: attentions[layer][0] is heads × n × n; each row sums to 1.
  const softmaxRows = (m) => nested(m).map((row) => {
    const e = row.map(Math.exp);
    const sum = e.reduce((a, x) => a + x, 0);
    return e.map((x) => x / sum);
  });
  const attentions = [softmaxRows(randomMatrix(3, 3, 21)), softmaxRows(randomMatrix(3, 3, 22))];
  const asFloat32 = (rows) => Array.from(Float32Array.from(rows.flat()));

  test('heads × n × n with a tokens attribute (JSON): steps (the weights step, per head) and heads panels', async () => {
    const tokens = '["[CLS]", "▁the", "##ing"]';
    const { page, context } = await open(`<attention-steps tokens='${tokens}'></attention-steps><attention-heads tokens='${tokens}'></attention-heads>`, 'attention-steps, attention-heads');
    for (const sel of ['attention-steps', 'attention-heads']) await give(page, sel, { inputs: { weights: attentions } });
    const steps = await shown(page, 'attention-steps');
    expect(steps.alert).toBeNull();
    expect(steps.tabs).toEqual(['1. Attention weights (yours)']);
    const main = steps.figures.find((f) => f.role === 'main');
    expect(main.values).toEqual(asFloat32(attentions[0]));
    expect(main.rows).toEqual(['[CLS]', '▁the', '##ing']);
    expect(steps.notes.join()).toContain('2 head(s) of 3×3');
    await give(page, 'attention-steps', { attrs: { head: '1' } });
    expect((await shown(page, 'attention-steps')).figures.find((f) => f.role === 'main').values).toEqual(asFloat32(attentions[1]));
    const heads = await shown(page, 'attention-heads');
    expect(heads.figures.map((f) => f.values)).toEqual(attentions.map(asFloat32));
    expect(heads.figures).toHaveLength(2); // no concat or W_O output: nothing was computed
    expect(heads.figures.map((f) => f.caption.split(' 3×3')[0])).toEqual(['Head 1 · Attention weights (yours)', 'Head 2 · Attention weights (yours)']);
    expect(heads.notes.join()).toContain('These are your attention weights (inputs.weights), 2 head(s)');
    await context.close();
  });
});

describe('tokens shown as given', () => {
  test('the tokens attribute (separated by spaces) and the property (JSON) label every row and column', async () => {
    const { page, context } = await open(`<attention-steps step="weights" tokens="didn't ▁the ##ing"></attention-steps>`, 'attention-steps');
    let main = (await shown(page, 'attention-steps')).figures.find((f) => f.role === 'main');
    expect([main.rows, main.cols]).toEqual([["didn't", '▁the', '##ing'], ["didn't", '▁the', '##ing']]);
    // The seeded embeddings are drawn for these tokens: the numbers are the library's for that model.
    const model = buildModel({ tokens: "didn't ▁the ##ing" });
    expect(main.values).toEqual(Array.from(lab.selfAttention(model.X, { Wq: model.Wq, Wk: model.Wk, Wv: model.Wv }).weights.data));
    await page.evaluate(() => (document.querySelector('attention-steps').tokens = ['New York', 'is', 'big']));
    await page.waitForFunction(() => document.querySelector('attention-steps').getAttribute('tokens') === '["New York","is","big"]');
    await give(page, 'attention-steps', {});
    main = (await shown(page, 'attention-steps')).figures.find((f) => f.role === 'main');
    expect(main.rows).toEqual(['New York', 'is', 'big']);
    await context.close();
  });
});

// [what, element, attributes, inputs, the error's key, a part of the English text naming the author's numbers]
const M = (rows, cols) => nested(randomMatrix(rows, cols, rows * 10 + cols));
const MISMATCHES = [
  ['an unknown inputs key', 'attention-steps', {}, { Q: M(3, 2), K: M(3, 2), v: M(3, 2) }, 'unknownKeyNear', 'inputs.v is not an input this element knows (did you mean inputs.V?)'],
  ['X wider than d-model', 'attention-steps', { 'd-model': '8' }, { X: M(3, 4) }, 'xWidth', 'your X (inputs.X) is 3×4, 4 wide, but d-model is 8'],
  ['d-k contradicting Q', 'attention-steps', { 'd-k': '4' }, { Q: M(3, 2), K: M(3, 2), V: M(3, 2) }, 'dk', 'your Q (inputs.Q) is 2 wide, but d-k is 4'],
  ['d-k contradicting W_Q', 'attention-heads', { 'd-k': '4', heads: '2', 'd-model': '4' }, { Wq: M(4, 4) }, 'dk', 'your W_Q (inputs.Wq) is 4 wide, but d-k is 4 with 2 head(s)'],
  ['W_Q of the wrong shape', 'attention-steps', {}, { Wq: M(2, 2) }, 'shape', 'your W_Q (inputs.Wq) is 2×2 but must be 8×2'],
  ['more tokens than rows', 'attention-steps', { tokens: 'a b c d' }, { Q: M(3, 2), K: M(3, 2), V: M(3, 2) }, 'tokensMore', '4 tokens were given but your Q (inputs.Q) has 3 rows'],
  ['fewer tokens than rows', 'attention-heads', { tokens: 'a b' }, { weights: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }, 'tokensFewer', 'only 2 tokens were given but your weights (inputs.weights) has 3 rows'],
  ['a sentence of other length than X', 'attention-steps', { sentence: 'one two', 'd-model': '2' }, { X: M(3, 2) }, 'sentenceFewer', 'the sentence has only 2 tokens but your X (inputs.X) has 3 rows'],
  ['a missing V', 'attention-steps', {}, { Q: M(3, 2), K: M(3, 2) }, 'qkvMissing', 'inputs.V not given'],
  ['Q and X together', 'attention-steps', {}, { X: M(3, 8), Q: M(3, 2) }, 'mixed', 'inputs give both inputs.X and inputs.Q'],
  ['a non-finite entry of the author’s K', 'attention-steps', {}, { Q: M(2, 2), K: [[1, 2], [3, null]], V: M(2, 2) }, 'nonFinite', 'your K (inputs.K) holds null at [1][1]'],
  ['weights rows that do not sum to 1', 'attention-heads', {}, { weights: [[0.5, 0.4], [1, 0]] }, 'weightsRow', 'row 0 of your weights (inputs.weights, head 1) sums to 0.900'],
  ['the whole output_attentions (4-D)', 'attention-heads', {}, { weights: [[[[1, 0], [0, 1]]]] }, 'weightsRank', 'attentions[layer][0]'],
  ['heads contradicting the weights', 'attention-steps', { heads: '2' }, { weights: [[1, 0], [0, 1]] }, 'weightsHeads', 'your weights (inputs.weights) have 1 heads but heads is 2'],
  ['a tokens attribute that is not JSON', 'attention-steps', { tokens: '["a", b]' }, {}, 'tokensJson', 'the tokens attribute starts with "[" but is not a JSON array'],
  ['weights on a panel that computes from X', 'attention-compare', {}, { weights: [[1, 0], [0, 1]] }, 'panelNeedsXweights', 'your attention weights (inputs.weights) are shown by the steps and heads panels'],
];

describe('every mismatch is a visible note in the reader’s language, never a silent fallback', () => {
  /** The settings as an element reads them from these attributes. */
  const configOf = (attrs) => Object.fromEntries(Object.entries(attrs).map(([name, value]) => [name.replace(/-(\w)/g, (_, c) => c.toUpperCase()), value]));
  const accepts = (tag) => (tag === 'attention-compare' ? undefined : { accepts: ['seeded', 'x', 'qkv', 'weights'] });

  // One page for every case, each case's element new in it (withElements).
  let shared = null;
  afterAll(async () => (await shared)?.context.close());

  test.each(MISMATCHES)('%s', async (_, tag, attrs, inputs, key, english) => {
    let thrown = null;
    try {
      buildModel(configOf(attrs), inputs, accepts(tag));
    } catch (error) {
      thrown = error;
    }
    expect(thrown?.name).toBe('InputsError');
    expect(thrown.key).toBe(key);
    shared ??= open('<attention-steps></attention-steps>', 'attention-steps');
    const { page, problems } = await shared;
    await withElements(page, `<${tag}></${tag}>`);
    for (const lang of ['en', 'zh-CN']) {
      await give(page, tag, { attrs: { ...attrs, lang }, inputs });
      const { alert, figures } = await shown(page, tag);
      expect(alert, lang).toBe(errorText(translator(lang), thrown));
      expect(figures, 'no heatmap of other numbers behind the note').toEqual([]);
      if (lang === 'en') expect(alert).toContain(english);
      else expect(alert).toMatch(/^无法显示你给的数据：/);
    }
    expect(problems.console).toEqual([]);
  });

  test('each explanation exists in both languages, the Chinese in Chinese', () => {
    const [en, zh] = [translator('en'), translator('zh-CN')];
    for (const [, , , , key] of MISMATCHES) {
      expect(en(`error.inputs.${key}`)).not.toBe(`error.inputs.${key}`);
      expect(zh(`error.inputs.${key}`)).toMatch(/[\u4e00-\u9fff]/);
    }
  });
});
