// <attention-pooling>: Nadaraya-Watson kernel regression, the oldest attention
// pooling, on Dive into Deep Learning's data. Predictions and weights come from
// lab.nadarayaWatson; the reader picks the kernel, the bandwidth and a query
// (controls.js, query-chart.js); parametric pooling learns a bandwidth (fit-section.js).
import { AttentionElement } from '../../base.js';
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { adoptPanelStyles } from '../../panel-styles.js';
import { poolingData } from '../../pooling-data.js';
import { renderTex, renderTexCached } from '../../tex.js';
import { BANDWIDTH_STEPS, PoolingControls } from './controls.js';
import { fitSection } from './fit-section.js';
import { queryChart } from './query-chart.js';
import { DEFAULT_RATE, FIT, KERNELS, fmt } from './settings.js';
import { POOLING_CSS } from './styles.js';

export { KERNELS } from './settings.js';

export class AttentionPooling extends AttentionElement {
  static tag = 'attention-pooling';

  /** The 50×50 weights for every test point, kept while the data, kernel and bandwidth stay: { key, result }. */
  #all = null;
  /** The parametric fit's section, kept while the data and the rate stay: { key, section }. */
  #fit = null;
  #rate = DEFAULT_RATE;
  /** Whether a drag of the query is under way (it outlives the chart each render draws anew). */
  #drag = { active: false };
  #controls = new PoolingControls(this);
  #pool = new Map();
  #texCache = new Map();
  /** The formula typeset per bandwidth, its own cache: the slider's values are prepared when idle. */
  #formulaCache = new Map();
  #formula = null;
  #idle = 0;

  static get observedAttributes() {
    return [...super.observedAttributes, 'query'];
  }

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
    const q = Number(this.getAttribute('query'));
    return this.hasAttribute('query') && q >= 0 && q <= 5 ? q : 2.5;
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
    const options = { kernel: this.kernel, bandwidth: this.bandwidth };
    // The 50×50 weights depend on the data, kernel and bandwidth only: dragging the query reuses them.
    const allKey = `${seed}|${options.kernel}|${options.bandwidth}|${this.language}`;
    if (this.#all?.key !== allKey) this.#all = { key: allKey, result: lab.nadarayaWatson(data.xTrain, data.yTrain, data.xTest, options) };
    const all = this.#all.result;
    const xq = this.query;
    const one = lab.nadarayaWatson(data.xTrain, data.yTrain, [xq], options);
    if (this.root.getAttribute('lang') !== this.language) this.root.setAttribute('lang', this.language);
    const controls = this.#controls.sync(t, this.language, { kernel: this.kernel, bandwidth: this.bandwidth, query: xq });
    const setQuery = (x) => this.setAttribute('query', String(x));
    // Placed at the end, so the kept heatmaps and formula stay where they are.
    place(this.root, [
      el('h2', { text: t('pooling.heading') }),
      el('p', { class: 'intro', text: t('pooling.intro') }),
      this.#formulaNode(),
      controls,
      queryChart(t, { ...data, all, one }, xq, this.#drag, setQuery),
      this.#fitSection(lab, data, seed),
      ...this.#heatmaps(data, all, one, xq),
    ]);
  }

  #formulaNode() {
    this.#formula ??= el('div', { class: 'formula', part: 'formula' });
    renderTexCached(this.#formula, this.#formulaCache, formulaTex(this.bandwidth));
    this.#prepareFormulas();
    return this.#formula;
  }

  /**
   * While the page is idle, typeset the formula for the bandwidth slider's other values, nearest
   * first, so that moving the slider reuses typeset nodes: KaTeX took 3 of the 6 ms of script a
   * bandwidth change cost. A bandwidth off the slider's steps (the fit's) is typeset when shown.
   */
  #prepareFormulas() {
    if (typeof requestIdleCallback !== 'function' || this.#idle) return;
    const at = this.bandwidth;
    const work = [...BANDWIDTH_STEPS].sort((a, b) => Math.abs(a - at) - Math.abs(b - at)).map(formulaTex);
    const next = (deadline) => {
      this.#idle = 0;
      if (!this.isConnected) return;
      while (work.length && deadline.timeRemaining() > 8) {
        const tex = work.shift();
        if (this.#formulaCache.has(tex)) continue;
        const box = el('div');
        renderTex(box, tex);
        this.#formulaCache.set(tex, [...box.childNodes]);
      }
      if (work.length) this.#idle = requestIdleCallback(next);
    };
    this.#idle = requestIdleCallback(next);
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

  /** The query's weights over the training points, and every test point's. */
  #heatmaps({ xTrain, xTest }, all, one, xq) {
    const t = this.t;
    const trainLabels = Array.from(xTrain, fmt);
    const common = { t, colLabels: trainLabels, compact: true, pool: this.#pool };
    return [
      createHeatmap({ ...common, name: t('pooling.weightsOf', { x: fmt(xq) }), file: 'pooling-query-weights', matrix: one.weights, rowLabels: [`x=${fmt(xq)}`], slot: 'query' }).el,
      createHeatmap({ ...common, name: t('pooling.heatmap'), file: 'pooling-weights', matrix: all.weights, rowLabels: Array.from(xTest, fmt), slot: 'all' }).el,
    ];
  }
}

/** The Nadaraya-Watson formula with bandwidth `h` written in. */
function formulaTex(bandwidth) {
  const h = fmt(bandwidth);
  return String.raw`f(x) = \sum_{i=1}^{50} \alpha(x, x_i)\, y_i, \qquad \alpha(x, x_i) = \frac{K\big(\frac{x - x_i}{${h}}\big)}{\sum_{j} K\big(\frac{x - x_j}{${h}}\big)}`;
}
