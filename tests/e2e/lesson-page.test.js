// The demo's landing view is the lesson: its first screen (a desktop and a phone, both languages)
// holds the statement and a figure with every cell in view; no page-level sideways scroll on the
// phone; its text is there before the .wasm arrives; each section has a link of its own; a
// figure's lab link opens the explorer at the same sentence and step; every link that names a
// setting of the explorer still opens the explorer. The lesson's figures of the reader trained on
// real text show the same reader's numbers in Node (dist/training-node.js, the same file), and
// what the prose says of the lesson's sentence holds for that reader; the figures the reader's
// trace has no step for (X, and Q with its operands) show the grammar model on its own example.
import { readFileSync } from 'node:fs';

import { describe, expect, test } from 'vitest';
import { init as initTraining } from '../../dist/training-node.js';
import { GRAMMAR_EXAMPLE, LESSON_SENTENCE } from '../../web/src/lesson.js';
import { quantise, ready, screenshotFile, settled, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the built demo
const lab = await initTraining();
const readers = { en: await lab.loadReader({ language: 'en' }), 'zh-CN': await lab.loadReader({ language: 'zh-CN' }) };
/** The pronoun goal as measured on the shipped reader (scripts/reader/pack.mjs; tests/js/reader-checkpoint.test.js measures it again). */
const pronounShare = Object.fromEntries(Object.entries(JSON.parse(readFileSync(new URL('../../docs/results/reader.json', import.meta.url), 'utf8')).quality).map(([l, q]) => [l, q.pronoun]));

async function open(query, viewport = { width: 1280, height: 800 }) {
  const w = await watchedPage(b.browser, { viewport, locale: 'en-US' });
  await w.page.goto(`${s.url}/${query}`);
  await w.page.waitForSelector('#hero');
  await settled(w.page);
  return w;
}

/** Where the statement and the first figure's weights are, and whether its last cell is the canvas seen there. */
const firstScreen = (page) =>
  page.evaluate(() => {
    const box = (node) => {
      const r = node.getBoundingClientRect();
      return { top: r.top, left: r.left, bottom: r.bottom, right: r.right };
    };
    const hero = document.getElementById('hero');
    const canvas = hero.shadowRoot.querySelector('[data-role="main"] canvas');
    const r = canvas.getBoundingClientRect();
    const corner = (x, y) => hero.shadowRoot.elementFromPoint(x, y) === canvas;
    return {
      viewport: { width: innerWidth, height: innerHeight },
      statement: box(document.querySelector('.statement')),
      canvas: box(canvas),
      // The first and last cells are the canvas itself at those points: not clipped, not covered.
      cornersSeen: corner(r.left + 2, r.top + 2) && corner(r.right - 2, r.bottom - 2),
      rows: hero.shadowRoot.querySelectorAll('[data-role="main"] tbody tr').length,
      sideways: document.documentElement.scrollWidth - innerWidth,
      explorer: document.querySelector('attention-explorer') !== null,
    };
  });

const inside = (b, v) => b.top >= 0 && b.left >= 0 && b.bottom <= v.height && b.right <= v.width;

describe('the lesson is the landing view', () => {
  test.each([
    ['en', 1280, 800],
    ['zh-CN', 1280, 800],
    ['en', 375, 667],
    ['zh-CN', 375, 667],
  ])('%s at %i × %i: the statement and every cell of a figure in the first screen (screenshot)', async (lang, width, height) => {
    const { page, context } = await open(`?lang=${lang}`, { width, height });
    const seen = await firstScreen(page);
    expect(seen.explorer).toBe(false);
    expect(inside(seen.statement, seen.viewport), JSON.stringify(seen)).toBe(true);
    expect(inside(seen.canvas, seen.viewport), JSON.stringify(seen)).toBe(true);
    expect(seen.cornersSeen).toBe(true);
    expect(seen.rows).toBe(readers[lang].attend(LESSON_SENTENCE[lang], { model: 'encoder' }).tokens.length); // the reader's pieces
    expect(seen.sideways).toBeLessThanOrEqual(0);
    // The statement is the page's, in the page's language.
    const statement = await page.locator('.statement').textContent();
    expect(statement).toMatch(lang === 'en' ? /^Attention lets each word/ : /^注意力让句子里的每个词/);
    const file = screenshotFile(`lesson-${lang === 'en' ? 'en' : 'zh'}-${width}.png`);
    await page.screenshot({ path: file });
    quantise(file);
    await context.close();
  });

  test('the text is there before the WebAssembly arrives', async () => {
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    let release;
    const held = new Promise((resolve) => (release = resolve));
    await w.page.route('**/*.wasm', async (route) => {
      await held;
      await route.continue();
    });
    await w.page.goto(`${s.url}/?lang=zh-CN`);
    await w.page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    expect(await w.page.locator('#qkv h2').textContent()).toContain('查询、键和值');
    expect(await w.page.evaluate(() => document.getElementById('hero').dataset.ready)).toBeUndefined();
    release();
    await settled(w.page);
    await w.page.unroute('**/*.wasm');
    await w.context.close();
  });

  test('each section has its link, listed in the contents, and its figure', async () => {
    const { page, context } = await open('');
    const sections = await page.evaluate(() =>
      [...document.querySelectorAll('.lesson-section')].map((section) => ({
        id: section.id,
        anchor: section.querySelector('h2 a.anchor')?.getAttribute('href'),
        listed: document.querySelector(`.contents a[href="#${section.id}"]`) !== null,
        figure: [...section.children].some((child) => child.localName.startsWith('attention-')),
        lab: section.querySelector('a[data-lab]')?.getAttribute('href') ?? '',
      })),
    );
    expect(sections.map((x) => x.id)).toEqual(['self', 'qkv', 'scores', 'scale', 'softmax', 'output', 'masks', 'heads', 'cost', 'pooling', 'scoring']);
    for (const x of sections) {
      expect(x.anchor, x.id).toBe(`#${x.id}`);
      expect(x.listed, x.id).toBe(true);
      expect(x.figure, x.id).toBe(true);
      expect(x.lab, x.id).toMatch(/^\?panel=\w+/);
    }
    // A section's link opens the page at that section.
    await page.goto(`${s.url}/#masks`);
    await page.waitForSelector('#masks');
    expect(await page.evaluate(() => Math.abs(document.getElementById('masks').getBoundingClientRect().top) < 5)).toBe(true);
    // Its figure renders once the reader is near it; one far below waits.
    await settled(page);
    expect(await page.evaluate(() => ['masks', 'scoring'].map((id) => document.querySelector(`#${id} [data-later]`)).map((f) => [f.hidden, 'ready' in f.dataset]))).toEqual([
      [false, true],
      [true, false],
    ]);
    await context.close();
  });

  test('a sentence typed in the lesson reaches its figures, and the lab opens at the same sentence and step', async () => {
    const { page, context } = await open('?lang=en');
    await page.locator('#sentence').fill('the dog saw the cats');
    await settled(page);
    const rows = await page.evaluate(() => [...document.getElementById('hero').shadowRoot.querySelectorAll('[data-role="main"] tbody th')].map((th) => th.textContent));
    expect(rows).toEqual(readers.en.attend('the dog saw the cats', { model: 'encoder' }).tokens);
    // The grammar model's figures keep reading its own example (once near), and their links carry it.
    await page.evaluate(() => document.getElementById('qkv').scrollIntoView());
    await page.waitForFunction(() => !document.querySelector('#qkv attention-steps').hidden);
    await settled(page);
    expect(await page.evaluate(() => [...document.querySelectorAll('attention-steps[data-example]')].map((f) => f.getAttribute('sentence')))).toEqual([GRAMMAR_EXAMPLE.en, GRAMMAR_EXAMPLE.en]);
    expect(new URL(await page.locator('#qkv a[data-lab]').getAttribute('href'), s.url).searchParams.get('s')).toBe(GRAMMAR_EXAMPLE.en);
    await page.locator('#softmax a[data-lab]').click();
    await ready(page);
    const state = await page.evaluate(() => {
      const steps = document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps');
      const a = (name) => steps.getAttribute(name);
      return { lesson: document.getElementById('lesson') !== null, sentence: a('sentence'), step: a('step'), weights: a('weights'), model: a('reader-model'), layer: a('layer'), head: a('head') };
    });
    expect(state).toEqual({ lesson: false, sentence: 'the dog saw the cats', step: 'weights', weights: 'reader', model: 'encoder', layer: '0', head: '0' });
    // And back to the lesson, in the same language.
    await page.locator('#switch-view').click();
    await page.waitForSelector('#hero');
    await settled(page);
    expect(await page.evaluate(() => document.querySelector('attention-explorer'))).toBe(null);
    await context.close();
  });

  test('a figure seen before, far from the screen while the sentence and the language change, reads the new ones once near again', async () => {
    const { page, context, problems } = await open('?lang=en');
    // The first map's rows (on screen once the section is: a map far below is brought up to date when it comes near).
    const rowsOf = () => page.evaluate(() => [...document.querySelector('#heads attention-heads').shadowRoot.querySelector('.reader-map').querySelectorAll('tbody th')].map((th) => th.textContent));
    // Two frames after a scroll the intersection observer has told the lesson which sections are near.
    const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const near = async (id) => {
      await page.evaluate((id) => document.getElementById(id).scrollIntoView(), id);
      await frames();
      await page.waitForFunction((id) => [...document.querySelectorAll(`#${id} [data-later]`)].every((f) => !f.hidden), id);
      await settled(page);
    };
    await near('heads');
    const before = readers.en.attend(LESSON_SENTENCE.en, { model: 'encoder' }).tokens;
    expect(await rowsOf()).toEqual(before);
    // Back at the top, the box changed:
    // the heads figure, far below, is not computed again meanwhile, and reads the new sentence once near.
    await page.evaluate(() => scrollTo(0, 0));
    await frames();
    await page.locator('#sentence').fill('the dog saw the cats');
    await settled(page);
    expect(await rowsOf()).toEqual(before);
    await near('heads');
    const after = readers.en.attend('the dog saw the cats', { model: 'encoder' }).tokens;
    expect(await rowsOf()).toEqual(after);
    // The same for the page's language: the far figure takes it when near (the Chinese reader's pieces of the typed sentence).
    await page.evaluate(() => scrollTo(0, 0));
    await frames();
    await page.selectOption('#lang', 'zh-CN');
    await settled(page);
    const langOf = () => page.evaluate(() => document.querySelector('#heads attention-heads').getAttribute('lang'));
    expect(await langOf()).toBe('en');
    await near('heads');
    expect(await langOf()).toBe('zh-CN');
    expect(await rowsOf()).toEqual(readers['zh-CN'].attend('the dog saw the cats', { model: 'encoder' }).tokens);
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test.each(['en', 'zh-CN'])('%s: the reader’s figures show the reader’s numbers, and what the prose says of the lesson’s sentence holds', async (lang) => {
    const reader = readers[lang];
    const sentence = LESSON_SENTENCE[lang];
    const encoder = reader.attend(sentence, { model: 'encoder', trace: true });
    const decoder = reader.attend(sentence, { model: 'decoder', trace: true });
    const traced = (run, id) => run.steps[0][0].find((st) => st.id === id).matrix;
    // The prose: on the lesson's sentence, the row of "it" puts most of its weight on "animal" in head 1
    // of layer 1 (the figures above), more than the head marked for pronouns does.
    const it = encoder.tokens.findIndex((t) => /^▁?(it|它)$/.test(t));
    const animal = encoder.tokens.flatMap((t, j) => (/^▁?(animal|动|物)$/.test(t) ? [j] : []));
    const onAnimal = (map) => animal.reduce((sum, j) => sum + map.data[it * map.cols + j], 0);
    const shown = encoder.attention[0][0];
    expect(onAnimal(shown)).toBeGreaterThan(0.5);
    const { layer, head } = reader.facts.pronounHead;
    expect(onAnimal(shown)).toBeGreaterThan(onAnimal(encoder.attention[layer][head]));
    // The heads section: the marked head gets fewer than half of the English test pairs right and more
    // than nine in ten of the Chinese (the shipped reader's measured figures).
    expect(pronounShare.en.head).toEqual({ model: 'encoder', ...reader.facts.pronounHead });
    expect(pronounShare.en.test).toBeLessThan(0.5);
    expect(pronounShare.zh.test).toBeGreaterThan(0.9);

    const { page, context, problems } = await open(`?lang=${lang}`);
    /** Section `id` brought to the screen, its figures rendered and settled. */
    const reveal = async (id) => {
      await page.evaluate((id) => document.getElementById(id).scrollIntoView(), id);
      await page.waitForFunction((id) => [...document.querySelectorAll(`#${id} [data-later]`)].every((f) => !f.hidden), id);
      await settled(page);
    };
    /** Every cell of the main figure of section `id`'s steps figure. */
    const figureOf = async (id) => {
      await reveal(id);
      return page.evaluate((id) => {
        const figure = (id === 'what' ? document.getElementById('hero') : document.querySelector(`#${id} attention-steps`)).shadowRoot.querySelector('[data-role="main"]');
        return {
          rows: [...figure.querySelectorAll('tbody th')].map((th) => th.textContent),
          cells: [...figure.querySelectorAll('tbody td')].map((td) => ({ value: Number(td.dataset.value), masked: td.classList.contains('masked') })),
        };
      }, id);
    };
    const expectCells = (view, want, tokens, where) => {
      expect(view.rows, where).toEqual(tokens);
      expect(view.cells.length, where).toBe(want.rows * want.cols);
      view.cells.forEach((c, k) => {
        const [i, j] = [Math.floor(k / want.cols), k % want.cols];
        if (where === 'masks') expect(c.masked, `${where} ${i} ${j}`).toBe(j > i);
        if (!c.masked) expect(Math.abs(c.value - want.data[k]), `${where} cell ${k}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(want.data[k])));
      });
    };
    expectCells(await figureOf('what'), shown, encoder.tokens, 'hero');
    for (const [id, step] of [['scores', 'scores'], ['softmax', 'weights'], ['output', 'output']]) expectCells(await figureOf(id), traced(encoder, step), encoder.tokens, id);
    expectCells(await figureOf('masks'), traced(decoder, 'masked'), decoder.tokens, 'masks');
    // The heads figure: every map of the encoder, the pronoun head marked.
    await reveal('heads');
    const maps = await page.evaluate(() =>
      [...document.querySelector('#heads attention-heads').shadowRoot.querySelectorAll('.reader-map')].map((m) => ({
        layer: Number(m.dataset.layer),
        head: Number(m.dataset.head),
        pronoun: 'pronoun' in m.dataset,
        values: [...m.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)),
      })),
    );
    const c = reader.models.encoder;
    expect(maps.length).toBe(c.encoderLayers * c.heads);
    for (const m of maps) {
      const want = encoder.attention[m.layer][m.head].data;
      expect(m.values.length).toBe(want.length);
      m.values.forEach((v, k) => expect(Math.abs(v - want[k]), `heads ${m.layer} ${m.head} cell ${k}`).toBeLessThan(1e-6));
      expect(m.pronoun).toBe(m.layer === layer && m.head === head);
    }
    expect(problems).toEqual({ console: [], external: [] });
    await context.close();
  });

  test.each([
    ['?panel=heads&h=2', 'heads'],
    ['?s=a+b+c&step=scores', 'steps'],
    ['?panel=cost&lang=zh-CN', 'cost'],
  ])('an explorer link %s still opens the explorer at its panel', async (query, panel) => {
    const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await w.page.goto(`${s.url}/${query}`);
    await ready(w.page);
    expect(await w.page.evaluate(() => [document.getElementById('lesson'), document.querySelector('attention-explorer').getAttribute('panel') ?? 'steps'])).toEqual([null, panel]);
    await w.context.close();
  });
});
