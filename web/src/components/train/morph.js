// Bring a kept DOM tree to look like a freshly made one of the same build (e.g. a lineChart SVG
// redrawn with more points) by changing only the attributes and texts that differ: the kept nodes
// stay, so a redraw restyles and relays out a few nodes instead of inserting a whole new tree.
// Where the two trees differ in shape (another tag, another number of children), that subtree is
// replaced by the new one.

/** Make `kept` match `next` (same tag): returns the node now in the document (kept, or next if replaced). */
export function morph(kept, next) {
  if (kept.nodeType !== next.nodeType || kept.nodeName !== next.nodeName) {
    kept.replaceWith(next);
    return next;
  }
  if (kept.nodeType === 3) {
    if (kept.data !== next.data) kept.data = next.data;
    return kept;
  }
  for (const { name } of [...kept.attributes]) if (!next.hasAttribute(name)) kept.removeAttribute(name);
  for (const { name, value } of next.attributes) if (kept.getAttribute(name) !== value) kept.setAttribute(name, value);
  const a = kept.childNodes;
  const b = [...next.childNodes];
  if (a.length !== b.length) {
    kept.replaceChildren(...b);
    return kept;
  }
  for (let k = 0; k < b.length; k++) morph(a[k], b[k]);
  return kept;
}
