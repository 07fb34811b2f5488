// The notes under a step of <attention-steps>: what the mask does, the rows that see no key, the
// d_k relation where the widths are, and which columns a head's slices are.
import { el } from '../../dom.js';
import { dkRelation } from './dk-relation.js';
import { fullyMaskedRows, headMark } from './trace-steps.js';

const MASKED_ON = ['masked', 'weights', 'output', 'head-output'];
const WIDTHS_ON = ['Q', 'K', 'V', 'output', 'head-output', 'concat', 'final'];

/** The notes of `step` (elements, in order), from `traced` = { byKey, model, headIndex }, in the panel's language (`t`). */
export function stepNotes(step, { byKey, model, headIndex }, t) {
  const { config, n, tokens } = model;
  const notes = [];
  const note = (role, text, cls = 'note') => notes.push(el('p', { class: cls, 'data-role': role, text }));
  // Where the author's own numbers enter: Q, K, V before the scores, weights as given.
  if (model.mode === 'qkv' && (step.key === 'scores' || (step.key === 'scaled' && !byKey.scores))) note('own-numbers', t('steps.ownQKV', { n, dk: config.dK }));
  if (model.mode === 'weights') note('own-numbers', t('steps.ownWeights', { n, h: config.heads }));
  if (step.key === 'masked') note('mask-note', t('steps.maskNote'));
  const v = config.validLen;
  // Padding hides key columns v…n−1; every query row, the padded ones too, keeps its weights and output.
  if (MASKED_ON.includes(step.key) && config.mask === 'padding' && v > 0 && v < n) note('padding', t('steps.padding', { v, from: v + 1, n, tokens: tokens.slice(v).join(', ') }));
  const fully = MASKED_ON.includes(step.key) ? fullyMaskedRows(byKey.masked?.mask, n).map((i) => tokens[i]) : [];
  if (fully.length) notes.push(el('p', { class: 'warn', role: 'note', text: t('steps.fullyMasked', { rows: fully.join(', ') }) }));
  if (step.head && config.heads > 1) {
    // Columns counted from 1, as the figures label them (d1, d2, …).
    const from = headIndex * config.dK + 1;
    note('head-slice', t('steps.headSlice', { h: headIndex + 1, s: headMark(headIndex + 1), from: `d${from}`, to: `d${from + config.dK - 1}`, n, dk: config.dK }));
  }
  // d_model / h is a relation of the weights' shapes: the author's Q, K, V or weights have none.
  if (WIDTHS_ON.includes(step.key) && model.X) {
    const r = dkRelation(config);
    note('dk-relation', t(r.key, r.params), r.holds ? 'note' : 'warn');
  }
  return notes;
}
