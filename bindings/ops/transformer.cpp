// Raw call of the Transformer family (ops/transformer.js): one post-norm
// encoder block, every intermediate in a buffer of its own.
#include <emscripten/bind.h>

#include "raw.h"
#include "transformer_block.h"

namespace attn_bindings {
namespace {

int transformer_block(addr p) {
  const auto& a = block<TransformerBlockArgs>(p);
  const u32 n = a.n;
  const attn::TransformerWeights w{a.heads, in(a.Wq, a.dModel, a.dkAll), in(a.Wk, a.dModel, a.dkAll),
                                   in(a.Wv, a.dModel, a.dvAll), in(a.Wo, a.dvAll, a.dModel),
                                   in(a.W1, a.dModel, a.dFf), in(a.W2, a.dFf, a.dModel),
                                   cf32(a.b1), cf32(a.b2), cf32(a.gamma1), cf32(a.beta1),
                                   cf32(a.gamma2), cf32(a.beta2), a.epsilon};
  const attn::TransformerBuffers b{
      {{out(a.Q, n, a.dkAll), out(a.K, n, a.dkAll), out(a.V, n, a.dvAll)},
       f32(a.weights), out(a.concat, n, a.dvAll), out(a.attention, n, a.dModel), {}},
      out(a.sum1, n, a.dModel), out(a.norm1, n, a.dModel), out(a.hidden, n, a.dFf), out(a.ffn, n, a.dModel),
      out(a.sum2, n, a.dModel), out(a.output, n, a.dModel)};
  return status(attn::transformer_encoder_block(in(a.X, n, a.dModel), w, make_mask(a.maskKind, a.mask, n, n), b));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(transformer_ops) {
  emscripten::function("_transformerBlock", &attn_bindings::transformer_block);
}
