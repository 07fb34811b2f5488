// Deterministic inputs: seeded float32 matrices, from the one generator of scripts/random.mjs.

// randomMatrix(rows, cols, seed, sigma = 1): N(0, sigma²) entries (mulberry32, Box-Muller), as
// { rows, cols, data }.
export { normalMatrix as randomMatrix } from '../../scripts/random.mjs';

// Evenly spread row indices (always including the first and the last).
export function sampleRows(n, count) {
  if (count >= n) return Array.from({ length: n }, (_, i) => i);
  const rows = new Set([0, n - 1]);
  for (let k = 0; rows.size < count; k++) rows.add(Math.round((k * (n - 1)) / (count - 1)));
  return [...rows].sort((a, b) => a - b);
}
