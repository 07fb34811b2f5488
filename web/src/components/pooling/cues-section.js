// The top of <attention-pooling>: attention cues (Dive into Deep Learning 10.1). The query is the
// volitional cue, the keys the non-volitional cues (the sensory inputs), each paired with a value;
// two 10×10 heatmaps of attention weights: the identity (each query attends only to the key of
// its own index) and a seeded random matrix after lab.softmax, row by row. It depends on the seed
// and language only, so the host keeps it while the kernel, bandwidth and query change.
import { onOneScale } from '../../colors.js';
import { el } from '../../dom.js';
import { createHeatmap } from '../../heatmap.js';
import { cueScores, identityWeights } from '../../pooling-data.js';
import { rowStats } from './weights.js';

/** The section for `seed`; `pool`: the host's kept heatmaps. */
export function cuesSection(t, lab, seed, pool) {
  // Both are weights: one colour scale and legend (the identity's 1 and the random rows' largest alike).
  const [identity, random] = onOneScale([identityWeights(10), lab.softmax(cueScores(seed, 10))]);
  // Illustrations, not results: no export buttons (each heatmap's bar is DOM the first render pays for).
  const common = { t, pool, compact: false, maskedText: '0', exportable: false };
  const sums = Array.from({ length: random.rows }, (_, i) => rowStats(random, i).sum);
  const range = `${Math.min(...sums).toFixed(6)} … ${Math.max(...sums).toFixed(6)}`;
  return el(
    'section',
    { class: 'cues', part: 'cues', 'aria-labelledby': 'cues-heading' },
    el('h3', { id: 'cues-heading', text: t('pooling.cuesHeading') }),
    el('p', { class: 'intro', text: t('pooling.cuesIntro') }),
    el('p', { class: 'intro', text: t('pooling.cuesPooling') }),
    el(
      'div',
      { class: 'cue-maps' },
      el('div', { 'data-role': 'cues-identity' }, createHeatmap({ base: 1, ...common, name: t('pooling.identityName'), file: 'attention-identity', matrix: identity, ...LABELS, slot: 'cues-identity' }).el),
      el('div', { 'data-role': 'cues-random' }, createHeatmap({ base: 1, ...common, name: t('pooling.randomName', { seed }), file: 'attention-random-softmax', matrix: random, ...LABELS, slot: 'cues-random' }).el),
    ),
    el('p', { class: 'note', 'data-role': 'cues-sums', text: t('pooling.cuesSums', { range }) }),
  );
}

/** Rows are queries q1…q10, columns keys k1…k10 (symbols, the same in both languages; counted from 1 like every label of the page). */
const LABELS = { rowLabels: Array.from({ length: 10 }, (_, i) => `q${i + 1}`), colLabels: Array.from({ length: 10 }, (_, j) => `k${j + 1}`) };
