// <attention-train>'s export buttons, under its curves: the loss chart as PNG, the curves of every
// run as CSV (step, then per run loss, validation exact match and gradient norm) and the trained
// weights as JSON (each run's parameters by name, with their shapes). The same bar as under a
// heatmap (web/src/export/bar.js): part "export", the buttons' labels and file names made alike.
import { el } from '../../dom.js';
import { download } from '../../export/files.js';
import { chartPng } from '../../export/chart-png.js';
import { curvesCsv } from './compare-runs.js';

/** The weights of `runs` ([{ scoring, step, parameters }]) as the JSON the JSON button saves. */
export function weightsJson(settings, runs) {
  const tensors = (parameters) =>
    Object.fromEntries(Object.entries(parameters).map(([name, m]) => {
      const rows = Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
      return [name, { rows: m.rows, cols: m.cols, data: rows }];
    }));
  const { task, layers, heads, dModel, seed } = settings;
  return JSON.stringify({ task, layers, heads, dModel, seed, runs: runs.map((r) => ({ scoring: r.scoring, step: r.step, parameters: tensors(r.parameters) })) });
}

/** The file name of the panel's exports: train-<task>-<scoring or compare mode>-seed<seed>. */
export const exportFile = (s) => `train-${s.task}-${s.compare || s.scoring}-seed${s.seed}`;

/**
 * The bar: `source()` gives what to export now: { settings, runs: [{ scoring, name, session }],
 * chart (the loss chart's SVG), title (its title), legend ([{ label, color, dash }]) }. `onError(message)`: a run
 * whose weights cannot be read (no model yet).
 */
export function trainExportBar(t, source, onError) {
  const name = t('train.exportName');
  const bar = el('div', { class: 'export', role: 'group', 'aria-label': `${t('heatmap.export')}: ${name}`, part: 'export', 'data-role': 'train-export' });
  bar.append(el('span', { class: 'export-label', 'aria-hidden': 'true', text: `${t('heatmap.export')}:` }));
  const button = (key, what, action) =>
    bar.append(el('button', { type: 'button', part: 'button export-button', 'data-export': key, 'aria-label': t('export.label', { name: what, fmt: key.toUpperCase() }), text: t(`export.${key}`), onclick: action }));
  const file = () => exportFile(source().settings);
  button('png', t('train.lossChart'), async () => {
    const s = source();
    if (s.chart) download(`${file()}-loss.png`, await chartPng(s.chart, s.title, s.legend));
  });
  button('csv', t('train.curvesName'), () => {
    const runs = source().runs.map((r) => ({ name: r.name, losses: r.session.losses, accuracies: r.session.accuracies }));
    download(`${file()}-curves.csv`, new Blob([curvesCsv(runs)], { type: 'text/csv' }));
  });
  button('json', t('train.weightsName'), async () => {
    const s = source();
    const got = await Promise.all(s.runs.map((r) => r.session.weights()));
    const failed = got.find((w) => !w || w.error);
    if (failed !== undefined) return onError(t('train.noWeights'));
    const runs = got.map((w, i) => ({ scoring: s.runs[i].scoring, step: w.step, parameters: w.parameters }));
    download(`${file()}-weights.json`, new Blob([weightsJson(s.settings, runs)], { type: 'application/json' }));
  });
  return bar;
}
