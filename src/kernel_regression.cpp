#include "kernel_regression.h"

#include <cmath>


namespace attn {
namespace {

float kernel_value(Kernel kernel, double u) {
  switch (kernel) {
    case Kernel::gaussian: return static_cast<float>(std::exp(-0.5 * u * u));
    case Kernel::boxcar: return std::fabs(u) <= 1.0 ? 1.0f : 0.0f;
    case Kernel::epanechnikov: return std::fabs(u) <= 1.0 ? static_cast<float>(0.75 * (1.0 - u * u)) : 0.0f;
    case Kernel::constant: return 1.0f;
  }
  return 0.0f;
}

// Gaussian weights are a softmax of -(x - x_i)²/2h², computed in double:
// (x - x_i)/h can exceed float32's range for a tiny bandwidth, and the
// largest score is subtracted before exp, so the nearest training point keeps
// weight even when every exp(-u²/2) alone would underflow to 0.
void gaussian_row(const float* x_train, std::size_t m, float x, double bandwidth, float* w) {
  double best = -INFINITY;
  for (std::size_t j = 0; j < m; ++j) {
    const double u = (static_cast<double>(x) - x_train[j]) / bandwidth;
    best = std::fmax(best, -0.5 * u * u);
  }
  double sum = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    const double u = (static_cast<double>(x) - x_train[j]) / bandwidth;
    sum += std::exp(-0.5 * u * u - best);
  }
  for (std::size_t j = 0; j < m; ++j) {
    const double u = (static_cast<double>(x) - x_train[j]) / bandwidth;
    w[j] = static_cast<float>(std::exp(-0.5 * u * u - best) / sum);
  }
}

// The compact kernels: raw kernel values, normalised by their sum.
void compact_row(const float* x_train, std::size_t m, float x, Kernel kernel, double bandwidth, float* w) {
  double sum = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    w[j] = kernel_value(kernel, (static_cast<double>(x) - x_train[j]) / bandwidth);
    sum += w[j];
  }
  const float inv = sum > 0.0 ? static_cast<float>(1.0 / sum) : 0.0f;
  for (std::size_t j = 0; j < m; ++j) w[j] *= inv;
}

bool known_kernel(Kernel k) {
  return k == Kernel::gaussian || k == Kernel::boxcar || k == Kernel::epanechnikov || k == Kernel::constant;
}

}  // namespace

Status nadaraya_watson(const float* x_train, const float* y_train, std::size_t m, const float* x_query,
                       std::size_t n, Kernel kernel, float bandwidth, float* predictions, MatrixView weights) {
  if (!known_kernel(kernel) || !(bandwidth > 0.0f) || !std::isfinite(bandwidth)) return Status::bad_argument;
  if (weights.rows != n || weights.cols != m) return Status::shape_mismatch;
  for (std::size_t i = 0; i < n; ++i) {
    float* w = weights.row(i);
    // 1. weights of query i over the training points
    if (kernel == Kernel::gaussian)
      gaussian_row(x_train, m, x_query[i], bandwidth, w);
    else
      compact_row(x_train, m, x_query[i], kernel, bandwidth, w);
    // 2. prediction: the weighted average of the targets (divided by the
    // float weights' own sum, so targets near float32's limit stay finite)
    double weighted = 0.0, total = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      weighted += static_cast<double>(w[j]) * y_train[j];
      total += w[j];
    }
    predictions[i] = total > 0.0 ? static_cast<float>(weighted / total) : 0.0f;
  }
  return Status::ok;
}

}  // namespace attn
