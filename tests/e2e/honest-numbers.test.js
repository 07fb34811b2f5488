// Numbers that do not mislead, in Chromium: the compare panel shows a time per call only where the
// same function's empty 1×1 call (measured, kept on the cell) takes under 10 % of it, with the sizes
// beside it, else a dash and a sentence why; figures of one quantity side by side share one legend;
// the pooling panel's sentence under its loss chart is the one the drawn curve calls for; no head,
// layer, query/key or dimension label counts from 0 in these panels, in English or Chinese.
import { describe, expect, test } from 'vitest';
import { MAX_OVERHEAD } from '../../web/src/components/compare/timing.js';
import { classifyLoss, curveSentence } from '../../web/src/components/pooling/loss-curve.js';
import { addStrings, translator } from '../../web/src/i18n.js';
import pooling from '../../web/src/strings/pooling.js';
import { componentPage, settled, withElements } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser();
addStrings({ pooling });

/** Each figure's legend as [min, max] (its two numbers), in the element `tag`'s figures matched by `selector`. */
const legends = (page, tag, selector) =>
  page.evaluate(
    ([tag, selector]) => [...document.querySelector(tag).shadowRoot.querySelectorAll(selector)].map((f) => [...f.querySelectorAll('.legend > span:not(.bar)')].slice(0, 2).map((s) => s.textContent)),
    [tag, selector],
  );

describe('numbers that do not mislead', () => {
  test('compare: a time only where the empty call is under 10 % of the call, with its sizes; else a dash and why; the weights on one legend', async () => {
    const { page, problems, context } = await componentPage(b.browser, s.url, '<attention-compare seed="42"></attention-compare>', { selector: 'attention-compare' });
    const read = () =>
      page.evaluate(() => {
        const root = document.querySelector('attention-compare').shadowRoot;
        const cells = [...root.querySelectorAll('table.stats tr[data-role="time"] td')].map((td) => ({ text: td.textContent, call: Number(td.dataset.callMs), empty: Number(td.dataset.emptyMs), shown: td.dataset.shown }));
        const note = root.querySelector('[data-role="timing-note"]');
        return { cells, note: note.textContent, hidden: Number(note.dataset.hidden) };
      });
    for (const [markup, n] of [['<attention-compare seed="42"></attention-compare>', 6], ['<attention-compare seed="42" hidden-size="64" sentence="' + 'the cat sat on the mat and '.repeat(9).trim() + '"></attention-compare>', 63]]) {
      await withElements(page, markup);
      const { cells, note, hidden } = await read();
      expect(cells).toHaveLength(3);
      for (const cell of cells) {
        // Both measured, by the same loop, and the rule applied to them.
        expect(cell.empty).toBeGreaterThan(0);
        expect(cell.call).toBeGreaterThan(0);
        const show = cell.empty < MAX_OVERHEAD * cell.call;
        expect(cell.shown).toBe(String(show));
        if (show) expect(cell.text).toMatch(new RegExp(`^[1-9][\\d.]* (ns|µs|ms) at ${n} queries × ${n} keys, d_k = \\d+`));
        else expect(cell.text).toBe('—');
      }
      expect(hidden).toBe(cells.filter((c) => c.shown === 'false').length);
      expect(note).toMatch(hidden ? /too short to time in a page.*FLOP counts are what to compare/ : /with the sizes it was measured at/);
      console.log(`compare at ${n} tokens: ${cells.map((c) => `call ${(c.call * 1000).toFixed(2)} µs, empty ${(c.empty * 1000).toFixed(2)} µs`).join('; ')}`);
    }
    // The three weight matrices side by side: one legend.
    const three = await legends(page, 'attention-compare', '.grid figure[data-method]');
    expect(three).toHaveLength(3);
    expect(new Set(three.map(String)).size).toBe(1);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('pooling: the sentence under the loss chart is the one its drawn curve calls for; the weights side by side share one legend', async () => {
    const { page, problems, context } = await componentPage(b.browser, s.url, '<attention-pooling seed="42"></attention-pooling>', { selector: 'attention-pooling' });
    const t = translator('en');
    // The curve as drawn: each point's height turned back into a loss by the chart's own y scale.
    const shown = () =>
      page.evaluate(() => {
        const root = document.querySelector('attention-pooling').shadowRoot;
        const svg = root.querySelector('section.fit svg');
        const [a, b] = [svg.scaleY(0), svg.scaleY(1)];
        const losses = [...svg.querySelectorAll('g circle')].map((c) => (Number(c.getAttribute('cy')) - a) / (b - a));
        const p = root.querySelector('[data-role="fit-curve"]');
        return { losses, kind: p.dataset.kind, sentence: p.textContent };
      });
    const kinds = new Set();
    for (const rate of ['0.02', '0.1', '0.5']) {
      await page.evaluate((r) => {
        const select = document.querySelector('attention-pooling').shadowRoot.querySelector('#rate');
        select.value = r;
        select.dispatchEvent(new Event('change'));
      }, rate);
      await settled(page);
      const { losses, kind, sentence } = await shown();
      expect(losses).toHaveLength(10);
      // float32 losses through the chart's coordinates: read back to 6 digits, enough for the rule's 0.1 %.
      const curve = classifyLoss(losses.map((x) => Number(x.toPrecision(6))));
      expect(kind).toBe(curve.kind);
      expect(sentence.replace(/\d+\.\d{3}/g, '#')).toBe(curveSentence(t, curve, losses.length).replace(/\d+\.\d{3}/g, '#'));
      kinds.add(kind);
    }
    // Seed 42's three rates: still falling at 0.02 and 0.5, levelled off at 0.1.
    expect([...kinds].sort()).toEqual(['flat', 'slow']);
    // The cues' two weight matrices, and the query's weights beside every test point's: one legend each pair.
    const cues = await legends(page, 'attention-pooling', '.cue-maps figure');
    expect(cues).toHaveLength(2);
    expect(cues[0]).toEqual(cues[1]);
    const maps = await page.evaluate(() =>
      [...document.querySelector('attention-pooling').shadowRoot.querySelectorAll('figure.heatmap')].filter((f) => !f.closest('.cue-maps')).map((f) => [...f.querySelectorAll('.legend > span:not(.bar)')].slice(0, 2).map((x) => x.textContent)),
    );
    expect(maps).toHaveLength(2);
    expect(maps[0]).toEqual(maps[1]);
    expect(problems.console).toEqual([]);
    await context.close();
  });

  test('no head, layer, query/key or dimension label counts from 0 in these panels, in English or Chinese', async () => {
    const { page, problems, context } = await componentPage(
      b.browser,
      s.url,
      '<attention-transformer heads="4" step="attention"></attention-transformer><attention-decoding></attention-decoding><attention-pooling></attention-pooling><attention-compare></attention-compare>',
      { selector: 'attention-transformer' },
    );
    const ZERO = /\b(head|Head|layer|Layer|query head|key\/value head) 0\b|头 0|第 0 (层|个头)|\b[qkdf]0\b/;
    for (const lang of ['en', 'zh-CN']) {
      await page.evaluate((l) => document.querySelectorAll('attention-transformer, attention-decoding, attention-pooling, attention-compare').forEach((e) => e.setAttribute('lang', l)), lang);
      await settled(page);
      const texts = await page.evaluate(() =>
        [...document.querySelectorAll('attention-transformer, attention-decoding, attention-pooling, attention-compare')].map((e) => {
          const labels = [...e.shadowRoot.querySelectorAll('[aria-label], [title]')].map((n) => `${n.getAttribute('aria-label') ?? ''} ${n.getAttribute('title') ?? ''}`);
          return { tag: e.localName, text: `${e.shadowRoot.textContent} ${labels.join(' ')}` };
        }),
      );
      for (const { tag, text } of texts) expect(`${tag}: ${text.match(ZERO)?.[0] ?? 'none'}`).toBe(`${tag}: none`);
      // Heads are there to be read, counted from 1.
      expect(texts.find((x) => x.tag === 'attention-transformer').text).toMatch(lang === 'en' ? /Head 1.*Head 4/s : /头 1.*头 4/s);
    }
    // The transformer's four heads share one legend.
    const heads = await legends(page, 'attention-transformer', 'figure[data-matrix^="head-"]');
    expect(heads).toHaveLength(4);
    expect(new Set(heads.map(String)).size).toBe(1);
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
