// <attention-heads>: every head's attention weights side by side, then the
// concatenated head outputs and the output after W_O, from one traced call.
import { AttentionElement } from '../base.js';
import { el } from '../dom.js';
import { createHeatmap, place } from '../heatmap.js';
import { buildModel } from '../model.js';
import { renderTexCached } from '../tex.js';

const dims = (n) => Array.from({ length: n }, (_, j) => `d${j}`);

export class AttentionHeads extends AttentionElement {
  static tag = 'attention-heads';

  render(lab) {
    const t = this.t;
    const model = buildModel(this.config(), this.inputs);
    const { X, Wq, Wk, Wv, Wo, mask, tokens, config } = model;
    const r = lab.multiHeadAttention(X, { heads: config.heads, Wq, Wk, Wv, Wo, mask, trace: true });
    const root = this.root;
    const pool = (this._pool ??= new Map());
    if (root.getAttribute('lang') !== this.language) root.setAttribute('lang', this.language);
    // Built as a list and placed at the end, so kept heatmaps stay where they are.
    const lang = this.language;
    const out = [this.keep('h2', lang, () => el('h2', { text: t('heads.heading') })), this.keep('intro', lang, () => el('p', { class: 'intro', text: t('heads.intro') }))];
    const formula = (this._formula ??= el('div', { class: 'formula', part: 'formula' }));
    renderTexCached(formula, (this._texCache ??= new Map()), `\\text{head}_i = \\operatorname{softmax}\\!\\Big(\\frac{Q_i K_i^{\\top}}{\\sqrt{d_k}}\\Big) V_i,\\quad O = \\operatorname{Concat}(\\text{head}_1,\\dots,\\text{head}_{${config.heads}})\\,W_O`);
    out.push(formula);
    if (config.heads === 1) out.push(this.keep('single', lang, () => el('p', { class: 'note', text: t('heads.single') })));
    const grid = (this._grid ??= el('div', { class: 'grid', part: 'heads' }));
    const figures = [];
    r.heads.forEach((head, k) => {
      const weights = head.steps.find((s) => s.id === 'weights').matrix;
      const masked = head.steps.find((s) => s.id === 'masked')?.mask;
      const h = createHeatmap({ t, name: `${t('heads.head', { h: k + 1 })} · ${t('step.weights')}`, file: `head-${k + 1}-weights`, matrix: weights, mask: masked, maskedText: '0', rowLabels: tokens, colLabels: tokens, compact: tokens.length > 8, tex: head.steps.find((s) => s.id === 'weights').formula, pool, slot: `head-${k}` });
      h.el.dataset.head = String(k);
      figures.push(h.el);
    });
    place(grid, figures);
    out.push(grid);
    const concat = r.steps.find((s) => s.id === 'concat');
    const output = r.steps.find((s) => s.id === 'output');
    const row = (this._row ??= el('div', { class: 'grid' }));
    place(row, [
      createHeatmap({ t, name: t('heads.concat'), file: 'concat', matrix: concat.matrix, rowLabels: tokens, colLabels: dims(concat.matrix.cols), tex: concat.formula, pool, slot: 'concat' }).el,
      createHeatmap({ t, name: t('heads.output'), file: 'output', matrix: output.matrix, rowLabels: tokens, colLabels: dims(output.matrix.cols), tex: output.formula, pool, slot: 'output' }).el,
    ]);
    out.push(row);
    place(root, out);
  }
}
