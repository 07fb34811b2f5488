// <attention-pooling>'s own rules, after the shared stylesheet (styles.js): the query chart is
// dragged with a pointer (no scrolling while it is) by its handle; the two cue heatmaps sit side
// by side when there is room.

export const POOLING_CSS = `
svg.query-chart { touch-action: none; }
svg.query-chart .handle { cursor: ew-resize; }
.cue-maps { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.cue-maps > div { min-width: 0; max-width: 100%; }
`;
