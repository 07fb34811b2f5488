// Raw calls of the batched family (ops/batched.js): attention over a batch of
// heads with grouped-query heads, a KV cache (past ++ new) and the score rules
// of attention_bias.h, on the weights-kept path (weights given) or the fused one.
#include <emscripten/bind.h>

#include "batched_attention.h"
#include "raw.h"

namespace attn_bindings {
namespace {

using attn::HeadTensor;

HeadTensor tensor(addr p, u32 layout, const BatchedAttentionArgs& a, u32 heads, u32 rows, u32 cols) {
  return layout == 1 ? attn::rows_major(cf32(p), a.batch, heads, rows, cols)
                     : attn::heads_major(cf32(p), a.batch, heads, rows, cols);
}

template <class T>
attn::ScorePlane<T> plane(addr p, u32 batch_stride, u32 head_stride, u32 row_stride, u32 cols) {
  return {reinterpret_cast<const T*>(p), batch_stride, head_stride, row_stride, cols};
}

attn::ScoreRules rules_of(const BatchedAttentionArgs& a) {
  attn::ScoreRules r;
  r.scale = a.scale;
  r.softcap = a.softcap;
  r.causal = a.causal != 0;
  r.causal_offset = a.causalOffset;
  r.causal_offsets = reinterpret_cast<const std::int32_t*>(a.causalOffsets);
  r.window = a.window;
  r.kv_lengths = reinterpret_cast<const std::int32_t*>(a.kvLengths);
  if (a.keep) r.keep = plane<std::uint8_t>(a.keep, a.keepBatchStride, a.keepHeadStride, a.keepRowStride, a.keepCols);
  if (a.bias) r.bias = plane<float>(a.bias, a.biasBatchStride, a.biasHeadStride, a.biasRowStride, a.biasCols);
  return r;
}

int batched_attention(addr p) {
  const auto& a = block<BatchedAttentionArgs>(p);
  const HeadTensor q = tensor(a.Q, a.layout, a, a.heads, a.n, a.d);
  HeadTensor k = tensor(a.K, a.layout, a, a.kvHeads, a.m, a.d);
  HeadTensor v = tensor(a.V, a.layout, a, a.kvHeads, a.m, a.dv);
  if (a.pastKey) {  // the cache: attend over present = past ++ new, which is also returned
    const auto present_k = attn::heads_major(f32(a.presentKey), a.batch, a.kvHeads, a.past + a.m, a.d);
    const auto present_v = attn::heads_major(f32(a.presentValue), a.batch, a.kvHeads, a.past + a.m, a.dv);
    const auto past_k = attn::heads_major(cf32(a.pastKey), a.batch, a.kvHeads, a.past, a.d);
    const auto past_v = attn::heads_major(cf32(a.pastValue), a.batch, a.kvHeads, a.past, a.dv);
    if (attn::Status s = attn::append_to_cache(past_k, k, present_k); s != attn::Status::ok) return status(s);
    if (attn::Status s = attn::append_to_cache(past_v, v, present_v); s != attn::Status::ok) return status(s);
    k = present_k;
    v = present_v;
  }
  const auto out = a.layout == 1 ? attn::rows_major(f32(a.output), a.batch, a.heads, a.n, a.dv)
                                 : attn::heads_major(f32(a.output), a.batch, a.heads, a.n, a.dv);
  const attn::ScoreRules rules = rules_of(a);
  if (!a.weights) return status(attn::batched_fused_attention(q, k, v, rules, out, f32(a.scratch)));
  const attn::BatchedTrace trace{f32(a.scores), f32(a.capped), f32(a.biased)};
  return status(attn::batched_attention(q, k, v, rules, out, f32(a.weights), &trace));
}

u32 batched_scratch_floats(addr p) {
  return static_cast<u32>(attn::batched_fused_scratch_floats(block<BatchedScratchFloatsArgs>(p).dv));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(batched_ops) {
  using namespace attn_bindings;
  emscripten::function("_batchedAttention", &batched_attention);
  emscripten::function("_batchedScratchFloats", &batched_scratch_floats);
}
