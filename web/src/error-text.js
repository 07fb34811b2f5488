// An error as the page's language can say it. The library's messages are English (they name its
// arguments and shapes); a translated page says what the error's code means in its own words and
// keeps the library's message as the detail.

/**
 * The text for `error` under `key` ('error.generic' unless told): with a known `code`, its
 * explanation (strings/errors.js, 'error.code.<CODE>') and, unless `detail` is false, the
 * library's message; without one, the key's text around the message (with `detail` false and the
 * generic key: only that the input was refused, the message left out). An InputsError (the
 * author's numbers do not fit) is its own explanation, in the page's language.
 */
export function errorText(t, error, { key = 'error.generic', detail = true } = {}) {
  // The author's inputs did not fit (own-numbers.js): said wholly in the page's language.
  if (error?.name === 'InputsError') return t('error.inputs', { why: t(`error.inputs.${error.key}`, error.params) });
  const msg = error?.message ?? String(error);
  const codeKey = `error.code.${error?.code}`;
  const why = t(codeKey);
  // Without the detail, a code the page cannot explain says only that the input was refused.
  if (key === 'error.generic' && !detail && why === codeKey) return t('error.refused');
  if (key !== 'error.generic' || why === codeKey) return t(key, { msg });
  return t(detail ? 'error.coded' : 'error.codedShort', { why, msg });
}
