// ONNX graphs for onnxruntime-web, written here with onnx-proto (nothing is
// downloaded). Opset 13, float32, the sequence length n a dynamic dimension.
//   single head:  Q n×d, K n×d, V n×d_v [, mask n×n additive]
//                 Transpose(K) → MatMul(Q, Kᵀ) → Mul(scale) [→ Add(mask)] → Softmax → MatMul(·, V)
//   multi-head:   X n×d_model, constant weights (ORT can prepack them)
//                 MatMul(X, W_Q) → Reshape n×h×d_k → Transpose h×n×d_k (likewise K, V),
//                 then the single-head chain batched over heads, Transpose, Reshape n×(h·d_v), MatMul(·, W_O)
import { createRequire } from 'node:module';

// Loaded on first use, so the runner starts (and reports the peer as missing) without bench/node_modules.
let onnx, FLOAT, INT64;
function load() {
  onnx ??= createRequire(import.meta.url)('onnx-proto').onnx;
  [FLOAT, INT64] = [onnx.TensorProto.DataType.FLOAT, onnx.TensorProto.DataType.INT64];
}

const tensorInfo = (name, dims) =>
  onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: FLOAT,
        shape: onnx.TensorShapeProto.create({
          dim: dims.map((x) => onnx.TensorShapeProto.Dimension.create(typeof x === 'string' ? { dimParam: x } : { dimValue: x })),
        }),
      }),
    }),
  });
const floats = (name, dims, data) => onnx.TensorProto.create({ name, dims, dataType: FLOAT, floatData: Array.from(data) });
const int64s = (name, data) => onnx.TensorProto.create({ name, dims: [data.length], dataType: INT64, int64Data: data });
const node = (opType, input, output, attribute = []) => onnx.NodeProto.create({ opType, input, output, name: output[0], attribute });
const ints = (name, values) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: values });
const int = (name, value) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i: value });

function model(graph) {
  const m = onnx.ModelProto.create({
    irVersion: 7,
    producerName: 'attention-lab bench',
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: 13 })],
    graph: onnx.GraphProto.create(graph),
  });
  return onnx.ModelProto.encode(m).finish();
}

// The attention chain on (…, n, d) tensors; perm transposes the last two axes of K.
function attentionNodes(q, k, v, mask, scaleName, perm, out) {
  return [
    node('Transpose', [k], ['kT'], [ints('perm', perm)]),
    node('MatMul', [q, 'kT'], ['scores']),
    node('Mul', ['scores', scaleName], ['scaled']),
    ...(mask ? [node('Add', ['scaled', mask], ['masked'])] : []),
    node('Softmax', [mask ? 'masked' : 'scaled'], ['weights'], [int('axis', -1)]),
    node('MatMul', ['weights', v], [out]),
  ];
}

// `weights: true` makes the softmax's n×m result a second output, as our default call returns it.
export function singleHeadModel({ d, dv, causal, weights = false }) {
  load();
  const inputs = [tensorInfo('Q', ['n', d]), tensorInfo('K', ['m', d]), tensorInfo('V', ['m', dv])];
  if (causal) inputs.push(tensorInfo('mask', ['n', 'm']));
  return model({
    name: 'attention',
    node: attentionNodes('Q', 'K', 'V', causal ? 'mask' : null, 'scale', [1, 0], 'output'),
    input: inputs,
    output: [tensorInfo('output', ['n', dv]), ...(weights ? [tensorInfo('weights', ['n', 'm'])] : [])],
    initializer: [floats('scale', [], [1 / Math.sqrt(d)])],
  });
}

export function multiHeadModel({ heads, Wq, Wk, Wv, Wo, causal }) {
  load();
  const dModel = Wq.rows, dk = Wq.cols / heads, dv = Wv.cols / heads;
  const split = (W, name, w) => [
    node('MatMul', ['X', W], [`${name}p`]),
    node('Reshape', [`${name}p`, `shape${w}`], [`${name}r`]),
    node('Transpose', [`${name}r`], [`${name}h`], [ints('perm', [1, 0, 2])]),
  ];
  const inputs = [tensorInfo('X', ['n', dModel])];
  if (causal) inputs.push(tensorInfo('mask', ['n', 'n']));
  return model({
    name: 'multi_head_attention',
    node: [
      ...split('Wq', 'q', dk), ...split('Wk', 'k', dk), ...split('Wv', 'v', dv),
      ...attentionNodes('qh', 'kh', 'vh', causal ? 'mask' : null, 'scale', [0, 2, 1], 'heads'),
      node('Transpose', ['heads'], ['headsT'], [ints('perm', [1, 0, 2])]),
      node('Reshape', ['headsT', 'concatShape'], ['concat']),
      node('MatMul', ['concat', 'Wo'], ['output']),
    ],
    input: inputs,
    output: [tensorInfo('output', ['n', Wo.cols])],
    initializer: [
      floats('Wq', [Wq.rows, Wq.cols], Wq.data), floats('Wk', [Wk.rows, Wk.cols], Wk.data),
      floats('Wv', [Wv.rows, Wv.cols], Wv.data), floats('Wo', [Wo.rows, Wo.cols], Wo.data),
      floats('scale', [], [1 / Math.sqrt(dk)]),
      int64s(`shape${dk}`, [-1, heads, dk]), ...(dv !== dk ? [int64s(`shape${dv}`, [-1, heads, dv])] : []),
      int64s('concatShape', [-1, heads * dv]),
    ],
  });
}
