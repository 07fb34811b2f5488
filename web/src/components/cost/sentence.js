// The reader's sentence through the four attentions the long-sequences panel compares: full
// softmax attention, local (sliding-window), linear and Linformer, on the first head's Q, K, V
// from the library's self-attention trace, each with what it cost. No DOM: the panel draws
// what `sentenceCells` describes.
import { firstColumns } from '../../first-columns.js';
import { grouped } from '../../format.js';
import { traceMask, traceMatrix } from '../../trace-view.js';
import { projections } from './measure.js';

/** A count with thousands separators (1,234). */
export const fmt = grouped;

/** 0/1 visibility (1 = may attend) of an n×n pattern given by `visible(i, j)`. */
export function visibility(n, visible) {
  const out = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] = visible(i, j) ? 1 : 0;
  return out;
}

/** Largest |a − b| over two equally long arrays. */
function largestDifference(a, b) {
  let diff = 0;
  for (let x = 0; x < a.length; x++) diff = Math.max(diff, Math.abs(a[x] - b[x]));
  return diff;
}

/** Every result the sentence's heatmaps show, from the library, for window w and Linformer's k. */
export function sentenceResults(lab, model, w, k) {
  const { config } = model;
  const first = (W) => firstColumns(W, config.dK);
  const qkv = lab.selfAttention(model.X, { Wq: first(model.Wq), Wk: first(model.Wk), Wv: first(model.Wv), trace: true });
  const [Q, K, V] = ['Q', 'K', 'V'].map((id) => traceMatrix(qkv, id));
  const n = Q.rows;
  const causal = config.mask === 'causal';
  const full = lab.scaledDotProductAttention(Q, K, V, { mask: model.mask, trace: true });
  // The fused call (no n×n weights kept) gives the same output: the difference is shown.
  const fused = lab.scaledDotProductAttention(Q, K, V, { mask: model.mask, weights: false });
  return {
    n,
    dk: Q.cols,
    dv: V.cols,
    w,
    k,
    qkv: { Q, K, V },
    mask: model.mask,
    full: { weights: full.weights, output: full.output, mask: traceMask(full) },
    fusedDiff: largestDifference(fused.output.data, full.output.data),
    local: { weights: lab.localAttention(Q, K, V, { window: w, causal, trace: true }).weights, mask: visibility(n, (i, j) => Math.abs(i - j) < w && (!causal || j <= i)) },
    linear: { weights: lab.linearAttention(Q, K, V, { causal, trace: true }).weights, mask: causal ? visibility(n, (i, j) => j <= i) : undefined },
    linformer: { weights: lab.linformerAttention(Q, K, V, { ...projections(k, n, config.seed), trace: true }).weights },
  };
}

/** The four heatmaps to draw: { key, name, matrix, mask, cols, notes }, their names and notes in the reader's language. */
export function sentenceCells(t, r) {
  const { n, dk, dv, w, k } = r;
  const localScores = r.local.mask.reduce((s, v) => s + v, 0);
  return [
    {
      key: 'full',
      name: t('cost.full'),
      matrix: r.full.weights,
      mask: r.full.mask,
      notes: [t('cost.fullCost', { n, scores: fmt(n * n), dk, dv, macs: fmt(n * n * (dk + dv)), bytes: fmt(4 * n * n) }), t('cost.fusedSame', { diff: r.fusedDiff.toPrecision(2) })],
    },
    { key: 'local', name: t('cost.local', { w }), matrix: r.local.weights, mask: r.local.mask, notes: [t('cost.localCost', { scores: fmt(localScores), all: fmt(n * n), macs: fmt(localScores * (dk + dv)) })] },
    { key: 'linear', name: t('cost.linear'), matrix: r.linear.weights, mask: r.linear.mask, notes: [t('cost.linearCost', { d: dk, dv, macs: fmt(2 * n * dk * dv + 2 * n * dk) })] },
    {
      key: 'linformer',
      name: t('cost.linformer', { k }),
      matrix: r.linformer.weights,
      cols: Array.from({ length: k }, (_, j) => t('cost.projected', { r: j + 1 })),
      notes: [t('cost.linformerCost', { k, n, scores: fmt(n * k), macs: fmt(2 * n * k * (dk + dv)) })],
    },
  ];
}
