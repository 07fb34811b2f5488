// The raw embind layer: underscore-named functions over heap addresses and
// sizes. It only unpacks arguments into views and forwards to the core; the
// friendly API (validation, nested arrays, errors, memory) lives in api.js.
// Every function returns the core's Status as an int: nothing throws across
// the boundary, so an error never leaks the shadow stack.
#include <emscripten/bind.h>

#include <cstdint>

#include "attention.h"
#include "flash_attention.h"
#include "kernel_regression.h"
#include "linear_attention.h"
#include "linformer_attention.h"
#include "local_attention.h"
#include "matmul.h"
#include "multi_head.h"
#include "parametric_pooling.h"
#include "positional_encoding.h"
#include "simd.h"
#include "softmax.h"
#include "transformer_block.h"

namespace {

using attn::ConstMatrixView;
using attn::MatrixView;
using u32 = std::uint32_t;
using addr = std::uintptr_t;

float* f32(addr p) { return reinterpret_cast<float*>(p); }
ConstMatrixView in(addr p, u32 rows, u32 cols) { return attn::dense(reinterpret_cast<const float*>(p), rows, cols); }
MatrixView out(addr p, u32 rows, u32 cols) { return attn::dense(f32(p), rows, cols); }

// mask_kind: 0 none, 1 causal, 2 valid lengths (int32 per row at mask_data),
// 3 matrix (uint8 rows × cols at mask_data).
attn::Mask make_mask(int kind, addr data, u32 rows, u32 cols) {
  attn::Mask mask;
  mask.kind = static_cast<attn::MaskKind>(kind);
  mask.valid_lens = reinterpret_cast<const std::int32_t*>(data);
  mask.bits = reinterpret_cast<const std::uint8_t*>(data);
  mask.rows = rows;
  mask.cols = cols;
  return mask;
}

int status(attn::Status s) { return static_cast<int>(s); }

int matmul(addr a, u32 n, u32 k, addr b, u32 m, addr c) {
  attn::matmul(in(a, n, k), in(b, k, m), out(c, n, m));
  return 0;
}

int softmax(addr s, u32 n, u32 m, int mask_kind, addr mask_data, addr w, addr masked) {
  const attn::Mask mask = make_mask(mask_kind, mask_data, n, m);
  if (attn::Status st = attn::check_mask(mask, n, m); st != attn::Status::ok) return status(st);
  if (masked && mask_kind != 0) attn::apply_mask_for_trace(in(s, n, m), mask, out(masked, n, m));
  attn::softmax_rows(in(s, n, m), mask, out(w, n, m));
  return 0;
}

int scaled_dot_product(addr q, u32 n, u32 d, addr k, u32 m, addr v, u32 dv, int mask_kind, addr mask_data,
                       float scale, addr weights, addr o, addr scores, addr scaled, addr masked) {
  const attn::AttentionTrace trace{f32(scores), f32(scaled), f32(masked)};
  return status(attn::scaled_dot_product_attention(in(q, n, d), in(k, m, d), in(v, m, dv),
                                                   make_mask(mask_kind, mask_data, n, m), scale,
                                                   out(weights, n, m), out(o, n, dv), &trace));
}

std::uint32_t fused_scratch_floats(u32 m, u32 d, u32 dv) {
  return static_cast<std::uint32_t>(attn::fused_attention_scratch_floats(m, d, dv));
}

int fused(addr q, u32 n, u32 d, addr k, u32 m, addr v, u32 dv, int mask_kind, addr mask_data, float scale, addr o,
          addr scratch) {
  return status(attn::fused_attention(in(q, n, d), in(k, m, d), in(v, m, dv), make_mask(mask_kind, mask_data, n, m),
                                      scale, out(o, n, dv), f32(scratch)));
}

int additive(addr q, u32 n, u32 dq, addr k, u32 m, u32 dk, addr v, u32 dv, addr wq, addr wk, addr wv, u32 h,
             int mask_kind, addr mask_data, addr scratch, addr weights, addr o, addr scores, addr masked) {
  const attn::AdditiveParams params{in(wq, dq, h), in(wk, dk, h), f32(wv), out(scratch, n, h),
                                    out(scratch + sizeof(float) * n * h, m, h)};
  const attn::AttentionTrace trace{f32(scores), nullptr, f32(masked)};
  return status(attn::additive_attention(in(q, n, dq), in(k, m, dk), in(v, m, dv), params,
                                         make_mask(mask_kind, mask_data, n, m), out(weights, n, m),
                                         out(o, n, dv), &trace));
}

int self_attention(addr x, u32 n, u32 d_model, addr wq, addr wk, addr wv, u32 dk, u32 dv, int mask_kind,
                   addr mask_data, addr q, addr k, addr v, addr weights, addr o, addr scores, addr scaled,
                   addr masked) {
  const attn::Projections qkv{out(q, n, dk), out(k, n, dk), out(v, n, dv)};
  const attn::AttentionTrace trace{f32(scores), f32(scaled), f32(masked)};
  return status(attn::self_attention(in(x, n, d_model), in(wq, d_model, dk), in(wk, d_model, dk),
                                     in(wv, d_model, dv), make_mask(mask_kind, mask_data, n, n), qkv,
                                     out(weights, n, n), out(o, n, dv), &trace));
}

int multi_head(addr x, u32 n, u32 d_model, u32 heads, addr wq, addr wk, addr wv, u32 dk_all, u32 dv_all, addr wo,
               u32 d_out, int mask_kind, addr mask_data, addr q, addr k, addr v, addr weights, addr concat,
               addr o, addr scores, addr scaled, addr masked) {
  const attn::MultiHeadBuffers buffers{{out(q, n, dk_all), out(k, n, dk_all), out(v, n, dv_all)},
                                       f32(weights),
                                       out(concat, n, dv_all),
                                       out(o, n, d_out),
                                       {f32(scores), f32(scaled), f32(masked)}};
  return status(attn::multi_head_attention(in(x, n, d_model), heads, in(wq, d_model, dk_all),
                                           in(wk, d_model, dk_all), in(wv, d_model, dv_all),
                                           in(wo, dv_all, d_out), make_mask(mask_kind, mask_data, n, n),
                                           buffers));
}

// A packed multi-head layer lives in JS-owned WASM memory at `storage`; its
// description is rebuilt from the sizes on each call (nothing kept in C++).
attn::MultiHeadLayer layer_at(addr storage, u32 d_model, u32 heads, u32 dk, u32 dv, u32 d_out) {
  attn::MultiHeadLayer layer{d_model, heads, dk, dv, d_out, f32(storage), nullptr};
  layer.o_packed = layer.qkv_packed + attn::packed_floats(d_model, attn::qkv_width(layer));
  return layer;
}

u32 layer_floats(u32 d_model, u32 heads, u32 dk, u32 dv, u32 d_out) {
  return static_cast<u32>(attn::multi_head_layer_floats(d_model, heads, dk, dv, d_out));
}

u32 layer_forward_floats(u32 d_model, u32 heads, u32 dk, u32 dv, u32 d_out, u32 n) {
  return static_cast<u32>(attn::multi_head_forward_floats(layer_at(0, d_model, heads, dk, dv, d_out), n));
}

int pack_layer(addr wq, addr wk, addr wv, u32 d_model, u32 dk_all, u32 dv_all, addr wo, u32 d_out, u32 heads,
               addr storage) {
  attn::MultiHeadLayer layer;
  return status(attn::pack_multi_head(in(wq, d_model, dk_all), in(wk, d_model, dk_all), in(wv, d_model, dv_all),
                                      in(wo, dv_all, d_out), heads, f32(storage), layer));
}

int layer_forward(addr storage, u32 d_model, u32 heads, u32 dk, u32 dv, u32 d_out, addr x, u32 n, int mask_kind,
                  addr mask_data, addr concat, addr o, addr scratch) {
  return status(attn::multi_head_forward(layer_at(storage, d_model, heads, dk, dv, d_out), in(x, n, d_model),
                                         make_mask(mask_kind, mask_data, n, n), out(concat, n, heads * dv),
                                         out(o, n, d_out), f32(scratch)));
}

int local(addr q, u32 n, u32 d, addr k, addr v, u32 dv, u32 window, bool causal, float scale, addr o,
          addr weights) {
  return status(attn::local_attention(in(q, n, d), in(k, n, d), in(v, n, dv), window, causal, scale, out(o, n, dv),
                                      f32(weights)));
}

u32 linear_scratch_floats(u32 d, u32 dv) { return static_cast<u32>(attn::linear_attention_scratch_size(d, dv)); }

int linear(addr q, u32 n, u32 d, addr k, u32 m, addr v, u32 dv, bool causal, addr o, addr scratch, addr weights) {
  return status(attn::linear_attention(in(q, n, d), in(k, m, d), in(v, m, dv), causal, out(o, n, dv), f32(scratch),
                                       f32(weights)));
}

u32 linformer_scratch_floats(u32 p, u32 d, u32 dv) {
  return static_cast<u32>(attn::linformer_attention_scratch_size(p, d, dv));
}

int linformer(addr q, u32 n, u32 d, addr k, u32 m, addr v, u32 dv, addr e, addr f, u32 p, float scale, addr o,
              addr scratch, addr weights) {
  return status(attn::linformer_attention(in(q, n, d), in(k, m, d), in(v, m, dv), in(e, p, m), in(f, p, m), scale,
                                          out(o, n, dv), f32(scratch), f32(weights)));
}

int nadaraya_watson(addr x_train, addr y_train, u32 m, addr x_query, u32 n, int kernel, float bandwidth,
                    addr predictions, addr weights) {
  return status(attn::nadaraya_watson(reinterpret_cast<const float*>(x_train),
                                      reinterpret_cast<const float*>(y_train), m,
                                      reinterpret_cast<const float*>(x_query), n, static_cast<attn::Kernel>(kernel),
                                      bandwidth, f32(predictions), out(weights, n, m)));
}

int positional_encoding(u32 n, u32 d, double base, addr p) {
  return status(attn::positional_encoding(base, out(p, n, d)));
}

int add_positional_encoding(addr x, u32 n, u32 d, double base, addr o) {
  return status(attn::add_positional_encoding(in(x, n, d), base, out(o, n, d)));
}

int fit_parametric_pooling(addr x, addr y, u32 m, double w0, double learning_rate, u32 epochs, addr losses,
                           addr w_out) {
  return status(attn::fit_parametric_pooling(reinterpret_cast<const float*>(x), reinterpret_cast<const float*>(y), m,
                                             w0, learning_rate, epochs, f32(losses),
                                             reinterpret_cast<double*>(w_out)));
}

// The block has too many buffers for one argument list: `table` holds their
// addresses, in the order of TransformerSlot.
enum TransformerSlot : u32 {
  kX, kWq, kWk, kWv, kWo, kW1, kB1, kW2, kB2, kGamma1, kBeta1, kGamma2, kBeta2,
  kQ, kK, kV, kWeights, kConcat, kAttention, kSum1, kNorm1, kHidden, kFfn, kSum2, kOut, kSlots
};

int transformer_block(addr table, u32 n, u32 d_model, u32 heads, u32 dk_all, u32 dv_all, u32 d_ff, float epsilon,
                      int mask_kind, addr mask_data) {
  const auto* a = reinterpret_cast<const std::uint32_t*>(table);
  const auto p = [a](TransformerSlot s) { return static_cast<addr>(a[s]); };
  const attn::TransformerWeights w{heads, in(p(kWq), d_model, dk_all), in(p(kWk), d_model, dk_all),
                                   in(p(kWv), d_model, dv_all), in(p(kWo), dv_all, d_model),
                                   in(p(kW1), d_model, d_ff), in(p(kW2), d_ff, d_model),
                                   f32(p(kB1)), f32(p(kB2)), f32(p(kGamma1)), f32(p(kBeta1)),
                                   f32(p(kGamma2)), f32(p(kBeta2)), epsilon};
  const attn::TransformerBuffers b{
      {{out(p(kQ), n, dk_all), out(p(kK), n, dk_all), out(p(kV), n, dv_all)},
       f32(p(kWeights)), out(p(kConcat), n, dv_all), out(p(kAttention), n, d_model), {}},
      out(p(kSum1), n, d_model), out(p(kNorm1), n, d_model), out(p(kHidden), n, d_ff), out(p(kFfn), n, d_model),
      out(p(kSum2), n, d_model), out(p(kOut), n, d_model)};
  return status(attn::transformer_encoder_block(in(p(kX), n, d_model), w, make_mask(mask_kind, mask_data, n, n), b));
}

bool simd_enabled() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab) {
  emscripten::function("_matmul", &matmul);
  emscripten::function("_softmax", &softmax);
  emscripten::function("_scaledDotProduct", &scaled_dot_product);
  emscripten::function("_fused", &fused);
  emscripten::function("_fusedScratchFloats", &fused_scratch_floats);
  emscripten::function("_additive", &additive);
  emscripten::function("_selfAttention", &self_attention);
  emscripten::function("_multiHead", &multi_head);
  emscripten::function("_layerFloats", &layer_floats);
  emscripten::function("_layerForwardFloats", &layer_forward_floats);
  emscripten::function("_packLayer", &pack_layer);
  emscripten::function("_layerForward", &layer_forward);
  emscripten::function("_local", &local);
  emscripten::function("_linear", &linear);
  emscripten::function("_linearScratchFloats", &linear_scratch_floats);
  emscripten::function("_linformer", &linformer);
  emscripten::function("_linformerScratchFloats", &linformer_scratch_floats);
  emscripten::function("_nadarayaWatson", &nadaraya_watson);
  emscripten::function("_positionalEncoding", &positional_encoding);
  emscripten::function("_addPositionalEncoding", &add_positional_encoding);
  emscripten::function("_fitParametricPooling", &fit_parametric_pooling);
  emscripten::function("_transformerBlock", &transformer_block);
  emscripten::function("_simdEnabled", &simd_enabled);
}
