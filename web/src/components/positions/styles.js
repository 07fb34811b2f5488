// <attention-positions>'s own rules, after the shared stylesheet (styles.js): the swap and
// rotation fieldsets, the rotation table and its "why" note.

export const POSITIONS_CSS = `
fieldset.controls { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0.4rem 0.8rem 0.6rem; }
fieldset.controls legend { font-weight: 600; font-size: 0.9rem; padding: 0 0.3rem; }
fieldset.controls input[type="number"] { width: 5rem; }
.stats caption { caption-side: top; text-align: start; font-weight: 600; padding-bottom: 0.2rem; color: var(--_fg); }
.stats td.num { font-family: var(--_mono); white-space: nowrap; }
.table-scroll { overflow-x: auto; max-width: 100%; }
.why { border-inline-start: 4px solid var(--_accent); padding: 0.2rem 0.6rem; background: var(--_surface); border-radius: 0 var(--_radius) var(--_radius) 0; }
`;
