// <attention-pooling> in Chromium, beyond the fit (pooling-fit.test.js): a query with no key in a
// compact kernel's window is left undrawn and counted from the library's weights; the query's
// row is a distribution with its live sum; each kernel's formula; the attention-cues section's
// identity and row-softmax heatmaps; the intro names the key and the value.
import { describe, expect, test } from 'vitest';
import { KERNEL_FORMULAS } from '../../web/src/components/pooling/kernels.js';
import { cueScores, poolingData } from '../../web/src/pooling-data.js';
import { componentPage, settled } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await loadLab();

const open = (attrs, lang = 'en') => componentPage(b.browser, s.url, `<attention-pooling ${attrs}></attention-pooling>`, { selector: 'attention-pooling', lang });

/** Set attributes on the panel and wait for its render and data-ready. */
const set = async (page, attrs) => {
  await page.evaluate(async (a) => {
    const el = document.querySelector('attention-pooling');
    if (Object.entries(a).every(([k, v]) => el.getAttribute(k) === v)) return;
    const done = new Promise((r) => el.addEventListener('attention-render', r, { once: true }));
    for (const [k, v] of Object.entries(a)) el.setAttribute(k, v);
    await done;
  }, attrs);
  await settled(page);
};

/** The chart's prediction vertices (px), the pixels of the library's predictions, the note and readouts. */
const readChart = (page, xTest, predictions) =>
  page.evaluate(
    ({ xTest, predictions }) => {
      const root = document.querySelector('attention-pooling').shadowRoot;
      const chart = root.querySelector('svg.query-chart');
      const d = chart.querySelector('[data-role="prediction-line"]').getAttribute('d');
      const note = root.querySelector('[data-role="empty-note"]');
      return {
        vertices: [...d.matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]),
        at: xTest.map((x, k) => [chart.scaleX(x), chart.scaleY(predictions[k])]),
        zeroY: chart.scaleY(0),
        note: note && { text: note.textContent, count: note.dataset.count, shown: note.isConnected },
        readout: root.querySelector('[data-role="prediction"]').textContent,
        distribution: root.querySelector('[data-role="distribution"]').textContent,
      };
    },
    { xTest, predictions },
  );

const emptyOf = (weights) => Array.from({ length: weights.rows }, (_, i) => i).filter((i) => weights.data.subarray(i * weights.cols, (i + 1) * weights.cols).every((w) => w === 0));

describe('attention pooling', () => {
  test.each(['boxcar', 'epanechnikov'])('%s at bandwidth 0.05 (seed 42): the queries with no key are undrawn and counted', async (kernel) => {
    const { page, problems, context } = await open(`kernel="${kernel}" bandwidth="0.05"`);
    const { xTrain, yTrain, xTest } = poolingData(42);
    const want = lab.nadarayaWatson(xTrain, yTrain, xTest, { kernel, bandwidth: 0.05 });
    const empty = emptyOf(want.weights);
    expect(empty.length).toBeGreaterThan(0);
    const shown = await readChart(page, Array.from(xTest), Array.from(want.predictions));
    // Every query with a key in its window is drawn at the library's prediction; no other vertex.
    const drawnX = [...new Set(shown.vertices.map(([x]) => x.toFixed(1)))];
    const wantX = shown.at.filter((_, k) => !empty.includes(k)).map(([x]) => x.toFixed(1));
    expect(drawnX).toEqual(wantX);
    for (const [x, y] of shown.vertices) {
      const k = shown.at.findIndex(([ax]) => Math.abs(ax - x) < 0.06);
      expect(Math.abs(shown.at[k][1] - y), `query ${xTest[k]}`).toBeLessThan(0.06);
    }
    for (const k of empty) expect(shown.vertices.some(([x]) => Math.abs(x - shown.at[k][0]) < 0.06), `query ${xTest[k]} has no prediction`).toBe(false);
    // The note counts the all-zero rows of the library's weights.
    expect(shown.note.count).toBe(String(empty.length));
    expect(shown.note.text).toContain(`${empty.length} of the 50 test queries`);

    // A query with no key: no prediction in words, weights summing to 0.
    const xq = Number(xTest[empty[0]].toFixed(2));
    await set(page, { query: String(xq) });
    const one = lab.nadarayaWatson(xTrain, yTrain, [xq], { kernel, bandwidth: 0.05 });
    expect(Array.from(one.weights.data).every((w) => w === 0)).toBe(true);
    const there = await readChart(page, [], []);
    expect(there.readout).toBe(`no prediction at x = ${xq}: no key within the window, every weight is 0`);
    expect(there.distribution).toContain('are all 0 (sum 0.000000)');

    // A wide enough bandwidth leaves no query without a key: no note.
    await set(page, { bandwidth: '0.3' });
    expect((await readChart(page, [], [])).note?.shown ?? false).toBe(false);
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test('the note in Chinese counts the same queries', async () => {
    const { page, context } = await open('kernel="boxcar" bandwidth="0.1" seed="42"', 'zh-CN');
    const { xTrain, yTrain, xTest } = poolingData(42);
    const empty = emptyOf(lab.nadarayaWatson(xTrain, yTrain, xTest, { kernel: 'boxcar', bandwidth: 0.1 }).weights);
    const note = (await readChart(page, [], [])).note;
    expect(note.count).toBe(String(empty.length));
    expect(note.text).toContain(`50 个测试查询中有 ${empty.length} 个在矩形核的窗口内没有任何训练点`);
    await context.close();
  });

  test("the query's weights are a distribution: the live sum and smallest weight of its row", async () => {
    const { page, context } = await open('seed="7" kernel="gaussian" bandwidth="0.3" query="1.2"');
    const { xTrain, yTrain } = poolingData(7);
    for (const [attrs, q] of [
      [{}, 1.2],
      [{ query: '3.35', kernel: 'epanechnikov' }, 3.35],
    ]) {
      await set(page, { ...attrs, seed: '7' });
      const kernel = attrs.kernel ?? 'gaussian';
      const w = lab.nadarayaWatson(xTrain, yTrain, [q], { kernel, bandwidth: 0.3 }).weights.data;
      const sum = w.reduce((a, v) => a + v, 0);
      const min = Math.min(...w);
      const text = (await readChart(page, [], [])).distribution;
      expect(text).toContain(`sum to ${sum.toFixed(6)}`);
      expect(text).toContain(`the smallest is ${min === 0 ? '0' : min.toPrecision(3)}`);
      expect(text).toContain(`x = ${q}`);
    }
    await context.close();
  });

  test('each kernel shows its own formula, the Gaussian its softmax, Epanechnikov the note on D2L’s figure', async () => {
    const { page, context } = await open('');
    const formula = () => page.evaluate(() => document.querySelector('attention-pooling').shadowRoot.querySelector('[data-role="formula"] annotation').textContent);
    const note = () => page.evaluate(() => document.querySelector('attention-pooling').shadowRoot.querySelector('[data-role="kernel-note"]')?.isConnected && document.querySelector('attention-pooling').shadowRoot.querySelector('[data-role="kernel-note"]').textContent);
    for (const kernel of Object.keys(KERNEL_FORMULAS)) {
      await set(page, { kernel });
      const tex = await formula();
      expect(tex, kernel).toContain(KERNEL_FORMULAS[kernel].tex);
      for (const other of Object.keys(KERNEL_FORMULAS)) if (other !== kernel) expect(tex, `${kernel} shows ${other}`).not.toContain(KERNEL_FORMULAS[other].tex);
      if (kernel === 'gaussian') expect(tex).toContain(String.raw`\operatorname{softmax}_i\Big(-\tfrac{1}{2}\big(\tfrac{x - x_i}{h}\big)^2\Big)`);
      if (kernel === 'epanechnikov') expect(await note()).toMatch(/¾\(1 − u²\).*triangular kernel 1 − \|u\|/);
    }
    await context.close();
  });

  test('attention cues: the identity heatmap and the row softmax of the seeded random matrix', async () => {
    for (const seed of [42, 9]) {
      const { page, problems, context } = await open(`seed="${seed}"`);
      const maps = await page.evaluate(() => {
        const root = document.querySelector('attention-pooling').shadowRoot;
        const values = (role) => [...root.querySelectorAll(`[data-role="${role}"] td[data-i]`)].map((td) => [Number(td.dataset.i), Number(td.dataset.j), Number(td.dataset.value)]);
        return { identity: values('cues-identity'), random: values('cues-random'), sums: root.querySelector('[data-role="cues-sums"]').textContent, heading: root.querySelector('#cues-heading').textContent };
      });
      expect(maps.identity).toHaveLength(100);
      for (const [i, j, v] of maps.identity) expect(v, `${i},${j}`).toBe(i === j ? 1 : 0);
      const want = lab.softmax(cueScores(seed));
      expect(maps.random.map(([, , v]) => v)).toEqual(Array.from(want.data));
      const sums = Array.from({ length: 10 }, (_, i) => maps.random.filter(([r]) => r === i).reduce((a, [, , v]) => a + v, 0));
      for (const sum of sums) expect(Math.abs(sum - 1)).toBeLessThan(1e-6);
      expect(new Set(maps.random.map(([, , v]) => v)).size).toBeGreaterThan(50);
      expect(maps.heading).toBe('Attention cues: queries, keys and values');
      expect(problems).toEqual({ console: [], external: [] });
      await context.close();
    }
  });

  test('the intro: a classic early example, (xᵢ, yᵢ) as key and value, in both languages', async () => {
    for (const [lang, says] of [
      ['en', ['a classic early example of attention pooling', 'Each training pair (xᵢ, yᵢ) is a key xᵢ with its value yᵢ', 'non-parametric attention pooling', 'In attention mechanisms the query is the volitional cue. The values are the sensory inputs, and each value is paired with a key, its non-volitional cue.']],
      ['zh-CN', ['注意力汇聚的一个经典早期例子', '(xᵢ, yᵢ) 中，xᵢ 是键，yᵢ 是它对应的值', '非参数注意力汇聚', '在注意力机制中，查询是自主性提示。值是感官输入，每个值都与一个键配对，这个键就是该感官输入的非自主性提示。', '非自主性提示']],
    ]) {
      const { page, context } = await open(`lang="${lang}"`, lang);
      const text = await page.evaluate(() => document.querySelector('attention-pooling').shadowRoot.textContent);
      for (const s of says) expect(text, lang).toContain(s);
      expect(text).not.toMatch(/oldest attention|最早的注意力/);
      await context.close();
    }
  });
});
