// The string tables: every key in both languages, placeholders kept, and the
// established Chinese terms used.
import { describe, expect, test } from 'vitest';
import { LANGS, pickLang, translator } from '../../web/src/i18n.js';

describe('i18n', () => {
  test('English and Chinese have the same keys and the same placeholders', () => {
    const en = LANGS.en;
    const zh = LANGS['zh-CN'];
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    const holes = (s) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of Object.keys(en)) expect(holes(zh[key]), key).toEqual(holes(en[key]));
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
