#include "train/optimizer.h"

#include <cmath>

namespace attn {

// PyTorch's AdamW, term for term:
//   p -= lr·wd·p;  m = β₁m + (1−β₁)g;  v = β₂v + (1−β₂)g²;
//   p -= lr · (m / (1−β₁ᵗ)) / (√(v / (1−β₂ᵗ)) + ε).
// The bias corrections are computed once per call in double. A step below 1
// is taken as 1 (there is no update before the first).
void adam_step(float* params, const float* grads, float* m, float* v, std::size_t count,
               const AdamSettings& settings, std::int64_t step) {
  const double t = static_cast<double>(step < 1 ? 1 : step);
  const float correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(settings.beta1), t));
  const float correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(settings.beta2), t));
  const float lr = settings.learning_rate, b1 = settings.beta1, b2 = settings.beta2, eps = settings.epsilon;
  const float decay = lr * settings.weight_decay;
  for (std::size_t i = 0; i < count; ++i) {
    const float g = grads[i];
    float p = params[i];
    if (decay != 0.0f) p -= decay * p;
    const float mi = b1 * m[i] + (1.0f - b1) * g;
    const float vi = b2 * v[i] + (1.0f - b2) * g * g;
    m[i] = mi;
    v[i] = vi;
    p -= lr * (mi / correction1) / (std::sqrt(vi / correction2) + eps);
    params[i] = p;
  }
}

double global_norm(const float* grads, std::size_t count) {
  double sum = 0.0;
  for (std::size_t i = 0; i < count; ++i) sum += static_cast<double>(grads[i]) * static_cast<double>(grads[i]);
  return std::sqrt(sum);
}

// A norm that is not finite is returned unscaled: the caller sees a diverged
// step rather than gradients quietly zeroed.
double clip_by_global_norm(float* grads, std::size_t count, double max_norm) {
  const double norm = global_norm(grads, count);
  if (max_norm > 0.0 && std::isfinite(norm) && norm > max_norm) {
    const float scale = static_cast<float>(max_norm / norm);
    for (std::size_t i = 0; i < count; ++i) grads[i] *= scale;
  }
  return norm;
}

// Steps 1..warmup rise linearly: peak·step/warmup. After that the rate is the
// peak, or (decay_steps > warmup) a half cosine from the peak at the end of
// warm-up down to floor at decay_steps, and floor from there on.
double learning_rate_at(const LearningRateSchedule& schedule, std::int64_t step) {
  const std::int64_t s = step < 1 ? 1 : step;
  if (schedule.warmup > 0 && s <= schedule.warmup)
    return schedule.peak * static_cast<double>(s) / static_cast<double>(schedule.warmup);
  if (schedule.decay_steps <= 0) return schedule.peak;
  const std::int64_t start = schedule.warmup > 0 ? schedule.warmup : 0;
  if (s >= schedule.decay_steps || schedule.decay_steps <= start) return schedule.floor;
  const double progress = static_cast<double>(s - start) / static_cast<double>(schedule.decay_steps - start);
  const double pi = 3.14159265358979323846;
  return schedule.floor + (schedule.peak - schedule.floor) * 0.5 * (1.0 + std::cos(pi * progress));
}

// SplitMix64 (Steele, Lea and Flood, 2014), as in Vigna's reference splitmix64.c.
std::uint64_t Random::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The top 53 bits as a double in [0, 1).
double Random::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

void xavier_uniform(MatrixView w, Random& random) {
  if (w.rows == 0 || w.cols == 0) return;
  const double bound = std::sqrt(6.0 / static_cast<double>(w.rows + w.cols));
  for (std::size_t i = 0; i < w.rows; ++i)
    for (std::size_t j = 0; j < w.cols; ++j) w.at(i, j) = static_cast<float>((2.0 * random.uniform() - 1.0) * bound);
}

}  // namespace attn
