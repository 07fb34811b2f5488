// <attention-pooling>'s own rules, after the shared stylesheet (styles.js): the query chart is
// dragged with a pointer (no scrolling while it is) by its handle.

export const POOLING_CSS = `
svg.query-chart { touch-action: none; }
svg.query-chart .handle { cursor: ew-resize; }
`;
