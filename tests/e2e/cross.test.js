// <attention-cross> in Chromium: alone on a plain page and inside the explorer;
// the weights are n×m (target × source) and equal the library's result for the
// same seeded input; 2-D valid lengths; Bahdanau scoring; hostile and oversized
// `source`; keyboard; Chinese labels; no console error, nothing from the network.
import { describe, expect, test } from 'vitest';
import { buildModel, normalise } from '../../web/src/model.js';
import { randomMatrix } from '../../web/src/random.js';
import { componentPage, panelScreenshots, settled } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await loadLab();

const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

/** A plain page holding `body` (see componentPage). */
const open = (body, { selector = 'attention-cross', ...options } = {}) => componentPage(b.browser, s.url, body, { selector, ...options });

/** What one element shows: every heatmap's caption, headers and cell values; notes by role. */
const shownNow = (page, selector = 'attention-cross') =>
  page.evaluate((sel) => {
    const root = document.querySelector(sel).shadowRoot;
    const figures = {};
    for (const f of root.querySelectorAll('figure[data-matrix]')) {
      const rows = [...f.querySelectorAll('tbody th')].map((th) => th.textContent);
      figures[f.dataset.matrix] = {
        caption: f.querySelector('figcaption').textContent,
        shape: f.querySelector('figcaption .shape').textContent.trim(),
        rows,
        cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
        values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
        masked: [...f.querySelectorAll('tbody td')].map((td) => td.classList.contains('masked')),
      };
    }
    const roles = {};
    for (const p of root.querySelectorAll('[data-role]')) roles[p.dataset.role] = p.textContent;
    return { figures, roles, heading: root.querySelector('h2')?.textContent, lang: root.querySelector('.root')?.getAttribute('lang'), images: root.querySelectorAll('img').length };
  }, selector);

// Once every element is ready (labels and data-value follow a change when the page is idle).
const shown = async (...args) => (await settled(args[0]), shownNow(...args));

const firstColumns = (W, keep) => {
  const data = new Float32Array(W.rows * keep);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + keep), i * keep);
  return { rows: W.rows, cols: keep, data };
};

const DEFAULT_DK = normalise({}).dK;

/** The library's cross-attention for the same seeded input, computed here in Node. */
function expected({ sentence, source, seed = 42, dModel = 8, dK = DEFAULT_DK }, mask) {
  const tgt = buildModel({ sentence, seed, dModel, dK });
  const src = buildModel({ sentence: source, seed, dModel, dK });
  const Q = lab.matmul(tgt.X, firstColumns(tgt.Wq, dK));
  const K = lab.matmul(src.X, firstColumns(tgt.Wk, dK));
  const V = lab.matmul(src.X, firstColumns(tgt.Wv, dK));
  return { tgt, src, Q, K, V, result: lab.scaledDotProductAttention(Q, K, V, { mask }) };
}

describe('attention-cross', () => {
  test('alone on a plain page: n×m weights, labelled target × source, equal to the library', async () => {
    const { page, problems, context } = await open('<attention-cross sentence="the cat sat on" source="小猫坐在垫子上" seed="7"></attention-cross>');
    const v = await shown(page);
    const e = expected({ sentence: 'the cat sat on', source: '小猫坐在垫子上', seed: 7 });
    expect(v.heading).toBe('Cross-attention: the target attends to the source');
    expect(v.lang).toBe('en');
    expect(v.figures.weights.shape).toBe('4×7');
    expect(v.figures.weights.rows).toEqual(['the', 'cat', 'sat', 'on']);
    expect(v.figures.weights.cols).toEqual([...'小猫坐在垫子上']);
    expect(v.figures.self.shape).toBe('4×4');
    expect(v.figures.Q.shape).toBe(`4×${DEFAULT_DK}`);
    expect(v.figures.K.shape).toBe(`7×${DEFAULT_DK}`);
    expect(v.figures.V.shape).toBe(`7×${DEFAULT_DK}`);
    expect(v.figures.output.shape).toBe(`4×${DEFAULT_DK}`);
    expect(v.figures.K.rows).toEqual([...'小猫坐在垫子上']);
    expect(v.roles.shapes).toContain('n × m = 4 × 7');
    // The numbers are the library's, to the last bit, for the same seeded input.
    expect(v.figures.weights.values).toEqual(Array.from(e.result.weights.data));
    expect(v.figures.output.values).toEqual(Array.from(e.result.output.data));
    expect(v.figures.K.values).toEqual(Array.from(e.K.data));
    // The trace's intermediates, drawn once their section is opened by keyboard.
    expect(v.figures.scores).toBeUndefined();
    await page.locator('attention-cross').locator('details[data-role="steps"] > summary').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('attention-cross').shadowRoot.querySelector('figure[data-matrix="scaled"]'));
    const traced = lab.scaledDotProductAttention(e.Q, e.K, e.V, { trace: true }).steps;
    const opened = await shown(page);
    expect(opened.figures.scores.shape).toBe('4×7');
    expect(opened.figures.scores.values).toEqual(Array.from(traced.find((st) => st.id === 'scores').matrix.data));
    expect(opened.figures.scaled.values).toEqual(Array.from(traced.find((st) => st.id === 'scaled').matrix.data));
    // Hovering weight (2, 5) outlines query row 2 and key and value row 5.
    const at25 = page.locator('attention-cross').locator('figure[data-matrix="weights"] canvas');
    await at25.hover({ position: await at25.evaluate((c, [i, j]) => { const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); return { x: x + (j + 0.5) * w, y: y + (i + 0.5) * h }; }, [2, 5]) });
    const lit = await page.evaluate(() => {
      const root = document.querySelector('attention-cross').shadowRoot;
      const rows = (slot) => [...new Set([...root.querySelectorAll(`figure[data-matrix="${slot}"] td.hl`)].map((td) => Number(td.dataset.i)))];
      return { Q: rows('Q'), K: rows('K'), V: rows('V'), output: rows('output'), qCount: root.querySelectorAll('figure[data-matrix="Q"] td.hl').length };
    });
    expect(lit).toEqual({ Q: [2], K: [5], V: [5], output: [2], qCount: DEFAULT_DK });
    // Rows sum to 1 over the source tokens.
    for (let i = 0; i < 4; i++) expect(v.figures.weights.values.slice(i * 7, i * 7 + 7).reduce((a, x) => a + x, 0)).toBeCloseTo(1, 5);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('per-row (2-D) valid lengths: masked weights exactly 0, a fully masked row explained', async () => {
    const { page, problems, context } = await open('<attention-cross sentence="a b c d" source="one two three four five" valid-lens="1 0 5 3"></attention-cross>');
    const v = await shown(page);
    const e = expected({ sentence: 'a b c d', source: 'one two three four five' }, { validLens: [1, 0, 5, 3] });
    const w = v.figures.weights;
    expect(w.shape).toBe('4×5');
    expect(w.values).toEqual(Array.from(e.result.weights.data));
    const lens = [1, 0, 5, 3];
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 5; j++) {
        expect(w.masked[i * 5 + j]).toBe(j >= lens[i]);
        if (j >= lens[i]) expect(w.values[i * 5 + j]).toBe(0);
      }
    expect(w.values[0]).toBe(1);
    expect(v.roles.mask).toContain('2-D');
    expect(v.roles['fully-masked']).toContain('b');
    expect(v.roles['out-of-range']).toBeUndefined();
    // Too many / out-of-range entries are clamped and listed in the note.
    await page.evaluate(() => document.querySelector('attention-cross').setAttribute('valid-lens', '9 2'));
    await page.waitForFunction(() => document.querySelector('attention-cross').shadowRoot.querySelector('[data-role="out-of-range"]'));
    const after = await shown(page);
    expect(after.roles['out-of-range']).toContain('valid-lens: 9 2 → 5 2 5 5');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('Bahdanau scoring: decoder states query encoder states (keys = values), equal to lab.additiveAttention', async () => {
    const { page, problems, context } = await open('<attention-cross sentence="the cat sat" source="猫坐着" scoring="additive" seed="5"></attention-cross>');
    const v = await shown(page);
    const tgt = buildModel({ sentence: 'the cat sat', seed: 5 });
    const src = buildModel({ sentence: '猫坐着', seed: 5 });
    const d = 8;
    const r = lab.additiveAttention(tgt.X, src.X, src.X, {
      Wq: randomMatrix(d, 8, 5 * 7 + 21, 1 / Math.sqrt(d)),
      Wk: randomMatrix(d, 8, 5 * 7 + 22, 1 / Math.sqrt(d)),
      wv: randomMatrix(1, 8, 5 * 7 + 23, 1).data,
    });
    expect(v.figures.weights.shape).toBe('3×3');
    expect(v.figures.weights.values).toEqual(Array.from(r.weights.data));
    expect(v.figures.output.shape).toBe('3×8');
    expect(v.figures.output.values).toEqual(Array.from(r.output.data));
    expect(v.figures.Xsrc.rows).toEqual(['猫', '坐', '着']);
    expect(v.figures.Q).toBeUndefined();
    // D2L 10.4: the query is the previous decoder state, the context joins the decoder input; no RNN runs here.
    expect(v.roles.bahdanau).toContain('previous hidden state s_(t′−1)');
    expect(v.roles.bahdanau).toContain('concatenated with the decoder’s input, the embedding of the previous output token');
    expect(v.roles.bahdanau).toContain('This page runs no RNN');
    expect(v.roles.bahdanau).toContain('d_h = 8');
    // One letter, one meaning: the formula's hidden size is d_h, the encoder states k_j (h counts heads).
    const tex = await page.evaluate(() => document.querySelector('attention-cross').shadowRoot.querySelector('.formula annotation').textContent);
    expect(tex).toContain('\\tanh(\\mathbf q_i \\underbrace{W_q}');
    expect(tex).not.toMatch(/\\mathbf h|\bh\b/);
    expect(v.roles.bahdanau).not.toMatch(/\bh = /);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('1-D padding in words: the first v source tokens are seen, padding from token v + 1 (counted from 1), both languages', async () => {
    // 5 source tokens, valid length 2: tokens 1 and 2 are seen, 3 to 5 (three of them) are padding.
    const body = (lang) => `<attention-cross lang="${lang}" sentence="a b c d e f" source="one two three four five" mask="padding" valid-len="2"></attention-cross>`;
    const en = await open(body('en'));
    const e = await shown(en.page);
    expect(e.figures.weights.masked.slice(0, 10)).toEqual([false, false, true, true, true, false, false, true, true, true]);
    expect(e.roles.mask).toContain('sees the first 2 source tokens; the other 3, from source token 3 on (counted from 1), are padding');
    await en.context.close();
    const zh = await open(body('zh-CN'));
    const z = await shown(zh.page);
    expect(z.roles.mask).toContain('只看前 2 个源词元，从第 3 个起的 3 个源词元是填充');
    expect(z.roles.mask).not.toContain('从第 2 个起');
    // A valid length as long as the source: nothing is padding (the shared valid length is at most the target's 6 tokens).
    await zh.page.evaluate(() => document.querySelector('attention-cross').setAttribute('valid-len', '5'));
    await zh.page.waitForFunction(() => document.querySelector('attention-cross').shadowRoot.querySelector('[data-role="mask"]').textContent.includes('没有填充'));
    expect(zh.problems.console).toEqual([]);
    await zh.context.close();
  });

  test('32 × 32 tokens at d_k 64: the operands (8,192 numbers) start closed; opened, they are the library\'s', async () => {
    const sentence = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
    const source = Array.from({ length: 32 }, (_, i) => `s${i}`).join(' ');
    const { page, problems, context } = await open(`<attention-cross sentence="${sentence}" source="${source}" d-model="64" d-k="64" seed="3"></attention-cross>`);
    const closed = await shown(page);
    expect(closed.figures.weights.shape).toBe('32×32');
    expect(closed.figures.Q).toBeUndefined();
    expect(closed.figures.output).toBeUndefined();
    expect(await page.evaluate(() => document.querySelector('attention-cross').shadowRoot.querySelector('details[data-role="operands"]').open)).toBe(false);
    await page.locator('attention-cross').locator('details[data-role="operands"] > summary').click();
    await page.waitForFunction(() => document.querySelector('attention-cross').shadowRoot.querySelector('figure[data-matrix="V"]'));
    const v = await shown(page);
    const e = expected({ sentence, source, seed: 3, dModel: 64, dK: 64 });
    expect(v.figures.Q.shape).toBe('32×64');
    expect(v.figures.Q.values).toEqual(Array.from(e.Q.data));
    expect(v.figures.K.values).toEqual(Array.from(e.K.data));
    expect(v.figures.V.values).toEqual(Array.from(e.V.data));
    expect(v.figures.output.values).toEqual(Array.from(e.result.output.data));
    // The reader's choice stays: after a seed change the section is still open, with the new numbers.
    const e4 = expected({ sentence, source, seed: 4, dModel: 64, dK: 64 });
    await page.evaluate(() => document.querySelector('attention-cross').setAttribute('seed', '4'));
    await page.waitForFunction((x) => document.querySelector('attention-cross').shadowRoot.querySelector('figure[data-matrix="Q"] td[data-i]').dataset.value === x, String(e4.Q.data[0]));
    expect(await page.evaluate(() => document.querySelector('attention-cross').shadowRoot.querySelector('details[data-role="operands"]').open)).toBe(true);
    expect((await shown(page)).figures.output.values).toEqual(Array.from(e4.result.output.data));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('hostile and oversized source stays text; clamped to 32 tokens with the visible note', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const many = '字'.repeat(140);
    const { page, problems, context, dialogs } = await open('<attention-cross id="x"></attention-cross>');
    await page.evaluate(([h, m]) => {
      const x = document.getElementById('x');
      x.setAttribute('source', `${h} ${m}`);
      // The element's other own attributes take the payload too: refused, listed as text.
      x.setAttribute('scoring', h);
      x.setAttribute('valid-lens', h);
    }, [hostile, many]);
    await page.waitForFunction(() => document.getElementById('x').shadowRoot.querySelector('[data-role="out-of-range"]'));
    const v = await shown(page);
    expect(v.images).toBe(0);
    expect(v.figures.weights.cols.slice(0, 3)).toEqual(['<img', 'src=x', 'onerror=alert']);
    expect(v.figures.weights.shape).toBe('6×128');
    expect(v.roles['out-of-range']).toContain('source: 145 tokens → the first 128');
    expect(v.roles['out-of-range']).toContain(`scoring: ${hostile.slice(0, 23)}… → dot`);
    expect(v.roles['out-of-range']).toContain('valid-lens: ');
    expect(await page.evaluate(() => document.getElementById('x').shadowRoot.querySelector('#source').value)).toContain(hostile);
    expect(dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('keyboard: Tab reaches the source box, scoring and valid lengths; typing changes the columns', async () => {
    const { page, problems, context } = await open('<attention-cross sentence="a b"></attention-cross>');
    const reached = [];
    for (let k = 0; k < 12; k++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => document.querySelector('attention-cross').shadowRoot.activeElement?.dataset.key ?? document.querySelector('attention-cross').shadowRoot.activeElement?.tagName ?? null));
    }
    expect(reached).toEqual(expect.arrayContaining(['source', 'scoring', 'valid-lens', 'TD']));
    // Back to the source box, replace its text from the keyboard.
    await page.evaluate(() => document.querySelector('attention-cross').shadowRoot.querySelector('#source').focus());
    await page.keyboard.press('Control+A');
    await page.keyboard.type('我 爱 你');
    await page.waitForFunction(() => document.querySelector('attention-cross').shadowRoot.querySelector('figure[data-matrix="weights"] .shape').textContent.trim() === '2×3');
    const v = await shown(page);
    expect(v.figures.weights.cols).toEqual(['我', '爱', '你']);
    expect(await page.evaluate(() => document.querySelector('attention-cross').getAttribute('source'))).toBe('我 爱 你');
    // An empty source box means the default source, as an empty sentence means the default sentence.
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.waitForFunction(() => document.querySelector('attention-cross').shadowRoot.querySelector('figure[data-matrix="weights"] .shape').textContent.trim() === '2×7');
    // The scoring select from the keyboard.
    await page.evaluate(() => document.querySelector('attention-cross').shadowRoot.querySelector('#scoring').focus());
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('attention-cross').getAttribute('scoring') === 'additive');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('no sentence and no source: the source is in the other language from the target (English page 6×7, Chinese page 7×6)', async () => {
    for (const [lang, shape, rows, cols] of [['en', '6×7', 'the cat sat on the mat'.split(' '), [...'小猫坐在垫子上']], ['zh-CN', '7×6', [...'小猫坐在垫子上'], 'the cat sat on the mat'.split(' ')]]) {
      const { page, problems, context } = await open(`<attention-cross lang="${lang}"></attention-cross>`);
      const v = await shown(page);
      expect(v.figures.weights.shape).toBe(shape);
      expect(v.figures.weights.rows).toEqual(rows);
      expect(v.figures.weights.cols).toEqual(cols);
      expect(problems.console).toEqual([]);
      await context.close();
    }
  });

  test('Chinese labels, and the panel inside the explorer', async () => {
    const { page, problems, context } = await open('<attention-cross lang="zh-CN" sentence="the cat"></attention-cross>');
    const v = await shown(page);
    expect(v.lang).toBe('zh-CN');
    expect(v.heading).toContain('交叉注意力（编码器-解码器注意力）');
    expect(v.figures.weights.caption).toContain('交叉注意力权重');
    expect(v.figures.Q.caption).toContain('查询');
    expect(v.roles.mask).toContain('掩蔽');
    expect(v.roles.operands).toContain('操作数与输出');
    await page.evaluate(() => document.querySelector('attention-cross').setAttribute('scoring', 'additive'));
    await page.waitForFunction(() => document.querySelector('attention-cross').shadowRoot.querySelector('[data-role="bahdanau"]'));
    const b10 = (await shown(page)).roles.bahdanau;
    expect(b10).toContain('以上一时间步的隐状态 s_(t′−1) 作为查询');
    expect(b10).toContain('与解码器的输入（上一个输出词元的嵌入）拼接');
    expect(b10).toContain('本页并不运行循环神经网络');
    await context.close();

    const w = await open('<attention-explorer panel="cross" sentence="the cat sat" mask="causal"></attention-explorer>', { selector: 'attention-explorer' });
    await settled(w.page);
    const inner = await w.page.evaluate(() => {
      const ex = document.querySelector('attention-explorer').shadowRoot;
      const cross = ex.querySelector('attention-cross');
      return {
        tab: ex.querySelector('[role="tab"][aria-selected="true"]').textContent,
        hidden: cross.hidden,
        shape: cross.shadowRoot.querySelector('figure[data-matrix="weights"] .shape').textContent.trim(),
        mask: cross.shadowRoot.querySelector('[data-role="mask"]').textContent,
      };
    });
    expect(inner.tab).toBe('Cross-attention');
    expect(inner.hidden).toBe(false);
    expect(inner.shape).toBe('3×7');
    expect(inner.mask).toContain('causal mask belongs to the decoder');
    expect(w.problems.console).toEqual([]);
    expect(w.problems.external).toEqual([]);
    await w.context.close();
    expect(problems.console).toEqual([]);
  });

  test(`both new panels under the header ${STRICT}: no violation, colours and formulas apply`, async () => {
    const { page, problems, context } = await open('<attention-cross scoring="additive" valid-lens="2 0 1"></attention-cross><attention-positions></attention-positions>', { selector: 'attention-cross, attention-positions', csp: STRICT });
    await page.evaluate(() => document.querySelector('attention-cross').setAttribute('scoring', 'dot'));
    await page.evaluate(() => document.querySelector('attention-positions').setAttribute('swap', '0 3'));
    await page.waitForFunction(() => document.querySelector('attention-positions').shadowRoot.querySelector('#swap-i')?.value === '0');
    // The positions panel's heatmaps sit far below the fold: drawn now (as for a capture).
    await page.evaluate(() => document.querySelector('attention-cross').drawAll());
    const look = await page.evaluate(() =>
      ['attention-cross', 'attention-positions'].map((tag) => {
        const root = document.querySelector(tag).shadowRoot;
        const td = root.querySelector('td[data-i]:not(.masked)');
        return { katex: root.querySelectorAll('.formula .katex').length, bg: ((td) => { const c = td.closest('figure').querySelector('canvas'); const [x, y, w, h] = c.dataset.cells.split(' ').map(Number); const r = devicePixelRatio; return `rgba(${[...c.getContext('2d').getImageData((x + (Number(td.dataset.j) + 0.5) * w) * r, (y + (Number(td.dataset.i) + 0.5) * h) * r, 1, 1).data].join(', ')})`; })(td), width: tag === 'attention-cross' ? root.querySelector('#source').getBoundingClientRect().width : 0 };
      }),
    );
    for (const l of look) {
      expect(l.katex).toBeGreaterThan(0); // the positions panel has two formulas (P, and the rotation)
      expect(l.bg).not.toBe('rgba(0, 0, 0, 0)');
    }
    // The panel's own constructed stylesheet applies (24rem source box).
    expect(look[0].width).toBeGreaterThan(300);
    const violations = [...(await page.evaluate(() => window.__violations)), ...problems.console.filter((m) => /Content.Security.Policy/i.test(m))];
    expect(violations).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('screenshots at 1280 px (English saved in docs/screenshots, Chinese in the temp folder); nothing wider than a 375 px phone', async () => {
    await panelScreenshots(open, {
      name: 'cross',
      height: 2600,
      bodies: {
        en: '<attention-cross id="s" lang="en" sentence="the cat sat on the mat" source="小猫坐在垫子上"></attention-cross>',
        zh: '<attention-cross id="s" lang="zh-CN" sentence="the cat sat on the mat" source="小猫坐在垫子上"></attention-cross>',
      },
    });
  });
});
