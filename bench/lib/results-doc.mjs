// The peer benchmark's results file (bench/run.mjs writes it) as Markdown: how it was measured, one
// table per group (implementations as rows, shapes as columns, median wall milliseconds, the fastest
// of each column in bold), the goals as measured ratios, and the run's notes. bench/run.mjs writes
// it beside the results; bench/write-doc.mjs puts it into docs/performance.md, where
// tests/js/performance-doc.test.js checks that the figures are the file's.
import { fmt, fmtMs } from './report.mjs';

const GROUPS = { 'single-head': 'single-head attention, d = 64', 'multi-head': 'multi-head self-attention with projections', variants: 'variants (attention-lab SIMD), d = 64' };

/** The sentence saying where, when and how the file's figures were measured. */
function measured({ date, command, library, machine, loadAverage, peak }) {
  const load = `load average ${loadAverage.before[0].toFixed(1)} → ${loadAverage.after[0].toFixed(1)} on ${machine.cores} cores`;
  return [
    `Measured ${date.slice(0, 16).replace('T', ' at ')} UTC with \`${command}\` (attention-lab ${library.commit ?? 'unknown commit'}) on ${machine.cpu},`,
    `${machine.cores} cores (${load}), Node ${machine.node}, one thread, float32: each implementation's result checked against a`,
    `float64 reference before it was timed, the implementations of a shape timed in turns (median of the rounds). SIMD128`,
    `multiply-add peak probe: ${fmt(peak.gflops)} GFLOP/s. Median wall milliseconds; the fastest of each column in bold.`,
  ].join('\n');
}

function groupTable(rows, title) {
  const shapes = [...new Set(rows.map((r) => r.shape))];
  const impls = [...new Set(rows.map((r) => r.impl))];
  const fastest = Object.fromEntries(shapes.map((shape) => [shape, Math.min(...rows.filter((r) => r.shape === shape && r.ms != null).map((r) => r.ms))]));
  const cell = (impl, shape) => {
    const r = rows.find((x) => x.impl === impl && x.shape === shape);
    if (!r) return '';
    if (r.ms == null) return r.error ? 'wrong or failed' : 'n/a';
    const text = `${fmtMs(r.ms)}${r.scaleBy > 1 ? ' *' : ''}`;
    return r.ms === fastest[shape] ? `**${text}**` : text;
  };
  const lines = [`| ${title} | ${shapes.join(' | ')} |`, `|---|${shapes.map(() => '---').join('|')}|`];
  for (const impl of impls) lines.push(`| ${impl} | ${shapes.map((shape) => cell(impl, shape)).join(' | ')} |`);
  return lines.join('\n');
}

function goalsTable(goals) {
  const show = (g, v) => (v == null ? 'n/a' : g.unit ? `${fmt(v)}×` : `${(100 * v).toFixed(0)} %`);
  const target = (g) => `${g.atMost ? '≤' : '≥'} ${g.unit ? `${g.target}×` : `${100 * g.target} %`}`;
  const met = (m) => (m == null ? '–' : m ? 'yes' : 'no');
  const lines = ['| goal | wall clock | CPU time | target | met (wall / CPU) |', '|---|---|---|---|---|'];
  for (const g of goals) lines.push(`| ${g.goal} | ${show(g, g.measured)} | ${show(g, g.cpu)} | ${target(g)} | ${met(g.met)} / ${met(g.cpuMet)} |`);
  return lines.join('\n');
}

/** The Markdown for one results file (the parsed JSON bench/run.mjs writes). */
export function resultsMarkdown(file) {
  const parts = [measured(file)];
  for (const [group, title] of Object.entries(GROUPS)) {
    const rows = file.results.filter((r) => r.group === group);
    if (rows.length) parts.push(groupTable(rows, title));
  }
  if (file.results.some((r) => r.scaleBy > 1)) parts.push('\\* timed on a subset of query rows and scaled by n / rows.');
  if (file.goals.length) parts.push(`The goals, as this run measured them:\n\n${goalsTable(file.goals)}`);
  if (file.notes.length) parts.push(`Notes of the run:\n\n${file.notes.map((n) => `- ${n}`).join('\n')}`);
  return `${parts.join('\n\n')}\n`;
}
