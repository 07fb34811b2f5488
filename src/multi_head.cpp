#include "multi_head.h"

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
