// Parametric attention pooling: the leave-one-out loss against a plain
// float64 formula, its gradient against central finite differences, the
// fitted model against Nadaraya-Watson with bandwidth 1/w, gradient descent
// lowering the loss on Dive into Deep Learning's data, and every Status path.
#include "parametric_pooling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernel_regression.h"
#include "test_util.h"

namespace {

using attn::Status;
using attn_test::Rng;

struct Data {
  std::vector<float> x, y;
};

// D2L 10.2: 50 sorted x in [0, 5), y = 2 sin x + x^0.8 + N(0, 0.5²)-ish noise.
Data d2l_data(std::size_t m, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  for (std::size_t i = 0; i < m; ++i) d.x.push_back(rng.uniform(0.0f, 5.0f));
  std::sort(d.x.begin(), d.x.end());
  for (float x : d.x) d.y.push_back(2.0f * std::sin(x) + std::pow(x, 0.8f) + rng.uniform(-0.5f, 0.5f));
  return d;
}

// ½ Σ_i (Σ_{j≠i} softmax_j(−((x_i − x_j) w)²/2) y_j − y_i)², straight from the definition, in long
// double (on x86 its exponent reaches e^−11356, where a double's kernel of a far key is 0 from e^−745).
double reference_loss(const Data& d, double w) {
  long double loss = 0.0;
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    long double num = 0.0, den = 0.0;
    for (std::size_t j = 0; j < d.x.size(); ++j) {
      if (j == i) continue;
      const long double k = std::exp(-std::pow((static_cast<long double>(d.x[i]) - d.x[j]) * w, 2) / 2.0L);
      num += k * d.y[j];
      den += k;
    }
    loss += std::pow(num / den - d.y[i], 2) / 2.0;
  }
  return static_cast<double>(loss);
}

TEST(ParametricPooling, LossMatchesTheDefinition) {
  for (std::size_t m : {2u, 3u, 10u, 50u})
    for (double w : {0.0, 0.3, 1.0, 2.5, -1.7}) {
      const Data d = d2l_data(m, 3 + m);
      const double got = attn::pooling_loss(d.x.data(), d.y.data(), m, w, nullptr);
      EXPECT_NEAR(got, reference_loss(d, w), 1e-9 * (1.0 + reference_loss(d, w))) << "m=" << m << " w=" << w;
    }
}

TEST(ParametricPooling, GradientMatchesFiniteDifferences) {
  for (std::size_t m : {3u, 17u, 50u})
    for (double w : {0.1, 0.8, 1.0, 3.0, -2.0}) {
      const Data d = d2l_data(m, 11 * m);
      double grad = 0.0;
      attn::pooling_loss(d.x.data(), d.y.data(), m, w, &grad);
      const double h = 1e-5;
      const double fd = (attn::pooling_loss(d.x.data(), d.y.data(), m, w + h, nullptr) -
                         attn::pooling_loss(d.x.data(), d.y.data(), m, w - h, nullptr)) /
                        (2 * h);
      EXPECT_NEAR(grad, fd, 1e-6 * (1.0 + std::fabs(fd))) << "m=" << m << " w=" << w;
    }
}

TEST(ParametricPooling, GradientIsZeroAtWZeroAndForTwoPoints) {
  const Data d = d2l_data(20, 5);
  double grad = 1.0;
  attn::pooling_loss(d.x.data(), d.y.data(), 20, 0.0, &grad);
  EXPECT_EQ(grad, 0.0);  // ds/dw = −w u vanishes at w = 0: the plain average is a stationary point
  const Data two = d2l_data(2, 6);
  attn::pooling_loss(two.x.data(), two.y.data(), 2, 1.3, &grad);
  EXPECT_EQ(grad, 0.0);  // one key per query: its weight is 1 whatever w is
}

// The limit w → ±∞: each point predicted by the mean y of its nearest other points, written plainly.
double nearest_neighbour_loss(const Data& d) {
  double loss = 0.0;
  for (std::size_t i = 0; i < d.x.size(); ++i) {
    double nearest = std::numeric_limits<double>::infinity(), sum = 0.0, count = 0.0;
    for (std::size_t j = 0; j < d.x.size(); ++j) {
      if (j == i) continue;
      const double u = std::pow(static_cast<double>(d.x[i]) - d.x[j], 2);
      if (u < nearest) nearest = u, sum = 0.0, count = 0.0;
      if (u == nearest) sum += d.y[j], count += 1.0;
    }
    loss += std::pow(sum / count - d.y[i], 2) / 2.0;
  }
  return loss;
}

TEST(ParametricPooling, LossIsFiniteForAnyWAndTendsToNearestNeighbours) {
  Data d = d2l_data(40, 77);
  d.x[7] = d.x[8];  // two equal keys: at w = ∞ a query next to them averages both
  const double nn = nearest_neighbour_loss(d), inf = std::numeric_limits<double>::infinity();
  // w²u overflows from |w| ≈ 1.3e154 on: the loss used to be NaN there (exp(−∞ − (−∞))).
  for (double w : {1e4, 1e8, 1e154, 1e200, 1e308, inf, -1e300, -inf}) {
    double grad = 1.0;
    const double got = attn::pooling_loss(d.x.data(), d.y.data(), 40, w, &grad);
    EXPECT_NEAR(got, nn, 1e-12 * (1.0 + nn)) << "w=" << w;
    EXPECT_TRUE(std::isfinite(grad)) << "w=" << w << " gradient " << grad;
    if (std::fabs(w) > 1e150) {
      EXPECT_EQ(grad, 0.0) << "w=" << w;  // only the nearest keys have weight
    }
  }
  // Between the two regimes the loss still matches the definition and the gradient its finite differences.
  for (double w : {20.0, 60.0}) {
    double grad = 0.0;
    EXPECT_NEAR(attn::pooling_loss(d.x.data(), d.y.data(), 40, w, &grad), reference_loss(d, w), 1e-9 * (1.0 + nn)) << "w=" << w;
    const double h = 1e-5 * w;
    const double fd = (attn::pooling_loss(d.x.data(), d.y.data(), 40, w + h, nullptr) -
                       attn::pooling_loss(d.x.data(), d.y.data(), 40, w - h, nullptr)) /
                      (2 * h);
    EXPECT_NEAR(grad, fd, 1e-6 * (1.0 + std::fabs(fd))) << "w=" << w;
  }
}

TEST(ParametricPooling, AStepThatThrowsWFarOutKeepsEveryLossFinite) {
  // Found by fuzz_parametric_pooling (tests/fuzz/regressions/parametric_pooling/): a learning rate of
  // 121 throws w far out in one step (to about −1.4e7 now); the old core's losses were 116187.2, NaN, NaN.
  const Data d{{120.96875f, 120.96875f, 120.71875f, 120.96875f, 120.96875f, 120.96875f, -121.03125f, 121.96875f, 120.96875f, 120.99609375f},
               {119.0f, 124.96484375f, 124.9140625f, 123.984375f, -128.0f, -128.0f, -128.0f, -128.0f, -128.0f, -128.0f}};
  std::vector<float> losses(3);
  double w = 0.0;
  ASSERT_EQ(attn::fit_parametric_pooling(d.x.data(), d.y.data(), 10, 0.25, 120.96875, 3, losses.data(), &w), Status::ok);
  EXPECT_NEAR(losses[0], reference_loss(d, 0.25), 1e-6 * reference_loss(d, 0.25));
  for (std::size_t e = 1; e < 3; ++e) EXPECT_NEAR(losses[e], nearest_neighbour_loss(d), 1e-5 * nearest_neighbour_loss(d)) << "epoch " << e;
  EXPECT_GT(std::fabs(w), 1e3);  // far out: the nearest-neighbour limit, to float32 precision
}

TEST(ParametricPooling, PredictionIsNadarayaWatsonWithBandwidthOneOverW) {
  const Data d = d2l_data(30, 8);
  const double w = 1.9;
  // Leave point 0 out: its prediction from the other 29 points.
  std::vector<float> keys(d.x.begin() + 1, d.x.end()), values(d.y.begin() + 1, d.y.end());
  float prediction = 0.0f;
  std::vector<float> weights(29);
  ASSERT_EQ(attn::nadaraya_watson(keys.data(), values.data(), 29, &d.x[0], 1, attn::Kernel::gaussian,
                                  static_cast<float>(1.0 / w), &prediction, attn::dense(weights.data(), 1, 29)),
            Status::ok);
  // The same weighted average, written from the definition with w.
  double num = 0.0, den = 0.0;
  for (std::size_t j = 1; j < 30; ++j) {
    const double k = std::exp(-std::pow((static_cast<double>(d.x[0]) - d.x[j]) * w, 2) / 2.0);
    num += k * d.y[j];
    den += k;
  }
  EXPECT_NEAR(prediction, num / den, 1e-5);
}

TEST(ParametricPooling, GradientDescentLowersTheLossOnD2LData) {
  const Data d = d2l_data(50, 2026);
  const std::size_t epochs = 40;
  std::vector<float> losses(epochs);
  double w = 0.0;
  ASSERT_EQ(attn::fit_parametric_pooling(d.x.data(), d.y.data(), 50, 0.5, 0.05, epochs, losses.data(), &w), Status::ok);
  EXPECT_NEAR(losses[0], reference_loss(d, 0.5), 1e-4 * reference_loss(d, 0.5));
  for (std::size_t e = 1; e < epochs; ++e) EXPECT_LE(losses[e], losses[e - 1] * (1 + 1e-6)) << "epoch " << e;
  EXPECT_LT(losses[epochs - 1], 0.8 * losses[0]);
  EXPECT_GT(w, 0.5);  // the kernel narrows: the fit follows the data more closely
  EXPECT_LT(reference_loss(d, w), losses[epochs - 1] * (1 + 1e-6));
}

TEST(ParametricPooling, ZeroEpochsKeepsW) {
  const Data d = d2l_data(5, 1);
  double w = 0.0;
  ASSERT_EQ(attn::fit_parametric_pooling(d.x.data(), d.y.data(), 5, 1.25, 0.5, 0, nullptr, &w), Status::ok);
  EXPECT_EQ(w, 1.25);
}

TEST(ParametricPooling, RejectsBadArguments) {
  const Data d = d2l_data(4, 1);
  std::vector<float> losses(3);
  double w = 0.0;
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(attn::fit_parametric_pooling(d.x.data(), d.y.data(), 1, 1.0, 0.5, 3, losses.data(), &w), Status::shape_mismatch);
  EXPECT_EQ(attn::fit_parametric_pooling(d.x.data(), d.y.data(), 0, 1.0, 0.5, 3, losses.data(), &w), Status::shape_mismatch);
  for (double lr : {-0.1, inf, std::nan("")})
    EXPECT_EQ(attn::fit_parametric_pooling(d.x.data(), d.y.data(), 4, 1.0, lr, 3, losses.data(), &w), Status::bad_argument);
  for (double w0 : {inf, -inf, std::nan("")})
    EXPECT_EQ(attn::fit_parametric_pooling(d.x.data(), d.y.data(), 4, w0, 0.5, 3, losses.data(), &w), Status::bad_argument);
}

}  // namespace
