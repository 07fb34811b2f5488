// The error lines every panel shows (web/src/base.js, web/src/error-text.js), in English and
// Chinese. The library's own messages are English; a Chinese page explains the error's code
// (AttentionError.codes) in Chinese and keeps the message, labelled, as the detail.
export default {
  en: {
    'error.generic': 'The library refused this input: {msg}',
    'error.coded': 'The library refused this input: {msg} ({why})',
    'error.codedShort': 'The library refused this input: {why}.',
    'error.original': 'The library’s own message',
    'error.load': 'The WebAssembly module could not be loaded (under a Content-Security-Policy, script-src needs \'wasm-unsafe-eval\'): {msg}',
    'error.code.SHAPE_MISMATCH': 'two arguments’ sizes disagree',
    'error.code.INVALID_MATRIX': 'an argument is not a matrix (its rows, columns or data length are wrong)',
    'error.code.INVALID_ARGUMENT': 'an option is outside its allowed values',
    'error.code.INVALID_MASK': 'the mask is invalid (unknown name, wrong size, or a valid length out of range)',
    'error.code.NON_FINITE': 'an input holds NaN or an infinity',
    'error.code.OVERFLOW': 'the result would not fit in float32',
    'error.code.DISPOSED': 'a layer was used after it was disposed',
    'error.code.OUT_OF_MEMORY': 'the request does not fit in the module’s memory',
    'error.code.INTERNAL': 'an internal error of the library (please report it)',
  },
  'zh-CN': {
    'error.generic': '库拒绝了这个输入。库的原始信息（英文）：{msg}',
    'error.coded': '库拒绝了这个输入：{why}。库的原始信息（英文）：{msg}',
    'error.codedShort': '库拒绝了这个输入：{why}。',
    'error.original': '库的原始信息（英文）',
    'error.load': '无法加载 WebAssembly 模块（若页面有内容安全策略，script-src 需包含 \'wasm-unsafe-eval\'）：{msg}',
    'error.code.SHAPE_MISMATCH': '两个参数的形状不一致',
    'error.code.INVALID_MATRIX': '某个参数不是合法的矩阵（行数、列数或数据长度不对）',
    'error.code.INVALID_ARGUMENT': '某个选项超出了允许的取值',
    'error.code.INVALID_MASK': '掩蔽无效（名称未知、大小不对，或有效长度超出范围）',
    'error.code.NON_FINITE': '输入中含有 NaN 或无穷大',
    'error.code.OVERFLOW': '结果超出了 float32 能表示的范围',
    'error.code.DISPOSED': '某个层在释放（dispose）之后又被使用',
    'error.code.OUT_OF_MEMORY': '所需的内存超出了模块的内存',
    'error.code.INTERNAL': '库的内部错误（请报告这个问题）',
  },
};
