// <attention-decoding>'s own settings (DOM-free): each attribute read as its row of the settings
// table says (config.js), and the model shapes offered as presets for the KV cache's memory.
import { PANEL_SETTINGS, panelSetting, settingValue } from '../../config.js';

/** The panel's number settings (their rows of PANEL_SETTINGS in config.js: bounds and defaults). */
export const DECODING_NUMBERS = PANEL_SETTINGS.filter((s) => s.panel === 'decoding' && (s.type === 'integer' || s.type === 'number'));

/** Attribute `name`'s value (a string or null) as used: clamped to its bounds, its default when absent or not a number. */
export function numberSetting(name, given) {
  return settingValue(panelSetting('decoding', name), given);
}

/**
 * Model shapes for the cache's memory: shaped like published models (their layer, head, key/value
 * head counts and head width), not the models themselves.
 */
export const PRESETS = [
  { id: 'llama2-7b', label: 'Llama 2 7B', layers: 32, heads: 32, kvHeads: 32, headDim: 128 },
  { id: 'llama3-8b', label: 'Llama 3 8B', layers: 32, heads: 32, kvHeads: 8, headDim: 128 },
  { id: 'falcon-7b', label: 'Falcon 7B', layers: 32, heads: 71, kvHeads: 1, headDim: 64 },
];
export const DEFAULT_SHAPE = PRESETS[1];
/** The shape fields in the order `kv-shape` lists them, with their bounds. */
export const SHAPE_FIELDS = [
  { key: 'layers', min: 1, max: 256 },
  { key: 'heads', min: 1, max: 256 },
  { key: 'kvHeads', min: 1, max: 256 },
  { key: 'headDim', min: 1, max: 1024 },
];

/**
 * `kv-shape` ("layers heads kvHeads headDim", e.g. "32 32 8 128") as used: each number clamped,
 * kvHeads at most heads and a divisor of it (the largest divisor not above the given count).
 * Missing or unreadable parts take the default shape's.
 */
export function shapeSetting(given) {
  const parts = String(given ?? '').trim().split(/[\s,;]+/);
  const shape = {};
  SHAPE_FIELDS.forEach(({ key, min, max }, k) => {
    const v = Math.round(Number(parts[k]));
    shape[key] = parts[k] !== undefined && parts[k] !== '' && Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : DEFAULT_SHAPE[key];
  });
  shape.kvHeads = largestDivisor(shape.heads, Math.min(shape.kvHeads, shape.heads));
  return shape;
}

/** The shape as `kv-shape` writes it. */
export const shapeText = (s) => `${s.layers} ${s.heads} ${s.kvHeads} ${s.headDim}`;

/** The preset with exactly this shape, or null. */
export const presetOf = (s) => PRESETS.find((p) => SHAPE_FIELDS.every(({ key }) => p[key] === s[key])) ?? null;

/** The largest divisor of n that is at most `atMost` (1 when none larger). */
export function largestDivisor(n, atMost) {
  for (let k = Math.max(1, Math.floor(atMost)); k > 1; k--) if (n % k === 0) return k;
  return 1;
}

/**
 * The three ways to share key/value heads for `heads` query heads: multi-head (every head its
 * own), grouped-query (the shape's own count when it lies strictly between, else the largest
 * divisor of heads up to 8 and below heads; null when heads has none, e.g. a prime) and
 * multi-query (one shared head).
 */
export function sharingVariants({ heads, kvHeads }) {
  const between = kvHeads > 1 && kvHeads < heads;
  const group = between ? kvHeads : largestDivisor(heads, Math.min(8, heads - 1));
  return [
    { id: 'mha', kvHeads: heads },
    { id: 'gqa', kvHeads: group > 1 ? group : null },
    { id: 'mqa', kvHeads: 1 },
  ];
}

/** Generated tokens shown: `decode-step` within 0 … n − prefill; prefill within 1 … n. */
export function decodeChoice(prefillGiven, stepGiven, n) {
  const prefill = Math.min(numberSetting('prefill', prefillGiven), n);
  const step = Math.min(numberSetting('decode-step', stepGiven), n - prefill);
  return { prefill, step, steps: n - prefill };
}
