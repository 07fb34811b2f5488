// Training's arithmetic outside the model: Adam/AdamW with bias correction
// (Kingma and Ba, 2015; Loshchilov and Hutter, 2019), clipping by the global
// norm of all gradients, a warm-up-then-decay learning-rate schedule, and a
// seeded generator with Xavier/Glorot initialisation. A model keeps all its
// parameters (and their gradients and Adam moments) in flat float arrays, so
// each function works on one array.
#pragma once

#include <cstddef>
#include <cstdint>

#include "matrix.h"

namespace attn {

struct AdamSettings {
  float learning_rate = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.98f;
  float epsilon = 1e-9f;
  float weight_decay = 0.0f;  // AdamW: decoupled, p -= lr · wd · p
};

// One update of count parameters. m, v: the moments (zero before step 1).
// step: 1 for the first update (bias correction 1 − β^step).
void adam_step(float* params, const float* grads, float* m, float* v, std::size_t count,
               const AdamSettings& settings, std::int64_t step);

// √(Σ g²), accumulated in double.
double global_norm(const float* grads, std::size_t count);

// If the global norm exceeds max_norm (> 0), scales grads by max_norm / norm.
// Returns the norm before clipping.
double clip_by_global_norm(float* grads, std::size_t count, double max_norm);

struct LearningRateSchedule {
  double peak = 1e-3;          // reached at the end of warm-up
  std::int64_t warmup = 0;     // steps of linear warm-up from peak/warmup
  std::int64_t decay_steps = 0;  // 0: constant after warm-up; else cosine to floor at this step
  double floor = 0;            // the rate after decay_steps
};

// The rate for step (1-based).
double learning_rate_at(const LearningRateSchedule& schedule, std::int64_t step);

// A small, fast, seeded generator (SplitMix64): the same seed gives the same
// stream on every build and back end.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();  // [0, 1)
 private:
  std::uint64_t state_;
};

// Xavier/Glorot uniform: U(−a, a), a = √(6 / (rows + cols)).
void xavier_uniform(MatrixView w, Random& random);

}  // namespace attn
