// <attention-pooling>: attention cues (D2L 10.1, cues-section.js), then Nadaraya-Watson kernel
// regression, a classic early example of attention pooling, on Dive into Deep Learning's data
// (10.2). Predictions and weights come from lab.nadarayaWatson; the reader picks the kernel, the
// bandwidth and a query (controls.js, query-chart.js); parametric pooling learns a bandwidth
// (fit-section.js). A change of kernel, bandwidth or query updates kept nodes in place.
import { AttentionElement } from '../../base.js';
import { onScale, sharedRange } from '../../colors.js';
import { panelSetting, settingValue } from '../../config.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { cancel, later } from '../../scheduler.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { poolingData } from '../../pooling-data.js';
import { renderTexCached } from '../../tex.js';
import { PoolingControls } from './controls.js';
import { cuesSection } from './cues-section.js';
import { fitSection } from './fit-section.js';
import { formulaTex } from './kernels.js';
import { QueryChart } from './query-chart.js';
import { DEFAULT_RATE, FIT, KERNELS, fmt } from './settings.js';
import { POOLING_CSS } from './styles.js';
import { emptyRows, rowStats } from './weights.js';

export { KERNELS } from './settings.js';

export class AttentionPooling extends AttentionElement {
  static tag = 'attention-pooling';

  /** The 50×50 weights for every test point and its empty rows, kept while the data, kernel and bandwidth stay. */
  #all = null;
  /** Its heatmap, kept while the weights and the language stay (a query drag does not redraw it): { key, el }. */
  #allMap = null;
  /** The parametric fit's section, kept while the data and the rate stay: { key, section }. */
  #fit = null;
  /** The attention-cues section, kept while the seed and language stay: { key, section }. */
  #cues = null;
  #rate = DEFAULT_RATE;
  #controls = new PoolingControls(this);
  #chart = new QueryChart();
  #pool = new Map();
  #texCache = new Map();
  /** Nodes kept between renders, their texts written when they change. */
  #nodes = {};
  /**
   * Whether the first render is still to come: it leaves the part below the chart (the fit and
   * the two weight heatmaps, whose 50×50 table is most of its cost) to the next idle moment, so the
   * panel appears sooner; `data-ready` waits for it (scheduler.js). Later renders build it at once.
   */
  #first = true;
  #tailKey = {};

  constructor() {
    super();
    adoptPanelStyles(this.shadowRoot, POOLING_CSS);
  }

  get kernel() {
    const k = this.getAttribute('kernel');
    return KERNELS.includes(k) ? k : 'gaussian';
  }
  get bandwidth() {
    const b = Number(this.getAttribute('bandwidth'));
    return b > 0 && b <= 10 ? b : 1;
  }
  get query() {
    return settingValue(panelSetting('pooling', 'query'), this.getAttribute('query'));
  }

  outOfRange() {
    const changed = super.outOfRange();
    for (const name of ['kernel', 'bandwidth', 'query']) this.noteAttribute(changed, name, this[name]);
    return changed;
  }

  changed() {
    this.emit('attention-pooling', { kernel: this.kernel, bandwidth: this.bandwidth, query: this.query });
  }

  render(lab) {
    const t = this.t;
    const seed = this.config().seed;
    const data = poolingData(seed);
    const { kernel, bandwidth, query: xq } = this;
    const options = { kernel, bandwidth };
    // The 50×50 weights depend on the data, kernel and bandwidth only: dragging the query reuses them.
    const allKey = `${seed}|${kernel}|${bandwidth}`;
    if (this.#all?.key !== allKey) {
      const result = lab.nadarayaWatson(data.xTrain, data.yTrain, data.xTest, options);
      this.#all = { key: allKey, result, empty: emptyRows(result.weights) };
    }
    const { result: all, empty } = this.#all;
    const one = lab.nadarayaWatson(data.xTrain, data.yTrain, [xq], options);
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    const controls = this.#controls.sync(t, this.language, { kernel, bandwidth, query: xq });
    const setQuery = (x) => this.setAttribute('query', String(x));
    const chart = this.#chart.sync(t, `${seed}|${this.language}`, { ...data, all, one, empty }, xq, setQuery);
    // Placed at the end, so the kept heatmaps, chart and formula stay where they are.
    place(this.root, [
      this.#text('panel-heading', 'h2', t('pooling.panelHeading')),
      this.#cuesSection(lab, seed),
      this.#text('heading', 'h3', t('pooling.heading')),
      this.#text('intro', 'p', t('pooling.intro'), 'intro'),
      this.#formulaNode(kernel, data.xTrain.length),
      ...this.#kernelNote(kernel),
      controls,
      chart,
      ...this.#emptyNote(empty, data.xTest.length, kernel, bandwidth),
      this.#distribution(one, xq),
      ...this.#tailNow(lab, data, seed, one, xq),
    ]);
  }

  /** The fit and the weight heatmaps: at once, or (first render) appended when the page is next idle. */
  #tailNow(lab, data, seed, one, xq) {
    if (!this.#first) {
      cancel(this.#tailKey);
      return [this.#fitSection(lab, data, seed), ...this.#heatmaps(data, this.#all.result, one, xq)];
    }
    this.#first = false;
    later(this.#tailKey, () => {
      if (!this.isConnected) return;
      try {
        this.root.append(...this.#tailNow(lab, data, seed, one, xq));
      } catch (error) {
        this.showError(error);
      }
    });
    return [];
  }

  /** The kept node `name` (made as a `tag` of `cls`, with a data-role), showing `text`. */
  #text(name, tag, text, cls = 'note') {
    const node = (this.#nodes[name] ??= el(tag, tag === 'p' ? { class: cls, 'data-role': name } : { id: name }));
    if (node.textContent !== text) node.textContent = text;
    return node;
  }

  /** The formula for `kernel`: it names h instead of writing its value, so a bandwidth change keeps it. */
  #formulaNode(kernel, m) {
    const node = (this.#nodes.formula ??= el('div', { class: 'formula', part: 'formula', 'data-role': 'formula' }));
    renderTexCached(node, this.#texCache, formulaTex(kernel, m));
    return node;
  }

  /** What the kernel's formula means here: the softmax step (Gaussian), D2L's triangular figure (Epanechnikov). */
  #kernelNote(kernel) {
    const key = { gaussian: 'pooling.gaussianNote', epanechnikov: 'pooling.epanechnikovNote' }[kernel];
    return key ? [this.#text('kernel-note', 'p', this.t(key))] : [];
  }

  /** The queries with no key in the window, counted from the library's weights (none: no note). */
  #emptyNote(empty, n, kernel, bandwidth) {
    if (!empty.length) return [];
    const node = this.#text('empty-note', 'p', this.t('pooling.emptyNote', { count: empty.length, n, kernel: this.t(`kernel.${kernel}`), h: fmt(bandwidth) }), 'note');
    node.dataset.count = String(empty.length);
    return [node];
  }

  /** The query's row of weights as a distribution: its smallest weight and live sum. */
  #distribution(one, xq) {
    const { min, sum } = rowStats(one.weights);
    const vars = { x: fmt(xq), min: min === 0 ? '0' : min.toPrecision(3), sum: sum.toFixed(6) };
    const node = this.#text('distribution', 'p', this.t(sum > 0 ? 'pooling.distribution' : 'pooling.noDistribution', vars), 'readout');
    node.dataset.sum = String(sum);
    return node;
  }

  /** The attention-cues section depends on the seed and language only: the kernel, bandwidth and query reuse it. */
  #cuesSection(lab, seed) {
    const key = `${seed}|${this.language}`;
    if (this.#cues?.key !== key) this.#cues = { key, section: cuesSection(this.t, lab, seed, this.#pool) };
    return this.#cues.section;
  }

  /** The fit depends on the data and the rate only: dragging the query or changing the kernel reuses it. */
  #fitSection(lab, { xTrain, yTrain }, seed) {
    const key = `${seed}|${this.#rate}|${this.language}`;
    if (this.#fit?.key === key) return this.#fit.section;
    const fit = lab.fitParametricPooling(xTrain, yTrain, { ...FIT, learningRate: Number(this.#rate) });
    const section = fitSection(this.t, fit, this.#rate, {
      texCache: this.#texCache,
      onRate: (rate) => {
        this.#rate = rate;
        this.requestRender();
      },
      onUse: (bandwidth) => {
        this.setAttribute('kernel', 'gaussian');
        this.setAttribute('bandwidth', String(bandwidth));
        this.changed();
      },
    });
    this.#fit = { key, section };
    return section;
  }

  /** The query's weights over the training points, and every test point's (redrawn only when they change), on one scale. */
  #heatmaps({ xTrain, xTest }, all, one, xq) {
    const t = this.t;
    const trainLabels = Array.from(xTrain, fmt);
    const common = { t, colLabels: trainLabels, compact: true, pool: this.#pool };
    // Both are weights: one colour scale and legend. The test points' map is drawn again only when
    // the query's weights reach above its own largest (rare: the test points are dense).
    const range = sharedRange([all.weights, one.weights]);
    const allKey = `${this.#all.key}|${this.language}|${range.max}`;
    if (this.#allMap?.key !== allKey) {
      const map = createHeatmap({ base: 1, ...common, name: t('pooling.heatmap'), file: 'pooling-weights', matrix: onScale(all.weights, range), rowLabels: Array.from(xTest, fmt), slot: 'all' });
      this.#allMap = { key: allKey, el: map.el };
    }
    return [createHeatmap({ base: 1, ...common, name: t('pooling.weightsOf', { x: fmt(xq) }), file: 'pooling-query-weights', matrix: onScale(one.weights, range), rowLabels: [`x=${fmt(xq)}`], slot: 'query' }).el, this.#allMap.el];
  }
}
