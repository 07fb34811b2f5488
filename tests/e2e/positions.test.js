// <attention-positions> in Chromium: P equals lab.positionalEncoding (and the
// sinusoid formula), P Pᵀ is constant along diagonals, attention without P is
// permutation-equivariant and with P is not; swap control by keyboard; Chinese
// labels; inside the explorer; no console error, nothing from the network.
import { describe, expect, test } from 'vitest';
import { buildModel } from '../../web/src/model.js';
import { componentPage, panelScreenshots, settled } from './browser.js';
import { loadLab, useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser(); // b.browser, s.url: the repo root
const lab = await loadLab();

/** A plain page holding `body` (see componentPage). */
const open = (body, { selector = 'attention-positions', ...options } = {}) => componentPage(b.browser, s.url, body, { selector, ...options });

const shownNow = (page, selector = 'attention-positions') =>
  page.evaluate((sel) => {
    const root = document.querySelector(sel).shadowRoot;
    const figures = {};
    for (const f of root.querySelectorAll('figure[data-matrix]')) {
      figures[f.dataset.matrix] = {
        caption: f.querySelector('figcaption').textContent,
        shape: f.querySelector('figcaption .shape').textContent.trim(),
        rows: [...f.querySelectorAll('tbody th')].map((th) => th.textContent),
        cols: [...f.querySelectorAll('thead th')].map((th) => th.textContent),
        values: [...f.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
      };
    }
    const roles = {};
    for (const p of root.querySelectorAll('[data-role]')) roles[p.dataset.role] = p.textContent;
    return { figures, roles, heading: root.querySelector('h2')?.textContent, lang: root.querySelector('.root')?.getAttribute('lang'), paths: root.querySelectorAll('[data-role="chart"] path').length };
  }, selector);

// Once every element is ready (labels and data-value follow a change when the page is idle).
const shown = async (...args) => (await settled(args[0]), shownNow(...args));

const at = (f, i, j) => f.values[i * f.cols.length + j];

describe('attention-positions', () => {
  test('P is the library’s sinusoidal encoding; P Pᵀ depends only on i − j', async () => {
    const { page, problems, context } = await open('<attention-positions sentence="the cat sat on the mat" seed="3"></attention-positions>');
    const v = await shown(page);
    expect(v.heading).toBe('Positional encoding');
    const P = v.figures.P;
    expect(P.shape).toBe('6×8');
    expect(P.values).toEqual(Array.from(lab.positionalEncoding(6, 8).data));
    // The formula itself, in float64, within float32 precision.
    for (let i = 0; i < 6; i++)
      for (let j = 0; j < 8; j++) {
        const w = i / 10000 ** ((2 * Math.floor(j / 2)) / 8);
        expect(at(P, i, j)).toBeCloseTo(j % 2 ? Math.cos(w) : Math.sin(w), 6);
      }
    const G = v.figures.PPt;
    expect(G.shape).toBe('6×6');
    // Constant along every diagonal (relative position), d/2 on the main one.
    for (let k = 0; k < 6; k++)
      for (let i = 0; i + k < 6; i++) {
        expect(at(G, i, i + k)).toBeCloseTo(at(G, 0, k), 5);
        expect(at(G, i + k, i)).toBeCloseTo(at(G, 0, k), 5);
      }
    expect(at(G, 2, 2)).toBeCloseTo(4, 5);
    expect(v.roles.relative).toContain('P0 · P2');
    // Four columns plotted against 64 positions.
    expect(v.paths).toBe(4);
    expect(problems.console).toEqual([]);
    expect(problems.external).toEqual([]);
    await context.close();
  });

  test('without P attention is permutation-equivariant, with X + P it is not', async () => {
    const { page, problems, context } = await open('<attention-positions sentence="the cat sat on a mat" seed="11" swap="1 4"></attention-positions>');
    // X + P is drawn when its section is opened.
    expect(await page.evaluate(() => document.querySelector('attention-positions').shadowRoot.querySelector('figure[data-matrix="XP"]'))).toBeNull();
    await page.locator('attention-positions').locator('details > summary').click();
    await page.waitForFunction(() => document.querySelector('attention-positions').shadowRoot.querySelector('figure[data-matrix="XP"]'));
    const v = await shown(page);
    const p = (k) => (k === 1 ? 4 : k === 4 ? 1 : k);
    const { noP, noPs, withP, withPs, XP } = v.figures;
    expect(noP.rows).toEqual(['the', 'cat', 'sat', 'on', 'a', 'mat']);
    expect(noPs.rows).toEqual(['the', 'a', 'sat', 'on', 'cat', 'mat']);
    let worst = 0;
    let moved = 0;
    for (let a = 0; a < 6; a++)
      for (let c = 0; c < 6; c++) {
        worst = Math.max(worst, Math.abs(at(noPs, p(a), p(c)) - at(noP, a, c)));
        moved = Math.max(moved, Math.abs(at(withPs, p(a), p(c)) - at(withP, a, c)));
      }
    expect(worst).toBeLessThan(1e-6);
    expect(moved).toBeGreaterThan(1e-3);
    // X + P and the weights are the library's.
    const model = buildModel({ sentence: 'the cat sat on a mat', seed: 11 });
    const xp = lab.addPositionalEncoding(model.X);
    expect(XP.values).toEqual(Array.from(xp.data));
    const dK = model.config.dK;
    const first = (W) => {
      const data = new Float32Array(W.rows * dK);
      for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols, i * W.cols + dK), i * dK);
      return { rows: W.rows, cols: dK, data };
    };
    const weights = lab.selfAttention(xp, { Wq: first(model.Wq), Wk: first(model.Wk), Wv: first(model.Wv) }).weights;
    expect(withP.values).toEqual(Array.from(weights.data));
    expect(v.roles.equivariant).toContain('Without P');
    expect(v.roles['not-equivariant']).toContain('With P');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('P_{i+δ} is R P_i: R from δ and ω_j, P from the library, the difference at float32 rounding; δ and j by keyboard', async () => {
    const { page, problems, context } = await open('<attention-positions sentence="the cat sat on the mat" seed="3"></attention-positions>');
    const rotation = () =>
      page.evaluate(() => {
        const r = document.querySelector('attention-positions').shadowRoot;
        const rows = [...r.querySelectorAll('[data-role="rotation"] tbody tr')].map((tr) => {
          const cell = (k) => tr.querySelector(`td[data-key="${k}"]`).dataset.value.split(' ').map(Number);
          return { i: Number(tr.querySelector('th').textContent), before: cell('before'), rotated: cell('rotated'), after: cell('after'), all: cell('all')[0] };
        });
        return { rows, caption: r.querySelector('[data-role="rotation"] caption').textContent, formula: r.querySelector('[data-role="rotation-formula"] annotation')?.textContent, shift: r.querySelector('#shift').value, pair: r.querySelector('#pair').value };
      });
    const check = (v, delta, pair, d = 8) => {
      const P = lab.positionalEncoding(64, d);
      const w = 10000 ** ((-2 * pair) / d);
      const [c, s] = [Math.cos(delta * w), Math.sin(delta * w)];
      expect(v.rows.map((r) => r.i)).toEqual([3, 30]);
      for (const r of v.rows) {
        expect(r.before).toEqual([P.data[r.i * d + 2 * pair], P.data[r.i * d + 2 * pair + 1]]);
        expect(r.after).toEqual([P.data[(r.i + delta) * d + 2 * pair], P.data[(r.i + delta) * d + 2 * pair + 1]]);
        // R P_i with R = [[cos δω, sin δω], [−sin δω, cos δω]], computed here on its own.
        expect(r.rotated[0]).toBeCloseTo(c * r.before[0] + s * r.before[1], 12);
        expect(r.rotated[1]).toBeCloseTo(-s * r.before[0] + c * r.before[1], 12);
        for (const k of [0, 1]) expect(Math.abs(r.rotated[k] - r.after[k])).toBeLessThan(2 ** -23);
        expect(r.all).toBeLessThan(2 ** -23);
      }
    };
    const v = await rotation();
    expect([v.shift, v.pair]).toEqual(['3', '0']);
    expect(v.caption).toContain('columns 0 and 1');
    expect(v.formula).toContain('R_{3,0}');
    check(v, 3, 0);
    const notes = (await shown(page)).roles;
    expect(notes['rotation-summary']).toMatch(/positions 3 and 30: the largest difference over all 4 pairs is \d\.\de−8, float32 rounding/);
    expect(notes['rotation-direction']).toContain('Rᵀ');
    // δ typed, then the pair chosen by keyboard: the attributes, the table and the check follow.
    await page.locator('attention-positions').locator('#shift').fill('7');
    await page.locator('attention-positions').locator('#shift').press('Enter');
    await page.waitForFunction(() => document.querySelector('attention-positions').getAttribute('shift') === '7');
    await page.evaluate(() => document.querySelector('attention-positions').shadowRoot.querySelector('#pair').focus());
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('attention-positions').getAttribute('pair') === '1');
    await settled(page);
    const w = await rotation();
    expect(w.caption).toContain('columns 2 and 3');
    check(w, 7, 1);
    // Out of range: clamped, and said.
    await page.evaluate(() => document.querySelector('attention-positions').setAttribute('shift', '99'));
    await page.waitForFunction(() => document.querySelector('attention-positions').shadowRoot.querySelector('[data-role="out-of-range"]')?.textContent.includes('shift: 99 → 32'));
    check(await rotation(), 32, 1);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('the binary counter the right way round; P_c·P_{c+k} = P_c·P_{c−k}: distance, not direction', async () => {
    const { page, problems, context } = await open('<attention-positions sentence="one two three four five six seven" seed="3"></attention-positions>');
    const v = await shown(page);
    expect(v.roles.direction).toContain('cannot tell before from after');
    const [, x, y] = v.roles.direction.match(/P3 · P5 = ([−\d.e]+) .*P3 · P1 = ([−\d.e]+) /);
    const G = v.figures.PPt;
    expect(Math.fround(Number(x.replace('−', '-')))).toBe(at(G, 3, 5));
    expect(Math.fround(Number(y.replace('−', '-')))).toBe(at(G, 3, 1));
    expect(Math.abs(at(G, 3, 5) - at(G, 3, 1))).toBeLessThan(1e-6);
    const note = await page.evaluate(() => [...document.querySelector('attention-positions').shadowRoot.querySelectorAll('p.note')].map((p) => p.textContent).find((t) => t.includes('binary counter')));
    expect(note).toContain('rightmost (lowest) digit flips fastest');
    expect(note).not.toContain('like the digits of a binary counter');
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('swap by keyboard; out-of-range swap clamped with the note; Chinese labels; inside the explorer', async () => {
    const { page, problems, context } = await open('<attention-positions sentence="a b c d"></attention-positions>');
    await page.evaluate(() => document.querySelector('attention-positions').shadowRoot.querySelector('#swap-i').focus());
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => document.querySelector('attention-positions').getAttribute('swap') === '0 2');
    await page.waitForFunction(() => document.querySelector('attention-positions').shadowRoot.querySelector('figure[data-matrix="noPs"] tbody th')?.textContent === 'c');
    expect((await shown(page)).figures.noPs.rows).toEqual(['c', 'b', 'a', 'd']);
    await page.evaluate(() => document.querySelector('attention-positions').setAttribute('swap', '9 9'));
    await page.waitForFunction(() => document.querySelector('attention-positions').shadowRoot.querySelector('[data-role="out-of-range"]'));
    expect((await shown(page)).roles['out-of-range']).toContain('swap: 9 9 → 2 3');
    // A script payload in the attribute is refused and listed as text.
    await page.evaluate(() => document.querySelector('attention-positions').setAttribute('swap', '<img src=x onerror=alert(1)>'));
    await page.waitForFunction(() => document.querySelector('attention-positions').shadowRoot.querySelector('[data-role="out-of-range"]')?.textContent.includes('<img'));
    expect(await page.evaluate(() => document.querySelector('attention-positions').shadowRoot.querySelectorAll('img').length)).toBe(0);
    await page.evaluate(() => document.querySelector('attention-positions').setAttribute('lang', 'zh-CN'));
    await page.waitForFunction(() => document.querySelector('attention-positions').shadowRoot.querySelector('h2').textContent === '位置编码');
    const zh = await shown(page);
    expect(zh.lang).toBe('zh-CN');
    expect(zh.figures.P.caption).toContain('位置编码 P');
    expect(zh.figures.withP.caption).toContain('有位置编码的权重');
    expect(zh.roles['rotation-summary']).toContain('float32 舍入误差');
    expect(zh.roles.direction).toContain('分不清前后');
    expect(problems.console).toEqual([]);
    await context.close();

    const w = await open('<attention-explorer panel="positions" sentence="the cat sat"></attention-explorer>', { selector: 'attention-explorer' });
    await settled(w.page);
    const inner = await w.page.evaluate(() => {
      const ex = document.querySelector('attention-explorer').shadowRoot;
      const el = ex.querySelector('attention-positions');
      return { tab: ex.querySelector('[role="tab"][aria-selected="true"]').textContent, shape: el.shadowRoot.querySelector('figure[data-matrix="P"] .shape').textContent.trim() };
    });
    expect(inner).toEqual({ tab: 'Positional encoding', shape: '3×8' });
    expect(w.problems.console).toEqual([]);
    expect(w.problems.external).toEqual([]);
    await w.context.close();
  });

  test('a new figure’s screen-reader table is built when the page is idle, with the marks set before; a click before then builds it and focuses the cell', async () => {
    const { page, problems, context } = await open('<attention-positions sentence="a b c d e f" seed="3" swap="1 2"></attention-positions>', { viewport: { width: 1280, height: 4000 } });
    await settled(page);
    // Seven tokens: every figure of the swap section is new (7×7), its rows and columns 1 and 2 marked.
    const inRender = await page.evaluate(async () => {
      const panel = document.querySelector('attention-positions');
      const done = new Promise((r) => panel.addEventListener('attention-render', r, { once: true }));
      panel.setAttribute('sentence', 'a b c d e f g');
      await done;
      const table = panel.shadowRoot.querySelector('figure[data-matrix="noP"] table');
      return { bodies: table.tBodies.length, cols: table.tHead.querySelectorAll('th').length, busy: table.getAttribute('aria-busy') };
    });
    // Its body and column headers come together, when the page is idle.
    expect(inRender).toEqual({ bodies: 0, cols: 0, busy: 'true' });
    await settled(page);
    const built = await page.evaluate(() => {
      const table = document.querySelector('attention-positions').shadowRoot.querySelector('figure[data-matrix="noP"] table');
      const cells = [...table.querySelectorAll('td[data-i]')];
      return { cells: cells.length, cols: [...table.tHead.querySelectorAll('th')].map((th) => th.textContent), rows: [...table.tBodies[0].rows].map((tr) => tr.cells[0].textContent), lit: cells.filter((td) => td.classList.contains('hl')).map((td) => `${td.dataset.i},${td.dataset.j}`) };
    });
    expect(built.cells).toBe(49);
    expect(built.cols).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(built.rows).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    const expected = [];
    for (let i = 0; i < 7; i++) for (let j = 0; j < 7; j++) if ([1, 2].includes(i) || [1, 2].includes(j)) expected.push(`${i},${j}`);
    expect(built.lit).toEqual(expected);
    // Eight tokens, and a click on cell (3, 4) in the frame that first draws the new figure, before the
    // page is idle: the page's idle callbacks are held until the click (the scheduler asks for them
    // through requestIdleCallback each time), so an early idle period cannot come first.
    const clicked = await page.evaluate(async () => {
      const panel = document.querySelector('attention-positions');
      const done = new Promise((r) => panel.addEventListener('attention-render', r, { once: true }));
      const idle = window.requestIdleCallback;
      const held = [];
      window.requestIdleCallback = (f) => held.push(f);
      const release = () => {
        window.requestIdleCallback = idle;
        for (const f of held) idle(f);
      };
      panel.setAttribute('sentence', 'a b c d e f g h');
      await done;
      return new Promise((resolve) =>
        requestAnimationFrame(() => {
          const figure = panel.shadowRoot.querySelector('figure[data-matrix="noP"]');
          const canvas = figure.querySelector('canvas');
          const before = figure.querySelector('table').tBodies.length;
          const [x0, y0, w, h] = canvas.dataset.cells.split(' ').map(Number);
          const box = canvas.getBoundingClientRect();
          canvas.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0, clientX: box.left + x0 + 4.5 * w, clientY: box.top + y0 + 3.5 * h }));
          const td = panel.shadowRoot.activeElement;
          resolve({ before, focused: [td?.dataset.i, td?.dataset.j], cells: figure.querySelectorAll('td[data-i]').length, readout: figure.querySelector('.readout').textContent });
          release();
        }),
      );
    });
    expect(clicked.before).toBe(0);
    expect(clicked.focused).toEqual(['3', '4']);
    expect(clicked.cells).toBe(64);
    expect(clicked.readout).toContain('[3][4] (d → e)');
    await settled(page);
    expect(await page.evaluate(() => document.querySelector('attention-positions').shadowRoot.querySelector('figure[data-matrix="noP"] td[data-i="3"][data-j="4"]').dataset.value)).toMatch(/^-?\d/);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('screenshots at 1280 px (English saved in docs/screenshots, Chinese in the temp folder); nothing wider than a 375 px phone', async () => {
    await panelScreenshots(open, {
      name: 'positions',
      height: 3400,
      bodies: {
        en: '<attention-positions id="s" lang="en" sentence="the cat sat on the mat"></attention-positions>',
        zh: '<attention-positions id="s" lang="zh-CN" sentence="我爱学习注意力"></attention-positions>',
      },
    });
  });
});
