// The settings, named once. Each table row gives a setting's attribute, URL key, property, type,
// bounds and default; the observed attributes, the normalisation and its out-of-range notes, the
// URL state and the explorer's controls are all derived from these tables (and components.d.ts
// is tested against them), so a new setting is one new row.
import { LIMITS, MAX_SENTENCE } from './limits.js';
import { tokenize } from './tokenize.js';

/** The default sentence in each language (used when no sentence is given). */
export const DEFAULT_SENTENCE = { en: 'the cat sat on the mat', 'zh-CN': '小猫坐在垫子上' };

/**
 * The input model's settings, shared by every element, in the order of their URL keys.
 * `min`/`max`: bounds (a number, or a function of LIMITS; a text's `max` is its length); `cap`: a further bound that depends on
 * another setting (`used(property)` gives that setting as used). A number out of its bounds is
 * clamped, a value that is not a number gives the default. `default`: a value, or one per language.
 * `help`: the control has a help line.
 */
export const CONFIG_FIELDS = [
  { attribute: 'sentence', key: 's', property: 'sentence', type: 'text', max: () => MAX_SENTENCE, default: DEFAULT_SENTENCE, help: true },
  { attribute: 'seed', key: 'seed', property: 'seed', type: 'integer', min: 0, max: 2 ** 31 - 1, default: 42 },
  { attribute: 'd-model', key: 'dm', property: 'dModel', type: 'integer', min: 1, max: (limits) => limits.maxDModel, default: 8 },
  // d_k ≤ 64 / h: 8 heads of 64 would make 32×512 queries and a 512×64 W_O, beyond the page's sizes.
  // Default d_k = d_model / h = 8 / 1 (d_k = d_v = d_model / h, as in Vaswani et al. and d2l): one
  // head is the first lesson, and its output is d_model wide without a W_O.
  { attribute: 'd-k', key: 'dk', property: 'dK', type: 'integer', min: 1, max: (limits) => limits.maxDk, cap: (limits, used) => Math.floor(limits.maxWidth / used('heads')), default: 8 },
  { attribute: 'heads', key: 'h', property: 'heads', type: 'integer', min: 1, max: (limits) => limits.maxHeads, default: 1 },
  { attribute: 'mask', key: 'mask', property: 'mask', type: 'choice', choices: ['none', 'causal', 'padding'], default: 'none', help: true },
  { attribute: 'valid-len', key: 'vl', property: 'validLen', type: 'integer', min: 0, max: (limits) => limits.maxTokens, default: 3 },
  // The author's tokens, one per row, shown as given ("didn't", ▁the, ##ing): a JSON array or separated by spaces (own-numbers.js).
  { attribute: 'tokens', key: 'tok', property: 'tokens', type: 'tokens', max: 16000, default: '', help: true },
];

/** The attributes of the input model, observed by every element. */
export const CONFIG_ATTRIBUTES = CONFIG_FIELDS.map((f) => f.attribute);

/**
 * How every element looks, not what it shows: no URL key (a link carries a view of the numbers,
 * while the colours are the reading page's and the reader's), no explorer control, not passed to
 * the explorer's panels (they inherit its colour scheme through CSS). `auto`: the page's colour scheme.
 */
export const LOOK_FIELDS = [{ attribute: 'theme', property: 'theme', type: 'choice', choices: ['auto', 'light', 'dark'], default: 'auto' }];

/**
 * The explorer's view in the URL: attributes of the explorer, each passed on to `panel` (and
 * `alsoPanels`) when it has one (`lang` is the page's language, set by the page rather than from the state).
 */
export const VIEW_FIELDS = [
  { property: 'step', key: 'step', attribute: 'step', panel: 'steps' },
  // The head the reader picked (the steps panel's picker) is also the head the backward panel follows.
  { property: 'head', key: 'head', attribute: 'head', panel: 'steps', alsoPanels: ['backward'] },
  { property: 'lang', key: 'lang' },
  { property: 'kernel', key: 'kernel', attribute: 'kernel', panel: 'pooling' },
  { property: 'bandwidth', key: 'bw', attribute: 'bandwidth', panel: 'pooling' },
  { property: 'panel', key: 'panel', attribute: 'panel' },
];

/**
 * The panels' own settings, kept in the explorer's state (and so in the URL) from the panels'
 * attributes. `written`/`applied`: the longest value written to the state and applied to the
 * panel; the panels check the values themselves. The source sentence has the sentence's limit:
 * written cut to MAX_SENTENCE (1,600) characters, applied up to 6,400 so the panel can say it was
 * cut (numbers here: this table is read when the module loads, before model.js may have).
 */
export const PANEL_SETTINGS = [
  { property: 'hiddenSize', key: 'hs', panel: 'compare', attribute: 'hidden-size', written: 16, applied: 16 },
  { property: 'query', key: 'q', panel: 'pooling', attribute: 'query', written: 16, applied: 16 },
  { property: 'source', key: 'src', panel: 'cross', attribute: 'source', written: 1600, applied: 6400 },
  { property: 'scoring', key: 'scoring', panel: 'cross', attribute: 'scoring', written: 16, applied: 16 },
  { property: 'validLens', key: 'vlens', panel: 'cross', attribute: 'valid-lens', written: 200, applied: 200 },
  { property: 'swap', key: 'swap', panel: 'positions', attribute: 'swap', written: 16, applied: 16 },
  { property: 'shift', key: 'shift', panel: 'positions', attribute: 'shift', written: 16, applied: 16 },
  { property: 'pair', key: 'pair', panel: 'positions', attribute: 'pair', written: 16, applied: 16 },
  { property: 'window', key: 'win', panel: 'cost', attribute: 'window', written: 16, applied: 16 },
  { property: 'linformerK', key: 'lk', panel: 'cost', attribute: 'linformer-k', written: 16, applied: 16 },
  { property: 'maxN', key: 'maxn', panel: 'cost', attribute: 'max-n', written: 16, applied: 16 },
  { property: 'positional', key: 'pos', panel: 'transformer', attribute: 'positional', written: 16, applied: 16 },
  { property: 'transformerStep', key: 'tstep', panel: 'transformer', attribute: 'step', written: 16, applied: 16 },
  { property: 'prefill', key: 'pre', panel: 'decoding', attribute: 'prefill', written: 16, applied: 16 },
  { property: 'decodeStep', key: 'dstep', panel: 'decoding', attribute: 'decode-step', written: 16, applied: 16 },
  { property: 'softcap', key: 'cap', panel: 'decoding', attribute: 'softcap', written: 16, applied: 16 },
  { property: 'slidingWindow', key: 'sw', panel: 'decoding', attribute: 'sliding-window', written: 16, applied: 16 },
  { property: 'alibiHeads', key: 'ah', panel: 'decoding', attribute: 'alibi-heads', written: 16, applied: 16 },
  { property: 'ropeBase', key: 'rb', panel: 'decoding', attribute: 'rope-base', written: 16, applied: 16 },
  { property: 'ropeShift', key: 'rs', panel: 'decoding', attribute: 'rope-shift', written: 16, applied: 16 },
  { property: 'context', key: 'ctx', panel: 'decoding', attribute: 'context', written: 16, applied: 16 },
  { property: 'kvShape', key: 'kvs', panel: 'decoding', attribute: 'kv-shape', written: 40, applied: 40 },
  { property: 'trainTask', key: 'task', panel: 'train', attribute: 'task', written: 16, applied: 16 },
  { property: 'trainLayers', key: 'tl', panel: 'train', attribute: 'layers', written: 16, applied: 16 },
  { property: 'trainHeads', key: 'th', panel: 'train', attribute: 'train-heads', written: 16, applied: 16 },
  { property: 'trainDModel', key: 'tdm', panel: 'train', attribute: 'train-d-model', written: 16, applied: 16 },
  { property: 'trainScoring', key: 'tsc', panel: 'train', attribute: 'scoring', written: 16, applied: 16 },
  { property: 'trainSeed', key: 'tseed', panel: 'train', attribute: 'train-seed', written: 16, applied: 16 },
  { property: 'trainCompare', key: 'tcmp', panel: 'train', attribute: 'compare', written: 16, applied: 16 },
  { property: 'backwardStep', key: 'bstep', panel: 'backward', attribute: 'step', written: 16, applied: 16 },
  { property: 'scoreScale', key: 'bsc', panel: 'backward', attribute: 'score-scale', written: 16, applied: 16 },
  { property: 'crossWeights', key: 'xw', panel: 'cross', attribute: 'weights', written: 16, applied: 16 },
  { property: 'crossDate', key: 'xdate', panel: 'cross', attribute: 'date', written: 64, applied: 64 },
  { property: 'stepsWeights', key: 'stw', panel: 'steps', attribute: 'weights', written: 16, applied: 16 },
  { property: 'headsWeights', key: 'hw', panel: 'heads', attribute: 'weights', written: 16, applied: 16 },
  { property: 'headsLayer', key: 'hl', panel: 'heads', attribute: 'layer', written: 16, applied: 16 },
  { property: 'transformerWeights', key: 'tw', panel: 'transformer', attribute: 'weights', written: 16, applied: 16 },
  { property: 'transformerLayer', key: 'tfl', panel: 'transformer', attribute: 'layer', written: 16, applied: 16 },
  { property: 'backwardWeights', key: 'bkw', panel: 'backward', attribute: 'weights', written: 16, applied: 16 },
  { property: 'backwardLayer', key: 'bkl', panel: 'backward', attribute: 'layer', written: 16, applied: 16 },
];

/**
 * The matrices a reader may type, in the URL's short form under `key`: `input` is their name in
 * an element's `inputs`, `shape(config)` their [rows, cols] (rows null: X takes 1 to maxTokens rows).
 * W_O is used only with more than one head.
 */
export const TYPED_MATRICES = [
  { input: 'X', key: 'x', label: 'X', shape: (c) => [null, c.dModel] },
  { input: 'Wq', key: 'wq', label: 'W_Q', shape: (c) => [c.dModel, c.heads * c.dK] },
  { input: 'Wk', key: 'wk', label: 'W_K', shape: (c) => [c.dModel, c.heads * c.dK] },
  { input: 'Wv', key: 'wv', label: 'W_V', shape: (c) => [c.dModel, c.heads * c.dK] },
  { input: 'Wo', key: 'wo', label: 'W_O', shape: (c) => [c.heads * c.dK, c.dModel] },
];

/** Every state field with its URL key, in the order a link writes them. Keys are in shared links: add, never rename. */
export const URL_KEYS = [...CONFIG_FIELDS, ...VIEW_FIELDS, ...PANEL_SETTINGS, ...TYPED_MATRICES.map((m) => ({ property: m.key, key: m.key }))].map(({ property, key }) => [property, key]);

/** A bound of a field: a number, or a function of LIMITS. */
export const bound = (value) => (typeof value === 'function' ? value(LIMITS) : value);

const isGiven = (v) => v !== undefined && v !== null && v !== '';
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/** A field's default in language `lang` (English when the field has none in that language). */
export const defaultOf = (field, lang = 'en') => (typeof field.default === 'object' ? (field.default[lang] ?? field.default.en) : field.default);

/** A field's value as used: `given` read as its type, kept in bounds; `used(p)` gives another field's. */
function useField(field, given, used, lang) {
  const fallback = defaultOf(field, lang);
  if (field.type === 'tokens') return String(given ?? '').slice(0, field.max);
  if (field.type === 'text') return String(isGiven(given) ? given : fallback).slice(0, bound(field.max));
  if (field.type === 'choice') return field.choices.includes(given) ? given : fallback;
  const hi = field.cap ? Math.min(bound(field.max), field.cap(LIMITS, used)) : bound(field.max);
  const v = Math.round(Number(isGiven(given) ? given : fallback));
  return clamp(Number.isFinite(v) ? v : fallback, field.min, hi);
}

/**
 * Every setting as used: defaults filled in (the sentence in language `lang`), numbers rounded and
 * clamped to the sizes the page supports, unknown choices replaced by the default.
 */
export function normalise(config = {}, lang = 'en') {
  const out = {};
  const used = (property) => {
    if (!(property in out)) out[property] = useField(FIELD_OF[property], config[property], used, lang);
    return out[property];
  };
  for (const f of CONFIG_FIELDS) used(f.property);
  const result = Object.fromEntries(CONFIG_FIELDS.map((f) => [f.property, out[f.property]]));
  GIVEN.set(result, new Set(CONFIG_FIELDS.filter((f) => isGiven(config[f.property])).map((f) => f.property)));
  return result;
}
// The settings given (not defaults) of each normalised config: an author's matrices fix a setting not given.
const GIVEN = new WeakMap();
/** The properties given (not filled in) when `config` was normalised, or undefined for any other object. */
export const givenFields = (config) => GIVEN.get(config);
const FIELD_OF = Object.fromEntries(CONFIG_FIELDS.map((f) => [f.property, f]));

/**
 * The settings `normalise` had to change, as { name (the attribute), given, used }: numbers out of
 * range or not numbers, an unknown choice; then a text cut to its first maxTokens tokens or
 * its `max` characters (with `unit`). Empty when everything was used as given.
 */
export function outOfRange(config = {}) {
  const c = normalise(config);
  const changed = [];
  for (const f of CONFIG_FIELDS) {
    const given = config[f.property];
    if (f.type === 'text' || f.type === 'tokens' || !isGiven(given)) continue;
    const same = f.type === 'choice' ? given === c[f.property] : Number(given) === c[f.property];
    if (!same) changed.push({ name: f.attribute, given: String(given), used: String(c[f.property]) });
  }
  for (const f of CONFIG_FIELDS.filter((field) => field.type === 'text')) {
    const text = String(config[f.property] ?? '');
    const count = tokenize(text, Infinity).length;
    if (count > LIMITS.maxTokens) changed.push({ name: f.attribute, given: `${count}`, used: `${LIMITS.maxTokens}`, unit: 'tokens' });
    else if (text.length > bound(f.max)) changed.push({ name: f.attribute, given: `${text.length}`, used: `${bound(f.max)}`, unit: 'characters' });
  }
  return changed;
}

/** The input model's settings as given to an element: { property: attribute value or undefined }. */
export function givenConfig(element) {
  return Object.fromEntries(CONFIG_FIELDS.map((f) => [f.property, element.getAttribute(f.attribute) ?? undefined]));
}

/** The settings as used for n tokens, the mask and n. */
export function withMask(c, n) {
  const validLen = Math.min(c.validLen, n);
  const mask = c.mask === 'causal' ? 'causal' : c.mask === 'padding' ? { validLens: validLen } : undefined;
  return { config: { ...c, validLen }, mask, n };
}
