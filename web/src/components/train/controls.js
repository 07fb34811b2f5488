// <attention-train>'s form: task, layers, heads, d_model, cross-attention scoring and seed (each
// sets the host's attribute), and the Train / Pause / Reset buttons. Built once and kept; each
// sync writes the values, labels and which buttons apply.
import { el } from '../../dom.js';
import { BOUNDS, COMPARES, HEADS, SCORINGS, TRAIN_TASKS } from './settings.js';

function numberField(id, [min, max]) {
  return el('input', { type: 'number', id, 'data-key': id, min: String(min), max: String(max), step: '1', inputmode: 'numeric' });
}

export class TrainControls {
  #host;
  #ui = null;

  /** `host`: the <attention-train>; `actions`: { train, pause, reset } called by the buttons. */
  constructor(host, actions) {
    this.#host = host;
    this.actions = actions;
  }

  /** The form showing `s` (the settings as used) and `state` (the session's), in `t`'s language. */
  sync(t, s, state) {
    const ui = (this.#ui ??= this.#build());
    const active = this.#host.shadowRoot.activeElement;
    ui.task.value = s.task;
    TRAIN_TASKS.forEach((name, i) => (ui.task.options[i].textContent = t(`train.task.${name}`)));
    for (const [key, value] of [['layers', s.layers], ['train-d-model', s.dModel], ['train-seed', s.seed]]) if (active !== ui[key]) ui[key].value = String(value);
    ui['train-d-model'].step = String(s.heads);
    ui['train-heads'].value = String(s.heads);
    ui.scoring.value = s.scoring;
    SCORINGS.forEach((name, i) => (ui.scoring.options[i].textContent = t(`train.scoring.${name}`)));
    ui.scoring.disabled = !s.seq2seq;
    // Unscaled is chosen here, under cross-attention scoring, but it applies to every attention of the model.
    ui.labels.scoringHelp.textContent = !s.seq2seq ? t('train.scoringNone') : s.scoring === 'unscaled' ? t('train.unscaledNote') : '';
    ui.compare.value = s.compareAsked;
    COMPARES.forEach((name, i) => (ui.compare.options[i].textContent = t(`train.compare.${name || 'none'}`)));
    ui.scoring.disabled ||= Boolean(s.compareAsked);
    if (s.compareAsked && s.seq2seq) ui.labels.scoringHelp.textContent = t('train.scoringCompared');
    for (const key of ['compare', 'task', 'layers', 'layersHelp', 'heads', 'dModel', 'dModelHelp', 'scoring', 'seed']) ui.labels[key].textContent = t(`train.${key}`);
    const busy = state === 'running' || state === 'loading' || state === 'pausing';
    ui.train.textContent = t(state === 'paused' || state === 'reached' || state === 'stopped' ? 'train.continue' : 'train.train');
    ui.pause.textContent = t('train.pause');
    ui.reset.textContent = t('train.reset');
    // compare="scoring" on a decoder-only task: nothing to train (the panel says why).
    ui.train.disabled = busy || (Boolean(s.compareAsked) && !s.compare);
    ui.pause.disabled = state !== 'running' && state !== 'loading';
    ui.reset.disabled = state === 'idle';
    return ui.form;
  }

  #build() {
    const host = this.#host;
    const task = el('select', { id: 'task', 'data-key': 'task' }, ...TRAIN_TASKS.map((name) => el('option', { value: name })));
    const heads = el('select', { id: 'train-heads', 'data-key': 'train-heads' }, ...HEADS.map((h) => el('option', { value: String(h), text: String(h) })));
    const scoring = el('select', { id: 'scoring', 'data-key': 'scoring', 'aria-describedby': 'scoring-help' }, ...SCORINGS.map((name) => el('option', { value: name })));
    const compare = el('select', { id: 'compare', 'data-key': 'compare' }, ...COMPARES.map((name) => el('option', { value: name })));
    const ui = { compare, task, layers: numberField('layers', BOUNDS.layers), 'train-heads': heads, 'train-d-model': numberField('train-d-model', BOUNDS.dModel), scoring, 'train-seed': numberField('train-seed', BOUNDS.seed) };
    ui.layers.setAttribute('aria-describedby', 'layers-help');
    ui['train-d-model'].setAttribute('aria-describedby', 'd-model-help');
    for (const [name, node] of Object.entries(ui)) node.addEventListener('change', () => host.setAttribute(name, node.value));
    const button = (key, part, onclick) => el('button', { type: 'button', 'data-key': key, part, onclick });
    ui.train = button('train', 'train-button', () => this.actions.train());
    ui.pause = button('pause', 'pause-button', () => this.actions.pause());
    ui.reset = button('reset', 'reset-button', () => this.actions.reset());
    const label = (id) => el('label', { for: id });
    const help = (id) => el('small', { class: 'muted', id });
    ui.labels = {
      task: label('task'), layers: label('layers'), layersHelp: help('layers-help'), heads: label('train-heads'), dModel: label('train-d-model'),
      dModelHelp: help('d-model-help'), compare: label('compare'), scoring: label('scoring'), scoringHelp: help('scoring-help'), seed: label('train-seed'),
    };
    const L = ui.labels;
    ui.form = el(
      'form',
      { class: 'controls', part: 'controls', onsubmit: (e) => e.preventDefault() },
      el('div', { class: 'field' }, L.task, task),
      el('div', { class: 'field' }, L.layers, ui.layers, L.layersHelp),
      el('div', { class: 'field' }, L.heads, heads),
      el('div', { class: 'field' }, L.dModel, ui['train-d-model'], L.dModelHelp),
      el('div', { class: 'field' }, L.scoring, scoring, L.scoringHelp),
      el('div', { class: 'field' }, L.seed, ui['train-seed']),
      el('div', { class: 'field' }, L.compare, compare),
      el('div', { class: 'field buttons' }, ui.train, ui.pause, ui.reset),
    );
    return ui;
  }
}
