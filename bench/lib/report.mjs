// Table printing and machine facts for the benchmark output.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import os from 'node:os';

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
  };
}

// Columns: [{ title, get(row) → string, align: 'left' | 'right' }].
export function table(rows, columns) {
  const cells = rows.map((r) => columns.map((c) => String(c.get(r) ?? '')));
  const widths = columns.map((c, k) => Math.max(c.title.length, ...cells.map((row) => row[k].length)));
  const line = (values) => values.map((v, k) => (columns[k].align === 'left' ? v.padEnd(widths[k]) : v.padStart(widths[k]))).join('  ');
  return [line(columns.map((c) => c.title)), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

export const fmtMs = (ms) => (ms == null ? '' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
export const fmt = (x, digits = 3) => (x == null || Number.isNaN(x) ? '' : x >= 1000 ? x.toFixed(0) : String(Number(x.toPrecision(digits))));
export const fmtBytes = (b) => (b == null ? '' : b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(1)} MiB` : `${(b / 1024).toFixed(0)} KiB`);

// Which library was measured: the git commit and the time dist/ was built.
export function libraryVersion(root) {
  let commit = null, built = null;
  try {
    commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {}
  try {
    built = statSync(`${root}/dist/attention-lab-simd.wasm`).mtime.toISOString();
  } catch {}
  return { commit, built };
}
