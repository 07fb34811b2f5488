// d_k = d_v = d_model / h: whether the settings keep it, and what follows when they do not.
// The steps and heads panels say it where the shapes are. No DOM here.

/** A ratio as shown: an integer, or two decimals (8 / 3 = 2.67). */
const shown = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/**
 * The string key and parameters of the d_k relation for `config` ({ dModel, dK, heads }); `withWo`:
 * whether the call maps the heads back through W_O (a single-head self-attention does not).
 * Keys: steps.dkHolds, steps.dkBreaks (the concat is h·d_k wide and W_O maps it back) or
 * steps.dkBreaksOne (one head, no W_O: the output is d_v wide).
 */
export function dkRelation({ dModel, dK, heads }, withWo = heads > 1) {
  const params = { dm: dModel, h: heads, dk: dK, ratio: shown(dModel / heads), width: heads * dK };
  if (heads * dK === dModel) return { holds: true, key: 'steps.dkHolds', params };
  return { holds: false, key: withWo ? 'steps.dkBreaks' : 'steps.dkBreaksOne', params };
}
