// What a trained head does, measured: the mean attention weight a head puts on the positions of a
// pattern (the previous token, the first token, itself, punctuation, the token after an earlier
// occurrence of the current one, the source character the decoder writes), over the rows where the
// pattern applies. DOM-free and library-free: scripts/measure-heads.mjs runs it over each shipped
// checkpoint's validation rows and writes web/src/trained/heads.js; the trained views caption each
// head with it (captions.js).

/** The patterns of self-attention (encoder or decoder) and of cross-attention, in order of preference on a tie. */
export const SELF_KINDS = ['previous-token', 'first-token', 'diagonal', 'punctuation', 'induction'];
export const CROSS_KINDS = ['alignment', 'first-token'];
/**
 * The reader's self-attention patterns (scripts/reader/heads.mjs): the ones above, the noun a pronoun
 * refers to (ctx.referent: { at, columns }, the pronoun's row and the referent's pieces), and the same
 * place in the previous line (a line ends at one of LINE_ENDS: a poem's line in Chinese).
 */
export const READER_KINDS = [...SELF_KINDS, 'pronoun-referent', 'line-position'];
const LINE_ENDS = new Set(['，', '。', '！', '？', '；', '↵', ',', '.', '!', '?', ';']);
/** A head whose best pattern scores below this is captioned "no clear pattern". */
export const CLEAR = 0.5;

const PUNCTUATION = /^[\p{P}\p{S}]$/u;

/**
 * The pattern's columns for row `i`, or null where the pattern does not apply to the row.
 * `ctx`: { rows (row tokens), cols (column tokens), causal, writes (cross: the token each row writes) }.
 */
function columns(kind, i, ctx) {
  const { rows, cols, causal } = ctx;
  const seen = causal ? i + 1 : cols.length; // the columns row i may read
  const all = (test) => {
    const out = [];
    for (let j = 0; j < seen; j++) if (test(j)) out.push(j);
    return out.length ? out : null;
  };
  switch (kind) {
    case 'previous-token':
      return i >= 1 ? [i - 1] : null;
    case 'first-token':
      return ctx.writes ? [0] : i >= 1 ? [0] : null;
    case 'diagonal':
      return causal && i === 0 ? null : [i];
    case 'punctuation':
      return all((j) => PUNCTUATION.test(cols[j]));
    case 'induction':
      // the token after an earlier occurrence of this row's token (not the row itself or the one before)
      return all((j) => j >= 1 && j < i && cols[j - 1] === rows[i]);
    case 'pronoun-referent':
      return ctx.referent && ctx.referent.at === i ? ctx.referent.columns : null;
    case 'line-position': {
      const j = samePlaceAbove(cols, i);
      return j === null || j >= seen ? null : [j];
    }
    case 'alignment':
      return ctx.writes[i] === undefined ? null : all((j) => cols[j] === ctx.writes[i]);
    default:
      throw new Error(`head-patterns: no pattern ${kind}`);
  }
}

/**
 * The column at row i's place in the line before its own (lines end after a LINE_ENDS token), or null
 * in the first line or where the line before is shorter.
 */
export function samePlaceAbove(tokens, i) {
  let start = i; // row i's line starts at `start`
  while (start > 0 && !LINE_ENDS.has(tokens[start - 1])) start--;
  if (start === 0) return null;
  let before = start - 1; // the line before starts at `before`
  while (before > 0 && !LINE_ENDS.has(tokens[before - 1])) before--;
  const j = before + (i - start);
  return j < start ? j : null;
}

/**
 * Adds matrix `A` (number[][], rows × cols) to `sums` ({ [kind]: { mass, rows } }): for every row
 * where a kind applies, the weight on its columns.
 */
export function addPatterns(sums, A, ctx, kinds = ctx.writes ? CROSS_KINDS : SELF_KINDS) {
  for (const kind of kinds) {
    const s = (sums[kind] ??= { mass: 0, rows: 0 });
    A.forEach((row, i) => {
      const js = columns(kind, i, ctx);
      if (!js) return;
      s.mass += js.reduce((m, j) => m + row[j], 0);
      s.rows += 1;
    });
  }
  return sums;
}

/** The best pattern of `sums`: { kind, score } (score = mean weight on its columns, 3 decimals). */
export function bestPattern(sums) {
  let best = { kind: 'none', score: 0 };
  for (const [kind, { mass, rows }] of Object.entries(sums)) {
    const score = rows ? Math.round((mass / rows) * 1000) / 1000 : 0;
    if (score > best.score) best = { kind, score };
  }
  return best;
}

/** One matrix's best pattern (a test's synthetic matrix, or one sentence). */
export const patternOf = (A, ctx) => bestPattern(addPatterns({}, A, ctx));
