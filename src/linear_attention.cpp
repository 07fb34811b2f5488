#include "linear_attention.h"

#include <algorithm>
#include <cmath>

#include "simd.h"
#include "vector_ops.h"

namespace attn {
namespace {

// φ(x) = elu(x) + 1: positive everywhere, x + 1 above 0, eˣ below.
void feature_row(const float* x, std::size_t d, float* phi) {
  for (std::size_t a = 0; a < d; ++a) phi[a] = x[a] > 0.0f ? x[a] + 1.0f : std::exp(x[a]);
}

// Σ a[t]·b[t], accumulated in double (d terms: cheap).
double dot(const float* a, const float* b, std::size_t len) {
  double sum = 0.0;
  for (std::size_t t = 0; t < len; ++t) sum += static_cast<double>(a[t]) * b[t];
  return sum;
}

// The running state of the recurrence, laid out in the caller's scratch.
struct State {
  std::size_t d, d_v;
  float* s;      // d×d_v: Σ φ(k_j) v_jᵀ
  float* z;      // d:     Σ φ(k_j)
  float* phi_q;  // d
  float* phi_k;  // d
};

// S += φ(k_j) v_jᵀ (one row of S per feature), z += φ(k_j)
void add_key(const State& st, const float* k_row, const float* v_row) {
  feature_row(k_row, st.d, st.phi_k);
  for (std::size_t a = 0; a < st.d; ++a) add_scaled(st.s + a * st.d_v, st.phi_k[a], v_row, st.d_v);
  for (std::size_t a = 0; a < st.d; ++a) st.z[a] += st.phi_k[a];
}

// out_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z; a zero denominator gives a zero row.
void read_query(const State& st, const float* q_row, float* out_row) {
  feature_row(q_row, st.d, st.phi_q);
  const double den = dot(st.phi_q, st.z, st.d);
  std::fill(out_row, out_row + st.d_v, 0.0f);
  for (std::size_t a = 0; a < st.d; ++a) add_scaled(out_row, st.phi_q[a], st.s + a * st.d_v, st.d_v);
  const float inv = den > 0.0 ? static_cast<float>(1.0 / den) : 0.0f;
  for (std::size_t t = 0; t < st.d_v; ++t) out_row[t] *= inv;
}

// The trace: a_ij = φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'), formed explicitly
// (O(n·m·d), the small case only); causal entries j > i are 0.
void linear_weights(ConstMatrixView q, ConstMatrixView k, bool causal, const State& st, float* weights) {
  const std::size_t m = k.rows;
  for (std::size_t i = 0; i < q.rows; ++i) {
    float* row = weights + i * m;
    const std::size_t end = causal ? i + 1 : m;
    feature_row(q.row(i), st.d, st.phi_q);
    double sum = 0.0;
    for (std::size_t j = 0; j < end; ++j) {
      feature_row(k.row(j), st.d, st.phi_k);
      const double a = dot(st.phi_q, st.phi_k, st.d);
      row[j] = static_cast<float>(a);
      sum += a;
    }
    const double inv = sum > 0.0 ? 1.0 / sum : 0.0;
    for (std::size_t j = 0; j < end; ++j) row[j] = static_cast<float>(row[j] * inv);
    std::fill(row + end, row + m, 0.0f);
  }
}

}  // namespace

Status linear_attention(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, bool causal, MatrixView out,
                        float* scratch, float* weights) {
  const std::size_t n = q.rows, d = q.cols, d_v = v.cols;
  if (k.cols != d || k.rows != v.rows || out.rows != n || out.cols != d_v) return Status::shape_mismatch;
  if (causal && k.rows != n) return Status::shape_mismatch;
  if (scratch == nullptr && linear_attention_scratch_size(d, d_v) > 0) return Status::bad_argument;
  const State st{d, d_v, scratch, scratch + d * d_v, scratch + d * (d_v + 1), scratch + d * (d_v + 2)};
  std::fill(st.s, st.s + d * (d_v + 1), 0.0f);  // S and z
  // 1. non-causal: every key enters the state before any query reads it
  if (!causal)
    for (std::size_t j = 0; j < k.rows; ++j) add_key(st, k.row(j), v.row(j));
  // 2. each query reads the state; causal: right after its own key entered
  for (std::size_t i = 0; i < n; ++i) {
    if (causal) add_key(st, k.row(i), v.row(i));
    read_query(st, q.row(i), out.row(i));
  }
  // 3. trace
  if (weights) linear_weights(q, k, causal, st, weights);
  return Status::ok;
}

}  // namespace attn
