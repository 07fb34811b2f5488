// The steps panel typesets the other steps' formulas while the page is idle (prepareTex in
// web/src/tex.js), with the figures it prepares then: the render that first shows a step moves
// nodes typeset before into place and runs no KaTeX (1–5 ms per formula at 32 tokens).
import { describe, expect, test } from 'vitest';
import { ready, watchedPage } from './browser.js';
import { useBrowser } from './use-browser.js';

const { launched: b, served: s } = useBrowser({ serve: 'site' }); // b.browser, s.url: the demo

// In the page: count the MathML elements made (KaTeX writes its MathML with createElementNS).
const COUNT_MATHML = `{
  const made = Document.prototype.createElementNS;
  window.mathMade = 0;
  window.formulasMade = 0; // one <math> per formula typeset
  Document.prototype.createElementNS = function (ns, name, ...rest) {
    if (ns === 'http://www.w3.org/1998/Math/MathML') window.mathMade++;
    if (ns === 'http://www.w3.org/1998/Math/MathML' && name === 'math') window.formulasMade++;
    return made.call(this, ns, name, ...rest);
  };
}`;

async function open(query) {
  const w = await watchedPage(b.browser, { viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  await w.page.addInitScript(COUNT_MATHML);
  await w.page.goto(`${s.url}/${query}`);
  await ready(w.page);
  return w;
}

/** In the page: the steps panel and the TeX its formula shows. */
const SHOWN_TEX = `window.shownTex = () => document.querySelector('attention-explorer').shadowRoot.querySelector('attention-steps').shadowRoot.querySelector('.formula annotation[encoding="application/x-tex"]').textContent;`;

describe('formulas typeset ahead', () => {
  test('after a new sentence, once the page has been idle, a first visit of each step runs no KaTeX and shows the formula a page opened there shows', async () => {
    const { page, context, problems } = await open('?s=a+b+c+d+e&dm=8&dk=4&step=weights');
    await page.evaluate(SHOWN_TEX);
    const seen = await page.evaluate(async () => {
      const explorer = document.querySelector('attention-explorer');
      const steps = explorer.shadowRoot.querySelector('attention-steps');
      const rendered = () => new Promise((r) => steps.addEventListener('attention-render', r, { once: true }));
      const tabs = steps.shadowRoot.querySelectorAll('[role="tab"]').length;
      window.formulasMade = 0;
      let done = rendered();
      explorer.setAttribute('sentence', 'a b c d e f'); // a new n: every step's formula is new
      await done;
      // The shown step's formula is typeset in the render, the others' while idle, one piece per idle
      // period after every figure: wait until each has been (however busy the machine; 30 s at most).
      for (let w = 0; w < 300 && window.formulasMade < tabs; w++) await new Promise((r) => setTimeout(r, 100));
      const visits = {};
      for (const key of ['V', 'K', 'Q', 'scores']) {
        window.mathMade = 0;
        done = rendered();
        steps.step = key;
        await done;
        visits[key] = { made: window.mathMade, tex: window.shownTex() };
      }
      return visits;
    });
    for (const key of ['V', 'K', 'Q', 'scores']) expect(seen[key].made, key).toBe(0);
    // The formulas moved in are the ones a page opened at each step typesets there and then.
    for (const key of ['V', 'K']) {
      const fresh = await open(`?s=a+b+c+d+e+f&dm=8&dk=4&step=${key}`);
      await fresh.page.evaluate(SHOWN_TEX);
      expect(await fresh.page.evaluate(() => window.mathMade), key).toBeGreaterThan(0); // the counter sees KaTeX
      expect(seen[key].tex, key).toBe(await fresh.page.evaluate(() => window.shownTex()));
      expect(seen[key].tex, key).toContain('6 \\times 4');
      await fresh.context.close();
    }
    expect(problems.console).toEqual([]);
    await context.close();
  });
});
