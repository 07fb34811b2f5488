// Every panel, named once, in the explorer's tab order. `id` is the explorer's `panel` value (in
// links: `?panel=cost`), the tab's string key (`tab.<id>`) and the panel's strings file
// (web/src/strings/<id>.js); `tag` its element. The explorer's tabs, `defineAll`, the a11y test's
// list and the checks of components.d.ts and docs/embedding.md are derived from this table, so a
// new panel is one row here plus its folder (docs/architecture.md, "Where a change goes").
export const PANELS = [
  { id: 'steps', tag: 'attention-steps' },
  { id: 'heads', tag: 'attention-heads' },
  { id: 'compare', tag: 'attention-compare' },
  { id: 'scaling', tag: 'attention-scaling' },
  { id: 'pooling', tag: 'attention-pooling' },
  { id: 'cross', tag: 'attention-cross' },
  { id: 'positions', tag: 'attention-positions' },
  { id: 'cost', tag: 'attention-cost' },
  { id: 'transformer', tag: 'attention-transformer' },
  { id: 'decoding', tag: 'attention-decoding' },
  { id: 'train', tag: 'attention-train' },
  { id: 'backward', tag: 'attention-backward' },
];

/** The element that holds the input controls and every panel above. */
export const EXPLORER_TAG = 'attention-explorer';

/** A panel's row by id, or undefined. */
export const panelById = (id) => PANELS.find((p) => p.id === id);
