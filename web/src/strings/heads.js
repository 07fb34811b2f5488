// The strings of <attention-heads>, in English and Chinese.
export default {
  en: {
    'heads.heading': 'Multi-head attention',
    'heads.intro': 'Each head projects the tokens into its own d_k-wide subspace (usually d_k = d_v = d_model / h, so h heads cost about as much as one head of width d_model) and attends there; the heads run in parallel, their outputs are concatenated and W_O mixes them.',
    'heads.head': 'Head {h}',
    'heads.concat': 'Concat of the heads',
    'heads.output': 'Output = concat · W_O',
    'heads.single': 'With one head this is plain self-attention; raise “Heads h” to compare heads.',
    'heads.ownQKV': 'Q, K and V are yours (inputs.Q, inputs.K, inputs.V); each of the {h} head(s) works on its own d_k = {dk} columns of them. Without your W_O (inputs.Wo) there is no output after W_O.',
    'heads.ownWeights': 'These are your attention weights (inputs.weights), {h} head(s), shown as given: nothing on this panel computed them.',
  },
  'zh-CN': {
    'heads.heading': '多头注意力',
    'heads.intro': '每个头把词元投影到自己宽度为 d_k 的子空间（通常取 d_k = d_v = d_model / h，这样 h 个头的计算量与一个宽度为 d_model 的头相当）并在其中计算注意力；各头并行计算，输出拼接后由 W_O 混合。',
    'heads.head': '第 {h} 个头',
    'heads.concat': '各头的拼接',
    'heads.output': '输出 = 拼接 · W_O',
    'heads.single': '只有一个头时就是普通的自注意力；增大“头数 h”即可比较各个头。',
    'heads.ownQKV': 'Q、K、V 是你给的（inputs.Q、inputs.K、inputs.V）；{h} 个头各用其中自己的 d_k = {dk} 列。没有你的 W_O（inputs.Wo）时，就没有经过 W_O 的输出。',
    'heads.ownWeights': '这是你给的注意力权重（inputs.weights），{h} 个头，按原样显示：本面板没有计算它们。',
  },
};
