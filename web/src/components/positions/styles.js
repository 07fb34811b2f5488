// <attention-positions>'s own rules, after the shared stylesheet (styles.js): the swap fieldset.

export const POSITIONS_CSS = `
fieldset.controls { border: 1px solid var(--_border); border-radius: var(--_radius); padding: 0.4rem 0.8rem 0.6rem; }
fieldset.controls legend { font-weight: 600; font-size: 0.9rem; padding: 0 0.3rem; }
`;
