// <attention-transformer> in Chromium: alone on a plain page and inside the
// explorer; every step's matrix equals lab.transformerBlock's trace for the
// same seeded input (computed here in Node), with its live shape n×d_model or
// n×d_ff; LayerNorm rows have mean 0 and variance 1; X + P; the heads' weights
// with a causal mask; clamped attributes; keyboard; Chinese labels; a strict
// CSP; no console error, nothing from the network; screenshots.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildModel, normalise } from '../../web/src/model.js';
import { hashString, randomMatrix } from '../../web/src/random.js';
import { componentPage, expectAccessible, panelScreenshots, root, server, settled, watchedPage } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await loadLab();

const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
const STEPS = ['X', 'attention', 'residual1', 'norm1', 'hidden', 'ffn', 'residual2', 'output'];

/** A plain page (no CSS of ours) holding `body`, with the components module; `csp` sent as a header. */
/** A plain page holding `body` (see componentPage). */
const open = (body, { selector = 'attention-transformer', ...options } = {}) => componentPage(b.browser, s.url, body, { selector, ...options });

/** What the element shows: its figures (caption, shape, headers, values), notes by role, the stats table, tabs. */
const shownNow = (page, selector = 'attention-transformer') =>
  page.evaluate((sel) => {
    let host = document.querySelector(sel);
    if (host.tagName === 'ATTENTION-EXPLORER') host = host.shadowRoot.querySelector('attention-transformer');
    const root = host.shadowRoot;
    const figures = {};
    // Other steps' boxes stay in the document, skipped and inert (class "off"): not what is shown.
    const live = (x) => !x.closest('.off');
    for (const f of [...root.querySelectorAll('figure[data-matrix]')].filter(live)) {
      figures[f.dataset.matrix] = {
        caption: f.querySelector('figcaption').textContent,
        shape: f.querySelector('figcaption .shape').textContent.trim(),
        rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
        cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
        values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
        masked: [...f.querySelectorAll('tbody td')].map((td) => td.classList.contains('masked')),
      };
    }
    const roles = {};
    for (const p of [...root.querySelectorAll('[data-role]')].filter(live)) roles[p.dataset.role] = p.textContent;
    const stats = [...root.querySelectorAll('table.stats tbody tr')].filter(live).map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)));
    return {
      heading: root.querySelector('h2')?.textContent,
      title: root.querySelector('.step-title')?.textContent,
      lang: root.querySelector('.root')?.getAttribute('lang'),
      step: root.querySelector('[role="tabpanel"]')?.dataset.step,
      tex: root.querySelector('[data-role="formula"]')?.dataset.tex,
      katex: root.querySelector('[data-role="formula"] .katex-mathml annotation')?.textContent,
      tabs: [...root.querySelectorAll('[role="tab"]')].map((tab) => ({ text: tab.textContent, selected: tab.getAttribute('aria-selected') })),
      figures,
      roles,
      stats,
    };
  }, selector);

// Once every element is ready (labels and data-value follow a change when the page is idle).
const shown = async (...args) => (await settled(args[0]), shownNow(...args));

/** The panel's seeded block for the same configuration, computed here with the Node library. */
const DEFAULT_DK = normalise({}).dK;

function expected({ sentence = 'the cat sat on the mat', seed = 42, dModel = 8, dK = DEFAULT_DK, heads = 1, mask = 'none', validLen, positional = false } = {}) {
  const model = buildModel({ sentence, seed, dModel, dK, heads, mask, validLen });
  const d = model.config.dModel;
  const stream = (name) => hashString(`transformer:${name}:${model.config.seed}`);
  // d_ff = 4 · d_model, capped at 128 columns (d_model 64 gives 128, not 256).
  const ff = Math.min(4 * d, 128);
  const W1 = randomMatrix(d, ff, stream('W1'), 1 / Math.sqrt(d));
  const b1 = randomMatrix(1, ff, stream('b1'), 0.1).data;
  const W2 = randomMatrix(ff, d, stream('W2'), 1 / Math.sqrt(ff));
  const b2 = randomMatrix(1, d, stream('b2'), 0.1).data;
  // With positions the block's input is X_emb·√d_model + P (Dive into Deep Learning 10.7).
  const X = positional ? lab.addPositionalEncoding(model.X, { scale: Math.sqrt(d) }) : model.X;
  const r = lab.transformerBlock(X, { heads: model.config.heads, Wq: model.Wq, Wk: model.Wk, Wv: model.Wv, Wo: model.Wo, W1, b1, W2, b2, mask: model.mask, trace: true });
  const matrices = { X, ...Object.fromEntries(r.steps.map((st) => [st.id, st.matrix])) };
  return { model, r, matrices };
}

const rowStats = (M) =>
  Array.from({ length: M.rows }, (_, i) => {
    const row = Array.from(M.data.subarray(i * M.cols, (i + 1) * M.cols));
    const mean = row.reduce((a, x) => a + x, 0) / M.cols;
    return { mean, variance: row.reduce((a, x) => a + (x - mean) ** 2, 0) / M.cols };
  });

const setAttr = (page, name, value, sel = 'attention-transformer') =>
  page.evaluate(([n, v, s]) => document.querySelector(s).setAttribute(n, v), [name, value, sel]);
const waitStep = (page, step) => page.waitForFunction((st) => document.querySelector('attention-transformer').shadowRoot.querySelector('[role="tabpanel"]')?.dataset.step === st, step);

describe('attention-transformer', () => {
  test('alone on a plain page: every step equals the library’s trace, with its live shape', async () => {
    const { page, problems, context } = await open('<attention-transformer sentence="the cat sat on" seed="7" heads="2" d-k="3"></attention-transformer>');
    const e = expected({ sentence: 'the cat sat on', seed: 7, heads: 2, dK: 3 });
    const first = await shown(page);
    expect(first.heading).toBe('A Transformer encoder block, step by step');
    expect(first.lang).toBe('en');
    expect(first.step).toBe('X');
    expect(first.tabs.map((tab) => tab.text)).toEqual(['1. Input X 4×8', '2. Multi-head attention 4×8', '3. Add: X + A 4×8', '4. Norm: Y 4×8', '5. FFN hidden layer 4×32', '6. FFN output 4×8', '7. Add: Y + F 4×8', '8. Norm: output Z 4×8']);
    expect(first.roles.sizes).toContain('d_ff = 4 · d_model = 32');
    for (const [k, step] of STEPS.entries()) {
      if (k > 0) {
        // Through the Next button, as a reader would.
        await page.evaluate(() => document.querySelector('attention-transformer').shadowRoot.querySelector('[data-key="next"]').click());
        await waitStep(page, step);
      }
      const v = await shown(page);
      const f = v.figures[step];
      const m = e.matrices[step];
      expect(f.shape).toBe(step === 'hidden' ? '4×32' : '4×8');
      expect(f.caption).toContain(step === 'hidden' ? '(n×d_ff)' : '(n×d_model)');
      expect(f.rows).toEqual(['the', 'cat', 'sat', 'on']);
      expect(f.cols[0]).toBe(step === 'hidden' ? 'f1' : 'd1');
      expect(f.cols.length).toBe(m.cols);
      // The numbers are the library's, to the last bit, for the same seeded input.
      expect(f.values).toEqual(Array.from(m.data));
      expect(v.tabs[k].selected).toBe('true');
      if (step !== 'X') expect(v.tex).toBe(e.r.steps.find((st) => st.id === step).formula);
      // The block is post-norm: the gradient passes the "+" unchanged but then each LayerNorm; pre-norm skips them.
      if (step === 'residual1') {
        expect(v.roles.whyResidual).toContain('This block is post-norm, LayerNorm(x + F(x))');
        expect(v.roles.whyResidual).toContain('passes through the LayerNorm after every sublayer');
        expect(v.roles.whyResidual).toContain('pre-norm block, x + F(LayerNorm(x))');
        expect(v.roles.whyResidual).toContain('warm');
      }
      // One name for the FFN's hidden layer, H_ff, in the title, the figure and the formula; H is the concatenated heads.
      if (step === 'hidden') {
        expect(v.title).toBe('Position-wise feed-forward network: hidden layer H_ff');
        expect(f.caption).toContain('Hidden layer H_ff');
        expect(v.tex.startsWith('H_{\\text{ff}} =')).toBe(true);
      }
      if (step === 'attention') expect(v.roles.heads).toBeDefined();
      expect(v.katex).toContain(step === 'hidden' ? 'n \\times d_{\\text{ff}} = 4 \\times 32' : 'n \\times d_{\\text{model}} = 4 \\times 8');
    }
    // The block keeps the shape: Z is n × d_model like X.
    expect((await shown(page)).roles.stack).toContain('4 × 8');
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('LayerNorm rows: mean 0 and variance 1 (before: not), from the library’s matrices; ReLU zeros counted', async () => {
    const { page, problems, context } = await open('<attention-transformer step="norm1" sentence="a quick brown fox jumps" seed="3" d-model="16"></attention-transformer>');
    const e = expected({ sentence: 'a quick brown fox jumps', seed: 3, dModel: 16 });
    let v = await shown(page);
    expect(v.figures.norm1.values).toEqual(Array.from(e.matrices.norm1.data));
    expect(v.figures['op-residual1'].values).toEqual(Array.from(e.matrices.residual1.data));
    const before = rowStats(e.matrices.residual1);
    const after = rowStats(e.matrices.norm1);
    expect(v.stats.length).toBe(5);
    v.stats.forEach((row, i) => {
      expect(row[0]).toBeCloseTo(before[i].mean, 12);
      expect(row[1]).toBeCloseTo(before[i].variance, 12);
      expect(row[2]).toBeCloseTo(after[i].mean, 12);
      expect(row[3]).toBeCloseTo(after[i].variance, 12);
      expect(Math.abs(row[2])).toBeLessThan(1e-6);
      expect(row[3]).toBeGreaterThan(0.999);
      expect(row[3]).toBeLessThanOrEqual(1.0000001);
    });
    // Before the norm the rows are not normalised (the test would pass vacuously otherwise).
    expect(v.stats.some((row) => Math.abs(row[1] - 1) > 0.05)).toBe(true);
    expect(v.roles['stats-summary']).toContain('mean ≈ 0');
    expect(v.roles.whyLayerNorm).toContain('BatchNorm');

    await setAttr(page, 'step', 'output');
    await waitStep(page, 'output');
    v = await shown(page);
    expect(v.figures.output.values).toEqual(Array.from(e.r.output.data));
    rowStats(e.r.output).forEach((st, i) => expect(v.stats[i][3]).toBeCloseTo(st.variance, 12));
    expect(v.roles.decoder).toContain('cross-attention');

    await setAttr(page, 'step', 'hidden');
    await waitStep(page, 'hidden');
    v = await shown(page);
    const zeros = Array.from(e.matrices.hidden.data).filter((x) => x === 0).length;
    expect(zeros).toBeGreaterThan(0);
    expect(v.roles.relu).toContain(`set ${zeros} of the ${5 * 64} entries of H_ff`);
    expect(v.figures.hidden.shape).toBe('5×64');
    expect(v.figures['op-norm1'].shape).toBe('5×16');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('hovering a cell outlines what it came from: the same cell of both addends, the same row of Y for H_ff', async () => {
    const { page, problems, context } = await open('<attention-transformer step="residual1" sentence="a b c d"></attention-transformer>');
    // The marks are read from the operands' table cells, written when the page is idle: settled first.
    const lit = async () => {
      await settled(page);
      return page.evaluate(() => {
        const root = document.querySelector('attention-transformer').shadowRoot;
        const out = {};
        for (const f of [...root.querySelectorAll('figure[data-matrix^="op-"]')].filter((x) => !x.closest('.off'))) out[f.dataset.matrix] = [...f.querySelectorAll('td.hl')].map((td) => `${td.dataset.i},${td.dataset.j}`);
        return out;
      });
    };
    const at12 = page.locator('attention-transformer figure[data-matrix="residual1"] canvas');
    await at12.hover({ position: await at12.evaluate((c, [i, j]) => { const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); return { x: x + (j + 0.5) * w, y: y + (i + 0.5) * h }; }, [1, 2]) });
    expect(await lit()).toEqual({ 'op-X': ['1,2'], 'op-attention': ['1,2'] });
    await setAttr(page, 'step', 'hidden');
    await waitStep(page, 'hidden');
    const at220 = page.locator('attention-transformer figure[data-matrix="hidden"] canvas');
    await at220.hover({ position: await at220.evaluate((c, [i, j]) => { const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); return { x: x + (j + 0.5) * w, y: y + (i + 0.5) * h }; }, [2, 20]) });
    expect(await lit()).toEqual({ 'op-norm1': Array.from({ length: 8 }, (_, j) => `2,${j}`) });
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('X_emb·√d_model + P: the scaled embeddings and the positional encoding enter the block; the checkbox toggles it', async () => {
    const { page, problems, context } = await open('<attention-transformer sentence="the cat sat on the mat" positional></attention-transformer>');
    const withP = expected({ positional: true });
    const without = expected();
    let v = await shown(page);
    expect(v.tabs[0].text).toContain('Input √d·X + P');
    expect(v.figures.X.values).toEqual(Array.from(withP.matrices.X.data));
    // … which is X_emb·√8 + P, in float64, rounded once.
    const emb = withP.model.X;
    v.figures.X.values.forEach((x, k) => {
      const [i, c] = [Math.floor(k / 8), k % 8];
      const angle = i / 10000 ** ((2 * Math.floor(c / 2)) / 8);
      expect(x).toBe(Math.fround(Math.sqrt(8) * emb.data[k] + (c % 2 ? Math.cos(angle) : Math.sin(angle))));
    });
    expect(v.tex).toBe('X = X_{\\text{emb}}\\sqrt{d_{\\text{model}}} + P');
    expect(v.roles['positional-on']).toContain('multiplied by √d_model = 2.828');
    // The sizes in the note: root mean squares of X_emb, P and the block input, computed here.
    const rms = (data) => Math.sqrt(Array.from(data).reduce((a, x) => a + x * x, 0) / data.length).toFixed(3);
    expect(v.roles.scaleWhy).toContain(`root mean square ${rms(lab.positionalEncoding(6, 8).data)} here`);
    expect(v.roles.scaleWhy).toContain(`root mean square ${rms(emb.data)})`);
    expect(v.roles.scaleWhy).toContain(`X has root mean square ${rms(withP.matrices.X.data)}`);
    // The two "the" rows differ once their positions are added.
    expect(v.figures.X.values.slice(0, 8)).not.toEqual(v.figures.X.values.slice(32, 40));
    await setAttr(page, 'step', 'output');
    await waitStep(page, 'output');
    v = await shown(page);
    expect(v.figures.output.values).toEqual(Array.from(withP.r.output.data));
    // Unticking the box: back to the embeddings alone.
    await page.evaluate(() => document.querySelector('attention-transformer').shadowRoot.querySelector('#positional').click());
    await page.waitForFunction(() => !document.querySelector('attention-transformer').hasAttribute('positional'));
    await page.waitForFunction((x) => Number(document.querySelector('attention-transformer').shadowRoot.querySelector('figure[data-matrix="output"] tbody td').dataset.value) === x, without.r.output.data[0]);
    v = await shown(page);
    expect(v.figures.output.values).toEqual(Array.from(without.r.output.data));
    expect(withP.r.output.data[0]).not.toBe(without.r.output.data[0]);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('causal mask: each head’s weights small, upper triangle masked and exactly 0, equal to the library', async () => {
    const { page, problems, context } = await open('<attention-transformer step="attention" heads="3" mask="causal" sentence="one two three four five"></attention-transformer>');
    const e = expected({ heads: 3, mask: 'causal', sentence: 'one two three four five' });
    const v = await shown(page);
    expect(v.roles.mask).toContain('causal');
    for (let h = 0; h < 3; h++) {
      const f = v.figures[`head-${h}`];
      expect(f.shape).toBe('5×5');
      expect(f.caption).toContain(`Head ${h + 1}`);
      expect(f.values).toEqual(Array.from(e.r.heads[h].weights.data));
      for (let i = 0; i < 5; i++)
        for (let j = 0; j < 5; j++) {
          expect(f.masked[i * 5 + j]).toBe(j > i);
          if (j > i) expect(f.values[i * 5 + j]).toBe(0);
        }
    }
    expect(v.figures['head-3']).toBeUndefined();
    expect(v.figures.attention.values).toEqual(Array.from(e.matrices.attention.data));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('padding counts tokens from 1, as the tables’ rows do; the masked columns are the tokens it names; dropout beside add & norm', async () => {
    const { page, problems, context } = await open('<attention-transformer step="attention" mask="padding" valid-len="3" sentence="one two three four five"></attention-transformer>');
    let v = await shown(page);
    expect(v.roles.mask).toContain('from token 4 on (counted from 1)');
    // Masked keys: columns 4 and 5 in the reader's count, "four" and "five".
    const head = v.figures['head-0'];
    const maskedCols = head.cols.filter((_, j) => head.masked[j]);
    expect(maskedCols).toEqual(['four', 'five']);
    expect(head.cols.indexOf('four') + 1).toBe(4);
    await setAttr(page, 'valid-len', '5');
    await page.waitForFunction(() => document.querySelector('attention-transformer').shadowRoot.querySelector('[data-role="mask"]').textContent.includes('none of them'));
    await setAttr(page, 'mask', 'causal');
    await page.waitForFunction(() => document.querySelector('attention-transformer').shadowRoot.querySelector('[data-role="mask"]').textContent.includes('causal'));
    v = await shown(page);
    expect(v.roles.mask).toContain('tokens 1…i');
    await setAttr(page, 'step', 'residual1');
    await waitStep(page, 'residual1');
    v = await shown(page);
    expect(v.roles.dropout).toContain('on the attention weights, after the softmax');
    expect(v.roles.dropout).toContain('LayerNorm(X + Dropout(Sublayer(X)))');
    expect(v.roles.dropout).toContain('train without it');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('edge cases: d_model = 1 (every row constant: LayerNorm gives 0, said so), valid length 0 (A = 0)', async () => {
    const { page, problems, context } = await open('<attention-transformer step="norm1" d-model="1" mask="padding" valid-len="0" sentence="a b c"></attention-transformer>');
    const e = expected({ sentence: 'a b c', dModel: 1, mask: 'padding', validLen: 0 });
    let v = await shown(page);
    expect(v.figures.norm1.shape).toBe('3×1');
    expect(v.figures.norm1.values).toEqual(Array.from(e.matrices.norm1.data));
    expect(v.figures.norm1.values).toEqual([0, 0, 0]);
    expect(v.stats.map((row) => row[3])).toEqual([0, 0, 0]);
    expect(v.roles['stats-summary']).toContain('a, b, c were constant');
    expect(v.roles['stats-summary']).not.toContain('mean ≈ 0');
    expect(v.roles.mask).toContain('A = 0');
    await setAttr(page, 'step', 'attention');
    await waitStep(page, 'attention');
    v = await shown(page);
    expect(v.figures.attention.values).toEqual([0, 0, 0]);
    expect(v.figures['head-0'].values).toEqual(new Array(9).fill(0));
    expect(v.figures['head-0'].masked).toEqual(new Array(9).fill(true));
    expect(v.figures['op-X']).toBeUndefined();
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('two instances on one page keep separate state', async () => {
    const { page, problems, context } = await open('<attention-transformer id="a" step="ffn" seed="1"></attention-transformer><attention-transformer id="b" step="ffn" seed="2" positional></attention-transformer>');
    await page.evaluate(() => document.getElementById('a').shadowRoot.querySelector('[data-key="next"]').click());
    await page.waitForFunction(() => document.getElementById('a').getAttribute('step') === 'residual2');
    const steps = await page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).shadowRoot.querySelector('[role="tabpanel"]').dataset.step));
    expect(steps).toEqual(['residual2', 'ffn']);
    const b = await shown(page, '#b');
    expect(b.figures.ffn.values).toEqual(Array.from(expected({ seed: 2, positional: true }).matrices.ffn.data));
    expect(await page.evaluate(() => document.getElementById('a').shadowRoot.querySelector('#positional').checked)).toBe(false);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('32 tokens, d_model 64: d_ff capped at 128 (said so); a step left behind shows the new numbers when shown again; large operands start closed', async () => {
    const sentence = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
    const { page, problems, context } = await open(`<attention-transformer step="residual1" sentence="${sentence}" d-model="64" d-k="16" heads="4" seed="1"></attention-transformer>`);
    let v = await shown(page);
    const e1 = expected({ sentence, seed: 1, dModel: 64, dK: 16, heads: 4 });
    expect(v.roles.sizes).toContain('d_ff = 128 (4 · d_model would be 256; capped at 128');
    expect(v.figures.residual1.values).toEqual(Array.from(e1.matrices.residual1.data));
    // Two 32×64 operands (4,096 numbers): closed at first, not drawn; opened, they are the library's.
    expect(v.figures['op-X']).toBeUndefined();
    await page.locator('attention-transformer').locator('.step-box:not(.off) details[data-role="operands"] > summary').click();
    await page.waitForFunction(() => document.querySelector('attention-transformer').shadowRoot.querySelector('.step-box:not(.off) figure[data-matrix="op-attention"]'));
    v = await shown(page);
    expect(v.figures['op-X'].values).toEqual(Array.from(e1.matrices.X.data));
    expect(v.figures['op-attention'].values).toEqual(Array.from(e1.matrices.attention.data));
    // The hidden layer is 32 × 128.
    await setAttr(page, 'step', 'hidden');
    await waitStep(page, 'hidden');
    v = await shown(page);
    expect(v.figures.hidden.shape).toBe('32×128');
    expect(v.figures.hidden.values).toEqual(Array.from(e1.matrices.hidden.data));
    expect(v.roles.explain).toContain('stops at 128 columns');
    // A seed change on the hidden step; back on residual1 (kept, drawn for seed 1) the numbers are seed 2's.
    await setAttr(page, 'seed', '2');
    const e2 = expected({ sentence, seed: 2, dModel: 64, dK: 16, heads: 4 });
    await page.waitForFunction((x) => document.querySelector('attention-transformer').shadowRoot.querySelector('.step-box:not(.off) figure[data-matrix="hidden"] td[data-i]').dataset.value === x, String(e2.matrices.hidden.data[0]));
    expect((await shown(page)).figures.hidden.values).toEqual(Array.from(e2.matrices.hidden.data));
    await setAttr(page, 'step', 'residual1');
    await waitStep(page, 'residual1');
    v = await shown(page);
    expect(v.figures.residual1.values).toEqual(Array.from(e2.matrices.residual1.data));
    // The reader opened the operands: they stay open, with seed 2's numbers.
    expect(v.figures['op-X'].values).toEqual(Array.from(e2.matrices.X.data));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('every step is prepared while the page is idle, before its first visit, and shows the latest numbers when jumped to after a seed change', async () => {
    const { page, problems, context } = await open('<attention-transformer sentence="the cat sat on the mat" seed="3"></attention-transformer>');
    await shown(page);
    // Box of every step with its heatmap, without visiting any: the others are drawn when idle.
    const preparedFor = (seed) =>
      page.waitForFunction(
        ([steps, x]) => {
          const root = document.querySelector('attention-transformer').shadowRoot;
          return steps.every((st) => root.querySelector(`.step-box[data-step="${st}"] figure[data-matrix="${st}"]`)) && root.querySelector('.step-box[data-step="ffn"] figure[data-matrix="ffn"] td[data-i]')?.dataset.value === x;
        },
        [STEPS, String(expected({ seed }).matrices.ffn.data[0])],
      );
    await preparedFor(3);
    await setAttr(page, 'seed', '4');
    await preparedFor(4);
    await setAttr(page, 'step', 'ffn');
    await waitStep(page, 'ffn');
    const v = await shown(page);
    expect(v.figures.ffn.values).toEqual(Array.from(expected({ seed: 4 }).matrices.ffn.data));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('out-of-range attributes are clamped with the visible note', async () => {
    const { page, problems, context } = await open('<attention-transformer step="bogus" positional="maybe" d-model="100" sentence="a b"></attention-transformer>');
    const v = await shown(page);
    expect(v.step).toBe('X');
    expect(v.roles['out-of-range']).toContain('step: bogus → X');
    expect(v.roles['out-of-range']).toContain('positional: maybe → on');
    expect(v.roles['out-of-range']).toContain('d-model: 100 → 64');
    expect(v.figures.X.shape).toBe('2×64');
    expect(v.tabs[4].text).toContain('2×128');
    expect(v.roles.sizes).toContain('capped at 128');
    const e = expected({ sentence: 'a b', dModel: 64, positional: true });
    expect(v.figures.X.values).toEqual(Array.from(e.matrices.X.data));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('keyboard: Tab reaches the checkbox, buttons, the step tabs and the cells; arrow keys step', async () => {
    const { page, problems, context } = await open('<attention-transformer sentence="a b c"></attention-transformer>');
    const active = () => page.evaluate(() => {
      const a = document.querySelector('attention-transformer').shadowRoot.activeElement;
      return a?.dataset.key ?? a?.tagName ?? null;
    });
    const reached = [];
    for (let k = 0; k < 10; k++) {
      await page.keyboard.press('Tab');
      reached.push(await active());
    }
    expect(reached).toEqual(expect.arrayContaining(['positional', 'prev', 'next', 'tab-X', 'TD']));
    await page.evaluate(() => document.querySelector('attention-transformer').shadowRoot.querySelector('[data-key="tab-X"]').focus());
    await page.keyboard.press('ArrowDown');
    await waitStep(page, 'attention');
    expect(await active()).toBe('tab-attention');
    await page.keyboard.press('End');
    await waitStep(page, 'output');
    expect(await active()).toBe('tab-output');
    await page.keyboard.press('ArrowUp');
    await waitStep(page, 'residual2');
    expect(await page.evaluate(() => document.querySelector('attention-transformer').getAttribute('step'))).toBe('residual2');
    // The checkbox from the keyboard.
    await page.evaluate(() => document.querySelector('attention-transformer').shadowRoot.querySelector('#positional').focus());
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelector('attention-transformer').hasAttribute('positional'));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('Chinese labels (D2L terms), and the panel inside the explorer with a way to cross-attention', async () => {
    const { page, problems, context } = await open('<attention-transformer lang="zh-CN" step="norm1"></attention-transformer>');
    const v = await shown(page);
    expect(v.lang).toBe('zh-CN');
    expect(v.heading).toBe('逐步计算一个 Transformer 编码器块');
    expect(v.title).toBe('加法和规范化：Y = LayerNorm(X + A)');
    expect(v.tabs.map((tab) => tab.text)).toContain('2. 多头注意力 7×8'); // the Chinese default sentence: 7 characters
    expect(v.roles.whyLayerNorm).toContain('层规范化');
    expect(v.roles.whyLayerNorm).toContain('批量规范化');
    await setAttr(page, 'step', 'residual1');
    await waitStep(page, 'residual1');
    const zhResidual = await shown(page);
    expect(zhResidual.title).toContain('残差连接');
    expect(zhResidual.roles.whyResidual).toContain('后置层规范化');
    expect(zhResidual.roles.whyResidual).toContain('前置层规范化');
    expect(zhResidual.roles.whyResidual).toContain('预热');
    await setAttr(page, 'step', 'hidden');
    await waitStep(page, 'hidden');
    expect((await shown(page)).title).toBe('基于位置的前馈网络：隐藏层 H_ff');
    await setAttr(page, 'positional', '');
    await setAttr(page, 'step', 'X');
    await waitStep(page, 'X');
    const zhX = await shown(page);
    expect(zhX.roles['positional-on']).toContain('由种子生成的嵌入乘以 √d_model');
    expect(zhX.roles.scaleWhy).toContain('为什么要乘以 √d_model');
    expect(JSON.stringify(zhX.roles)).not.toContain('带种子');
    await setAttr(page, 'step', 'ffn');
    await waitStep(page, 'ffn');
    expect((await shown(page)).title).toContain('基于位置的前馈网络');
    expect(problems.console).toEqual([]);
    await context.close();

    const w = await open('<attention-explorer panel="transformer" sentence="the cat sat" heads="2"></attention-explorer>', { selector: 'attention-explorer' });
    await w.page.waitForFunction(() => 'ready' in (document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer')?.dataset ?? {}));
    const tab = await w.page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('[role="tab"][aria-selected="true"]').textContent);
    expect(tab).toBe('Transformer block');
    const inner = await shown(w.page, 'attention-explorer');
    const e = expected({ sentence: 'the cat sat', heads: 2 });
    expect(inner.figures.X.shape).toBe('3×8');
    expect(inner.figures.X.values).toEqual(Array.from(e.matrices.X.data));
    // The shared controls reach the panel: d_model from the explorer's input.
    await w.page.evaluate(() => {
      const input = document.querySelector('attention-explorer').shadowRoot.querySelector('#in-d-model');
      input.value = '12';
      input.dispatchEvent(new Event('input'));
    });
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer').shadowRoot.querySelector('figure[data-matrix="X"] .shape').textContent.trim() === '3×12');
    // The last step links to the cross-attention panel.
    await w.page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer').setAttribute('step', 'output'));
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer').shadowRoot.querySelector('[data-key="open-cross"]'));
    const out = await shown(w.page, 'attention-explorer');
    expect(out.figures.output.values).toEqual(Array.from(expected({ sentence: 'the cat sat', heads: 2, dModel: 12 }).r.output.data));
    await w.page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer').shadowRoot.querySelector('[data-key="open-cross"]').click());
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').getAttribute('panel') === 'cross');
    expect(w.problems.console).toEqual([]);
    expect(w.problems.external).toEqual([]);
    await w.context.close();
  });

  for (const scheme of ['light', 'dark'])
    test(`in the demo page (?panel=transformer), ${scheme}: every control named, tables with headers, AA contrast`, async () => {
      const site = await server(join(root, 'site'));
      const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      await page.goto(`${site.url}/?panel=transformer&h=2&mask=causal`);
      await page.waitForFunction(() => 'ready' in (document.querySelector('attention-explorer')?.shadowRoot.querySelector('attention-transformer')?.dataset ?? {}));
      for (const step of ['attention', 'norm1', 'output']) {
        await page.evaluate((st) => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer').setAttribute('step', st), step);
        await page.waitForFunction((st) => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-transformer').shadowRoot.querySelector('[role="tabpanel"]')?.dataset.step === st, step);
        // The new step's tables for screen readers are built when the page is next idle; data-ready comes back then.
        await settled(page);
        await expectAccessible(page, 'attention-transformer', { where: `step ${step}, ${scheme}`, tables: 1 });
      }
      expect(problems.console).toEqual([]);
      expect(problems.external).toEqual([]);
      await context.close();
      await site.close();
    });

  test(`under the header ${STRICT}: no violation, colours, layout and formulas apply`, async () => {
    const { page, problems, context } = await open('<attention-transformer step="norm1" heads="2"></attention-transformer>', { csp: STRICT });
    const look = await page.evaluate(() => {
      const root = document.querySelector('attention-transformer').shadowRoot;
      const td = root.querySelector('td[data-i]:not(.masked)');
      return {
        katex: root.querySelectorAll('.formula .katex').length,
        bg: ((td) => { const c = td.closest('figure').querySelector('canvas'); const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); const r = devicePixelRatio; return `rgba(${[...c.getContext('2d').getImageData((x + (Number(td.dataset.j) + 0.5) * w) * r, (y + (Number(td.dataset.i) + 0.5) * h) * r, 1, 1).data].join(', ')})`; })(td),
        columns: getComputedStyle(root.querySelector('.block')).gridTemplateColumns.split(' ').length,
      };
    });
    expect(look.katex).toBe(2);
    expect(look.bg).not.toBe('rgba(0, 0, 0, 0)');
    // The panel's own constructed stylesheet applies: the flow beside the step at 1280 px.
    expect(look.columns).toBe(2);
    const violations = [...(await page.evaluate(() => window.__violations)), ...problems.console.filter((m) => /Content.Security.Policy/i.test(m))];
    expect(violations).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('screenshots at 1280 px (English saved in docs/screenshots, Chinese in the temp folder); nothing wider than a 375 px phone', async () => {
    await panelScreenshots(open, {
      name: 'transformer',
      height: 2000,
      bodies: {
        en: '<attention-transformer id="s" lang="en" step="norm1" heads="2" sentence="the cat sat on the mat"></attention-transformer>',
        zh: '<attention-transformer id="s" lang="zh-CN" step="norm1" heads="2" sentence="the cat sat on the mat"></attention-transformer>',
      },
      check: async (page) => {
        // One column at phone width: the block's diagram above its heatmaps.
        const columns = await page.evaluate(() => getComputedStyle(document.querySelector('#s').shadowRoot.querySelector('.block')).gridTemplateColumns.split(' ').length);
        expect(columns).toBe(1);
      },
    });
  });
});
