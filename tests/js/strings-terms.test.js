// One Chinese term per idea across the page, the one Dive into Deep Learning's Chinese edition
// (d2l-zh) uses: every zh table of web/src/strings/*.js is read, and no value may hold a variant
// the page has settled against. English is not scanned (its terms are its own).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../web/src/strings/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3));

/** A variant not to use, and the term to use instead. */
export const BANNED = [
  { variant: /层归一化/, use: '层规范化 (layer normalisation)' },
  { variant: /前置归一化|前置层归一化|前规范化/, use: '前置层规范化 (pre-norm)' },
  { variant: /后置归一化|后置层归一化|后规范化/, use: '后置层规范化 (post-norm)' },
  { variant: /训练构建|训练版的库/, use: '训练版本 (the training build)' },
  { variant: /上下文向量/, use: '上下文变量 (context variable)' },
  { variant: /截断的分数/, use: '软截断 (soft-capping)' },
  { variant: /worker/i, use: '后台线程 (a Web Worker)' },
];

/** Every [file, key, value] of the zh tables. */
async function zhStrings() {
  const out = [];
  for (const file of files) {
    const table = (await import(`../../web/src/strings/${file}.js`)).default['zh-CN'] ?? {};
    for (const [key, value] of Object.entries(table)) out.push([file, key, value]);
  }
  return out;
}

describe('Chinese terms', () => {
  it('reads every strings file', async () => {
    expect(files.length).toBeGreaterThan(10);
    expect((await zhStrings()).length).toBeGreaterThan(500);
  });

  it.each(BANNED)('no zh string uses $variant (use $use)', async ({ variant }) => {
    const found = (await zhStrings()).filter(([, , value]) => variant.test(value)).map(([file, key]) => `${file}.js: ${key}`);
    expect(found).toEqual([]);
  });
});
