// What <attention-pooling> says about the library's weights (DOM-free): which queries have no key
// in a compact kernel's window, and one query's row as a distribution.

/** The rows of `weights` (the library's n×m Matrix) whose every weight is 0: queries with no key in the window. */
export function emptyRows({ rows, cols, data }) {
  const empty = [];
  for (let i = 0; i < rows; i++) {
    let any = false;
    for (let j = 0; j < cols && !any; j++) any = data[i * cols + j] !== 0;
    if (!any) empty.push(i);
  }
  return empty;
}

/** Row `i` of `weights` as a distribution: its smallest weight and its sum (in double). */
export function rowStats({ cols, data }, i = 0) {
  let min = Infinity;
  let sum = 0;
  for (let j = 0; j < cols; j++) {
    const w = data[i * cols + j];
    min = Math.min(min, w);
    sum += w;
  }
  return { min, sum };
}
