// Plain float64 reference backward passes, and central finite differences of
// the scalar loss L = Σ dO ∘ O: the test oracles for the training engine's
// attention gradients. Written from the formulas, independently of src/ (no
// SIMD, no tiling, no skipped entries); the forwards are reference.h's.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include "reference.h"

namespace ref {

// Aᵀ (A: n×k) as a k×n matrix.
inline MatD transposed(const MatD& a) {
  MatD t(a.cols, a.rows);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < a.cols; ++j) t.at(j, i) = a.at(i, j);
  return t;
}

// ---- softmax: dS_ij = P_ij (dP_ij − Σ_l P_il dP_il)

inline MatD softmax_backward(const MatD& p, const MatD& dp) {
  MatD ds(p.rows, p.cols);
  for (std::size_t i = 0; i < p.rows; ++i) {
    double r = 0.0;
    for (std::size_t j = 0; j < p.cols; ++j) r += p.at(i, j) * dp.at(i, j);
    for (std::size_t j = 0; j < p.cols; ++j) ds.at(i, j) = p.at(i, j) * (dp.at(i, j) - r);
  }
  return ds;
}

// ---- scaled dot-product attention: O = softmax(mask(Q Kᵀ · scale)) V

struct AttentionGrads {
  MatD dq, dk, dv;  // n×d, m×d, m×d_v
  MatD dp, ds;      // n×m: dO Vᵀ and the softmax backward
};

// P recomputed by the reference forward; every product written out as a loop.
inline AttentionGrads dot_product_backward(const MatD& q, const MatD& k, const MatD& v, const Visibility& vis,
                                           double scale, const MatD& d_out) {
  const MatD p = dot_product_attention(q, k, v, vis, scale).weights;
  AttentionGrads g;
  g.dv = matmul(transposed(p), d_out);          // Pᵀ dO
  g.dp = matmul_bt(d_out, v);                   // dO Vᵀ
  g.ds = softmax_backward(p, g.dp);
  g.dq = scaled(matmul(g.ds, k), scale);        // dS K · scale
  g.dk = scaled(matmul(transposed(g.ds), q), scale);  // dSᵀ Q · scale
  return g;
}

// ---- additive attention: s_ij = Σ_t w_v[t] tanh(A_it + B_jt), A = Q W_q, B = K W_k

struct AdditiveGrads {
  MatD dq, dk, dv, dw_q, dw_k;
  std::vector<double> dw_v;
  MatD dp, ds;
};

inline AdditiveGrads additive_backward(const MatD& q, const MatD& k, const MatD& v, const MatD& w_q, const MatD& w_k,
                                       const std::vector<double>& w_v, const Visibility& vis, const MatD& d_out) {
  const Additive fwd = additive_attention(q, k, v, w_q, w_k, w_v, vis);
  const MatD& p = fwd.attention.weights;
  const std::size_t n = q.rows, m = k.rows, h = w_v.size();
  AdditiveGrads g;
  g.dv = matmul(transposed(p), d_out);
  g.dp = matmul_bt(d_out, v);
  g.ds = softmax_backward(p, g.dp);
  // ∂s_ij/∂w_v[t] = τ_ijt, ∂s_ij/∂A_it = ∂s_ij/∂B_jt = w_v[t] (1 − τ_ijt²)
  MatD da(n, h), db(m, h);
  g.dw_v.assign(h, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t t = 0; t < h; ++t) {
        const double tau = std::tanh(fwd.q_hidden.at(i, t) + fwd.k_hidden.at(j, t));
        g.dw_v[t] += g.ds.at(i, j) * tau;
        da.at(i, t) += g.ds.at(i, j) * w_v[t] * (1.0 - tau * tau);
        db.at(j, t) += g.ds.at(i, j) * w_v[t] * (1.0 - tau * tau);
      }
  g.dq = matmul(da, transposed(w_q));
  g.dk = matmul(db, transposed(w_k));
  g.dw_q = matmul(transposed(q), da);
  g.dw_k = matmul(transposed(k), db);
  return g;
}

// ---- central finite differences

// L = Σ_ij dO_ij O_ij, so ∂L/∂O = dO: the loss whose gradients the backward computes.
inline double loss_against(const MatD& out, const MatD& d_out) {
  double sum = 0.0;
  for (std::size_t t = 0; t < out.data.size(); ++t) sum += d_out.data[t] * out.data[t];
  return sum;
}

// (L(x + h) − L(x − h)) / 2h for the listed entries of x (all when `entries`
// is empty), x restored afterwards; the entries not listed are NaN. Error
// O(h²) from the third derivative plus O(ε/h) from rounding: h = 1e-5 in
// float64 leaves both near 1e-10.
inline std::vector<double> central_differences(std::vector<double>& x, const std::function<double()>& loss,
                                               const std::vector<std::size_t>& entries, double step = 1e-5) {
  std::vector<double> grad(x.size(), NAN);
  auto one = [&](std::size_t t) {
    const double keep = x[t];
    x[t] = keep + step;
    const double up = loss();
    x[t] = keep - step;
    const double down = loss();
    x[t] = keep;
    grad[t] = (up - down) / (2.0 * step);
  };
  if (entries.empty())
    for (std::size_t t = 0; t < x.size(); ++t) one(t);
  else
    for (std::size_t t : entries) one(t);
  return grad;
}

}  // namespace ref
