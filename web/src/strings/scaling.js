// The strings of <attention-scaling> (why √d_k), in English and Chinese.
export default {
  en: {
    'scaling.heading': 'Why divide by √d_k?',
    'scaling.intro': 'For query and key entries drawn independently with mean 0 and variance 1, q·k has variance d_k. Without scaling, softmax saturates as d_k grows: one weight approaches 1 and the gradient vanishes.',
    'scaling.variance': 'Sampled variance of q·k',
    'scaling.maxWeight': 'Largest softmax weight',
    'scaling.jacobian': 'Softmax Jacobian norm ‖diag(p) − ppᵀ‖_F',
    'scaling.unscaled': 'unscaled q·k',
    'scaling.scaled': 'scaled q·k / √d_k',
    'scaling.dk': 'd_k',
    'scaling.samples': '{n} sampled pairs per width, {m} keys per softmax row, seed {seed}.',
    'scaling.table': 'The numbers behind the charts',
  },
  'zh-CN': {
    'scaling.heading': '为什么要除以 √d_k？',
    'scaling.intro': '若查询和键的各分量独立、均值为 0、方差为 1，则 q·k 的方差为 d_k。不缩放时，随着 d_k 增大 softmax 会饱和：某个权重趋近 1，梯度随之消失。',
    'scaling.variance': 'q·k 的采样方差',
    'scaling.maxWeight': '最大的 softmax 权重',
    'scaling.jacobian': 'softmax 雅可比矩阵范数 ‖diag(p) − ppᵀ‖_F',
    'scaling.unscaled': '不缩放 q·k',
    'scaling.scaled': '缩放 q·k / √d_k',
    'scaling.dk': 'd_k',
    'scaling.samples': '每种宽度采样 {n} 对向量，每行 softmax 含 {m} 个键，种子 {seed}。',
    'scaling.table': '图表背后的数字',
  },
};
