// The page state in the URL query, so a link reproduces a view (and a step).
const KEYS = {
  sentence: 's',
  seed: 'seed',
  dModel: 'dm',
  dK: 'dk',
  heads: 'h',
  mask: 'mask',
  validLen: 'vl',
  step: 'step',
  head: 'head',
  lang: 'lang',
  kernel: 'kernel',
  bandwidth: 'bw',
  panel: 'panel',
};

/** Read the known fields from a query string (unknown keys are ignored). */
export function readState(search) {
  const params = new URLSearchParams(search);
  const state = {};
  for (const [field, key] of Object.entries(KEYS)) if (params.has(key)) state[field] = params.get(key);
  return state;
}

/** Write the fields as a query string, in a stable order. */
export function writeState(state) {
  const params = new URLSearchParams();
  for (const [field, key] of Object.entries(KEYS))
    if (state[field] !== undefined && state[field] !== null && state[field] !== '') params.set(key, String(state[field]));
  return `?${params.toString()}`;
}
