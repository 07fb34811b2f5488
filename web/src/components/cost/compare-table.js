// Dive into Deep Learning 10.6's comparison of a CNN, an RNN and self-attention (plus the local
// and linear variants): the complexity, sequential operations and path length of each layer,
// each with its value at the live n, d (and w) beside the O(·).
import { el } from '../../dom.js';
import { fmt } from './sentence.js';

/** The convolution's kernel size in the comparison. */
const CONV_K = 3;

/** The rows: layer key, then [O(·), value] for complexity, sequential operations and path length. */
function complexityRows(n, d, w) {
  const k = CONV_K;
  return [
    ['cnn', ['O(k·n·d²)', fmt(k * n * d * d)], ['O(1)', '1'], ['O(n/k)', fmt(Math.ceil(n / k))]],
    ['rnn', ['O(n·d²)', fmt(n * d * d)], ['O(n)', fmt(n)], ['O(n)', fmt(n)]],
    ['self', ['O(n²·d)', fmt(n * n * d)], ['O(1)', '1'], ['O(1)', '1']],
    ['localRow', ['O(n·w·d)', fmt(n * Math.min(w, n) * d)], ['O(1)', '1'], ['O(n/w)', fmt(Math.ceil(n / w))]],
    ['linearRow', ['O(n·d²)', fmt(n * d * d)], ['O(1)', '1'], ['O(1)', '1']],
  ];
}

/** The heading, intro, table and note, for n tokens, width d and window w. */
export function compareTable(t, n, d, w) {
  const head = el('tr', {}, el('th', { scope: 'col', text: t('cost.layer') }), ...['cost.complexity', 'cost.sequential', 'cost.path'].map((h) => el('th', { scope: 'col', text: t(h) })));
  const cell = ([big, value]) => el('td', {}, document.createTextNode(big), el('span', { class: 'value', text: `= ${value}` }));
  const body = el('tbody');
  for (const [key, ...values] of complexityRows(n, d, w)) body.append(el('tr', { 'data-layer': key }, el('th', { scope: 'row', text: t(`cost.${key}`) }), ...values.map(cell)));
  const table = el('table', { class: 'stats cost-table', part: 'stats', 'data-role': 'complexity' }, el('caption', { class: 'sr-only', text: t('cost.compareHeading') }), el('thead', {}, head), body);
  return [
    el('h3', { text: t('cost.compareHeading') }),
    el('p', { class: 'muted', text: t('cost.compareIntro', { n, d, k: CONV_K }) }),
    el('div', { class: 'scroll' }, table),
    el('p', { class: 'note', text: t('cost.compareNote') }),
  ];
}
