#include "train/model_attention.h"

#include <initializer_list>
#include <tuple>

#include "attention.h"
#include "mask.h"
#include "train/attention_backward.h"
#include "train/linear.h"

namespace attn {
namespace {

std::size_t d_k(const HeadShape& s) { return s.d_model / s.heads; }

// Rows of sequence b, columns of head h: a strided view into a B·rows × d matrix.
MatrixView head_block(MatrixView x, std::size_t b, std::size_t rows, std::size_t h, std::size_t dk) {
  return {x.data + b * rows * x.stride + h * dk, rows, dk, x.stride};
}

MatrixView rows_of(MatrixView x, std::size_t first, std::size_t count) {
  return {x.data + first * x.stride, count, x.cols, x.stride};
}

// Head h's additive score weights inside the stacked tensors.
ConstMatrixView score_block(const float* stacked, std::size_t h, std::size_t dk) {
  return dense(stacked + h * dk * dk, dk, dk);
}

void accumulate(float* into, const float* from, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) into[i] += from[i];
}

// The scratch of one head's step; after it comes the projections' packed weights.
std::size_t forward_head_floats(const HeadShape& s) { return s.additive ? (s.n + s.m) * d_k(s) : 0; }

std::size_t backward_head_floats(const HeadShape& s) {
  const std::size_t dk = d_k(s);
  std::size_t floats = 2 * s.n * s.m;  // dP, dS
  if (s.additive) floats += additive_backward_scratch_floats(s.n, s.m, dk) + (s.n + s.m) * dk + 2 * dk * dk + dk;
  return floats;
}

}  // namespace

std::size_t attention_forward_scratch_floats(const HeadShape& s) {
  return forward_head_floats(s) + linear_pack_floats(s.d_model, s.d_model);
}

std::size_t attention_backward_scratch_floats(const HeadShape& s) {
  return backward_head_floats(s) + linear_pack_floats(s.d_model, s.d_model);
}

Status model_attention_forward(ConstMatrixView x_q, ConstMatrixView x_kv, const AttentionParams& p,
                               const HeadShape& s, const std::uint8_t* bits, const AttentionSaved& saved,
                               float* scratch, MatrixView out) {
  const std::size_t dk = d_k(s);
  float* pack = scratch + forward_head_floats(s);
  // 1. the projections, all rows of the batch at once
  for (auto [x, w, y] : {std::tuple{x_q, p.w_q, saved.q}, std::tuple{x_kv, p.w_k, saved.k},
                         std::tuple{x_kv, p.w_v, saved.v}})
    if (Status st = linear_forward(x, w, nullptr, y, pack); st != Status::ok) return st;
  // 2. each sequence and head attends in its own column block
  for (std::size_t b = 0; b < s.batch; ++b) {
    const Mask mask = Mask::matrix(bits + b * s.n * s.m, s.n, s.m);
    for (std::size_t h = 0; h < s.heads; ++h) {
      const MatrixView q = head_block(saved.q, b, s.n, h, dk), k = head_block(saved.k, b, s.m, h, dk);
      const MatrixView v = head_block(saved.v, b, s.m, h, dk), o = head_block(saved.concat, b, s.n, h, dk);
      const MatrixView weights = dense(saved.weights + (b * s.heads + h) * s.n * s.m, s.n, s.m);
      Status st;
      if (s.additive) {
        AdditiveParams ap{score_block(p.score_q, h, dk), score_block(p.score_k, h, dk), p.score_v + h * dk,
                          dense(scratch, s.n, dk), dense(scratch + s.n * dk, s.m, dk)};
        st = additive_attention(q, k, v, ap, mask, weights, o);
      } else {
        st = scaled_dot_product_attention(q, k, v, mask, s.scale, weights, o);
      }
      if (st != Status::ok) return st;
    }
  }
  // 3. concat · W_O
  return linear_forward(saved.concat, p.w_o, nullptr, out, pack);
}

Status model_attention_backward(ConstMatrixView x_q, ConstMatrixView x_kv, const AttentionParams& p,
                                const HeadShape& s, const AttentionSaved& saved, ConstMatrixView d_out,
                                MatrixView dx_q, MatrixView dx_kv, const AttentionParamGrads& g,
                                const AttentionLayerBuffers& buf, float* scratch) {
  const std::size_t dk = d_k(s);
  float* pack = scratch + backward_head_floats(s);
  // 1. through W_O
  if (Status st = linear_backward(saved.concat, p.w_o, d_out, buf.d_concat, g.dw_o, nullptr, pack); st != Status::ok)
    return st;
  // 2. each head's attention backward, into its column block of dQ, dK, dV
  const AttentionBackwardBuffers steps{dense(scratch, s.n, s.m), dense(scratch + s.n * s.m, s.n, s.m)};
  float* extra = scratch + 2 * s.n * s.m;
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.heads; ++h) {
      const MatrixView q = head_block(saved.q, b, s.n, h, dk), k = head_block(saved.k, b, s.m, h, dk);
      const MatrixView v = head_block(saved.v, b, s.m, h, dk);
      const ConstMatrixView weights = dense(saved.weights + (b * s.heads + h) * s.n * s.m, s.n, s.m);
      const MatrixView d_o = head_block(buf.d_concat, b, s.n, h, dk);
      const MatrixView dq = head_block(buf.dq, b, s.n, h, dk), dkk = head_block(buf.dk, b, s.m, h, dk);
      const MatrixView dv = head_block(buf.dv, b, s.m, h, dk);
      Status st;
      if (s.additive) {
        float* q_hidden = extra;
        float* k_hidden = q_hidden + s.n * dk;
        float* dwq = k_hidden + s.m * dk;
        float* dwk = dwq + dk * dk;
        float* dwv = dwk + dk * dk;
        float* rest = dwv + dk;
        AdditiveParams ap{score_block(p.score_q, h, dk), score_block(p.score_k, h, dk), p.score_v + h * dk,
                          dense(q_hidden, s.n, dk), dense(k_hidden, s.m, dk)};
        AdditiveGradients ag{dq, dkk, dv, dense(dwq, dk, dk), dense(dwk, dk, dk), dwv};
        st = additive_attention_backward(q, k, v, ap, weights, d_o, ag, steps, rest);
        if (st == Status::ok) {
          accumulate(g.dscore_q + h * dk * dk, dwq, dk * dk);
          accumulate(g.dscore_k + h * dk * dk, dwk, dk * dk);
          accumulate(g.dscore_v + h * dk, dwv, dk);
        }
      } else {
        st = attention_backward(q, k, v, weights, d_o, s.scale, {dq, dkk, dv}, steps);
      }
      if (st != Status::ok) return st;
    }
  // 3. through the projections: dX_q overwritten first, then K and V added into dX_kv
  if (Status st = linear_backward(x_q, p.w_q, buf.dq, dx_q, g.dw_q, nullptr, pack); st != Status::ok) return st;
  const MatrixView tmp = rows_of(buf.tmp, 0, x_kv.rows);
  for (auto [w, dy, dw] : {std::tuple{p.w_k, buf.dk, g.dw_k}, std::tuple{p.w_v, buf.dv, g.dw_v}}) {
    if (Status st = linear_backward(x_kv, w, dy, tmp, dw, nullptr, pack); st != Status::ok) return st;
    if (Status st = add(dx_kv, tmp, dx_kv); st != Status::ok) return st;
  }
  return Status::ok;
}

}  // namespace attn
