// Seeded random numbers: mulberry32 for uniforms, Box-Muller for normals.
// Every matrix the demo invents comes from here, so a seed reproduces a view. mulberry32 and the
// string hash are the library's own (its training tasks draw and split with them).
import { hashString, mulberry32 } from '../../bindings/tasks/seeded.js';

export { hashString, mulberry32 };

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

/** A rows×cols matrix of N(0, std²) entries drawn from `seed`. */
export function randomMatrix(rows, cols, seed, std = 1) {
  const gauss = normals(mulberry32(seed));
  const data = new Float32Array(rows * cols);
  for (let k = 0; k < data.length; k++) data[k] = gauss() * std;
  return { rows, cols, data };
}
