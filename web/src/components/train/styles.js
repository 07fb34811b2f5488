// <attention-train>'s own rules, after the shared stylesheet (styles.js): the form's buttons, the
// progress bar, the curves side by side and the grid of small attention maps.

export const TRAIN_CSS = `
.buttons { flex-direction: row; gap: 0.5rem; align-items: end; }
.status progress { width: min(28rem, 100%); height: 0.9rem; }
.status .numbers { font-variant-numeric: tabular-nums; }
/* Room kept for what training fills in, so its first report moves nothing below (less to lay out and paint). */
.status p, [data-role="try-output"] { min-height: 1.5em; }
.curves { min-height: 15.5rem; align-items: flex-start; }
.curves { display: flex; flex-wrap: wrap; gap: 1rem; }
.curves svg { max-width: 100%; height: auto; }
.curves figure { margin: 0; }
/* A redraw of a chart or of a map lays out and paints that box only, not the panel around it. */
.curves figure, .grid-row canvas { contain: layout paint; }
.curves, .grid { contain: layout; }
.curves figcaption { font-weight: 600; font-size: 0.9rem; }
.map-grid { display: flex; flex-direction: column; gap: 0.5rem; overflow-x: auto; }
.grid-row { display: flex; gap: 0.5rem; flex-wrap: wrap; }
.grid-row figure { margin: 0; --_cell: 1.2rem; }
#try-input { width: min(24rem, 80vw); }
#layers, #train-d-model, #train-seed { width: 7rem; }
#head-view { width: auto; }
.head-view line { stroke: var(--_accent, #0072B2); }
.head-view text { font-size: 0.75rem; fill: currentColor; }
.field small { max-width: 24rem; }
`;
