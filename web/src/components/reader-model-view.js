// The heads panel's model view of the reader (weights="reader"): every layer × head of the chosen
// model at once, as BertViz's model view (layer rows, head columns), each a small heatmap of
// reader.attend's weights with the reader's pieces as its labels, captioned with what reader.heads
// measured of it (its label in the page's language, its score as a percent), the head chosen for
// the pronoun goal (reader.facts.pronounHead) marked; under the decoder's maps its most probable
// next pieces (reader.predict). The data comes from trained/reader-view.js (no DOM).
import { el } from '../dom.js';
import { markOneScale } from '../colors.js';
import { createHeatmap, place } from '../heatmap.js';
import { cancel, later, now } from '../scheduler.js';
import { TOP_K, captionParts, modelView, predictions } from '../trained/reader-view.js';

/** The panel's own rules for the grid (adopted by attention-heads.js). */
export const READER_VIEW_CSS = `
.reader-grid { display: grid; grid-template-columns: repeat(var(--_heads, 2), max-content); gap: 0.25rem; overflow-x: auto; max-width: 100%; }
.reader-map { min-width: 0; width: min-content; padding: 0.1rem; border: 2px solid transparent; border-radius: 0.3rem; }
.reader-map[data-pronoun] { border-color: var(--_hl, #d1008f); }
.reader-map figure.heatmap { margin: 0; width: min-content; min-width: 12rem; padding: 0 2px 2px; }
.reader-map .map-caption { margin: 0.2rem 0 0; font-size: 0.85rem; min-width: 12rem; }
.reader-map .pronoun-mark { display: block; font-weight: 600; }
.reader-predictions ol { margin: 0.25rem 0; padding-inline-start: 1.5rem; }
.reader-predictions li { display: list-item; }
.reader-predictions .piece { font-family: var(--_mono, monospace); white-space: pre; }
@media (max-width: 40rem) { .reader-grid { grid-template-columns: max-content; } }
`;

/**
 * The model view's nodes: the note on what is shown, the grid of maps and (decoder) the predictions.
 * `ui` is the caller's, kept between renders: { pool (heatmaps by slot), maps (each map's box by slot);
 * filled in here: views (the last view of each model), grid, near (nearness), predictions, predicted }.
 * Returns { nodes, view } (view: modelView's result, for the notes its caller shows).
 */
export function readerModelView({ t, language, reader, sentence, model, ui }) {
  const key = `${language}\u0000${model}\u0000${sentence}`;
  // The last view of each model is kept: switching back to the other model reads it again at no cost.
  ui.views ??= new Map();
  const kept = ui.views.get(model);
  const view = kept?.key === key && kept.reader === reader ? kept : { key, reader, ...modelView(reader, sentence, model) };
  ui.views.set(model, view);
  ui.grid ??= el('div', { class: 'reader-grid', part: 'heads', 'data-role': 'reader-grid' });
  ui.grid.style.setProperty('--_heads', String(view.heads));
  ui.grid.dataset.model = model;
  const { tokens, mask } = view;
  // One colour is one weight in every map (colors.js markOneScale: the maps are this view's own), so the maps compare at a glance.
  const shown = (view.shown ??= markOneScale(view.maps.map((m) => m.matrix), view.maps.map(() => mask)));
  const near = nearness(ui);
  const cells = view.maps.map((m, k) => {
    const slot = `${model} ${m.layer} ${m.head}`;
    const name = t('reader.mapName', { layer: m.layer + 1, head: m.head + 1 });
    let box = ui.maps.get(slot);
    if (!box) {
      box = el('div', { class: 'reader-map', 'data-layer': String(m.layer), 'data-head': String(m.head) }, el('p', { class: 'map-caption', 'data-role': 'map-caption' }));
      ui.maps.set(slot, box);
      near.observer?.observe(box);
    }
    const fill = () => place(box, [createHeatmap({ t, name, file: `reader-${model}-layer-${m.layer + 1}-head-${m.head + 1}`, matrix: shown[k], mask, maskedText: '0', rowLabels: tokens, colLabels: tokens, compact: true, exportable: false, pool: ui.pool, slot, base: 1 }).el, box.lastChild]);
    // A map known to be far from the viewport (a viewport above or below) is brought up to date when
    // the page is next idle, or when it comes near: at 128 pieces a map is 1,600 px tall, and the
    // other fifteen cost a keystroke 10–20 ms before its paint. A map not yet seen is filled now.
    // (A box that was not in the grid, the other model's until now, is filled now: its figure may be of another sentence.)
    if (near.far.has(box) && box.parentNode === ui.grid) later(box, fill);
    else {
      cancel(box);
      fill();
    }
    const caption = box.lastChild;
    const parts = captionParts(m.entry, m.layer, m.head, language);
    const text = t(m.entry ? 'reader.caption' : 'reader.captionNone', parts);
    if (m.pronoun) box.dataset.pronoun = '';
    else delete box.dataset.pronoun;
    caption.replaceChildren(...(m.pronoun ? [el('span', { class: 'pronoun-mark', 'data-role': 'pronoun-mark', text: t('reader.pronounHead') })] : []), text);
    return box;
  });
  place(ui.grid, cells);
  const nodes = [el('p', { class: 'note', 'data-role': 'reader-honest', text: t(`reader.view.${model}`, { layers: view.layers, heads: view.heads }) }), ui.grid];
  if (model === 'decoder') nodes.push(predictionBox(t, ui, reader, sentence, key));
  return { nodes, view };
}

/**
 * Which maps are far from the viewport (more than a viewport's height above or below it), as an
 * IntersectionObserver last reported them; a map that comes near has its waiting update run at once.
 */
function nearness(ui) {
  if (ui.near) return ui.near;
  const far = new WeakSet();
  const observer =
    typeof IntersectionObserver === 'function'
      ? new IntersectionObserver(
          (entries) => {
            for (const e of entries) {
              if (e.isIntersecting) {
                far.delete(e.target);
                now(e.target);
              } else far.add(e.target);
            }
          },
          { rootMargin: '100% 0px' },
        )
      : null;
  ui.near = { far, observer };
  return ui.near;
}

/**
 * The decoder's most probable next pieces, each with its probability: a second pass of the decoder
 * (reader.predict), run when the page is next idle (scheduler.js `later`, which the settled signal
 * waits for) so that the maps reach the screen first; the box is aria-busy until then.
 */
function predictionBox(t, ui, reader, sentence, key) {
  const box = (ui.predictions ??= el('div', { class: 'note reader-predictions', 'data-role': 'reader-predictions' }, el('p'), el('ol')));
  box.firstChild.textContent = t('reader.predictions', { count: TOP_K });
  const fill = (list) => box.lastChild.replaceChildren(...list.map((p) => el('li', { 'data-id': String(p.id), 'data-probability': String(p.probability) }, el('span', { class: 'piece', text: p.token }), ` ${t('reader.probability', { percent: p.percent })}`)));
  if (ui.predicted?.key === key && ui.predicted.reader === reader) {
    fill(ui.predicted.list);
    return box;
  }
  box.setAttribute('aria-busy', 'true');
  later(box, () => {
    ui.predicted = { key, reader, list: predictions(reader, sentence) };
    fill(ui.predicted.list);
    box.removeAttribute('aria-busy');
  });
  return box;
}
