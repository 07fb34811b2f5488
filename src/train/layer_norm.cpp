#include "train/layer_norm.h"

#include <cmath>

#include "simd.h"

namespace attn {
namespace {

using simd::f32x4;

float row_sum(const float* x, std::size_t d) {
  f32x4 acc = simd::zero();
  std::size_t j = 0;
  for (; j + 4 <= d; j += 4) acc = simd::add(acc, simd::load(x + j));
  float sum = simd::hsum(acc);
  for (; j < d; ++j) sum += x[j];
  return sum;
}

// Σ (x − μ)²: the second pass of a two-pass variance (no cancellation).
float row_squared_deviation(const float* x, std::size_t d, float mu) {
  const f32x4 m = simd::splat(mu);
  f32x4 acc = simd::zero();
  std::size_t j = 0;
  for (; j + 4 <= d; j += 4) {
    const f32x4 c = simd::sub(simd::load(x + j), m);
    acc = simd::madd(acc, c, c);
  }
  float sum = simd::hsum(acc);
  for (; j < d; ++j) sum += (x[j] - mu) * (x[j] - mu);
  return sum;
}

}  // namespace

Status layer_norm_forward(ConstMatrixView x, const float* gamma, const float* beta, float epsilon, MatrixView y,
                          float* mean, float* rstd) {
  if (y.rows != x.rows || y.cols != x.cols) return Status::shape_mismatch;
  if (!(epsilon > 0.0f) || !std::isfinite(epsilon)) return Status::bad_argument;
  if (x.rows == 0) return Status::ok;
  if (x.cols == 0 || gamma == nullptr || beta == nullptr || mean == nullptr || rstd == nullptr)
    return Status::bad_argument;
  const std::size_t d = x.cols;
  const float inv_d = 1.0f / static_cast<float>(d);
  for (std::size_t i = 0; i < x.rows; ++i) {
    const float* xr = x.row(i);
    // 1. μ and 1/√(σ² + ε), kept for the backward.
    const float mu = row_sum(xr, d) * inv_d;
    const float r = 1.0f / std::sqrt(row_squared_deviation(xr, d, mu) * inv_d + epsilon);
    mean[i] = mu;
    rstd[i] = r;
    // 2. y = γ ∘ (x − μ) · rstd + β (y may be x: each entry is read before it is written).
    float* yr = y.row(i);
    const f32x4 mv = simd::splat(mu), rv = simd::splat(r);
    std::size_t j = 0;
    for (; j + 4 <= d; j += 4) {
      const f32x4 xhat = simd::mul(simd::sub(simd::load(xr + j), mv), rv);
      simd::store(yr + j, simd::add(simd::mul(simd::load(gamma + j), xhat), simd::load(beta + j)));
    }
    for (; j < d; ++j) yr[j] = gamma[j] * ((xr[j] - mu) * r) + beta[j];
  }
  return Status::ok;
}

Status layer_norm_backward(ConstMatrixView x, ConstMatrixView dy, const float* gamma, const float* mean,
                           const float* rstd, MatrixView dx, float* dgamma, float* dbeta) {
  if (dy.rows != x.rows || dy.cols != x.cols || dx.rows != x.rows || dx.cols != x.cols)
    return Status::shape_mismatch;
  if (x.rows == 0) return Status::ok;
  if (x.cols == 0 || gamma == nullptr || mean == nullptr || rstd == nullptr || dx.data == nullptr)
    return Status::bad_argument;
  const std::size_t d = x.cols;
  const float inv_d = 1.0f / static_cast<float>(d);
  for (std::size_t i = 0; i < x.rows; ++i) {
    const float* xr = x.row(i);
    const float* dyr = dy.row(i);
    const float mu = mean[i], r = rstd[i];
    const f32x4 mv = simd::splat(mu), rv = simd::splat(r);
    // 1. mean(dx̂) and mean(dx̂ ∘ x̂), dx̂ = dy ∘ γ; dγ += dy ∘ x̂, dβ += dy.
    f32x4 s1 = simd::zero(), s2 = simd::zero();
    std::size_t j = 0;
    for (; j + 4 <= d; j += 4) {
      const f32x4 xhat = simd::mul(simd::sub(simd::load(xr + j), mv), rv);
      const f32x4 g = simd::load(dyr + j);
      const f32x4 dxhat = simd::mul(g, simd::load(gamma + j));
      s1 = simd::add(s1, dxhat);
      s2 = simd::madd(s2, dxhat, xhat);
      if (dgamma != nullptr) simd::store(dgamma + j, simd::madd(simd::load(dgamma + j), g, xhat));
      if (dbeta != nullptr) simd::store(dbeta + j, simd::add(simd::load(dbeta + j), g));
    }
    float sum1 = simd::hsum(s1), sum2 = simd::hsum(s2);
    for (; j < d; ++j) {
      const float xhat = (xr[j] - mu) * r;
      const float dxhat = dyr[j] * gamma[j];
      sum1 += dxhat;
      sum2 += dxhat * xhat;
      if (dgamma != nullptr) dgamma[j] += dyr[j] * xhat;
      if (dbeta != nullptr) dbeta[j] += dyr[j];
    }
    // 2. dx = rstd · (dx̂ − mean(dx̂) − x̂ ∘ mean(dx̂ ∘ x̂)) (dx may be dy: entrywise).
    const float a = sum1 * inv_d, b = sum2 * inv_d;
    const f32x4 av = simd::splat(a), bv = simd::splat(b);
    float* dxr = dx.row(i);
    j = 0;
    for (; j + 4 <= d; j += 4) {
      const f32x4 xhat = simd::mul(simd::sub(simd::load(xr + j), mv), rv);
      const f32x4 dxhat = simd::mul(simd::load(dyr + j), simd::load(gamma + j));
      simd::store(dxr + j, simd::mul(rv, simd::sub(simd::sub(dxhat, av), simd::mul(xhat, bv))));
    }
    for (; j < d; ++j) {
      const float xhat = (xr[j] - mu) * r;
      dxr[j] = r * ((dyr[j] * gamma[j] - a) - xhat * b);
    }
  }
  return Status::ok;
}

}  // namespace attn
