// <attention-decoding> in Chromium: the KV cache's heatmaps are the library's K, V and weights,
// and grow by one row per "Next token" (button, slider by keyboard); prefill + decode equals causal
// attention; the work per call is the cache's; the memory table is lab.kvCacheBytes' for MHA, GQA
// and MQA (presets, edited shape); RoPE's angles and scores, ALiBi's bias and weights per head; the soft-capped scores and the curve are c·tanh(s/c) of the library's scores; the
// sliding window hides all but w keys; Chinese labels; inside the explorer with its URL state; no
// console error, nothing from the network; screenshots.
import { describe, expect, test } from 'vitest';
import { decodeTrace, headProjections } from '../../web/src/components/decoding/kv-model.js';
import { alibiRun } from '../../web/src/components/decoding/alibi-model.js';
import { ropeRun } from '../../web/src/components/decoding/rope-model.js';
import { softcapRun } from '../../web/src/components/decoding/softcap-model.js';
import { buildModel } from '../../web/src/model.js';
import { componentPage, ready, panelScreenshots, settled, urlWritten, watchedPage } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await loadLab();

const open = (body, { selector = 'attention-decoding', ...options } = {}) => componentPage(b.browser, s.url, body, { selector, ...options });

/** Every heatmap (by data-matrix) with its caption, shape, headers and values, and every data-role's text. */
const shownNow = (page) =>
  page.evaluate(() => {
    const r = document.querySelector('attention-decoding').shadowRoot;
    const figures = {};
    for (const f of r.querySelectorAll('figure[data-matrix]')) {
      figures[f.dataset.matrix] = {
        caption: f.querySelector('figcaption').textContent,
        shape: f.querySelector('figcaption .shape').textContent.trim(),
        rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
        cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
        values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
      };
    }
    const roles = {};
    for (const p of r.querySelectorAll('[data-role]')) roles[p.dataset.role] = p.textContent;
    const tables = {};
    for (const table of r.querySelectorAll('table[data-role]'))
      tables[table.dataset.role] = [...table.querySelectorAll('tbody tr')].map((tr) => ({ name: tr.querySelector('th').textContent, cells: [...tr.querySelectorAll('td')].map((td) => td.dataset.value ?? td.textContent) }));
    const curve = r.querySelector('svg[data-role="curve"]');
    const g = r.querySelector('[data-role="groups"]');
    const groups = g && { heads: [Number(g.dataset.heads), Number(g.dataset.kvHeads)], boxes: [...g.querySelectorAll('.kv-group')].map((b) => ({ kv: Number(b.dataset.kv), from: Number(b.dataset.from), to: Number(b.dataset.to), queries: [...b.querySelectorAll('[data-q]')].map((q) => Number(q.dataset.q)) })) };
    return { figures, roles, tables, groups, heading: r.querySelector('h2')?.textContent, lang: r.querySelector('.root')?.getAttribute('lang'), next: r.querySelector('[data-key="next-token"]')?.textContent, curve: curve && { s: curve.dataset.s.split(' ').map(Number), capped: curve.dataset.capped.split(' ').map(Number) } };
  });
const shown = async (page) => (await settled(page), shownNow(page));
const attr = (page, name) => page.evaluate((n) => document.querySelector('attention-decoding').getAttribute(n), name);
const panel = (page) => page.locator('attention-decoding');

describe('attention-decoding', () => {
  test('the KV cache: the library’s K, V and new weights; one row more per Next token; the slider by keyboard', async () => {
    const { page, problems, context } = await open('<attention-decoding sentence="the cat sat on the mat" seed="3"></attention-decoding>');
    const model = buildModel({ sentence: 'the cat sat on the mat', seed: 3 });
    const proj = headProjections(lab, model);
    const expectStep = (v, step) => {
      const trace = decodeTrace(lab, proj, 3, step);
      const n = 3 + step;
      expect(v.figures['K-cache'].shape).toBe(`${n}×8`);
      expect(v.figures['K-cache'].rows).toEqual(model.tokens.slice(0, n));
      expect(v.figures['K-cache'].values).toEqual(Array.from(proj.K.data.slice(0, n * 8)));
      expect(v.figures['V-cache'].values).toEqual(Array.from(proj.V.data.slice(0, n * 8)));
      expect(v.figures['new-weights'].rows).toEqual([model.tokens[n - 1]]);
      expect(v.figures['new-weights'].values).toEqual(Array.from(trace.weights.data));
      expect(v.figures['new-weights'].values.reduce((a, x) => a + x, 0)).toBeCloseTo(1, 6);
      expect(v.roles['kv-check']).toContain(`the ${n} output rows`);
      // The work table: rows and keys counted, and the library's multiply-adds, with and without the cache.
      const work = v.tables.work.slice(0, trace.work.length);
      expect(work.map((row) => row.cells.slice(0, 6).map(Number))).toEqual(trace.work.map((w) => [w.rowsWith, w.keysWith, w.withCache, w.rowsWithout, w.keysWithout, w.withoutCache]));
      // Without a cache the token at position t recomputes t + 1 rows, (t + 1)(t + 2)/2 keys, each (d_k + d_v) = 16 multiply-adds.
      if (step) {
        const t = n - 1;
        expect(v.tables.work[trace.work.length - 1].cells.slice(0, 6).map(Number)).toEqual([1, t + 1, (t + 1) * 16, t + 1, ((t + 1) * (t + 2)) / 2, ((t + 1) * (t + 2)) / 2 * 16]);
      }
      expect(v.tables.work[trace.work.length - 1].name).toBe(step ? `token at position ${n - 1}` : 'prefill, positions 0–2');
      expect(v.roles['kv-bytes']).toContain(`${trace.bytes} bytes`);
    };
    let v = await shown(page);
    expect(v.heading).toBe('Attention in today’s language models');
    expectStep(v, 1);
    expect(v.roles['kv-status']).toContain('the newest token is “on”');
    expect(v.roles['kv-check']).toMatch(/differ by at most (0|\d(\.\d+)?e−[6-9])\./);
    expect(v.next).toBe('Next token: “the”');
    await panel(page).locator('[data-key="next-token"]').click();
    await page.waitForFunction(() => document.querySelector('attention-decoding').getAttribute('decode-step') === '2');
    expectStep(await shown(page), 2);
    // The slider by keyboard: one token per arrow key.
    await panel(page).locator('#decode-step').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('attention-decoding').getAttribute('decode-step') === '3');
    v = await shown(page);
    expectStep(v, 3);
    expect(v.next).toBe('Start again from the prefill');
    await page.keyboard.press('Home');
    await page.waitForFunction(() => document.querySelector('attention-decoding').getAttribute('decode-step') === '0');
    expect((await shown(page)).roles['kv-status']).toContain('Prefilled 3 tokens: “the cat sat”');
    // Out of range: clamped to the tokens left, and said.
    await page.evaluate(() => document.querySelector('attention-decoding').setAttribute('decode-step', '40'));
    await page.waitForFunction(() => document.querySelector('attention-decoding').shadowRoot.querySelector('[data-role="out-of-range"]')?.textContent.includes('decode-step: 40 → 3'));
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('soft-capping: the trace steps scores and capped, the curve c·tanh(s/c); the cap typed', async () => {
    const { page, problems, context } = await open('<attention-decoding sentence="the cat sat on the mat" seed="3"></attention-decoding>');
    const model = buildModel({ sentence: 'the cat sat on the mat', seed: 3 });
    const proj = headProjections(lab, model);
    const check = (v, c) => {
      const run = softcapRun(lab, proj, c);
      expect(v.figures.scores.values).toEqual(Array.from(run.scores.data));
      expect(v.figures.capped.values).toEqual(Array.from(run.capped.data));
      v.figures.capped.values.forEach((x, k) => expect(x).toBeCloseTo(c * Math.tanh(v.figures.scores.values[k] / c), 6));
      expect(v.figures['capped-weights'].values).toEqual(Array.from(run.weights.data));
      expect(v.figures['plain-weights'].values).toEqual(Array.from(run.plainWeights.data));
      expect(Math.max(...v.figures.capped.values.map(Math.abs))).toBeLessThan(c);
      expect(v.curve.s[0]).toBe(-4 * c);
      v.curve.capped.forEach((x, k) => expect(x).toBeCloseTo(c * Math.tanh(v.curve.s[k] / c), 6));
      expect(v.roles['cap-bound']).toContain(`below c = ${c}`);
      // Two weights of a row differ by less than e^(2c): the bound and the largest factor seen.
      const [, bound, seen] = /e\^\(2c\) = ([\d.]+) or more; the largest such factor in a row here is ([\d.]+)\./.exec(v.roles['cap-ratio']);
      expect(Number(bound)).toBe(Number(Math.exp(2 * c).toPrecision(3)));
      expect(Number(seen)).toBeLessThanOrEqual(Number(bound));
    };
    check(await shown(page), 0.5);
    await panel(page).locator('#softcap').fill('1.5');
    await panel(page).locator('#softcap').press('Enter');
    await page.waitForFunction(() => document.querySelector('attention-decoding').getAttribute('softcap') === '1.5');
    check(await shown(page), 1.5);
    await page.evaluate(() => document.querySelector('attention-decoding').setAttribute('softcap', '999'));
    await page.waitForFunction(() => document.querySelector('attention-decoding').shadowRoot.querySelector('[data-role="out-of-range"]')?.textContent.includes('softcap: 999 → 50'));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the sliding window: each query sees the last w keys; w by keyboard', async () => {
    const { page, problems, context } = await open('<attention-decoding sentence="a b c d e f g" seed="2"></attention-decoding>');
    const check = (v, w) => {
      const f = v.figures['window-weights'];
      expect(f.shape).toBe('7×7');
      for (let i = 0; i < 7; i++) {
        const row = f.values.slice(i * 7, i * 7 + 7);
        row.forEach((x, j) => (j <= i && j > i - w ? expect(x).toBeGreaterThan(0) : expect(x).toBe(0)));
        expect(row.reduce((a, x) => a + x, 0)).toBeCloseTo(1, 6);
      }
      expect(v.roles['window-seen']).toContain(Array.from({ length: 7 }, (_, i) => Math.min(i + 1, w)).join(', '));
    };
    check(await shown(page), 3);
    await panel(page).locator('#sliding-window').focus();
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelector('attention-decoding').getAttribute('sliding-window') === '2');
    check(await shown(page), 2);
    expect(await attr(page, 'sliding-window')).toBe('2');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the cache’s memory: presets shaped like real models, MHA, GQA and MQA from lab.kvCacheBytes; the shape edited', async () => {
    const { page, problems, context } = await open('<attention-decoding sentence="a b c"></attention-decoding>');
    const bytes = (shape, kv, tokens) => lab.kvCacheBytes({ layers: shape[0], kvHeads: kv, headDim: shape[3], tokens, bytesPerValue: 2 });
    const check = (v, shape, tokens, kvs) => {
      const rows = v.tables.memory;
      expect(rows.map((r) => r.name.replace(' (this shape)', ''))).toEqual(['MHA: one per query head', 'GQA: one per group', 'MQA: one for all']);
      kvs.forEach((kv, k) => {
        if (kv === null) return expect(rows[k].cells[0]).toContain('cannot be split');
        expect(rows[k].cells.slice(0, 3).map(Number)).toEqual([kv, bytes(shape, kv, 1), bytes(shape, kv, tokens)]);
        expect(Number(rows[k].cells[3])).toBeCloseTo(kv / shape[1], 12);
      });
      expect(rows.filter((r) => r.name.endsWith('(this shape)')).length).toBe(1);
      // The grouping drawn: query heads from … to reading key/value head kv, by lab.createKVCache's rule.
      const [, heads, kvHeads] = shape;
      expect(v.groups.heads).toEqual([heads, kvHeads]);
      const wanted = Array.from({ length: kvHeads }, (_, g) => ({ kv: g + 1, from: (g * heads) / kvHeads + 1, to: ((g + 1) * heads) / kvHeads }));
      const drawn = kvHeads <= 12 ? wanted : [...wanted.slice(0, 10), wanted[kvHeads - 1]];
      expect(v.groups.boxes).toEqual(drawn.map((g) => ({ ...g, queries: Array.from({ length: g.to - g.from + 1 }, (_, k) => g.from + k) })));
    };
    let v = await shown(page);
    check(v, [32, 32, 8, 128], 4096, [32, 8, 1]);
    // A preset chosen by keyboard: Falcon-like, one shared key/value head and 71 query heads (prime: no GQA).
    await panel(page).locator('#kv-preset').focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('attention-decoding').getAttribute('kv-shape') === '32 71 1 64');
    check(await shown(page), [32, 71, 1, 64], 4096, [71, null, 1]);
    // A field edited, and the tokens cached.
    await panel(page).locator('#kv-layers').fill('2');
    await panel(page).locator('#kv-layers').press('Enter');
    await panel(page).locator('#context').fill('100');
    await panel(page).locator('#context').press('Enter');
    await page.waitForFunction(() => document.querySelector('attention-decoding').getAttribute('context') === '100');
    v = await shown(page);
    expect(await attr(page, 'kv-shape')).toBe('2 71 1 64');
    check(v, [2, 71, 1, 64], 100, [71, null, 1]);
    expect(await page.evaluate(() => document.querySelector('attention-decoding').shadowRoot.querySelector('#kv-preset').value)).toBe('custom');
    await page.evaluate(() => document.querySelector('attention-decoding').setAttribute('kv-shape', '4 12 5 64'));
    await page.waitForFunction(() => document.querySelector('attention-decoding').shadowRoot.querySelector('[data-role="out-of-range"]')?.textContent.includes('kv-shape: 4 12 5 64 → 4 12 4 64'));
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('RoPE: the library’s angles and rotated scores, constant along diagonals and under a shift; ALiBi per head', async () => {
    const { page, problems, context } = await open('<attention-decoding sentence="the cat sat on the mat" seed="3" rope-base="100" rope-shift="4" alibi-heads="2"></attention-decoding>');
    const model = buildModel({ sentence: 'the cat sat on the mat', seed: 3 });
    const proj = headProjections(lab, model);
    const v = await shown(page);
    const rope = ropeRun(lab, proj, { base: 100, shift: 4 });
    expect(v.figures['rope-angles'].values).toEqual(Array.from(lab.rotaryAngles(12, 8, { base: 100 }).data));
    expect(v.figures['rope-scores'].values).toEqual(Array.from(rope.scores.data));
    expect(v.figures['rope-shifted'].values).toEqual(Array.from(rope.shifted.data));
    expect(v.figures['rope-shifted'].rows[0]).toBe('4');
    const S = v.figures['rope-scores'].values;
    for (let i = 1; i < 12; i++) for (let j = 1; j < 12; j++) expect(S[i * 12 + j]).toBeCloseTo(S[(i - 1) * 12 + j - 1], 5);
    // The spread along a diagonal is float32 rounding of scores near 5 (the products' summation order
    // decides its last bits): printed as a decimal or in e-notation, and tiny either way.
    const spread = /differ by at most ([\d.]+(?:e−\d+)?):/.exec(v.roles['rope-diagonal'])[1];
    expect(Number(spread.replace('−', '-'))).toBeLessThan(1e-5);
    expect(v.roles['rope-shift']).toContain('Moving both positions by 4');
    // The pairing the section draws is the library's default, and the text says which it is.
    expect(v.roles['rope-pairing']).toContain('lab.rotaryEmbedding pairs i with i + d/2 unless given { interleaved: true }');
    expect(v.figures['rope-scores'].caption).toContain('q_rot(m) · k_rot(n)');
    expect(v.roles['rope-link']).toContain('positional-encoding panel');
    expect(v.roles['alibi-why']).toContain('length extrapolation');
    const alibi = alibiRun(lab, proj, 2);
    const bias = lab.alibiBias({ heads: 2, queries: 6, keys: 6 });
    for (const h of [0, 1]) {
      const shownBias = v.figures[`alibi-bias-${h}`].values;
      Array.from(bias.data.slice(h * 36, (h + 1) * 36)).forEach((b, k) => (b === -Infinity ? expect(shownBias[k] <= -3.4e38 || shownBias[k] === -Infinity).toBe(true) : expect(shownBias[k]).toBe(b)));
      expect(v.figures[`alibi-weights-${h}`].values).toEqual(Array.from(alibi.heads[h].weights.data));
      expect(v.roles[`alibi-distance-${h}`]).toContain(`Looks back ${alibi.heads[h].distance.toFixed(2)} tokens`);
    }
    expect(v.roles['alibi-plain']).toContain('Slopes: 1/16, 1/256');
    // Heads by keyboard.
    await panel(page).locator('#alibi-heads').focus();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelector('attention-decoding').shadowRoot.querySelector('figure[data-matrix="alibi-bias-2"]'));
    expect((await shown(page)).roles['alibi-plain']).toContain('Slopes: 1/16, 1/256, 1/4');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('hostile and out-of-range attributes: clamped and listed as text, never an error; an odd d_k has no RoPE', async () => {
    const payload = '<img src=x onerror=alert(1)>';
    const attrs = { prefill: payload, 'decode-step': '-5', softcap: '1e400', 'sliding-window': '1e9', 'alibi-heads': payload, 'rope-base': '0', 'rope-shift': '999', context: '1e12', 'kv-shape': payload };
    const body = `<attention-decoding sentence="a b c d" d-k="5" ${Object.entries(attrs).map(([k, v]) => `${k}="${v.replace(/</g, '&lt;')}"`).join(' ')}></attention-decoding>`;
    const { page, problems, context, dialogs } = await open(body);
    const v = await shown(page);
    expect(v.roles['out-of-range']).toContain('decode-step: -5 → 0');
    expect(v.roles['out-of-range']).toContain('sliding-window: 1e9 → 4');
    expect(v.roles['out-of-range']).toContain('rope-base: 0 → 2');
    expect(v.roles['out-of-range']).toContain('context: 1e12 → 1048576');
    expect(v.roles['out-of-range']).toContain('kv-shape: <img');
    expect(v.roles['rope-odd']).toContain('d_k is 5');
    expect(v.tables.memory[1].cells.slice(0, 1)).toEqual(['8']);
    expect(await page.evaluate(() => document.querySelector('attention-decoding').shadowRoot.querySelectorAll('img, [role="alert"]').length)).toBe(0);
    expect(dialogs).toEqual([]);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('Chinese labels; inside the explorer, its settings in the explorer’s state', async () => {
    const { page, problems, context } = await open('<attention-decoding lang="zh-CN" prefill="2"></attention-decoding>');
    const zh = await shown(page);
    expect(zh.heading).toBe('当今语言模型中的注意力');
    expect(zh.lang).toBe('zh-CN');
    expect(zh.figures['K-cache'].caption).toContain('K 缓存');
    expect(zh.figures['K-cache'].rows).toEqual(['小', '猫', '坐']);
    expect(zh.roles['cap-bound']).toContain('截断后');
    expect(zh.next).toBe('下一个词元：“在”');
    expect(zh.tables.memory[0].name).toContain('MHA：每个查询头一个');
    expect(zh.roles['rope-shift']).toContain('两个位置同时平移 5');
    expect(zh.roles['alibi-plain']).toContain('斜率：1/4, 1/16, 1/64, 1/256');
    expect(problems.console).toEqual([]);
    await context.close();

    const w = await open('<attention-explorer panel="decoding" sentence="the cat sat"></attention-explorer>', { selector: 'attention-explorer' });
    await settled(w.page);
    const inner = () =>
      w.page.evaluate(() => {
        const ex = document.querySelector('attention-explorer');
        const el = ex.shadowRoot.querySelector('attention-decoding');
        return { tab: ex.shadowRoot.querySelector('[role="tab"][aria-selected="true"]').textContent, shape: el.shadowRoot.querySelector('figure[data-matrix="K-cache"] .shape').textContent.trim(), state: ex.state };
      });
    expect((await inner()).tab).toBe('Today’s models');
    expect((await inner()).shape).toBe('3×8');
    await w.page.locator('attention-explorer attention-decoding [data-key="next-token"]').click();
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').state.decodeStep === '0');
    await w.page.evaluate(() => (document.querySelector('attention-explorer').panelSettings = { prefill: '1', decodeStep: '2', softcap: '2' }));
    await w.page.waitForFunction(() => {
      const el = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-decoding');
      return el.getAttribute('prefill') === '1' && el.shadowRoot.querySelector('[data-role="kv-status"]')?.textContent.includes('1 prefilled + 2 generated');
    });
    expect((await inner()).state).toMatchObject({ panel: 'decoding', prefill: '1', decodeStep: '2', softcap: '2' });
    // RoPE's paragraph links to the positional-encoding panel, whose rotation section links back.
    await w.page.locator('attention-explorer attention-decoding [data-key="open-positions"]').click();
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').getAttribute('panel') === 'positions');
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-positions').shadowRoot.querySelector('[data-key="open-decoding"]'));
    expect(await w.page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-positions').shadowRoot.querySelector('[data-role="rotation-rope"]').textContent)).toContain('Rotary position embedding (RoPE)');
    await w.page.locator('attention-explorer attention-positions [data-key="open-decoding"]').click();
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').getAttribute('panel') === 'decoding');
    expect(w.problems.console).toEqual([]);
    expect(w.problems.external).toEqual([]);
    await w.context.close();
  });

  test('the demo page’s URL: a link opens the panel with its settings, a control writes them back', async () => {
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await w.page.goto(`${s.url}/site/?panel=decoding&s=a+b+c+d+e&pre=2&dstep=1&cap=1.5&sw=2&kvs=32+71+1+64&ctx=100&ah=3&rb=500&rs=2`);
    await ready(w.page);
    const attrs = () => w.page.evaluate(() => Object.fromEntries(['prefill', 'decode-step', 'softcap', 'sliding-window', 'kv-shape', 'context', 'alibi-heads', 'rope-base', 'rope-shift'].map((n) => [n, document.querySelector('attention-explorer').shadowRoot.querySelector('attention-decoding').getAttribute(n)])));
    expect(await attrs()).toEqual({ prefill: '2', 'decode-step': '1', softcap: '1.5', 'sliding-window': '2', 'kv-shape': '32 71 1 64', context: '100', 'alibi-heads': '3', 'rope-base': '500', 'rope-shift': '2' });
    const status = () => w.page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-decoding').shadowRoot.querySelector('[data-role="kv-status"]').textContent);
    expect(await status()).toContain('2 prefilled + 1 generated');
    await w.page.locator('attention-explorer attention-decoding [data-key="next-token"]').click();
    await w.page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-decoding').getAttribute('decode-step') === '2');
    const url = new URL(await urlWritten(w.page));
    expect(Object.fromEntries(['panel', 'pre', 'dstep', 'cap', 'kvs'].map((k) => [k, url.searchParams.get(k)]))).toEqual({ panel: 'decoding', pre: '2', dstep: '2', cap: '1.5', kvs: '32 71 1 64' });
    expect(w.problems.console).toEqual([]);
    expect(w.problems.external).toEqual([]);
    await w.context.close();
  });

  test('screenshots at 1280 px (English saved in docs/screenshots, Chinese in the temp folder); nothing wider than a 375 px phone', async () => {
    await panelScreenshots(open, {
      name: 'decoding',
      height: 5200,
      bodies: {
        en: '<attention-decoding id="s" lang="en" sentence="the cat sat on the mat"></attention-decoding>',
        zh: '<attention-decoding id="s" lang="zh-CN" sentence="我爱学习注意力"></attention-decoding>',
      },
    });
  });
});
