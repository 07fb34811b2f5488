// Small DOM helpers shared by the heatmap and every panel.

/** A new element: `props` sets class, text, style (through the CSSOM), `on…` listeners and attributes. */
export const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    // Through the CSSOM, which a Content-Security-Policy without 'unsafe-inline' allows (a style attribute it blocks).
    else if (key === 'style') node.style.cssText = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
};
