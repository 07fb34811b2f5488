// Scaled dot-product, additive and single-head self-attention: every output
// and every traced intermediate against the float64 reference, for every mask
// kind, at every size in sizes() (cross-attention n ≠ m included); the
// properties and Dive into Deep Learning's known answers; every Status path.
#include "attention.h"

#include <gtest/gtest.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace {

using attn::Mask;
using attn::MaskKind;
using attn::Status;
using attn_test::kSentinel;
using attn_test::MaskCase;
using attn_test::Mat;
using attn_test::Rng;

constexpr double kWeightAtol = 2e-6, kWeightRtol = 2e-5;
constexpr double kOutAtol = 1e-5, kOutRtol = 1e-4;

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// The width paired with d for the values: a different size, so d_v ≠ d is covered.
std::size_t value_width(std::size_t d) {
  const auto& s = attn_test::sizes();
  for (std::size_t t = 0; t < s.size(); ++t)
    if (s[t] == d) return s[(t + 3) % s.size()];
  return d;
}

// Weights rows sum to 1 (or are all zero with no visible key), masked weights
// are exactly +0, and a row with no visible key has an all-zero output row.
void expect_attention_properties(const Mat& weights, const Mat& out, const ref::Visibility& vis) {
  for (std::size_t i = 0; i < weights.rows; ++i) {
    bool any = false;
    double sum = 0.0;
    for (std::size_t j = 0; j < weights.cols; ++j) {
      if (!vis[i][j]) {
        ASSERT_EQ(weights.at(i, j), 0.0f) << "masked weight " << i << "," << j;
      } else {
        any = true;
      }
      sum += weights.at(i, j);
    }
    if (any) {
      EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
    } else {
      EXPECT_EQ(sum, 0.0) << "row " << i;
      for (std::size_t j = 0; j < out.cols; ++j)
        ASSERT_EQ(out.at(i, j), 0.0f) << "fully masked output " << i << "," << j;
    }
  }
}

// ---- scaled dot-product attention

struct Traced {
  Mat scores, scaled, masked;
  attn::AttentionTrace trace;
  Traced(std::size_t n, std::size_t m) : scores(n, m, kSentinel), scaled(n, m, kSentinel), masked(n, m, kSentinel) {
    trace = {scores.ptr(), scaled.ptr(), masked.ptr()};
  }
};

class AttentionSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(AttentionSizes, ScaledDotProductMatchesReferenceWithTrace) {
  const auto [n, m] = GetParam();
  for (std::size_t d : attn_test::sizes()) {
    const std::size_t d_v = value_width(d);
    for (MaskKind kind : attn_test::all_kinds()) {
      SCOPED_TRACE("d = " + std::to_string(d) + ", d_v = " + std::to_string(d_v) + ", mask " +
                   attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(n, m, d, 30 + static_cast<std::size_t>(kind)));
      const Mat q = attn_test::random_mat(n, d, rng, -2.0f, 2.0f);
      const Mat k = attn_test::random_mat(m, d, rng, -2.0f, 2.0f, 1);
      const Mat v = attn_test::random_mat(m, d_v, rng, -1.0f, 1.0f, 2);
      const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
      const float scale = attn::default_scale(d);
      Mat weights(n, m, kSentinel), out(n, d_v, kSentinel, 1);
      Traced t(n, m);
      ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), scale, weights.view(),
                                                   out.view(), &t.trace),
                Status::ok);
      const ref::Attention r = ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), mc.vis, scale);
      const double score_atol = 4e-6 * static_cast<double>(d + 1);
      EXPECT_TRUE(attn_test::all_close(t.scores.cview(), r.scores, score_atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(t.scaled.cview(), r.scaled, score_atol, 1e-5));
      if (kind == MaskKind::none)
        EXPECT_TRUE(attn_test::untouched(t.masked.data, "masked trace without a mask"));
      else
        EXPECT_TRUE(attn_test::all_close(t.masked.cview(), r.masked, score_atol, 1e-5));
      EXPECT_TRUE(
          attn_test::all_close(weights.cview(), r.weights, kWeightAtol * static_cast<double>(d + 1), kWeightRtol));
      EXPECT_TRUE(attn_test::all_close(out.cview(), r.output, kOutAtol * static_cast<double>(d + 1), kOutRtol));
      EXPECT_TRUE(attn_test::padding_untouched(out));
      expect_attention_properties(weights, out, mc.vis);

      // Without a trace the results are the same, bit for bit.
      Mat weights2(n, m, kSentinel), out2(n, d_v, kSentinel, 1);
      ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), scale, weights2.view(),
                                                   out2.view()),
                Status::ok);
      EXPECT_EQ(weights2.data, weights.data);
      EXPECT_EQ(out2.data, out.data);
    }
  }
}

TEST_P(AttentionSizes, AdditiveMatchesReferenceWithTrace) {
  const auto [n, m] = GetParam();
  for (std::size_t h : attn_test::sizes()) {
    const std::size_t d_q = 1 + (n + 2 * h) % 6, d_k = 1 + (m + h) % 9, d_v = value_width(h);
    for (MaskKind kind : attn_test::all_kinds()) {
      SCOPED_TRACE("h = " + std::to_string(h) + ", d_q = " + std::to_string(d_q) + ", d_k = " + std::to_string(d_k) +
                   ", mask " + attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(n, m, h, 40 + static_cast<std::size_t>(kind)));
      const Mat q = attn_test::random_mat(n, d_q, rng);
      const Mat k = attn_test::random_mat(m, d_k, rng);
      const Mat v = attn_test::random_mat(m, d_v, rng, -1.0f, 1.0f, 3);
      const Mat w_q = attn_test::random_mat(d_q, h, rng), w_k = attn_test::random_mat(d_k, h, rng);
      std::vector<float> w_v(h);
      for (float& x : w_v) x = rng.uniform(-2.0f, 2.0f);
      const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
      Mat q_hidden(n, h, kSentinel), k_hidden(m, h, kSentinel), weights(n, m, kSentinel), out(n, d_v, kSentinel);
      const attn::AdditiveParams p{w_q.cview(), w_k.cview(), w_v.data(), q_hidden.view(), k_hidden.view()};
      Traced t(n, m);
      ASSERT_EQ(
          attn::additive_attention(q.cview(), k.cview(), v.cview(), p, mc.mask(), weights.view(), out.view(), &t.trace),
          Status::ok);
      const ref::Additive r = ref::additive_attention(q.to_double(), k.to_double(), v.to_double(), w_q.to_double(),
                                                      w_k.to_double(), to_double(w_v), mc.vis);
      const double atol = 4e-6 * static_cast<double>(h + d_q + d_k);
      EXPECT_TRUE(attn_test::all_close(q_hidden.cview(), r.q_hidden, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(k_hidden.cview(), r.k_hidden, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(t.scores.cview(), r.attention.scores, atol, 1e-5));
      EXPECT_TRUE(attn_test::untouched(t.scaled.data, "scaled trace (additive has no scaling step)"));
      if (kind == MaskKind::none)
        EXPECT_TRUE(attn_test::untouched(t.masked.data, "masked trace without a mask"));
      else
        EXPECT_TRUE(attn_test::all_close(t.masked.cview(), r.attention.masked, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(weights.cview(), r.attention.weights, 2.0 * atol, kWeightRtol));
      EXPECT_TRUE(attn_test::all_close(out.cview(), r.attention.output, 4.0 * atol, kOutRtol));
      expect_attention_properties(weights, out, mc.vis);
    }
  }
}

// Self-attention over n tokens of width d_model = the second size; d_k and
// d_v loop over every size.
TEST_P(AttentionSizes, SelfAttentionMatchesReferenceWithTrace) {
  const auto [n, d_model] = GetParam();
  for (std::size_t d_k : attn_test::sizes()) {
    const std::size_t d_v = value_width(d_k);
    for (MaskKind kind : attn_test::all_kinds()) {
      SCOPED_TRACE("d_k = " + std::to_string(d_k) + ", d_v = " + std::to_string(d_v) + ", mask " +
                   attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(n, d_model, d_k, 50 + static_cast<std::size_t>(kind)));
      const Mat x = attn_test::random_mat(n, d_model, rng);
      const float amp = 1.0f / std::sqrt(static_cast<float>(d_model));
      const Mat w_q = attn_test::random_mat(d_model, d_k, rng, -amp, amp);
      const Mat w_k = attn_test::random_mat(d_model, d_k, rng, -amp, amp);
      const Mat w_v = attn_test::random_mat(d_model, d_v, rng, -amp, amp);
      const MaskCase mc = attn_test::make_mask(kind, n, n, rng);
      Mat pq(n, d_k, kSentinel), pk(n, d_k, kSentinel), pv(n, d_v, kSentinel);
      Mat weights(n, n, kSentinel), out(n, d_v, kSentinel);
      Traced t(n, n);
      ASSERT_EQ(attn::self_attention(x.cview(), w_q.cview(), w_k.cview(), w_v.cview(), mc.mask(),
                                     {pq.view(), pk.view(), pv.view()}, weights.view(), out.view(), &t.trace),
                Status::ok);
      const ref::SelfAttention r =
          ref::self_attention(x.to_double(), w_q.to_double(), w_k.to_double(), w_v.to_double(), mc.vis);
      const double atol = 2e-6 * static_cast<double>(d_model + d_k + 1);
      EXPECT_TRUE(attn_test::all_close(pq.cview(), r.q, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(pk.cview(), r.k, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(pv.cview(), r.v, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(t.scores.cview(), r.attention.scores, atol, 1e-5));
      EXPECT_TRUE(attn_test::all_close(t.scaled.cview(), r.attention.scaled, atol, 1e-5));
      if (kind != MaskKind::none) {
        EXPECT_TRUE(attn_test::all_close(t.masked.cview(), r.attention.masked, atol, 1e-5));
      }
      EXPECT_TRUE(attn_test::all_close(weights.cview(), r.attention.weights, 2.0 * atol, kWeightRtol));
      EXPECT_TRUE(attn_test::all_close(out.cview(), r.attention.output, 4.0 * atol, kOutRtol));
      expect_attention_properties(weights, out, mc.vis);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AttentionSizes, attn_test::size_pairs(), attn_test::pair_name);

// ---- properties

// Permuting the tokens (rows of X) of unmasked self-attention permutes the
// output rows the same way, and the weights on both axes.
TEST(AttentionProperties, SelfAttentionIsPermutationEquivariant) {
  for (std::size_t n : {3u, 5u, 8u, 17u, 65u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const std::size_t d_model = 6, d_k = 5, d_v = 7;
    Rng rng(attn_test::seed_for(n, 0, 0, 60));
    const Mat x = attn_test::random_mat(n, d_model, rng, -2.0f, 2.0f);
    const Mat w_q = attn_test::random_mat(d_model, d_k, rng), w_k = attn_test::random_mat(d_model, d_k, rng);
    const Mat w_v = attn_test::random_mat(d_model, d_v, rng);
    std::vector<std::size_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
    Mat px(n, d_model);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d_model; ++j) px.at(i, j) = x.at(perm[i], j);

    auto run = [&](const Mat& input, Mat& weights, Mat& out) {
      Mat pq(n, d_k), pk(n, d_k), pv(n, d_v);
      ASSERT_EQ(attn::self_attention(input.cview(), w_q.cview(), w_k.cview(), w_v.cview(), Mask{},
                                     {pq.view(), pk.view(), pv.view()}, weights.view(), out.view()),
                Status::ok);
    };
    Mat w(n, n), out(n, d_v), pw(n, n), pout(n, d_v);
    run(x, w, out);
    run(px, pw, pout);
    ref::MatD expected_out(n, d_v), expected_w(n, n);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < d_v; ++j) expected_out.at(i, j) = out.at(perm[i], j);
      for (std::size_t j = 0; j < n; ++j) expected_w.at(i, j) = w.at(perm[i], perm[j]);
    }
    EXPECT_TRUE(attn_test::all_close(pout.cview(), expected_out, 1e-6, 1e-5));
    EXPECT_TRUE(attn_test::all_close(pw.cview(), expected_w, 1e-7, 1e-5));
    // ... and it is not trivially so: the output rows differ from each other.
    EXPECT_NE(out.at(0, 0), out.at(1, 0));
  }
}

// Scores of ±1e4: integer Q and K make QKᵀ exact, so the reference comparison
// is tight; naive exp(score) would overflow to infinity.
TEST(AttentionProperties, ScoresOfPlusMinus1e4StayFinite) {
  for (std::size_t m : {1u, 3u, 5u, 17u, 65u}) {
    for (MaskKind kind : attn_test::all_kinds()) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", mask " + attn_test::kind_name(kind));
      const std::size_t n = 6, d = 4, d_v = 5;
      Rng rng(attn_test::seed_for(m, static_cast<std::size_t>(kind), 0, 61));
      Mat q(n, d), k(m, d);
      for (float& x : q.data) x = std::round(rng.uniform(-100.0f, 100.0f));
      for (float& x : k.data) x = std::round(rng.uniform(-100.0f, 100.0f));
      q.at(0, 0) = 100.0f, q.at(0, 1) = q.at(0, 2) = q.at(0, 3) = 0.0f;  // row 0 scores exactly ±1e4 ...
      for (std::size_t j = 0; j < m; ++j) {
        k.at(j, 0) = j % 2 ? -100.0f : 100.0f;  // ... against keys ±100 in the first feature
      }
      const Mat v = attn_test::random_mat(m, d_v, rng);
      const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
      for (float scale : {1.0f, 0.5f}) {
        Mat weights(n, m), out(n, d_v);
        Traced t(n, m);
        ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), scale, weights.view(),
                                                     out.view(), &t.trace),
                  Status::ok);
        for (float x : weights.data) ASSERT_TRUE(std::isfinite(x));
        for (float x : out.data) ASSERT_TRUE(std::isfinite(x));
        for (float x : t.masked.data) ASSERT_FALSE(std::isnan(x));
        for (std::size_t j = 0; j < m; ++j) EXPECT_EQ(std::fabs(t.scores.at(0, j)), 1e4f) << j;
        const ref::Attention r = ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), mc.vis, scale);
        EXPECT_TRUE(attn_test::all_close(t.scores.cview(), r.scores, 0.0, 0.0));
        EXPECT_TRUE(attn_test::all_close(weights.cview(), r.weights, 1e-6, 1e-5));
        EXPECT_TRUE(attn_test::all_close(out.cview(), r.output, 1e-5, 1e-5));
        expect_attention_properties(weights, out, mc.vis);
      }
    }
  }
}

// Cross-attention with a causal mask and more queries than keys (and fewer):
// query i sees keys 0..min(i, m-1).
TEST(AttentionProperties, CausalCrossAttentionShapes) {
  for (auto [n, m] : {std::pair<std::size_t, std::size_t>{7, 3}, {3, 7}, {65, 5}, {5, 65}}) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
    Rng rng(attn_test::seed_for(n, m, 0, 62));
    const Mat q = attn_test::random_mat(n, 4, rng), k = attn_test::random_mat(m, 4, rng);
    const Mat v = attn_test::random_mat(m, 3, rng);
    Mat weights(n, m), out(n, 3);
    ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), Mask::causal(), 0.5f, weights.view(),
                                                 out.view()),
              Status::ok);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        if (j > i)
          EXPECT_EQ(weights.at(i, j), 0.0f) << i << "," << j;
        else
          EXPECT_GT(weights.at(i, j), 0.0f) << i << "," << j;
      }
    // Row 0 sees only key 0: its output is exactly V's first row.
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(out.at(0, j), v.at(0, j));
    const ref::Attention r =
        ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), ref::causal(n, m), 0.5);
    EXPECT_TRUE(attn_test::all_close(out.cview(), r.output, 1e-6, 1e-5));
  }
}

TEST(AttentionProperties, ValidLengthsZeroAndFull) {
  // Length 0 gives an all-zero row (weights and output); length m equals no mask.
  Rng rng(63);
  const std::size_t n = 4, m = 9, d = 5;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, 6, rng, 1.0f, 2.0f);  // positive: a uniform row would be nonzero
  const std::vector<std::int32_t> lens = {0, 9, 0, 9};
  Mat w(n, m), out(n, 6), w_plain(n, m), out_plain(n, 6);
  const float scale = attn::default_scale(d);
  ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), Mask::lengths(lens.data()), scale,
                                               w.view(), out.view()),
            Status::ok);
  ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), Mask{}, scale, w_plain.view(),
                                               out_plain.view()),
            Status::ok);
  for (std::size_t i : {0u, 2u}) {
    for (std::size_t j = 0; j < m; ++j) EXPECT_EQ(w.at(i, j), 0.0f);
    for (std::size_t j = 0; j < 6; ++j) EXPECT_EQ(out.at(i, j), 0.0f);
  }
  for (std::size_t i : {1u, 3u}) {
    for (std::size_t j = 0; j < m; ++j) EXPECT_EQ(w.at(i, j), w_plain.at(i, j));
    for (std::size_t j = 0; j < 6; ++j) EXPECT_EQ(out.at(i, j), out_plain.at(i, j));
  }
}

TEST(AttentionProperties, PartialTracesWriteOnlyWhatIsAsked) {
  Rng rng(64);
  const std::size_t n = 5, m = 6, d = 3;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, 2, rng);
  const float scale = attn::default_scale(d);
  const ref::Attention r =
      ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), ref::causal(n, m), scale);
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE("only trace pointer " + std::to_string(which));
    Mat buf(n, m, kSentinel), w(n, m), out(n, 2);
    attn::AttentionTrace t;
    (which == 0 ? t.scores : which == 1 ? t.scaled : t.masked) = buf.ptr();
    ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), Mask::causal(), scale, w.view(),
                                                 out.view(), &t),
              Status::ok);
    EXPECT_TRUE(attn_test::all_close(buf.cview(),
                                     which == 0   ? r.scores
                                     : which == 1 ? r.scaled
                                                  : r.masked,
                                     1e-6, 1e-5));
    EXPECT_TRUE(attn_test::all_close(out.cview(), r.output, 1e-6, 1e-5));
  }
}

TEST(AttentionProperties, OverriddenScaleOfOneIsPlainDotProduct) {
  const Mat q = Mat::filled(1, 2, {1.0f, 2.0f});
  const Mat k = Mat::filled(2, 2, {1.0f, 0.0f, 0.0f, 1.0f});  // scores 1 and 2
  const Mat v = Mat::filled(2, 1, {0.0f, 1.0f});
  Mat w(1, 2), out(1, 1);
  ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), Mask{}, 1.0f, w.view(), out.view()),
            Status::ok);
  const double w1 = std::exp(2.0) / (std::exp(1.0) + std::exp(2.0));
  EXPECT_NEAR(w.at(0, 1), w1, 1e-7);
  EXPECT_NEAR(out.at(0, 0), w1, 1e-7);
  ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), Mask{}, attn::default_scale(2),
                                               w.view(), out.view()),
            Status::ok);
  const double s = 1.0 / std::sqrt(2.0), w1s = std::exp(2.0 * s) / (std::exp(s) + std::exp(2.0 * s));
  EXPECT_NEAR(w.at(0, 1), w1s, 1e-7);
}

// ---- Dive into Deep Learning, section 11.3: keys all identical, values
// arange(40).reshape(10, 4), valid lengths 2 and 6. Every visible key scores
// the same, so each query averages the first 2 (or 6) value rows:
// [2, 3, 4, 5] and [10, 11, 12, 13].

Mat d2l_values() {
  Mat v(10, 4);
  for (std::size_t t = 0; t < 40; ++t) v.data[t] = static_cast<float>(t);
  return v;
}

void expect_d2l_answer(const Mat& weights, const Mat& out) {
  const float expected[2][4] = {{2, 3, 4, 5}, {10, 11, 12, 13}};
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 4; ++j) EXPECT_NEAR(out.at(i, j), expected[i][j], 1e-5f) << i << "," << j;
  for (std::size_t j = 0; j < 10; ++j) {
    EXPECT_FLOAT_EQ(weights.at(0, j), j < 2 ? 0.5f : 0.0f) << j;
    EXPECT_FLOAT_EQ(weights.at(1, j), j < 6 ? 1.0f / 6.0f : 0.0f) << j;
  }
}

TEST(DiveIntoDeepLearning, AdditiveAttentionKnownAnswer) {
  // queries 2×20 ~ N(0, 1)-like, keys ones 10×2, 8 hidden units (as in the book).
  Rng rng(2024);
  const Mat q = attn_test::random_mat(2, 20, rng, -2.0f, 2.0f);
  const Mat k(10, 2, 1.0f);
  const Mat v = d2l_values();
  const Mat w_q = attn_test::random_mat(20, 8, rng), w_k = attn_test::random_mat(2, 8, rng);
  std::vector<float> w_v(8);
  for (float& x : w_v) x = rng.uniform();
  const std::vector<std::int32_t> lens = {2, 6};
  Mat q_hidden(2, 8), k_hidden(10, 8), weights(2, 10), out(2, 4);
  const attn::AdditiveParams p{w_q.cview(), w_k.cview(), w_v.data(), q_hidden.view(), k_hidden.view()};
  ASSERT_EQ(attn::additive_attention(q.cview(), k.cview(), v.cview(), p, Mask::lengths(lens.data()), weights.view(),
                                     out.view()),
            Status::ok);
  expect_d2l_answer(weights, out);
}

TEST(DiveIntoDeepLearning, DotProductAttentionKnownAnswer) {
  Rng rng(2025);
  const Mat q = attn_test::random_mat(2, 2, rng, -2.0f, 2.0f);
  const Mat k(10, 2, 1.0f);
  const Mat v = d2l_values();
  const std::vector<std::int32_t> lens = {2, 6};
  Mat weights(2, 10), out(2, 4);
  ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), Mask::lengths(lens.data()),
                                               attn::default_scale(2), weights.view(), out.view()),
            Status::ok);
  expect_d2l_answer(weights, out);
}

// ---- every Status path: the right code, and nothing written to the outputs

struct ErrorBuffers {
  Mat weights, out, scores, scaled, masked;
  attn::AttentionTrace trace;
  ErrorBuffers(std::size_t wr, std::size_t wc, std::size_t orow, std::size_t oc)
      : weights(wr, wc, kSentinel),
        out(orow, oc, kSentinel),
        scores(8, 8, kSentinel),
        scaled(8, 8, kSentinel),
        masked(8, 8, kSentinel) {
    trace = {scores.ptr(), scaled.ptr(), masked.ptr()};
  }
  ::testing::AssertionResult untouched() const {
    for (const Mat* m : {&weights, &out, &scores, &scaled, &masked})
      if (auto r = attn_test::untouched(m->data, "output buffer"); !r) return r;
    return ::testing::AssertionSuccess();
  }
};

Status sdpa(const Mat& q, const Mat& k, const Mat& v, const Mask& mask, ErrorBuffers& b) {
  return attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mask, 0.5f, b.weights.view(), b.out.view(),
                                            &b.trace);
}

TEST(AttentionStatus, ScaledDotProductShapeMismatches) {
  const Mat q(3, 4, 1.0f), k(5, 4, 1.0f), v(5, 2, 1.0f);
  const Mat k_narrow(5, 3, 1.0f), v_short(4, 2, 1.0f);
  {
    ErrorBuffers b(3, 5, 3, 2);  // Q is 3×4 but K is 5×3
    EXPECT_EQ(sdpa(q, k_narrow, v, Mask{}, b), Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
  }
  {
    ErrorBuffers b(3, 5, 3, 2);  // K has 5 rows, V 4
    EXPECT_EQ(sdpa(q, k, v_short, Mask{}, b), Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
  }
  for (auto [wr, wc, orow, oc] : {std::array<std::size_t, 4>{3, 4, 3, 2}, {5, 3, 3, 2}, {3, 5, 3, 3}, {3, 5, 5, 2}}) {
    ErrorBuffers b(wr, wc, orow, oc);  // weights or output of the wrong shape
    EXPECT_EQ(sdpa(q, k, v, Mask{}, b), Status::shape_mismatch) << wr << "x" << wc << ", " << orow << "x" << oc;
    EXPECT_TRUE(b.untouched());
  }
  ErrorBuffers ok(3, 5, 3, 2);
  EXPECT_EQ(sdpa(q, k, v, Mask{}, ok), Status::ok);  // the same arguments, well shaped, succeed
  EXPECT_EQ(ok.out.at(0, 0), 1.0f);
}

TEST(AttentionStatus, ScaledDotProductBadMasks) {
  const Mat q(3, 4, 1.0f), k(5, 4, 1.0f), v(5, 2, 1.0f);
  const std::vector<std::int32_t> too_long = {1, 6, 2}, negative = {0, -1, 5};
  const std::vector<std::uint8_t> bits(15, 1);
  Mask unknown;
  unknown.kind = static_cast<MaskKind>(9);
  for (const Mask& mask :
       {Mask::lengths(too_long.data()), Mask::lengths(negative.data()), Mask::lengths(nullptr),
        Mask::matrix(bits.data(), 5, 3), Mask::matrix(bits.data(), 3, 4), Mask::matrix(nullptr, 3, 5), unknown}) {
    ErrorBuffers b(3, 5, 3, 2);
    EXPECT_EQ(sdpa(q, k, v, mask, b), Status::bad_mask) << "mask kind " << static_cast<int>(mask.kind);
    EXPECT_TRUE(b.untouched());
  }
}

TEST(AttentionStatus, AdditiveShapeMismatchesAndBadArguments) {
  const std::size_t n = 3, m = 5, d_q = 4, d_k = 2, h = 6;
  const Mat q(n, d_q, 1.0f), k(m, d_k, 1.0f), v(m, 2, 1.0f);
  const Mat w_q(d_q, h, 0.1f), w_k(d_k, h, 0.1f);
  const std::vector<float> w_v(h, 1.0f);
  struct Case {
    const char* what;
    Mat q, k, v, w_q, w_k;
    std::size_t qh_rows, qh_cols, kh_rows, kh_cols;
    const float* w_v;
    Status expected;
  };
  const Case cases[] = {
      {"W_q rows != Q cols", q, k, v, Mat(d_q + 1, h), w_k, n, h, m, h, w_v.data(), Status::shape_mismatch},
      {"W_k rows != K cols", q, k, v, w_q, Mat(d_k + 1, h), n, h, m, h, w_v.data(), Status::shape_mismatch},
      {"W_k cols != W_q cols", q, k, v, w_q, Mat(d_k, h + 1), n, h, m, h, w_v.data(), Status::shape_mismatch},
      {"q_hidden wrong", q, k, v, w_q, w_k, n + 1, h, m, h, w_v.data(), Status::shape_mismatch},
      {"k_hidden wrong", q, k, v, w_q, w_k, n, h, m, h - 1, w_v.data(), Status::shape_mismatch},
      {"K/V rows differ", q, k, Mat(m - 1, 2), w_q, w_k, n, h, m, h, w_v.data(), Status::shape_mismatch},
      {"w_v missing", q, k, v, w_q, w_k, n, h, m, h, nullptr, Status::bad_argument},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Mat qh(c.qh_rows, c.qh_cols, kSentinel), kh(c.kh_rows, c.kh_cols, kSentinel);
    ErrorBuffers b(n, m, n, 2);
    const attn::AdditiveParams p{c.w_q.cview(), c.w_k.cview(), c.w_v, qh.view(), kh.view()};
    EXPECT_EQ(attn::additive_attention(c.q.cview(), c.k.cview(), c.v.cview(), p, Mask{}, b.weights.view(), b.out.view(),
                                       &b.trace),
              c.expected);
    EXPECT_TRUE(b.untouched());
    EXPECT_TRUE(attn_test::untouched(qh.data, "q_hidden"));
    EXPECT_TRUE(attn_test::untouched(kh.data, "k_hidden"));
  }
  // Wrong weights/output shapes and a bad mask, with everything else right.
  const std::vector<std::int32_t> too_long = {1, 6, 2};
  for (auto [wr, wc, oc, bad_mask] : {std::tuple<std::size_t, std::size_t, std::size_t, bool>{n, m + 1, 2, false},
                                      {n, m, 3, false},
                                      {n, m, 2, true}}) {
    Mat qh(n, h, kSentinel), kh(m, h, kSentinel);
    ErrorBuffers b(wr, wc, n, oc);
    const attn::AdditiveParams p{w_q.cview(), w_k.cview(), w_v.data(), qh.view(), kh.view()};
    const Mask mask = bad_mask ? Mask::lengths(too_long.data()) : Mask{};
    EXPECT_EQ(
        attn::additive_attention(q.cview(), k.cview(), v.cview(), p, mask, b.weights.view(), b.out.view(), &b.trace),
        bad_mask ? Status::bad_mask : Status::shape_mismatch);
    EXPECT_TRUE(b.untouched());
  }
}

TEST(AttentionStatus, SelfAttentionShapeMismatchesAndBadMasks) {
  const std::size_t n = 4, d_model = 3, d_k = 2, d_v = 5;
  const Mat x(n, d_model, 1.0f), w_q(d_model, d_k, 0.5f), w_k(d_model, d_k, 0.5f), w_v(d_model, d_v, 0.5f);
  struct Case {
    const char* what;
    Mat w_q, w_k, w_v;
    std::size_t q_cols, k_cols, v_cols, w_cols, out_cols;
    Status expected;
  };
  const Case cases[] = {
      {"W_Q rows", Mat(d_model + 1, d_k), w_k, w_v, d_k, d_k, d_v, n, d_v, Status::shape_mismatch},
      {"W_K rows", w_q, Mat(d_model - 1, d_k), w_v, d_k, d_k, d_v, n, d_v, Status::shape_mismatch},
      {"W_V rows", w_q, w_k, Mat(d_model + 2, d_v), d_k, d_k, d_v, n, d_v, Status::shape_mismatch},
      {"W_K cols", w_q, Mat(d_model, d_k + 1), w_v, d_k, d_k + 1, d_v, n, d_v, Status::shape_mismatch},
      {"Q buffer", w_q, w_k, w_v, d_k + 1, d_k, d_v, n, d_v, Status::shape_mismatch},
      {"K buffer", w_q, w_k, w_v, d_k, d_k - 1, d_v, n, d_v, Status::shape_mismatch},
      {"V buffer", w_q, w_k, w_v, d_k, d_k, d_v + 1, n, d_v, Status::shape_mismatch},
      {"weights", w_q, w_k, w_v, d_k, d_k, d_v, n + 1, d_v, Status::shape_mismatch},
      {"output", w_q, w_k, w_v, d_k, d_k, d_v, n, d_v - 1, Status::shape_mismatch},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Mat pq(n, c.q_cols, kSentinel), pk(n, c.k_cols, kSentinel), pv(n, c.v_cols, kSentinel);
    ErrorBuffers b(n, c.w_cols, n, c.out_cols);
    EXPECT_EQ(attn::self_attention(x.cview(), c.w_q.cview(), c.w_k.cview(), c.w_v.cview(), Mask{},
                                   {pq.view(), pk.view(), pv.view()}, b.weights.view(), b.out.view(), &b.trace),
              c.expected);
    EXPECT_TRUE(b.untouched());
  }
  const std::vector<std::int32_t> too_long = {1, 5, 2, 0};
  const std::vector<std::uint8_t> bits(n * (n + 1), 1);
  for (const Mask& mask : {Mask::lengths(too_long.data()), Mask::matrix(bits.data(), n, n + 1)}) {
    Mat pq(n, d_k), pk(n, d_k), pv(n, d_v);
    ErrorBuffers b(n, n, n, d_v);
    EXPECT_EQ(attn::self_attention(x.cview(), w_q.cview(), w_k.cview(), w_v.cview(), mask,
                                   {pq.view(), pk.view(), pv.view()}, b.weights.view(), b.out.view(), &b.trace),
              Status::bad_mask);
    EXPECT_TRUE(b.untouched());
  }
}

}  // namespace
