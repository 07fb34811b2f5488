// Deterministic inputs: a seeded RNG and random float32 matrices.

// mulberry32: a small, fast, seedable 32-bit generator.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A rows×cols matrix of N(0, sigma²) entries (Box-Muller), as { rows, cols, data }.
export function randomMatrix(rows, cols, seed, sigma = 1) {
  const next = rng(seed);
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - next())) * sigma;
    const t = 2 * Math.PI * next();
    data[i] = r * Math.cos(t);
    if (i + 1 < data.length) data[i + 1] = r * Math.sin(t);
  }
  return { rows, cols, data };
}

// Evenly spread row indices (always including the first and the last).
export function sampleRows(n, count) {
  if (count >= n) return Array.from({ length: n }, (_, i) => i);
  const rows = new Set([0, n - 1]);
  for (let k = 0; rows.size < count; k++) rows.add(Math.round((k * (n - 1)) / (count - 1)));
  return [...rows].sort((a, b) => a - b);
}
