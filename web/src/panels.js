// Every panel, named once, in the explorer's tab order. `id` is the explorer's `panel` value (in
// links: `?panel=cost`), the tab's string key (`tab.<id>`) and the panel's strings file
// (web/src/strings/<id>.js); `tag` its element; `module` the file that defines it (loaded on first
// show by panel-loader.js); `strings` the string tables its code uses: its own, and those of code it
// shares with another panel (tests/js/panel-strings.test.js reads the code to check). Plain data,
// read by the build and the tests too. The explorer's tabs, `defineAll`, the per-panel entry points
// of the build (scripts/build-web.mjs), the a11y test's list and the checks of components.d.ts and
// docs/embedding.md are derived from this table, so a new panel is one row here plus its folder
// (docs/architecture.md, "Where a change goes").
export const PANELS = [
  { id: 'steps', tag: 'attention-steps', module: './components/steps/attention-steps.js', strings: ['steps', 'heads', 'trained', 'reader'] },
  { id: 'heads', tag: 'attention-heads', module: './components/attention-heads.js', strings: ['heads', 'steps', 'trained', 'reader'] },
  { id: 'compare', tag: 'attention-compare', module: './components/attention-compare.js', strings: ['compare'] },
  { id: 'scaling', tag: 'attention-scaling', module: './components/attention-scaling.js', strings: ['scaling'] },
  { id: 'pooling', tag: 'attention-pooling', module: './components/pooling/attention-pooling.js', strings: ['pooling'] },
  { id: 'cross', tag: 'attention-cross', module: './components/cross/attention-cross.js', strings: ['cross', 'trained'] },
  { id: 'positions', tag: 'attention-positions', module: './components/positions/attention-positions.js', strings: ['positions'] },
  { id: 'cost', tag: 'attention-cost', module: './components/cost/attention-cost.js', strings: ['cost'] },
  { id: 'transformer', tag: 'attention-transformer', module: './components/transformer/attention-transformer.js', strings: ['transformer', 'steps', 'trained', 'reader'] },
  { id: 'decoding', tag: 'attention-decoding', module: './components/decoding/attention-decoding.js', strings: ['decoding'] },
  { id: 'train', tag: 'attention-train', module: './components/train/attention-train.js', strings: ['train', 'trained'] },
  { id: 'backward', tag: 'attention-backward', module: './components/backward/attention-backward.js', strings: ['backward', 'steps', 'trained', 'reader'] },
];

/** The element that holds the input controls and every panel above. */
export const EXPLORER_TAG = 'attention-explorer';

/** A panel's row by id, or undefined. */
export const panelById = (id) => PANELS.find((p) => p.id === id);
