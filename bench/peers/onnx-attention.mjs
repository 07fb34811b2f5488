// onnxruntime-web running ONNX's own Attention operator (opset 23): one node,
// 4-D inputs Q [batch, heads, n, d], K and V [batch, kvHeads, m, d], the cache as
// past_key / past_value, an additive float attn_mask, is_causal and softcap as
// attributes. The graph is written here with onnx-proto (nothing is downloaded).
// Timed from Float32Array inputs to the Float32Array outputs (Y and, with a
// cache, present_key and present_value, which both libraries return).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

let onnx;
const load = () => (onnx ??= createRequire(import.meta.url)('onnx-proto').onnx);

const tensorInfo = (name, dims) =>
  onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType: onnx.TensorProto.DataType.FLOAT,
        shape: onnx.TensorShapeProto.create({ dim: dims.map((x) => onnx.TensorShapeProto.Dimension.create({ dimValue: x })) }),
      }),
    }),
  });
const intAttribute = (name, i) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.INT, i });
const floatAttribute = (name, f) => onnx.AttributeProto.create({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f });

// cell: { batch, heads, kvHeads, n, m (new keys), past, d, causal, softcap, bias: [n, past + m] | null }
export function attentionModel({ batch, heads, kvHeads, n, m, past, d, causal, softcap, bias }) {
  load();
  const total = past + m;
  const inputs = [tensorInfo('Q', [batch, heads, n, d]), tensorInfo('K', [batch, kvHeads, m, d]), tensorInfo('V', [batch, kvHeads, m, d])];
  const names = ['Q', 'K', 'V', bias ? 'mask' : '', past ? 'past_key' : '', past ? 'past_value' : ''];
  if (bias) inputs.push(tensorInfo('mask', [n, total]));
  if (past) inputs.push(tensorInfo('past_key', [batch, kvHeads, past, d]), tensorInfo('past_value', [batch, kvHeads, past, d]));
  const outputs = [tensorInfo('Y', [batch, heads, n, d])];
  if (past) outputs.push(tensorInfo('present_key', [batch, kvHeads, total, d]), tensorInfo('present_value', [batch, kvHeads, total, d]));
  const attrs = [intAttribute('is_causal', causal ? 1 : 0), ...(softcap ? [floatAttribute('softcap', softcap)] : [])];
  while (names.length && names.at(-1) === '') names.pop();
  const node = onnx.NodeProto.create({ opType: 'Attention', name: 'attention', input: names, output: outputs.map((o) => o.name), attribute: attrs });
  const model = onnx.ModelProto.create({
    irVersion: 10,
    producerName: 'attention-lab bench',
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: 23 })],
    graph: onnx.GraphProto.create({ name: 'attention', node: [node], input: inputs, output: outputs }),
  });
  return onnx.ModelProto.encode(model).finish();
}

export async function createOnnxAttention() {
  const ort = await import('onnxruntime-web');
  const version = JSON.parse(readFileSync(new URL('../node_modules/onnxruntime-web/package.json', import.meta.url))).version;
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  return {
    name: `onnxruntime-web ${version}`,
    notes: [`onnxruntime-web ${version}: wasm backend, numThreads 1, one ONNX Attention node (opset 23)`],
    // inputs: { Q, K, V, pastKey?, pastValue?, bias? } as Float32Array; returns { run, dispose }
    async attention(cell, inputs) {
      const session = await ort.InferenceSession.create(attentionModel(cell), options);
      const { batch, heads, kvHeads, n, m, past, d } = cell;
      const biasTensor = cell.bias ? new ort.Tensor('float32', inputs.bias, [n, past + m]) : null; // a constant, built once
      return {
        async run() {
          const feeds = {
            Q: new ort.Tensor('float32', inputs.Q, [batch, heads, n, d]),
            K: new ort.Tensor('float32', inputs.K, [batch, kvHeads, m, d]),
            V: new ort.Tensor('float32', inputs.V, [batch, kvHeads, m, d]),
          };
          if (biasTensor) feeds.mask = biasTensor;
          if (past) {
            feeds.past_key = new ort.Tensor('float32', inputs.pastKey, [batch, kvHeads, past, d]);
            feeds.past_value = new ort.Tensor('float32', inputs.pastValue, [batch, kvHeads, past, d]);
          }
          const result = await session.run(feeds);
          const y = result.Y.data;
          if (past) [result.present_key.data, result.present_value.data];
          return y;
        },
        dispose: () => session.release(),
      };
    },
  };
}
