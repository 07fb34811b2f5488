// Type declarations for attention-lab/components (dist/components.js), written by hand.
// Importing the module registers every element under its default tag.
import type { AttentionLab, MatrixInput } from './index.js';

/**
 * The author's own numbers, in one of three ways: X and/or the weights (computed from; the rest
 * seeded), Q, K and V (the steps start at the scores), or a trained model's attention `weights`
 * (shown as given). A setting given as an attribute must agree with the matrices, one not given is
 * read from them (d-model from X, d-k from the weights or Q, heads from `weights`); every mismatch,
 * an unknown key or a token count that differs from the rows is shown as an error on the panel.
 * Panels: steps and heads take all three; compare, cross, positions, cost and transformer take X
 * and the weights only.
 */
export interface AttentionInputs {
  /** n×d_model input rows (one per token); replaces the seeded embeddings. */
  X?: MatrixInput;
  /** d_model×(h·d_k) query projection. */
  Wq?: MatrixInput;
  /** d_model×(h·d_k) key projection. */
  Wk?: MatrixInput;
  /** d_model×(h·d_v) value projection. */
  Wv?: MatrixInput;
  /** (h·d_v)×d_model output projection (multi-head only; with Q, K, V: (h·d_v)×any, for the output after W_O). */
  Wo?: MatrixInput;
  /** n×(h·d_k) queries, as exported (e.g. from PyTorch); with K and V, instead of X and the weights. */
  Q?: MatrixInput;
  /** n×(h·d_k) keys; one row per token, as many as Q. */
  K?: MatrixInput;
  /** n×(h·d_v) values; one row per token, as many as Q. */
  V?: MatrixInput;
  /** Attention weights n×n (one head) or heads×n×n nested arrays, e.g. a Hugging Face `output_attentions` slice `attentions[layer][0]`; each row sums to 1 (±0.02) or is all 0. */
  weights?: number[][] | number[][][] | MatrixInput;
  /** One label per row, shown as given (`didn't`, `▁the`, `##ing`); wins over the `tokens` attribute and the sentence. */
  tokens?: string[];
}

/** The configuration every element reads from its attributes. */
export interface AttentionState {
  /** `sentence`: split into words (Latin) or characters (Chinese), at most 128 tokens (1,600 characters). Default `the cat sat on the mat`, or `小猫坐在垫子上` when the language is Chinese. */
  sentence: string;
  /** `seed`: seeds the embeddings and weights (integer ≥ 0). Default 42. */
  seed: number;
  /** `d-model`: embedding width, 1–64. Default 8. */
  dModel: number;
  /** `d-k`: query/key/value width per head, 1–64, with heads·d-k ≤ 64. Default 8. */
  dK: number;
  /** `heads`: number of heads, 1–8. Default 1. */
  heads: number;
  /** `mask`: `none` (default), `causal`, or `padding` (keys at or after `valid-len` hidden). */
  mask: 'none' | 'causal' | 'padding';
  /** `valid-len`: valid length for the padding mask. Default 3. */
  validLen: number;
  /** `tokens`: the author's tokens, one per row, shown as given instead of the split sentence: a JSON array (`["didn't", "▁the"]`) or tokens separated by spaces. Default empty (the sentence's tokens). */
  tokens: string;
}

/**
 * What every element shares. Attributes: `sentence`, `seed`, `d-model`, `d-k`, `heads`,
 * `mask`, `valid-len`, `tokens`, `lang` (`en` or `zh-CN`; default: nearest `lang`, then the browser).
 * Styling: `--attn-bg`, `--attn-surface`, `--attn-fg`, `--attn-muted`, `--attn-border`,
 * `--attn-accent`, `--attn-accent-fg`, `--attn-focus`, `--attn-highlight`, `--attn-cell-size`,
 * `--attn-radius`, `--attn-font`, `--attn-mono`; parts `base`, `heatmap`, `heatmap-table`,
 * `legend`, `export`, `button`, `formula`, `tab`, `tabs`, `stepper`, `step`, `operands`, `chart`.
 * Fires `attention-render` (composed) after each render; `data-ready` is set once every heatmap of the latest render is filled,
 * and `updateComplete` resolves once nothing is pending (await it after a change).
 * Colours: the `theme` attribute (`auto`, `light`, `dark`), see `theme`.
 */
export declare class AttentionElement extends HTMLElement {
  /** The default tag name. */
  static tag: string;
  /** Register under `tag` (default: the element's own); a no-op when already defined. */
  static define(tag?: string): typeof AttentionElement;
  /** The author's own numbers (X and weights, Q/K/V, or attention weights). Setting it re-renders. */
  inputs: AttentionInputs;
  /** The `tokens` attribute as a list (set: written as JSON); null when not set. */
  tokens: string[] | null;
  /** The resolved language: `'en'` or `'zh-CN'`. */
  readonly language: 'en' | 'zh-CN';
  /**
   * `theme`: `auto` (default) takes the page's colour scheme: dark under `html.dark { color-scheme: dark }`,
   * the OS's choice under `color-scheme: light dark`, light on a page that declares none; `light` and
   * `dark` override it. Not part of the URL state. Printed panels are light.
   */
  theme: 'auto' | 'light' | 'dark';
  /** The colours the element is drawn in now: `'light'` or `'dark'`. */
  readonly colorScheme: 'light' | 'dark';
  /** Draw at once every heatmap of the page that still waits (off screen, or for the next frame), e.g. before a full-page screenshot; printing does it by itself. */
  drawAll(): void;
  /** The configuration from the attributes, defaults filled in and clamped. */
  config(): AttentionState;
  /** Schedule a re-render (batched in a microtask). */
  requestRender(): void;
  /**
   * Resolves to `true` once nothing is pending: the library loaded, no render queued, every heatmap's
   * cells and tables written (`data-ready`), the same for every element shown inside this one, and
   * no idle work of the page's components left. Await it after setting an attribute, instead of
   * polling `data-ready`.
   */
  readonly updateComplete: Promise<true>;
}

/** `<attention-steps>`: a stepper through X → Q, K, V → QKᵀ → ÷√d_k → mask → softmax → ·V (→ concat, W_O). Extra attributes: `step` (a step id, e.g. `weights`), `head` (0-based), `weights` (`random`, default, `trained`: layer 0 of the shipped grammar model on `sentence`, or `reader`: the steps of head `head` of layer `layer` of the reader trained on real text, its `reader-model` `encoder` or `decoder`; both fetched with the training build only then). Fires `attention-step` with `{ step, head }`. */
export declare class AttentionSteps extends AttentionElement {
  /** The shown step id: `X`, `Q`, `K`, `V`, `scores`, `scaled`, `masked`, `weights`, `output` (one head) or `head-output`, `concat`, `final` (several heads). */
  step: string;
  /** Move to a step and fire `attention-step`. */
  go(step: string): void;
  /** Start or stop stepping on a timer. */
  play(): void;
}

/** `<attention-compare>`: additive vs scaled vs unscaled dot-product attention. Extra attribute: `hidden-size` (h of additive attention, 1–64, default 8). */
export declare class AttentionCompare extends AttentionElement {}

/** `<attention-scaling>`: the variance of q·k, the largest softmax weight and the softmax Jacobian norm against d_k. */
export declare class AttentionScaling extends AttentionElement {}

/** `<attention-pooling>`: attention cues (D2L 10.1: the identity and a random softmax as weights), then non-parametric and parametric attention pooling (Nadaraya-Watson kernel regression). Extra attributes: `kernel` (`gaussian`, `boxcar`, `epanechnikov`, `constant`), `bandwidth` (> 0, default 1), `query` (0–5). Fires `attention-pooling` with `{ kernel, bandwidth, query }`. */
export declare class AttentionPooling extends AttentionElement {}

/** `<attention-heads>`: every head's weights, the concatenation and the W_O output. Extra attributes: `weights` (`random`, default; `trained`: one layer of the shipped grammar model; `reader`: the model view of the reader trained on real text, every layer × head, fetched with the training build only then), `layer`, `reader-model` (`encoder`, default, or `decoder`). */
export declare class AttentionHeads extends AttentionElement {}

/** `<attention-cross>`: encoder-decoder (cross) attention: queries from `sentence` (target, n tokens), keys and values from `source` (m tokens, at most 128); n×m weights. Extra attributes: `source` (default 小猫坐在垫子上; `the cat sat on the mat` when the language is Chinese), `scoring` (`dot`, default, or `additive`: Bahdanau), `valid-lens` (one valid length per target row, e.g. `2 0 7`; 2-D valid lengths), `weights` (`random`, default, or `trained`: the shipped dates checkpoint, fetched with the training build only then, shows its output and cross-attention for `date`, default `December 1, 2026`, or `2026年12月1日` when the language is Chinese). Fires `attention-cross` with `{ source, scoring, weights, date }`. */
export declare class AttentionCross extends AttentionElement {}

/** `<attention-positions>`: sinusoidal positional encoding P (n×d_model), columns against position, P Pᵀ, and attention with and without P when two tokens swap. Extra attributes: `swap` (two positions, e.g. `1 2`), `shift` (the offset δ of the rotation section, 1–32) and `pair` (its frequency pair j). Fires `attention-positions` with `{ swap, shift, pair }`. */
export declare class AttentionPositions extends AttentionElement {}

/** `<attention-cost>`: why n² hurts long sequences: full, local, linear and Linformer weights for the sentence, one round of Reformer's LSH buckets, the fused path's online softmax block by block, a measured time-against-n chart (button "Measure"), bytes of the n×n weights, CNN / RNN / self-attention complexity. Extra attributes: `window` (local attention's w, 1–32, default 2), `linformer-k` (1–32, default 3), `max-n` (largest n measured, a power of two in 64–4096, default 4096). Fires `attention-measure` with `{ rows, settings }` when a measurement ends. */
export declare class AttentionCost extends AttentionElement {}

/** `<attention-transformer>`: one post-norm Transformer encoder block, step by step: X (or X + P) → multi-head attention A → X + A → Y = LayerNorm(X + A) → H = ReLU(YW₁ + b₁) → F = HW₂ + b₂ → Y + F → Z = LayerNorm(Y + F), from lab.transformerBlock's trace (d_ff = 4·d_model, at most 128, seeded W₁, b₁, W₂, b₂). Extra attributes: `step` (`X`, `attention`, `residual1`, `norm1`, `hidden`, `ffn`, `residual2`, `output`), `positional` (present: add the positional encoding to X first). Fires `attention-transformer` with `{ step, positional }`. */
export declare class AttentionTransformer extends AttentionElement {
  /** The shown step id. */
  step: string;
  /** Whether P is added to X before the block (the `positional` attribute). */
  positional: boolean;
  /** Move to a step and fire `attention-transformer`. */
  go(step: string): void;
}

/**
 * `<attention-decoding>`: attention as today's language models run it: the KV cache step by step
 * (prefill, then one token at a time; the caches, the new query's weights, the work per token with
 * and without the cache, the cache's memory for model shapes with MHA, GQA and MQA), rotary
 * position embedding, ALiBi, soft-capping and a sliding window, every number from the library.
 * Extra attributes: `prefill` (tokens run at once, 1–127, default 3), `decode-step` (tokens
 * generated after it, 0 – n − prefill, default 1), `softcap` (c, 0.1–50, default 0.5),
 * `sliding-window` (w, 1–128, default 3), `alibi-heads` (1–8, default 4), `rope-base` (2–10⁶,
 * default 10000), `rope-shift` (positions added to both q and k, 0–64, default 5), `context`
 * (tokens in the cache for the memory table, 1–1,048,576, default 4096), `kv-shape` (`layers heads
 * kvHeads headDim`, default `32 32 8 128`). Fires `attention-decoding` with those attributes when a control changes one.
 */
export declare class AttentionDecoding extends AttentionElement {
  /** Generate the next token (`decode-step` + 1; after the last, back to 0) and fire `attention-decoding`. */
  nextToken(): void;
}

/**
 * `<attention-train>`: trains a small Transformer in a module Worker (the training build,
 * `attention-train-worker.js` next to this module, with the training .wasm beside it) and shows its
 * progress toward the task's goal, the loss and validation exact-match curves, steps per second, the
 * attention of a fixed example for every layer and head, and the model's output and attention for
 * the reader's input. Extra attributes: `task` (`reverse`, default, `dates`, `grammar`, `repeat`),
 * `layers` (per side, 1–3), `train-heads` (1, 2, 4 or 8), `train-d-model` (8–128, a multiple of the
 * heads), each defaulting to the task's own model; `scoring` (the cross-attention of the seq2seq
 * tasks: `dot`, default, `additive` or `unscaled`), `train-seed` (default 1), `compare` (`scaling`:
 * scaled vs unscaled dot-product, `scoring`: scaled dot-product vs additive cross-attention, seq2seq
 * tasks only; two runs in two workers, their loss and gradient-norm curves on shared charts; empty:
 * one run). Exports: the loss chart as PNG, the curves as CSV, the weights as JSON. A changed setting
 * drops the model (and stops its training): the next Train starts the new one. Fires `attention-train` with
 * `{ state, step, loss, accuracy }` when its state changes.
 */
export declare class AttentionTrain extends AttentionElement {
  /** The settings as used: task, layers, heads, dModel, scoring, seed, seq2seq, example, changed. */
  readonly settings: { task: string; layers: number; heads: number; dModel: number; scoring: string; seed: number; seq2seq: boolean; example: string; compare: '' | 'scaling' | 'scoring'; compareAsked: '' | 'scaling' | 'scoring'; changed: { name: string; given: string; used: string }[] };
  /** `idle`, `loading`, `running`, `pausing` (until the chunk of steps in hand ends), `paused`, `reached` (the goal), `stopped` (at its last step) or `failed`. */
  readonly state: string;
  /** The last step trained (0 before the first). */
  readonly step: number;
  /** The curves since the model's start (copies): the training loss at each report, the validation exact match every 50 steps. */
  readonly curves: { loss: { step: number; loss: number; gradientNorm: number }[]; accuracy: { step: number; accuracy: number }[] };
  /** In compare mode each run's scoring, state and curves (copies), in the charts' order; else []. */
  readonly compareCurves: { scoring: string; state: string; loss: { step: number; loss: number; gradientNorm: number }[]; accuracy: { step: number; accuracy: number }[] }[];
  /** Start training, or continue the model of the same settings after a pause. */
  train(): void;
  /** Stop after the current chunk of steps; Train continues the same curve. */
  pause(): void;
  /** Drop the model and its curves (after a failure, a fresh worker). */
  reset(): void;
}

/**
 * `<attention-explorer>`: the input controls and every panel. Fires `attention-change` with the
 * whole state. Extra attributes: `panel` (the shown tab: `steps`, `heads`, `compare`, `scaling`,
 * `pooling`, `cross`, `positions`, `cost`, `transformer`, `decoding`, `train`) and `sync-url` (boolean: read
 * the state from the page's URL when connected and write it back on every change, keeping the
 * page's other query parameters and its fragment; one such explorer per page).
 */
export declare class AttentionExplorer extends AttentionElement {
  /** The whole state, as a page would keep it in its URL. */
  readonly state: AttentionState & AttentionPanelSettings & { step?: string; head?: string; kernel?: string; bandwidth?: string; panel: string; lang: 'en' | 'zh-CN' };
  /**
   * The panels' own settings that are set, as strings bounded in length. Setting it gives them to
   * the panels as attributes: a string sets the attribute, null removes it, a missing field is
   * left as it is (values given before the panels exist are applied once they do).
   */
  get panelSettings(): AttentionPanelSettings;
  set panelSettings(settings: { [K in keyof AttentionPanelSettings]?: string | null } | null | undefined);
}

/** The panels' own settings the explorer keeps in its state (each the attribute of one panel). */
export interface AttentionPanelSettings {
  /** attention-compare `hidden-size`. */
  hiddenSize?: string;
  /** attention-pooling `query`. */
  query?: string;
  /** attention-cross `source`, `scoring`, `valid-lens`. */
  source?: string;
  scoring?: string;
  validLens?: string;
  /** attention-positions `swap`, `shift`, `pair`. */
  swap?: string;
  shift?: string;
  pair?: string;
  /** attention-cost `window`, `linformer-k`, `max-n`. */
  window?: string;
  linformerK?: string;
  maxN?: string;
  /** attention-transformer `positional` ('1' when present) and `step`. */
  positional?: string;
  transformerStep?: string;
  /** attention-decoding `prefill`, `decode-step`, `softcap`, `sliding-window`, `alibi-heads`, `rope-base`, `rope-shift`, `context`, `kv-shape`. */
  prefill?: string;
  decodeStep?: string;
  softcap?: string;
  slidingWindow?: string;
  alibiHeads?: string;
  ropeBase?: string;
  ropeShift?: string;
  context?: string;
  kvShape?: string;
  /** attention-train `task`, `layers`, `train-heads`, `train-d-model`, `scoring`, `train-seed`, `compare`. */
  trainTask?: string;
  trainLayers?: string;
  trainHeads?: string;
  trainDModel?: string;
  trainScoring?: string;
  trainSeed?: string;
  trainCompare?: string;
  /** attention-backward `step` and `score-scale`. */
  backwardStep?: string;
  scoreScale?: string;
  /** attention-cross `weights` (`random` or `trained`: the shipped dates model) and `date` (the date it reads). */
  crossWeights?: string;
  crossDate?: string;
  /** attention-steps `weights` (`random`, `trained`: layer 0 of the shipped grammar model, or `reader`: a head of the reader trained on real text). */
  stepsWeights?: string;
  /** attention-heads `weights` (`random`, `trained`: the shipped grammar model's heads, or `reader`: every layer × head of the reader trained on real text) and `layer` (0-based, trained only). */
  headsWeights?: string;
  headsLayer?: string;
  /** attention-transformer `weights` (`random`, `trained`: a layer of the shipped grammar model, pre-norm, or `reader`: a layer of the reader trained on real text, pre-norm) and `layer` (0-based). */
  transformerWeights?: string;
  transformerLayer?: string;
  /** attention-backward `weights` (`random`, `trained`: a head of the shipped grammar model, or `reader`: a head of the reader trained on real text) and `layer` (0-based). */
  backwardWeights?: string;
  backwardLayer?: string;
  /** attention-heads `reader-model` (`encoder` or `decoder`: the reader's model shown with weights `reader`). */
  headsReaderModel?: string;
  /** attention-steps `reader-model` (`encoder` or `decoder`) and `layer` (0-based): the reader's model and layer whose head's steps are shown with weights `reader`. */
  stepsReaderModel?: string;
  stepsLayer?: string;
  /** attention-transformer `reader-model` (`encoder` or `decoder`: the reader's model whose layer is shown with weights `reader`). */
  transformerReaderModel?: string;
  /** attention-backward `reader-model` (`encoder` or `decoder`: the reader's model whose head is followed with weights `reader`). */
  backwardReaderModel?: string;
}

/**
 * `<attention-backward>`: the backward pass of one head of the shared input model, step by step, from
 * the training build's `lab.attentionBackward` trace (loaded from `training.js` next to this module,
 * only once the element is shown): the forward recap S, P, O; dO = O − T for the loss
 * L = ½‖O − T‖² with a seeded target T; dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − rowsum(P ∘ dP)),
 * dQ = scale · dS K, dK = scale · dSᵀ Q; and a slider for the factor c of the score scale c/√d_k
 * with ‖dS‖_F at every factor, showing dS vanish as the softmax saturates. Extra attributes: `step`
 * (`S`, `P`, `O`, `dO`, `dV`, `dP`, `dS`, `dQ`, `dK`; default `S`), `score-scale` (c: 0.25, 0.5, 1,
 * default, 2, 4, 8, 16, 32, 64 or 128; another number the nearest of these), `head` (from 0). Fires
 * `attention-backward` with `{ step, scoreScale }`.
 */
export declare class AttentionBackward extends AttentionElement {
  /** The shown step id. */
  step: string;
  /** The factor c of the score scale c/√d_k. */
  scoreScale: number;
  /** Move to a step and fire `attention-backward`. */
  go(step: string): void;
}

/** Register every element under its default tag (done on import; safe to call again). */
export declare function defineAll(): void;

/** The library instance the elements share (loaded once, .wasm next to this module). */
export declare function getLab(): Promise<AttentionLab>;

declare global {
  interface HTMLElementTagNameMap {
    'attention-steps': AttentionSteps;
    'attention-compare': AttentionCompare;
    'attention-scaling': AttentionScaling;
    'attention-pooling': AttentionPooling;
    'attention-heads': AttentionHeads;
    'attention-cross': AttentionCross;
    'attention-positions': AttentionPositions;
    'attention-cost': AttentionCost;
    'attention-transformer': AttentionTransformer;
    'attention-decoding': AttentionDecoding;
    'attention-train': AttentionTrain;
    'attention-backward': AttentionBackward;
    'attention-explorer': AttentionExplorer;
  }
}
