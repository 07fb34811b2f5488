// The exported figure's layout and SVG (web/src/export/figure-layout.js, figure-svg.js), with a
// stand-in for the browser's text measure (Latin 0.6 em, CJK 1 em a character): no two labels
// collide, short labels stay horizontal, long English words and 12-character Chinese labels are
// rotated, a label too long even so is abbreviated and kept in full in the notes; the legend's
// items do not overlap; masked cells are hatched with no number and the legend says "masked".
import { beforeAll, describe, expect, it } from 'vitest';

import { FONTS, LABEL_MAX, SIZES, abbreviate, figureLayout, wrap } from '../../web/src/export/figure-layout.js';
import { figureSvg } from '../../web/src/export/figure-svg.js';
import { loadLab, randomMatrix, rng } from './helpers.js';

const sizeOf = (font) => Number(font.match(/(\d+(?:\.\d+)?)px/)[1]);
const measure = (text, font) => [...String(text)].reduce((w, ch) => w + sizeOf(font) * (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 1 : 0.6), 0);
const legend = { label: 'Colour scale:', min: '0.00', max: '1.00', masked: 'masked' };
const spec = (labels, more = {}) => ({ title: 'Attention weights (softmax)', rows: labels.length, cols: labels.length, rowLabels: labels, colLabels: labels, anyMasked: false, legend, ...more });

/** Boxes of the drawn column labels (rotated: a vertical strip up from the header's baseline). */
function columnBoxes(layout) {
  const h = SIZES.label;
  return layout.columns.items.map((it) => {
    const w = measure(it.text, FONTS.label);
    return layout.columns.rotated ? { x0: it.x - h / 2, x1: it.x + h / 2, y0: it.y - w, y1: it.y } : { x0: it.x - w / 2, x1: it.x + w / 2, y0: it.y - h, y1: it.y };
  });
}
const overlap = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
function expectNoCollisions(layout) {
  const boxes = columnBoxes(layout);
  for (let k = 1; k < boxes.length; k++) expect(overlap(boxes[k - 1], boxes[k])).toBe(false);
  // Column labels stay above the cells and below the title's line.
  for (const b of boxes) {
    expect(b.y1).toBeLessThanOrEqual(layout.grid.top);
    expect(b.y0).toBeGreaterThan(layout.title.y);
  }
  const rows = layout.rowItems;
  for (let k = 1; k < rows.length; k++) expect(rows[k].y - rows[k - 1].y).toBeGreaterThanOrEqual(SIZES.label);
  for (const r of rows) expect(r.x - measure(r.text, FONTS.label)).toBeGreaterThanOrEqual(0);
}

describe('figureLayout', () => {
  it('keeps short labels horizontal, each within its cell, with no notes', () => {
    const layout = figureLayout(spec(['the', 'cat', 'sat', 'on']), measure);
    expect(layout.columns.rotated).toBe(false);
    for (const it of layout.columns.items) expect(measure(it.text, FONTS.label)).toBeLessThanOrEqual(layout.grid.cell - 4);
    expect(layout.notes).toEqual([]);
    expectNoCollisions(layout);
  });

  it('rotates long English words and 12-character Chinese labels, whole, without collisions', () => {
    const labels = ['antidisestablishment', '注意力汇聚与非参数注意力汇', 'cat', 'supercalifragilistic'];
    const layout = figureLayout(spec(labels), measure);
    expect(layout.columns.rotated).toBe(true);
    expect(layout.columns.items.map((it) => it.text)).toEqual(labels);
    expect(layout.grid.top - layout.title.y).toBeGreaterThanOrEqual(measure(labels[1], FONTS.label));
    expect(layout.notes).toEqual([]);
    expectNoCollisions(layout);
  });

  it('abbreviates a label longer than the limit and keeps it in full in the notes', () => {
    const long = `${'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(3)}`;
    const layout = figureLayout(spec(['a', long, '注意力'.repeat(20)]), measure);
    const cut = layout.columns.items[1];
    expect(cut.text.endsWith('…')).toBe(true);
    expect(measure(cut.text, FONTS.label)).toBeLessThanOrEqual(LABEL_MAX);
    expect(cut.full).toBe(long);
    const notes = layout.notes.map((n) => n.text).join('');
    expect(notes.replace(/\s/g, '')).toContain(long);
    expect(notes).toContain('注意力'.repeat(20));
    for (const n of layout.notes) expect(measure(n.text, FONTS.small)).toBeLessThanOrEqual(layout.width);
    expect(layout.height).toBeGreaterThan(layout.notes.at(-1).y);
    expectNoCollisions(layout);
  });

  it('thins out the labels of a large matrix to one a line apart', () => {
    const labels = Array.from({ length: 128 }, (_, k) => `t${k}`);
    const layout = figureLayout(spec(labels), measure);
    expect(layout.columns.items.length).toBeLessThan(128);
    expectNoCollisions(layout);
  });

  it('lays the legend out in order without overlaps, the masked swatch only when cells are masked', () => {
    const masked = figureLayout(spec(['a', 'b'], { anyMasked: true }), measure).legend;
    const ends = (item) => item.x + measure(item.text, FONTS.small);
    expect(ends(masked.name)).toBeLessThanOrEqual(masked.min.x);
    expect(ends(masked.min)).toBeLessThanOrEqual(masked.bar.x);
    expect(masked.bar.x + masked.bar.width).toBeLessThanOrEqual(masked.max.x);
    expect(ends(masked.max)).toBeLessThanOrEqual(masked.masked.swatch.x);
    expect(masked.masked.swatch.x + masked.masked.swatch.width).toBeLessThanOrEqual(masked.masked.label.x);
    expect(masked.masked.label.text).toBe('masked');
    expect(figureLayout(spec(['a', 'b']), measure).legend.masked).toBe(null);
  });
});

describe('abbreviate and wrap', () => {
  it('cuts to the width with an ellipsis; wraps Chinese (no spaces) by characters', () => {
    expect(abbreviate('abcdefghij', measure('abcd…', FONTS.label), measure, FONTS.label)).toBe('abcd…');
    const lines = wrap('注意力'.repeat(10), 100, measure, FONTS.small);
    expect(lines.join('')).toBe('注意力'.repeat(10));
    for (const line of lines) expect(measure(line, FONTS.small)).toBeLessThanOrEqual(100);
  });
});

describe('figureSvg', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  it('hatches the masked cells of the library’s causal scores, with no number, and the legend says so', () => {
    const rand = rng(3);
    const [Q, K, V] = [0, 1, 2].map(() => randomMatrix(rand, 4, 3));
    const trace = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal', trace: true });
    const masked = trace.steps.find((s) => s.id === 'masked').matrix;
    const isMasked = (k) => k % 4 > Math.floor(k / 4);
    const svg = figureSvg({ title: 'Queries Q = XW_Q', matrix: masked, rowLabels: ['a', 'b', 'c', 'd'], colLabels: ['a', 'b', 'c', 'd'], isMasked, words: { legend: 'Colour scale:', masked: 'masked' } }, measure);
    const cells = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="\d+" height="\d+" data-i="(\d)" data-j="(\d)"([^/]*)\/>/g)];
    expect(cells).toHaveLength(16);
    for (const [, i, j, rest] of cells) {
      const hidden = Number(j) > Number(i);
      expect(rest.includes('data-masked="true"')).toBe(hidden);
      expect(rest.includes('url(#masked)')).toBe(hidden);
    }
    const numbers = [...svg.matchAll(/data-role="number">([^<]*)</g)].map((m) => m[1]);
    expect(numbers).toHaveLength(10);
    expect(numbers.some((n) => n.includes('∞'))).toBe(false);
    // The numbers are the library's, two decimals.
    const visible = [...masked.data].filter((_, k) => !isMasked(k)).map((v) => v.toFixed(2).replace('-', '−'));
    expect(numbers).toEqual(visible);
    expect(svg).toContain('data-role="legend-masked"');
    expect(svg).toMatch(/data-role="legend-masked-label">masked</);
    expect(svg).toContain('data-role="legend-bar"');
    expect(svg).toMatch(/data-role="title"><tspan>Queries Q = XW<\/tspan><tspan dy="4" font-size="11">Q<\/tspan><\/text>/);
  });
});
