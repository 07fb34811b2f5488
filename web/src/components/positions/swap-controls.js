// <attention-positions>'s fieldset choosing the two tokens to swap. Built once and kept (a new
// select would drop the reader's focus); its options are rebuilt only when the tokens change.
import { el } from '../../dom.js';

export class SwapControls {
  #host;
  #ui = null;
  /** The tokens the options were built for (joined), so they are rebuilt only when these change. */
  #optionsFor = null;

  /** `host`: the <attention-positions> whose `swap` attribute the selects set. */
  constructor(host) {
    this.#host = host;
  }

  /** The fieldset, its selects offering `tokens` and showing positions i and j, its labels in `t`'s language. */
  sync(t, tokens, i, j) {
    const ui = (this.#ui ??= this.#build());
    ui.labels.legend.textContent = t('positions.swap');
    ui.labels.i.textContent = t('positions.swapFirst');
    ui.labels.j.textContent = t('positions.swapSecond');
    const optionsFor = tokens.join('\u0000');
    const rebuild = this.#optionsFor !== optionsFor;
    this.#optionsFor = optionsFor;
    for (const [select, value] of [
      [ui.first, i],
      [ui.second, j],
    ]) {
      if (rebuild) select.replaceChildren(...tokens.map((tok, k) => el('option', { value: String(k), text: `${k}: ${tok}` })));
      if (select.value !== String(value)) select.value = String(value);
    }
    return ui.form;
  }

  #build() {
    const host = this.#host;
    const make = (id) => {
      const select = el('select', { id, 'data-key': id });
      select.addEventListener('change', () => {
        host.setAttribute('swap', `${first.value} ${second.value}`);
        host.emit('attention-positions', { swap: host.getAttribute('swap'), shift: host.getAttribute('shift'), pair: host.getAttribute('pair') });
      });
      return select;
    };
    const first = make('swap-i');
    const second = make('swap-j');
    const labels = { i: el('label', { for: 'swap-i' }), j: el('label', { for: 'swap-j' }), legend: el('legend') };
    const form = el('fieldset', { class: 'controls', part: 'controls' }, labels.legend, el('div', { class: 'field' }, labels.i, first), el('div', { class: 'field' }, labels.j, second));
    return { form, first, second, labels };
  }
}
