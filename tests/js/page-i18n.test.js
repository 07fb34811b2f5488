// The string tables: every key in both languages, placeholders kept, each key
// in the file of its panel and in one file only, and the established Chinese
// terms used.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { LANGS, addStrings, mergeStrings, pickLang, translator } from '../../web/src/i18n.js';

const DIR = new URL('../../web/src/strings/', import.meta.url);
const NAMES = readdirSync(DIR).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3));
const TABLES = Object.fromEntries(await Promise.all(NAMES.map(async (n) => [n, (await import(new URL(`${n}.js`, DIR).href)).default])));
// A file's keys start with its name; these older prefixes keep their names
// because components, the page and the embedding docs use the keys as they are.
const OLDER_PREFIXES = { explorer: ['input', 'mask', 'tab'], heatmap: ['export'], errors: ['error'], steps: ['step', 'explain'], pooling: ['kernel'] };
const holes = (s) => (s.match(/\{\w+\}/g) ?? []).sort();
// As the all-in-one components module does (a panel's own entry point adds only its tables).
addStrings(TABLES);

describe('i18n', () => {
  test('English and Chinese have the same keys and the same placeholders', () => {
    const en = LANGS.en;
    const zh = LANGS['zh-CN'];
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en)) expect(holes(zh[key]), key).toEqual(holes(en[key]));
  });

  test('each file in web/src/strings/ has the same keys in English and Chinese', () => {
    expect(NAMES.length).toBeGreaterThan(10);
    for (const [name, table] of Object.entries(TABLES)) {
      expect(Object.keys(table).sort(), name).toEqual(['en', 'zh-CN']);
      expect(Object.keys(table['zh-CN']).sort(), name).toEqual(Object.keys(table.en).sort());
    }
  });

  test('every key a file holds starts with its prefix', () => {
    const owners = {};
    for (const [name, table] of Object.entries(TABLES)) {
      for (const prefix of [name, ...(OLDER_PREFIXES[name] ?? [])]) (owners[prefix] ??= []).push(name);
      const prefixes = [name, ...(OLDER_PREFIXES[name] ?? [])].map((p) => `${p}.`);
      for (const key of Object.keys(table.en)) expect(prefixes.some((p) => key.startsWith(p)), `${key} in strings/${name}.js`).toBe(true);
    }
    for (const [prefix, files] of Object.entries(owners)) expect(files, prefix).toHaveLength(1);
  });

  test('each key is written once per language (a repeated key in one object literal would silently win)', () => {
    for (const name of NAMES) {
      const source = readFileSync(new URL(`${name}.js`, DIR), 'utf8');
      const count = {};
      for (const [, key] of source.matchAll(/^\s*'([^']+)':/gm)) count[key] = (count[key] ?? 0) + 1;
      for (const key of Object.keys(TABLES[name].en)) expect(count[key], `${key} in strings/${name}.js`).toBe(2);
    }
  });

  test('addStrings adds a table once; a key of another file is refused', () => {
    const before = Object.keys(LANGS.en).length;
    addStrings({ steps: TABLES.steps, heads: TABLES.heads });
    expect(Object.keys(LANGS.en)).toHaveLength(before);
    const stray = { en: { 'steps.heading': 'again' }, 'zh-CN': { 'steps.heading': '又' } };
    expect(() => addStrings({ stray })).toThrow(/'steps\.heading'.*strings\/steps\.js.*strings\/stray\.js/);
  });

  test('with every file added, i18n.js holds every key of web/src/strings/', () => {
    const total = Object.values(TABLES).reduce((n, table) => n + Object.keys(table.en).length, 0);
    expect(Object.keys(LANGS.en)).toHaveLength(total);
    for (const table of Object.values(TABLES)) for (const [key, text] of Object.entries(table['zh-CN'])) expect(LANGS['zh-CN'][key]).toBe(text);
  });

  test('the merge refuses a key found in two files, naming the key and both files', () => {
    const a = { en: { 'a.one': 'one', 'a.two': 'two' }, 'zh-CN': { 'a.one': '一', 'a.two': '二' } };
    const b = { en: { 'b.three': 'three' }, 'zh-CN': { 'b.three': '三' } };
    expect(mergeStrings({ a, b })).toEqual({ en: { 'a.one': 'one', 'a.two': 'two', 'b.three': 'three' }, 'zh-CN': { 'a.one': '一', 'a.two': '二', 'b.three': '三' } });
    const again = { en: { 'b.four': 'four', 'a.two': 'two again' }, 'zh-CN': { 'b.four': '四', 'a.two': '又二' } };
    expect(() => mergeStrings({ a, again })).toThrow(/'a\.two'.*strings\/a\.js.*strings\/again\.js/);
    const zhOnly = { en: {}, 'zh-CN': { 'b.three': '又三' } };
    expect(() => mergeStrings({ b, zhOnly })).toThrow(/zh-CN key 'b\.three'.*strings\/b\.js.*strings\/zhOnly\.js/);
  });

  test('the established Chinese terms are used', () => {
    const all = Object.values(LANGS['zh-CN']).join('\n');
    for (const term of ['查询', '键', '值', '注意力汇聚', '掩蔽softmax', '加性注意力', '缩放点积注意力', '多头注意力']) expect(all, term).toContain(term);
  });

  test('language choice and placeholders', () => {
    expect(pickLang('zh-Hans-CN')).toBe('zh-CN');
    expect(pickLang('de-DE')).toBe('en');
    expect(translator('zh')('steps.position', { i: 2, n: 9 })).toBe('第 2 步，共 9 步');
    expect(translator('en')('steps.position', { i: 2, n: 9 })).toBe('Step 2 of 9');
  });
});
