// The explorer's controls, built from the tables in config.js: one control per setting of the
// input model, a box for each matrix typed by hand, and the tabs with their panels. Labels carry
// data-i18n, so a change of language rewrites them in place.
import { CONFIG_FIELDS, TYPED_MATRICES, bound, usedBy } from '../config.js';
import { el } from '../dom.js';
import { LIMITS, parseMatrixText } from '../model.js';
import { encodeMatrixText } from '../state.js';

/** The control of one setting: a text box, a list of choices, or a whole number within bounds. */
function controlOf(field, t) {
  if (field.type === 'text' || field.type === 'tokens') return el('input', { type: 'text', maxlength: String(bound(field.max)), style: 'width: min(26rem, 80vw)', spellcheck: 'false' });
  if (field.type === 'choice')
    return el('select', {}, ...field.choices.map((m) => el('option', { value: m, 'data-i18n': `${field.property}.${m}`, text: t(`${field.property}.${m}`) })));
  return el('input', { type: 'number', min: String(field.min), max: String(bound(field.max)), step: '1', inputmode: 'numeric', style: 'width: 6.5rem' });
}

/**
 * The form of the input model's settings: for each, a labelled control with id `in-<attribute>`
 * (and a help line when the field has one). The sentence stays in view; the others are folded in
 * a closed "Settings" details (`fold`), whose summary says their values, with the typed matrices'
 * details appended there by the explorer. `onInput(attribute, value)` follows every valid edit.
 * Returns { form, fold, summary, fields: { attribute: its field }, controls: { attribute: control } }.
 */
export function settingsForm(t, onInput) {
  const summary = el('span', { class: 'muted', 'data-role': 'settings-values' });
  const fold = el('details', { class: 'settings', part: 'settings' }, el('summary', {}, el('span', { 'data-i18n': 'explorer.settings', text: t('explorer.settings') }), ' ', summary));
  const folded = el('div', { class: 'controls' });
  fold.append(folded);
  const form = el('form', { class: 'controls', part: 'controls', onsubmit: (e) => e.preventDefault() });
  const controls = {};
  const fields = {};
  for (const field of CONFIG_FIELDS) {
    const key = field.attribute;
    const id = `in-${key}`;
    const label = `input.${field.property}`;
    const control = controlOf(field, t);
    control.id = id;
    control.dataset.key = key;
    const wrap = el('div', { class: 'field', 'data-setting': key }, el('label', { for: id, 'data-i18n': label, text: t(label) }), control);
    if (field.help) {
      const help = el('small', { class: 'muted', id: `${id}-help`, 'data-i18n': `${label}Help`, text: t(`${label}Help`) });
      control.setAttribute('aria-describedby', help.id);
      wrap.append(help);
    }
    control.addEventListener(control.tagName === 'SELECT' ? 'change' : 'input', () => {
      if (control.type === 'number' && (control.value === '' || !control.checkValidity())) return;
      onInput(key, control.value);
    });
    (key === 'sentence' ? form : folded).append(wrap);
    controls[key] = control;
    fields[key] = wrap;
  }
  form.append(fold);
  return { form, fold, summary, fields, controls };
}

/**
 * Which of the input model's settings change what panel `id` shows: those whose `usedBy` lists it,
 * and with trained weights (`trained`) only the sentence the model reads (the dates model reads a
 * date of its own: none). The explorer shows only these.
 */
export function settingsShown(id, trained) {
  if (trained) return id === 'cross' ? [] : CONFIG_FIELDS.filter((f) => f.attribute === 'sentence' && usedBy(f).includes(id)).map((f) => f.attribute);
  return CONFIG_FIELDS.filter((f) => usedBy(f).includes(id)).map((f) => f.attribute);
}

/**
 * The boxes for matrices typed by hand (X, then the weights in a grid), in a closed <details>.
 * `texts` fills them; `onInput(key, text)` follows every edit; `currentT()` is the translator of
 * the element's language now. Returns { details, boxes: { key: { area, status, label, box } },
 * show() }; labels and statuses are written by checkTyped.
 *
 * The boxes join the details when it first opens, or when one of them holds text (a link's
 * matrices; `show()`): a closed details' content is still restyled and laid out after a language
 * switch (Chromium's autofill looks at every form control after the language menu changes), which
 * cost the first switch to Chinese 1–10 ms for these 29 elements.
 */
export function typedBoxes(t, texts, onInput, currentT) {
  const details = el('details', { part: 'custom-x' }, el('summary', { 'data-i18n': 'input.custom', text: t('input.custom') }));
  const weights = el('div', { class: 'typed-grid' });
  const content = [];
  const boxes = {};
  for (const { key, label: name } of TYPED_MATRICES) {
    const id = `in-${key}`;
    const isX = key === 'x';
    const area = el('textarea', { id, 'data-key': isX ? 'custom-x' : `custom-${key}`, rows: isX ? '4' : '3', spellcheck: 'false', 'aria-describedby': `${isX ? 'in-x-help' : 'in-w-help'} ${id}-status` });
    area.value = texts[key] ?? '';
    area.addEventListener('input', () => onInput(key, area.value));
    const label = el('label', { for: id, class: 'matrix-label' });
    const status = el('p', { id: `${id}-status`, class: 'note', 'aria-live': 'polite' });
    const box = el('div', { class: 'typed', 'data-matrix': name }, label, area);
    if (isX) box.append(el('small', { id: 'in-x-help', class: 'muted', 'data-i18n': 'input.customXHelp' }));
    box.append(status);
    if (isX) content.push(box, el('small', { id: 'in-w-help', class: 'muted', 'data-i18n': 'input.customWHelp' }), weights);
    else weights.append(box);
    boxes[key] = { area, status, label, box };
  }
  const show = () => {
    if (details.contains(weights)) return;
    const tr = currentT();
    for (const part of content) for (const node of [part, ...part.querySelectorAll('[data-i18n]')]) if (node.dataset.i18n) node.textContent = tr(node.dataset.i18n);
    details.append(...content);
  };
  details.addEventListener('toggle', () => details.open && show());
  if (Object.values(texts).some((text) => text)) show();
  return { details, boxes, show };
}

/**
 * Checks each typed matrix against the sizes of `config`, says in its status whether it is used
 * (or what it should be), and hides W_O with one head. Returns { used: { X, Wq, … }, signature }:
 * the used matrices and a key that changes only when they do.
 */
export function checkTyped(t, config, texts, boxes) {
  const used = {};
  const key = [];
  for (const { input, key: field, label, shape } of TYPED_MATRICES) {
    const [rows, cols] = shape(config);
    const text = texts[field] ?? '';
    const active = input !== 'Wo' || config.heads > 1;
    const { box, label: labelEl, status } = boxes[field];
    box.hidden = !active;
    labelEl.textContent = `${label} (${rows ?? 'n'}×${cols})`;
    const m = active && text.trim() ? parseMatrixText(text) : null;
    if (!active || !text.trim()) status.textContent = '';
    else if (input === 'X' && m && m.cols === cols && m.rows <= LIMITS.maxTokens) {
      used.X = m;
      status.textContent = t('input.customXUsed', { rows: m.rows, cols: m.cols });
    } else if (input === 'X') status.textContent = t('input.customXBad', { rows: 1, cols });
    else if (m && m.rows === rows && m.cols === cols) {
      used[input] = m;
      status.textContent = t('input.customWUsed', { name: label, rows, cols });
    } else status.textContent = t('input.customWBad', { rows, cols });
    if (used[input]) key.push(`${input}:${encodeMatrixText(text)}`);
  }
  return { used, signature: key.join('|') };
}

/**
 * The tab list and one panel element per `{ id, tag }` of `panels` (panels.js), roles, ids and parts set;
 * `onSelect(id, focus)` follows a click (focus false) or an arrow, Home or End key (focus true).
 * Returns { tablist, tabs: { id: button }, elements: { id: panel } }.
 */
export function panelTabs(t, panels, onSelect) {
  const tablist = el('div', { role: 'tablist', part: 'panel-tabs', 'aria-label': t('app.panels') });
  const tabs = {};
  const elements = {};
  const ids = panels.map(({ id }) => id);
  for (const { id, tag } of panels) {
    const tab = el('button', { type: 'button', role: 'tab', id: `ptab-${id}`, 'data-key': `ptab-${id}`, 'aria-controls': `panel-${id}`, 'data-i18n': `tab.${id}`, text: t(`tab.${id}`) });
    tab.addEventListener('click', () => onSelect(id, false));
    tab.addEventListener('keydown', (e) => {
      const at = ids.indexOf(id);
      const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: ids.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      onSelect(ids[(to + ids.length) % ids.length], true);
    });
    tablist.append(tab);
    tabs[id] = tab;
    const panel = document.createElement(tag);
    panel.id = `panel-${id}`;
    panel.setAttribute('role', 'tabpanel');
    panel.setAttribute('aria-labelledby', `ptab-${id}`);
    panel.setAttribute('part', `panel panel-${id}`);
    elements[id] = panel;
  }
  return { tablist, tabs, elements };
}
