// What <attention-cross> computes, apart from its DOM: the mask from `valid-lens` (one valid
// length per target row) or the shared mask settings, and one head of cross-attention with the
// library: Q = X_tgt W_Q, K = X_src W_K, V = X_src W_V and their scaled dot-product attention,
// or Bahdanau's additive attention of the target embeddings over the source embeddings.
import { MAX_SENTENCE } from '../../model.js';
import { firstColumns } from '../../first-columns.js';
import { randomMatrix } from '../../random.js';

/**
 * The source sentence when none is given: in the other language from the target's default, so the
 * panel reads as translation either way (a Chinese page's target is 小猫坐在垫子上, its source English).
 */
export const DEFAULT_SOURCE = '小猫坐在垫子上';
export const defaultSource = (lang) => (lang === 'zh-CN' ? 'the cat sat on the mat' : DEFAULT_SOURCE);
/** The source sentence is cut to this many characters. */
export const MAX_SOURCE = MAX_SENTENCE;
/** The hidden units d_h of additive scoring (h is the head count elsewhere). */
export const HIDDEN = 8;

/**
 * Per-row valid lengths from text ("2 3, 5"): one integer in [0, m] per target row.
 * Missing or unreadable entries mean "every source token" (m); extra entries are dropped.
 * Returns { lens, changed } where changed says the text was not used exactly as given.
 */
export function parseValidLens(text, n, m) {
  const parts = String(text ?? '').trim().split(/[\s,;]+/).filter(Boolean);
  const lens = [];
  let changed = parts.length !== n;
  for (let i = 0; i < n; i++) {
    const v = Number(parts[i]);
    if (i >= parts.length || !Number.isFinite(v)) {
      if (i < parts.length) changed = true;
      lens.push(m);
      continue;
    }
    const c = Math.min(m, Math.max(0, Math.round(v)));
    if (c !== v) changed = true;
    lens.push(c);
  }
  return { lens, changed };
}

/**
 * The mask of n target rows over m source tokens: { kind, mask, lens }. `kind` is 'rows' (the
 * `valid-lens` text, parsed into `lens`), 'padding' (the shared valid length, cut to m),
 * 'causal' (named, not applied: target and source positions do not line up) or 'none'.
 */
export function crossMask(config, lensText, n, m) {
  if (lensText !== null && lensText.trim() !== '') {
    const lens = parseValidLens(lensText, n, m);
    return { kind: 'rows', mask: { validLens: lens.lens }, lens };
  }
  if (config.mask === 'padding') return { kind: 'padding', mask: { validLens: Math.min(config.validLen, m) }, lens: null };
  return { kind: config.mask === 'causal' ? 'causal' : 'none', mask: undefined, lens: null };
}

/** The target rows every source token is masked from (their weights are all 0). */
export function fullyMaskedRows(masking, tokens) {
  const lens = masking.mask?.validLens;
  if (masking.kind === 'rows') return tokens.filter((_, i) => lens[i] === 0);
  return masking.kind === 'padding' && lens === 0 ? tokens : [];
}

/** Bahdanau's scoring weights for a seed: W_q, W_k (d×d_h, d_h = HIDDEN) and w_v (d_h). */
function additiveWeights(d, seed) {
  const scale = 1 / Math.sqrt(d);
  return { Wq: randomMatrix(d, HIDDEN, seed * 7 + 21, scale), Wk: randomMatrix(d, HIDDEN, seed * 7 + 22, scale), wv: randomMatrix(1, HIDDEN, seed * 7 + 23, 1).data };
}

/**
 * One head of cross-attention from the target's model to the source's, scored 'dot' or
 * 'additive', under `masking` (crossMask): { Q, K, V (dot only), result, self }, where self is
 * the target's self-attention weights with the same head, for contrast.
 */
export function crossAttention(lab, target, src, scoring, masking) {
  const { config } = target;
  const Wq = firstColumns(target.Wq, config.dK);
  const Wk = firstColumns(target.Wk, config.dK);
  const Wv = firstColumns(target.Wv, config.dK);
  const self = lab.selfAttention(target.X, { Wq, Wk, Wv, mask: config.mask === 'causal' ? 'causal' : undefined });
  if (scoring === 'additive') {
    // Decoder states (here the target embeddings) query encoder states (the source embeddings),
    // which are both the keys and the values.
    const result = lab.additiveAttention(target.X, src.X, src.X, { ...additiveWeights(config.dModel, config.seed), mask: masking.mask, trace: true });
    return { result, self };
  }
  const Q = lab.matmul(target.X, Wq);
  const K = lab.matmul(src.X, Wk);
  const V = lab.matmul(src.X, Wv);
  return { Q, K, V, result: lab.scaledDotProductAttention(Q, K, V, { mask: masking.mask, trace: true }), self };
}

/**
 * The formula for n target and m source tokens, width d and d_k, as TeX. Row vectors throughout
 * (as the library's trace): additive scores tanh(q_i W_q + k_j W_k) w_v, where q_i is target row i
 * (standing for the decoder state) and k_j = v_j source row j (the encoder state), d_h hidden units.
 */
export function crossTex(scoring, n, m, d, dk) {
  const shape = (a, b) => String.raw`\scriptstyle ${a}\times ${b}`;
  if (scoring === 'additive') {
    return String.raw`a(\mathbf q_i, \mathbf k_j) = \tanh(\mathbf q_i \underbrace{W_q}_{${shape(d, 'd_h')}} + \mathbf k_j \underbrace{W_k}_{${shape(d, 'd_h')}})\,\underbrace{\mathbf w_v}_{${shape('d_h', 1)}}, \quad d_h = ${HIDDEN}, \quad \underbrace{A}_{${shape(n, m)}} = \operatorname{softmax}(a), \quad \underbrace{O}_{${shape(n, d)}} = A\,\underbrace{X_{\text{src}}}_{${shape(m, d)}}`;
  }
  return String.raw`\underbrace{Q}_{${shape(n, dk)}} = X_{\text{tgt}} W_Q,\; \underbrace{K}_{${shape(m, dk)}} = X_{\text{src}} W_K,\; \underbrace{V}_{${shape(m, dk)}} = X_{\text{src}} W_V,\; \underbrace{A}_{${shape(n, m)}} = \operatorname{softmax}\Big(\frac{QK^{\top}}{\sqrt{d_k}}\Big),\; \underbrace{O}_{${shape(n, dk)}} = AV`;
}
