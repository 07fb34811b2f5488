// The error lines every panel shows (web/src/base.js), in English and Chinese.
export default {
  en: {
    'error.generic': 'The library refused this input: {msg}',
    'error.load': 'The WebAssembly module could not be loaded (under a Content-Security-Policy, script-src needs \'wasm-unsafe-eval\'): {msg}',
  },
  'zh-CN': {
    'error.generic': '库拒绝了这个输入：{msg}',
    'error.load': '无法加载 WebAssembly 模块（若页面有内容安全策略，script-src 需包含 \'wasm-unsafe-eval\'）：{msg}',
  },
};
