// Raw calls of the backward family (ops/backward.js): the gradients of
// scaled dot-product attention, fused (forward with the row log-sum-exp, then
// the FlashAttention-2-style backward) or with the weights kept (the forward's
// P, then dP and dS as n×m matrices: the backward trace).
#include <emscripten/bind.h>

#include "attention.h"
#include "raw.h"
#include "train/attention_backward.h"
#include "train/fused_backward.h"

namespace attn_bindings {
namespace {

u32 fused_backward_scratch_floats(addr p) {
  const auto& a = block<FusedBackwardScratchFloatsArgs>(p);
  const std::size_t forward = attn::fused_forward_scratch_floats(a.m, a.d, a.dv);
  const std::size_t backward = attn::fused_backward_scratch_floats(a.n, a.m, a.d, a.dv);
  return static_cast<u32>(forward > backward ? forward : backward);  // the two passes share it
}

int fused_backward(addr p) {
  const auto& a = block<FusedBackwardArgs>(p);
  const attn::Mask mask = make_mask(a.maskKind, a.mask, a.n, a.m);
  const auto q = in(a.Q, a.n, a.d), k = in(a.K, a.m, a.d), v = in(a.V, a.m, a.dv);
  const attn::MatrixView output = out(a.output, a.n, a.dv);
  if (attn::Status st = attn::fused_attention_forward(q, k, v, mask, a.scale, output, f32(a.lse), f32(a.scratch));
      st != attn::Status::ok)
    return status(st);
  const attn::AttentionGradients grads{out(a.dQ, a.n, a.d), out(a.dK, a.m, a.d), out(a.dV, a.m, a.dv)};
  return status(attn::fused_attention_backward(q, k, v, output, in(a.dO, a.n, a.dv), cf32(a.lse), mask, a.scale,
                                               grads, f32(a.scratch)));
}

int attention_backward(addr p) {
  const auto& a = block<AttentionBackwardArgs>(p);
  const auto q = in(a.Q, a.n, a.d), k = in(a.K, a.m, a.d), v = in(a.V, a.m, a.dv);
  const attn::MatrixView weights = out(a.weights, a.n, a.m);
  if (attn::Status st = attn::scaled_dot_product_attention(q, k, v, make_mask(a.maskKind, a.mask, a.n, a.m), a.scale,
                                                           weights, out(a.output, a.n, a.dv));
      st != attn::Status::ok)
    return status(st);
  const attn::AttentionGradients grads{out(a.dQ, a.n, a.d), out(a.dK, a.m, a.d), out(a.dV, a.m, a.dv)};
  const attn::AttentionBackwardBuffers buffers{out(a.dP, a.n, a.m), out(a.dS, a.n, a.m)};
  return status(attn::attention_backward(q, k, v, weights, in(a.dO, a.n, a.dv), a.scale, grads, buffers));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(backward_ops) {
  using namespace attn_bindings;
  emscripten::function("_fusedBackwardScratchFloats", &fused_backward_scratch_floats);
  emscripten::function("_fusedBackward", &fused_backward);
  emscripten::function("_attentionBackward", &attention_backward);
}
