// What the page shows of the reader (lab.loadReader: an encoder and a decoder trained on real text),
// read from the library and nothing else: every map, label, score and probability is the reader's
// own; the page only lays them out and writes a share as a percent. No DOM.

/** The reader's models, in the order the page offers them. */
export const READER_MODELS = ['encoder', 'decoder'];

/** The predictions shown under the decoder's maps. */
export const TOP_K = 5;

/**
 * A share (0…1) as the page writes it, in percent without the sign (the strings' own): one decimal
 * from 1 % up ("82.6"), two significant digits below ("0.049"), so a small share never reads as 0.
 */
export function percent(share) {
  const p = share * 100;
  return p >= 1 || p === 0 ? p.toFixed(1) : String(Number(p.toPrecision(2)));
}

/** The measured entry reader.heads gives `model`'s head (layer, head 0-based), or null. */
export const headOf = (reader, model, layer, head) => reader.heads.find((h) => h.model === model && h.layer === layer && h.head === head) ?? null;

/** Whether `model`'s head is the one reader.facts names for the pronoun goal in the reader's language. */
export function isPronounHead(reader, model, layer, head) {
  const p = reader.facts.pronounHead;
  return Boolean(p) && p.model === model && p.layer === layer && p.head === head;
}

/** Layers and heads of one of the reader's models (reader.models' settings). */
export function shapeOf(reader, model) {
  const c = reader.models[model];
  return { layers: model === 'encoder' ? c.encoderLayers : c.decoderLayers, heads: c.heads };
}

/** n × n visibility (1 = seen) of a decoder's causal maps: each row sees its own piece and those before. */
export function causalMask(n) {
  const bits = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) bits.fill(1, i * n, i * n + i + 1);
  return bits;
}

/**
 * The model view of `text` (BertViz's: every layer × head at once): `reader.attend(text, { model })`
 * as { model, tokens (its pieces, the decoder's <bos> first), truncated (the library's note, or
 * undefined), mask (the decoder's causal one), layers, heads, maps: [{ layer, head, matrix, entry
 * (reader.heads' measurement), pronoun }] } in reading order (layer by layer, head by head).
 */
export function modelView(reader, text, model = 'encoder') {
  const run = reader.attend(text, { model });
  const { layers, heads } = shapeOf(reader, model);
  const n = run.tokens.length;
  const maps = [];
  for (let layer = 0; layer < layers; layer++)
    for (let head = 0; head < heads; head++)
      maps.push({ layer, head, matrix: run.attention[layer][head], entry: headOf(reader, model, layer, head), pronoun: isPronounHead(reader, model, layer, head) });
  return { model, tokens: run.tokens, truncated: run.truncated, mask: model === 'decoder' ? causalMask(n) : undefined, layers, heads, maps };
}

/**
 * A head's caption's parts in `language`: { layer, head (from 1), label (reader.heads' own, in the
 * page's language, English where it has none), score (its measured share, as a percent) }.
 */
export function captionParts(entry, layer, head, language) {
  return { layer: layer + 1, head: head + 1, label: entry ? (entry.label[language] ?? entry.label.en) : '', score: entry ? percent(entry.score) : '' };
}

/** The decoder's most probable next pieces after `text` (reader.predict), each with its probability as a percent. */
export const predictions = (reader, text, topK = TOP_K) => reader.predict(text, { topK }).map((p) => ({ ...p, percent: percent(p.probability) }));

/** The pieces the reader's tokenizer makes of `text` (reader.tokenize), as shown ('▁' starts a word). */
export const piecesOf = (reader, text) => reader.tokenize(text).tokens;
