// The efficient attention variants (local, linear, Linformer) against plain
// float64 references, at sizes below, at, above and at multiples of the
// vector width; plus the identities that tie them to full attention and the
// statuses they return for bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attention.h"
#include "linear_attention.h"
#include "linformer_attention.h"
#include "local_attention.h"

namespace {

using attn::ConstMatrixView;
using attn::MatrixView;
using attn::Status;

constexpr std::size_t kSizes[] = {1, 3, 4, 5, 8, 17, 64, 65};
struct Widths {
  std::size_t d, d_v;
};
constexpr Widths kWidths[] = {{4, 4}, {5, 3}, {17, 8}, {64, 65}};
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---- test data: a fixed-seed generator (splitmix64), dense float matrices

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // uniform in [-1, 1)
  float uniform() { return static_cast<float>(static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0); }

 private:
  std::uint64_t state_;
};

struct Mat {
  std::size_t rows = 0, cols = 0;
  std::vector<float> data;
  Mat(std::size_t r, std::size_t c, float fill = 0.0f) : rows(r), cols(c), data(r * c, fill) {}
  float& at(std::size_t i, std::size_t j) { return data[i * cols + j]; }
  float at(std::size_t i, std::size_t j) const { return data[i * cols + j]; }
  MatrixView view() { return attn::dense(data.data(), rows, cols); }
  ConstMatrixView view() const { return attn::dense(data.data(), rows, cols); }
};

Mat random_mat(std::size_t rows, std::size_t cols, Rng& rng, float amplitude = 1.0f) {
  Mat m(rows, cols);
  for (float& x : m.data) x = amplitude * rng.uniform();
  return m;
}

Mat identity(std::size_t n) {
  Mat m(n, n);
  for (std::size_t i = 0; i < n; ++i) m.at(i, i) = 1.0f;
  return m;
}

// ---- float64 references, written the plain way

struct Ref {
  std::vector<double> out;      // n×d_v
  std::vector<double> weights;  // n×m
};

// softmax(scale · Q Kᵀ) V over the keys visible(i, j) allows.
template <class Visible>
Ref ref_softmax_attention(const Mat& q, const Mat& k, const Mat& v, double scale, Visible visible) {
  const std::size_t n = q.rows, m = k.rows, d_v = v.cols;
  Ref r{std::vector<double>(n * d_v, 0.0), std::vector<double>(n * m, 0.0)};
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> s(m, -INFINITY);
    double row_max = -INFINITY;
    for (std::size_t j = 0; j < m; ++j) {
      if (!visible(i, j)) continue;
      double dot = 0.0;
      for (std::size_t a = 0; a < q.cols; ++a) dot += static_cast<double>(q.at(i, a)) * k.at(j, a);
      s[j] = scale * dot;
      row_max = std::max(row_max, s[j]);
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) sum += visible(i, j) ? std::exp(s[j] - row_max) : 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      if (!visible(i, j)) continue;
      const double w = std::exp(s[j] - row_max) / sum;
      r.weights[i * m + j] = w;
      for (std::size_t t = 0; t < d_v; ++t) r.out[i * d_v + t] += w * v.at(j, t);
    }
  }
  return r;
}

Ref ref_local(const Mat& q, const Mat& k, const Mat& v, std::size_t window, bool causal, double scale) {
  return ref_softmax_attention(q, k, v, scale, [&](std::size_t i, std::size_t j) {
    const std::size_t dist = i > j ? i - j : j - i;
    return dist < window && (!causal || j <= i);
  });
}

double phi(double x) { return x > 0.0 ? x + 1.0 : std::exp(x); }

Ref ref_linear(const Mat& q, const Mat& k, const Mat& v, bool causal) {
  const std::size_t n = q.rows, m = k.rows, d_v = v.cols;
  Ref r{std::vector<double>(n * d_v, 0.0), std::vector<double>(n * m, 0.0)};
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t end = causal ? i + 1 : m;
    double sum = 0.0;
    for (std::size_t j = 0; j < end; ++j) {
      double a = 0.0;
      for (std::size_t t = 0; t < q.cols; ++t) a += phi(q.at(i, t)) * phi(k.at(j, t));
      r.weights[i * m + j] = a;
      sum += a;
    }
    for (std::size_t j = 0; j < end; ++j) {
      r.weights[i * m + j] /= sum;
      for (std::size_t t = 0; t < d_v; ++t) r.out[i * d_v + t] += r.weights[i * m + j] * v.at(j, t);
    }
  }
  return r;
}

Mat ref_product(const Mat& a, const Mat& b) {  // rounded to float once, from double sums
  Mat c(a.rows, b.cols);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < b.cols; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < a.cols; ++p) sum += static_cast<double>(a.at(i, p)) * b.at(p, j);
      c.at(i, j) = static_cast<float>(sum);
    }
  return c;
}

Ref ref_linformer(const Mat& q, const Mat& k, const Mat& v, const Mat& e, const Mat& f, double scale) {
  const Mat k_proj = ref_product(e, k), v_proj = ref_product(f, v);
  return ref_softmax_attention(q, k_proj, v_proj, scale, [](std::size_t, std::size_t) { return true; });
}

// |actual − expected| <= atol + rtol·|expected| everywhere, reporting the first miss.
void expect_close(const std::vector<float>& actual, const std::vector<double>& expected, double atol, double rtol,
                  const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t t = 0; t < actual.size(); ++t) {
    const double err = std::abs(static_cast<double>(actual[t]) - expected[t]);
    if (!(err <= atol + rtol * std::abs(expected[t]))) {
      ADD_FAILURE() << what << ": entry " << t << " is " << actual[t] << ", expected " << expected[t];
      return;
    }
  }
}

std::vector<double> widen(const std::vector<float>& x) { return {x.begin(), x.end()}; }

void expect_rows_sum_to_one(const std::vector<float>& w, std::size_t n, std::size_t m, const std::string& what) {
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) sum += w[i * m + j];
    EXPECT_NEAR(sum, 1.0, 1e-5) << what << ", row " << i;
  }
}

std::string label(const char* name, std::size_t n, Widths w) {
  return std::string(name) + " n=" + std::to_string(n) + " d=" + std::to_string(w.d) + " d_v=" + std::to_string(w.d_v);
}

constexpr double kAtol = 2e-6, kRtol = 2e-5;

// ---- local attention

TEST(EfficientLocalAttention, MatchesFloat64Reference) {
  Rng rng(11);
  for (std::size_t n : kSizes)
    for (Widths w : kWidths)
      for (std::size_t window : {1u, 2u, 3u, 5u, 17u, 64u, 1000u})
        for (bool causal : {false, true}) {
          const Mat q = random_mat(n, w.d, rng), k = random_mat(n, w.d, rng), v = random_mat(n, w.d_v, rng);
          const float scale = attn::default_scale(w.d);
          const std::string what = label("local", n, w) + " window=" + std::to_string(window) +
                                   (causal ? " causal" : "");
          Mat out(n, w.d_v), out_traced(n, w.d_v), weights(n, n, kNaN);
          ASSERT_EQ(attn::local_attention(q.view(), k.view(), v.view(), window, causal, scale, out.view(), nullptr),
                    Status::ok);
          ASSERT_EQ(attn::local_attention(q.view(), k.view(), v.view(), window, causal, scale, out_traced.view(),
                                          weights.data.data()),
                    Status::ok);
          const Ref ref = ref_local(q, k, v, window, causal, scale);
          expect_close(out.data, ref.out, kAtol, kRtol, what + " output");
          expect_close(weights.data, ref.weights, kAtol, kRtol, what + " weights");
          EXPECT_EQ(out.data, out_traced.data) << what << ": tracing changed the output";
          expect_rows_sum_to_one(weights.data, n, n, what);
          for (std::size_t i = 0; i < n; ++i) {  // outside the window: exactly 0
            for (std::size_t j = 0; j < n; ++j) {
              if (ref.weights[i * n + j] == 0.0) {
                EXPECT_EQ(weights.at(i, j), 0.0f) << what << " (" << i << "," << j << ")";
              }
            }
          }
        }
}

TEST(EfficientLocalAttention, WindowCoveringTheSequenceIsFullAttention) {
  Rng rng(12);
  for (std::size_t n : kSizes)
    for (bool causal : {false, true})
      for (std::size_t window : {n, n + 1, std::numeric_limits<std::size_t>::max()}) {
        const Widths w{8, 5};
        const Mat q = random_mat(n, w.d, rng), k = random_mat(n, w.d, rng), v = random_mat(n, w.d_v, rng);
        const float scale = attn::default_scale(w.d);
        Mat out(n, w.d_v), weights(n, n), full_out(n, w.d_v), full_weights(n, n);
        ASSERT_EQ(attn::local_attention(q.view(), k.view(), v.view(), window, causal, scale, out.view(),
                                        weights.data.data()),
                  Status::ok);
        const attn::Mask mask = causal ? attn::Mask::causal() : attn::Mask{};
        ASSERT_EQ(attn::scaled_dot_product_attention(q.view(), k.view(), v.view(), mask, scale, full_weights.view(),
                                                     full_out.view()),
                  Status::ok);
        const std::string what = label("local vs full", n, w) + " window=" + std::to_string(window) +
                                 (causal ? " causal" : "");
        expect_close(out.data, widen(full_out.data), 1e-6, 1e-5, what + " output");
        expect_close(weights.data, widen(full_weights.data), 1e-6, 1e-5, what + " weights");
      }
}

// Scores far beyond exp's float range (up to ~280) across several blocks of
// 64 keys, so the running max rises from block to block.
TEST(EfficientLocalAttention, LargeScoresStayFiniteAndAccurate) {
  Rng rng(13);
  const std::size_t n = 200, d = 8, d_v = 6, window = 150;
  const Mat q = random_mat(n, d, rng, 10.0f), k = random_mat(n, d, rng, 10.0f), v = random_mat(n, d_v, rng);
  for (bool causal : {false, true}) {
    const float scale = attn::default_scale(d);
    Mat out(n, d_v);
    ASSERT_EQ(attn::local_attention(q.view(), k.view(), v.view(), window, causal, scale, out.view(), nullptr),
              Status::ok);
    for (float x : out.data) ASSERT_TRUE(std::isfinite(x));
    expect_close(out.data, ref_local(q, k, v, window, causal, scale).out, 5e-4, 1e-3,
                 causal ? "large causal" : "large");
  }
}

// A NaN planted in key/value row 20 reaches exactly the queries whose window
// holds key 20: the kernel never reads a key outside a window.
TEST(EfficientLocalAttention, NeverReadsKeysOutsideTheWindow) {
  Rng rng(14);
  const std::size_t n = 40, d = 5, d_v = 3, window = 3, planted = 20;
  Mat q = random_mat(n, d, rng), k = random_mat(n, d, rng), v = random_mat(n, d_v, rng);
  for (bool causal : {false, true}) {
    const Ref clean = ref_local(q, k, v, window, causal, 0.5);
    Mat k_nan = k, v_nan = v;
    for (std::size_t a = 0; a < d; ++a) k_nan.at(planted, a) = kNaN;
    for (std::size_t t = 0; t < d_v; ++t) v_nan.at(planted, t) = kNaN;
    Mat out(n, d_v);
    ASSERT_EQ(attn::local_attention(q.view(), k_nan.view(), v_nan.view(), window, causal, 0.5f, out.view(), nullptr),
              Status::ok);
    for (std::size_t i = 0; i < n; ++i) {
      const bool sees = (causal ? i >= planted : i + window > planted) && i < planted + window;
      for (std::size_t t = 0; t < d_v; ++t) {
        if (sees) {
          EXPECT_TRUE(std::isnan(out.at(i, t))) << "row " << i;
        } else {
          EXPECT_NEAR(out.at(i, t), clean.out[i * d_v + t], 1e-5) << "row " << i << (causal ? " causal" : "");
        }
      }
    }
  }
}

// Q, K, V and the output as column blocks of wider matrices (one head's slice).
TEST(EfficientLocalAttention, StridedViews) {
  Rng rng(15);
  const std::size_t n = 17, d = 5, d_v = 6, wide = 16;
  const Mat qkv = random_mat(n, wide, rng);
  const ConstMatrixView all = qkv.view();
  Mat q(n, d), k(n, d), v(n, d_v);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t a = 0; a < d; ++a) q.at(i, a) = qkv.at(i, a), k.at(i, a) = qkv.at(i, d + a);
    for (std::size_t t = 0; t < d_v; ++t) v.at(i, t) = qkv.at(i, 2 * d + t);
  }
  Mat out_wide(n, 10, -7.0f);
  const MatrixView out = attn::column_slice(out_wide.view(), 2, d_v);
  ASSERT_EQ(attn::local_attention(attn::column_slice(all, 0, d), attn::column_slice(all, d, d),
                                  attn::column_slice(all, 2 * d, d_v), 4, false, 0.4f, out, nullptr),
            Status::ok);
  const Ref ref = ref_local(q, k, v, 4, false, 0.4f);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t t = 0; t < d_v; ++t) EXPECT_NEAR(out.at(i, t), ref.out[i * d_v + t], 1e-5);
    for (std::size_t t : {0u, 1u, 8u, 9u}) EXPECT_EQ(out_wide.at(i, t), -7.0f) << "wrote outside the slice";
  }
}

TEST(EfficientLocalAttention, RejectsBadShapesAndWindow) {
  const Mat q(4, 3), k(4, 3), v(4, 2), k5(5, 3), k_wide(4, 4), v5(5, 2);
  Mat out(4, 2), out_short(3, 2), out_wide(4, 3);
  const auto call = [&](const Mat& kk, const Mat& vv, Mat& o, std::size_t window) {
    return attn::local_attention(q.view(), kk.view(), vv.view(), window, false, 1.0f, o.view(), nullptr);
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
  EXPECT_EQ(attn::local_attention(q0.view(), k0.view(), v0.view(), 8, true, 1.0f, out0.view(), nullptr), Status::ok);
}

// ---- linear attention

std::vector<float> linear_scratch(std::size_t d, std::size_t d_v) {
  return std::vector<float>(attn::linear_attention_scratch_size(d, d_v), kNaN);  // contents must not matter
}

TEST(EfficientLinearAttention, MatchesFloat64Reference) {
  Rng rng(21);
  for (std::size_t n : kSizes)
    for (Widths w : kWidths)
      for (bool causal : {false, true}) {
        const Mat q = random_mat(n, w.d, rng, 2.0f), k = random_mat(n, w.d, rng, 2.0f), v = random_mat(n, w.d_v, rng);
        const std::string what = label("linear", n, w) + (causal ? " causal" : "");
        std::vector<float> scratch = linear_scratch(w.d, w.d_v);
        Mat out(n, w.d_v), out_traced(n, w.d_v), weights(n, n, kNaN);
        ASSERT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), causal, out.view(), scratch.data(), nullptr),
                  Status::ok);
        scratch = linear_scratch(w.d, w.d_v);
        ASSERT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), causal, out_traced.view(), scratch.data(),
                                         weights.data.data()),
                  Status::ok);
        const Ref ref = ref_linear(q, k, v, causal);
        expect_close(out.data, ref.out, kAtol, kRtol, what + " output");
        expect_close(weights.data, ref.weights, kAtol, kRtol, what + " weights");
        EXPECT_EQ(out.data, out_traced.data) << what << ": tracing changed the output";
        expect_rows_sum_to_one(weights.data, n, n, what);
        if (causal) {
          for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = i + 1; j < n; ++j) EXPECT_EQ(weights.at(i, j), 0.0f) << what;
          }
        }
      }
}

TEST(EfficientLinearAttention, CrossAttentionWithMoreKeysThanQueries) {
  Rng rng(22);
  const std::size_t n = 5, m = 17, d = 6, d_v = 9;
  const Mat q = random_mat(n, d, rng), k = random_mat(m, d, rng), v = random_mat(m, d_v, rng);
  std::vector<float> scratch = linear_scratch(d, d_v);
  Mat out(n, d_v), weights(n, m);
  ASSERT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), false, out.view(), scratch.data(),
                                   weights.data.data()),
            Status::ok);
  const Ref ref = ref_linear(q, k, v, false);
  expect_close(out.data, ref.out, kAtol, kRtol, "linear cross output");
  expect_close(weights.data, ref.weights, kAtol, kRtol, "linear cross weights");
}

// Causal row i is non-causal attention of query i over keys 0..i: the prefix
// sums are exactly the state after the first i + 1 keys (bit for bit).
TEST(EfficientLinearAttention, CausalRowIsNonCausalOverThePrefix) {
  Rng rng(23);
  const std::size_t n = 17, d = 8, d_v = 5;
  const Mat q = random_mat(n, d, rng), k = random_mat(n, d, rng), v = random_mat(n, d_v, rng);
  std::vector<float> scratch = linear_scratch(d, d_v);
  Mat causal_out(n, d_v), full_out(n, d_v);
  ASSERT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), true, causal_out.view(), scratch.data(), nullptr),
            Status::ok);
  ASSERT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), false, full_out.view(), scratch.data(), nullptr),
            Status::ok);
  for (std::size_t i = 0; i < n; ++i) {
    Mat prefix_out(1, d_v);
    ASSERT_EQ(attn::linear_attention({q.data.data() + i * d, 1, d, d}, attn::dense(k.data.data(), i + 1, d),
                                     attn::dense(v.data.data(), i + 1, d_v), false, prefix_out.view(), scratch.data(),
                                     nullptr),
              Status::ok);
    for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(causal_out.at(i, t), prefix_out.at(0, t)) << "row " << i;
  }
  // the last query sees every key either way; the first sees only key 0 when causal
  for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(causal_out.at(n - 1, t), full_out.at(n - 1, t));
  for (std::size_t t = 0; t < d_v; ++t) EXPECT_FLOAT_EQ(causal_out.at(0, t), v.at(0, t));
  EXPECT_NE(causal_out.data, full_out.data);
}

// φ(x) = x + 1 for large x: no exp, so no overflow; large negative x underflow
// to a zero denominator, which gives a defined zero row.
TEST(EfficientLinearAttention, LargeInputsAndUnderflow) {
  Rng rng(24);
  const std::size_t n = 65, d = 8, d_v = 4;
  Mat q = random_mat(n, d, rng, 50.0f), k = random_mat(n, d, rng, 50.0f), v = random_mat(n, d_v, rng);
  std::vector<float> scratch = linear_scratch(d, d_v);
  for (bool causal : {false, true}) {
    Mat out(n, d_v);
    ASSERT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), causal, out.view(), scratch.data(), nullptr),
              Status::ok);
    expect_close(out.data, ref_linear(q, k, v, causal).out, 1e-5, 1e-4, causal ? "large causal" : "large");
  }
  for (std::size_t a = 0; a < d; ++a) q.at(3, a) = -200.0f;  // φ(q_3) = e^-200 = 0 in float
  Mat out(n, d_v), weights(n, n);
  ASSERT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), false, out.view(), scratch.data(), weights.data.data()),
            Status::ok);
  for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(out.at(3, t), 0.0f);
  for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(weights.at(3, j), 0.0f);
  for (float x : out.data) EXPECT_TRUE(std::isfinite(x));
}

TEST(EfficientLinearAttention, RejectsBadShapesAndScratch) {
  const Mat q(4, 3), k(4, 3), v(4, 2), k5(5, 3), v5(5, 2), k_wide(4, 4);
  Mat out(4, 2), out_wide(4, 3);
  std::vector<float> scratch = linear_scratch(3, 2);
  float* s = scratch.data();
  EXPECT_EQ(attn::linear_attention(q.view(), k_wide.view(), v.view(), false, out.view(), s, nullptr),
            Status::shape_mismatch);
  EXPECT_EQ(attn::linear_attention(q.view(), k5.view(), v.view(), false, out.view(), s, nullptr),
            Status::shape_mismatch);
  EXPECT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), false, out_wide.view(), s, nullptr),
            Status::shape_mismatch);
  EXPECT_EQ(attn::linear_attention(q.view(), k5.view(), v5.view(), true, out.view(), s, nullptr),
            Status::shape_mismatch);  // causal needs m = n
  EXPECT_EQ(attn::linear_attention(q.view(), k5.view(), v5.view(), false, out.view(), s, nullptr), Status::ok);
  EXPECT_EQ(attn::linear_attention(q.view(), k.view(), v.view(), false, out.view(), nullptr, nullptr),
            Status::bad_argument);
  // n = 0 is fine; m = 0 (no keys) gives zero rows
  const Mat q0(0, 3), k0(0, 3), v0(0, 2);
  Mat out0(0, 2);
  EXPECT_EQ(attn::linear_attention(q0.view(), k0.view(), v0.view(), true, out0.view(), s, nullptr), Status::ok);
  Mat out_nokeys(4, 2, kNaN);
  EXPECT_EQ(attn::linear_attention(q.view(), k0.view(), v0.view(), false, out_nokeys.view(), s, nullptr), Status::ok);
  for (float x : out_nokeys.data) EXPECT_EQ(x, 0.0f);
}

// ---- Linformer

std::vector<float> linformer_scratch(std::size_t p, std::size_t d, std::size_t d_v) {
  return std::vector<float>(attn::linformer_attention_scratch_size(p, d, d_v), kNaN);
}

TEST(EfficientLinformerAttention, MatchesFloat64Reference) {
  Rng rng(31);
  for (std::size_t n : kSizes)
    for (Widths w : kWidths)
      for (std::size_t p : {1u, 3u, 4u, 5u, 17u}) {
        const Mat q = random_mat(n, w.d, rng), k = random_mat(n, w.d, rng), v = random_mat(n, w.d_v, rng);
        const float proj = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
        const Mat e = random_mat(p, n, rng, proj), f = random_mat(p, n, rng, proj);
        const float scale = attn::default_scale(w.d);
        const std::string what = label("linformer", n, w) + " p=" + std::to_string(p);
        std::vector<float> scratch = linformer_scratch(p, w.d, w.d_v);
        Mat out(n, w.d_v), out_traced(n, w.d_v), weights(n, p, kNaN);
        ASSERT_EQ(attn::linformer_attention(q.view(), k.view(), v.view(), e.view(), f.view(), scale, out.view(),
                                            scratch.data(), nullptr),
                  Status::ok);
        ASSERT_EQ(attn::linformer_attention(q.view(), k.view(), v.view(), e.view(), f.view(), scale,
                                            out_traced.view(), scratch.data(), weights.data.data()),
                  Status::ok);
        const Ref ref = ref_linformer(q, k, v, e, f, scale);
        expect_close(out.data, ref.out, kAtol, kRtol, what + " output");
        expect_close(weights.data, ref.weights, kAtol, kRtol, what + " weights");
        EXPECT_EQ(out.data, out_traced.data) << what << ": tracing changed the output";
        expect_rows_sum_to_one(weights.data, n, p, what);
      }
}

TEST(EfficientLinformerAttention, IdentityProjectionIsFullAttention) {
  Rng rng(32);
  for (std::size_t n : kSizes) {
    const Widths w{17, 8};
    const Mat q = random_mat(n, w.d, rng), k = random_mat(n, w.d, rng), v = random_mat(n, w.d_v, rng);
    const Mat eye = identity(n);
    const float scale = attn::default_scale(w.d);
    std::vector<float> scratch = linformer_scratch(n, w.d, w.d_v);
    Mat out(n, w.d_v), weights(n, n), full_out(n, w.d_v), full_weights(n, n);
    ASSERT_EQ(attn::linformer_attention(q.view(), k.view(), v.view(), eye.view(), eye.view(), scale, out.view(),
                                        scratch.data(), weights.data.data()),
              Status::ok);
    ASSERT_EQ(attn::scaled_dot_product_attention(q.view(), k.view(), v.view(), attn::Mask{}, scale,
                                                 full_weights.view(), full_out.view()),
              Status::ok);
    expect_close(out.data, widen(full_out.data), 1e-6, 1e-5, label("linformer identity", n, w) + " output");
    expect_close(weights.data, widen(full_weights.data), 1e-6, 1e-5, label("linformer identity", n, w) + " weights");
  }
}

TEST(EfficientLinformerAttention, CrossAttentionAndLargeScores) {
  Rng rng(33);
  const std::size_t n = 5, m = 65, d = 8, d_v = 7, p = 9;
  const Mat q = random_mat(n, d, rng, 10.0f), k = random_mat(m, d, rng, 10.0f), v = random_mat(m, d_v, rng);
  const Mat e = random_mat(p, m, rng), f = random_mat(p, m, rng);  // unscaled: projected scores reach hundreds
  std::vector<float> scratch = linformer_scratch(p, d, d_v);
  Mat out(n, d_v);
  ASSERT_EQ(attn::linformer_attention(q.view(), k.view(), v.view(), e.view(), f.view(), attn::default_scale(d),
                                      out.view(), scratch.data(), nullptr),
            Status::ok);
  for (float x : out.data) ASSERT_TRUE(std::isfinite(x));
  expect_close(out.data, ref_linformer(q, k, v, e, f, attn::default_scale(d)).out, 1e-3, 1e-3, "linformer large");
}

TEST(EfficientLinformerAttention, RejectsBadShapesAndArguments) {
  const Mat q(4, 3), k(6, 3), v(6, 2), e(2, 6), f(2, 6);
  const Mat k_wide(6, 4), v5(5, 2), e_short(2, 5), f3(3, 6), e0(0, 6), f0(0, 6);
  Mat out(4, 2), out_wide(4, 3);
  std::vector<float> scratch = linformer_scratch(3, 4, 2);
  const auto call = [&](const Mat& kk, const Mat& vv, const Mat& ee, const Mat& ff, Mat& o, float* s) {
    return attn::linformer_attention(q.view(), kk.view(), vv.view(), ee.view(), ff.view(), 1.0f, o.view(), s,
                                     nullptr);
  };
  float* s = scratch.data();
  EXPECT_EQ(call(k, v, e, f, out, s), Status::ok);
  EXPECT_EQ(call(k_wide, v, e, f, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(k, v5, e, f, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(k, v, e_short, f, out, s), Status::shape_mismatch);
  EXPECT_EQ(call(k, v, e, f3, out, s), Status::shape_mismatch);  // E and F must share p
  EXPECT_EQ(call(k, v, e, f, out_wide, s), Status::shape_mismatch);
  EXPECT_EQ(call(k, v, e0, f0, out, s), Status::bad_argument);  // p = 0
  EXPECT_EQ(call(k, v, e, f, out, nullptr), Status::bad_argument);
  const Mat q0(0, 3);
  Mat out0(0, 2);
  EXPECT_EQ(attn::linformer_attention(q0.view(), k.view(), v.view(), e.view(), f.view(), 1.0f, out0.view(), s,
                                      nullptr),
            Status::ok);
}

}  // namespace
