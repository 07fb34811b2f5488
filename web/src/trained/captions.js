// The one-line caption of a shipped checkpoint's head, from what scripts/measure-heads.mjs measured
// (heads.js): "Layer 1, head 2: attends to the previous token (82.6 % of its weight on average)", or "no clear pattern" when its best
// pattern holds less than CLEAR of its weight. Layers and heads are numbered from 1 on the page.
import { CLEAR } from './head-patterns.js';
import { HEADS, MEASURED_ROWS } from './heads.js';

export { MEASURED_ROWS };

/** The measured entry of a head: `attention` 'decoder' (self), 'encoder' or 'cross'; layer and head 0-based. */
export const headEntry = (checkpoint, attention, layer, head) =>
  HEADS[checkpoint]?.find((h) => h.attention === attention && h.layer === layer && h.head === head) ?? null;

/** The caption of `entry` in `t`'s language (strings/trained.js), or '' without one. */
export function captionOf(t, entry) {
  if (!entry) return '';
  const clear = entry.score >= CLEAR;
  return t(clear ? 'trained.caption' : 'trained.captionNone', {
    layer: entry.layer + 1, head: entry.head + 1,
    kind: t(`trained.kind.${entry.kind}`), score: (entry.score * 100).toFixed(1),
  });
}

/** The caption of one head of a checkpoint (see headEntry), in `t`'s language. */
export const headCaption = (t, checkpoint, attention, layer, head) => captionOf(t, headEntry(checkpoint, attention, layer, head));
