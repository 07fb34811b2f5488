// The page's own strings (web/index.html, main.js), the loading line of every
// component (base.js) and the label of the explorer's panel list, in English and Chinese.
export default {
  en: {
    'app.title': 'attention-lab',
    'app.tagline': 'Self-attention computed step by step in WebAssembly. The library computes the attention and records each of its steps; the few numbers this page works out itself, from the library’s inputs and outputs, say so where they appear.',
    'app.language': 'Language',
    'app.fma': 'WASM build: SIMD with FMA',
    'app.simd': 'WASM build: SIMD',
    'app.scalar': 'WASM build: scalar',
    'app.loading': 'Loading the WebAssembly module…',
    'app.footer': 'Numbers are float32 results of the WASM library; hover or focus a cell for its exact value. This page computes a few itself, from the library’s inputs and outputs, and says so where they appear: the layer norms, biases and ReLU of the trained models, each row’s mean and variance, the backward panel’s dO, the LSH buckets (an argmax), and the sampled variances and the timings of the measurements.',
    'app.skip': 'Skip to the panels',
    'app.panels': 'Panels',
    'app.scrollFormula': 'Formula, scrolls sideways',
    'app.scrollTable': 'Table, scrolls sideways',
    'app.scrollNamed': '{name}, scrolls sideways',
  },
  'zh-CN': {
    'app.title': 'attention-lab',
    'app.tagline': '在 WebAssembly 中一步一步计算自注意力。注意力由库计算，并记录下它的每一步；少数几个由本页根据库的输入和输出自行算出的数，都在出现的地方注明。',
    'app.language': '语言',
    'app.fma': 'WASM 构建：SIMD + FMA',
    'app.simd': 'WASM 构建：SIMD',
    'app.scalar': 'WASM 构建：标量',
    'app.loading': '正在加载 WebAssembly 模块……',
    'app.footer': '数字为 WASM 库给出的 float32 结果；将鼠标悬停或用键盘聚焦在单元格上可看到精确值。有少数几个数由本页根据库的输入和输出自行算出，并在出现的地方注明：训练好的模型中的层规范化、偏置和 ReLU，每一行的均值和方差，反向传播面板中的 dO，LSH 注意力的分桶（一次 argmax），以及各项测量中的采样方差和耗时。',
    'app.skip': '跳到各个面板',
    'app.panels': '面板',
    'app.scrollFormula': '公式，可横向滚动',
    'app.scrollTable': '表格，可横向滚动',
    'app.scrollNamed': '{name}，可横向滚动',
  },
};
