// <attention-compare>'s own rules, after the shared stylesheet (styles.js): the table naming the
// three scoring functions beside their formulas, and the D2L 10.3 example's button.

export const COMPARE_CSS = `
.scorings { border-collapse: collapse; margin: 0.4rem 0; }
.scorings th { max-width: none; text-align: start; color: var(--_fg); padding: 0.15rem 0.75rem 0.15rem 0; }
.scorings td.formula { margin: 0; padding: 0 0.5rem; }
.scorings .katex-display { margin: 0.15rem 0; }
.scorings .katex-display > .katex { text-align: start; }
.d2l { margin: 0.6rem 0; }
.d2l section { margin-top: 0.4rem; }
`;
