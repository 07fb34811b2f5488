// Number formatting: short labels in cells, exact float32 values on demand.
export const MASKED = -3.4028234663852886e38;

/** True for the masked step's stand-in for −∞. */
export const isMaskedValue = (v) => v <= MASKED;

/** The shortest decimal that reads back as the same float32. */
export function exact(v) {
  if (isMaskedValue(v)) return '−∞';
  if (!Number.isFinite(v)) return String(v);
  for (let p = 1; p <= 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return String(s).replace('-', '−');
  }
  return String(v).replace('-', '−');
}

/**
 * A count to the nearest whole number, a comma between thousands (1,234,567), as English writes
 * it: the same text as toLocaleString('en'), without Intl, whose first number format in a page
 * cost 26–55 ms of the first panel that showed a count.
 */
export function grouped(v) {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? '∞' : '-∞';
  return String(Math.round(v)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** Two decimals (tiny values read 0.00 or −0.00; hover shows them exactly), an exponent from 1000 up. */
export function short(v) {
  if (isMaskedValue(v)) return '−∞';
  const s = Math.abs(v) >= 1000 ? v.toExponential(1) : v.toFixed(2);
  return s.replace('-', '−');
}

/** A number for TeX. */
export function texNumber(v) {
  if (isMaskedValue(v)) return '-\\infty';
  return Number(v.toPrecision(4)).toString().replace(/e([+-]\d+)/, '\\times 10^{$1}');
}

/** A duration given in ms, with two significant digits: "12 µs", "1.2 µs", "340 µs", "2.5 ms". */
export function duration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const us = ms * 1000;
  if (us >= 1000) return `${Number(ms.toPrecision(2))} ms`;
  if (us >= 1) return `${Number(us.toPrecision(2))} µs`;
  return `${Number((us * 1000).toPrecision(2))} ns`;
}

/**
 * A library formula with the words of its \text{…} in the reader's language: `words` maps the
 * English text (spaces included, e.g. ' where ') to its translation; other text is kept.
 */
export function localTex(tex, words) {
  return tex.replace(/\\text\{([^{}]*)\}/g, (whole, text) => (words[text] === undefined ? whole : `\\text{${words[text]}}`));
}
