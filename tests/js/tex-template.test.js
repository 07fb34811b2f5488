// The formulas typeset at build time (scripts/prerender-tex.mjs, web/src/tex-template.js): every
// formula the steps panel shows, at sizes and settings beyond those the build ran, has its template
// in the table, and a template with numbers put in is exactly what KaTeX typesets for those numbers.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { prerenderedTex, stepsFormulaKeys, typeset } from '../../scripts/prerender-tex.mjs';
import { stepTex, traceSteps } from '../../web/src/components/steps/trace-steps.js';
import { buildModel, normalise } from '../../web/src/model.js';
import steps from '../../web/src/strings/steps.js';
import { fillTemplate, sentinel, sentinelTex, texKey } from '../../web/src/tex-template.js';
import { loadLab } from './helpers.js';

const WORDS = ['the', 'cat', 'sat', 'on', 'mat', 'a', 'dog', 'ran', 'far', 'away', 'today', 'again'];
const WHERES = [steps.en['steps.texWhere'], steps['zh-CN']['steps.texWhere']];

describe('formulas typeset at build time', () => {
  let lab;
  let keys;
  let table;
  beforeAll(async () => {
    lab = await loadLab(true);
    keys = new Set(await stepsFormulaKeys());
    table = await prerenderedTex([...keys]);
  });

  it('a TeX key has a slot for every number, and none for a TeX with a # of its own', () => {
    expect(texKey("S' = \\frac{QK^{\\top}}{\\sqrt{d_k}} \\qquad \\big[\\, n \\times n = 12 \\times 0.5 \\,\\big]")).toEqual({
      key: "S' = \\frac{QK^{\\top}}{\\sqrt{d_k}} \\qquad \\big[\\, n \\times n = # \\times # \\,\\big]",
      numbers: ['12', '0.5'],
    });
    expect(texKey('\\# = 1').key).toBe(null);
  });

  it("every formula of the steps panel, for any sentence, widths, heads, mask and head shown, is in the table", () => {
    const configs = fc.record({
      n: fc.integer({ min: 1, max: WORDS.length }),
      heads: fc.integer({ min: 1, max: 8 }),
      dK: fc.integer({ min: 1, max: 12 }),
      dModel: fc.integer({ min: 1, max: 24 }),
      mask: fc.constantFrom('none', 'causal', 'padding'),
      validLen: fc.integer({ min: 0, max: 12 }),
      seed: fc.integer({ min: 0, max: 1000 }),
      head: fc.nat(),
      own: fc.constantFrom('seeded', 'qkv', 'weights'),
    });
    fc.assert(
      fc.property(configs, ({ n, heads, dK, dModel, mask, validLen, seed, head, own }) => {
        // Given weights take no mask (the panel refuses one, naming it).
        const config = normalise({ sentence: WORDS.slice(0, n).join(' '), heads, dK, dModel, mask: own === 'weights' ? 'none' : mask, validLen, seed });
        const width = config.heads * config.dK;
        const filled = (rows, cols, value) => ({ rows, cols, data: new Float32Array(rows * cols).fill(value) });
        const inputs = { seeded: undefined, qkv: { Q: filled(n, width, 0.5), K: filled(n, width, -0.25), V: filled(n, width, 1) }, weights: { weights: Array.from({ length: config.heads }, () => Array.from({ length: n }, () => Array(n).fill(1 / n))) } }[own];
        const model = buildModel(config, inputs, { accepts: ['seeded', 'x', 'qkv', 'weights'] });
        for (const step of traceSteps(lab, model, head % model.config.heads).steps)
          for (const where of WHERES) {
            const { key } = texKey(stepTex(step, model, where));
            if (!keys.has(key)) throw new Error(`not typeset at build time: ${key}`);
          }
      }),
      { seed: 20261206, numRuns: 150 },
    );
  });

  it('a template with numbers put in is what KaTeX typesets for those numbers', () => {
    const number = fc.oneof(fc.integer({ min: 0, max: 100_000 }).map(String), fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 999 })).map(([a, b]) => `${a}.${b}`));
    for (const key of keys) {
      const slots = key.split('#').length - 1;
      fc.assert(
        fc.property(fc.array(number, { minLength: slots, maxLength: slots }), (numbers) => {
          let k = 0;
          const tex = key.replaceAll('#', () => numbers[k++]);
          expect(fillTemplate(table[key], numbers)).toBe(typeset(tex));
        }),
        { seed: 7, numRuns: 12 },
      );
    }
  });

  it('the table is typeset from the sentinels, each drawn once as text and once in the MathML', () => {
    for (const key of keys) {
      const html = table[key];
      expect(html).toBe(typeset(sentinelTex(key)));
      expect(html).not.toMatch(/ style="/); // applied through the CSSOM in the page (a CSP's style-src)
      for (let k = 0; k < key.split('#').length - 1; k++) {
        expect(html.split(`>${sentinel(k)}<`)).toHaveLength(3);
        expect(html).toContain(`<mn>${sentinel(k)}</mn>`);
      }
    }
  });
});
