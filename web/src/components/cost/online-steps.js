// The long-sequences panel's online-softmax walk-through, apart from its DOM: the library's
// trace of one query row of the reader's sentence (lab.onlineSoftmax: the running max, sum,
// rescale and output after each block of keys) beside full softmax attention's row, and the
// numbers the closing sentences state. Unit tests: tests/js/cost-online.test.js.

/** Keys per block the reader may choose: small, so the sentence spans several blocks. */
export const BLOCK_SIZES = [1, 2, 3, 4];
export const DEFAULT_BLOCK = 2;

/** A number with 4 significant digits and a real minus sign; −∞ for a masked score or an unset max. */
export function num(v) {
  if (v === -Infinity) return '−∞';
  return String(Number(v.toPrecision(4))).replace('-', '−');
}

/** A short vector: its first `shown` entries to 3 significant digits, "…" after them when there are more. */
export function vec(values, shown = 4) {
  const parts = Array.from(values.slice(0, shown), (v) => String(Number(v.toPrecision(3))).replace('-', '−'));
  return `[${parts.join(', ')}${values.length > shown ? ', …' : ''}]`;
}

/** The query row actually traced: `wanted` clamped to the sentence, the last row when none was chosen. */
export function rowFor(wanted, n) {
  if (wanted === null || wanted === undefined || !Number.isInteger(wanted)) return n - 1;
  return Math.min(n - 1, Math.max(0, wanted));
}

/**
 * The trace of query `row` in blocks of `block` keys on the sentence's Q, K, V and mask (from
 * sentenceResults), with full attention's output row and weight sum, and how far apart they are.
 */
export function onlineWalk(lab, results, row, block) {
  const { Q, K, V } = results.qkv;
  const trace = lab.onlineSoftmax(Q, K, V, { row, block, mask: results.mask });
  const dv = V.cols;
  const m = K.rows;
  const fullRow = results.full.output.data.slice(row * dv, (row + 1) * dv);
  const fullWeights = results.full.weights.data.subarray(row * m, (row + 1) * m);
  let diff = 0;
  for (let t = 0; t < dv; t++) diff = Math.max(diff, Math.abs(trace.output[t] - fullRow[t]));
  const fullSum = fullWeights.reduce((s, x) => s + x, 0);
  const masked = trace.scores.some((s) => s === -Infinity);
  return { row, block, trace, fullRow, fullSum, diff, masked };
}

/** The closing sentences' values: the output against full attention's row, and ℓ and the weights' sum. */
export function closingValues(walk) {
  const { trace, row } = walk;
  return {
    // The page counts rows from 1 (the library and the select's values from 0).
    end: { out: vec(trace.output), i: row + 1, full: vec(walk.fullRow), diff: walk.diff.toPrecision(2) },
    sum: { sum: num(trace.sum), max: num(trace.max), weightSum: num(trace.weightSum), i: row + 1, fullSum: num(walk.fullSum) },
  };
}
