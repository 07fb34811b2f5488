// <attention-decoding>'s KV-cache memory section: an editable model shape (presets shaped like
// published models) and a context length, and the cache's bytes with MHA, GQA and MQA side by
// side (memory-model.js, from lab.kvCacheBytes). The form is kept between renders; every field
// writes the host's `kv-shape` or `context` attribute.
import { el } from '../../dom.js';
import { grouped } from '../../format.js';
import { fieldset, settingField } from './controls.js';
import { bytesText, headGroups, memoryRows } from './memory-model.js';
import { PRESETS, SHAPE_FIELDS, presetOf, shapeText } from './settings.js';

export class MemorySection {
  #host;
  #ui = null;

  /** `host`: the <attention-decoding> whose `kv-shape` and `context` attributes the form sets. */
  constructor(host) {
    this.#host = host;
  }

  build(lab, t, shape, tokens) {
    const heading = el('h3', { text: t('decoding.memoryHeading') });
    const intro = el('p', { class: 'intro', text: t('decoding.memoryIntro') });
    const ui = this.#sync(t, shape, tokens);
    const rows = memoryRows(lab, shape, tokens);
    return [heading, intro, ui.form, el('div', { class: 'table-scroll' }, this.#table(t, rows, shape, tokens)), el('p', { class: 'note', text: t('decoding.memoryNote') }), this.#groups(t, shape)];
  }

  /**
   * The shape's grouping drawn: one box per key/value head holding a cell per query head that reads
   * it (a long list shows its first and last groups and says how many are left out), and the rule.
   */
  #groups(t, { heads, kvHeads }) {
    const groups = headGroups(heads, kvHeads);
    const size = heads / kvHeads;
    const range = (g) => (g.from === g.to ? String(g.from) : `${g.from}–${g.to}`);
    const box = (g) =>
      el('div', { class: g.kv % 2 ? 'kv-group' : 'kv-group even', 'data-kv': String(g.kv), 'data-from': String(g.from), 'data-to': String(g.to) },
        el('div', { class: 'kv-queries' }, ...Array.from({ length: g.to - g.from + 1 }, (_, k) => el('span', { class: 'kv-query', 'data-q': String(g.from + k), title: t('decoding.groupQuery', { q: g.from + k, g: g.kv }), text: String(g.from + k) }))),
        el('div', { class: 'kv-head', text: t('decoding.groupKv', { g: g.kv }) }));
    const MAX = 12;
    const shown = groups.length <= MAX ? groups.map(box) : [...groups.slice(0, MAX - 2).map(box), el('div', { class: 'kv-more', 'data-role': 'groups-more', text: t('decoding.groupsMore', { count: groups.length - MAX + 1, size }) }), box(groups[groups.length - 1])];
    const last = groups[groups.length - 1];
    return el('figure', { class: 'kv-groups', 'data-role': 'groups', 'data-heads': String(heads), 'data-kv-heads': String(kvHeads) },
      el('figcaption', { text: t('decoding.groupsCaption', { heads, kvHeads }) }),
      el('div', { class: 'kv-strip' }, ...shown),
      el('p', { class: 'note', 'data-role': 'groups-text', text: kvHeads === 1 ? t('decoding.groupsOne', { heads }) : kvHeads === heads ? t('decoding.groupsEach') : t('decoding.groupsText', { size, first: range(groups[0]), last: range(last), kvHeads, heads }) }));
  }

  #table(t, rows, shape, tokens) {
    const table = el('table', { class: 'stats', 'data-role': 'memory' });
    table.append(el('caption', { text: t('decoding.memoryCaption', { layers: shape.layers, heads: shape.heads, d: shape.headDim, tokens: grouped(tokens) }) }));
    const head = el('tr', {}, ...['memSharing', 'memKvHeads', 'memPerToken', 'memTotal', 'memRatio'].map((k) => el('th', { scope: 'col', text: t(`decoding.${k}`) })));
    const body = el('tbody');
    for (const r of rows) {
      const name = t(`decoding.${r.id}`) + (r.own ? t('decoding.memOwn') : '');
      const cells = r.kvHeads === null ? [el('td', { colspan: '4', text: t('decoding.memNoGqa', { heads: shape.heads }) })] : [
        el('td', { class: 'num', text: String(r.kvHeads) }),
        el('td', { class: 'num', 'data-value': String(r.perToken), text: bytesText(r.perToken) }),
        el('td', { class: 'num', 'data-value': String(r.total), text: bytesText(r.total) }),
        el('td', { class: 'num', 'data-value': String(r.ratio), text: `${Number(r.ratio.toPrecision(3))}×` }),
      ];
      body.append(el('tr', { 'data-sharing': r.id }, el('th', { scope: 'row', text: name }), ...cells));
    }
    table.append(el('thead', {}, head), body);
    return table;
  }

  /** The kept form: the preset select and the shape's four numbers, the context length. */
  #sync(t, shape, tokens) {
    const ui = (this.#ui ??= this.#build());
    ui.legend.textContent = t('decoding.memoryControls');
    ui.presetLabel.textContent = t('decoding.preset');
    const preset = presetOf(shape);
    if (ui.presetLang !== this.#host.language) {
      ui.presetLang = this.#host.language;
      ui.preset.replaceChildren(...PRESETS.map((p) => el('option', { value: p.id, text: t('decoding.shapedLike', { name: p.label }) })), el('option', { value: 'custom', text: t('decoding.customShape') }));
    }
    ui.preset.value = preset ? preset.id : 'custom';
    for (const { key, min, max } of SHAPE_FIELDS) ui.fields[key].sync({ text: t(`decoding.shape.${key}`), min, max, value: shape[key] });
    ui.context.sync({ text: t('decoding.contextTokens'), min: 1, max: 1048576, value: tokens });
    ui.shape = shape;
    return ui;
  }

  #build() {
    const host = this.#host;
    const ui = { legend: el('legend'), presetLabel: el('label', { for: 'kv-preset' }), preset: el('select', { id: 'kv-preset', 'data-key': 'kv-preset' }), fields: {} };
    const write = (shape) => {
      host.setAttribute('kv-shape', shapeText(shape));
      host.emitSettings();
    };
    ui.preset.addEventListener('change', () => {
      const p = PRESETS.find((x) => x.id === ui.preset.value);
      if (p) write(p);
    });
    for (const { key } of SHAPE_FIELDS) {
      const input = el('input', { type: 'number', id: `kv-${key}`, 'data-key': `kv-${key}`, step: '1' });
      const label = el('label', { for: input.id });
      input.addEventListener('change', () => write({ ...ui.shape, [key]: Number(input.value) }));
      const sync = ({ text, min, max, value }) => {
        label.textContent = text;
        [input.min, input.max] = [String(min), String(max)];
        // A number being typed stays until it is committed (change).
        if (host.shadowRoot.activeElement !== input) input.value = String(value);
      };
      ui.fields[key] = { field: el('div', { class: 'field' }, label, input), sync };
    }
    ui.context = settingField(host, 'context', { type: 'number' });
    ui.form = fieldset(ui.legend, [{ field: el('div', { class: 'field' }, ui.presetLabel, ui.preset) }, ...SHAPE_FIELDS.map(({ key }) => ui.fields[key]), ui.context]);
    return ui;
  }
}
