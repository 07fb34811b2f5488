// The page's own strings (web/index.html, main.js), the loading line of every
// component (base.js) and the label of the explorer's panel list, in English and Chinese.
export default {
  en: {
    'app.title': 'attention-lab',
    'app.tagline': 'Self-attention computed step by step in WebAssembly. Every number on this page comes from the library’s trace.',
    'app.language': 'Language',
    'app.fma': 'WASM build: SIMD with FMA',
    'app.simd': 'WASM build: SIMD',
    'app.scalar': 'WASM build: scalar',
    'app.loading': 'Loading the WebAssembly module…',
    'app.footer': 'Numbers are float32 results of the WASM library; hover or focus a cell for its exact value.',
    'app.skip': 'Skip to the panels',
    'app.panels': 'Panels',
    'app.scrollFormula': 'Formula, scrolls sideways',
    'app.scrollTable': 'Table, scrolls sideways',
    'app.scrollNamed': '{name}, scrolls sideways',
  },
  'zh-CN': {
    'app.title': 'attention-lab',
    'app.tagline': '在 WebAssembly 中一步一步计算自注意力。本页的每个数字都来自库的计算轨迹。',
    'app.language': '语言',
    'app.fma': 'WASM 构建：SIMD + FMA',
    'app.simd': 'WASM 构建：SIMD',
    'app.scalar': 'WASM 构建：标量',
    'app.loading': '正在加载 WebAssembly 模块……',
    'app.footer': '数字为 WASM 库给出的 float32 结果；将鼠标悬停或用键盘聚焦在单元格上可看到精确值。',
    'app.skip': '跳到各个面板',
    'app.panels': '面板',
    'app.scrollFormula': '公式，可横向滚动',
    'app.scrollTable': '表格，可横向滚动',
    'app.scrollNamed': '{name}，可横向滚动',
  },
};
