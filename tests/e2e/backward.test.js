// <attention-backward> in Chromium: every step of the backward pass drawn from the training build's
// trace, its numbers equal to the library's in Node for the same seeded input (and to a float64
// backward); the score-scale slider (by keyboard) lowers ‖dS‖ as the softmax saturates; the
// stepper by keyboard; Chinese; the training build fetched only once the explorer's tab is shown;
// no console error, nothing from the network.
import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { buildModel, normalise } from '../../web/src/model.js';
import { targetFor, transposed } from '../../web/src/components/backward/backward-model.js';
import { componentPage, ready, settled, urlWritten, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await initTraining();

const KEYS = ['S', 'P', 'O', 'dO', 'dV', 'dP', 'dS', 'dQ', 'dK'];
const open = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-backward', ...options });

/** What the panel shows now: the step, its figure (shape, headers, values), title, formula, readout, sweep. */
const shown = async (page) => {
  await settled(page);
  return page.evaluate(() => {
    const root = document.querySelector('attention-backward').shadowRoot;
    const f = root.querySelector('#step-panel figure[data-matrix]');
    const sat = root.querySelector('[data-role="saturation"]');
    return {
      heading: root.querySelector('h2').textContent,
      step: root.querySelector('#step-panel').dataset.step,
      selected: root.querySelector('[role="tab"][aria-selected="true"]').id,
      matrix: f.dataset.matrix,
      shape: f.querySelector('figcaption .shape').textContent.trim(),
      rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
      cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
      values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
      title: root.querySelector('.step-title').textContent,
      explain: root.querySelector('[data-role="explain"]').textContent,
      tex: root.querySelector('.formula').dataset.tex,
      katex: root.querySelectorAll('.formula .katex').length,
      norm: Number(sat.dataset.norm),
      max: Number(sat.dataset.max),
      readout: sat.textContent,
      sweep: [...root.querySelectorAll('[data-role="sweep"] tbody tr')].map((tr) => ({ factor: Number(tr.dataset.factor), norm: Number(tr.children[3].dataset.value), current: tr.getAttribute('aria-current') === 'true' })),
      loss: root.querySelector('[data-role="loss"]').textContent,
      rowsNote: root.querySelector('[data-role="rows"]')?.textContent ?? null,
      memory: root.querySelector('[data-role="memory"]')?.textContent ?? null,
      weightGrad: (() => {
        const g = root.querySelector('#step-panel figure[data-matrix^="dW"]');
        return g && { matrix: g.dataset.matrix, shape: g.querySelector('figcaption .shape').textContent.trim(), values: [...g.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)) };
      })(),
      focused: root.activeElement?.dataset.key ?? null,
    };
  });
};

const firstColumns = (W, keep) => {
  const data = new Float32Array(W.rows * keep);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + keep), i * keep);
  return { rows: W.rows, cols: keep, data };
};

/** The library's numbers in Node for the same input, written out call by call. */
function expected(settings, factor = 1) {
  const model = buildModel(normalise(settings));
  const dK = model.config.dK;
  const [Q, K, V] = [model.Wq, model.Wk, model.Wv].map((W) => lab.matmul(model.X, firstColumns(W, dK)));
  const scale = factor === 1 ? undefined : factor / Math.sqrt(dK);
  const forward = lab.scaledDotProductAttention(Q, K, V, { mask: model.mask, scale });
  const T = targetFor(model.n, dK, model.config.seed);
  const dO = { rows: model.n, cols: dK, data: forward.output.data.map((o, k) => o - T.data[k]) };
  const r = lab.attentionBackward(Q, K, V, dO, { mask: model.mask, scale, trace: true });
  const step = Object.fromEntries(r.steps.map((st) => [st.id, st.matrix]));
  return { model, Q, K, V, P: forward.weights, O: forward.output, step, scale: scale ?? 1 / Math.sqrt(dK) };
}

/** dS in float64 from the library's Q, K, V and dO: softmax, dP = dO Vᵀ, P ∘ (dP − rowsum(P ∘ dP)). */
function float64dS({ Q, K, V, step, scale, model }) {
  const [n, d] = [Q.rows, Q.cols];
  const at = (M, i, j) => M.data[i * M.cols + j];
  const out = [];
  for (let i = 0; i < n; i++) {
    const s = Array.from({ length: n }, (_, j) => (model.mask === 'causal' && j > i ? -Infinity : Array.from({ length: d }, (_, k) => at(Q, i, k) * at(K, j, k)).reduce((a, x) => a + x, 0) * scale));
    const top = Math.max(...s);
    const e = s.map((x) => Math.exp(x - top));
    const sum = e.reduce((a, x) => a + x, 0);
    const p = e.map((x) => x / sum);
    const dP = Array.from({ length: n }, (_, j) => Array.from({ length: V.cols }, (_, k) => at(step.dO, i, k) * at(V, j, k)).reduce((a, x) => a + x, 0));
    const D = p.reduce((a, x, j) => a + x * dP[j], 0);
    out.push(...p.map((x, j) => x * (dP[j] - D)));
  }
  return out;
}

describe('attention-backward', () => {
  test('every step is drawn from the trace, numbers equal to the library in Node; dS within 1e-5 of float64', async () => {
    const { page, problems, context } = await open('<attention-backward sentence="the cat sat on the mat" seed="7"></attention-backward>');
    const e = expected({ sentence: 'the cat sat on the mat', seed: 7 });
    const tokens = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
    const wanted = { S: null, P: e.P, O: e.O, ...e.step };
    for (const key of KEYS) {
      await page.evaluate((k) => (document.querySelector('attention-backward').step = k), key);
      const v = await shown(page);
      expect(v.step).toBe(key);
      expect(v.matrix).toBe(key);
      expect(v.selected).toBe(`tab-${key}`);
      expect(v.rows).toEqual(tokens);
      const square = ['S', 'P', 'dP', 'dS'].includes(key);
      expect(v.shape).toBe(square ? '6×6' : '6×8');
      expect(v.cols).toEqual(square ? tokens : ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8']);
      expect(v.katex).toBeGreaterThan(0);
      expect(v.explain.length).toBeGreaterThan(60);
      if (wanted[key]) expect(v.values, key).toEqual(Array.from(wanted[key].data));
      // P's memory under P; under dQ, dK, dV the weight gradient Xᵀ dG (d_model × d_k), the library's product.
      expect(v.memory === null, key).toBe(key !== 'P');
      const weight = { dQ: 'Q', dK: 'K', dV: 'V' }[key];
      expect(v.weightGrad?.matrix ?? null, key).toBe(weight ? `dW${weight}` : null);
      if (weight) {
        expect(v.weightGrad.shape).toBe(`${e.model.config.dModel}×8`);
        expect(v.weightGrad.values, key).toEqual(Array.from(lab.matmul(transposed(e.model.X), e.step[key]).data));
      }
    }
    await page.evaluate(() => (document.querySelector('attention-backward').step = 'P'));
    expect((await shown(page)).memory).toContain('6×6 = 36 numbers');
    await page.evaluate(() => (document.querySelector('attention-backward').step = 'dK'));
    const v = await shown(page);
    expect(v.tex).toContain('\\mathrm{d}K');
    expect(v.heading).toBe('The backward pass of one head');
    await page.evaluate(() => (document.querySelector('attention-backward').step = 'dS'));
    const dS = await shown(page);
    const reference = float64dS(e);
    dS.values.forEach((x, k) => expect(Math.abs(x - reference[k]), `dS[${k}]`).toBeLessThan(1e-5));
    expect(dS.tex).toContain('\\operatorname{rowsum}');
    // Under dS: the most and the least saturated rows, from the library's P and dS.
    const rowNorm = (i) => Math.hypot(...e.step.dS.data.subarray(i * 6, i * 6 + 6));
    const rowMax = (i) => Math.max(...e.P.data.subarray(i * 6, i * 6 + 6));
    const most = [0, 1, 2, 3, 4, 5].reduce((a, i) => (rowMax(i) > rowMax(a) ? i : a), 0);
    expect(dS.rowsNote).toContain(`row ${most + 1}, “${tokens[most]}” (max P = ${Number(rowMax(most).toPrecision(3))}): its row of dS has norm ${Number(rowNorm(most).toPrecision(3))}`);
    // The readout is ‖dS‖_F of the library's dS.
    expect(dS.norm).toBeCloseTo(Math.hypot(...e.step.dS.data), 5);
    await page.evaluate(() => (document.querySelector('attention-backward').step = 'dO'));
    expect((await shown(page)).tex).toContain('\\lVert O - T \\rVert^2');
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('the score-scale slider, by keyboard, saturates the softmax and lowers ‖dS‖; numbers follow the library', async () => {
    const { page, problems, context } = await open('<attention-backward step="dS"></attention-backward>');
    const at1 = await shown(page);
    expect(at1.sweep.map((r) => r.factor)).toEqual([0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128]);
    expect(at1.sweep.find((r) => r.current).factor).toBe(1);
    await page.locator('attention-backward').locator('#score-scale').focus();
    for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowRight');
    const at16 = await shown(page);
    expect(await page.evaluate(() => document.querySelector('attention-backward').getAttribute('score-scale'))).toBe('16');
    expect(at16.focused).toBe('score-scale');
    expect(at16.sweep.find((r) => r.current).factor).toBe(16);
    expect(at16.norm).toBeLessThan(at1.norm / 10);
    expect(at16.readout).toContain('c = 16');
    expect(at16.values).toEqual(Array.from(expected({}, 16).step.dS.data));
    // The table's row for each factor is that factor's ‖dS‖ (the same as the readout when chosen).
    expect(at16.sweep.find((r) => r.factor === 16).norm).toBe(at16.norm);
    expect(at16.sweep.find((r) => r.factor === 32).norm).toBeLessThan(at16.norm);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('keyboard through the stepper: arrows, End and Home on the tabs, the next button; out-of-range attributes noted', async () => {
    const { page, problems, context } = await open('<attention-backward score-scale="3" step="nope"></attention-backward>');
    let v = await shown(page);
    expect(v.step).toBe('S');
    const note = await page.evaluate(() => document.querySelector('attention-backward').shadowRoot.querySelector('[data-role="out-of-range"]').textContent);
    expect(note).toContain('score-scale: 3 → 4');
    expect(note).toContain('step: nope → S');
    await page.locator('attention-backward').locator('#tab-S').focus();
    await page.keyboard.press('ArrowRight');
    v = await shown(page);
    expect(v.step).toBe('P');
    expect(v.focused).toBe('tab-P');
    await page.keyboard.press('End');
    expect((await shown(page)).step).toBe('dK');
    await page.keyboard.press('Home');
    expect((await shown(page)).step).toBe('S');
    await page.locator('attention-backward').locator('[data-key="next"]').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    expect((await shown(page)).step).toBe('O');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('at 375 px wide nothing widens the page (the sweep table and the heatmap scroll in their boxes)', async () => {
    const { page, problems, context } = await open('<attention-backward step="dS" sentence="one two three four five six seven eight nine ten eleven twelve"></attention-backward>', { viewport: { width: 375, height: 900 } });
    await shown(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test("the author's X and weights (as a trained head's would be given) are used; Q, K, V given are refused visibly", async () => {
    const { page, problems, context } = await open('<attention-backward step="dQ" tokens=\'["a","b","c"]\'></attention-backward>');
    const X = [[1, 0], [0, 1], [1, 1]];
    const W = { Wq: [[1, 0.5], [0, 1]], Wk: [[0.5, 0], [1, 1]], Wv: [[1, 1], [0, 2]] };
    await page.evaluate(({ X, W }) => (document.querySelector('attention-backward').inputs = { X, ...W }), { X, W });
    await page.waitForFunction(() => document.querySelector('attention-backward').shadowRoot.querySelector('figcaption .shape')?.textContent.trim() === '3×2');
    const v = await shown(page);
    const mat = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });
    const [Q, K, V] = [W.Wq, W.Wk, W.Wv].map((w) => lab.matmul(mat(X), mat(w)));
    const O = lab.scaledDotProductAttention(Q, K, V).output;
    const T = targetFor(3, 2, 42);
    const dO = { rows: 3, cols: 2, data: O.data.map((o, k) => o - T.data[k]) };
    expect(v.rows).toEqual(['a', 'b', 'c']);
    expect(v.values).toEqual(Array.from(lab.attentionBackward(Q, K, V, dO, { trace: true }).dQ.data));
    await page.evaluate(() => (document.querySelector('attention-backward').inputs = { Q: [[1]], K: [[1]], V: [[1]] }));
    await page.waitForFunction(() => document.querySelector('attention-backward').shadowRoot.querySelector('[role="alert"]'));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('in Chinese', async () => {
    const { page, problems, context } = await open('<attention-backward lang="zh-CN" step="dS"></attention-backward>', { lang: 'zh-CN' });
    const v = await shown(page);
    expect(v.heading).toBe('单个注意力头的反向传播');
    expect(v.title).toBe('分数的梯度 dS');
    expect(v.explain).toContain('饱和');
    expect(v.readout).toContain('‖dS‖_F');
    expect(v.rows).toEqual([...'小猫坐在垫子上']);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('a training build that cannot load is said so in the panel (no endless "Loading…")', async () => {
    const { page, context } = await watchedPage(b.browser);
    await page.route('**/dist/training.js', (route) => route.fulfill({ status: 404, body: 'missing' }));
    await page.route(`${s.url}/broken.html`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><script type="module" src="/dist/components.js"></script></head><body><attention-backward></attention-backward></body></html>' }),
    );
    await page.goto(`${s.url}/broken.html`);
    await page.waitForFunction(() => document.querySelector('attention-backward')?.shadowRoot?.querySelector('[role="alert"]'));
    const alert = await page.evaluate(() => document.querySelector('attention-backward').shadowRoot.querySelector('[role="alert"]').textContent);
    expect(alert.length).toBeGreaterThan(10);
    expect(alert).not.toContain('Loading');
    await context.close();
  });

  test('in the explorer: the training build is fetched only once its tab is shown', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 } });
    const requested = [];
    page.on('request', (r) => requested.push(new URL(r.url()).pathname));
    await page.goto(`${s.url}/site/?panel=steps`);
    await ready(page);
    expect(requested.filter((p) => /training/.test(p))).toEqual([]);
    await page.locator('attention-explorer').locator('#ptab-backward').click();
    await settled(page);
    expect(requested.filter((p) => /training/.test(p)).sort()).toEqual(['/site/attention-lab-training-simd.wasm', '/site/training.js']);
    const heading = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-backward').shadowRoot.querySelector('h2').textContent);
    expect(heading).toBe('The backward pass of one head');
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('in the demo page: step and score scale come from the link (bstep, bsc) and go back into it', async () => {
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${s.url}/site/?panel=backward&bstep=dQ&bsc=8&lang=zh-CN`);
    await ready(page);
    const panel = page.locator('attention-explorer').locator('attention-backward');
    const read = () => page.evaluate(() => {
      const p = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-backward');
      return { step: p.shadowRoot.querySelector('#step-panel').dataset.step, factor: p.shadowRoot.querySelector('[data-role="factor"]').textContent, tab: document.querySelector('attention-explorer').shadowRoot.querySelector('#ptab-backward').textContent };
    });
    expect(await read()).toEqual({ step: 'dQ', factor: 'c = 8：scale = 2.83', tab: '反向传播' });
    await panel.locator('#score-scale').focus();
    await page.keyboard.press('ArrowLeft');
    await panel.locator('#tab-dQ').focus();
    await page.keyboard.press('ArrowRight');
    const url = new URL(await urlWritten(page));
    expect([url.searchParams.get('bstep'), url.searchParams.get('bsc')]).toEqual(['dK', '4']);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
