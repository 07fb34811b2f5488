// Training's arithmetic outside the model (src/train/optimizer.cpp): Adam and
// AdamW against a hand-worked two-step example and a float64 reference,
// clipping by the global norm, the learning-rate schedule at known steps,
// SplitMix64's published outputs and Xavier initialisation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "layers_reference.h"
#include "test_util.h"
#include "train/optimizer.h"

namespace {

using attn_test::Mat;
using attn_test::Rng;

// One parameter p = 1, lr 0.1, β₁ 0.9, β₂ 0.999, ε 1e-8; gradients 0.5 then −0.25.
//   step 1: m = 0.1·0.5 = 0.05, v = 0.001·0.25 = 0.00025;
//           m̂ = 0.05/0.1 = 0.5, v̂ = 0.00025/0.001 = 0.25, √v̂ = 0.5;
//           p = 1 − 0.1·0.5/(0.5 + 1e-8) = 0.900000002
//   step 2: m = 0.9·0.05 + 0.1·(−0.25) = 0.02, v = 0.999·0.00025 + 0.001·0.0625 = 0.00031225;
//           m̂ = 0.02/(1 − 0.81) = 0.105263158, v̂ = 0.00031225/(1 − 0.998001) = 0.156203102, √v̂ = 0.395225381;
//           p = 0.900000002 − 0.1·0.105263158/0.395225381 = 0.900000002 − 0.026633703 = 0.873366299
TEST(Adam, HandWorkedTwoSteps) {
  attn::AdamSettings s;
  s.learning_rate = 0.1f;
  s.beta1 = 0.9f;
  s.beta2 = 0.999f;
  s.epsilon = 1e-8f;
  float p = 1.0f, m = 0.0f, v = 0.0f;
  const float g1 = 0.5f, g2 = -0.25f;
  attn::adam_step(&p, &g1, &m, &v, 1, s, 1);
  // float32's 1 − β₂ = 0.00099998713 (not 0.001) moves v by 1.3e-5 relative; p by far less.
  EXPECT_NEAR(m, 0.05, 0.05 * 1e-6);
  EXPECT_NEAR(v, 0.00025, 0.00025 * 2e-5);
  EXPECT_NEAR(p, 0.900000002, 1e-7);
  attn::adam_step(&p, &g2, &m, &v, 1, s, 2);
  EXPECT_NEAR(m, 0.02, 0.02 * 2e-6);
  EXPECT_NEAR(v, 0.00031225, 0.00031225 * 2e-5);
  EXPECT_NEAR(p, 0.873366299, 1e-6);
}

// AdamW decays the weight before the Adam step: p = 1 − 0.1·0.01·1 = 0.999, then − 0.1 = 0.899.
// A zero gradient with decay only shrinks p: the moments stay 0 and the Adam term is 0/(0 + ε) = 0.
TEST(Adam, DecoupledWeightDecay) {
  attn::AdamSettings s;
  s.learning_rate = 0.1f;
  s.beta1 = 0.9f;
  s.beta2 = 0.999f;
  s.epsilon = 1e-8f;
  s.weight_decay = 0.01f;
  float p = 1.0f, m = 0.0f, v = 0.0f;
  const float g = 0.5f;
  attn::adam_step(&p, &g, &m, &v, 1, s, 1);
  EXPECT_NEAR(p, 0.899, 1e-6);
  float q = 2.0f, mq = 0.0f, vq = 0.0f;
  const float zero = 0.0f;
  attn::adam_step(&q, &zero, &mq, &vq, 1, s, 1);
  EXPECT_FLOAT_EQ(q, 2.0f * (1.0f - 0.001f));
}

// Many parameters over 20 steps with the settings our models use, against the float64 formula.
TEST(Adam, MatchesFloat64ReferenceOverSteps) {
  for (float decay : {0.0f, 0.05f}) {
    Rng rng(51);
    const std::size_t count = 37;
    attn::AdamSettings s;
    s.learning_rate = 3e-3f;
    s.weight_decay = decay;
    std::vector<float> p(count), m(count, 0.0f), v(count, 0.0f), g(count);
    for (auto& x : p) x = rng.uniform(-1, 1);
    layers_ref::AdamState r{layers_ref::Vec(p.begin(), p.end()), layers_ref::Vec(count, 0.0),
                            layers_ref::Vec(count, 0.0)};
    for (long step = 1; step <= 20; ++step) {
      for (auto& x : g) x = rng.uniform(-2, 2) * (step % 3 == 0 ? 1e-3f : 1.0f);
      attn::adam_step(p.data(), g.data(), m.data(), v.data(), count, s, step);
      layers_ref::adam_step(r, layers_ref::Vec(g.begin(), g.end()), s.learning_rate, s.beta1, s.beta2, s.epsilon,
                            s.weight_decay, step);
    }
    EXPECT_TRUE(attn_test::all_close(p, r.p, 1e-6, 1e-5)) << "weight decay " << decay;
    EXPECT_TRUE(attn_test::all_close(m, r.m, 1e-7, 1e-5));
    EXPECT_TRUE(attn_test::all_close(v, r.v, 1e-9, 1e-5));
  }
}

TEST(Clip, GlobalNormAndClipping) {
  std::vector<float> g = {3.0f, -4.0f};
  EXPECT_DOUBLE_EQ(attn::global_norm(g.data(), 2), 5.0);
  EXPECT_DOUBLE_EQ(attn::clip_by_global_norm(g.data(), 2, 1.0), 5.0);  // the norm before clipping
  EXPECT_FLOAT_EQ(g[0], 0.6f);
  EXPECT_FLOAT_EQ(g[1], -0.8f);
  EXPECT_NEAR(attn::global_norm(g.data(), 2), 1.0, 1e-7);
  // Below the limit, or no limit (0): unchanged.
  std::vector<float> h = {0.3f, 0.4f};
  EXPECT_NEAR(attn::clip_by_global_norm(h.data(), 2, 1.0), 0.5, 1e-7);
  EXPECT_EQ(h, (std::vector<float>{0.3f, 0.4f}));
  std::vector<float> big = {30.0f, 40.0f};
  EXPECT_DOUBLE_EQ(attn::clip_by_global_norm(big.data(), 2, 0.0), 50.0);
  EXPECT_EQ(big, (std::vector<float>{30.0f, 40.0f}));
  // Squares past float32's range are fine in double: √(2·(1e20)²).
  std::vector<float> huge = {1e20f, 1e20f};
  EXPECT_NEAR(attn::global_norm(huge.data(), 2) / (std::sqrt(2.0) * 1e20f), 1.0, 1e-12);
  // A non-finite norm is reported and the gradients are left as they are.
  std::vector<float> bad = {1.0f, INFINITY};
  EXPECT_TRUE(std::isinf(attn::clip_by_global_norm(bad.data(), 2, 1.0)));
  EXPECT_EQ(bad[0], 1.0f);
  EXPECT_EQ(attn::global_norm(nullptr, 0), 0.0);
}

TEST(Schedule, WarmupThenConstant) {
  attn::LearningRateSchedule s;
  s.peak = 1e-3;
  s.warmup = 4;
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 1), 2.5e-4);  // peak/warmup·step
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 2), 5e-4);
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 4), 1e-3);
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 5), 1e-3);
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 100000), 1e-3);
  s.warmup = 0;
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 1), 1e-3);
}

TEST(Schedule, WarmupThenCosineToFloor) {
  attn::LearningRateSchedule s;
  s.peak = 1e-3;
  s.warmup = 10;
  s.decay_steps = 110;
  s.floor = 1e-5;
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 5), 5e-4);
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 10), 1e-3);
  // Step 35 is a quarter of the way from 10 to 110: floor + (peak − floor)·(1 + cos(π/4))/2.
  EXPECT_NEAR(attn::learning_rate_at(s, 35), 1e-5 + 0.99e-3 * (1 + std::sqrt(0.5)) / 2, 1e-15);
  EXPECT_NEAR(attn::learning_rate_at(s, 60), 1e-5 + 0.99e-3 / 2, 1e-15);  // half way: the mean of the two
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 110), 1e-5);
  EXPECT_DOUBLE_EQ(attn::learning_rate_at(s, 500), 1e-5);
  double previous = attn::learning_rate_at(s, 10);
  for (std::int64_t step = 11; step <= 110; ++step) {  // decreasing all the way
    const double rate = attn::learning_rate_at(s, step);
    EXPECT_LT(rate, previous) << step;
    previous = rate;
  }
}

// Vigna's splitmix64.c from seed 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f.
TEST(Random, SplitMix64PublishedOutputs) {
  attn::Random r(0);
  EXPECT_EQ(r.next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(r.next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(r.next(), 0x06c45d188009454full);
  attn::Random a(1234), b(1234), c(1235);
  EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(a.next(), c.next());
}

TEST(Random, UniformIsTheTop53BitsInUnitInterval) {
  attn::Random r(7), raw(7);
  double sum = 0.0;
  for (int t = 0; t < 100000; ++t) {
    const double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    EXPECT_EQ(u, static_cast<double>(raw.next() >> 11) / 9007199254740992.0);  // 2^53
    sum += u;
  }
  EXPECT_NEAR(sum / 100000, 0.5, 0.005);
}

TEST(Xavier, BoundsSpreadAndDeterminism) {
  Mat w(64, 96, 0.0f, 3);
  attn::Random r(3);
  attn::xavier_uniform(w.view(), r);
  const double a = std::sqrt(6.0 / (64 + 96));
  double lo = 1, hi = -1, sum = 0, squares = 0;
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 96; ++j) {
      const double x = w.at(i, j);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
      squares += x * x;
    }
  EXPECT_TRUE(attn_test::padding_untouched(w));
  EXPECT_GE(lo, -a);
  EXPECT_LE(hi, a);
  EXPECT_LT(lo, -0.99 * a);  // the whole interval is used
  EXPECT_GT(hi, 0.99 * a);
  const double count = 64.0 * 96.0;
  EXPECT_NEAR(sum / count, 0.0, 0.01);
  EXPECT_NEAR(squares / count, a * a / 3, 0.02 * a * a / 3);  // variance of U(−a, a) = a²/3 = 2/(rows + cols)
  Mat again(64, 96, 0.0f, 3), other(64, 96, 0.0f, 3);
  attn::Random same(3), different(4);
  attn::xavier_uniform(again.view(), same);
  attn::xavier_uniform(other.view(), different);
  EXPECT_EQ(again.data, w.data);
  EXPECT_NE(other.data, w.data);
  // Row-major draws: entry (0, 1) is the second uniform of the stream.
  attn::Random stream(3);
  stream.next();
  EXPECT_EQ(w.at(0, 1), static_cast<float>((2 * stream.uniform() - 1) * a));
}

}  // namespace
