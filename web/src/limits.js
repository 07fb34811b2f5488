// The sizes the page supports, named once (config.js bounds the settings by them).
// maxWidth bounds h·d_k, the width of Q, K, V and of the concatenated heads, like d_model.
export const LIMITS = { maxTokens: 128, maxDModel: 64, maxDk: 64, maxHeads: 8, maxWidth: 64 };
// The longest sentence read, in characters (a longer one is cut, with a note): a pasted
// paragraph of 128 words fits.
export const MAX_SENTENCE = 1600;
