// Every head of the reader's models labelled by measurement, with the patterns the other checkpoints'
// captions use (web/src/trained/head-patterns.js, READER_KINDS): on held-out text of both languages
// (windows of the validation splits, and the generated dev pronoun sentences for 'pronoun-referent'),
// a head's score for a kind is the mean weight on the kind's positions over the rows where it applies;
// its kind is the best one, or 'none' under CLEAR (its closest kind kept). The label is the kind's
// caption in both languages (web/src/strings/trained.js), or for 'none' "no clear pattern; closest: …".
import { BOS } from '../../bindings/reader/tokenizer.js';
import strings from '../../web/src/strings/trained.js';
import { addPatterns, bestPattern, CLEAR, READER_KINDS } from '../../web/src/trained/head-patterns.js';
import { MAX_LENGTH, SEEDS } from './recipe.mjs';
import { corpusWindows, piecesIn, tokenizer } from './rows.mjs';
import { pronounPairs } from './sentences.mjs';

export const HEAD_ROWS = { windows: 32, pairs: 100 }; // per language
const TEXT_KINDS = READER_KINDS.filter((k) => k !== 'pronoun-referent');

/** A piece as the patterns compare it: without the word-start marker. */
const shown = (id) => tokenizer.pieces[id].replace(/^▁/, '');

/** The rows a model reads in measurement: { ids, referent? } (ids without <bos>). */
export function headRows() {
  const rows = [];
  for (const language of ['en', 'zh']) {
    const windows = corpusWindows(language, 'validation', { seed: SEEDS.heldOut[language] + 1, length: MAX_LENGTH - 1 });
    for (let i = 0; i < HEAD_ROWS.windows; i++) rows.push({ ids: windows.next().value });
    for (const pair of pronounPairs({ language, split: 'dev' }).slice(0, HEAD_ROWS.pairs))
      for (const half of pair.halves) {
        const { ids, offsets } = tokenizer.tokenize(half.text, { maxLength: MAX_LENGTH - 1 });
        const at = piecesIn(offsets, half.pronoun.span)[0];
        rows.push({ ids: Array.from(ids), referent: { at, columns: piecesIn(offsets, half.candidates[half.referent].span) } });
      }
  }
  return rows;
}

const toArrays = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));

/** The catalogue of one model ('encoder' reads the ids, 'decoder' <bos> first): one entry per layer and head. */
export function measureHeads(model, name, rows = headRows()) {
  const bos = name === 'decoder';
  const sums = {};
  for (const row of rows) {
    const ids = bos ? [BOS, ...row.ids] : row.ids;
    const tokens = ids.map(shown);
    const shift = bos ? 1 : 0;
    const referent = row.referent && { at: row.referent.at + shift, columns: row.referent.columns.map((j) => j + shift) };
    const ctx = { rows: tokens, cols: tokens, causal: bos, referent };
    const { attention } = model.attend(Int32Array.from(ids));
    attention.forEach((layer, l) => layer.forEach((m, h) => addPatterns((sums[`${l}/${h}`] ??= {}), toArrays(m), ctx, referent ? ['pronoun-referent'] : TEXT_KINDS)));
  }
  return Object.entries(sums).map(([key, s]) => {
    const [layer, head] = key.split('/').map(Number);
    const best = bestPattern(s);
    const kind = best.score >= CLEAR ? best.kind : 'none';
    const named = (language, k) => strings[language][`trained.kind.${k}`];
    const label = (language) => (kind === 'none' ? strings[language]['trained.unclear'].replace('{kind}', named(language, best.kind)) : named(language, kind));
    return { model: name, layer, head, kind, score: best.score, ...(kind === 'none' ? { closest: best.kind } : {}), label: { en: label('en'), 'zh-CN': label('zh-CN') } };
  });
}
