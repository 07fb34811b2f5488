// An error as the page's language can say it. The library's messages are English (they name its
// arguments and shapes); a translated page says what the error's code means in its own words and
// keeps the library's message as the detail.

/**
 * The text for `error` under `key` ('error.generic' unless told): with a known `code`, its
 * explanation (strings/errors.js, 'error.code.<CODE>') and, unless `detail` is false, the
 * library's message; without one, the key's text around the message. An InputsError (the
 * author's numbers do not fit) is its own explanation, in the page's language.
 */
export function errorText(t, error, { key = 'error.generic', detail = true } = {}) {
  // The author's inputs did not fit (own-numbers.js): said wholly in the page's language.
  if (error?.name === 'InputsError') return t('error.inputs', { why: t(`error.inputs.${error.key}`, error.params) });
  const msg = error?.message ?? String(error);
  const codeKey = `error.code.${error?.code}`;
  const why = t(codeKey);
  if (key !== 'error.generic' || why === codeKey) return t(key, { msg });
  return t(detail ? 'error.coded' : 'error.codedShort', { why, msg });
}
