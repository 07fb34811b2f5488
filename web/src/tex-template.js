// A formula's TeX as a template: its numbers taken out, so one formula typeset at build time serves
// every size and value it is shown with ("[n × n = 6 × 6]" and "= 7 × 7" share one). KaTeX draws a
// number as text in one box (HTML) and one <mn> (MathML), whatever its digits, and the browser
// measures the text, so putting another number into the typeset formula gives what KaTeX itself
// would have drawn (tests/js/tex-template.test.js compares the two). No DOM here.

/** A number in TeX: digits with an optional fraction (the sign is a symbol of its own). */
const NUMBER = /\d+(?:\.\d+)?/g;
/** Where the template's k-th number goes in its TeX key. */
const SLOT = '#';

/** `tex` as { key, numbers }: the key is the TeX with every number replaced by '#' (null if it has a '#' of its own). */
export function texKey(tex) {
  const numbers = [];
  if (tex.includes(SLOT)) return { key: null, numbers };
  const key = tex.replace(NUMBER, (number) => {
    numbers.push(number);
    return SLOT;
  });
  return { key, numbers };
}

/**
 * The number typeset in place of the k-th slot: digits no formula shows and no KaTeX length holds
 * (its lengths are decimals such as 0.8889em), so each can be found again in the typeset text.
 */
export const sentinel = (k) => String(97_531_000 + k);

/** The key's TeX with the sentinels in its slots (what the build typesets). */
export function sentinelTex(key) {
  let k = 0;
  return key.replaceAll(SLOT, () => sentinel(k++));
}

/** Typeset `html` (made from sentinelTex) with `numbers` put back into its slots. */
export function fillTemplate(html, numbers) {
  return html.replace(/97531\d{3}/g, (found) => numbers[Number(found) - 97_531_000] ?? found);
}
