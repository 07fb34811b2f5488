// lab.loadReader: "a model that knows the reader's words": one tokenizer, a bidirectional encoder
// ('mlm') and a causal decoder ('lm'), read from one file (bundle.js). attend shows a text's
// attention (model.attend: the maps the core computed; with trace, each head's steps recomputed by
// selfAttention from the layer's input, which the core also returns); predict is the decoder's
// next piece. The shipped file is dist/checkpoints/reader/reader.bin, fetched on first use by the
// entry's reader (training.js: fetch; training-node.js: the file system), as loadTrained does.
import { AttentionError, fail } from '../errors.js';
import { attentionOps } from '../ops/attention.js';
import { trainingOps } from '../train/training.js';
import { MAX_CHECKPOINT_BYTES, toUrl } from '../train/trained.js';
import { checkOptions, nearestName } from '../validate.js';
import { BOS } from './tokenizer.js';
import { checkHeadRanges, parseReader, READER_LANGUAGES, READER_MODELS } from './bundle.js';

const { DISPOSED, INVALID_ARGUMENT } = AttentionError.codes;
const FN = 'loadReader';
const KINDS = { encoder: 'mlm', decoder: 'lm' };

/** The shipped reader's URL: a literal beside this module, so that bundlers emit the file as they do the other checkpoints. */
export const readerUrl = () => new URL('../checkpoints/reader/reader.bin', import.meta.url);

const describe = (x) => (typeof x === 'string' ? JSON.stringify(x) : x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x === 'object' ? 'an object' : String(x));

function language(fn, value = 'en') {
  if (!READER_LANGUAGES.includes(value)) {
    const near = typeof value !== 'string' ? undefined
      : nearestName(value, READER_LANGUAGES) ?? READER_LANGUAGES.find((l) => l.toLowerCase().startsWith(value.toLowerCase().slice(0, 2)));
    fail(INVALID_ARGUMENT, `${fn}: language is ${describe(value)}${near ? ` (did you mean ${near}?)` : ''}; the reader's languages are ${READER_LANGUAGES.join(', ')}`);
  }
  return value;
}

async function readerBytes(fn, bytes, url, read) {
  if (bytes !== undefined && url !== undefined) fail(INVALID_ARGUMENT, `${fn}: give bytes or url, not both`);
  if (bytes === undefined) return read(fn, url === undefined ? readerUrl() : toUrl(fn, url));
  if (!(bytes instanceof Uint8Array)) fail(INVALID_ARGUMENT, `${fn}: bytes must be a Uint8Array (the contents of reader.bin), got ${describe(bytes)}`);
  // Before anything is copied into the heap.
  if (bytes.length > MAX_CHECKPOINT_BYTES) fail(INVALID_ARGUMENT, `${fn}: bytes holds ${bytes.length} bytes, more than a reader (at most ${MAX_CHECKPOINT_BYTES})`);
  return bytes;
}

/** A turn of the event loop: the page handles input between the stages of a load. */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Both models of a parsed bundle, checked against each other and the tokenizer; none kept if one is
 * refused. Each is loaded in a task of its own (in Chromium here both in one task held the page for
 * 161 ms; one at a time, the longest task of a load is 89 ms).
 */
async function loadModels(fn, loadTransformer, { tokenizer, header, images }) {
  const models = {};
  try {
    for (const name of READER_MODELS) {
      await nextTask();
      try {
        models[name] = loadTransformer(images[name]);
      } catch (error) {
        if (error instanceof AttentionError) throw Object.assign(new AttentionError(error.code, `${fn}: the ${name}: ${error.message}`), { cause: error });
        throw error;
      }
      const c = models[name].config;
      if (c.kind !== KINDS[name]) fail(INVALID_ARGUMENT, `${fn}: the ${name} is a '${c.kind}' model; a reader's ${name} is '${KINDS[name]}'`);
      if (c.vocabSize !== tokenizer.size) fail(INVALID_ARGUMENT, `${fn}: the ${name}'s vocabSize is ${c.vocabSize} but the reader's vocabulary has ${tokenizer.size} pieces`);
      if (!c.scaled) fail(INVALID_ARGUMENT, `${fn}: the ${name}'s attention is unscaled; a reader's models use scaled dot-product attention`);
    }
    const [e, d] = [models.encoder.config, models.decoder.config];
    if (e.maxLength !== d.maxLength) fail(INVALID_ARGUMENT, `${fn}: the encoder's maxLength is ${e.maxLength} but the decoder's is ${d.maxLength}; a reader's models read the same length`);
    checkHeadRanges(fn, header, { encoder: e, decoder: d });
    return models;
  } catch (error) {
    for (const model of Object.values(models)) model.dispose();
    throw error;
  }
}

/**
 * The text's pieces as a model reads them: <bos> first when it does, at most maxLength in all: the
 * first ones, with the tokenizer's truncated note, or (last: predict) the last ones.
 */
function piecesOf(fn, tokenizer, text, { bos, maxLength }, { last = false } = {}) {
  if (typeof text !== 'string') fail(INVALID_ARGUMENT, `${fn}: text must be a string, got ${describe(text)}`);
  if (text.length === 0) fail(INVALID_ARGUMENT, `${fn}: text is empty; give at least one character`);
  const room = maxLength - (bos ? 1 : 0);
  const all = tokenizer.tokenize(text);
  const n = all.ids.length;
  let { ids, tokens } = all;
  let truncated;
  if (n > room && last) [ids, tokens] = [ids.subarray(n - room), tokens.slice(n - room)];
  else if (n > room) ({ ids, tokens, truncated } = tokenizer.tokenize(text, { maxLength: room }));
  const read = bos ? Int32Array.of(BOS, ...ids) : ids;
  return { ids: read, tokens: bos ? [tokenizer.pieces[BOS], ...tokens] : tokens, truncated };
}

/** Head h's columns of a d × d projection: d × d_k. */
function headColumns(W, h, heads) {
  const dk = W.cols / heads;
  const data = new Float32Array(W.rows * dk);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols + h * dk, i * W.cols + (h + 1) * dk), i * dk);
  return { rows: W.rows, cols: dk, data };
}

function makeReader(context, lang, { tokenizer, header }, models) {
  const { selfAttention } = attentionOps(context);
  const bos = Object.fromEntries(READER_MODELS.map((m) => [m, header.models[m].bos]));
  let projections = null; // each head's columns of W_Q, W_K, W_V per model and layer, made on the first trace
  let disposed = false;
  const alive = (fn) => {
    if (disposed) fail(DISPOSED, `${fn}: this reader was disposed; load a new one with lab.loadReader()`);
  };

  // projections[name][layer][head] = { Wq, Wk, Wv }, made once: a trace reads them, not copies.
  function weightsOf(name, layer) {
    projections ??= {};
    if (!projections[name]) {
      const p = models[name].parameters();
      const { heads } = models[name].config;
      const layers = name === 'encoder' ? models[name].config.encoderLayers : models[name].config.decoderLayers;
      projections[name] = Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, h) => ({
        Wq: headColumns(p[`${name}.${l}.attention.w_q`], h, heads),
        Wk: headColumns(p[`${name}.${l}.attention.w_k`], h, heads),
        Wv: headColumns(p[`${name}.${l}.attention.w_v`], h, heads),
      })));
    }
    return projections[name][layer];
  }

  function attend(text, options) {
    const fn = 'reader.attend';
    alive(fn);
    const { model: name = 'encoder', trace = false } = checkOptions(fn, options, ['model', 'trace']);
    if (!READER_MODELS.includes(name)) fail(INVALID_ARGUMENT, `${fn}: model is ${describe(name)}; give 'encoder' or 'decoder'`);
    if (typeof trace !== 'boolean') fail(INVALID_ARGUMENT, `${fn}: trace must be true or false, got ${describe(trace)}`);
    const model = models[name];
    const { ids, tokens, truncated } = piecesOf(fn, tokenizer, text, { bos: bos[name], maxLength: model.config.maxLength });
    const out = model.attend(ids, { inputs: trace, logits: false });
    const result = { model: name, tokens, attention: out.attention };
    if (truncated) result.truncated = truncated;
    if (trace) {
      // Each head's steps are computed when first read (a view that shows one head pays for one).
      const { heads } = model.config;
      result.steps = out.inputs.map((X, l) => {
        const W = weightsOf(name, l); // taken now: a head's steps may be read after dispose()
        const traceOf = (h) => selfAttention(X, { ...W[h], ...(name === 'decoder' ? { mask: 'causal' } : {}), trace: true }).steps;
        const row = new Array(heads);
        for (let h = 0; h < heads; h++) {
          let steps;
          Object.defineProperty(row, h, { enumerable: true, get: () => (steps ??= traceOf(h)) });
        }
        return row;
      });
    }
    return result;
  }

  function predict(text, options) {
    const fn = 'reader.predict';
    alive(fn);
    const { topK = 5 } = checkOptions(fn, options, ['topK']);
    const V = tokenizer.size;
    if (!Number.isInteger(topK) || topK < 1 || topK > V) fail(INVALID_ARGUMENT, `${fn}: topK must be a whole number from 1 to ${V} (the vocabulary), got ${describe(topK)}`);
    const model = models.decoder;
    const { ids } = piecesOf(fn, tokenizer, text, { bos: bos.decoder, maxLength: model.config.maxLength }, { last: true });
    const { logits } = model.attend(ids);
    // 1. the last row; 2. its max; 3. exp-sum in float64; 4. the topK largest, normalised
    const row = logits.data.subarray((logits.rows - 1) * V, logits.rows * V);
    let max = -Infinity;
    for (let j = 0; j < V; j++) if (row[j] > max) max = row[j];
    let sum = 0;
    for (let j = 0; j < V; j++) sum += Math.exp(row[j] - max);
    const order = Array.from({ length: V }, (_, j) => j).sort((a, b) => row[b] - row[a] || a - b);
    return order.slice(0, topK).map((id) => ({ token: tokenizer.pieces[id], id, probability: Math.exp(row[id] - max) / sum }));
  }

  const facts = header.languages[lang] ?? {};
  const reader = {
    language: lang,
    /** What the reader's file says of this language: the corpus, the head reported for the pronoun goal. */
    facts: Object.freeze({ ...facts, ...(facts.pronounHead ? { pronounHead: Object.freeze({ ...facts.pronounHead }) } : {}) }),
    heads: Object.freeze(header.heads.map((h) => Object.freeze({
      model: h.model, layer: h.layer, head: h.head, kind: h.kind, score: h.score, ...(h.closest === undefined ? {} : { closest: h.closest }),
      label: Object.freeze({ en: h.label.en, 'zh-CN': h.label['zh-CN'] }),
    }))),
    maxLength: models.encoder.config.maxLength,
    tokenizer,
    models: Object.freeze({ encoder: models.encoder.config, decoder: models.decoder.config }),
    tokenize(text) {
      const fn = 'reader.tokenize';
      alive(fn);
      if (typeof text !== 'string') fail(INVALID_ARGUMENT, `${fn}: text must be a string, got ${describe(text)}`);
      const { tokens, ids, offsets } = tokenizer.tokenize(text);
      return { tokens, ids, offsets };
    },
    attend,
    predict,
    /** A copy of every named parameter of one model, as TransformerModel.parameters() gives them. */
    parameters(name) {
      const fn = 'reader.parameters';
      alive(fn);
      if (!READER_MODELS.includes(name)) fail(INVALID_ARGUMENT, `${fn}: model is ${describe(name)}; give 'encoder' or 'decoder'`);
      return models[name].parameters();
    },
    get disposed() {
      return disposed;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      projections = null;
      for (const model of Object.values(models)) model.dispose();
    },
  };
  return reader;
}

/**
 * The family of an entry (read as trainedFamily's: (fn, url) → Promise<Uint8Array>).
 * @param {(fn: string, url: URL) => Promise<Uint8Array>} read
 */
export const readerFamily = (read) => (context) => {
  const { loadTransformer } = trainingOps(context);
  return {
    async loadReader(options) {
      const { language: lang, bytes, url } = checkOptions(FN, options, ['language', 'bytes', 'url']);
      const chosen = language(FN, lang);
      const parsed = parseReader(FN, await readerBytes(FN, bytes, url, read));
      if (!Object.hasOwn(parsed.header.languages, chosen))
        fail(INVALID_ARGUMENT, `${FN}: this reader has no language ${JSON.stringify(chosen)}; it has ${Object.keys(parsed.header.languages).join(', ') || 'none'}`);
      return makeReader(context, chosen, parsed, await loadModels(FN, loadTransformer, parsed));
    },
  };
};
