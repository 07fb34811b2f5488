// <attention-cross>'s own rules, after the shared stylesheet (styles.js): widths for the source
// sentence and valid-lengths fields and their help.

export const CROSS_CSS = `
#source { width: min(24rem, 80vw); }
#valid-lens { width: min(16rem, 80vw); }
.field small { max-width: 24rem; }
`;
