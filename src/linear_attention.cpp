#include "linear_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>

#include "simd.h"
#include "vector_ops.h"

namespace attn {
namespace {

// φ(x) = elu(x) + 1: positive everywhere, x + 1 above 0, eˣ below. Every
// feature of a query row, or of all the keys, may be divided by one common
// positive factor: it cancels between numerator and denominator. When all the
// inputs are <= 0 the factor is e^shift with shift = their max, so features
// are e^(x − shift) <= 1 and the largest is 1: tiny features (e^-100) do not
// underflow to 0 together. With any input > 0, shift = 0 and φ is unchanged.
void feature_row(const float* x, std::size_t d, float shift, float* phi) {
  for (std::size_t a = 0; a < d; ++a) phi[a] = x[a] > 0.0f ? x[a] + 1.0f : std::exp(x[a] - shift);
}

// min(0, the largest entry of m): the shift for feature_row.
float feature_shift(ConstMatrixView m) {
  float best = -INFINITY;
  for (std::size_t j = 0; j < m.rows; ++j)
    for (std::size_t a = 0; a < m.cols; ++a) best = std::max(best, m.at(j, a));
  return best < 0.0f ? best : 0.0f;
}

// Σ a[t]·b[t], accumulated in double (d terms: cheap).
double dot(const float* a, const float* b, std::size_t len) {
  double sum = 0.0;
  for (std::size_t t = 0; t < len; ++t) sum += static_cast<double>(a[t]) * b[t];
  return sum;
}

// The running state of the recurrence, laid out in the caller's scratch. S and z
// are sums of up to m features of up to FLT_MAX each (φ(FLT_MAX) = FLT_MAX):
// in float they overflow after two keys, so they are kept in double, as is the
// numerator φ(q_i)ᵀS. Their quotient is a weighted mean of V's rows, which fits
// in float again.
struct State {
  std::size_t d, d_v;
  float key_shift;  // feature_shift of all the keys: one factor common to every key
  double* s;        // d×d_v: Σ φ(k_j) v_jᵀ
  double* z;        // d:     Σ φ(k_j)
  double* numerator;  // d_v: φ(q_i)ᵀ S
  float* phi_q;     // d
  float* phi_k;     // d
};

// The doubles start at the first 8-byte boundary of scratch (hence the one
// spare float in linear_attention_scratch_size); the float rows follow them.
State lay_out_state(float* scratch, std::size_t d, std::size_t d_v, float key_shift) {
  const auto address = reinterpret_cast<std::uintptr_t>(scratch);
  void* aligned = scratch + (address % alignof(double) == 0 ? 0 : 1);
  const std::size_t doubles = d * d_v + d + d_v;
  double* sums = new (aligned) double[doubles]();  // storage reuse: the doubles begin their lifetime here
  float* rows = reinterpret_cast<float*>(sums + doubles);
  return State{d, d_v, key_shift, sums, sums + d * d_v, sums + d * d_v + d, rows, rows + d};
}

// S += φ(k_j) v_jᵀ (one row of S per feature), z += φ(k_j)
void add_key(const State& st, const float* k_row, const float* v_row) {
  feature_row(k_row, st.d, st.key_shift, st.phi_k);
  for (std::size_t a = 0; a < st.d; ++a) {
    const double f = st.phi_k[a];
    double* s_row = st.s + a * st.d_v;
    for (std::size_t t = 0; t < st.d_v; ++t) s_row[t] += f * v_row[t];
    st.z[a] += f;
  }
}

// out_i = φ(q_i)ᵀ S / φ(q_i)ᵀ z; a zero denominator gives a zero row.
void read_query(const State& st, const float* q_row, float* out_row) {
  feature_row(q_row, st.d, feature_shift(dense(q_row, 1, st.d)), st.phi_q);
  double den = 0.0;
  std::fill(st.numerator, st.numerator + st.d_v, 0.0);
  for (std::size_t a = 0; a < st.d; ++a) {
    const double f = st.phi_q[a];
    const double* s_row = st.s + a * st.d_v;
    for (std::size_t t = 0; t < st.d_v; ++t) st.numerator[t] += f * s_row[t];
    den += f * st.z[a];
  }
  for (std::size_t t = 0; t < st.d_v; ++t)
    out_row[t] = den > 0.0 ? static_cast<float>(st.numerator[t] / den) : 0.0f;
}

// The trace: a_ij = φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j'), formed explicitly
// (O(n·m·d), the small case only); causal entries j > i are 0.
void linear_weights(ConstMatrixView q, ConstMatrixView k, bool causal, const State& st, float* weights) {
  const std::size_t m = k.rows;
  for (std::size_t i = 0; i < q.rows; ++i) {
    float* row = weights + i * m;
    const std::size_t end = causal ? i + 1 : m;
    feature_row(q.row(i), st.d, feature_shift(dense(q.row(i), 1, st.d)), st.phi_q);
    // two passes in double: the sum first, then each ratio (a float copy of a
    // tiny product could underflow to 0 before the division)
    double sum = 0.0;
    for (std::size_t j = 0; j < end; ++j) {
      feature_row(k.row(j), st.d, st.key_shift, st.phi_k);
      sum += dot(st.phi_q, st.phi_k, st.d);
    }
    const double inv = sum > 0.0 ? 1.0 / sum : 0.0;
    for (std::size_t j = 0; j < end; ++j) {
      feature_row(k.row(j), st.d, st.key_shift, st.phi_k);
      row[j] = static_cast<float>(dot(st.phi_q, st.phi_k, st.d) * inv);
    }
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
  if (linear_attention_scratch_size(d, d_v) == 0) {  // d = 0: every feature sum is empty, every row 0
    for (std::size_t i = 0; i < n; ++i) std::fill(out.row(i), out.row(i) + d_v, 0.0f);
    if (weights) std::fill(weights, weights + n * k.rows, 0.0f);
    return Status::ok;
  }
  const State st = lay_out_state(scratch, d, d_v, feature_shift(k));  // S and z start at 0
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
