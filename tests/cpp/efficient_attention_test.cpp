// The efficient attention variants (local, linear, Linformer) against plain
// float64 references at every size in sizes() (below, at, above and multiples
// of the vector width), with padded (strided) views; plus the identities that
// tie them to full attention and the statuses they return for bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "attention.h"
#include "linear_attention.h"
#include "linformer_attention.h"
#include "local_attention.h"
#include "reference.h"
#include "test_util.h"

namespace {

using attn::Status;
using attn_test::Mat;
using attn_test::Rng;

struct Widths {
  std::size_t d, d_v;
};
constexpr Widths kWidths[] = {{4, 4}, {5, 3}, {17, 8}, {64, 65}};
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kAtol = 2e-6, kRtol = 2e-5;  // float32 kernel vs float64 reference, |v| <= 1

std::string label(const char* name, std::size_t n, Widths w) {
  return std::string(name) + " n=" + std::to_string(n) + " d=" + std::to_string(w.d) + " d_v=" + std::to_string(w.d_v);
}

// A dense float buffer seen as a matrix, for the weights outputs (n×n, n×p).
attn::ConstMatrixView as_matrix(const std::vector<float>& buffer, std::size_t rows, std::size_t cols) {
  return attn::dense(buffer.data(), rows, cols);
}

::testing::AssertionResult rows_sum_to_one(const std::vector<float>& w, std::size_t n, std::size_t m) {
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) sum += w[i * m + j];
    if (std::fabs(sum - 1.0) > 1e-5) return ::testing::AssertionFailure() << "row " << i << " sums to " << sum;
  }
  return ::testing::AssertionSuccess();
}

// ---- references the shared reference.h does not have

// The local window as a boolean matrix: |i − j| < w, and j <= i when causal.
ref::Visibility band(std::size_t n, std::size_t window, bool causal) {
  ref::Visibility vis(n, std::vector<bool>(n, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) vis[i][j] = (i > j ? i - j : j - i) < window && (!causal || j <= i);
  return vis;
}

// Linear attention written from the formula a_ij = φ(q_i)·φ(k_j) / Σ_j φ(q_i)·φ(k_j).
struct LinearRef {
  ref::MatD weights, output;
};
LinearRef ref_linear(const ref::MatD& q, const ref::MatD& k, const ref::MatD& v, bool causal) {
  const auto phi = [](double x) { return x > 0.0 ? x + 1.0 : std::exp(x); };
  ref::MatD a(q.rows, k.rows, 0.0);
  for (std::size_t i = 0; i < q.rows; ++i) {
    const std::size_t end = causal ? i + 1 : k.rows;
    double sum = 0.0;
    for (std::size_t j = 0; j < end; ++j) {
      for (std::size_t t = 0; t < q.cols; ++t) a.at(i, j) += phi(q.at(i, t)) * phi(k.at(j, t));
      sum += a.at(i, j);
    }
    for (std::size_t j = 0; j < end; ++j) a.at(i, j) = sum > 0.0 ? a.at(i, j) / sum : 0.0;
  }
  return {a, ref::matmul(a, v)};
}

// Linformer: the projections K' = E K, V' = F V rounded to float32 once (as
// the kernel holds them), then full softmax attention against the p rows.
ref::Attention ref_linformer(const Mat& q, const Mat& k, const Mat& v, const Mat& e, const Mat& f, double scale) {
  const auto rounded = [](ref::MatD m) {
    for (double& x : m.data) x = static_cast<float>(x);
    return m;
  };
  const ref::MatD k_proj = rounded(ref::matmul(e.to_double(), k.to_double()));
  const ref::MatD v_proj = rounded(ref::matmul(f.to_double(), v.to_double()));
  return ref::dot_product_attention(q.to_double(), k_proj, v_proj, ref::all_visible(q.rows, e.rows), scale);
}

// ---- local attention

TEST(EfficientLocalAttention, MatchesFloat64Reference) {
  for (std::size_t n : attn_test::sizes())
    for (Widths w : kWidths)
      for (std::size_t window : {1u, 2u, 3u, 5u, 17u, 64u, 1000u})
        for (bool causal : {false, true}) {
          const std::string what = label("local", n, w) + " window=" + std::to_string(window) +
                                   (causal ? " causal" : "");
          SCOPED_TRACE(what);
          Rng rng(attn_test::seed_for(n, w.d, window, causal));
          const Mat q = attn_test::random_mat(n, w.d, rng, -1.0f, 1.0f, 3);
          const Mat k = attn_test::random_mat(n, w.d, rng, -1.0f, 1.0f, 1);
          const Mat v = attn_test::random_mat(n, w.d_v, rng, -1.0f, 1.0f, 2);
          const float scale = attn::default_scale(w.d);
          Mat out(n, w.d_v, attn_test::kSentinel, 2), out_traced(n, w.d_v);
          std::vector<float> weights(n * n, kNaN);
          ASSERT_EQ(attn::local_attention(q.cview(), k.cview(), v.cview(), window, causal, scale, out.view(), nullptr),
                    Status::ok);
          ASSERT_EQ(attn::local_attention(q.cview(), k.cview(), v.cview(), window, causal, scale, out_traced.view(),
                                          weights.data()),
                    Status::ok);
          const ref::Attention ref =
              ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), band(n, window, causal), scale);
          EXPECT_TRUE(attn_test::all_close(out.cview(), ref.output, kAtol, kRtol));
          EXPECT_TRUE(attn_test::all_close(as_matrix(weights, n, n), ref.weights, kAtol, kRtol));
          EXPECT_TRUE(attn_test::padding_untouched(out));
          EXPECT_TRUE(attn_test::all_close(out_traced.cview(), out.to_double(), 0.0, 0.0)) << "tracing changed it";
          EXPECT_TRUE(rows_sum_to_one(weights, n, n));
          for (std::size_t i = 0; i < n; ++i) {  // outside the window: exactly 0
            for (std::size_t j = 0; j < n; ++j) {
              if (ref.weights.at(i, j) == 0.0) {
                EXPECT_EQ(weights[i * n + j], 0.0f) << "(" << i << "," << j << ")";
              }
            }
          }
        }
}

TEST(EfficientLocalAttention, WindowCoveringTheSequenceIsFullAttention) {
  const Widths w{8, 5};
  for (std::size_t n : attn_test::sizes())
    for (bool causal : {false, true})
      for (std::size_t window : {n, n + 1, std::numeric_limits<std::size_t>::max()}) {
        SCOPED_TRACE(label("local vs full", n, w) + " window=" + std::to_string(window) + (causal ? " causal" : ""));
        Rng rng(attn_test::seed_for(n, causal, 0, 12));
        const Mat q = attn_test::random_mat(n, w.d, rng), k = attn_test::random_mat(n, w.d, rng);
        const Mat v = attn_test::random_mat(n, w.d_v, rng);
        const float scale = attn::default_scale(w.d);
        Mat out(n, w.d_v), full_out(n, w.d_v), full_weights(n, n);
        std::vector<float> weights(n * n, kNaN);
        ASSERT_EQ(
            attn::local_attention(q.cview(), k.cview(), v.cview(), window, causal, scale, out.view(), weights.data()),
            Status::ok);
        const attn::Mask mask = causal ? attn::Mask::causal() : attn::Mask{};
        ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mask, scale, full_weights.view(),
                                                     full_out.view()),
                  Status::ok);
        EXPECT_TRUE(attn_test::all_close(out.cview(), full_out.to_double(), 1e-6, 1e-5));
        EXPECT_TRUE(attn_test::all_close(as_matrix(weights, n, n), full_weights.to_double(), 1e-6, 1e-5));
      }
}

// Scores far beyond exp's float range (up to ~280) across several blocks of
// 64 keys, so the running max rises from block to block.
TEST(EfficientLocalAttention, LargeScoresStayFiniteAndAccurate) {
  Rng rng(13);
  const std::size_t n = 200, d = 8, d_v = 6, window = 150;
  const Mat q = attn_test::random_mat(n, d, rng, -10.0f, 10.0f), k = attn_test::random_mat(n, d, rng, -10.0f, 10.0f);
  const Mat v = attn_test::random_mat(n, d_v, rng);
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "not causal");
    const float scale = attn::default_scale(d);
    Mat out(n, d_v);
    ASSERT_EQ(attn::local_attention(q.cview(), k.cview(), v.cview(), window, causal, scale, out.view(), nullptr),
              Status::ok);
    const ref::Attention ref =
        ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), band(n, window, causal), scale);
    EXPECT_TRUE(attn_test::all_close(out.cview(), ref.output, 5e-4, 1e-3));  // scores ~280 carry float error ~1e-5
  }
}

// A NaN planted in key/value row 20 reaches exactly the queries whose window
// holds key 20: the kernel never reads a key outside a window.
TEST(EfficientLocalAttention, NeverReadsKeysOutsideTheWindow) {
  Rng rng(14);
  const std::size_t n = 40, d = 5, d_v = 3, window = 3, planted = 20;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(n, d, rng);
  const Mat v = attn_test::random_mat(n, d_v, rng);
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "not causal");
    const ref::Attention clean =
        ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), band(n, window, causal), 0.5);
    Mat k_nan = k, v_nan = v;
    for (std::size_t a = 0; a < d; ++a) k_nan.at(planted, a) = kNaN;
    for (std::size_t t = 0; t < d_v; ++t) v_nan.at(planted, t) = kNaN;
    Mat out(n, d_v);
    ASSERT_EQ(attn::local_attention(q.cview(), k_nan.cview(), v_nan.cview(), window, causal, 0.5f, out.view(), nullptr),
              Status::ok);
    for (std::size_t i = 0; i < n; ++i) {
      const bool sees = (causal ? i >= planted : i + window > planted) && i < planted + window;
      for (std::size_t t = 0; t < d_v; ++t) {
        if (sees) {
          EXPECT_TRUE(std::isnan(out.at(i, t))) << "row " << i;
        } else {
          EXPECT_NEAR(out.at(i, t), clean.output.at(i, t), 1e-5) << "row " << i;
        }
      }
    }
  }
}

// Q, K, V and the output as column blocks of wider matrices (one head's slice).
TEST(EfficientLocalAttention, ColumnSlicesOfWiderMatrices) {
  Rng rng(15);
  const std::size_t n = 17, d = 5, d_v = 6;
  const Mat qkv = attn_test::random_mat(n, 2 * d + d_v, rng);
  Mat out_wide(n, 10, attn_test::kSentinel);
  const attn::MatrixView out = attn::column_slice(out_wide.view(), 2, d_v);
  ASSERT_EQ(attn::local_attention(attn::column_slice(qkv.cview(), 0, d), attn::column_slice(qkv.cview(), d, d),
                                  attn::column_slice(qkv.cview(), 2 * d, d_v), 4, false, 0.4f, out, nullptr),
            Status::ok);
  const ref::MatD all = qkv.to_double();
  const ref::Attention ref = ref::dot_product_attention(ref::columns(all, 0, d), ref::columns(all, d, d),
                                                        ref::columns(all, 2 * d, d_v), band(n, 4, false), 0.4f);
  EXPECT_TRUE(attn_test::all_close(out, ref.output, kAtol, kRtol));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t t : {0u, 1u, 8u, 9u}) EXPECT_EQ(out_wide.at(i, t), attn_test::kSentinel) << "wrote outside";
}

TEST(EfficientLocalAttention, RejectsBadShapesAndWindow) {
  const Mat q(4, 3), k(4, 3), v(4, 2), k5(5, 3), k_wide(4, 4), v5(5, 2);
  Mat out(4, 2), out_short(3, 2), out_wide(4, 3);
  const auto call = [&](const Mat& kk, const Mat& vv, Mat& o, std::size_t window) {
    return attn::local_attention(q.cview(), kk.cview(), vv.cview(), window, false, 1.0f, o.view(), nullptr);
  };
  EXPECT_EQ(call(k5, v5, out, 2), Status::shape_mismatch);  // K, V with 5 rows, Q with 4
  EXPECT_EQ(call(k, v5, out, 2), Status::shape_mismatch);
  EXPECT_EQ(call(k_wide, v, out, 2), Status::shape_mismatch);
  EXPECT_EQ(call(k, v, out_short, 2), Status::shape_mismatch);
  EXPECT_EQ(call(k, v, out_wide, 2), Status::shape_mismatch);
  EXPECT_EQ(call(k, v, out, 0), Status::bad_argument);
  EXPECT_EQ(call(k, v, out, 1), Status::ok);
  const Mat q0(0, 3), k0(0, 3), v0(0, 2);
  Mat out0(0, 2);
  EXPECT_EQ(attn::local_attention(q0.cview(), k0.cview(), v0.cview(), 8, true, 1.0f, out0.view(), nullptr),
            Status::ok);
}

// ---- linear attention

std::vector<float> linear_scratch(std::size_t d, std::size_t d_v) {
  return std::vector<float>(attn::linear_attention_scratch_size(d, d_v), kNaN);  // contents must not matter
}

TEST(EfficientLinearAttention, MatchesFloat64Reference) {
  for (std::size_t n : attn_test::sizes())
    for (Widths w : kWidths)
      for (bool causal : {false, true}) {
        SCOPED_TRACE(label("linear", n, w) + (causal ? " causal" : ""));
        Rng rng(attn_test::seed_for(n, w.d, causal, 21));
        const Mat q = attn_test::random_mat(n, w.d, rng, -2.0f, 2.0f, 1);
        const Mat k = attn_test::random_mat(n, w.d, rng, -2.0f, 2.0f, 3);
        const Mat v = attn_test::random_mat(n, w.d_v, rng, -1.0f, 1.0f, 2);
        std::vector<float> scratch = linear_scratch(w.d, w.d_v);
        Mat out(n, w.d_v, attn_test::kSentinel, 1), out_traced(n, w.d_v);
        std::vector<float> weights(n * n, kNaN);
        ASSERT_EQ(attn::linear_attention(q.cview(), k.cview(), v.cview(), causal, out.view(), scratch.data(), nullptr),
                  Status::ok);
        scratch = linear_scratch(w.d, w.d_v);
        ASSERT_EQ(attn::linear_attention(q.cview(), k.cview(), v.cview(), causal, out_traced.view(), scratch.data(),
                                         weights.data()),
                  Status::ok);
        const LinearRef ref = ref_linear(q.to_double(), k.to_double(), v.to_double(), causal);
        EXPECT_TRUE(attn_test::all_close(out.cview(), ref.output, kAtol, kRtol));
        EXPECT_TRUE(attn_test::all_close(as_matrix(weights, n, n), ref.weights, kAtol, kRtol));
        EXPECT_TRUE(attn_test::padding_untouched(out));
        EXPECT_TRUE(attn_test::all_close(out_traced.cview(), out.to_double(), 0.0, 0.0)) << "tracing changed it";
        EXPECT_TRUE(rows_sum_to_one(weights, n, n));
        if (causal) {
          for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = i + 1; j < n; ++j) EXPECT_EQ(weights[i * n + j], 0.0f);
          }
        }
      }
}

TEST(EfficientLinearAttention, CrossAttentionWithMoreKeysThanQueries) {
  Rng rng(22);
  const std::size_t n = 5, m = 17, d = 6, d_v = 9;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, d_v, rng);
  std::vector<float> scratch = linear_scratch(d, d_v);
  Mat out(n, d_v);
  std::vector<float> weights(n * m, kNaN);
  ASSERT_EQ(
      attn::linear_attention(q.cview(), k.cview(), v.cview(), false, out.view(), scratch.data(), weights.data()),
      Status::ok);
  const LinearRef ref = ref_linear(q.to_double(), k.to_double(), v.to_double(), false);
  EXPECT_TRUE(attn_test::all_close(out.cview(), ref.output, kAtol, kRtol));
  EXPECT_TRUE(attn_test::all_close(as_matrix(weights, n, m), ref.weights, kAtol, kRtol));
}

// Causal row i is non-causal attention of query i over keys 0..i: the prefix
// sums are exactly the state after the first i + 1 keys (bit for bit).
TEST(EfficientLinearAttention, CausalRowIsNonCausalOverThePrefix) {
  Rng rng(23);
  const std::size_t n = 17, d = 8, d_v = 5;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(n, d, rng);
  const Mat v = attn_test::random_mat(n, d_v, rng);
  std::vector<float> scratch = linear_scratch(d, d_v);
  Mat causal_out(n, d_v), full_out(n, d_v);
  ASSERT_EQ(attn::linear_attention(q.cview(), k.cview(), v.cview(), true, causal_out.view(), scratch.data(), nullptr),
            Status::ok);
  ASSERT_EQ(attn::linear_attention(q.cview(), k.cview(), v.cview(), false, full_out.view(), scratch.data(), nullptr),
            Status::ok);
  for (std::size_t i = 0; i < n; ++i) {
    Mat prefix_out(1, d_v);
    ASSERT_EQ(attn::linear_attention({q.ptr() + i * d, 1, d, d}, attn::dense(k.ptr(), i + 1, d),
                                     attn::dense(v.ptr(), i + 1, d_v), false, prefix_out.view(), scratch.data(),
                                     nullptr),
              Status::ok);
    for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(causal_out.at(i, t), prefix_out.at(0, t)) << "row " << i;
  }
  // the last query sees every key either way; the first sees only key 0 when causal
  for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(causal_out.at(n - 1, t), full_out.at(n - 1, t));
  for (std::size_t t = 0; t < d_v; ++t) EXPECT_FLOAT_EQ(causal_out.at(0, t), v.at(0, t));
  EXPECT_NE(causal_out.data, full_out.data);
}

// φ(x) = x + 1 for large x: no exp, so no overflow. Large negative x does
// not underflow the result (features are relative to the largest input).
TEST(EfficientLinearAttention, LargeInputsAndUnderflow) {
  Rng rng(24);
  const std::size_t n = 65, d = 8, d_v = 4;
  Mat q = attn_test::random_mat(n, d, rng, -50.0f, 50.0f), k = attn_test::random_mat(n, d, rng, -50.0f, 50.0f);
  const Mat v = attn_test::random_mat(n, d_v, rng);
  std::vector<float> scratch = linear_scratch(d, d_v);
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "not causal");
    Mat out(n, d_v);
    ASSERT_EQ(attn::linear_attention(q.cview(), k.cview(), v.cview(), causal, out.view(), scratch.data(), nullptr),
              Status::ok);
    EXPECT_TRUE(
        attn_test::all_close(out.cview(), ref_linear(q.to_double(), k.to_double(), v.to_double(), causal).output,
                             1e-5, 1e-4));
  }
  // φ(q_3) = e^-200 underflows in float, yet the ratio φ(q)ᵀS / φ(q)ᵀz is well
  // defined: the features are taken relative to the row's largest input, so
  // row 3 still matches the float64 reference and its weights sum to 1.
  for (std::size_t a = 0; a < d; ++a) q.at(3, a) = -200.0f;
  Mat out(n, d_v);
  std::vector<float> weights(n * n, kNaN);
  ASSERT_EQ(attn::linear_attention(q.cview(), k.cview(), v.cview(), false, out.view(), scratch.data(), weights.data()),
            Status::ok);
  const LinearRef ref = ref_linear(q.to_double(), k.to_double(), v.to_double(), false);
  EXPECT_TRUE(attn_test::all_close(out.cview(), ref.output, 1e-5, 1e-4));
  double row_sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) row_sum += weights[3 * n + j];
  EXPECT_NEAR(row_sum, 1.0, 1e-5);
  for (float x : out.data) EXPECT_TRUE(std::isfinite(x));
}

// Keys at FLT_MAX: φ(k) = FLT_MAX, so the sums S and z pass float32's range
// after two keys (they are kept in double). Every key has the same features,
// so every weight of a causal row is 1/(i + 1) and the output is the mean of
// the first i + 1 values.
TEST(EfficientLinearAttention, KeysAtFloatMaxDoNotOverflowTheSums) {
  const std::size_t n = 6, d = 3, d_v = 2;
  Mat q(n, d), k(n, d), v(n, d_v);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t a = 0; a < d; ++a) {
      q.at(i, a) = 0.5f * static_cast<float>(a);
      k.at(i, a) = std::numeric_limits<float>::max();
    }
    v.at(i, 0) = 1.0f + static_cast<float>(i);
    v.at(i, 1) = 1.19e-27f;
  }
  std::vector<float> scratch = linear_scratch(d, d_v);
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "not causal");
    Mat out(n, d_v);
    ASSERT_EQ(attn::linear_attention(q.cview(), k.cview(), v.cview(), causal, out.view(), scratch.data(), nullptr),
              Status::ok);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t seen = causal ? i + 1 : n;
      const double mean = 1.0 + (static_cast<double>(seen) - 1.0) / 2.0;  // of 1, 2, …, seen
      EXPECT_NEAR(out.at(i, 0), mean, 1e-6 * mean) << "row " << i;
      EXPECT_NEAR(out.at(i, 1), 1.19e-27, 1e-33) << "row " << i;
    }
  }
}

TEST(EfficientLinearAttention, RejectsBadShapesAndScratch) {
  const Mat q(4, 3), k(4, 3), v(4, 2), k5(5, 3), v5(5, 2), k_wide(4, 4);
  Mat out(4, 2), out_wide(4, 3);
  std::vector<float> scratch = linear_scratch(3, 2);
  float* s = scratch.data();
  const auto call = [&](const Mat& qq, const Mat& kk, const Mat& vv, bool causal, Mat& o, float* sc) {
    return attn::linear_attention(qq.cview(), kk.cview(), vv.cview(), causal, o.view(), sc, nullptr);
  };
  EXPECT_EQ(call(q, k_wide, v, false, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(q, k5, v, false, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(q, k, v, false, out_wide, s), Status::shape_mismatch);
  EXPECT_EQ(call(q, k5, v5, true, out, s), Status::shape_mismatch);  // causal needs m = n
  EXPECT_EQ(call(q, k5, v5, false, out, s), Status::ok);
  EXPECT_EQ(call(q, k, v, false, out, nullptr), Status::bad_argument);
  // n = 0 is fine; m = 0 (no keys) gives zero rows
  const Mat q0(0, 3), k0(0, 3), v0(0, 2);
  Mat out0(0, 2), out_no_keys(4, 2, kNaN);
  EXPECT_EQ(call(q0, k0, v0, true, out0, s), Status::ok);
  EXPECT_EQ(call(q, k0, v0, false, out_no_keys, s), Status::ok);
  for (float x : out_no_keys.data) EXPECT_EQ(x, 0.0f);
}

// ---- Linformer

std::vector<float> linformer_scratch(std::size_t p, std::size_t d, std::size_t d_v) {
  return std::vector<float>(attn::linformer_attention_scratch_size(p, d, d_v), kNaN);
}

TEST(EfficientLinformerAttention, MatchesFloat64Reference) {
  for (std::size_t n : attn_test::sizes())
    for (Widths w : kWidths)
      for (std::size_t p : {1u, 3u, 4u, 5u, 17u}) {
        SCOPED_TRACE(label("linformer", n, w) + " p=" + std::to_string(p));
        Rng rng(attn_test::seed_for(n, w.d, p, 31));
        const Mat q = attn_test::random_mat(n, w.d, rng, -1.0f, 1.0f, 2);
        const Mat k = attn_test::random_mat(n, w.d, rng, -1.0f, 1.0f, 1);
        const Mat v = attn_test::random_mat(n, w.d_v, rng, -1.0f, 1.0f, 3);
        const float proj = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
        const Mat e = attn_test::random_mat(p, n, rng, -proj, proj, 1), f = attn_test::random_mat(p, n, rng, -proj, proj);
        const float scale = attn::default_scale(w.d);
        std::vector<float> scratch = linformer_scratch(p, w.d, w.d_v), weights(n * p, kNaN);
        Mat out(n, w.d_v, attn_test::kSentinel, 2), out_traced(n, w.d_v);
        ASSERT_EQ(attn::linformer_attention(q.cview(), k.cview(), v.cview(), e.cview(), f.cview(), scale, out.view(),
                                            scratch.data(), nullptr),
                  Status::ok);
        ASSERT_EQ(attn::linformer_attention(q.cview(), k.cview(), v.cview(), e.cview(), f.cview(), scale,
                                            out_traced.view(), scratch.data(), weights.data()),
                  Status::ok);
        const ref::Attention ref = ref_linformer(q, k, v, e, f, scale);
        EXPECT_TRUE(attn_test::all_close(out.cview(), ref.output, kAtol, kRtol));
        EXPECT_TRUE(attn_test::all_close(as_matrix(weights, n, p), ref.weights, kAtol, kRtol));
        EXPECT_TRUE(attn_test::padding_untouched(out));
        EXPECT_TRUE(attn_test::all_close(out_traced.cview(), out.to_double(), 0.0, 0.0)) << "tracing changed it";
        EXPECT_TRUE(rows_sum_to_one(weights, n, p));
      }
}

TEST(EfficientLinformerAttention, IdentityProjectionIsFullAttention) {
  const Widths w{17, 8};
  for (std::size_t n : attn_test::sizes()) {
    SCOPED_TRACE(label("linformer identity", n, w));
    Rng rng(attn_test::seed_for(n, 0, 0, 32));
    const Mat q = attn_test::random_mat(n, w.d, rng), k = attn_test::random_mat(n, w.d, rng);
    const Mat v = attn_test::random_mat(n, w.d_v, rng);
    Mat eye(n, n);
    for (std::size_t i = 0; i < n; ++i) eye.at(i, i) = 1.0f;
    const float scale = attn::default_scale(w.d);
    std::vector<float> scratch = linformer_scratch(n, w.d, w.d_v), weights(n * n, kNaN);
    Mat out(n, w.d_v), full_out(n, w.d_v), full_weights(n, n);
    ASSERT_EQ(attn::linformer_attention(q.cview(), k.cview(), v.cview(), eye.cview(), eye.cview(), scale, out.view(),
                                        scratch.data(), weights.data()),
              Status::ok);
    ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), attn::Mask{}, scale,
                                                 full_weights.view(), full_out.view()),
              Status::ok);
    EXPECT_TRUE(attn_test::all_close(out.cview(), full_out.to_double(), 1e-6, 1e-5));
    EXPECT_TRUE(attn_test::all_close(as_matrix(weights, n, n), full_weights.to_double(), 1e-6, 1e-5));
  }
}

TEST(EfficientLinformerAttention, CrossAttentionAndLargeScores) {
  Rng rng(33);
  const std::size_t n = 5, m = 65, d = 8, d_v = 7, p = 9;
  const Mat q = attn_test::random_mat(n, d, rng, -10.0f, 10.0f), k = attn_test::random_mat(m, d, rng, -10.0f, 10.0f);
  const Mat v = attn_test::random_mat(m, d_v, rng);
  const Mat e = attn_test::random_mat(p, m, rng), f = attn_test::random_mat(p, m, rng);  // unscaled: scores in hundreds
  std::vector<float> scratch = linformer_scratch(p, d, d_v);
  Mat out(n, d_v);
  const float scale = attn::default_scale(d);
  ASSERT_EQ(attn::linformer_attention(q.cview(), k.cview(), v.cview(), e.cview(), f.cview(), scale, out.view(),
                                      scratch.data(), nullptr),
            Status::ok);
  EXPECT_TRUE(attn_test::all_close(out.cview(), ref_linformer(q, k, v, e, f, scale).output, 1e-3, 1e-3));
}

TEST(EfficientLinformerAttention, RejectsBadShapesAndArguments) {
  const Mat q(4, 3), k(6, 3), v(6, 2), e(2, 6), f(2, 6);
  const Mat k_wide(6, 4), v5(5, 2), e_short(2, 5), f3(3, 6), e0(0, 6), f0(0, 6);
  Mat out(4, 2), out_wide(4, 3);
  std::vector<float> scratch = linformer_scratch(3, 4, 2);
  const auto call = [&](const Mat& qq, const Mat& kk, const Mat& vv, const Mat& ee, const Mat& ff, Mat& o, float* s) {
    return attn::linformer_attention(qq.cview(), kk.cview(), vv.cview(), ee.cview(), ff.cview(), 1.0f, o.view(), s,
                                     nullptr);
  };
  float* s = scratch.data();
  EXPECT_EQ(call(q, k, v, e, f, out, s), Status::ok);
  EXPECT_EQ(call(q, k_wide, v, e, f, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(q, k, v5, e, f, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(q, k, v, e_short, f, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(q, k, v, e, f3, out, s), Status::shape_mismatch);  // E and F must share p
  EXPECT_EQ(call(q, k, v, e, f, out_wide, s), Status::shape_mismatch);
  EXPECT_EQ(call(q, k, v, e0, f0, out, s), Status::bad_argument);  // p = 0
  EXPECT_EQ(call(q, k, v, e, f, out, nullptr), Status::bad_argument);
  const Mat q0(0, 3);
  Mat out0(0, 2);
  EXPECT_EQ(call(q0, k, v, e, f, out0, s), Status::ok);
}

}  // namespace
