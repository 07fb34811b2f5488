// The FMA build (f32x4.relaxed_madd) against the SIMD build, the same calls in one process:
// every result checked against the float64 reference on sampled rows first, then timed in
// interleaved rounds (the builds take turns, so a change in machine load hits them all alike).
// Runs in Node and in a page (bench/fma.mjs): it touches no Node API.
import { randomMatrix, sampleRows } from './data.mjs';
import { compare, keyRange, windowRow } from './reference.mjs';

const D = 64;
const now = () => performance.now();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

/**
 * Each build through the library's own loader (dist/load.js's `load`), with its glue and .wasm.
 * @param {Function} load
 * @param {{ name: string, js: string, wasm: string }[]} builds  paths from the repository root
 * @param {(path: string) => Promise<Uint8Array>} bytes
 * @param {(path: string) => Promise<object>} glue  import() of a glue file
 * @returns {Promise<{ name: string, lab: object }[]>}
 */
export async function loadBuilds(load, builds, bytes, glue) {
  const labs = [];
  for (const b of builds) {
    // wasmFileName: the name load() puts in its error when the bytes do not instantiate
    const flavour = { builds: { simd: () => glue(b.js) }, wasmFileName: () => b.wasm };
    const lab = await load({ wasmBinary: await bytes(b.wasm) }, null, flavour);
    labs.push({ name: b.name, lab });
  }
  return labs;
}

/** The shapes and calls compared: the fused kernel (weights: false), and the default call at n = 1,024. */
export function fmaCases(quick) {
  const cases = [];
  for (const n of quick ? [1024] : [256, 1024, 2048])
    for (const causal of [false, true]) cases.push({ n, causal, weights: false });
  cases.push({ n: 1024, causal: false, weights: true });
  return cases;
}

// As a reader of the docs calls it: no weights option for the default call.
const callOptions = ({ causal, weights }) => ({ ...(causal ? { mask: 'causal' } : {}), ...(weights ? {} : { weights: false }) });
const label = ({ n, causal, weights }) => `n=${n}${causal ? ' causal' : ''}${weights ? ' (weights returned)' : ' (fused)'}`;

// The largest error of `lab`'s output on sampled rows, against float64; throws when out of tolerance.
function check(name, lab, c, Q, K, V) {
  const out = lab.scaledDotProductAttention(Q, K, V, callOptions(c)).output;
  const rows = sampleRows(c.n, 16), scale = 1 / Math.sqrt(D);
  const got = [], want = [];
  for (const i of rows) {
    const [lo, hi] = keyRange('full', i, c.n, c.n, { causal: c.causal });
    want.push(...windowRow(Q, K, V, i, lo, hi, scale));
    got.push(...out.data.subarray(i * D, (i + 1) * D));
  }
  const r = compare(got, want, { atol: 1e-4, rtol: 1e-3 });
  if (!r.ok) throw new Error(`${name} ${label(c)}: wrong result, ${r.why}`);
  return r.maxAbs;
}

// Median ms per call of each entry, in `rounds` turns of about `turnMs` each. A sample times a
// batch of calls lasting >= 10 ms: a page's clock ticks in 0.1 ms (Chromium coarsens performance.now).
// With `cpuClock` (process CPU ms; Node only) each sample's CPU time too, which leaves out the time
// the process waited for a core on a busy machine.
function interleave(entries, { rounds, turnMs, cpuClock }) {
  for (const e of entries) {
    const t = now();
    e.run();
    e.batch = Math.max(1, Math.ceil(10 / Math.max(now() - t, 0.01)));
    e.samples = [];
    e.cpuSamples = [];
  }
  for (let r = 0; r < rounds; r++)
    for (const e of entries) {
      const t0 = now();
      do {
        const t = now(), c = cpuClock?.();
        for (let k = 0; k < e.batch; k++) e.run();
        e.samples.push((now() - t) / e.batch);
        if (cpuClock) e.cpuSamples.push((cpuClock() - c) / e.batch);
      } while (now() - t0 < turnMs);
    }
  for (const e of entries) [e.ms, e.cpuMs] = [median(e.samples), cpuClock ? median(e.cpuSamples) : null];
}

/**
 * @param {{ name: string, lab: object }[]} labs  the builds, loaded; the first is the baseline
 * @param {{ quick?: boolean, log?: (line: string) => void, cpuClock?: () => number }} [options]
 * @returns {{ builds: string[], rows: object[] }}  per case and build: ms, GFLOP/s, speed-up over
 *          the first build, largest error on the sampled rows
 */
export function compareFma(labs, { quick = false, log = () => {}, cpuClock } = {}) {
  const rows = [];
  for (const c of fmaCases(quick)) {
    const [Q, K, V] = [1, 2, 3].map((k) => randomMatrix(c.n, D, 1000 * c.n + k));
    const options = callOptions(c);
    const entries = labs.map(({ name, lab }) => ({
      name,
      maxErr: check(name, lab, c, Q, K, V),
      run: () => lab.scaledDotProductAttention(Q, K, V, options),
    }));
    for (const e of entries) for (let t0 = now(); now() - t0 < (quick ? 100 : 300); ) e.run(); // warm-up: V8 tiers up
    interleave(entries, { ...(quick ? { rounds: 5, turnMs: 60 } : { rounds: 15, turnMs: 100 }), cpuClock });
    const flops = (c.causal ? 2 : 4) * c.n * c.n * D; // causal: the useful half, as bench/run.mjs counts it
    const builds = entries.map((e) => ({
      name: e.name,
      ms: e.ms,
      gflops: flops / (e.ms * 1e6),
      speedup: entries[0].ms / e.ms,
      cpuMs: e.cpuMs,
      cpuSpeedup: e.cpuMs == null ? null : entries[0].cpuMs / e.cpuMs,
      maxErr: e.maxErr,
      calls: e.samples.length * e.batch,
    }));
    log(`${label(c)}: ${builds.map((b) => `${b.name} ${b.ms.toFixed(2)} ms (×${b.speedup.toFixed(3)})`).join(', ')}`);
    rows.push({ case: label(c), builds });
  }
  return { builds: labs.map((l) => l.name), rows };
}
