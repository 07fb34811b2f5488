// <attention-pooling>'s kernel choice and bandwidth and query sliders. Built once and kept (a
// reader may be dragging a slider: a new one would end the drag); each render writes the values
// and labels, and a change sets the host's attribute.
import { el } from '../../dom.js';
import { KERNELS, fmt } from './settings.js';

/** The bandwidth slider's values: 0.05 to 3 in steps of 0.05. */
export const BANDWIDTH_STEPS = Array.from({ length: 60 }, (_, k) => Number(((k + 1) * 0.05).toFixed(2)));

export class PoolingControls {
  #host;
  #ui = null;
  /** The language the kernel options are in, so they are rebuilt only when it changes. */
  #optionsLang = null;

  /** `host`: the <attention-pooling> whose attributes the fields set. */
  constructor(host) {
    this.#host = host;
  }

  /** The controls, showing `values` ({ kernel, bandwidth, query }), labelled in `t`'s language (`lang`). */
  sync(t, lang, { kernel, bandwidth, query }) {
    const ui = (this.#ui ??= this.#build());
    if (this.#optionsLang !== lang) {
      ui.kernel.replaceChildren(...KERNELS.map((k) => el('option', { value: k, text: t(`kernel.${k}`) })));
      this.#optionsLang = lang;
    }
    const sync = (input, value) => input.value !== value && (input.value = value);
    sync(ui.kernel, kernel);
    sync(ui.bw, String(bandwidth));
    sync(ui.q, String(query));
    const text = (node, value) => node.textContent !== value && (node.textContent = value);
    text(ui.labels.kernel, t('pooling.kernel'));
    text(ui.labels.bw, `${t('pooling.bandwidth')}: ${fmt(bandwidth)}`);
    text(ui.labels.q, `${t('pooling.query')}: ${fmt(query)}`);
    text(ui.labels.help, t('pooling.queryHelp'));
    return ui.box;
  }

  #build() {
    const host = this.#host;
    const kernel = el('select', { id: 'kernel', 'data-key': 'kernel' });
    kernel.addEventListener('change', () => {
      host.setAttribute('kernel', kernel.value);
      host.changed();
    });
    const bw = el('input', { type: 'range', id: 'bandwidth', 'data-key': 'bandwidth', min: String(BANDWIDTH_STEPS[0]), max: String(BANDWIDTH_STEPS.at(-1)), step: '0.05' });
    bw.addEventListener('input', () => {
      host.setAttribute('bandwidth', bw.value);
      host.changed();
    });
    const q = el('input', { type: 'range', id: 'query', 'data-key': 'query', min: '0', max: '5', step: '0.05', 'aria-describedby': 'query-help' });
    q.addEventListener('input', () => host.setAttribute('query', q.value));
    const labels = { kernel: el('label', { for: 'kernel' }), bw: el('label', { for: 'bandwidth' }), q: el('label', { for: 'query' }), help: el('small', { id: 'query-help', class: 'muted' }) };
    const box = el('div', { class: 'controls' }, el('div', { class: 'field' }, labels.kernel, kernel), el('div', { class: 'field' }, labels.bw, bw), el('div', { class: 'field' }, labels.q, q, labels.help));
    return { box, kernel, bw, q, labels };
  }
}
