// Raw calls of the pooling family (ops/pooling.js): Nadaraya-Watson kernel
// regression and the leave-one-out fit of parametric pooling.
#include <emscripten/bind.h>

#include "kernel_regression.h"
#include "parametric_pooling.h"
#include "raw.h"

namespace attn_bindings {
namespace {

int nadaraya_watson(addr p) {
  const auto& a = block<NadarayaWatsonArgs>(p);
  return status(attn::nadaraya_watson(cf32(a.xTrain), cf32(a.yTrain), a.m, cf32(a.xQuery), a.n,
                                      static_cast<attn::Kernel>(a.kernel), a.bandwidth, f32(a.predictions),
                                      out(a.weights, a.n, a.m)));
}

int fit_parametric_pooling(addr p) {
  const auto& a = block<FitParametricPoolingArgs>(p);
  return status(attn::fit_parametric_pooling(cf32(a.x), cf32(a.y), a.m, a.w0, a.learningRate, a.epochs,
                                             f32(a.losses), reinterpret_cast<double*>(a.w)));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(pooling_ops) {
  using namespace attn_bindings;
  emscripten::function("_nadarayaWatson", &nadaraya_watson);
  emscripten::function("_fitParametricPooling", &fit_parametric_pooling);
}
