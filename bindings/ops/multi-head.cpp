// Raw calls of the multi-head family (ops/multi-head.js): one multi-head
// attention with its trace, and a packed layer's size, packing and forward pass.
#include <emscripten/bind.h>

#include "matmul.h"
#include "multi_head.h"
#include "raw.h"

namespace attn_bindings {
namespace {

int multi_head(addr p) {
  const auto& a = block<MultiHeadArgs>(p);
  const attn::MultiHeadBuffers buffers{{out(a.Q, a.n, a.dkAll), out(a.K, a.n, a.dkAll), out(a.V, a.n, a.dvAll)},
                                       f32(a.weights),
                                       out(a.concat, a.n, a.dvAll),
                                       out(a.output, a.n, a.dOut),
                                       {f32(a.scores), f32(a.scaled), f32(a.masked)}};
  return status(attn::multi_head_attention(in(a.X, a.n, a.dModel), a.heads, in(a.Wq, a.dModel, a.dkAll),
                                           in(a.Wk, a.dModel, a.dkAll), in(a.Wv, a.dModel, a.dvAll),
                                           in(a.Wo, a.dvAll, a.dOut), make_mask(a.maskKind, a.mask, a.n, a.n),
                                           buffers));
}

// A packed multi-head layer lives in JS-owned WASM memory at `storage`; its
// description is rebuilt from the sizes on each call (nothing kept in C++).
attn::MultiHeadLayer layer_at(addr storage, u32 d_model, u32 heads, u32 dk, u32 dv, u32 d_out) {
  attn::MultiHeadLayer layer{d_model, heads, dk, dv, d_out, f32(storage), nullptr};
  layer.o_packed = layer.qkv_packed + attn::packed_floats(d_model, attn::qkv_width(layer));
  return layer;
}

u32 layer_floats(addr p) {
  const auto& a = block<LayerFloatsArgs>(p);
  return static_cast<u32>(attn::multi_head_layer_floats(a.dModel, a.heads, a.dk, a.dv, a.dOut));
}

u32 layer_forward_floats(addr p) {
  const auto& a = block<LayerForwardFloatsArgs>(p);
  return static_cast<u32>(attn::multi_head_forward_floats(layer_at(0, a.dModel, a.heads, a.dk, a.dv, a.dOut), a.n));
}

int pack_layer(addr p) {
  const auto& a = block<PackLayerArgs>(p);
  attn::MultiHeadLayer layer;
  return status(attn::pack_multi_head(in(a.Wq, a.dModel, a.dkAll), in(a.Wk, a.dModel, a.dkAll),
                                      in(a.Wv, a.dModel, a.dvAll), in(a.Wo, a.dvAll, a.dOut), a.heads,
                                      f32(a.storage), layer));
}

int layer_forward(addr p) {
  const auto& a = block<LayerForwardArgs>(p);
  return status(attn::multi_head_forward(layer_at(a.storage, a.dModel, a.heads, a.dk, a.dv, a.dOut),
                                         in(a.X, a.n, a.dModel), make_mask(a.maskKind, a.mask, a.n, a.n),
                                         out(a.concat, a.n, a.heads * a.dv), out(a.output, a.n, a.dOut),
                                         f32(a.scratch)));
}

}  // namespace
}  // namespace attn_bindings

EMSCRIPTEN_BINDINGS(multi_head_ops) {
  using namespace attn_bindings;
  emscripten::function("_multiHead", &multi_head);
  emscripten::function("_layerFloats", &layer_floats);
  emscripten::function("_layerForwardFloats", &layer_forward_floats);
  emscripten::function("_packLayer", &pack_layer);
  emscripten::function("_layerForward", &layer_forward);
}
