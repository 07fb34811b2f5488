// Measures what every head of every shipped checkpoint does and writes web/src/trained/heads.js, the
// captions of the trained views. For each checkpoint (lab.loadTrained) it decodes the validation rows
// of its task (one batch of ROWS from the validation split, seed SEED: rows the model never trained
// on) with the attention kept, and for every attention (encoder self, decoder self, cross) of every
// layer and head sums the weight on each pattern's positions (web/src/trained/head-patterns.js):
// a decoder-only model reads its whole row (teacher-forced), an encoder–decoder its source, its
// decoder rows what it wrote. Each head gets its best pattern: { attention, layer, head, kind, score }
// (layer and head 0-based as in the API; score: the mean weight on the pattern's positions, 0…1;
// under CLEAR the page says "no clear pattern"). tests/js/heads.test.js measures again and compares.
//   node scripts/measure-heads.mjs          (writes the file)
//   node scripts/measure-heads.mjs --print  (prints a table, writes nothing)
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { addPatterns, bestPattern } from '../web/src/trained/head-patterns.js';

export const SEED = 1000;
export const ROWS = 64;
export const CHECKPOINTS = ['dates', 'reverse', 'grammar', 'repeat'];
export const HEADS_FILE = new URL('../web/src/trained/heads.js', import.meta.url);

/** The rows of an lm batch without BOS and padding: each the ids the model reads after BOS. */
function lmRows(batch) {
  return Array.from({ length: batch.size }, (_, b) => {
    const row = Array.from(batch.input.subarray(b * batch.length + 1, (b + 1) * batch.length));
    const end = row.indexOf(0);
    return end < 0 ? row : row.slice(0, end);
  });
}

/** Every head of `model` (a checkpoint of lab.tasks[name]) measured on the validation rows. */
export function measureModel(lab, name, model) {
  const task = lab.tasks[name];
  const batch = task.batch({ seed: SEED, size: ROWS, split: 'validation' });
  const sums = {}; // `${attention}/${layer}/${head}` → pattern sums
  const add = (attention, maps, ctx) => maps.forEach((heads, layer) => heads.forEach((A, head) => addPatterns((sums[`${attention}/${layer}/${head}`] ??= {}), A, ctx)));
  const label = (ids) => Array.from(ids, (id) => task.vocabulary[id]);
  if (task.kind === 'seq2seq') {
    for (const { source } of batch.examples) {
      const ids = task.encode(source);
      const { tokens, attention } = model.generate(ids, { attention: true });
      const src = label(ids);
      const read = [task.vocabulary[task.bos], ...label(tokens)].slice(0, attention.decoder[0][0].length);
      add('encoder', attention.encoder, { rows: src, cols: src, causal: false });
      add('decoder', attention.decoder, { rows: read, cols: read, causal: true });
      add('cross', attention.cross, { rows: read, cols: src, causal: false, writes: label(tokens) });
    }
  } else {
    for (const ids of lmRows(batch)) {
      const { attention } = model.generate(ids, { attention: true, maxLength: 1 });
      const read = label([task.bos, ...ids]);
      add('decoder', attention.decoder, { rows: read, cols: read, causal: true });
    }
  }
  return Object.entries(sums).map(([key, s]) => {
    const [attention, layer, head] = key.split('/');
    return { attention, layer: Number(layer), head: Number(head), ...bestPattern(s) };
  });
}

/** { [checkpoint]: heads } for every shipped checkpoint, loaded from dist/. */
export async function measureAll(lab) {
  const out = {};
  for (const name of CHECKPOINTS) {
    const model = await lab.loadTrained(name);
    try {
      out[name] = measureModel(lab, name, model);
    } finally {
      model.dispose();
    }
  }
  return out;
}

/** The text of web/src/trained/heads.js for `heads`. */
export const headsModule = (heads) => `// Written by scripts/measure-heads.mjs (do not edit): every head of every shipped checkpoint,
// { attention, layer, head, kind, score }: its best pattern (web/src/trained/head-patterns.js) and the
// mean attention weight on that pattern's positions over ${ROWS} validation rows of its task (seed ${SEED}).
// Layers and heads are 0-based, as in the API; the page numbers them from 1.
export const MEASURED_ROWS = ${ROWS};
export const HEADS = {
${Object.entries(heads).map(([name, list]) => `  ${name}: [\n${list.map((h) => `    ${JSON.stringify(h)},`).join('\n')}\n  ],`).join('\n')}
};
`;

async function main(args) {
  const { init } = await import('../dist/training-node.js');
  const lab = await init({ simd: true });
  const heads = await measureAll(lab);
  if (args.includes('--print')) {
    for (const [name, list] of Object.entries(heads)) for (const h of list) console.log([name, h.attention, h.layer + 1, h.head + 1, h.kind, h.score].join('\t'));
    return;
  }
  writeFileSync(HEADS_FILE, headsModule(heads));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
