// <attention-backward>'s own rules, after the shared stylesheet (styles.js): the saturation box
// (slider, readout, the table of every factor) and the stepper's forward / backward groups.

export const BACKWARD_CSS = `
.saturation { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0.4rem 0.7rem; margin: 0.6rem 0; background: var(--_surface); }
.saturation h3 { margin: 0 0 0.3rem; font-size: 1rem; }
.saturation input[type="range"] { width: min(20rem, 80vw); }
.saturation .readout-line { font-family: var(--_mono); font-size: 0.85rem; }
.stats td.num { font-family: var(--_mono); text-align: end; }
.stats tr.current th, .stats tr.current td { font-weight: 700; background: var(--_bg); }
[role="tab"].forward { border-style: dashed; }
.step-title { margin-top: 0.4rem; }
`;
