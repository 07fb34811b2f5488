// <attention-decoding>'s own rules, after the shared stylesheet (styles.js): its fieldsets, the
// heatmaps side by side, the memory table's numbers and the curve's legend.

export const DECODING_CSS = `
fieldset.controls { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0.4rem 0.8rem 0.6rem; }
fieldset.controls legend { font-weight: 600; font-size: 0.9rem; padding: 0 0.3rem; }
fieldset.controls input[type="number"] { width: 6rem; }
.decoding-grid { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.decoding-grid > figure { margin: 0.4rem 0; max-width: 100%; }
.decoding-grid > figure.chart { flex: 0 1 22rem; }
.status { min-height: 1.5em; }
.legend-line { display: flex; flex-wrap: wrap; gap: 0.8rem; font-size: 0.85rem; margin: 0.2rem 0; }
.stats caption { caption-side: top; text-align: start; font-weight: 600; padding-bottom: 0.2rem; color: var(--_fg); }
.stats td.num { font-family: var(--_mono); white-space: nowrap; text-align: end; }
.table-scroll { overflow-x: auto; max-width: 100%; }
.pair-charts { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.pair-charts svg { width: 150px; }
.decoding-grid > figure.chart:has(.pair-charts) { flex: 1 1 20rem; }
figure.kv-groups { margin: 0.6rem 0; }
figure.kv-groups figcaption { font-weight: 600; font-size: 0.9rem; }
.kv-strip { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: flex-end; margin: 0.3rem 0; }
.kv-group { display: flex; flex-direction: column; align-items: center; gap: 0.15rem; border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0.2rem; }
.kv-group.even .kv-query { border-style: dashed; }
.kv-queries { display: flex; flex-wrap: wrap; gap: 2px; max-width: 12rem; }
.kv-query { min-width: 1.4rem; text-align: center; font-size: 0.75rem; font-family: var(--_mono); border: 1px solid var(--_accent); border-radius: 2px; }
.kv-head { font-size: 0.75rem; font-weight: 600; }
.kv-more { font-size: 0.8rem; align-self: center; }
.alibi-head { flex: 0 1 auto; width: min-content; min-width: min(14rem, 100%); max-width: 100%; }
.alibi-head h4 { margin: 0.4rem 0 0; font-size: 0.95rem; }
.alibi-head figure.heatmap { margin: 0.3rem 0; }
`;
