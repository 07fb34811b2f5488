// The reader's file (reader.bin): one tokenizer and two models in one container. Little-endian:
//   "ATRD"  u32 version (1)  u32 H  H bytes of UTF-8 JSON (the header)  encoder image  decoder image
// The header: { vocabulary (vocabulary.json), models: { encoder: { bytes, bos }, decoder: { bytes, bos } },
// heads: [{ model, layer, head, kind, score, closest?, label: { en, 'zh-CN' } }], languages: { en?, 'zh-CN'?:
// { corpus?, pronounHead?: { model, layer, head } } } }. The images are model.save()'s ("ATLM", any
// precision); bos: whether the model reads <bos> before the text's pieces. packReader writes one,
// parseReader checks every field before anything reaches the heap and names the one that is wrong.
import { AttentionError, fail } from '../errors.js';
import { createTokenizer } from './tokenizer.js';

const { INVALID_ARGUMENT } = AttentionError.codes;
export const READER_MAGIC = 'ATRD';
export const READER_VERSION = 1;
export const READER_LANGUAGES = ['en', 'zh-CN'];
export const READER_MODELS = ['encoder', 'decoder'];
const PREFIX = 12; // magic, version, header length

const bad = (fn, message) => fail(INVALID_ARGUMENT, `${fn}: ${message}`);
const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const isCount = (x) => Number.isInteger(x) && x >= 0;

/**
 * The bytes of a reader: pack what parseReader reads.
 * @param {{ vocabulary: object, encoder: Uint8Array, decoder: Uint8Array, bos?: { encoder?: boolean, decoder?: boolean }, heads?: object[], languages?: object }} parts
 */
export function packReader({ vocabulary, encoder, decoder, bos = {}, heads = [], languages = { en: {}, 'zh-CN': {} } }) {
  const header = {
    format: 'attention-lab reader',
    vocabulary,
    models: {
      encoder: { bytes: encoder.length, bos: bos.encoder ?? false },
      decoder: { bytes: decoder.length, bos: bos.decoder ?? true },
    },
    heads,
    languages,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(PREFIX + json.length + encoder.length + decoder.length);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(READER_MAGIC), 0);
  view.setUint32(4, READER_VERSION, true);
  view.setUint32(8, json.length, true);
  out.set(json, PREFIX);
  out.set(encoder, PREFIX + json.length);
  out.set(decoder, PREFIX + json.length + encoder.length);
  return out;
}

/**
 * The checked parts of a reader's bytes: { tokenizer, header, images: { encoder, decoder } } (the
 * images are views of `bytes`). The models' own checks (kinds, sizes) follow when they are loaded.
 */
export function parseReader(fn, bytes) {
  if (bytes.length < PREFIX) bad(fn, `${bytes.length} bytes is too short for a reader (it starts with "${READER_MAGIC}", a version and the header's length)`);
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (magic !== READER_MAGIC) bad(fn, `these bytes are not a reader: they start with ${JSON.stringify(magic)}, not "${READER_MAGIC}"`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== READER_VERSION) bad(fn, `the reader's format version is ${version}; this library reads version ${READER_VERSION}`);
  const headerBytes = view.getUint32(8, true);
  if (headerBytes > bytes.length - PREFIX) bad(fn, `the header's length is ${headerBytes} bytes but only ${bytes.length - PREFIX} follow (a truncated file?)`);
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(PREFIX, PREFIX + headerBytes)));
  } catch (error) {
    bad(fn, `the header is not UTF-8 JSON (${error.message})`);
  }
  if (!isObject(header)) bad(fn, 'the header must be a JSON object');
  let tokenizer;
  try {
    tokenizer = createTokenizer(header.vocabulary);
  } catch (error) {
    bad(fn, `header.vocabulary: ${error.message}`);
  }
  if (!isObject(header.models)) bad(fn, 'header.models must be an object { encoder, decoder }');
  let at = PREFIX + headerBytes;
  const images = {};
  for (const name of READER_MODELS) {
    const m = header.models[name];
    if (!isObject(m)) bad(fn, `header.models.${name} must be an object { bytes, bos }`);
    if (!isCount(m.bytes)) bad(fn, `header.models.${name}.bytes must be a whole number of bytes, got ${JSON.stringify(m.bytes)}`);
    if (typeof m.bos !== 'boolean') bad(fn, `header.models.${name}.bos must be true or false, got ${JSON.stringify(m.bos)}`);
    if (m.bytes > bytes.length - at) bad(fn, `header.models.${name}.bytes is ${m.bytes} but only ${bytes.length - at} bytes are left (a truncated file?)`);
    images[name] = bytes.subarray(at, at + m.bytes);
    at += m.bytes;
  }
  if (at !== bytes.length) bad(fn, `${bytes.length - at} bytes follow the decoder's image; a reader ends with it`);
  if (!Array.isArray(header.heads)) bad(fn, 'header.heads must be an array');
  header.heads.forEach((h, i) => {
    const where = `header.heads[${i}]`;
    if (!isObject(h)) bad(fn, `${where} must be an object`);
    headRef(fn, where, h);
    if (typeof h.kind !== 'string' || !h.kind) bad(fn, `${where}.kind must be a non-empty string, got ${JSON.stringify(h.kind)}`);
    if (typeof h.score !== 'number' || !Number.isFinite(h.score)) bad(fn, `${where}.score must be a finite number, got ${JSON.stringify(h.score)}`);
    if (h.closest !== undefined && (typeof h.closest !== 'string' || !h.closest)) bad(fn, `${where}.closest must be a non-empty string (the nearest kind of a head whose kind is 'none'), got ${JSON.stringify(h.closest)}`);
    if (!isObject(h.label)) bad(fn, `${where}.label must be an object { en, 'zh-CN' }`);
    for (const language of READER_LANGUAGES)
      if (typeof h.label[language] !== 'string') bad(fn, `${where}.label[${JSON.stringify(language)}] must be a string, got ${JSON.stringify(h.label[language])}`);
  });
  if (!isObject(header.languages)) bad(fn, "header.languages must be an object { en, 'zh-CN' }");
  for (const [language, facts] of Object.entries(header.languages)) {
    const where = `header.languages[${JSON.stringify(language)}]`;
    if (!READER_LANGUAGES.includes(language)) bad(fn, `${where}: the reader's languages are ${READER_LANGUAGES.join(', ')}`);
    if (!isObject(facts)) bad(fn, `${where} must be an object`);
    if (facts.corpus !== undefined && typeof facts.corpus !== 'string') bad(fn, `${where}.corpus must be a string`);
    if (facts.pronounHead !== undefined) {
      if (!isObject(facts.pronounHead)) bad(fn, `${where}.pronounHead must be an object { model, layer, head }`);
      headRef(fn, `${where}.pronounHead`, facts.pronounHead);
    }
  }
  return { tokenizer, header, images };
}

// { model, layer, head } of a header: the model named, whole numbers (their ranges are checked
// against the loaded models by checkHeadRanges).
function headRef(fn, where, h) {
  if (!READER_MODELS.includes(h.model)) bad(fn, `${where}.model must be 'encoder' or 'decoder', got ${JSON.stringify(h.model)}`);
  for (const key of ['layer', 'head']) if (!isCount(h[key])) bad(fn, `${where}.${key} must be a whole number ≥ 0, got ${JSON.stringify(h[key])}`);
}

/** Throws unless every head the header names exists in its model ({ encoder, decoder } configs). */
export function checkHeadRanges(fn, header, configs) {
  const check = (where, h) => {
    const c = configs[h.model];
    const layers = h.model === 'encoder' ? c.encoderLayers : c.decoderLayers;
    if (h.layer >= layers) bad(fn, `${where}.layer is ${h.layer} but the ${h.model} has ${layers} layers`);
    if (h.head >= c.heads) bad(fn, `${where}.head is ${h.head} but the ${h.model} has ${c.heads} heads`);
  };
  header.heads.forEach((h, i) => check(`header.heads[${i}]`, h));
  for (const [language, facts] of Object.entries(header.languages))
    if (facts.pronounHead) check(`header.languages[${JSON.stringify(language)}].pronounHead`, facts.pronounHead);
}
