// The page state in the URL query, so a link reproduces a view (and a step). The fields and
// their keys (the input model's settings, the explorer's view, the panels' own settings and the
// typed matrices) are defined in config.js; the keys are part of every link already shared.
import { URL_KEYS } from './config.js';
import { typedRows } from './matrix-input.js';

/** Read the known fields from a query string (unknown keys are ignored). */
export function readState(search) {
  const params = new URLSearchParams(search);
  const state = {};
  for (const [field, key] of URL_KEYS) if (params.has(key)) state[field] = params.get(key);
  return state;
}

/** Write the fields as a query string, in a stable order. */
export function writeState(state) {
  const params = new URLSearchParams();
  for (const [field, key] of URL_KEYS)
    if (state[field] !== undefined && state[field] !== null && state[field] !== '') params.set(key, String(state[field]));
  return `?${params.toString()}`;
}

/**
 * A matrix typed by hand in the URL's short form: rows joined by ';', numbers by ',', the numbers
 * as typed ("1 0\n0 2" → "1,0;0,2"). Null when the text is not a matrix of finite numbers.
 */
export function encodeMatrixText(text) {
  const rows = typedRows(text);
  if (rows.length === 0 || rows.some((r) => r.length !== rows[0].length || r.some((v) => !Number.isFinite(Number(v))))) return null;
  return rows.map((r) => r.join(',')).join(';');
}

/** The short form back as text to edit: one row per line, numbers separated by spaces. */
export function decodeMatrixText(short) {
  return String(short).slice(0, 4000).split(';').map((row) => row.split(',').join(' ')).join('\n');
}
