// The import path panels and the heatmap use for exports; each idea lives in ./export/:
// files.js (downloads, CSV, JSON), figure-*.js (the PNG and SVG figures), latex.js (LaTeX table
// and figure), clipboard.js (copy with confirmation), bar.js (the buttons under a heatmap).
export { download, matrixCsv, matrixJson } from './export/files.js';
export { figurePng, pngScale } from './export/figure-png.js';
export { figureSvg } from './export/figure-svg.js';
export { escapeLatex, latexFigure, latexTable } from './export/latex.js';
export { exportBar, figureInput } from './export/bar.js';
