// A panel's own stylesheet, added after the shared one (styles.js).

/**
 * A panel's own few rules, added to its shadow root as a constructed stylesheet (allowed by
 * style-src 'self', unlike inline styles), after the shared one.
 */
export function adoptPanelStyles(shadow, css) {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet];
  } catch {
    const style = document.createElement('style');
    style.textContent = css;
    shadow.append(style);
  }
}
