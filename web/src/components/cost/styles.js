// <attention-cost>'s own rules, after the shared stylesheet (styles.js): the four heatmaps side
// by side, the complexity table's values under their O(·), the remedies list, the measure grid.

export const COST_CSS = `
.cost-grid { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.cost-cell { flex: 0 1 auto; width: min-content; min-width: min(15rem, 100%); max-width: 100%; }
.cost-cell figure.heatmap { margin-top: 0; }
.cost-cell .note { margin-top: 0; }
.cost-table td, .cost-table th { text-align: start; }
.cost-table .value { display: block; color: var(--_muted); font-family: var(--_mono); font-size: 0.8rem; }
.remedies { margin: 0.3rem 0; padding-inline-start: 1.2rem; }
.remedies li { display: list-item; margin: 0.3rem 0; }
.status { min-height: 1.5em; }
.measure-grid > details { flex: 1 0 100%; }
.measure-grid > figure { margin: 0.4rem 0; }
`;
