#include "multi_head.h"

#include "flash_attention.h"
#include "matmul.h"

namespace attn {
namespace {

float* head_block(float* base, std::size_t head, std::size_t n) { return base ? base + head * n * n : nullptr; }

Status check_multi_head(ConstMatrixView x, std::size_t heads, ConstMatrixView w_q, ConstMatrixView w_k,
                        ConstMatrixView w_v, ConstMatrixView w_o, const MultiHeadBuffers& b) {
  const std::size_t n = x.rows;
  if (heads == 0) return Status::bad_argument;
  if (w_q.rows != x.cols || w_k.rows != x.cols || w_v.rows != x.cols) return Status::shape_mismatch;
  if (w_k.cols != w_q.cols || w_q.cols % heads != 0 || w_v.cols % heads != 0) return Status::shape_mismatch;
  if (w_o.rows != w_v.cols) return Status::shape_mismatch;
  if (b.qkv.q.rows != n || b.qkv.q.cols != w_q.cols || b.qkv.k.rows != n || b.qkv.k.cols != w_k.cols ||
      b.qkv.v.rows != n || b.qkv.v.cols != w_v.cols)
    return Status::shape_mismatch;
  if (b.concat.rows != n || b.concat.cols != w_v.cols || b.out.rows != n || b.out.cols != w_o.cols)
    return Status::shape_mismatch;
  return Status::ok;
}

}  // namespace

Status multi_head_attention(ConstMatrixView x, std::size_t heads, ConstMatrixView w_q, ConstMatrixView w_k,
                            ConstMatrixView w_v, ConstMatrixView w_o, const Mask& mask,
                            const MultiHeadBuffers& b) {
  if (Status s = check_multi_head(x, heads, w_q, w_k, w_v, w_o, b); s != Status::ok) return s;
  if (Status s = check_mask(mask, x.rows, x.rows); s != Status::ok) return s;
  if (x.rows == 0) return Status::ok;  // no queries: nothing to write (buffers may be null)
  const std::size_t n = x.rows, d_k = w_q.cols / heads, d_v = w_v.cols / heads;
  // 1. project all heads at once
  matmul(x, w_q, b.qkv.q);
  matmul(x, w_k, b.qkv.k);
  matmul(x, w_v, b.qkv.v);
  // 2. each head attends within its column block; its output lands in concat
  const float scale = default_scale(d_k);
  for (std::size_t h = 0; h < heads; ++h) {
    const AttentionTrace trace{head_block(b.trace.scores, h, n), head_block(b.trace.scaled, h, n),
                               head_block(b.trace.masked, h, n)};
    const Status s = scaled_dot_product_attention(
        column_slice(b.qkv.q, h * d_k, d_k), column_slice(b.qkv.k, h * d_k, d_k),
        column_slice(b.qkv.v, h * d_v, d_v), mask, scale, dense(head_block(b.weights, h, n), n, n),
        column_slice(b.concat, h * d_v, d_v), &trace);
    if (s != Status::ok) return s;
  }
  // 3. mix the heads: output = concat · W_O
  matmul(b.concat, w_o, b.out);
  return Status::ok;
}

}  // namespace attn

namespace attn {

std::size_t multi_head_layer_floats(std::size_t d_model, std::size_t heads, std::size_t d_k, std::size_t d_v,
                                    std::size_t d_out) {
  return packed_floats(d_model, heads * (2 * d_k + d_v)) + packed_floats(heads * d_v, d_out);
}

Status pack_multi_head(ConstMatrixView w_q, ConstMatrixView w_k, ConstMatrixView w_v, ConstMatrixView w_o,
                       std::size_t heads, float* storage, MultiHeadLayer& layer) {
  if (heads == 0) return Status::bad_argument;
  if (w_k.rows != w_q.rows || w_v.rows != w_q.rows || w_k.cols != w_q.cols) return Status::shape_mismatch;
  if (w_q.cols % heads != 0 || w_v.cols % heads != 0 || w_o.rows != w_v.cols) return Status::shape_mismatch;
  layer = {w_q.rows, heads, w_q.cols / heads, w_v.cols / heads, w_o.cols, storage, nullptr};
  const std::size_t width = qkv_width(layer);
  layer.o_packed = storage + packed_floats(layer.d_model, width);
  // The panels of [W_Q | W_K | W_V]: column j comes from whichever of the three holds it.
  for (std::size_t j0 = 0; j0 < width; j0 += kPackedPanel) {
    float* panel = storage + j0 * layer.d_model;
    for (std::size_t p = 0; p < layer.d_model; ++p)
      for (std::size_t t = 0; t < kPackedPanel; ++t) {
        const std::size_t j = j0 + t;
        float x = 0.0f;
        if (j < w_q.cols) x = w_q.at(p, j);
        else if (j < 2 * w_q.cols) x = w_k.at(p, j - w_q.cols);
        else if (j < width) x = w_v.at(p, j - 2 * w_q.cols);
        panel[p * kPackedPanel + t] = x;
      }
  }
  pack_columns(w_o, layer.o_packed);
  return Status::ok;
}

std::size_t multi_head_forward_floats(const MultiHeadLayer& layer, std::size_t n) {
  return n * qkv_width(layer) + fused_attention_scratch_floats(n, layer.d_k, layer.d_v);
}

Status multi_head_forward(const MultiHeadLayer& layer, ConstMatrixView x, const Mask& mask, MatrixView concat,
                          MatrixView out, float* scratch) {
  const std::size_t n = x.rows, hk = layer.heads * layer.d_k, hv = layer.heads * layer.d_v;
  if (x.cols != layer.d_model || concat.rows != n || concat.cols != hv || out.rows != n || out.cols != layer.d_out)
    return Status::shape_mismatch;
  if (Status s = check_mask(mask, n, n); s != Status::ok) return s;
  if (n == 0) return Status::ok;  // no queries: nothing to write (buffers may be null)
  // 1. Q, K, V for every head in one product
  const MatrixView qkv = dense(scratch, n, qkv_width(layer));
  matmul_packed(x, layer.qkv_packed, qkv);
  // 2. each head: fused attention over its column blocks, into its block of concat
  float* attention_scratch = scratch + n * qkv_width(layer);
  const float scale = default_scale(layer.d_k);
  for (std::size_t h = 0; h < layer.heads; ++h) {
    const Status s = fused_attention(column_slice(qkv, h * layer.d_k, layer.d_k),
                                     column_slice(qkv, hk + h * layer.d_k, layer.d_k),
                                     column_slice(qkv, 2 * hk + h * layer.d_v, layer.d_v), mask, scale,
                                     column_slice(concat, h * layer.d_v, layer.d_v), attention_scratch);
    if (s != Status::ok) return s;
  }
  // 3. mix the heads
  matmul_packed(concat, layer.o_packed, out);
  return Status::ok;
}

}  // namespace attn
