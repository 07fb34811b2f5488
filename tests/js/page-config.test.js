// The settings table of web/src/config.js (no browser): what is derived from it (normalisation,
// out-of-range notes, URL state) and the hand-written types, which must list exactly its fields.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CONFIG_ATTRIBUTES, CONFIG_FIELDS, DEFAULT_SENTENCE, LOOK_FIELDS, PANEL_SETTINGS, TYPED_MATRICES, URL_KEYS, VIEW_FIELDS, bound } from '../../web/src/config.js';
import { LIMITS, MAX_SENTENCE, normalise, outOfRange, tokenize } from '../../web/src/model.js';
import { readState, writeState } from '../../web/src/state.js';

const dts = readFileSync(new URL('../../web/src/components.d.ts', import.meta.url), 'utf8');
/** The members of `interface name { … }` in components.d.ts: [{ doc, property }] in order. */
function members(name) {
  const body = dts.match(new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`))[1];
  return [...body.matchAll(/(?:\/\*\*([^]*?)\*\/\s*)?(\w+)\??:/g)].map(([, doc, property]) => ({ doc: doc ?? '', property }));
}
const integers = CONFIG_FIELDS.filter((f) => f.type === 'integer');

describe('components.d.ts lists exactly the settings of the table', () => {
  test('AttentionState: one member per field, in order, each documented with its attribute', () => {
    const state = members('AttentionState');
    expect(state.map((m) => m.property)).toEqual(CONFIG_FIELDS.map((f) => f.property));
    expect(state.map((m) => m.doc.match(/`([\w-]+)`:/)?.[1])).toEqual(CONFIG_FIELDS.map((f) => f.attribute));
  });

  test("each member's documentation gives the field's default (every language's) and a choice's values", () => {
    const doc = Object.fromEntries(members('AttentionState').map((m) => [m.property, m.doc]));
    for (const f of integers) expect(doc[f.property], f.attribute).toContain(`Default ${f.default}.`);
    const choice = CONFIG_FIELDS.find((f) => f.type === 'choice');
    expect(dts).toContain(`${choice.property}: ${choice.choices.map((c) => `'${c}'`).join(' | ')};`);
    expect(doc[choice.property]).toContain(`\`${choice.default}\` (default)`);
    for (const sentence of Object.values(DEFAULT_SENTENCE)) expect(doc.sentence).toContain(`\`${sentence}\``);
  });

  test("AttentionElement's attribute list is the table's attributes and lang", () => {
    const listed = dts.match(/What every element shares\. Attributes: ([^(]*)\(/)[1];
    expect([...listed.matchAll(/`([\w-]+)`/g)].map((m) => m[1])).toEqual([...CONFIG_ATTRIBUTES, 'lang']);
  });

  test("AttentionPanelSettings: one member per panel setting, each documented with its panel's attribute", () => {
    const settings = members('AttentionPanelSettings');
    expect(settings.map((m) => m.property)).toEqual(PANEL_SETTINGS.map((s) => s.property));
    const docs = settings.map((m) => m.doc).join(' ');
    for (const s of PANEL_SETTINGS) expect(docs, s.property).toMatch(new RegExp(`attention-${s.panel}\\b[^*]*\`${s.attribute}\``));
  });
});

describe('normalisation derived from the table', () => {
  test('no settings: every default (the sentence in the language asked for)', () => {
    const defaults = Object.fromEntries(CONFIG_FIELDS.map((f) => [f.property, f.type === 'text' ? DEFAULT_SENTENCE.en : f.default]));
    expect(normalise({})).toEqual(defaults);
    expect(normalise({}, 'en')).toEqual({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 8, heads: 1, mask: 'none', validLen: 3, tokens: '' });
    expect(normalise({}, 'zh-CN')).toEqual({ ...defaults, sentence: '小猫坐在垫子上' });
    expect(normalise({ sentence: 'a b' }, 'zh-CN').sentence).toBe('a b');
    expect(normalise({ sentence: '' }, 'zh-CN').sentence).toBe('小猫坐在垫子上');
    // An unknown language takes the English default; Chinese splits into one token per character.
    expect(normalise({}, 'fr').sentence).toBe(DEFAULT_SENTENCE.en);
    expect(tokenize(DEFAULT_SENTENCE['zh-CN'])).toEqual(['小', '猫', '坐', '在', '垫', '子', '上']);
  });

  test.each(integers.map((f) => [f.attribute, f]))('%s: rounded, clamped to its bounds, the default when not a number, noted when changed', (attribute, f) => {
    const [lo, hi] = [f.min, bound(f.max)];
    const used = (given) => normalise({ [f.property]: given })[f.property];
    expect(used(String(lo))).toBe(lo);
    expect(used(String(lo - 1))).toBe(lo);
    expect(used(`${hi + 1}`)).toBe(f.cap ? Math.min(hi, f.cap(LIMITS, () => 1)) : hi);
    expect(used('1e12')).toBe(f.cap ? Math.min(hi, f.cap(LIMITS, () => 1)) : hi);
    expect(used(`${lo + 0.4}`)).toBe(lo);
    expect(used('abc')).toBe(f.default);
    expect(outOfRange({ [f.property]: String(lo) })).toEqual([]);
    expect(outOfRange({ [f.property]: String(lo - 1) })).toEqual([{ name: attribute, given: String(lo - 1), used: String(lo) }]);
    expect(outOfRange({ [f.property]: 'abc' })).toEqual([{ name: attribute, given: 'abc', used: String(f.default) }]);
  });

  test('the defaults keep d_k = d_v = d_model / h (one head of d_model width)', () => {
    const c = normalise({});
    expect(c.heads).toBe(1);
    expect(c.dK).toBe(c.dModel / c.heads);
  });

  test('a bound that depends on another setting: d_k ≤ maxWidth / heads', () => {
    expect(normalise({ dK: '64', heads: '8' }).dK).toBe(LIMITS.maxWidth / 8);
    expect(normalise({ heads: '8', dK: '64' }).dK).toBe(LIMITS.maxWidth / 8);
    expect(normalise({ dK: 'x', heads: '8' }).dK).toBe(8);
    expect(outOfRange({ dK: '64', heads: '8' })).toEqual([{ name: 'd-k', given: '64', used: String(LIMITS.maxWidth / 8) }]);
  });

  test('a choice: only its values; a text: cut to its length and token limit, with the note last', () => {
    expect(normalise({ mask: 'causal' }).mask).toBe('causal');
    expect(normalise({ mask: 'CAUSAL' }).mask).toBe('none');
    const long = 'x'.repeat(MAX_SENTENCE + 100);
    expect(normalise({ sentence: long }).sentence).toHaveLength(MAX_SENTENCE);
    const many = Array.from({ length: LIMITS.maxTokens + 8 }, (_, i) => `w${i}`).join(' ');
    expect(outOfRange({ sentence: long, mask: 'x', seed: '-1' })).toEqual([
      { name: 'seed', given: '-1', used: '0' },
      { name: 'mask', given: 'x', used: 'none' },
      { name: 'sentence', given: String(MAX_SENTENCE + 100), used: String(MAX_SENTENCE), unit: 'characters' },
    ]);
    expect(outOfRange({ sentence: many })).toEqual([{ name: 'sentence', given: String(LIMITS.maxTokens + 8), used: String(LIMITS.maxTokens), unit: 'tokens' }]);
  });
});

describe('URL state derived from the tables', () => {
  // The keys of links already shared, in the order a link writes them: never renamed (new keys may join).
  const PUBLISHED = 's seed dm dk h mask vl tok step head lang kernel bw panel hs q src scoring vlens swap shift pair win lk maxn pos tstep pre dstep cap sw ah rb rs ctx kvs task tl th tdm tsc tseed tcmp bstep bsc xw xdate stw hw hl tw tfl bkw bkl hrm srm sl trm bkrm x wq wk wv wo';

  test('every field of every table has its key, the published ones in their order', () => {
    expect(URL_KEYS.map(([, key]) => key).join(' ')).toBe(PUBLISHED);
    const fields = [...CONFIG_FIELDS, ...VIEW_FIELDS, ...PANEL_SETTINGS].map((f) => f.property).concat(TYPED_MATRICES.map((m) => m.key));
    expect(URL_KEYS.map(([field]) => field)).toEqual(fields);
    expect(new Set(URL_KEYS.map(([, key]) => key)).size).toBe(URL_KEYS.length);
  });

  test('a state with every field round-trips through the query string; unknown keys are ignored', () => {
    const state = Object.fromEntries(URL_KEYS.map(([field], k) => [field, `v${k} ü&=?`]));
    const query = writeState(state);
    expect(readState(query)).toEqual(state);
    expect(readState(`${query}&extra=1&S=2`)).toEqual(state);
    const params = new URLSearchParams(query);
    expect([...params.keys()].join(' ')).toBe(PUBLISHED);
    expect(params.get('dm')).toBe(state.dModel);
    // Empty and missing fields are left out of a link.
    expect(writeState({ sentence: '', seed: null, dModel: undefined, heads: '2' })).toBe('?h=2');
  });

  test("a link's settings, normalised, give the same settings as the link after one round", () => {
    const given = readState('?s=%E6%88%91%E7%88%B1&dm=100&dk=9&h=8&mask=padding&vl=-3&seed=1.6');
    const once = normalise(given);
    expect(once).toEqual({ sentence: '我爱', seed: 2, dModel: 64, dK: 8, heads: 8, mask: 'padding', validLen: 0, tokens: '' });
    const again = readState(writeState(Object.fromEntries(Object.entries(once).map(([k, v]) => [k, String(v)]))));
    expect(normalise(again)).toEqual(once);
    expect(outOfRange(again)).toEqual([]);
  });
});

describe('docs/embedding.md says what the table says', () => {
  test("each setting's default in the attributes table is the table's default", () => {
    const doc = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');
    for (const f of [...CONFIG_FIELDS, ...LOOK_FIELDS].filter((f) => typeof f.default !== 'object' && f.default !== '')) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${f.attribute}\` |`));
      expect(row, f.attribute).toBeDefined();
      // The default is the last `value` in parentheses of the values column.
      const given = [...row.matchAll(/\(`([^`]+)`/g)].at(-1)?.[1];
      expect(given, f.attribute).toBe(String(f.default));
    }
  });
});
