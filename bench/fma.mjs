// The FMA build against the SIMD build (bench/lib/fma-compare.mjs), in Node or in Chromium.
//   node bench/fma.mjs             Node (relaxed SIMD switched on in V8: Node 20 has it behind a flag)
//   node bench/fma.mjs --browser   Debian's Chromium through playwright-core (relaxed SIMD shipped)
//   --quick                        n = 1,024 only, shorter rounds
//   --control=DIR                  also time DIR/attention-lab-simd.{js,wasm} (DIR under the repository),
//                                  e.g. the SIMD variant built with the FMA build's compiler (docs/fma-build.md),
//                                  to tell the fused multiply-add from the newer clang and Binaryen
// Needs dist/attention-lab-fma.{js,wasm} (node scripts/build.mjs, where the FMA toolchain is installed).
// Prints a table on stderr and one JSON line on stdout.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const browser = args.includes('--browser');
const control = args.find((a) => a.startsWith('--control='))?.slice('--control='.length);
if (!existsSync(path.join(root, 'dist', 'attention-lab-fma.wasm')))
  throw new Error('dist/attention-lab-fma.wasm is missing: run node scripts/build.mjs where the FMA toolchain is installed');

// Paths from the repository root (the page's server serves the repository).
const BUILDS = [
  { name: 'SIMD', js: 'dist/attention-lab-simd.js', wasm: 'dist/attention-lab-simd.wasm' },
  { name: 'FMA', js: 'dist/attention-lab-fma.js', wasm: 'dist/attention-lab-fma.wasm' },
];
if (control) {
  const dir = path.relative(root, path.resolve(root, control));
  if (!existsSync(path.join(root, dir, 'attention-lab-simd.wasm'))) throw new Error(`--control: no ${dir}/attention-lab-simd.wasm`);
  BUILDS.push({ name: 'control', dir, js: `${dir}/attention-lab-simd.js`, wasm: `${dir}/attention-lab-simd.wasm` });
}

async function inNode() {
  setFlagsFromString('--experimental-wasm-relaxed-simd'); // before any module compiles
  const url = (p) => pathToFileURL(path.join(root, p)).href;
  const { load } = await import(url('dist/load.js'));
  const { compareFma, loadBuilds } = await import('./lib/fma-compare.mjs');
  const bytes = async (p) => readFileSync(path.join(root, p));
  const labs = await loadBuilds(load, BUILDS, bytes, (p) => import(url(p)));
  const cpuClock = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const result = compareFma(labs, { quick, log: console.error, cpuClock });
  return { environment: `Node ${process.version} --experimental-wasm-relaxed-simd`, ...result };
}

async function inChromium() {
  const { withBenchPage } = await import('./lib/bench-page.mjs');
  return withBenchPage(root, 'fma-bench', async (page, version) => {
    const result = await page.evaluate(async ({ quick, builds }) => {
      const { load } = await import('/dist/load.js');
      const { compareFma, loadBuilds } = await import('/bench/lib/fma-compare.mjs');
      const bytes = async (p) => new Uint8Array(await (await fetch(`/${p}`)).arrayBuffer());
      const labs = await loadBuilds(load, builds, bytes, (p) => import(`/${p}`));
      return compareFma(labs, { quick, log: (line) => window.benchLog(line) });
    }, { quick, builds: BUILDS });
    return { environment: `Chromium ${version}`, ...result };
  });
}

const result = await (browser ? inChromium() : inNode());
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.error(`\n${result.environment}, ${cpu}, d = 64, one thread; median ms per call, interleaved rounds;` +
  ` ×: speed-up over ${result.builds[0]}`);
if (control) console.error(`control: ${BUILDS[2].dir}/attention-lab-simd.wasm`);
const others = result.builds.slice(1), withCpu = result.rows[0].builds[0].cpuMs != null;
const speedupTitles = others.flatMap((b) => [`${b} ×`, ...(withCpu ? [`${b} × (CPU time)`] : [])]);
const titles = ['case', ...result.builds.flatMap((b) => [`${b} ms`, `${b} GFLOP/s`]), ...speedupTitles, `max error (${result.builds.join(' / ')})`];
console.error(`| ${titles.join(' | ')} |`);
console.error(`|${titles.map(() => '---|').join('')}`);
for (const r of result.rows) {
  const cells = r.builds.map((b) => `${b.ms.toFixed(2)} | ${b.gflops.toFixed(2)}`);
  const speedups = r.builds.slice(1).flatMap((b) => [b.speedup, ...(withCpu ? [b.cpuSpeedup] : [])].map((x) => `×${x.toFixed(3)}`));
  const errors = r.builds.map((b) => b.maxErr.toExponential(1)).join(' / ');
  console.error(`| ${r.case} | ${cells.join(' | ')} | ${speedups.join(' | ')} | ${errors} |`);
}
console.log(JSON.stringify({ cpu, ...result }));
