// A strict TypeScript consumer of attention-lab's hand-written declarations.
// It is only type-checked (tests/js/types.test.js runs `tsc -p tests/js/types
// --noEmit`); every API member is used once, and each `@ts-expect-error` line
// is a wrong call the declarations must reject.
import { AttentionError, AttentionRangeError, createWorkerPool, init, type WorkerPool, type PoolMultiHeadLayer } from 'attention-lab';
import { init as initTraining, type AttendResult, type MlmBatchOptions, type TrainingLab } from 'attention-lab/training';
import type {
  AdditiveOptions,
  AlibiBiasOptions,
  RotaryEmbeddingOptions,
  BatchedAttentionOptions,
  BatchedAttentionResult,
  KVCache,
  KVCacheWork,
  TaskBatch,
  AttentionBackwardResult,
  BackwardStep,
  Tensor,
  AttentionErrorCode,
  AttentionLab,
  AttentionResult,
  HeadResult,
  InitOptions,
  KernelName,
  LinearAttentionOptions,
  LinformerAttentionOptions,
  LocalAttentionOptions,
  Mask,
  Matrix,
  ParametricPoolingResult,
  TransformerBlockResult,
  TransformerStepId,
  MatrixInput,
  MultiHeadLayer,
  MultiHeadLayerOptions,
  MultiHeadOptions,
  MultiHeadResult,
  NadarayaWatsonOptions,
  NadarayaWatsonResult,
  ScaledDotProductOptions,
  SelfAttentionOptions,
  Step,
  StepId,
  VariantResult,
  VectorInput,
  SaveOptions,
  SavePrecision,
  TransformerModel,
  CheckpointName,
  CheckpointRecipe,
  LoadTrainedOptions,
} from 'attention-lab';

const identity: Matrix = { rows: 2, cols: 2, data: new Float32Array([1, 0, 0, 1]) };
const nested: MatrixInput = [
  [1, 2],
  [3, 4],
];
const typedRows: MatrixInput = [new Float32Array([1, 2]), new Float32Array([3, 4])];
const plainData: MatrixInput = { rows: 1, cols: 2, data: [1, 2] };
const vector: VectorInput = [0.5, -0.5];
const masks: Mask[] = ['none', 'causal', { validLens: [1, 2] }, { validLens: 1 }, { validLens: new Int32Array([1, 2]) }, [[1, 0], [1, 1]], identity];

function describeMatrix(m: Matrix): string {
  return `${m.rows}×${m.cols}: ${Array.from(m.data).join(', ')}`;
}

function describeSteps(steps: Step[] | undefined): string[] {
  return (steps ?? []).map((s: Step) => {
    const id: StepId = s.id;
    const bits: Uint8Array | undefined = s.mask;
    return `${id} ${s.title} ${s.formula} ${describeMatrix(s.matrix)} ${bits ? bits.length : 0}`;
  });
}

export async function main(): Promise<number> {
  const options: InitOptions = { simd: false };
  const lab: AttentionLab = await init(options);
  const trainer: TrainingLab = await initTraining(options);
  const flavours: [boolean, true] = [lab.training, trainer.training];
  const withBytes: AttentionLab = await init({ wasmBinary: new Uint8Array(0), simd: true });
  await init({ wasmUrl: new URL('https://example.com/attention-lab-simd.wasm') });
  await init({ wasmUrl: 'attention-lab-simd.wasm', locateFile: (path: string, prefix: string) => prefix + path });
  await init();
  const simd: boolean = lab.simd && withBytes.simd;
  const limit: number = lab.memoryLimit + lab.heapBytes;

  const product: Matrix = lab.matmul(identity, nested);
  lab.matmul(typedRows, plainData);
  const softmaxed: Matrix = lab.softmax(nested);
  for (const mask of masks) lab.softmax(nested, { mask });

  const sdpaOptions: ScaledDotProductOptions = { mask: 'causal', scale: 1, trace: true };
  const sdpa: AttentionResult = lab.scaledDotProductAttention(nested, identity, nested, sdpaOptions);
  lab.scaledDotProductAttention(nested, identity, nested);
  const fused = lab.scaledDotProductAttention(nested, identity, nested, { weights: false });
  const fusedOutput: Matrix = fused.output;
  describeMatrix(fusedOutput);
  // @ts-expect-error the fused path returns no weights
  fused.weights;

  const additiveOptions: AdditiveOptions = { Wq: identity, Wk: nested, wv: vector, mask: { validLens: [1, 2] }, trace: true };
  const additive: AttentionResult = lab.additiveAttention(nested, nested, nested, additiveOptions);

  const selfOptions: SelfAttentionOptions = { Wq: identity, Wk: identity, Wv: nested, mask: 'none', trace: false };
  const self: AttentionResult = lab.selfAttention(nested, selfOptions);

  const multiOptions: MultiHeadOptions = { heads: 2, Wq: identity, Wk: identity, Wv: identity, Wo: identity, mask: 'causal', trace: true };
  const multi: MultiHeadResult = lab.multiHeadAttention(nested, multiOptions);
  const head: HeadResult | undefined = multi.heads[0];
  const headSteps = head ? describeSteps(head.steps) : [];

  const layerOptions: MultiHeadLayerOptions = { heads: 2, Wq: identity, Wk: identity, Wv: identity, Wo: identity };
  const layer: MultiHeadLayer = lab.createMultiHeadAttention(layerOptions);
  const fast: { output: Matrix; concat: Matrix } = layer.forward(nested, { mask: 'causal' });
  const traced: MultiHeadResult = layer.forward(nested, { trace: true });
  const layerShape: number = layer.heads + layer.dModel + layer.dOut;
  layer.dispose();

  const localOptions: LocalAttentionOptions = { window: 2, causal: true, scale: 0.5, trace: true };
  const local: VariantResult = lab.localAttention(nested, nested, nested, localOptions);
  const linearOptions: LinearAttentionOptions = { causal: false, trace: true };
  const linear: VariantResult = lab.linearAttention(nested, nested, nested, linearOptions);
  lab.linearAttention(nested, nested, nested);
  const linformerOptions: LinformerAttentionOptions = { E: [[1, 0]], F: [[0, 1]], scale: 1, trace: false };
  const linformer: VariantResult = lab.linformerAttention(nested, nested, nested, linformerOptions);
  const variantWeights: Matrix | undefined = local.weights ?? linear.weights ?? linformer.weights;

  const kernel: KernelName = 'epanechnikov';
  const nwOptions: NadarayaWatsonOptions = { kernel, bandwidth: 0.5 };
  const nw: NadarayaWatsonResult = lab.nadarayaWatson(new Float32Array([0, 1]), [1, 2], [0.5], nwOptions);
  lab.nadarayaWatson([0, 1], [1, 2], [0.5]);
  const predictions: Float32Array = nw.predictions;
  const fit: ParametricPoolingResult = lab.fitParametricPooling([0, 1, 2], [1, 2, 3], { w: 1, learningRate: 0.5, epochs: 5 });
  console.log(fit.w, fit.bandwidth, fit.losses.length);
  const block: TransformerBlockResult = lab.transformerBlock(nested, { ...multiOptions, W1: nested, W2: nested, b1: [0], epsilon: 1e-5, trace: true });
  const blockStep: TransformerStepId | undefined = block.steps?.[5]?.id;
  console.log(block.output.rows, blockStep, block.heads?.[0]?.weights.rows);
  // @ts-expect-error a block's step ids ('residual1', …) are not attention step ids
  const attentionStep: StepId | undefined = block.steps?.[5]?.id;
  console.log(attentionStep);
  const positions: Matrix = lab.positionalEncoding(4, 8, { base: 100 });
  const shifted: Matrix = lab.addPositionalEncoding(positions);
  const scaled: Matrix = lab.addPositionalEncoding(positions, { scale: Math.sqrt(8), base: 100 });
  // @ts-expect-error scale belongs to addPositionalEncoding, not to P alone
  lab.positionalEncoding(4, 8, { scale: 2 });
  console.log(shifted.rows, scaled.rows);
  lab.releaseMemory();

  try {
    lab.matmul(nested, { rows: 3, cols: 1, data: new Float32Array(3) });
  } catch (error) {
    if (error instanceof AttentionError) {
      const code: AttentionErrorCode = error.code;
      const all: Readonly<Record<AttentionErrorCode, AttentionErrorCode>> = AttentionError.codes;
      console.log(code === all.SHAPE_MISMATCH, error.message);
    } else if (error instanceof AttentionRangeError) {
      const oom: 'OUT_OF_MEMORY' = error.code;
      const asRange: RangeError = error;
      console.log(oom, asRange.message);
    }
  }
  const made = new AttentionError('INVALID_MASK', 'softmax: mask is 1×1 but the scores are 2×2');
  const range = new AttentionRangeError('matmul: too big');

  // ---- wrong calls the declarations must reject ----
  // @ts-expect-error unknown option name (a typo of `scale`)
  lab.scaledDotProductAttention(nested, nested, nested, { scal: 1 });
  // @ts-expect-error unknown option name on softmax
  lab.softmax(nested, { masks: 'causal' });
  // @ts-expect-error a string where a matrix belongs
  lab.matmul('[[1, 2]]', nested);
  // @ts-expect-error a string where a matrix belongs (Q)
  lab.selfAttention('X', selfOptions);
  // @ts-expect-error missing required option Wv
  lab.selfAttention(nested, { Wq: identity, Wk: identity });
  // @ts-expect-error missing required option heads
  lab.multiHeadAttention(nested, { Wq: identity, Wk: identity, Wv: identity, Wo: identity });
  // @ts-expect-error missing required options of additive attention (no options at all)
  lab.additiveAttention(nested, nested, nested);
  // @ts-expect-error unknown mask name
  lab.softmax(nested, { mask: 'diagonal' });
  // @ts-expect-error unknown kernel name
  lab.nadarayaWatson([0], [1], [0], { kernel: 'triangle' });
  // @ts-expect-error transformerBlock needs W1 and W2
  lab.transformerBlock(nested, multiOptions);
  // @ts-expect-error positionalEncoding takes sizes, not a matrix
  lab.positionalEncoding(nested);
  // @ts-expect-error heads must be a number
  lab.multiHeadAttention(nested, { ...multiOptions, heads: '2' });
  // @ts-expect-error a matrix's data is numbers, not strings
  lab.matmul({ rows: 1, cols: 1, data: ['1'] }, nested);
  // @ts-expect-error unknown init option
  await init({ smid: false });
  // @ts-expect-error results are read, not assigned: simd is readonly
  lab.simd = false;
  // @ts-expect-error heapBytes is readonly
  lab.heapBytes = 0;
  // @ts-expect-error an unknown error code
  new AttentionError('NOT_A_CODE', 'x');
  const q4 = { shape: [1, 2, 3, 4], data: new Float32Array(24) };
  const kv4 = { shape: [1, 1, 3, 4], data: new Float32Array(12) };
  const batchedOptions: BatchedAttentionOptions = { causal: true, softcap: 30, bias: { shape: [3, 3], data: new Float32Array(9) }, trace: true };
  const batched = lab.batchedAttention(q4, kv4, kv4, batchedOptions);
  const batchedSteps: BatchedAttentionResult['steps'] = batched.steps;
  const batchedWeights: Tensor = batched.weights;
  const batchedFused: Tensor = lab.batchedAttention(q4, kv4, kv4, { weights: false, kvLengths: [2] }).output;
  // @ts-expect-error the fused path has no weights
  lab.batchedAttention(q4, kv4, kv4, { weights: false }).weights;
  // @ts-expect-error a float16 tensor's data is its bits, a Uint16Array
  lab.batchedAttention({ shape: [1, 1, 1, 1], data: new Float32Array(1), dtype: 'float16' }, kv4, kv4);
  const cache: KVCache = lab.createKVCache({ heads: 2, kvHeads: 1, dK: 4, dV: 4, capacity: 8, softcap: 30, window: 4 });
  const cacheWork: KVCacheWork = cache.prefill(q4, kv4, kv4).work;
  const cacheWeights: Tensor = cache.step(q4, kv4, kv4).weights;
  const cacheRows: number = cache.keys().data.length + cache.values().data.length + cache.length + cache.bytes;
  // @ts-expect-error the fused path has no weights
  cache.step(q4, kv4, kv4, { weights: false }).weights;
  cache.truncate(1);
  // @ts-expect-error truncate takes a token count
  cache.truncate('1');
  cache.reset();
  cache.release();
  const modelBytes: number = lab.kvCacheBytes({ layers: 32, kvHeads: 8, headDim: 128, tokens: 4096, bytesPerValue: 2 });
  // @ts-expect-error the capacity is required
  lab.createKVCache({ heads: 2, kvHeads: 1, dK: 4, dV: 4 });
  // @ts-expect-error the local window is required
  lab.localAttention(nested, nested, nested, { causal: true });

  const ropeOptions: RotaryEmbeddingOptions = { base: 500000, offset: 3, interleaved: true };
  const rotatedRows: Matrix = lab.rotaryEmbedding(nested, ropeOptions);
  const rotatedHeads: Tensor = lab.rotaryEmbedding({ shape: [1, 3, 8], data: new Float32Array(24) }, { heads: 2 });
  const angles: Matrix = lab.rotaryAngles(4, 8, { base: 100, offset: 2 });
  const slopes: Float32Array = lab.alibiSlopes(8);
  const alibiOptions: AlibiBiasOptions = { heads: 2, queries: 3, keys: 3, offset: 0, symmetric: false };
  lab.batchedAttention(q4, kv4, kv4, { bias: lab.alibiBias(alibiOptions) });
  // @ts-expect-error alibiBias needs heads and queries
  lab.alibiBias({ keys: 3 });
  // @ts-expect-error the angles need no pairing option
  lab.rotaryAngles(4, 8, { interleaved: true });
  // @ts-expect-error a rotated tensor is not a matrix
  const notAMatrix: Matrix = lab.rotaryEmbedding(q4);

  const taskBatch: TaskBatch = trainer.tasks.dates.batch({ seed: 7, size: 4, split: 'validation' });
  const taskText: string = trainer.tasks.dates.decode(taskBatch.target) + trainer.tasks.grammar.tokens(trainer.tasks.grammar.encode('the cats')).join(' ');
  const agreement: Int32Array = trainer.tasks.grammar.batch({ size: 2, count: 'agreement', language: 'zh' }).target;
  // @ts-expect-error a split is 'train' or 'validation'
  trainer.tasks.repeat.batch({ size: 2, split: 'test' });
  // @ts-expect-error count is 'every' or 'agreement'
  trainer.tasks.grammar.batch({ size: 2, count: 'all' });

  const gradients: AttentionBackwardResult = trainer.attentionBackward(nested, nested, nested, nested, { mask: 'causal', trace: true });
  const backwardSteps: BackwardStep[] | undefined = gradients.steps;
  // @ts-expect-error the inference build's type has no training functions
  lab.attentionBackward(nested, nested, nested, nested);

  const model: TransformerModel = trainer.createTransformer({ vocabSize: 10, maxLength: 6 });
  const precision: SavePrecision = 'int8';
  const checkpoint: Uint8Array = model.save({ precision });
  const saveOptions: SaveOptions = { precision: 'float16' };
  trainer.loadTransformer(model.save(saveOptions)).dispose();
  // @ts-expect-error a precision is 'float32', 'float16' or 'int8'
  model.save({ precision: 'int4' });

  const encoder: TransformerModel = trainer.createTransformer({ vocabSize: 10, maxLength: 6, kind: 'mlm', encoderLayers: 2 });
  const attended: AttendResult = encoder.attend([4, 5, 6]);
  const attendedWeights: Matrix | undefined = attended.attention[0]?.[0];
  const maskOptions: MlmBatchOptions = { mask: 9, vocabSize: 10, rate: 0.15, seed: 1 };
  const maskedInput: Int32Array = trainer.mlmBatch([{ ids: [4, 5, 6] }], maskOptions).input;
  // @ts-expect-error mlmBatch needs the mask id and the vocabulary size
  trainer.mlmBatch([{ ids: [4] }], { rate: 0.2 });
  // @ts-expect-error a kind is 'seq2seq', 'lm' or 'mlm'
  trainer.createTransformer({ vocabSize: 10, maxLength: 6, kind: 'bert' });
  void [attended.logits, attendedWeights, maskedInput];
  const recipe: CheckpointRecipe = trainer.checkpoints.dates;
  const trainedName: CheckpointName = 'grammar';
  const trainedOptions: LoadTrainedOptions = { url: new URL('https://cdn.example/dates.bin') };
  const trained: Promise<TransformerModel> = trainer.loadTrained(trainedName, { bytes: checkpoint });
  void trainer.loadTrained('dates', trainedOptions);
  // @ts-expect-error checkpoints ship for the four tasks only
  void trainer.loadTrained('sort');
  // @ts-expect-error the inference build loads no checkpoints
  void lab.loadTrained('dates');

  const Q: Matrix = { rows: 2, cols: 2, data: new Float32Array(4) };
  const pool: WorkerPool = await createWorkerPool(lab, { workers: 2, smallCall: 0 });
  const poolFromBytes: WorkerPool = await createWorkerPool(lab, { wasm: new Uint8Array(8) });
  void (await createWorkerPool(lab, { wasm: new URL('https://cdn.example/attention-lab-simd.wasm') }));
  // @ts-expect-error wasm is bytes or a URL, not a number
  void createWorkerPool(lab, { wasm: 42 });
  void poolFromBytes;
  const poolCount: number = pool.workers;
  const poolReason: string | null = pool.reason;
  const poolBuild: 'fma' | 'simd' | 'scalar' = pool.build;
  const pooledWeights: Matrix = (await pool.scaledDotProductAttention(Q, Q, Q, { mask: 'causal' })).weights;
  const pooledFused: { output: Matrix } = await pool.scaledDotProductAttention(Q, Q, Q, { weights: false });
  // @ts-expect-error the fused call returns no weights
  void (await pool.scaledDotProductAttention(Q, Q, Q, { weights: false })).weights;
  const pooledLayer: PoolMultiHeadLayer = await pool.createMultiHeadAttention({ heads: 2, Wq: Q, Wk: Q, Wv: Q, Wo: Q });
  const pooledConcat: Matrix = (await pooledLayer.forward(Q, { mask: 'causal' })).concat;
  const pooledSteps = (await pooledLayer.forward(Q, { trace: true })).steps;
  pooledLayer.dispose();
  pool.close();
  // @ts-expect-error workers is a number
  void createWorkerPool(lab, { workers: '2' });

  return [flavours, gradients, backwardSteps, taskBatch, taskText, agreement, simd, limit, product, softmaxed, sdpa, fused, additive, self, headSteps, fast, traced, layerShape, variantWeights, predictions, made, range, batchedWeights, batchedFused, batchedSteps,
    cacheWork, cacheWeights, cacheRows, modelBytes, rotatedRows, rotatedHeads, angles, slopes, notAMatrix, checkpoint, recipe.validation, trained,
    poolCount, poolReason, poolBuild, pooledWeights, pooledFused, pooledConcat, pooledSteps].length;
}
