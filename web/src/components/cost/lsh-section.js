// The long-sequences panel's Reformer section: one round of angular LSH on the reader's sentence
// (lsh.js): the bucket of each token, the weights heatmap with the pairs outside a token's bucket
// hatched and exactly 0, how many query–key pairs were scored of n², and what Reformer adds
// beyond one round (in words only).
import { el } from '../../dom.js';
import { createHeatmap, place } from '../../heatmap.js';
import { renderTexCached } from '../../tex.js';
import { LSH_BUCKETS, lshResults } from './lsh.js';
import { fmt } from './sentence.js';

const HASH = String.raw`\operatorname{bucket}(x) = \operatorname*{arg\,max}_{c \,\in\, \{0,\dots,b-1\}} \big[\, \hat{x}R \,;\, -\hat{x}R \,\big]_c, \qquad \hat{x} = x / \lVert x \rVert,\quad R \in \mathbb{R}^{d_k \times b/2}`;

/** The section, kept between renders (its heatmap with it). */
export class LshSection {
  #parts = null;
  #pool = new Map();
  #texCache = new Map();

  /** The section's node for this render, from the sentence results (sentence.js) and the model's settings. */
  section(lab, t, results, model) {
    const { seed, mask } = model.config;
    const causal = mask === 'causal';
    const r = lshResults(lab, results, { seed, causal });
    this.#parts ??= {
      box: el('section', { 'data-role': 'lsh' }),
      heading: el('h3'),
      intro: el('p', { class: 'intro' }),
      formula: el('div', { class: 'formula', part: 'formula' }),
    };
    const p = this.#parts;
    p.heading.textContent = t('cost.lshHeading');
    p.intro.textContent = t('cost.lshIntro', { b: r.buckets, seed });
    renderTexCached(p.formula, this.#texCache, HASH);
    const heat = createHeatmap({ base: 1, t, name: t('cost.lsh', { b: r.buckets }), file: 'cost-lsh-weights', matrix: r.weights, mask: r.mask, maskedText: '0', rowLabels: model.tokens, colLabels: model.tokens, compact: r.n > 8, pool: this.#pool, slot: 'lsh', defer: true });
    heat.el.dataset.matrix = 'lsh';
    const { dk, dv, n } = results;
    const notes = [
      el('p', { class: 'note', 'data-role': 'lsh-cost', text: t('cost.lshCost', { scored: fmt(r.scored), all: fmt(n * n), macs: fmt(r.scored * (dk + dv)), hash: fmt((n * dk * r.buckets) / 2) }) }),
      ...(causal ? [el('p', { class: 'note', text: t('cost.lshCausal') })] : []),
      el('p', { class: 'note', text: t('cost.lshMore') }),
    ];
    place(p.box, [p.heading, p.intro, p.formula, el('div', { class: 'scroll' }, bucketTable(t, r, model.tokens)), el('div', { class: 'cost-cell' }, heat.el), ...notes]);
    return p.box;
  }
}

/** A 1×n table: each token over its bucket, the bucket also as a colour (bucket-0 … bucket-3). */
function bucketTable(t, r, tokens) {
  const head = el('tr', {}, el('th', { scope: 'col', text: t('cost.lshToken') }), ...tokens.map((token, i) => el('th', { scope: 'col', text: `${i + 1} ${token}` }))); // positions from 1, as the page counts
  const cells = Array.from(r.bucket, (b, i) => el('td', { class: `bucket bucket-${b % LSH_BUCKETS}`, 'data-i': String(i), 'data-bucket': String(b), text: String(b) }));
  const row = el('tr', {}, el('th', { scope: 'row', text: t('cost.lshBucket') }), ...cells);
  const caption = el('caption', { text: t('cost.lshCaption', { b: r.buckets }) });
  return el('table', { class: 'stats lsh-table', part: 'stats', 'data-role': 'lsh-buckets' }, caption, el('thead', {}, head), el('tbody', {}, row));
}
