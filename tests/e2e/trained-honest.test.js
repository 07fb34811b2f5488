// The trained views are honest about what the model reads, in Chromium: the grammar model reads "The
// Cat" as "the cat"; every piece outside its vocabulary is named, English words and Chinese
// characters alike, in both languages; choosing trained weights keeps the reader's sentence (the
// model's example a button away, and back); the vocabulary is listed and filtered; each head's
// caption is the measured one (web/src/trained/heads.js); the train panel's try box says, in the
// reader's language, what lies outside the task or over its length, never the library's message.
import { describe, expect, test } from 'vitest';
import { DEFAULT_GRAMMAR } from '../../web/src/components/steps/trained-grammar.js';
import { addStrings, translator } from '../../web/src/i18n.js';
import trainedStrings from '../../web/src/strings/trained.js';
import { captionOf, headEntry } from '../../web/src/trained/captions.js';
import { componentPage, settled } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser();
addStrings({ trained: trainedStrings });

const STEPS = `document.querySelector('attention-steps')`;
/** The steps panel's rows (the tokens read), its notes by role, the captions and the vocabulary count. */
const view = (page) =>
  page.evaluate((q) => {
    const root = eval(q).shadowRoot;
    const roles = {};
    for (const n of root.querySelectorAll('[data-role]')) roles[n.dataset.role] = n.textContent;
    return {
      roles,
      rows: [...root.querySelectorAll('figure[data-role="main"] tbody th')].map((th) => th.textContent),
      reads: root.querySelector('[data-role="trained-source"]')?.dataset.reads ?? null,
      captions: [...root.querySelectorAll('[data-role="trained-captions"] li')].map((li) => li.textContent),
      words: [...root.querySelectorAll('[data-role="vocabulary-list"] li')].filter((li) => !li.hidden).map((li) => li.textContent),
    };
  }, STEPS);
/** Sets attributes on the steps panel, then waits until the trained model's view of them has settled. */
async function set(page, attributes) {
  await page.evaluate(([q, a]) => Object.entries(a).forEach(([k, v]) => eval(q).setAttribute(k, v)), [STEPS, attributes]);
  await page.waitForFunction((q) => eval(q).shadowRoot.querySelector('[data-role="trained-about"]'), STEPS, { timeout: 60_000 });
  await settled(page);
  return view(page);
}
const clickIn = async (page, q, selector) => {
  await page.evaluate(([q, sel]) => eval(q).shadowRoot.querySelector(sel).click(), [q, selector]);
  await settled(page);
};

describe('the trained grammar views say what the model reads', () => {
  test('case, unknown pieces in both languages, the reader’s sentence kept, the vocabulary, the captions', async () => {
    const w = await componentPage(b.browser, s.url, '<attention-steps step="weights" sentence="the cat sat on the mat"></attention-steps>', { selector: 'attention-steps' });
    const { page } = w;
    // Trained weights chosen: the reader's sentence is kept (read with the model's vocabulary).
    let v = await set(page, { weights: 'trained' });
    expect(v.rows).toEqual(['<bos>', 'the', 'cat', '<unk>', '<unk>', 'the', '<unk>']);
    expect(v.reads).toBe('own');
    expect(v.roles['trained-sentence']).toContain('“the cat sat on the mat”');
    // The model's example, a button away, and back.
    await clickIn(page, STEPS, '[data-role="trained-switch"]');
    v = await view(page);
    expect(v.reads).toBe('example');
    expect(v.rows.slice(0, 5)).toEqual(['<bos>', 'the', 'dog', 'chased', 'the']);
    expect(v.roles['trained-sentence']).toContain(DEFAULT_GRAMMAR.en);
    expect(v.roles['trained-unknown']).toBeUndefined();
    await clickIn(page, STEPS, '[data-role="trained-switch"]');
    v = await view(page);
    expect(v.reads).toBe('own');
    expect(v.rows).toEqual(['<bos>', 'the', 'cat', '<unk>', '<unk>', 'the', '<unk>']);
    // Without regard to case: "The Cat" reads as "the cat".
    const lower = (await set(page, { sentence: 'the cat' })).rows;
    expect((await set(page, { sentence: 'The Cat' })).rows).toEqual(lower);
    expect(lower).toEqual(['<bos>', 'the', 'cat']);
    // Every unknown word named; "The" is known.
    v = await set(page, { sentence: 'The animal did not cross the street because it was too tired' });
    expect(v.rows[1]).toBe('the');
    expect(v.roles['trained-unknown']).toContain('8 token(s)');
    expect(v.roles['trained-unknown']).toContain('animal, did, not, cross, street, because, was, too');
    // Chinese: each character outside the vocabulary named, the note in Chinese.
    v = await set(page, { lang: 'zh-CN', sentence: '我爱自然语言处理' });
    expect(v.rows).toEqual(['<bos>', ...Array(8).fill('<unk>')]);
    expect(v.roles['trained-unknown']).toContain('有 8 个词元不在模型的词表中');
    expect(v.roles['trained-unknown']).toContain('我、爱、自、然、语、言、处、理');
    // The vocabulary, filtered as the reader types.
    await page.evaluate((q) => {
      const input = eval(q).shadowRoot.querySelector('[data-key="vocabulary-filter"]');
      input.value = '猫';
      input.dispatchEvent(new Event('input'));
    }, STEPS);
    v = await view(page);
    expect(v.words.length).toBeGreaterThan(0);
    expect(v.words.every((x) => x.includes('猫'))).toBe(true);
    expect(v.roles['trained-vocabulary']).toMatch(/模型的词表：\d+ 个词/);
    // Each head of layer 1 captioned as measured, numbered from 1.
    for (const lang of ['zh-CN', 'en']) {
      if (lang === 'en') v = await set(page, { lang: 'en' });
      const t = translator(lang);
      expect(v.captions).toEqual([0, 1, 2, 3].map((h) => captionOf(t, headEntry('grammar', 'decoder', 0, h))));
    }
    expect(v.captions[0]).toMatch(/^Layer 1, head 1: /);
    await w.context.close();
  });
});

describe('the train panel’s try box', () => {
  const TRAIN = `document.querySelector('attention-train')`;
  const tryIt = async (page, text) => {
    const before = await page.evaluate((q) => eval(q).shadowRoot.querySelector('[data-role="try-output"]').textContent, TRAIN);
    await page.evaluate(([q, text]) => {
      const root = eval(q).shadowRoot;
      root.querySelector('#try-input').value = text;
      root.querySelector('[data-key="try-run"]').click();
    }, [TRAIN, text]);
    await page.waitForFunction(([q, b]) => eval(q).shadowRoot.querySelector('[data-role="try-output"]').textContent !== b, [TRAIN, before], { timeout: 30_000, polling: 50 });
    await settled(page);
    return page.evaluate((q) => {
      const root = eval(q).shadowRoot;
      return { output: root.querySelector('[data-role="try-output"]').textContent, unknown: root.querySelector('[data-role="try-unknown"]')?.isConnected ? root.querySelector('[data-role="try-unknown"]').textContent : null };
    }, TRAIN);
  };

  test('outside the alphabet: the answer with a note; over the length: a note, not the library’s message', async () => {
    const w = await componentPage(b.browser, s.url, '<attention-train task="reverse"></attention-train>', { selector: 'attention-train' });
    const { page } = w;
    await page.evaluate((q) => eval(q).shadowRoot.querySelector('[data-key="train"]').click(), TRAIN);
    await page.waitForFunction((q) => eval(q).step >= 1, TRAIN, { timeout: 60_000, polling: 50 });
    await page.evaluate((q) => eval(q).shadowRoot.querySelector('[data-key="pause"]').click(), TRAIN);
    await page.waitForFunction((q) => eval(q).state === 'paused', TRAIN, { timeout: 30_000, polling: 50 });
    let a = await tryIt(page, 'xyz');
    expect(a.output).toMatch(/^Output: /);
    expect(a.unknown).toContain('“x” “y” “z”');
    a = await tryIt(page, 'abcdefghijab');
    expect(a.output).toBe('This task reads at most 10 characters; your input has 12. Shorten it to try the model.');
    expect(a.output).not.toContain('maxLength');
    expect(a.unknown).toBeNull();
    await page.evaluate((q) => eval(q).setAttribute('lang', 'zh-CN'), TRAIN);
    await settled(page);
    a = await tryIt(page, '我爱你');
    expect(a.output).toMatch(/^输出：/);
    expect(a.unknown).toContain('不在这个任务词表中');
    expect(a.unknown).toContain('“我” “爱” “你”');
    a = await tryIt(page, 'abcdefghijab');
    expect(a.output).toBe('这个任务最多读入 10 个字符；你的输入有 12 个。请缩短后再试。');
    await w.context.close();
  });
});
