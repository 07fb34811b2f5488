// <attention-backward>'s saturation box: the score-scale slider (the factor c of c/√d_k), the size
// of dS at the chosen factor, and a table of the same input at every factor. Built once and kept
// (a reader dragging the slider keeps it); each render writes the values and labels.
import { el } from '../../dom.js';
import { SCALE_FACTORS } from './backward-model.js';

const num = (x) => String(Number(x.toPrecision(3)));

export class SaturationBox {
  #host;
  #ui = null;

  /** `host`: the <attention-backward> whose `score-scale` the slider sets. */
  constructor(host) {
    this.#host = host;
  }

  /** The box for this render: `c` = { factor, pass: { scale, dS, saturation }, sweep }. */
  sync(t, { factor, pass, sweep }) {
    const ui = (this.#ui ??= this.#build());
    const at = SCALE_FACTORS.indexOf(factor);
    if (ui.slider.value !== String(at)) ui.slider.value = String(at);
    const value = t('backward.factorValue', { c: factor, scale: num(pass.scale) });
    ui.slider.setAttribute('aria-valuetext', value);
    ui.heading.textContent = t('backward.saturation');
    ui.label.textContent = t('backward.factor');
    ui.value.textContent = value;
    ui.help.textContent = t('backward.factorHelp');
    ui.readout.textContent = t('backward.readout', { c: factor, norm: num(pass.dS.norm), max: num(pass.dS.maxAbs), sat: num(pass.saturation) });
    ui.readout.dataset.norm = String(pass.dS.norm);
    ui.readout.dataset.max = String(pass.dS.maxAbs);
    ui.table.replaceChildren(...this.#table(t, factor, sweep));
    return ui.box;
  }

  #build() {
    const host = this.#host;
    const slider = el('input', { type: 'range', id: 'score-scale', 'data-key': 'score-scale', min: '0', max: String(SCALE_FACTORS.length - 1), step: '1', 'aria-describedby': 'score-scale-help' });
    slider.addEventListener('input', () => {
      host.scoreScale = SCALE_FACTORS[Number(slider.value)];
      host.changed();
    });
    const ui = {
      slider,
      heading: el('h3'),
      label: el('label', { for: 'score-scale' }),
      value: el('output', { for: 'score-scale', 'data-role': 'factor' }),
      help: el('small', { class: 'muted', id: 'score-scale-help' }),
      readout: el('p', { class: 'readout-line', 'data-role': 'saturation', 'aria-live': 'polite' }),
      table: el('table', { class: 'stats', 'data-role': 'sweep' }),
    };
    ui.box = el(
      'section',
      { class: 'saturation', part: 'saturation' },
      ui.heading,
      el('div', { class: 'field' }, ui.label, slider, ui.value, ui.help),
      ui.readout,
      el('div', { class: 'table-scroll' }, ui.table),
    );
    return ui;
  }

  /** Caption, header row and one row per factor (the chosen one marked). */
  #table(t, factor, sweep) {
    const head = el('tr', {}, ...['c', 'scale', 'sat', 'norm', 'max'].map((k) => el('th', { scope: 'col', text: t(`backward.sweep.${k}`) })));
    const rows = sweep.map((r) =>
      el(
        'tr',
        { class: r.factor === factor ? 'current' : '', 'data-factor': String(r.factor), ...(r.factor === factor ? { 'aria-current': 'true' } : {}) },
        el('th', { scope: 'row', text: String(r.factor) }),
        ...[r.scale, r.saturation, r.norm, r.maxAbs].map((x) => el('td', { class: 'num', text: num(x), 'data-value': String(x) })),
      ),
    );
    return [el('caption', { text: t('backward.sweep') }), el('thead', {}, head), el('tbody', {}, ...rows)];
  }
}
