// The settings, named once. Each table row gives a setting's attribute, URL key, property, type,
// bounds and default; the observed attributes, the normalisation and its out-of-range notes, the
// URL state and the explorer's controls are all derived from these tables (and components.d.ts
// is tested against them), so a new setting is one new row.
import { LIMITS, MAX_SENTENCE } from './limits.js';
import { PANELS } from './panels.js';
import { tokenize } from './tokenize.js';

const ALL = PANELS.map((p) => p.id);
const ALL_BUT = (...ids) => ALL.filter((id) => !ids.includes(id));
const MASKED = ['steps', 'compare', 'heads', 'cross', 'cost', 'transformer', 'backward'];

/** The default sentence in each language (used when no sentence is given). */
export const DEFAULT_SENTENCE = { en: 'the cat sat on the mat', 'zh-CN': '小猫坐在垫子上' };

/**
 * The input model's settings, shared by every element, in the order of their URL keys.
 * `min`/`max`: bounds (a number, or a function of LIMITS; a text's `max` is its length); `cap`: a further bound that depends on
 * another setting (`used(property)` gives that setting as used). A number out of its bounds is
 * clamped, a value that is not a number gives the default. `default`: a value, or one per language.
 * `help`: the control has a help line. `usedBy`: the panels whose numbers it changes (every element
 * observes every one of these; docs/embedding.md's attribute table lists the same panels).
 */
export const CONFIG_FIELDS = [
  { attribute: 'sentence', key: 's', property: 'sentence', type: 'text', max: () => MAX_SENTENCE, default: DEFAULT_SENTENCE, help: true, usedBy: ALL_BUT('pooling', 'scaling') },
  { attribute: 'seed', key: 'seed', property: 'seed', type: 'integer', min: 0, max: 2 ** 31 - 1, default: 42, usedBy: ALL },
  { attribute: 'd-model', key: 'dm', property: 'dModel', type: 'integer', min: 1, max: (limits) => limits.maxDModel, default: 8, usedBy: ALL_BUT('pooling', 'scaling') },
  // d_k ≤ 64 / h: 8 heads of 64 would make 32×512 queries and a 512×64 W_O, beyond the page's sizes.
  // Default d_k = d_model / h = 8 / 1 (d_k = d_v = d_model / h, as in Vaswani et al. and d2l): one
  // head is the first lesson, and its output is d_model wide without a W_O.
  { attribute: 'd-k', key: 'dk', property: 'dK', type: 'integer', min: 1, max: (limits) => limits.maxDk, cap: (limits, used) => Math.floor(limits.maxWidth / used('heads')), default: 8, usedBy: ALL_BUT('pooling', 'scaling') },
  { attribute: 'heads', key: 'h', property: 'heads', type: 'integer', min: 1, max: (limits) => limits.maxHeads, default: 1, usedBy: ALL_BUT('pooling', 'scaling') }, // h · d_k columns of seeded W_Q, W_K, W_V: every panel on the seeded model
  { attribute: 'mask', key: 'mask', property: 'mask', type: 'choice', choices: ['none', 'causal', 'padding'], default: 'none', help: true, usedBy: MASKED },
  { attribute: 'valid-len', key: 'vl', property: 'validLen', type: 'integer', min: 0, max: (limits) => limits.maxTokens, default: 3, usedBy: MASKED },
  // The author's tokens, one per row, shown as given ("didn't", ▁the, ##ing): a JSON array or separated by spaces (own-numbers.js).
  { attribute: 'tokens', key: 'tok', property: 'tokens', type: 'tokens', max: 16000, default: '', help: true, usedBy: ALL_BUT('pooling', 'scaling') },
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
 * attributes. `panel`: the panel whose attribute it is (its row in panels.js). `type`, `min`/`max`
 * or `choices`, `default`: what the attribute takes; `settingValue` reads them (a number clamped,
 * rounded when an integer, the default when absent or not a number; a choice or its default), and
 * runs a rule that needs only the value (`snap`, `nearest`); `rule` says in words what is done beyond
 * a clamp, by settingValue or, when it needs the sentence, model or task, by the panel (the docs' attribute table and
 * components.d.ts follow this table: tests/js/panel-settings.test.js). `default: null`: it depends
 * on something else (`rule`). `written`/`applied`: the longest value written to the state and
 * applied to the panel. The source sentence has the sentence's limit: written cut to MAX_SENTENCE
 * (1,600) characters, applied up to 6,400 so the panel can say it was cut (numbers here: this table
 * is read when the module loads).
 */
const WEIGHTS = { type: 'choice', choices: ['random', 'trained'], default: 'random' };
// 'reader': the encoder and decoder trained on real text (lab.loadReader), for the panels that show them.
const READER_WEIGHTS = { ...WEIGHTS, choices: [...WEIGHTS.choices, 'reader'] };
const READER_MODEL = { type: 'choice', choices: ['encoder', 'decoder'], default: 'encoder', rule: 'weights="reader" only' };
const LAYER = { type: 'integer', min: 0, max: 1, default: 0, rule: 'kept within the trained model\'s layers' };
// A panel that offers the reader too: its layers up to the reader's (4 in each model), kept within the model shown.
const READER_LAYER = { ...LAYER, max: 7 };
const short = { written: 16, applied: 16 };
export const PANEL_SETTINGS = [
  { property: 'hiddenSize', key: 'hs', panel: 'compare', attribute: 'hidden-size', type: 'integer', min: 1, max: 64, default: 8, rule: '0 or not a number gives the default', snap: (v, row) => (v === 0 ? row.default : clamp(v, row.min, row.max)), ...short },
  { property: 'query', key: 'q', panel: 'pooling', attribute: 'query', type: 'number', min: 0, max: 5, default: 2.5, rule: 'out of range gives the default', snap: (v, row) => (v >= row.min && v <= row.max ? v : row.default), ...short },
  { property: 'source', key: 'src', panel: 'cross', attribute: 'source', type: 'text', default: null, rule: 'the other language\'s default sentence', written: 1600, applied: 6400 },
  { property: 'scoring', key: 'scoring', panel: 'cross', attribute: 'scoring', type: 'choice', choices: ['dot', 'additive'], default: 'dot', ...short },
  { property: 'validLens', key: 'vlens', panel: 'cross', attribute: 'valid-lens', type: 'list', default: null, rule: 'one length per target row; absent: the shared mask', written: 200, applied: 200 },
  { property: 'swap', key: 'swap', panel: 'positions', attribute: 'swap', type: 'list', default: '1 2', rule: 'two positions within the sentence', ...short },
  { property: 'shift', key: 'shift', panel: 'positions', attribute: 'shift', type: 'integer', min: 1, max: 32, default: 3, ...short },
  { property: 'pair', key: 'pair', panel: 'positions', attribute: 'pair', type: 'integer', min: 0, max: 31, default: 0, rule: 'at most d_model / 2 − 1', ...short },
  { property: 'window', key: 'win', panel: 'cost', attribute: 'window', type: 'integer', min: 1, max: 32, default: 2, ...short },
  { property: 'linformerK', key: 'lk', panel: 'cost', attribute: 'linformer-k', type: 'integer', min: 1, max: 32, default: 3, ...short },
  { property: 'maxN', key: 'maxn', panel: 'cost', attribute: 'max-n', type: 'integer', min: 64, max: 4096, default: 4096, rule: 'the nearest power of two', snap: (v, row) => 2 ** Math.round(Math.log2(clamp(v, row.min, row.max))), ...short },
  { property: 'positional', key: 'pos', panel: 'transformer', attribute: 'positional', type: 'flag', default: false, ...short },
  { property: 'transformerStep', key: 'tstep', panel: 'transformer', attribute: 'step', type: 'choice', choices: ['X', 'attention', 'residual1', 'norm1', 'hidden', 'ffn', 'residual2', 'output'], default: 'X', ...short },
  { property: 'prefill', key: 'pre', panel: 'decoding', attribute: 'prefill', type: 'integer', min: 1, max: 127, default: 3, rule: 'at most n − 1', ...short },
  { property: 'decodeStep', key: 'dstep', panel: 'decoding', attribute: 'decode-step', type: 'integer', min: 0, max: 127, default: 1, rule: 'at most n − prefill', ...short },
  { property: 'softcap', key: 'cap', panel: 'decoding', attribute: 'softcap', type: 'number', min: 0.1, max: 50, default: 0.5, ...short },
  { property: 'slidingWindow', key: 'sw', panel: 'decoding', attribute: 'sliding-window', type: 'integer', min: 1, max: 128, default: 3, rule: 'at most n', ...short },
  { property: 'alibiHeads', key: 'ah', panel: 'decoding', attribute: 'alibi-heads', type: 'integer', min: 1, max: 8, default: 4, ...short },
  { property: 'ropeBase', key: 'rb', panel: 'decoding', attribute: 'rope-base', type: 'number', min: 2, max: 1e6, default: 10000, ...short },
  { property: 'ropeShift', key: 'rs', panel: 'decoding', attribute: 'rope-shift', type: 'integer', min: 0, max: 64, default: 5, ...short },
  { property: 'context', key: 'ctx', panel: 'decoding', attribute: 'context', type: 'integer', min: 1, max: 1048576, default: 4096, ...short },
  { property: 'kvShape', key: 'kvs', panel: 'decoding', attribute: 'kv-shape', type: 'list', default: '32 32 8 128', rule: 'layers heads kvHeads headDim', written: 40, applied: 40 },
  { property: 'trainTask', key: 'task', panel: 'train', attribute: 'task', type: 'choice', choices: ['reverse', 'dates', 'grammar', 'repeat'], default: 'reverse', ...short },
  { property: 'trainLayers', key: 'tl', panel: 'train', attribute: 'layers', type: 'integer', min: 1, max: 3, default: null, rule: 'the task\'s', ...short },
  { property: 'trainHeads', key: 'th', panel: 'train', attribute: 'train-heads', type: 'choice', choices: [1, 2, 4, 8], default: null, rule: 'the task\'s; another number: the largest of these below it', ...short },
  { property: 'trainDModel', key: 'tdm', panel: 'train', attribute: 'train-d-model', type: 'integer', min: 8, max: 128, default: null, rule: 'the task\'s; a multiple of the heads', ...short },
  { property: 'trainScoring', key: 'tsc', panel: 'train', attribute: 'scoring', type: 'choice', choices: ['dot', 'additive', 'unscaled'], default: 'dot', rule: 'seq2seq tasks only', ...short },
  { property: 'trainSeed', key: 'tseed', panel: 'train', attribute: 'train-seed', type: 'integer', min: 0, max: 2 ** 31 - 1, default: 1, ...short },
  { property: 'trainCompare', key: 'tcmp', panel: 'train', attribute: 'compare', type: 'choice', choices: ['', 'scaling', 'scoring'], default: '', ...short },
  { property: 'backwardStep', key: 'bstep', panel: 'backward', attribute: 'step', type: 'choice', choices: ['S', 'P', 'O', 'dO', 'dV', 'dP', 'dS', 'dQ', 'dK'], default: 'S', ...short },
  { property: 'scoreScale', key: 'bsc', panel: 'backward', attribute: 'score-scale', type: 'choice', choices: [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128], default: 1, rule: 'another number: the nearest of these', nearest: true, ...short },
  { property: 'crossWeights', key: 'xw', panel: 'cross', attribute: 'weights', ...WEIGHTS, ...short },
  { property: 'crossDate', key: 'xdate', panel: 'cross', attribute: 'date', type: 'text', max: 64, default: null, rule: 'an example date in the page\'s language', written: 64, applied: 64 },
  { property: 'stepsWeights', key: 'stw', panel: 'steps', attribute: 'weights', ...READER_WEIGHTS, ...short },
  { property: 'headsWeights', key: 'hw', panel: 'heads', attribute: 'weights', ...READER_WEIGHTS, ...short },
  { property: 'headsLayer', key: 'hl', panel: 'heads', attribute: 'layer', ...LAYER, ...short },
  { property: 'transformerWeights', key: 'tw', panel: 'transformer', attribute: 'weights', ...READER_WEIGHTS, ...short },
  { property: 'transformerLayer', key: 'tfl', panel: 'transformer', attribute: 'layer', ...READER_LAYER, ...short },
  { property: 'backwardWeights', key: 'bkw', panel: 'backward', attribute: 'weights', ...READER_WEIGHTS, ...short },
  { property: 'backwardLayer', key: 'bkl', panel: 'backward', attribute: 'layer', ...READER_LAYER, ...short },
  { property: 'headsReaderModel', key: 'hrm', panel: 'heads', attribute: 'reader-model', ...READER_MODEL, ...short },
  { property: 'stepsReaderModel', key: 'srm', panel: 'steps', attribute: 'reader-model', ...READER_MODEL, ...short },
  { property: 'stepsLayer', key: 'sl', panel: 'steps', attribute: 'layer', type: 'integer', min: 0, max: 7, default: 0, rule: 'weights="reader" only; kept within the reader model\'s layers', ...short },
  { property: 'transformerReaderModel', key: 'trm', panel: 'transformer', attribute: 'reader-model', ...READER_MODEL, ...short },
  { property: 'backwardReaderModel', key: 'bkrm', panel: 'backward', attribute: 'reader-model', ...READER_MODEL, ...short },
];

/** The panels a setting's row says it changes: `usedBy`, or the panel it belongs to (and `alsoPanels`). */
export const usedBy = (row) => row.usedBy ?? (row.panel ? [row.panel, ...(row.alsoPanels ?? [])] : []);

/** Panel `id`'s own attributes, and the explorer's view attributes it takes (observed by its element). */
export function panelAttributes(id) {
  const view = VIEW_FIELDS.filter((f) => f.attribute && (f.panel === id || f.alsoPanels?.includes(id))).map((f) => f.attribute);
  return [...new Set([...view, ...PANEL_SETTINGS.filter((s) => s.panel === id).map((s) => s.attribute)])];
}

/** Panel `id`'s row for `attribute`. */
export const panelSetting = (id, attribute) => PANEL_SETTINGS.find((s) => s.panel === id && s.attribute === attribute);

/**
 * A panel setting's value as used, from its attribute's text (or null): an integer or number
 * clamped to its bounds (an integer rounded), a choice kept if it is one; the default when absent,
 * blank or not a number. A rule that needs only the value runs here: `snap(v, row)` in place of the
 * clamp (a power of two, the default outside the bounds), `nearest` for a choice of numbers (the
 * choice nearest on a log scale to any other positive number). A rule that needs the sentence, the
 * model or the task (`rule` alone) is the panel's to apply.
 */
export function settingValue(row, given) {
  const text = given === null || given === undefined ? '' : String(given).trim();
  if (row.type === 'choice') {
    const chosen = row.choices.find((c) => String(c) === text);
    if (chosen !== undefined || !row.nearest) return chosen ?? row.default;
    const v = Number(text);
    if (text === '' || !(v > 0) || !Number.isFinite(v)) return row.default;
    return row.choices.reduce((best, c) => (Math.abs(Math.log(c / v)) < Math.abs(Math.log(best / v)) ? c : best));
  }
  if (text === '') return row.default;
  let v = Number(text);
  if (!Number.isFinite(v)) return row.default;
  if (row.type === 'integer') v = Math.round(v);
  return row.snap ? row.snap(v, row) : clamp(v, row.min, row.max);
}

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

/**
 * outOfRange's notes for a panel showing the reader trained on real text (weights="reader"): without
 * the page's cut of the sentence to its token limit, which the reader does not follow (its tokenizer
 * reads its own pieces, and the library's truncated note says when it reads only the first ones).
 */
export const readerOutOfRange = (changed) => changed.filter((c) => !(c.name === 'sentence' && c.unit === 'tokens'));

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
