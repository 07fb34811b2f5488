// How one call's query rows are shared out: contiguous ranges, one per worker, in order. Rows are
// independent in every kernel the pool splits, so each range computes exactly what the one-thread
// call computes for those rows.
import { MaskKind } from '../validate.js';

/**
 * [first, end) row ranges over n rows for `parts` workers; empty ranges are left out.
 * cost(i): the work of row i (default 1). Causal rows cost i + 1 (row i sees i + 1 keys; both causal kernels skip the rest),
 * so the ranges are balanced by summed cost, not by row count.
 */
export function rowRanges(n, parts, cost = () => 1) {
  const total = sumCost(0, n, cost);
  const ranges = [];
  let first = 0;
  let done = 0;
  for (let p = 1; p <= parts && first < n; p++) {
    const target = (total * p) / parts;
    let end = first;
    while (end < n && (p === parts || done + cost(end) / 2 < target)) done += cost(end++);
    if (end > first) ranges.push([first, end]);
    first = end;
  }
  return ranges;
}

const sumCost = (first, end, cost) => {
  let sum = 0;
  for (let i = first; i < end; i++) sum += cost(i);
  return sum;
};

/**
 * The mask of rows [first, end) as a worker passes it to the one-thread call. A causal mask
 * becomes the valid lengths min(i + 1, m): the same prefix rule (src/mask.h prefix_end), so the
 * kernels visit the same keys in the same order.
 */
export function maskRows(mask, first, end, m) {
  if (mask.kind === MaskKind.none) return undefined;
  if (mask.kind === MaskKind.causal)
    return { validLens: Array.from({ length: end - first }, (_, r) => Math.min(first + r + 1, m)) };
  if (mask.kind === MaskKind.validLens) return { validLens: Array.from(mask.lens.subarray(first, end)) };
  return { rows: end - first, cols: m, data: Float32Array.from(mask.bits.subarray(first * m, end * m)) };
}

/** Rows [first, end) of a checked matrix, as a fresh matrix whose buffer can be transferred. */
export const sliceRows = (a, first, end) => ({ rows: end - first, cols: a.cols, data: a.data.slice(first * a.cols, end * a.cols) });

/** Columns [first, first + count) of a checked matrix, as a fresh matrix. */
export function sliceColumns(a, first, count) {
  const data = new Float32Array(a.rows * count);
  for (let i = 0; i < a.rows; i++) data.set(a.data.subarray(i * a.cols + first, i * a.cols + first + count), i * count);
  return { rows: a.rows, cols: count, data };
}

/** A copy of a checked matrix (its own buffer, to transfer to one worker). */
export const copyMatrix = (a) => ({ rows: a.rows, cols: a.cols, data: a.data.slice() });
