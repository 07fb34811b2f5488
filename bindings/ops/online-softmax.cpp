// Raw call of the online-softmax trace (ops/online-softmax.js): one query
// row's running max, sum, rescale and output after each block of keys.
#include <emscripten/bind.h>

#include "online_softmax.h"
#include "raw.h"

namespace attn_bindings {
namespace {

int online_softmax(addr p) {
  const auto& a = block<OnlineSoftmaxArgs>(p);
  const attn::OnlineSoftmaxTrace trace{f32(a.scores),      f32(a.blockMax), f32(a.runningMax), f32(a.rescale),
                                       f32(a.runningSum),  f32(a.accumulator), f32(a.partial), f32(a.output),
                                       f32(a.weights),     f32(a.totals)};
  return status(attn::online_softmax_trace(in(a.Q, a.n, a.d), in(a.K, a.m, a.d), in(a.V, a.m, a.dv), a.row,
                                           make_mask(a.maskKind, a.mask, a.n, a.m), a.scale, a.block, trace));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(online_softmax_ops) {
  using namespace attn_bindings;
  emscripten::function("_onlineSoftmax", &online_softmax);
}
