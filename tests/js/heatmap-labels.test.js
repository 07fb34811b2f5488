// The DOM-free parts of the theme and of the heatmap's label layout: which colour scheme an
// element's computed color-scheme means (colors.js), and where a compact heatmap's column labels go
// (heatmap/canvas.js), measured with a stand-in for a canvas's measureText.
import { describe, expect, test } from 'vitest';
import { usedScheme } from '../../web/src/colors.js';
import { columnLabel, layout } from '../../web/src/heatmap/canvas.js';

/** A 2-D context's font and measureText: CJK characters one font size wide, others 0.6. */
function fakeContext() {
  const g = {
    font: '10px sans-serif',
    measureText(text) {
      const size = parseFloat(g.font.split(' ')[1]);
      let width = 0;
      for (const c of text) width += /[\u3000-\u9fff\uff00-\uffef]/.test(c) ? size : 0.6 * size;
      return { width };
    },
  };
  return g;
}
const theme = { rem: 16, cell: 2.6 * 16, font: 'sans-serif', mono: 'monospace', dpr: 1 };

/** The box (CSS px, canvas coordinates) a column label is drawn in, as drawLabels places it. */
function box(geo, j, g) {
  const label = geo.colTexts[j];
  const x = geo.left + j * geo.cw + (geo.cw - 1) / 2;
  g.font = geo.colFont;
  const width = label.mode === 'turn' ? geo.colSize : Math.max(...(label.chars ?? [label.text]).map((c) => g.measureText(c).width));
  return { x0: x - width / 2, x1: x + width / 2, y0: geo.top - 4 - label.extent, y1: geo.top - 4 };
}

describe('usedScheme: the colours light-dark() picks for a computed color-scheme', () => {
  test.each([
    ['normal', false, 'light'],
    ['normal', true, 'light'], // a light blog read with the OS in dark mode stays light
    ['dark', false, 'dark'], // html.dark { color-scheme: dark }
    ['only dark', false, 'dark'],
    ['light', true, 'light'],
    ['light dark', true, 'dark'], // a page that follows the OS
    ['light dark', false, 'light'],
    ['dark light', false, 'light'],
    ['', true, 'light'],
  ])('%j with the OS preferring dark = %s: %s', (value, prefersDark, used) => expect(usedScheme(value, prefersDark)).toBe(used));
});

describe('compact heatmap column labels', () => {
  const zh = [...'注意力机制是深度学习中非常重要的概念']; // 18 characters, one token each
  test('single Chinese characters are drawn flat (upright), each inside its own column, in a band one line tall', () => {
    const g = fakeContext();
    const geo = layout(g, { rows: zh.length, cols: zh.length, rowLabels: zh, colLabels: zh, compact: true }, theme);
    expect(geo.colTexts.map((l) => l.mode)).toEqual(zh.map(() => 'flat'));
    for (let j = 0; j < zh.length; j++) {
      const b = box(geo, j, g);
      expect(b.x0).toBeGreaterThanOrEqual(geo.left + j * geo.cw);
      expect(b.x1).toBeLessThanOrEqual(geo.left + (j + 1) * geo.cw);
      expect(b.y0).toBeGreaterThanOrEqual(0);
    }
    expect(geo.top).toBeLessThan(2 * geo.colSize + 6);
  });

  test('a Chinese word of 12 characters is stacked upright, whole, in a band tall enough for it', () => {
    const g = fakeContext();
    const words = ['注意力机制是深度学习中的', '缩放点积注意力', '多头注意力', ...'abcdefghij'];
    const geo = layout(g, { rows: 4, cols: words.length, rowLabels: ['a', 'b', 'c', 'd'], colLabels: words, compact: true }, theme);
    expect(geo.colTexts.slice(0, 3).map((l) => [l.mode, l.text])).toEqual([['stack', words[0]], ['stack', words[1]], ['stack', words[2]]]);
    for (let j = 0; j < words.length; j++) {
      const b = box(geo, j, g);
      expect(b.y0, words[j]).toBeGreaterThanOrEqual(0);
      expect(b.x0).toBeGreaterThanOrEqual(geo.left + j * geo.cw - 0.5);
      expect(b.x1).toBeLessThanOrEqual(geo.left + (j + 1) * geo.cw + 0.5);
    }
    expect(geo.top).toBe(Math.ceil(geo.colTexts[0].extent + 6));
  });

  test('labels longer than the band (9 rem) are cut: CJK with ⋮, Latin with …; the band stops at 9 rem', () => {
    const g = fakeContext();
    g.font = '600 10px sans-serif';
    const band = 9 * 16;
    const long = '这是一个非常非常长的中文标签它超过了标题栏的高度';
    const stacked = columnLabel(g, long, 15, band, 10);
    expect(stacked.mode).toBe('stack');
    expect(stacked.chars.at(-1)).toBe('⋮');
    expect(stacked.extent).toBeLessThanOrEqual(band);
    expect(long.startsWith(stacked.chars.slice(0, -1).join(''))).toBe(true);
    const word = 'internationalizationcharacteristically';
    const turned = columnLabel(g, word, 15, band, 10);
    expect(turned.mode).toBe('turn');
    expect(turned.text.endsWith('…')).toBe(true);
    expect(turned.extent).toBeLessThanOrEqual(band);
    // A word that fits the band is kept whole.
    expect(columnLabel(g, 'characteristically', 15, band, 10)).toMatchObject({ mode: 'turn', text: 'characteristically' });
    const geo = layout(g, { rows: 2, cols: 12, rowLabels: ['a', 'b'], colLabels: [word, long, ...'abcdefghij'], compact: true }, theme);
    expect(geo.top).toBeLessThanOrEqual(band + 6);
  });

  test('mixed labels: a short number flat, a Latin word turned, nothing when thinned out', () => {
    const g = fakeContext();
    g.font = '600 10px sans-serif';
    expect(columnLabel(g, '12', 15, 112, 10).mode).toBe('flat');
    expect(columnLabel(g, 'cat', 15, 112, 10).mode).toBe('turn');
    expect(columnLabel(g, '', 15, 112, 10)).toBeNull();
    const labels = Array.from({ length: 128 }, (_, j) => `${j}`);
    const geo = layout(g, { rows: 128, cols: 128, rowLabels: labels, colLabels: labels, compact: true }, theme);
    expect(geo.colTexts.filter(Boolean).length).toBeLessThan(128);
  });
});
