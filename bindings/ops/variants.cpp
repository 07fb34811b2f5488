// Raw calls of the efficient variants (ops/variants.js): local (sliding
// window), linear (kernelised) and Linformer (projected keys) attention.
#include <emscripten/bind.h>

#include "linear_attention.h"
#include "linformer_attention.h"
#include "local_attention.h"
#include "raw.h"

namespace attn_bindings {
namespace {

int local(addr p) {
  const auto& a = block<LocalArgs>(p);
  return status(attn::local_attention(in(a.Q, a.n, a.d), in(a.K, a.n, a.d), in(a.V, a.n, a.dv), a.window,
                                      a.causal != 0, a.scale, out(a.output, a.n, a.dv), f32(a.weights)));
}

u32 linear_scratch_floats(addr p) {
  const auto& a = block<LinearScratchFloatsArgs>(p);
  return static_cast<u32>(attn::linear_attention_scratch_size(a.d, a.dv));
}

int linear(addr p) {
  const auto& a = block<LinearArgs>(p);
  return status(attn::linear_attention(in(a.Q, a.n, a.d), in(a.K, a.m, a.d), in(a.V, a.m, a.dv), a.causal != 0,
                                       out(a.output, a.n, a.dv), f32(a.scratch), f32(a.weights)));
}

u32 linformer_scratch_floats(addr p) {
  const auto& a = block<LinformerScratchFloatsArgs>(p);
  return static_cast<u32>(attn::linformer_attention_scratch_size(a.p, a.d, a.dv));
}

int linformer(addr p) {
  const auto& a = block<LinformerArgs>(p);
  return status(attn::linformer_attention(in(a.Q, a.n, a.d), in(a.K, a.m, a.d), in(a.V, a.m, a.dv),
                                          in(a.E, a.p, a.m), in(a.F, a.p, a.m), a.scale, out(a.output, a.n, a.dv),
                                          f32(a.scratch), f32(a.weights)));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(variant_ops) {
  using namespace attn_bindings;
  emscripten::function("_local", &local);
  emscripten::function("_linearScratchFloats", &linear_scratch_floats);
  emscripten::function("_linear", &linear);
  emscripten::function("_linformerScratchFloats", &linformer_scratch_floats);
  emscripten::function("_linformer", &linformer);
}
