// <attention-decoding>'s KV-cache section: prefill a few tokens, then a "Next token" button and a
// slider generating one token at a time. The K and V caches grow a row per token (heatmaps, the
// newest row outlined), the newest query's row of weights over everything cached, and the check
// that prefill + decode equals causal attention over the same tokens (kv-model.js).
import { el } from '../../dom.js';
import { exact, grouped } from '../../format.js';
import { createHeatmap, place } from '../../heatmap.js';
import { mathNodes } from '../../math-text.js';
import { fieldset, settingField } from './controls.js';
import { decodeTrace } from './kv-model.js';
import { DECODING_NUMBERS } from './settings.js';

const PREFILL_MAX = DECODING_NUMBERS.find((s) => s.attribute === 'prefill').max;

/** Decode steps listed in the work table (the last ones). */
const SHOWN_STEPS = 6;

/** The rows, keys and multiply-adds of the prefill and of each decode step, with and without the cache, and their sums. */
function workTable(t, work, d) {
  const table = el('table', { class: 'stats', 'data-role': 'work' });
  table.append(el('caption', { text: t('decoding.workCaption', { d2: 2 * d }) }));
  const top = el('tr', {},
    el('th', { scope: 'col', rowspan: '2', text: t('decoding.workCall') }),
    el('th', { scope: 'colgroup', colspan: '3', text: t('decoding.workWith') }),
    el('th', { scope: 'colgroup', colspan: '3', text: t('decoding.workWithout') }),
    el('th', { scope: 'col', rowspan: '2', text: t('decoding.workRatio') }));
  const sub = el('tr', {}, ...[0, 1].flatMap(() => ['workRows', 'workKeys', 'workMadds'].map((k) => el('th', { scope: 'col', text: t(`decoding.${k}`) }))));
  const body = el('tbody');
  const num = (v) => el('td', { class: 'num', 'data-value': String(v), text: grouped(v) });
  const row = (name, w, key) =>
    el('tr', { 'data-work': key }, el('th', { scope: 'row', text: name }), num(w.rowsWith), num(w.keysWith), num(w.withCache), num(w.rowsWithout), num(w.keysWithout), num(w.withoutCache), el('td', { class: 'num', text: `${Number((w.withoutCache / w.withCache).toPrecision(3))}×` }));
  // A long generation shows the prefill, then its last SHOWN_STEPS steps (the sum covers them all).
  const shown = work.map((w, k) => [w, k]).filter(([, k]) => k === 0 || k >= work.length - SHOWN_STEPS);
  for (const [w, k] of shown) {
    if (k > 1 && k === work.length - SHOWN_STEPS) body.append(el('tr', { 'data-work': 'gap' }, el('th', { scope: 'row', text: '…' }), el('td', { colspan: '7', text: t('decoding.workGap', { s: k - 1 }) })));
    body.append(row(k === 0 ? t('decoding.workPrefill', { positions: w.position }) : t('decoding.workStep', { position: w.position }), w, String(k)));
  }
  if (work.length > 2) {
    const steps = work.slice(1);
    const sum = (key) => steps.reduce((a, w) => a + w[key], 0);
    const keys = ['rowsWith', 'keysWith', 'withCache', 'rowsWithout', 'keysWithout', 'withoutCache'];
    body.append(row(t('decoding.workSum', { s: steps.length }), Object.fromEntries(keys.map((k) => [k, sum(k)])), 'sum'));
  }
  table.append(el('thead', {}, top, sub), body);
  return table;
}

export class KvSection {
  #host;
  #ui = null;
  #pool = new Map();

  /** `host`: the <attention-decoding> whose `prefill` and `decode-step` attributes the controls set. */
  constructor(host) {
    this.#host = host;
  }

  /** The section's nodes for head 0's projections `proj`, the tokens and the choice { prefill, step, steps }. */
  build(lab, t, proj, tokens, choice) {
    const { prefill, step, steps } = choice;
    const trace = decodeTrace(lab, proj, prefill, step);
    const cached = prefill + step;
    const ui = this.#sync(t, tokens, choice);
    const d = proj.Q.cols;
    const labels = tokens.slice(0, cached);
    // Dimensions counted from 1 (d1, d2, …), as heads and rows are in the page.
    const cols = Array.from({ length: d }, (_, j) => `d${j + 1}`);
    const last = cached - 1;
    const heat = (slot, name, matrix, rows, columns, extra = {}) => {
      const h = createHeatmap({ base: 1, t, name, file: `decoding-${slot}`, matrix, rowLabels: rows, colLabels: columns, pool: this.#pool, slot, compact: matrix.rows > 12 || matrix.cols > 12, ...extra });
      h.el.dataset.matrix = slot;
      return h;
    };
    const K = heat('K-cache', t('decoding.kCache', { n: cached, d }), trace.K, labels, cols);
    const V = heat('V-cache', t('decoding.vCache', { n: cached, d }), trace.V, labels, cols);
    const W = heat('new-weights', t('decoding.newWeights', { token: tokens[last] }), trace.weights, [tokens[last]], labels, { maskedText: '0' });
    for (const h of [K, V]) h.highlight({ rows: [last] });
    place(ui.grid, [K.el, V.el, W.el]);
    ui.status.textContent = step === 0 ? t('decoding.prefilled', { p: prefill, tokens: labels.join(' ') }) : t('decoding.generated', { p: prefill, s: step, token: tokens[last], n: cached });
    return [
      el('h3', { text: t('decoding.kvHeading') }),
      el('p', { class: 'intro', text: t('decoding.kvIntro') }),
      ui.form,
      ui.status,
      ui.grid,
      el('p', { class: 'note', 'data-role': 'kv-check', text: t('decoding.kvCheck', { rows: cached, e: exact(trace.difference) }) }),
      ...(steps === 0 ? [el('p', { class: 'note', 'data-role': 'kv-end', text: t('decoding.noneLeft') })] : []),
      el('h4', { text: t('decoding.workHeading') }),
      el('p', { class: 'intro' }, ...mathNodes(t('decoding.workIntro'))),
      el('div', { class: 'table-scroll' }, workTable(t, trace.work, d)),
      el('p', { class: 'note', 'data-role': 'kv-bytes' }, ...mathNodes(t('decoding.cacheBytes', { n: cached, bytes: trace.bytes, d }))),
    ];
  }

  /** The kept controls, their labels and values following the language and the choice. */
  #sync(t, tokens, { prefill, step, steps }) {
    const ui = (this.#ui ??= this.#build());
    ui.legend.textContent = t('decoding.kvControls');
    ui.prefill.sync({ text: t('decoding.prefill', { max: Math.min(PREFILL_MAX, tokens.length) }), min: 1, max: Math.min(PREFILL_MAX, tokens.length), value: prefill });
    ui.step.sync({ text: t('decoding.step', { s: step, steps }), min: 0, max: steps, value: step, helpText: t('decoding.stepHelp') });
    const done = step >= steps;
    ui.next.textContent = done ? t('decoding.restart') : t('decoding.next', { token: tokens[prefill + step] });
    return ui;
  }

  #build() {
    const host = this.#host;
    const prefill = settingField(host, 'prefill', { type: 'number' });
    const step = settingField(host, 'decode-step', { help: true });
    const next = el('button', { type: 'button', class: 'primary', 'data-key': 'next-token', part: 'button' });
    next.addEventListener('click', () => host.nextToken());
    const legend = el('legend');
    const form = fieldset(legend, [prefill, step]);
    form.append(el('div', { class: 'field' }, next));
    const status = el('p', { class: 'note status', 'data-role': 'kv-status', role: 'status' });
    return { form, legend, prefill, step, next, status, grid: el('div', { class: 'grid decoding-grid' }) };
  }
}
