// <attention-decoding>'s KV-cache memory, DOM-free: for a model shape (layers, query heads,
// key/value heads, head width) and a number of cached tokens, the bytes of the cache with every
// head its own keys and values (MHA), with groups of heads sharing them (GQA) and with one shared
// pair (MQA), each from lab.kvCacheBytes (float16 values, as models are usually served).
import { sharingVariants } from './settings.js';

/** Bytes per cached value: float16. */
export const BYTES_PER_VALUE = 2;

/** The cache's bytes for `kvHeads` key/value heads of the shape, `tokens` tokens, from the library. */
export const cacheBytes = (lab, shape, kvHeads, tokens) => lab.kvCacheBytes({ layers: shape.layers, kvHeads, headDim: shape.headDim, tokens, bytesPerValue: BYTES_PER_VALUE });

/**
 * The rows of the memory table: { id, kvHeads, perToken, total, ratio (of MHA's), own (the
 * shape's own sharing) }; a variant the head count cannot have (GQA for a prime) has kvHeads null.
 */
export function memoryRows(lab, shape, tokens) {
  const variants = sharingVariants(shape);
  const mha = cacheBytes(lab, shape, shape.heads, tokens);
  return variants.map(({ id, kvHeads }) => {
    if (kvHeads === null) return { id, kvHeads, own: false };
    const total = cacheBytes(lab, shape, kvHeads, tokens);
    return { id, kvHeads, perToken: cacheBytes(lab, shape, kvHeads, 1), total, ratio: total / mha, own: kvHeads === shape.kvHeads };
  });
}

/**
 * Which key/value head each query head reads, the library's rule (0-based: query head h reads
 * ⌊h·kvHeads/heads⌋, as lab.createKVCache does), grouped and numbered from 1 as the page numbers
 * heads: [{ kv, from, to }], query heads from … to sharing key/value head kv.
 */
export function headGroups(heads, kvHeads) {
  const groups = [];
  for (let h = 0; h < heads; h++) {
    const kv = Math.floor((h * kvHeads) / heads) + 1;
    const last = groups[groups.length - 1];
    if (last?.kv === kv) last.to = h + 1;
    else groups.push({ kv, from: h + 1, to: h + 1 });
  }
  return groups;
}

/** Bytes in binary units with three significant digits: 512 B, 1.50 KiB, 2.00 GiB. */
export function bytesText(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toPrecision(3)} ${units[u]}`;
}
