#include "train/cross_entropy.h"

#include <cmath>

namespace attn {

Status softmax_cross_entropy(ConstMatrixView logits, const std::int32_t* targets, std::int32_t ignore_id,
                             MatrixView d_logits, CrossEntropyResult* result) {
  const std::size_t n = logits.rows, vocab = logits.cols;
  const bool want_gradient = d_logits.data != nullptr;
  if (want_gradient && (d_logits.rows != n || d_logits.cols != vocab)) return Status::shape_mismatch;
  if (result == nullptr) return Status::bad_argument;
  if (n > 0 && (targets == nullptr || vocab == 0 || logits.data == nullptr)) return Status::bad_argument;
  // 1. Check every target and count the rows that take part, before anything is written.
  std::size_t counted = 0;
  for (std::size_t t = 0; t < n; ++t) {
    if (targets[t] == ignore_id) continue;
    if (targets[t] < 0 || static_cast<std::size_t>(targets[t]) >= vocab) return Status::bad_argument;
    ++counted;
  }
  const float inv_count = counted > 0 ? 1.0f / static_cast<float>(counted) : 0.0f;
  double total = 0.0;
  std::size_t correct = 0;
  for (std::size_t t = 0; t < n; ++t) {
    const float* z = logits.row(t);
    float* dz = want_gradient ? d_logits.row(t) : nullptr;
    if (targets[t] == ignore_id) {
      if (dz != nullptr)
        for (std::size_t j = 0; j < vocab; ++j) dz[j] = 0.0f;
      continue;
    }
    const std::size_t y = static_cast<std::size_t>(targets[t]);
    // 2. The row max (first on ties: the prediction) and log Σ exp(z − max), stable.
    std::size_t best = 0;
    for (std::size_t j = 1; j < vocab; ++j)
      if (z[j] > z[best]) best = j;
    const float max = z[best];
    double sum = 0.0;
    for (std::size_t j = 0; j < vocab; ++j) sum += std::exp(static_cast<double>(z[j] - max));
    const double log_sum = std::log(sum);
    // 3. loss_t = logsumexp(z) − z_y = log Σ exp(z − max) − (z_y − max).
    total += log_sum - static_cast<double>(z[y] - max);
    if (best == y) ++correct;
    // 4. dz = (softmax(z) − onehot(y)) / N (dz may be z: z[j] is read just before dz[j] is written).
    if (dz != nullptr) {
      const float inv_sum = static_cast<float>(1.0 / sum);
      for (std::size_t j = 0; j < vocab; ++j) {
        const float p = std::exp(z[j] - max) * inv_sum;
        dz[j] = ((j == y ? p - 1.0f : p)) * inv_count;
      }
    }
  }
  result->loss = counted > 0 ? total / static_cast<double>(counted) : 0.0;
  result->counted = counted;
  result->correct = correct;
  return Status::ok;
}

}  // namespace attn
