// The peer table measured in Chromium: attention-lab as a page's init() loads it (the FMA build
// where relaxed SIMD ships) against tfjs-backend-wasm and onnxruntime-web in the same page
// (bench/lib/peers-page.mjs says what is timed and how).
//   node bench/peers-browser.mjs              n = 256, 1,024, 2,048, causal and not
//   node bench/peers-browser.mjs --quick      n = 1,024 only, shorter rounds
//   node bench/peers-browser.mjs --fma=false  init({ fma: false }): the SIMD build, for comparison
//   node bench/peers-browser.mjs --prefill    the prefill n = 1,024 (GQA 8/2, d = 64, fused), not
//                                             causal and causal, against onnxruntime-web's Attention-23 node
// Needs bench/node_modules (npm --prefix bench ci) and dist/ (node scripts/build.mjs).
// Prints a table on stderr and one JSON line on stdout.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { withBenchPage } from './lib/bench-page.mjs';
import { attentionModel } from './peers/onnx-attention.mjs';
import { singleHeadModel } from './peers/onnx-graph.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const initOptions = args.includes('--fma=false') ? { fma: false } : undefined;
const prefill = args.includes('--prefill');
const modules = 'bench/node_modules';
const SCRIPTS = [
  `${modules}/@tensorflow/tfjs-core/dist/tf-core.min.js`,
  `${modules}/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js`,
  `${modules}/onnxruntime-web/dist/ort.wasm.min.js`,
];
for (const s of SCRIPTS) if (!existsSync(path.join(root, s))) throw new Error(`${s} is missing: npm --prefix bench ci`);
const GQA = { batch: 1, heads: 8, kvHeads: 2, n: 1024, m: 1024, past: 0, d: 64 };
const model = (causal) => (prefill ? attentionModel({ ...GQA, causal }) : singleHeadModel({ d: 64, dv: 64, causal }));
const models = { full: Array.from(model(false)), causal: Array.from(model(true)) };

const result = await withBenchPage(root, 'peers-bench', async (page, version) => {
  const base = new URL(page.url()).origin;
  for (const s of SCRIPTS) await page.addScriptTag({ url: `${base}/${s}` });
  const table = await page.evaluate(
    async ({ prefill, ...options }) => {
      const { peersTable, prefillTable } = await import('/bench/lib/peers-page.mjs');
      return (prefill ? prefillTable : peersTable)({ ...options, base: location.origin, log: (line) => window.benchLog(line) });
    },
    { models, quick, initOptions, prefill },
  );
  return { environment: `Chromium ${version}`, ...table };
});

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const load = os.loadavg().map((x) => x.toFixed(2)).join(', ');
if (prefill) {
  console.error(`\n${result.environment}, ${cpu}, batch 1, heads 8, kvHeads 2, d = 64, one thread, attention-lab build '${result.build}'; load average ${load}`);
  console.error('| prefill n = 1,024, weights: false | attention-lab ms | onnxruntime-web Attention-23 ms | ratio |\n|---|---|---|---|');
  for (const r of result.rows) console.error(`| ${r.causal ? 'causal' : 'not causal'} | ${r.ours.toFixed(1)} | ${r.ort.toFixed(1)} | ${r.ratio.toFixed(2)}× |`);
  console.log(JSON.stringify({ cpu, load, ...result }));
  process.exit(0);
}
console.error(`\n${result.environment}, ${cpu}, d = 64, one thread, attention-lab build '${result.build}'; load average ${load}`);
console.error(`peers: ${result.peers.join('; ')}`);
console.error('ratio = the best peer\'s median ms ÷ attention-lab\'s (> 1: attention-lab faster)\n');
console.error('| call | ' + result.rows.map((r) => `n = ${r.n}${r.causal ? ' causal' : ''}`).join(' | ') + ' |');
console.error('|---|' + result.rows.map(() => '---|').join(''));
for (const [k, call] of ['weights returned', 'weights: false'].entries())
  console.error(`| attention-lab ${result.build}, ${call} | ` + result.rows.map((r) => `${r.ours[k].ms.toFixed(2)} ms, ${r.ours[k].ratio.toFixed(2)}×`).join(' | ') + ' |');
for (const [k, name] of result.peers.entries())
  console.error(`| ${name} | ` + result.rows.map((r) => `${r.peers[k].ms.toFixed(2)} ms`).join(' | ') + ' |');
console.log(JSON.stringify({ cpu, load, ...result }));
