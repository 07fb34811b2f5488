// Seeded random numbers: mulberry32 for uniforms, Box-Muller for normals.
// Every matrix the demo invents comes from here, so a seed reproduces a view.

/** A uniform [0, 1) generator from a 32-bit seed (mulberry32). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples from a uniform generator (Box-Muller, both values used). */
export function normals(uniform) {
  let spare = null;
  return function next() {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u1 = Math.max(uniform(), 1e-12);
    const u2 = uniform();
    const r = Math.sqrt(-2 * Math.log(u1));
    spare = r * Math.sin(2 * Math.PI * u2);
    return r * Math.cos(2 * Math.PI * u2);
  };
}

/** A 32-bit hash of a string (FNV-1a), to give each distinct token its own stream. */
export function hashString(text) {
  let h = 0x811c9dc5;
  for (const ch of text) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A rows×cols matrix of N(0, std²) entries drawn from `seed`. */
export function randomMatrix(rows, cols, seed, std = 1) {
  const gauss = normals(mulberry32(seed));
  const data = new Float32Array(rows * cols);
  for (let k = 0; k < data.length; k++) data[k] = gauss() * std;
  return { rows, cols, data };
}
