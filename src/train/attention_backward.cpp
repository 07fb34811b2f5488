#include "attention_backward.h"

#include <cstring>
#include <initializer_list>

#include "matmul.h"
#include "simd.h"
#include "softmax_backward.h"
#include "vector_ops.h"

namespace attn {
namespace {

using simd::f32x4;

bool has_shape(ConstMatrixView m, std::size_t rows, std::size_t cols) { return m.rows == rows && m.cols == cols; }

// A view with entries must point somewhere (an empty one may be null).
bool present(ConstMatrixView m) { return m.rows * m.cols == 0 || m.data != nullptr; }

// ---- the pooling half shared by both scoring functions:
// dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − rowsum(P ∘ dP)).
void pooling_backward(ConstMatrixView v, ConstMatrixView weights, ConstMatrixView d_out, MatrixView dv,
                      const AttentionBackwardBuffers& buffers) {
  matmul_transposed_a(weights, d_out, 1.0f, dv);
  matmul_transposed(d_out, v, 1.0f, buffers.dp);
  softmax_backward(weights, buffers.dp, buffers.ds);
}

// The checks shared by both: K and V pair up, P and dP, dS are n×m, dO n×d_v,
// dV m×d_v, and every view with entries has data.
Status check_pooling(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, ConstMatrixView weights,
                     ConstMatrixView d_out, ConstMatrixView dv, const AttentionBackwardBuffers& buffers) {
  const std::size_t n = q.rows, m = k.rows;
  if (v.rows != m || !has_shape(weights, n, m) || !has_shape(d_out, n, v.cols) || !has_shape(dv, m, v.cols))
    return Status::shape_mismatch;
  if (!has_shape(buffers.dp, n, m) || !has_shape(buffers.ds, n, m)) return Status::shape_mismatch;
  for (ConstMatrixView x : {q, k, v, weights, d_out, dv, ConstMatrixView(buffers.dp), ConstMatrixView(buffers.ds)})
    if (!present(x)) return Status::bad_argument;
  return Status::ok;
}

}  // namespace

Status attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, ConstMatrixView weights,
                          ConstMatrixView d_out, float scale, const AttentionGradients& grads,
                          const AttentionBackwardBuffers& buffers) {
  const std::size_t n = q.rows, m = k.rows, d = q.cols;
  if (k.cols != d || !has_shape(grads.dq, n, d) || !has_shape(grads.dk, m, d)) return Status::shape_mismatch;
  if (Status s = check_pooling(q, k, v, weights, d_out, grads.dv, buffers); s != Status::ok) return s;
  if (!present(grads.dq) || !present(grads.dk)) return Status::bad_argument;
  // 1. dV = Pᵀ dO, 2. dP = dO Vᵀ, 3. dS = P ∘ (dP − rowsum(P ∘ dP))
  pooling_backward(v, weights, d_out, grads.dv, buffers);
  // 4. dQ = dS K · scale
  matmul(buffers.ds, k, grads.dq);
  if (scale != 1.0f && d > 0)
    for (std::size_t i = 0; i < n; ++i) scale_in_place(grads.dq.row(i), scale, d);
  // 5. dK = dSᵀ Q · scale
  matmul_transposed_a(buffers.ds, q, scale, grads.dk);
  return Status::ok;
}

// ---- additive attention

namespace {

// a / b lane by lane. The SIMD layer has no division; a four-lane loop is
// portable, and compilers turn it into the vector instruction.
f32x4 divide(f32x4 a, f32x4 b) {
  alignas(16) float x[4], y[4];
  simd::store(x, a);
  simd::store(y, b);
  for (int l = 0; l < 4; ++l) x[l] /= y[l];
  return simd::load(x);
}

// tanh on four lanes (Cephes' tanhf, about 2 ulp): for |x| <= 0.625 an odd
// polynomial, above it (1 − e)/(1 + e) with e = e^(−2|x|) <= 1 from the
// layer's exp; then the sign (tanh is odd). Each branch sees a value it is
// accurate for, and the lanes pick one exactly (x − x = 0 for finite x).
f32x4 tanh_lanes(f32x4 x) {
  const f32x4 ax = simd::max(x, simd::sub(simd::zero(), x));
  const f32x4 cut = simd::splat(0.625f), one = simd::splat(1.0f);
  const f32x4 s = simd::min(ax, cut);
  const f32x4 z = simd::mul(s, s);
  f32x4 poly = simd::splat(-5.70498872745e-3f);
  poly = simd::madd(simd::splat(2.06390887954e-2f), poly, z);
  poly = simd::madd(simd::splat(-5.37397155531e-2f), poly, z);
  poly = simd::madd(simd::splat(1.33314422036e-1f), poly, z);
  poly = simd::madd(simd::splat(-3.33332819422e-1f), poly, z);
  const f32x4 small = simd::madd(s, simd::mul(poly, z), s);
  const f32x4 e = simd::exp_nonpositive(simd::mul(ax, simd::splat(-2.0f)));
  const f32x4 large = divide(simd::sub(one, e), simd::add(one, e));
  const f32x4 t = simd::add(simd::keep_where_greater(ax, cut, large),
                            simd::sub(small, simd::keep_where_greater(ax, cut, small)));
  return simd::sub(t, simd::mul(simd::splat(2.0f), simd::keep_where_greater(simd::zero(), x, t)));
}

// Four hidden units t of one pair (i, j), with τ = tanh(a_it + b_jt):
//   dw_v[t] += dS_ij τ,   g = dS_ij w_v[t] (1 − τ²),   da_it += g,   db_jt += g.
void pair_lanes(const float* a, const float* b, const float* w_v, f32x4 ds, float* da, float* db, float* dw_v) {
  const f32x4 tau = tanh_lanes(simd::add(simd::load(a), simd::load(b)));
  simd::store(dw_v, simd::madd(simd::load(dw_v), ds, tau));
  const f32x4 g = simd::mul(simd::mul(ds, simd::load(w_v)), simd::sub(simd::splat(1.0f), simd::mul(tau, tau)));
  simd::store(da, simd::add(simd::load(da), g));
  simd::store(db, simd::add(simd::load(db), g));
}

// The tail of h past the last whole vector, through zero-padded copies, so
// it is computed by exactly the same lanes.
void pair_tail(const float* a, const float* b, const float* w_v, f32x4 ds, float* da, float* db, float* dw_v,
               std::size_t count) {
  alignas(16) float t[6][4] = {};
  for (std::size_t l = 0; l < count; ++l) {
    t[0][l] = a[l], t[1][l] = b[l], t[2][l] = w_v[l], t[3][l] = da[l], t[4][l] = db[l], t[5][l] = dw_v[l];
  }
  pair_lanes(t[0], t[1], t[2], ds, t[3], t[4], t[5]);
  for (std::size_t l = 0; l < count; ++l) da[l] = t[3][l], db[l] = t[4][l], dw_v[l] = t[5][l];
}

// dA (n×h) and dB (m×h), the gradients of the hidden projections A = Q W_q and
// B = K W_k, and dw_v, from dS. A pair with dS_ij = 0 (every masked pair)
// adds nothing and is skipped.
void hidden_backward(ConstMatrixView a, ConstMatrixView b, const float* w_v, ConstMatrixView ds, MatrixView da,
                     MatrixView db, float* dw_v) {
  const std::size_t h = a.cols, body = h / simd::kWidth * simd::kWidth;
  if (h == 0) return;  // no hidden unit: nothing to write (and no pointer to write through)
  for (std::size_t i = 0; i < da.rows; ++i) std::memset(da.row(i), 0, h * sizeof(float));
  for (std::size_t j = 0; j < db.rows; ++j) std::memset(db.row(j), 0, h * sizeof(float));
  std::memset(dw_v, 0, h * sizeof(float));
  for (std::size_t i = 0; i < ds.rows; ++i) {
    for (std::size_t j = 0; j < ds.cols; ++j) {
      if (ds.at(i, j) == 0.0f) continue;
      const f32x4 dsv = simd::splat(ds.at(i, j));
      for (std::size_t t = 0; t < body; t += simd::kWidth)
        pair_lanes(a.row(i) + t, b.row(j) + t, w_v + t, dsv, da.row(i) + t, db.row(j) + t, dw_v + t);
      if (body < h)
        pair_tail(a.row(i) + body, b.row(j) + body, w_v + body, dsv, da.row(i) + body, db.row(j) + body,
                  dw_v + body, h - body);
    }
  }
}

}  // namespace

std::size_t additive_backward_scratch_floats(std::size_t n, std::size_t m, std::size_t h) { return (n + m) * h; }

Status additive_attention_backward(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v,
                                   const AdditiveParams& params, ConstMatrixView weights, ConstMatrixView d_out,
                                   const AdditiveGradients& grads, const AttentionBackwardBuffers& buffers,
                                   float* scratch) {
  const std::size_t n = q.rows, m = k.rows, h = params.w_q.cols;
  if (params.w_q.rows != q.cols || params.w_k.rows != k.cols || params.w_k.cols != h) return Status::shape_mismatch;
  if (!has_shape(params.q_hidden, n, h) || !has_shape(params.k_hidden, m, h)) return Status::shape_mismatch;
  if (!has_shape(grads.dq, n, q.cols) || !has_shape(grads.dk, m, k.cols)) return Status::shape_mismatch;
  if (!has_shape(grads.dw_q, q.cols, h) || !has_shape(grads.dw_k, k.cols, h)) return Status::shape_mismatch;
  if (Status s = check_pooling(q, k, v, weights, d_out, grads.dv, buffers); s != Status::ok) return s;
  for (ConstMatrixView x : {params.w_q, params.w_k, ConstMatrixView(params.q_hidden), ConstMatrixView(params.k_hidden),
                            ConstMatrixView(grads.dq), ConstMatrixView(grads.dk), ConstMatrixView(grads.dw_q),
                            ConstMatrixView(grads.dw_k)})
    if (!present(x)) return Status::bad_argument;
  if (h > 0 && (params.w_v == nullptr || grads.dw_v == nullptr)) return Status::bad_argument;
  if (additive_backward_scratch_floats(n, m, h) > 0 && scratch == nullptr) return Status::bad_argument;
  // 1. dV = Pᵀ dO, 2. dP = dO Vᵀ, 3. dS = P ∘ (dP − rowsum(P ∘ dP))
  pooling_backward(v, weights, d_out, grads.dv, buffers);
  // 4. the hidden projections again: A = Q W_q, B = K W_k
  matmul(q, params.w_q, params.q_hidden);
  matmul(k, params.w_k, params.k_hidden);
  // 5. through w_vᵀ tanh(A_i + B_j): dA, dB and dw_v
  const MatrixView da = dense(scratch, n, h), db = dense(scratch + n * h, m, h);
  hidden_backward(params.q_hidden, params.k_hidden, params.w_v, buffers.ds, da, db, grads.dw_v);
  // 6. through the projections: dQ = dA W_qᵀ, dW_q = Qᵀ dA, dK = dB W_kᵀ, dW_k = Kᵀ dB
  matmul_transposed(da, params.w_q, 1.0f, grads.dq);
  matmul_transposed_a(q, da, 1.0f, grads.dw_q);
  matmul_transposed(db, params.w_k, 1.0f, grads.dk);
  matmul_transposed_a(k, db, 1.0f, grads.dw_k);
  return Status::ok;
}

}  // namespace attn
