// A small DOM reconciler: the panels' renders say which children a parent holds, in order.
import { cancel, later } from './scheduler.js';

/**
 * Make `children` the children of `parent`, in order, leaving in place those already there (a
 * kept heatmap is neither removed nor re-inserted). A child no longer wanted that holds a large
 * table (a heatmap's) is retired: hidden and inert at once, taken out of the document when the page
 * is next idle (taking thousands of table cells out costs milliseconds), and wanted again before
 * then, shown where it is. Anything else is removed at once.
 */
export function place(parent, children) {
  const wanted = new Set(children);
  for (const node of [...parent.childNodes]) {
    if (wanted.has(node)) unretire(node);
    else if (!retiring.has(node)) holdsLargeTable(node) ? retire(node) : node.remove();
  }
  let at = parent.firstChild;
  const skip = () => {
    while (at && retiring.has(at)) at = at.nextSibling;
  };
  for (const node of children) {
    skip();
    if (node === at) at = at.nextSibling;
    else {
      unretire(node);
      parent.insertBefore(node, at);
    }
  }
}

/** `box` with `children` placed in it (see place): a panel's section kept from one render to the next. */
export function filled(box, children) {
  place(box, children);
  return box;
}

// Retired nodes and their hidden and inert states from before. Until a node is removed, the idle
// queue holds it, so `whenFilled` waits for it too: a ready element holds only what it shows.
const retiring = new Map();
const LARGE = 512; // table cells
const holdsLargeTable = (node) => node.nodeType === 1 && node.getElementsByTagName('td').length > LARGE;

function retire(node) {
  retiring.set(node, [node.hidden, node.inert]);
  node.hidden = true;
  node.inert = true;
  later(node, () => {
    const [hidden, inert] = retiring.get(node);
    retiring.delete(node);
    node.remove();
    Object.assign(node, { hidden, inert });
  });
}

function unretire(node) {
  const was = retiring.get(node);
  if (!was) return;
  retiring.delete(node);
  [node.hidden, node.inert] = was;
  cancel(node);
}
