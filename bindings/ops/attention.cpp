// Raw calls of the attention family (ops/attention.js): matmul, softmax,
// scaled dot-product (traced and fused), additive and self-attention.
#include <emscripten/bind.h>

#include "attention.h"
#include "blocked_attention.h"
#include "flash_attention.h"
#include "matmul.h"
#include "raw.h"
#include "softmax.h"

namespace attn_bindings {
namespace {

int matmul(addr p) {
  const auto& a = block<MatmulArgs>(p);
  attn::matmul(in(a.A, a.n, a.k), in(a.B, a.k, a.m), out(a.C, a.n, a.m));
  return 0;
}

int softmax(addr p) {
  const auto& a = block<SoftmaxArgs>(p);
  const attn::Mask mask = make_mask(a.maskKind, a.mask, a.n, a.m);
  if (attn::Status st = attn::check_mask(mask, a.n, a.m); st != attn::Status::ok) return status(st);
  if (a.masked && a.maskKind != 0) attn::apply_mask_for_trace(in(a.S, a.n, a.m), mask, out(a.masked, a.n, a.m));
  attn::softmax_rows(in(a.S, a.n, a.m), mask, out(a.weights, a.n, a.m));
  return 0;
}

// Untraced (scratch given, no trace buffers): the blocked kernel; traced: step by step.
int scaled_dot_product(addr p) {
  const auto& a = block<ScaledDotProductArgs>(p);
  if (a.scratch && !a.scores && !a.scaled && !a.masked)
    return status(attn::blocked_attention(in(a.Q, a.n, a.d), in(a.K, a.m, a.d), in(a.V, a.m, a.dv),
                                          make_mask(a.maskKind, a.mask, a.n, a.m), a.scale, out(a.weights, a.n, a.m),
                                          out(a.output, a.n, a.dv), f32(a.scratch)));
  const attn::AttentionTrace trace{f32(a.scores), f32(a.scaled), f32(a.masked)};
  return status(attn::scaled_dot_product_attention(in(a.Q, a.n, a.d), in(a.K, a.m, a.d), in(a.V, a.m, a.dv),
                                                   make_mask(a.maskKind, a.mask, a.n, a.m), a.scale,
                                                   out(a.weights, a.n, a.m), out(a.output, a.n, a.dv), &trace));
}

u32 weights_scratch_floats(addr p) {
  const auto& a = block<WeightsScratchFloatsArgs>(p);
  return static_cast<u32>(attn::blocked_attention_scratch_floats(a.m, a.d));
}

u32 fused_scratch_floats(addr p) {
  const auto& a = block<FusedScratchFloatsArgs>(p);
  return static_cast<u32>(attn::fused_attention_scratch_floats(a.m, a.d, a.dv));
}

int fused(addr p) {
  const auto& a = block<FusedArgs>(p);
  return status(attn::fused_attention(in(a.Q, a.n, a.d), in(a.K, a.m, a.d), in(a.V, a.m, a.dv),
                                      make_mask(a.maskKind, a.mask, a.n, a.m), a.scale, out(a.output, a.n, a.dv),
                                      f32(a.scratch)));
}

int additive(addr p) {
  const auto& a = block<AdditiveArgs>(p);
  // scratch: the n×h projected queries, then the m×h projected keys
  const attn::AdditiveParams params{in(a.Wq, a.dq, a.h), in(a.Wk, a.dk, a.h), cf32(a.wv), out(a.scratch, a.n, a.h),
                                    out(a.scratch + sizeof(float) * a.n * a.h, a.m, a.h)};
  const attn::AttentionTrace trace{f32(a.scores), nullptr, f32(a.masked)};
  return status(attn::additive_attention(in(a.Q, a.n, a.dq), in(a.K, a.m, a.dk), in(a.V, a.m, a.dv), params,
                                         make_mask(a.maskKind, a.mask, a.n, a.m), out(a.weights, a.n, a.m),
                                         out(a.output, a.n, a.dv), &trace));
}

int self_attention(addr p) {
  const auto& a = block<SelfAttentionArgs>(p);
  const attn::Projections qkv{out(a.Q, a.n, a.dk), out(a.K, a.n, a.dk), out(a.V, a.n, a.dv)};
  const attn::AttentionTrace trace{f32(a.scores), f32(a.scaled), f32(a.masked)};
  return status(attn::self_attention(in(a.X, a.n, a.dModel), in(a.Wq, a.dModel, a.dk), in(a.Wk, a.dModel, a.dk),
                                     in(a.Wv, a.dModel, a.dv), make_mask(a.maskKind, a.mask, a.n, a.n), qkv,
                                     out(a.weights, a.n, a.n), out(a.output, a.n, a.dv), &trace));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(attention_ops) {
  using namespace attn_bindings;
  emscripten::function("_matmul", &matmul);
  emscripten::function("_softmax", &softmax);
  emscripten::function("_scaledDotProduct", &scaled_dot_product);
  emscripten::function("_weightsScratchFloats", &weights_scratch_floats);
  emscripten::function("_fusedScratchFloats", &fused_scratch_floats);
  emscripten::function("_fused", &fused);
  emscripten::function("_additive", &additive);
  emscripten::function("_selfAttention", &self_attention);
}
