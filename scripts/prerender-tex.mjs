// The formulas typeset at build time: every formula the steps panel can show, as a template with its
// numbers taken out (web/src/tex-template.js), typeset by KaTeX here so that a page showing only that
// panel does not fetch KaTeX's script (about 76 KB gzip). Any other formula is typeset by KaTeX in the
// page, loaded on first use (web/src/tex.js). The steps panel's formulas are collected by running it:
// its steps (web/src/components/steps/trace-steps.js) on the library in dist/, for every head count,
// mask and way of giving numbers, in both languages.
import katex from 'katex';

import { init } from '../dist/node.js';
import { buildModel, normalise } from '../web/src/model.js';
import { stepTex, traceSteps } from '../web/src/components/steps/trace-steps.js';
import steps from '../web/src/strings/steps.js';
import { sentinelTex, texKey } from '../web/src/tex-template.js';

const SENTENCE = 'the cat sat on the mat';
const MASKS = ['none', 'causal', 'padding'];
// Head counts 1 to 5: one head; the concatenation's formula written out for 2 and 3; elided from 4.
const HEADS = [1, 2, 3, 4, 5];

/** A rows × cols matrix of small numbers. */
function matrix(rows, cols) {
  return { rows, cols, data: new Float32Array(rows * cols).map((_, i) => ((i * 7) % 11) / 10 - 0.5) };
}

/** The ways a page gives the steps panel its numbers: seeded, its own Q, K, V, its own weights (one n×n per head). */
function inputsFor(heads, dK, n) {
  const uniform = Array.from({ length: heads }, () => Array.from({ length: n }, () => Array(n).fill(1 / n)));
  return [undefined, { Q: matrix(n, heads * dK), K: matrix(n, heads * dK), V: matrix(n, heads * dK) }, { weights: uniform }];
}

/** Every TeX key the steps panel can typeset. */
export async function stepsFormulaKeys() {
  const lab = await init();
  const keys = new Set();
  const wheres = [steps.en['steps.texWhere'], steps['zh-CN']['steps.texWhere']];
  for (const heads of HEADS)
    for (const mask of MASKS) {
      const config = normalise({ sentence: SENTENCE, heads, mask });
      const n = SENTENCE.split(' ').length;
      for (const inputs of inputsFor(heads, config.dK, n)) {
        let model;
        try {
          model = buildModel(config, inputs, { accepts: ['seeded', 'x', 'qkv', 'weights'] });
        } catch {
          continue; // a way of giving numbers this head count does not take
        }
        for (let head = 0; head < heads; head++)
          for (const step of traceSteps(lab, model, head).steps) for (const where of wheres) keys.add(texKey(stepTex(step, model, where)).key);
      }
    }
  keys.delete(null);
  return [...keys].sort();
}

/** KaTeX's HTML for `tex` with its style attributes renamed (tex.js applies them through the CSSOM). */
export function typeset(tex) {
  const html = katex.renderToString(tex, { displayMode: true, throwOnError: false, output: 'htmlAndMathml' });
  return html.replaceAll(' style="', ' data-katex-style="');
}

/** { key: typeset HTML with sentinel numbers } for every key. */
export async function prerenderedTex(keys) {
  keys ??= await stepsFormulaKeys();
  return Object.fromEntries(keys.map((key) => [key, typeset(sentinelTex(key))]));
}
