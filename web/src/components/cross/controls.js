// <attention-cross>'s form: the weights (random or the trained dates model); with random weights
// the source sentence, the scoring and the per-row valid lengths, with trained ones the date.
// Built once and kept (a reader may be typing: a new field would lose the caret); each render
// writes the values and labels, and a change sets the host's attribute.
import { el } from '../../dom.js';
import { MAX_SOURCE } from './cross-model.js';

export class CrossControls {
  #host;
  #ui = null;

  /** `host`: the <attention-cross> whose attributes the fields set. */
  constructor(host) {
    this.#host = host;
  }

  /** The form, its fields showing `values` ({ weights, source, scoring, lens, date }) except the one being typed in, its labels in `t`'s language. */
  sync(t, values) {
    const ui = (this.#ui ??= this.#build());
    const active = this.#host.shadowRoot.activeElement;
    if (active !== ui.source) ui.source.value = values.source;
    if (active !== ui.lens) ui.lens.value = values.lens;
    if (active !== ui.date) ui.date.value = values.date;
    ui.scoring.value = values.scoring;
    ui.weights.value = values.weights;
    const trained = values.weights === 'trained';
    for (const field of ui.randomFields) field.hidden = trained;
    ui.dateField.hidden = !trained;
    ui.labels.weights.textContent = t('cross.weightsChoice');
    ui.weights.options[0].textContent = t('cross.weights.random');
    ui.weights.options[1].textContent = t('cross.weights.trained');
    ui.labels.date.textContent = t('cross.date');
    ui.labels.dateHelp.textContent = t('cross.dateHelp');
    ui.labels.source.textContent = t('cross.source');
    ui.labels.sourceHelp.textContent = t('cross.sourceHelp');
    ui.labels.scoring.textContent = t('cross.scoring');
    ui.scoring.options[0].textContent = t('cross.scoring.dot');
    ui.scoring.options[1].textContent = t('cross.scoring.additive');
    ui.labels.lens.textContent = t('cross.validLens');
    ui.labels.lensHelp.textContent = t('cross.validLensHelp');
    return ui.form;
  }

  #build() {
    const host = this.#host;
    const changed = () => host.emit('attention-cross', { source: host.source, scoring: host.scoring, weights: host.weights, date: host.date });
    const source = el('input', { type: 'text', id: 'source', 'data-key': 'source', maxlength: String(MAX_SOURCE), spellcheck: 'false', 'aria-describedby': 'source-help' });
    source.addEventListener('input', () => {
      host.setAttribute('source', source.value);
      changed();
    });
    const scoring = el('select', { id: 'scoring', 'data-key': 'scoring' }, el('option', { value: 'dot' }), el('option', { value: 'additive' }));
    scoring.addEventListener('change', () => {
      host.setAttribute('scoring', scoring.value);
      changed();
    });
    const lens = el('input', { type: 'text', id: 'valid-lens', 'data-key': 'valid-lens', inputmode: 'numeric', spellcheck: 'false', 'aria-describedby': 'valid-lens-help', placeholder: '2 3 7 …' });
    lens.addEventListener('input', () => host.setAttribute('valid-lens', lens.value));
    const weights = el('select', { id: 'weights', 'data-key': 'weights' }, el('option', { value: 'random' }), el('option', { value: 'trained' }));
    weights.addEventListener('change', () => {
      host.setAttribute('weights', weights.value);
      changed();
    });
    const date = el('input', { type: 'text', id: 'date', 'data-key': 'date', maxlength: '64', spellcheck: 'false', 'aria-describedby': 'date-help' });
    date.addEventListener('input', () => {
      host.setAttribute('date', date.value);
      changed();
    });
    const labels = {
      weights: el('label', { for: 'weights' }),
      date: el('label', { for: 'date' }),
      dateHelp: el('small', { class: 'muted', id: 'date-help' }),
      source: el('label', { for: 'source' }),
      sourceHelp: el('small', { class: 'muted', id: 'source-help' }),
      scoring: el('label', { for: 'scoring' }),
      lens: el('label', { for: 'valid-lens' }),
      lensHelp: el('small', { class: 'muted', id: 'valid-lens-help' }),
    };
    const randomFields = [
      el('div', { class: 'field' }, labels.source, source, labels.sourceHelp),
      el('div', { class: 'field' }, labels.scoring, scoring),
      el('div', { class: 'field' }, labels.lens, lens, labels.lensHelp),
    ];
    const dateField = el('div', { class: 'field' }, labels.date, date, labels.dateHelp);
    const form = el('form', { class: 'controls', part: 'controls', onsubmit: (e) => e.preventDefault() }, el('div', { class: 'field' }, labels.weights, weights), dateField, ...randomFields);
    return { form, source, scoring, lens, weights, date, dateField, randomFields, labels };
  }
}
