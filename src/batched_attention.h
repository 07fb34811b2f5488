// Attention over a batch of heads, as ONNX's Attention operator (opset 23/24)
// and PyTorch's scaled_dot_product_attention compute it:
//   Y[b, h] = softmax(rules(Q[b, h] · K[b, g]ᵀ)) · V[b, g],   g = ⌊h · kv_heads / heads⌋
// where rules() scales, soft-caps, hides and biases the scores (attention_bias.h).
// Fewer key/value heads than query heads is grouped-query (and, with one,
// multi-query) attention. Two paths, the same result up to float rounding:
//   batched_attention        keeps the n×m weights of every head (and, on request, the
//                            scores before and after the cap and the rules);
//   batched_fused_attention  FlashAttention-style: blocks of query rows of one GQA group share
//                            each packed key block, with an online softmax per row; no n×m
//                            matrix, key blocks outside every row's range skipped.
// A KV cache is the keys and values of earlier steps: append_to_cache writes
// past ++ new into the present tensors the next step reads.
#pragma once

#include <cstddef>

#include "attention_bias.h"
#include "head_tensor.h"
#include "status.h"

namespace attn {

// Optional intermediates, each dense [batch, heads, n, m]; null = not asked for.
struct BatchedTrace {
  float* scores = nullptr;  // q·k · scale
  float* capped = nullptr;  // after the soft cap
  float* biased = nullptr;  // after the rules: hidden entries hold −FLT_MAX (traces hold no infinity)
};

// q: [B, H, n, d], k: [B, G, m, d], v: [B, G, m, d_v], out: [B, H, n, d_v]
// (any strides); weights: dense [B, H, n, m]. H a multiple of G.
Status batched_attention(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                         const MutHeadTensor& out, float* weights, const BatchedTrace* trace);

// Floats of scratch batched_fused_attention needs for values of width d_v (any key width).
std::size_t batched_fused_scratch_floats(std::size_t d_v);

Status batched_fused_attention(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                               const MutHeadTensor& out, float* scratch);

// present[b, g] = past[b, g] rows followed by fresh[b, g] rows (same batch,
// heads and width; present.rows = past.rows + fresh.rows).
Status append_to_cache(const HeadTensor& past, const HeadTensor& fresh, const MutHeadTensor& present);

// Shapes shared by both paths (also used by the bindings' and fuzzers' checks).
Status check_batched_shapes(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const MutHeadTensor& out);

}  // namespace attn
