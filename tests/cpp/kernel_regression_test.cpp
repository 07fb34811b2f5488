// Nadaraya-Watson kernel regression (attention pooling without parameters):
// weights and predictions against the float64 reference for every kernel at
// every size in sizes(); properties (rows sum to 1, compact kernels exactly 0
// outside their window, queries with no neighbour get zero weights and the
// prediction 0); every Status path.
#include "kernel_regression.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace {

using attn::Kernel;
using attn::Status;
using attn_test::kSentinel;
using attn_test::Mat;
using attn_test::Rng;

struct KernelPair {
  Kernel core;
  ref::Kernel reference;
  const char* name;
};
const KernelPair kKernels[] = {{Kernel::gaussian, ref::Kernel::gaussian, "gaussian"},
                               {Kernel::boxcar, ref::Kernel::boxcar, "boxcar"},
                               {Kernel::epanechnikov, ref::Kernel::epanechnikov, "epanechnikov"},
                               {Kernel::constant, ref::Kernel::constant, "constant"}};

// Dive into Deep Learning's data: x_train sorted in [0, 5), y = 2 sin x + x^0.8 + noise.
struct Data {
  std::vector<float> x_train, y_train, x_query;
};

Data make_data(std::size_t n, std::size_t m, Rng& rng) {
  Data d;
  for (std::size_t j = 0; j < m; ++j) d.x_train.push_back(rng.uniform(0.0f, 5.0f));
  std::sort(d.x_train.begin(), d.x_train.end());
  for (float x : d.x_train)
    d.y_train.push_back(static_cast<float>(2.0 * std::sin(x) + std::pow(x, 0.8)) + rng.uniform(-0.5f, 0.5f));
  for (std::size_t i = 0; i < n; ++i) d.x_query.push_back(-0.5f + 6.0f * static_cast<float>(i) / static_cast<float>(n));
  return d;
}

struct Result {
  std::vector<float> predictions;
  Mat weights;
  Status status;
};

Result run(const Data& d, Kernel kernel, float bandwidth) {
  const std::size_t n = d.x_query.size(), m = d.x_train.size();
  Result r{std::vector<float>(n, kSentinel), Mat(n, m, kSentinel), Status::ok};
  r.status = attn::nadaraya_watson(d.x_train.data(), d.y_train.data(), m, d.x_query.data(), n, kernel, bandwidth,
                                   r.predictions.data(), r.weights.view());
  return r;
}

class KernelRegressionSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(KernelRegressionSizes, MatchesReferenceForEveryKernel) {
  const auto [n, m] = GetParam();
  for (const KernelPair& k : kKernels) {
    for (float bandwidth : {0.25f, 0.7f, 3.0f}) {
      SCOPED_TRACE(std::string(k.name) + ", bandwidth " + std::to_string(bandwidth));
      Rng rng(attn_test::seed_for(n, m, static_cast<std::size_t>(k.core), 90));
      const Data d = make_data(n, m, rng);
      const Result r = run(d, k.core, bandwidth);
      ASSERT_EQ(r.status, Status::ok);
      const ref::Regression e = ref::nadaraya_watson(d.x_train, d.y_train, d.x_query, k.reference, bandwidth);
      EXPECT_TRUE(attn_test::all_close(r.weights.cview(), e.weights, 1e-6, 2e-5));
      EXPECT_TRUE(attn_test::all_close(r.predictions, e.predictions, 1e-5, 1e-5));
      const float y_min = *std::min_element(d.y_train.begin(), d.y_train.end());
      const float y_max = *std::max_element(d.y_train.begin(), d.y_train.end());
      for (std::size_t i = 0; i < n; ++i) {
        double sum = 0.0;
        bool any = false;
        for (std::size_t j = 0; j < m; ++j) {
          const float w = r.weights.at(i, j);
          ASSERT_GE(w, 0.0f);
          if (e.weights.at(i, j) == 0.0) {
            ASSERT_EQ(w, 0.0f) << "outside the window at " << i << "," << j;
          }
          any = any || w > 0.0f;
          sum += w;
        }
        if (any) {
          EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
          // a weighted average stays within the targets' range
          EXPECT_GE(r.predictions[i], y_min - 1e-5f) << i;
          EXPECT_LE(r.predictions[i], y_max + 1e-5f) << i;
        } else {
          EXPECT_EQ(r.predictions[i], 0.0f) << "query " << i << " with no neighbour";
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, KernelRegressionSizes, attn_test::size_pairs(), attn_test::pair_name);

TEST(KernelRegression, KnownValues) {
  const Data d{{0.0f, 1.0f, 3.0f}, {0.0f, 1.0f, 10.0f}, {0.5f, 2.0f}};
  {
    // Gaussian at 0.5 with h = 1: weights ∝ e^{-1/8}, e^{-1/8}, e^{-25/8}.
    const Result r = run(d, Kernel::gaussian, 1.0f);
    const double a = std::exp(-0.125), c = std::exp(-3.125), z = 2 * a + c;
    EXPECT_NEAR(r.weights.at(0, 0), a / z, 1e-7);
    EXPECT_NEAR(r.weights.at(0, 2), c / z, 1e-7);
    EXPECT_NEAR(r.predictions[0], (a * 1.0 + c * 10.0) / z, 1e-6);
  }
  {
    // Boxcar h = 1: query 0.5 sees 0 and 1 -> 0.5; query 2 sees 1 and 3 (|u| = 1 counts) -> 5.5.
    const Result r = run(d, Kernel::boxcar, 1.0f);
    EXPECT_EQ(r.predictions[0], 0.5f);
    EXPECT_EQ(r.predictions[1], 5.5f);
    EXPECT_EQ(r.weights.at(1, 0), 0.0f);
  }
  {
    // Epanechnikov h = 2 at 0.5: K(0.25) = K(-0.25) = 0.703125, K(1.25) = 0 -> 0.5.
    const Result r = run(d, Kernel::epanechnikov, 2.0f);
    EXPECT_FLOAT_EQ(r.weights.at(0, 0), 0.5f);
    EXPECT_EQ(r.weights.at(0, 2), 0.0f);
    EXPECT_FLOAT_EQ(r.predictions[0], 0.5f);
  }
  {
    // Constant kernel: the plain average, 11/3, for every query.
    const Result r = run(d, Kernel::constant, 0.1f);
    EXPECT_FLOAT_EQ(r.predictions[0], 11.0f / 3.0f);
    EXPECT_FLOAT_EQ(r.predictions[1], 11.0f / 3.0f);
  }
}

TEST(KernelRegression, QueryWithNoNeighbourGetsZeroWeightsAndPredictionZero) {
  const Data d{{0.0f, 1.0f, 2.0f}, {5.0f, 6.0f, 7.0f}, {10.0f, 1.5f}};
  for (Kernel k : {Kernel::boxcar, Kernel::epanechnikov}) {
    const Result r = run(d, k, 0.5f);
    ASSERT_EQ(r.status, Status::ok);
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(r.weights.at(0, j), 0.0f);
    EXPECT_EQ(r.predictions[0], 0.0f);
    EXPECT_FALSE(std::isnan(r.predictions[1]));
  }
}

TEST(KernelRegression, GaussianFarQueryStaysFiniteAndPicksTheNearestPoint) {
  // exp(-u²/2) alone underflows to 0 for every point (u >= 400); the
  // normalised weights must still exist and favour the nearest point.
  const Data d{{0.0f, 1.0f, 2.0f}, {5.0f, 6.0f, 7.0f}, {42.0f, -40.0f}};
  const Result r = run(d, Kernel::gaussian, 0.1f);
  ASSERT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.weights.at(0, 2), 1.0f);
  EXPECT_EQ(r.predictions[0], 7.0f);
  EXPECT_EQ(r.weights.at(1, 0), 1.0f);
  EXPECT_EQ(r.predictions[1], 5.0f);
}

TEST(KernelRegression, NoTrainingPointsGivesZeroPredictions) {
  const Data d{{}, {}, {0.0f, 1.0f, 2.0f}};
  for (const KernelPair& k : kKernels) {
    const Result r = run(d, k.core, 1.0f);
    ASSERT_EQ(r.status, Status::ok) << k.name;
    for (float p : r.predictions) EXPECT_EQ(p, 0.0f) << k.name;
  }
}

TEST(KernelRegression, LargeBandwidthApproachesTheAverage) {
  Rng rng(91);
  const Data d = make_data(5, 17, rng);
  double mean = 0.0;
  for (float y : d.y_train) mean += y;
  mean /= 17.0;
  const Result r = run(d, Kernel::gaussian, 1e4f);
  for (float p : r.predictions) EXPECT_NEAR(p, mean, 1e-4);
}

// ---- Status paths: the right code, predictions and weights untouched

TEST(KernelRegressionStatus, BadBandwidth) {
  const Data d{{0.0f, 1.0f}, {1.0f, 2.0f}, {0.5f}};
  for (float bw : {0.0f, -0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                   -std::numeric_limits<float>::infinity()}) {
    for (const KernelPair& k : kKernels) {
      const Result r = run(d, k.core, bw);
      EXPECT_EQ(r.status, Status::bad_argument) << k.name << " bandwidth " << bw;
      EXPECT_TRUE(attn_test::untouched(r.predictions, "predictions"));
      EXPECT_TRUE(attn_test::untouched(r.weights.data, "weights"));
    }
  }
}

TEST(KernelRegressionStatus, UnknownKernel) {
  const Data d{{0.0f, 1.0f}, {1.0f, 2.0f}, {0.5f}};
  for (int k : {4, -1, 100}) {
    const Result r = run(d, static_cast<Kernel>(k), 1.0f);
    EXPECT_EQ(r.status, Status::bad_argument) << k;
    EXPECT_TRUE(attn_test::untouched(r.predictions, "predictions"));
    EXPECT_TRUE(attn_test::untouched(r.weights.data, "weights"));
  }
}

TEST(KernelRegressionStatus, WeightsOfTheWrongShape) {
  const Data d{{0.0f, 1.0f, 2.0f}, {1.0f, 2.0f, 3.0f}, {0.5f, 1.5f}};
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{2, 2}, {3, 3}, {3, 2}, {1, 3}}) {
    std::vector<float> predictions(2, kSentinel);
    Mat weights(rows, cols, kSentinel);
    EXPECT_EQ(attn::nadaraya_watson(d.x_train.data(), d.y_train.data(), 3, d.x_query.data(), 2, Kernel::gaussian, 1.0f,
                                    predictions.data(), weights.view()),
              Status::shape_mismatch)
        << rows << "x" << cols;
    EXPECT_TRUE(attn_test::untouched(predictions, "predictions"));
    EXPECT_TRUE(attn_test::untouched(weights.data, "weights"));
  }
}

}  // namespace
