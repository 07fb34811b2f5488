// <attention-positions>'s relative-position section: for the reader's offset δ and frequency
// pair j, the 2×2 rotation R (built from δ and ω_j, rotation.js) applied to P_i at two positions
// gives the library's P_{i+δ}, up to float32 rounding, and a pointer to RoPE (the decoding panel), the
// same rotation applied to queries and keys. Controls built once and kept (a new input
// would drop the reader's focus); the host's `shift` and `pair` attributes hold the choice.
import { el } from '../../dom.js';
import { renderTexCached } from '../../tex.js';
import { SHIFT_MAX, pairCount, rotationCheck } from './rotation.js';

const fixed = (v) => v.toFixed(6).replace('-', '−');
const tiny = (v) => (v === 0 ? '0' : v.toExponential(1).replace('-', '−'));
const pairText = ([a, b]) => `(${fixed(a)}, ${fixed(b)})`;
const texNum = (v) => v.toFixed(4);

/** The formula with the live numbers: R for this δ and ω_j, and what it maps. */
function rotationTex({ delta, pair, omega, R }, d) {
  const w = pair === 0 ? '1' : `10000^{-${2 * pair}/${d}} = ${Number(omega.toPrecision(4))}`;
  return String.raw`\begin{pmatrix} P_{i+\delta,\,2j} \\ P_{i+\delta,\,2j+1} \end{pmatrix} = \underbrace{\begin{pmatrix} \cos\delta\omega_j & \sin\delta\omega_j \\ -\sin\delta\omega_j & \cos\delta\omega_j \end{pmatrix}}_{R_{\delta,j}} \begin{pmatrix} P_{i,\,2j} \\ P_{i,\,2j+1} \end{pmatrix},\qquad \delta = ${delta},\ j = ${pair},\ \omega_{${pair}} = ${w}:\ R_{${delta},${pair}} = \begin{pmatrix} ${texNum(R[0][0])} & ${texNum(R[0][1])} \\ ${texNum(R[1][0])} & ${texNum(R[1][1])} \end{pmatrix}`;
}

export class RotationSection {
  #host;
  #ui = null;
  #texCache = new Map();

  /** `host`: the <attention-positions> whose `shift` and `pair` attributes the controls set. */
  constructor(host) {
    this.#host = host;
  }

  /** The section's nodes for P (the chart's 64 rows, from the library) and the choice { delta, pair }. */
  build(t, P, choice) {
    const heading = el('h3', { text: t('positions.rotation') });
    const d = P.cols;
    if (pairCount(d) === 0) return [heading, el('p', { class: 'note', 'data-role': 'rotation-none', text: t('positions.rotationNone') })];
    const check = rotationCheck(P, choice.delta, choice.pair);
    const ui = this.#sync(t, d, check);
    renderTexCached(ui.formula, this.#texCache, rotationTex(check, d));
    const out = [heading, el('p', { class: 'intro', text: t('positions.rotationIntro') }), ui.form, ui.formula, el('div', { class: 'table-scroll' }, this.#table(t, check))];
    out.push(el('p', { class: 'note', 'data-role': 'rotation-summary', text: t('positions.rotationSummary', { delta: check.delta, pairs: check.pairs, e: tiny(check.worst), i: check.rows.map((r) => r.i).join(t('positions.and')) }) }));
    if (d % 2) out.push(el('p', { class: 'note', text: t('positions.rotationOdd', { d, pairs: check.pairs }) }));
    out.push(el('p', { class: 'why', 'data-role': 'rotation-direction', text: t('positions.rotationDirection') }));
    out.push(el('div', { class: 'why', 'data-role': 'rotation-rope' }, el('p', { text: t('positions.rotationRope') }), ...this.#decodingLink(t)));
    return out;
  }

  /** A button to the explorer's panel on today's models (RoPE), when this panel sits in an explorer that has it. */
  #decodingLink(t) {
    const explorer = this.#host.getRootNode()?.host;
    if (!explorer || typeof explorer.selectPanel !== 'function' || !explorer.panels?.decoding) return [];
    return [el('button', { type: 'button', part: 'button', 'data-key': 'open-decoding', text: t('positions.openDecoding'), onclick: () => explorer.selectPanel('decoding') })];
  }

  /** Each position: P_i's pair j, R P_i, the library's P_{i+δ}, their difference in pair j and in all pairs. */
  #table(t, check) {
    const { delta, pair } = check;
    const table = el('table', { class: 'stats', 'data-role': 'rotation' });
    table.append(el('caption', { text: t('positions.rotationCaption', { delta, pair, c0: 2 * pair, c1: 2 * pair + 1 }) }));
    const head = el('tr');
    for (const k of ['rotI', 'rotBefore', 'rotRotated', 'rotAfter', 'rotError', 'rotAll']) head.append(el('th', { scope: 'col', text: t(`positions.${k}`, { delta }) }));
    const body = el('tbody');
    for (const r of check.rows) {
      const cell = (text, value, key) => el('td', { class: 'num', text, 'data-key': key, 'data-value': value.join(' ') });
      body.append(el('tr', {}, el('th', { scope: 'row', text: String(r.i) }), cell(pairText(r.before), r.before, 'before'), cell(pairText(r.rotated), r.rotated, 'rotated'), cell(pairText(r.after), r.after, 'after'), cell(tiny(r.error), [r.error], 'error'), cell(tiny(r.allPairs), [r.allPairs], 'all')));
    }
    table.append(el('thead', {}, head), body);
    return table;
  }

  /** The δ input and pair select, kept; their labels, bounds and values follow t, d and the check. */
  #sync(t, d, { delta, pair }) {
    const ui = (this.#ui ??= this.#buildControls());
    ui.legend.textContent = t('positions.rotationControls');
    ui.shiftLabel.textContent = t('positions.shift', { max: SHIFT_MAX });
    ui.pairLabel.textContent = t('positions.pair');
    const pairs = pairCount(d);
    if (ui.pair.options.length !== pairs || ui.pairsLang !== this.#host.language) {
      ui.pairsLang = this.#host.language;
      ui.pair.replaceChildren(...Array.from({ length: pairs }, (_, j) => el('option', { value: String(j), text: t('positions.pairOption', { j, c0: 2 * j, c1: 2 * j + 1 }) })));
    }
    if (ui.pair.value !== String(pair)) ui.pair.value = String(pair);
    if (ui.shift.value !== String(delta) && this.#host.shadowRoot.activeElement !== ui.shift) ui.shift.value = String(delta);
    return ui;
  }

  #buildControls() {
    const host = this.#host;
    const set = (name, value) => {
      host.setAttribute(name, value);
      host.emit('attention-positions', { swap: host.getAttribute('swap'), shift: host.getAttribute('shift'), pair: host.getAttribute('pair') });
    };
    const shift = el('input', { type: 'number', id: 'shift', 'data-key': 'shift', min: '1', max: String(SHIFT_MAX), step: '1' });
    shift.addEventListener('change', () => set('shift', shift.value));
    const pair = el('select', { id: 'pair', 'data-key': 'pair' });
    pair.addEventListener('change', () => set('pair', pair.value));
    const [shiftLabel, pairLabel, legend] = [el('label', { for: 'shift' }), el('label', { for: 'pair' }), el('legend')];
    const form = el('fieldset', { class: 'controls', part: 'controls' }, legend, el('div', { class: 'field' }, shiftLabel, shift), el('div', { class: 'field' }, pairLabel, pair));
    const formula = el('div', { class: 'formula', part: 'formula', 'data-role': 'rotation-formula' });
    return { form, shift, pair, shiftLabel, pairLabel, legend, formula };
  }
}
