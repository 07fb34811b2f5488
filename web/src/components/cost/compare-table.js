// Dive into Deep Learning 10.6's comparison of a CNN, an RNN and self-attention (plus the local
// and linear variants): the complexity, sequential operations and path length of each layer,
// each with its value at the live n, d (and w) beside the O(·). Path lengths count the layers
// (or steps) that carry the first token's information to the last, n − 1 positions away.
import { el } from '../../dom.js';
import { fmt } from './sentence.js';

/** The convolution's kernel size in the comparison (centred: it reaches (k − 1)/2 positions each way). */
export const CONV_K = 3;

/** Query–key pairs with |i − j| < w among n tokens: 2w − 1 per query, fewer at the ends (src/local_attention.h). */
export function windowPairs(n, w) {
  const u = Math.min(w, n);
  return n * (2 * u - 1) - u * (u - 1);
}

/** Layers needed to move information `distance` positions when each layer moves it `reach`; ∞ when reach is 0. */
export function layersToCover(distance, reach) {
  if (distance <= 0) return 0;
  return reach > 0 ? Math.ceil(distance / reach) : Infinity;
}

const count = (v) => (v === Infinity ? '∞' : fmt(v));

/** The rows: layer key, then [O(·), value] for complexity, sequential operations and path length. */
export function complexityRows(n, d, w) {
  const k = CONV_K;
  return [
    ['cnn', ['O(k·n·d²)', count(k * n * d * d)], ['O(1)', '1'], ['O(n/k)', count(layersToCover(n - 1, (k - 1) / 2))]],
    // an RNN reads its n tokens in n state updates, one after another; the path is n − 1 of them
    ['rnn', ['O(n·d²)', count(n * d * d)], ['O(n)', count(n)], ['O(n)', count(Math.max(n - 1, 0))]],
    ['self', ['O(n²·d)', count(n * n * d)], ['O(1)', '1'], ['O(1)', count(Math.min(1, n - 1))]],
    ['localRow', ['O(n·w·d)', count(windowPairs(n, w) * d)], ['O(1)', '1'], ['O(n/w)', count(layersToCover(n - 1, w - 1))]],
    ['linearRow', ['O(n·d²)', count(n * d * d)], ['O(1)', '1'], ['O(1)', count(Math.min(1, n - 1))]],
  ];
}

/**
 * A Vision Transformer's tokens for a `side`×`side` image cut into `patch`×`patch` patches, and the
 * cost of QKᵀ over them at width d: { n (patches), pairs (n²), macs (n²·d) }.
 */
export function vitCost(side, patch, d) {
  const n = (side / patch) ** 2;
  return { n, pairs: n * n, macs: n * n * d };
}

/** ViT-Base on ImageNet's 224×224 images: 16×16 patches, d = 768. */
export const VIT = { side: 224, patch: 16, d: 768 };

/** The ViT note's numbers: 224×224 and twice the side. */
export function vitNumbers() {
  const { side, patch, d } = VIT;
  const one = vitCost(side, patch, d);
  const two = vitCost(2 * side, patch, d);
  return { p: patch, s: side, n: one.n, pairs: fmt(one.pairs), d, macs: fmt(one.macs), s2: 2 * side, n2: two.n, ratio: two.pairs / one.pairs };
}

/** The heading, intro, table and notes, for n tokens, width d and window w. */
export function compareTable(t, n, d, w) {
  const head = el('tr', {}, el('th', { scope: 'col', text: t('cost.layer') }), ...['cost.complexity', 'cost.sequential', 'cost.path'].map((h) => el('th', { scope: 'col', text: t(h) })));
  const cell = ([big, value]) => el('td', {}, document.createTextNode(big), el('span', { class: 'value', text: `= ${value}` }));
  const body = el('tbody');
  for (const [key, ...values] of complexityRows(n, d, w)) body.append(el('tr', { 'data-layer': key }, el('th', { scope: 'row', text: t(`cost.${key}`) }), ...values.map(cell)));
  const table = el('table', { class: 'stats cost-table', part: 'stats', 'data-role': 'complexity' }, el('caption', { class: 'sr-only', text: t('cost.compareHeading') }), el('thead', {}, head), body);
  const local = { w, n, path: count(layersToCover(n - 1, w - 1)), pairs: fmt(windowPairs(n, w)) };
  return [
    el('h3', { text: t('cost.compareHeading') }),
    el('p', { class: 'muted', text: t('cost.compareIntro', { n, d, k: CONV_K }) }),
    el('div', { class: 'scroll' }, table),
    el('p', { class: 'note', text: t('cost.compareNote') }),
    el('p', { class: 'note', 'data-role': 'local-vs-cnn', text: t('cost.localVsCnn', local) }),
    el('p', { class: 'note', 'data-role': 'vit', text: t('cost.vit', vitNumbers()) }),
  ];
}
