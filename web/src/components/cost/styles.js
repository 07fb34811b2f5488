// <attention-cost>'s own rules, after the shared stylesheet (styles.js): the four heatmaps side
// by side, the complexity table's values under their O(·), the remedies list, the measure grid,
// the two labelled formulas, the online-softmax table and the LSH buckets (each bucket a colour
// under its number, so the text keeps the page's contrast).

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
.formula-label { margin: 0.4rem 0 0; color: var(--_muted); font-size: 0.9rem; }
.formulas .formula { margin-top: 0.1rem; }
.online-table td, .online-table th { text-align: start; font-size: 0.8rem; }
.online-table td { font-family: var(--_mono); white-space: nowrap; }
.online-table thead th { white-space: normal; vertical-align: bottom; }
.online-table caption { text-align: start; caption-side: top; font-size: 0.9rem; padding-bottom: 0.3rem; }
.lsh-table td, .lsh-table th { text-align: center; font-size: 0.85rem; }
.lsh-table td.bucket { font-family: var(--_mono); border-bottom: 0.3rem solid var(--_bucket); }
.lsh-table .bucket-0 { --_bucket: #1f77b4; }
.lsh-table .bucket-1 { --_bucket: #ff7f0e; }
.lsh-table .bucket-2 { --_bucket: #2ca02c; }
.lsh-table .bucket-3 { --_bucket: #9467bd; }
.lsh-table caption { text-align: start; caption-side: top; white-space: nowrap; font-size: 0.9rem; padding-bottom: 0.3rem; }
[data-role=lsh] .cost-cell { margin-top: 0.6rem; }
`;
