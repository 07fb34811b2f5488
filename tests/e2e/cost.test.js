// <attention-cost> ("Long sequences"): alone on a plain page and inside the
// explorer; its weights are the library's (full, local, linear, Linformer), the
// local heatmap masks what lies outside the window, Chinese labels, the Measure
// button draws a chart with points (no timing is asserted), hostile text stays
// text, out-of-range attributes are clamped with the note; the Reformer section's buckets, weights
// and pair count are the library's in English and Chinese. Saves its screenshots.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SENTENCE } from '../../web/src/config.js';
import { buildModel } from '../../web/src/model.js';
import { randomMatrix } from '../../web/src/random.js';
import { componentPage, openSettings, quantise, ready, root, screenshotFile, server, settled, watchedPage } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await loadLab();

const STRICT = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

/** A plain page holding `body` (see componentPage). */
const plainPage = (body, options = {}) => componentPage(b.browser, s.url, body, { selector: 'attention-cost', ...options });

/** Run `body` (a function body over `root`, the element's shadow root) in the page. */
const inCost = (page, selector, body) => page.evaluate(([sel, fn]) => new Function('root', fn)(document.querySelector(sel).shadowRoot), [selector, body]);

const cellsOfNow = (page, selector, method) =>
  inCost(page, selector, `return [...root.querySelectorAll('figure[data-method="${method}"] td[data-i]')].map((td) => ({ i: Number(td.dataset.i), j: Number(td.dataset.j), value: td.dataset.value, text: td.textContent, masked: td.classList.contains('masked') }))`);

// Once every element is ready (labels and data-value follow a change when the page is idle).
const cellsOf = async (...args) => (await settled(args[0]), cellsOfNow(...args));

/** The panel's Q, K, V (the first head's projections) and the library's results, as the element computes them. */
function reference(config, w, k) {
  const m = buildModel(config);
  const first = (W) => {
    const data = new Float32Array(W.rows * m.config.dK);
    for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + m.config.dK), i * m.config.dK);
    return { rows: W.rows, cols: m.config.dK, data };
  };
  const steps = lab.selfAttention(m.X, { Wq: first(m.Wq), Wk: first(m.Wk), Wv: first(m.Wv), trace: true }).steps;
  const [Q, K, V] = ['Q', 'K', 'V'].map((id) => steps.find((st) => st.id === id).matrix);
  const n = Q.rows;
  const causal = m.config.mask === 'causal';
  const std = 1 / Math.sqrt(n);
  const E = randomMatrix(k, n, m.config.seed * 7 + 21, std);
  const F = randomMatrix(k, n, m.config.seed * 7 + 22, std);
  return {
    n,
    tokens: m.tokens,
    qkv: { Q, K, V },
    mask: m.mask,
    fullOutput: lab.scaledDotProductAttention(Q, K, V, { mask: m.mask }).output,
    full: lab.scaledDotProductAttention(Q, K, V, { mask: m.mask }).weights,
    local: lab.localAttention(Q, K, V, { window: w, causal, trace: true }).weights,
    linear: lab.linearAttention(Q, K, V, { causal, trace: true }).weights,
    linformer: lab.linformerAttention(Q, K, V, { E, F, trace: true }).weights,
  };
}

/**
 * One LSH round as the Reformer section states it, written out here: x = K, x̂ = x / ‖x‖, buckets
 * argmax([x̂R ; −x̂R]) with R (d_k × 2) from seed · 7 + 41, the same-bucket mask (not itself unless
 * alone, j ≤ i when causal), and the library's x̂R and weights.
 */
function lshReference(ref, seed, causal) {
  const { K, V } = ref.qkv;
  const n = K.rows;
  const d = K.cols;
  const unit = { rows: n, cols: d, data: new Float32Array(n * d) };
  for (let i = 0; i < n; i++) {
    const row = K.data.subarray(i * d, (i + 1) * d);
    const norm = Math.hypot(...row);
    row.forEach((v, c) => (unit.data[i * d + c] = v / norm));
  }
  const P = lab.matmul(unit, randomMatrix(d, 2, seed * 7 + 41));
  const buckets = Array.from({ length: n }, (_, i) => {
    const both = [P.data[2 * i], P.data[2 * i + 1], -P.data[2 * i], -P.data[2 * i + 1]];
    return both.indexOf(Math.max(...both));
  });
  const mask = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (j !== i && buckets[j] === buckets[i] && (!causal || j < i)) mask[i * n + j] = 1;
    if (!mask.subarray(i * n, (i + 1) * n).some(Boolean)) mask[i * n + i] = 1;
  }
  const weights = lab.scaledDotProductAttention(K, unit, V, { mask: { rows: n, cols: n, data: mask } }).weights;
  return { buckets, mask, weights, scored: mask.reduce((a, v) => a + v, 0) };
}

describe('attention-cost', () => {
  test('alone on a plain page: every shown weight is the library result; local masks outside the window', async () => {
    const { page, problems, context } = await plainPage('<attention-cost id="c" sentence="the cat sat on the mat" seed="42" d-model="8" d-k="4" window="2" linformer-k="3"></attention-cost>');
    const ref = reference({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 4 }, 2, 3);
    expect(ref.n).toBe(6);
    for (const method of ['full', 'local', 'linear', 'linformer']) {
      const cells = await cellsOf(page, '#c', method);
      const want = ref[method];
      expect(cells.length, method).toBe(want.rows * want.cols);
      for (const c of cells) expect(Number(c.value), `${method}[${c.i}][${c.j}]`).toBe(want.data[c.i * want.cols + c.j]);
    }
    // The local window w = 2: |i − j| ≥ 2 is outside, drawn masked with weight exactly 0 (6·6 − 16 cells).
    const local = await cellsOf(page, '#c', 'local');
    const outside = local.filter((c) => Math.abs(c.i - c.j) >= 2);
    expect(outside.length).toBe(20);
    for (const c of outside) expect(c).toMatchObject({ masked: true, value: '0', text: '0' });
    for (const c of local.filter((x) => Math.abs(x.i - x.j) < 2)) expect(c.masked).toBe(false);
    // Linformer's columns are the k = 3 projected keys.
    expect(await inCost(page, '#c', "return root.querySelector('figure[data-method=linformer] .shape').textContent.trim()")).toBe('6×3');
    // The complexity table carries the live n = 6 and d = 8: self-attention n²·d = 288.
    expect(await inCost(page, '#c', "return root.querySelector('[data-layer=self] td .value').textContent")).toBe('= 288');
    expect(await inCost(page, '#c', "return root.querySelector('h2').textContent")).toBe('Long sequences: the price of n²');
    // The window slider works from the keyboard: w = 3 widens the band.
    await page.locator('#c').locator('#window').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('#c').getAttribute('window') === '3');
    await page.waitForFunction(() => document.querySelector('#c').shadowRoot.querySelectorAll('figure[data-method=local] td.masked').length === 12);
    const ref3 = reference({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 4 }, 3, 3);
    for (const c of await cellsOf(page, '#c', 'local')) expect(Number(c.value)).toBe(ref3.local.data[c.i * 6 + c.j]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('the online softmax: the table is the library trace of the chosen row, ending in full attention’s row; the comparison table counts the window', async () => {
    const { page, problems, context } = await plainPage('<attention-cost id="o" sentence="the cat sat on the mat" seed="42" d-model="8" d-k="4" window="2"></attention-cost>');
    const ref = reference({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 4 }, 2, 3);
    const shown = () =>
      inCost(page, '#o', `return [...root.querySelectorAll('table[data-role=online-table] tbody tr')].map((tr) => Object.fromEntries([...tr.querySelectorAll('td')].map((td) => [td.dataset.field, td.dataset.value])))`);
    const expectTrace = async (row, block) => {
      const want = lab.onlineSoftmax(ref.qkv.Q, ref.qkv.K, ref.qkv.V, { row, block, mask: ref.mask });
      const rows = await shown();
      expect(rows.length).toBe(Math.ceil(6 / block));
      rows.forEach((r, b) => {
        const w = want.blocks[b];
        expect(r.keys).toBe(`${w.first}-${w.end}`);
        expect(r.scores).toBe(Array.from(want.scores.subarray(w.first, w.end)).join(' '));
        expect([r.blockMax, r.max, r.rescale, r.sum].map(Number)).toEqual([w.blockMax, w.max, w.rescale, w.sum]);
        expect(r.accumulator).toBe(Array.from(w.accumulator).join(' '));
        expect(r.output).toBe(Array.from(w.output).join(' '));
      });
      // the last block's output is full softmax attention's row, to float32 rounding
      const last = rows.at(-1).output.split(' ').map(Number);
      last.forEach((x, t) => expect(Math.abs(x - ref.fullOutput.data[row * 4 + t])).toBeLessThanOrEqual(2e-6 + 2e-6 * Math.abs(x)));
      const sumLine = await inCost(page, '#o', "return root.querySelector('[data-role=online-sum]').textContent");
      expect(sumLine).toContain(`weights e^(sⱼ − m) / ℓ sum to 1, as full attention’s row ${row + 1} does (1)`); // counted from 1
    };
    // the default: the last row (5, "mat"), blocks of 2 keys: three blocks
    expect(await inCost(page, '#o', "return root.querySelector('#online-row').value")).toBe('5');
    await expectTrace(5, 2);
    // the reader picks row 1 and blocks of 4 keys, from the keyboard
    await page.locator('#o').locator('#online-row').selectOption('1');
    await page.waitForFunction(() => document.querySelector('#o').shadowRoot.querySelector('table[data-role=online-table] caption').textContent.includes('i = 2')); // row 1 of the library, the page's 2nd
    await expectTrace(1, 2);
    await page.locator('#o').locator('#online-block').selectOption('4');
    await page.waitForFunction(() => document.querySelector('#o').shadowRoot.querySelectorAll('table[data-role=online-table] tbody tr').length === 2);
    await expectTrace(1, 4);
    // the comparison table: local attention at n = 6, w = 2, d = 8 counts 16 window pairs (6 + 2·5), 128 multiply-adds; path ⌈5/1⌉ = 5
    const local = () => inCost(page, '#o', "return [...root.querySelectorAll('[data-layer=localRow] td .value')].map((v) => v.textContent)");
    expect(await local()).toEqual(['= 128', '= 1', '= 5']);
    // w = 1: every token sees only itself; the path is ∞
    await page.evaluate(() => document.querySelector('#o').setAttribute('window', '1'));
    await page.waitForFunction(() => document.querySelector('#o').shadowRoot.querySelector('[data-layer=localRow] td:last-child .value').textContent === '= ∞');
    expect(await local()).toEqual(['= 48', '= 1', '= ∞']);
    expect(await inCost(page, '#o', "return root.querySelector('[data-role=local-vs-cnn]').textContent")).toContain('(∞ for n = 6)');
    expect(await inCost(page, '#o', "return root.querySelector('[data-role=vit]').textContent")).toContain('(224/16)² = 196 patches');
    // the two formulas, each with a label and no word inside the TeX
    const formulas = await inCost(page, '#o', "return [...root.querySelectorAll('[data-role=formulas] .formula-label')].map((p) => p.textContent)");
    expect(formulas).toEqual(['Full softmax attention: the n×n weights.', expect.stringContaining('no 1/√d_k')]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  for (const lang of ['en', 'zh-CN'])
    test(`the Reformer section (${lang}, default sentence): buckets, weights and the pair count are the library's`, async () => {
      const { page, problems, context } = await plainPage(`<attention-cost id="r" lang="${lang}"></attention-cost>`, { lang });
      const ref = reference({ sentence: DEFAULT_SENTENCE[lang] }, 2, 3);
      const seed = buildModel({}).config.seed;
      const want = lshReference(ref, seed, false);
      const n = ref.n;
      await settled(page);
      const shown = await inCost(page, '#r', `return {
        heading: root.querySelector('[data-role=lsh] h3').textContent,
        buckets: [...root.querySelectorAll('[data-role=lsh-buckets] td[data-bucket]')].map((td) => [Number(td.dataset.bucket), td.textContent]),
        heads: [...root.querySelectorAll('[data-role=lsh-buckets] thead th')].map((th) => th.textContent),
        cost: root.querySelector('[data-role=lsh-cost]').textContent,
        cells: [...root.querySelectorAll('figure[data-matrix=lsh] td[data-i]')].map((td) => ({ i: Number(td.dataset.i), j: Number(td.dataset.j), value: td.dataset.value, masked: td.classList.contains('masked') })),
      }`);
      expect(shown.buckets).toEqual(want.buckets.map((b) => [b, String(b)]));
      expect(shown.heads.slice(1)).toEqual(ref.tokens.map((tok, i) => `${i + 1} ${tok}`)); // counted from 1
      expect(shown.cells.length).toBe(n * n);
      for (const c of shown.cells) {
        const visible = want.mask[c.i * n + c.j] === 1;
        expect(Number(c.value), `[${c.i}][${c.j}]`).toBe(want.weights.data[c.i * n + c.j]);
        expect(c.masked, `[${c.i}][${c.j}]`).toBe(!visible);
        if (!visible) expect(c.value).toBe('0');
      }
      expect(want.scored).toBeLessThan(n * n);
      const macs = want.scored * 2 * ref.qkv.K.cols;
      const hash = n * ref.qkv.K.cols * 2; // x̂R: n × d_k times d_k × b/2
      if (lang === 'en') {
        expect(shown.heading).toBe('Reformer: your sentence hashed into buckets (one round)');
        expect(shown.cost).toContain(`Only ${want.scored} of the ${n * n} query–key pairs are scored (${macs} multiply-adds)`);
        expect(shown.cost).toContain(`Hashing took ${hash} multiply-adds more (x̂R).`);
      } else {
        expect(shown.heading).toBe('Reformer：把你的句子哈希进桶（一轮）');
        expect(shown.cost).toContain(`${n * n} 个查询–键对中只计算 ${want.scored} 个的分数（${macs} 次乘加）`);
        expect(shown.cost).toContain(`哈希本身另需 ${hash} 次乘加（x̂R）。`);
      }
      expect(problems.console).toEqual([]);
      await context.close();
    });

  test('the sections far below the fold are built in the change’s render, off screen as on it', async () => {
    const big = Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ');
    const { page, problems, context } = await plainPage(`<attention-cost sentence="${big}" d-model="64" d-k="64" seed="1"></attention-cost>`);
    await settled(page);
    // Read at the end of the render's own task (attention-render fires there): the Reformer
    // section's intro names the seed its rotation was drawn with.
    const atRender = (seed) =>
      page.evaluate(
        (value) =>
          new Promise((done) => {
            const element = document.querySelector('attention-cost');
            element.addEventListener('attention-render', () => {
              const box = element.shadowRoot.querySelector('[data-part="lsh"]');
              done({ intro: box.querySelector('[data-role="lsh"] .intro').textContent, below: box.getBoundingClientRect().top > 2 * innerHeight });
            }, { once: true });
            element.setAttribute('seed', value);
          }),
        seed,
      );
    const off = await atRender('2');
    expect(off).toMatchObject({ below: true });
    expect(off.intro).toContain('(seed 2)');
    await page.evaluate(() => document.querySelector('attention-cost').shadowRoot.querySelector('[data-part="lsh"]').scrollIntoView());
    const near = await atRender('3');
    expect(near.intro).toContain('(seed 3)');
    await settled(page);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the Reformer section under a causal mask: only earlier tokens of the bucket, itself when none', async () => {
    const { page, problems, context } = await plainPage('<attention-cost id="q" sentence="the cat sat on the mat" mask="causal"></attention-cost>');
    const ref = reference({ sentence: 'the cat sat on the mat', mask: 'causal' }, 2, 3);
    const want = lshReference(ref, buildModel({}).config.seed, true);
    await settled(page);
    const shown = await inCost(page, '#q', "return [...root.querySelectorAll('figure[data-matrix=lsh] td[data-i]')].map((td) => [Number(td.dataset.value), td.classList.contains('masked')])");
    expect(shown).toEqual(Array.from(want.weights.data, (v, x) => [v, want.mask[x] === 0]));
    for (let i = 0; i < ref.n; i++) for (let j = i + 1; j < ref.n; j++) expect(want.mask[i * ref.n + j]).toBe(0);
    expect(await inCost(page, '#q', "return root.querySelector('[data-role=lsh-cost]').textContent")).toContain(`Only ${want.scored} of the 36`);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the Measure button (from the keyboard) draws a chart with a point per method and size', async () => {
    const { page, problems, context } = await plainPage('<attention-cost id="m" max-n="256"></attention-cost>');
    expect(await inCost(page, '#m', "return root.querySelector('[data-role=time-chart]')")).toBe(null);
    // The bytes chart needs no measuring: 4n² of the n×n weights.
    expect(await inCost(page, '#m', "return root.querySelectorAll('[data-role=memory-chart] path').length")).toBe(3);
    await page.locator('#m').locator('button[data-key="measure"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /^Measured with/.test(document.querySelector('#m').shadowRoot.querySelector('[data-role=measure-status]').textContent), null, { timeout: 60_000 });
    // n = 64, 128, 256 for four methods: a time where the same function's empty 1×1 call takes
    // under a tenth of it, else a dash (and the note says why); a point drawn for each time shown.
    const rows = await inCost(page, '#m', "return [...root.querySelectorAll('table[data-role=times] tbody tr')].map((tr) => [tr.dataset.n, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)])");
    expect(rows.map((r) => r[0])).toEqual(['64', '128', '256']);
    let shown = 0;
    for (const r of rows) {
      for (const v of r.slice(1, 5)) if (v !== '—') expect(Number(v), v).toBeGreaterThan(0), shown++;
      expect(r[5]).toBe((4 * Number(r[0]) ** 2).toLocaleString('en'));
    }
    expect(await inCost(page, '#m', "return root.querySelectorAll('[data-role=time-chart] svg circle').length")).toBe(shown);
    expect(await inCost(page, '#m', "return root.querySelector('[data-role=not-timed]') !== null")).toBe(shown < 12);

    // Focus stays on the button; a second run replaces the first.
    expect(await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.dataset.key)).toBe('measure');
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('under a strict Content-Security-Policy (no inline styles): renders and measures with no violation', async () => {
    const { page, problems, context } = await plainPage('<attention-cost id="p" max-n="128" window="3"></attention-cost>', { csp: STRICT });
    expect(await inCost(page, '#p', "return root.querySelectorAll('figure[data-method] td[data-i]').length")).toBe(36 * 3 + 18);
    await page.locator('#p').locator('button[data-key="measure"]').click();
    await page.waitForFunction(() => /^Measured with/.test(document.querySelector('#p').shadowRoot.querySelector('[data-role=measure-status]').textContent), null, { timeout: 60_000 });
    // A point for each time long enough to show (the table's numbers), none for a dash.
    const shown = await inCost(page, '#p', "return [...root.querySelectorAll('table[data-role=times] td')].filter((td, k) => k % 5 < 4 && td.textContent !== '—').length");
    expect(await inCost(page, '#p', "return root.querySelectorAll('[data-role=time-chart] svg circle').length")).toBe(shown);
    // The panel's own rules arrive as a constructed stylesheet, which the policy allows (1.2rem, not the default 40px).
    expect(await inCost(page, '#p', "return getComputedStyle(root.querySelector('.remedies')).paddingInlineStart")).toBe('19.2px');
    expect(await page.evaluate(() => window.__violations)).toEqual([]);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('Chinese labels, causal mask, clamped attributes with the note, hostile text stays text', async () => {
    const payload = '<img src=x onerror="window.__pwned=1"> "><script>window.__pwned=2</script>';
    const attr = payload.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    const { page, problems, context } = await plainPage(
      `<attention-cost id="z" lang="zh-CN" sentence="注意力机制" mask="causal" window="99" linformer-k="abc" max-n="100000"></attention-cost>
       <attention-cost id="h" sentence="${attr}"></attention-cost>`,
      { lang: 'zh-CN' },
    );
    const zh = await inCost(page, '#z', "return { h2: root.querySelector('h2').textContent, button: root.querySelector('button[data-key=measure]').textContent, th: [...root.querySelectorAll('[data-role=complexity] thead th')].map((th) => th.textContent), note: root.querySelector('.root > [data-role=out-of-range]')?.textContent, intro: root.querySelector('.intro').textContent }");
    expect(zh.h2).toBe('长序列：n² 的代价');
    expect(zh.button).toBe('开始测量');
    expect(zh.th).toEqual(['层', '计算复杂度', '顺序操作', '最大路径长度']);
    expect(zh.note).toBe('超出范围，已调整：window: 99 → 32; linformer-k: abc → 3; max-n: 100000 → 4096。');
    expect(zh.intro).toContain('局部注意力');
    // the Chinese causal note, the online-softmax section, and the formulas' labels (no "vs" anywhere in them)
    const zhText = await inCost(page, '#z', "return { notes: [...root.querySelectorAll('.note')].map((p) => p.textContent), online: root.querySelector('[data-role=online-softmax] h3').textContent, caption: root.querySelector('table[data-role=online-table] caption').textContent, formulas: root.querySelector('[data-role=formulas]').textContent, masked: root.querySelectorAll('table[data-role=online-table] [data-field=max]').length }");
    expect(zhText.notes).toContain('因果掩蔽：局部注意力和线性注意力只看当前及之前的词元；Linformer 混合后的键无法按位置掩蔽，因此不显示掩蔽。');
    expect(zhText.online).toBe('融合路径内部：逐块计算的在线 softmax');
    expect(zhText.caption).toBe('查询 i = 5（“制”），每块 2 个键：每块处理完之后的状态');
    expect(zhText.masked).toBe(3);
    expect(zhText.formulas).not.toMatch(/vs/);
    // Causal: nothing after the query is visible, in full, local (w = 32) and linear attention.
    for (const method of ['full', 'local', 'linear']) {
      const cells = await cellsOf(page, '#z', method);
      expect(cells.length).toBe(25);
      for (const c of cells.filter((x) => x.j > x.i)) expect(c, method).toMatchObject({ masked: true, value: '0' });
    }
    // The payload's words are row headers, as text: no element was created from them.
    const hostile = await inCost(page, '#h', "return { heads: [...root.querySelectorAll('figure[data-method=full] tbody th')].map((th) => th.textContent), imgs: root.querySelectorAll('img, script').length }");
    expect(hostile.heads).toEqual(buildModel({ sentence: payload }).tokens);
    expect(hostile.heads.join(' ')).toContain('<img');
    expect(hostile.imgs).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBe(undefined);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('in the explorer: a tab "Long sequences" shows the panel; the language switch reaches it', async () => {
    const site = await server(join(root, 'site'));
    const { page, problems, context } = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await page.goto(`${site.url}/?panel=cost&s=the+cat+sat+on+the+mat`);
    await ready(page);
    const inPanel = (body) => page.evaluate((fn) => new Function('root', fn)(document.querySelector('attention-explorer').shadowRoot.querySelector('attention-cost').shadowRoot), body);
    expect(await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('#ptab-cost').textContent)).toBe('Long sequences');
    expect(await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('#ptab-cost').getAttribute('aria-selected'))).toBe('true');
    expect(await inPanel("return root.querySelectorAll('figure[data-method] td[data-i]').length")).toBe(36 * 3 + 18);
    // The explorer's inputs reach the panel: d_k = 2 changes the weights, same shapes.
    const before = await inPanel("return [...root.querySelectorAll('figure[data-method=full] td[data-i]')].map((td) => td.dataset.value)");
    await openSettings(page);
    await page.locator('attention-explorer #in-d-k').fill('2');
    await page.waitForFunction((b0) => {
      const r = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-cost').shadowRoot;
      const now = [...r.querySelectorAll('figure[data-method=full] td[data-i]')].map((td) => td.dataset.value);
      return now.length === 36 && now.join() !== b0.join();
    }, before);
    const ref = reference({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 2 }, 2, 3);
    const shown = await inPanel("return [...root.querySelectorAll('figure[data-method=full] td[data-i]')].map((td) => Number(td.dataset.value))");
    expect(shown).toEqual([...ref.full.data]);
    await page.selectOption('#lang', 'zh-CN');
    await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-cost').shadowRoot.querySelector('h2')?.textContent === '长序列：n² 的代价');
    expect(await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('#ptab-cost').textContent)).toBe('长序列');
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
    await site.close();
  });

  test('screenshots (en, zh) at 1280 px, measured', async () => {
    for (const lang of ['en', 'zh-CN']) {
      const sentence = lang === 'en' ? 'the cat sat on the mat' : '我爱学习注意力';
      const { page, problems, context } = await plainPage(`<attention-cost id="s" lang="${lang}" sentence="${sentence}" mask="causal" window="3"></attention-cost>`, { lang, viewport: { width: 1280, height: 1000 } });
      await page.locator('#s').locator('button[data-key="measure"]').click();
      await page.waitForFunction(() => document.querySelector('#s').shadowRoot.querySelector('[data-role=time-chart]') && !document.querySelector('#s').shadowRoot.querySelector('[data-role=charts][aria-busy=true]'), null, { timeout: 120_000 });
      await page.evaluate(() => document.fonts.ready);
      const file = screenshotFile(`cost-${lang === 'en' ? 'en' : 'zh'}-1280.png`);
      await page.locator('#s').screenshot({ path: file });
      quantise(file);
      expect(problems.console).toEqual([]);
      await context.close();
    }
  });
});
