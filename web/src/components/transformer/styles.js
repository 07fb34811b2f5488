// <attention-transformer>'s own rules, after the shared stylesheet (styles.js): the block's
// two columns, the flow of steps as a vertical tablist coloured by sublayer (a row that
// scrolls sideways in a narrow container), the heads grid and the statistics table.

export const TRANSFORMER_CSS = `
.root { container-type: inline-size; }
.block { display: grid; grid-template-columns: minmax(11rem, 15rem) minmax(0, 1fr); gap: 0.5rem 1.2rem; align-items: start; margin-top: 0.5rem; }
.flow[role="tablist"] { flex-direction: column; flex-wrap: nowrap; gap: 0; margin: 0; }
.flow [role="tab"] { display: flex; justify-content: space-between; gap: 0.5rem; text-align: start; width: 100%; border-inline-start-width: 6px; font-size: 0.88rem; }
.flow [role="tab"] .tab-shape { font-family: var(--_mono); font-size: 0.75rem; white-space: nowrap; }
.flow .arrow { display: block; text-align: center; color: var(--_muted); line-height: 1; font-size: 0.8rem; padding: 1px 0; }
.flow .sub1 { border-inline-start-color: #0072b2; }
.flow .sub2 { border-inline-start-color: #e69f00; }
.flow .sub0 { border-inline-start-color: var(--_border); }
.sublayers { display: flex; flex-direction: column; gap: 0.2rem; font-size: 0.8rem; color: var(--_muted); margin-top: 0.4rem; }
.sublayers .key1, .sublayers .key2 { display: inline-block; width: 0.4rem; height: 0.9rem; vertical-align: middle; margin-inline-end: 0.35rem; }
.sublayers .key1 { background: #0072b2; }
.sublayers .key2 { background: #e69f00; }
.step-title { margin-top: 0; }
.step-box.off { content-visibility: hidden; }
.why { border-inline-start: 4px solid var(--_accent); padding: 0.2rem 0.6rem; background: var(--_surface); border-radius: 0 var(--_radius) var(--_radius) 0; }
.heads-grid { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: flex-start; }
.heads-grid figure.heatmap .export, .heads-grid figure.heatmap .readout { display: none; }
.stats caption { caption-side: top; text-align: start; font-weight: 600; padding-bottom: 0.2rem; color: var(--_fg); }
.stats td.num { font-family: var(--_mono); }
label.check { display: inline-flex; gap: 0.4rem; align-items: center; font-weight: 600; }
label.check input { min-height: 0; width: 1.1rem; height: 1.1rem; accent-color: var(--_accent); }
@container (max-width: 44rem) {
  .block { grid-template-columns: minmax(0, 1fr); }
  .flow[role="tablist"] { flex-direction: row; overflow-x: auto; padding-bottom: 0.3rem; }
  .flow [role="tab"] { flex: 0 0 auto; width: auto; border-inline-start-width: 1px; border-bottom-width: 5px; }
  .flow .sub1 { border-bottom-color: #0072b2; }
  .flow .sub2 { border-bottom-color: #e69f00; }
  .flow .arrow { display: none; }
}
`;
