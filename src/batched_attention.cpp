#include "batched_attention.h"

#include <cfloat>
#include <cmath>
#include <cstring>

#include "matmul.h"
#include "simd.h"

namespace attn {
namespace {

// Softmax of one row where −∞ marks a hidden score: 1. the max over the row,
// 2. e^(s − max) and their sum (a hidden entry's exponential is exactly 0),
// 3. normalise. No visible entry: all zeros. A visible NaN or +∞ (an overflow
// upstream): all NaN, so the failure shows.
void softmax_hidden_row(float* w, std::size_t m) {
  float max = -INFINITY;
  bool finite = true;
  for (std::size_t j = 0; j < m; ++j) {
    finite &= w[j] == -INFINITY || std::isfinite(w[j]);
    max = std::fmax(max, w[j]);
  }
  if (!finite || max == -INFINITY) {
    const float fill = finite ? 0.0f : NAN;
    for (std::size_t j = 0; j < m; ++j) w[j] = fill;
    return;
  }
  const simd::f32x4 mv = simd::splat(max);
  double sum = 0.0;
  std::size_t j = 0;
  for (; j + simd::kWidth <= m; j += simd::kWidth) {
    const simd::f32x4 p = simd::exp_nonpositive(simd::sub(simd::load(w + j), mv));
    simd::store(w + j, p);
    sum += static_cast<double>(simd::hsum(p));
  }
  for (; j < m; ++j) {
    alignas(16) float t[4] = {w[j] - max, -INFINITY, -INFINITY, -INFINITY};
    simd::store(t, simd::exp_nonpositive(simd::load(t)));
    w[j] = t[0];
    sum += static_cast<double>(t[0]);
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (j = 0; j < m; ++j) w[j] *= inv;
}

// Copies a row into a trace buffer; −∞ becomes −FLT_MAX.
void trace_row(float* dst, const float* src, std::size_t m) {
  if (!dst) return;
  for (std::size_t j = 0; j < m; ++j) dst[j] = src[j] == -INFINITY ? -FLT_MAX : src[j];
}

// One head: S = Q Kᵀ·scale into w, then per row the cap, the rules and the softmax, then out = W V.
void attend_head(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                 const MutHeadTensor& out, std::size_t b, std::size_t h, float* w, const BatchedTrace* trace) {
  const std::size_t g = kv_head_for(h, q.heads, k.heads), n = q.rows, m = k.rows;
  const std::size_t plane = (b * q.heads + h) * n * m;
  auto at = [&](float* base, std::size_t i) { return base ? base + plane + i * m : nullptr; };
  matmul_transposed(q.head(b, h), k.head(b, g), rules.scale, dense(w, n, m));  // 1. scaled scores
  for (std::size_t i = 0; i < n; ++i) {
    float* s = w + i * m;
    if (trace) trace_row(at(trace->scores, i), s, m);
    if (rules.softcap > 0.0f)  // 2. soft cap
      for (std::size_t j = 0; j < m; ++j) s[j] = soft_cap(s[j], rules.softcap);
    if (trace) trace_row(at(trace->capped, i), s, m);
    const KeyRange range = key_range(rules, b, i, m);  // 3. hide and bias
    for (std::size_t j = 0; j < range.begin; ++j) s[j] = -INFINITY;
    for (std::size_t j = range.end; j < m; ++j) s[j] = -INFINITY;
    apply_rules(rules, b, h, i, range, s + range.begin);
    if (trace) trace_row(at(trace->biased, i), s, m);
    softmax_hidden_row(s, m);  // 4. weights
  }
  matmul(dense(static_cast<const float*>(w), n, m), v.head(b, g), out.head(b, h));  // 5. Y = W V
}

}  // namespace

Status check_batched_shapes(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const MutHeadTensor& out) {
  if (q.cols != k.cols || k.rows != v.rows || k.heads != v.heads || k.batch != q.batch || v.batch != q.batch)
    return Status::shape_mismatch;
  if (out.batch != q.batch || out.heads != q.heads || out.rows != q.rows || out.cols != v.cols)
    return Status::shape_mismatch;
  if (k.heads == 0 ? q.heads != 0 : q.heads % k.heads != 0) return Status::shape_mismatch;
  return Status::ok;
}

Status batched_attention(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, const ScoreRules& rules,
                         const MutHeadTensor& out, float* weights, const BatchedTrace* trace) {
  if (Status s = check_batched_shapes(q, k, v, out); s != Status::ok) return s;
  if (Status s = check_rules(rules, q.batch, k.rows); s != Status::ok) return s;
  const std::size_t n = q.rows, m = k.rows;
  for (std::size_t b = 0; b < q.batch; ++b)
    for (std::size_t h = 0; h < q.heads; ++h)
      attend_head(q, k, v, rules, out, b, h, weights + (b * q.heads + h) * n * m, trace);
  return Status::ok;
}

Status append_to_cache(const HeadTensor& past, const HeadTensor& fresh, const MutHeadTensor& present) {
  if (past.batch != fresh.batch || past.heads != fresh.heads || past.cols != fresh.cols ||
      present.batch != past.batch || present.heads != past.heads || present.cols != past.cols ||
      present.rows != past.rows + fresh.rows)
    return Status::shape_mismatch;
  const std::size_t bytes = past.cols * sizeof(float);
  for (std::size_t b = 0; b < past.batch; ++b)
    for (std::size_t g = 0; g < past.heads; ++g) {
      const MatrixView dst = present.head(b, g);
      for (std::size_t i = 0; i < past.rows; ++i) std::memcpy(dst.row(i), past.head(b, g).row(i), bytes);
      for (std::size_t i = 0; i < fresh.rows; ++i) std::memcpy(dst.row(past.rows + i), fresh.head(b, g).row(i), bytes);
    }
  return Status::ok;
}

}  // namespace attn
