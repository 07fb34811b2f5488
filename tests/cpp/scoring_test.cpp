// The scoring functions on their own: dot-product scores scale·QKᵀ and
// additive scores w_vᵀ tanh(W_q q + W_k k), with their hidden projections,
// against the float64 reference at every size in sizes().
#include "scoring.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attention.h"
#include "reference.h"
#include "test_util.h"

namespace {

using attn_test::Mat;
using attn_test::Rng;

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

class ScoringSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(ScoringSizes, DotProductMatchesReferenceForEveryWidth) {
  const auto [n, m] = GetParam();
  for (std::size_t d : attn_test::sizes()) {
    for (float scale : {attn::default_scale(d), 1.0f}) {
      SCOPED_TRACE("d = " + std::to_string(d) + ", scale = " + std::to_string(scale));
      Rng rng(attn_test::seed_for(n, m, d, 20));
      const Mat q = attn_test::random_mat(n, d, rng, -1.0f, 1.0f, 1);
      const Mat k = attn_test::random_mat(m, d, rng, -1.0f, 1.0f, 2);
      Mat s(n, m, attn_test::kSentinel, 1);
      attn::dot_product_scores(q.cview(), k.cview(), scale, s.view());
      EXPECT_TRUE(attn_test::all_close(s.cview(), ref::matmul_bt(q.to_double(), k.to_double(), scale),
                                       2e-6 * static_cast<double>(d + 1), 1e-5));
      EXPECT_TRUE(attn_test::padding_untouched(s));
    }
  }
}

// Additive scores with query and key widths that differ from each other and
// from the hidden width h; h runs over every size.
TEST_P(ScoringSizes, AdditiveMatchesReferenceForEveryHiddenWidth) {
  const auto [n, m] = GetParam();
  for (std::size_t h : attn_test::sizes()) {
    const std::size_t d_q = 1 + (n + h) % 7, d_k = 2 + (m + 3 * h) % 9;
    SCOPED_TRACE("h = " + std::to_string(h) + ", d_q = " + std::to_string(d_q) + ", d_k = " + std::to_string(d_k));
    Rng rng(attn_test::seed_for(n, m, h, 21));
    const Mat q = attn_test::random_mat(n, d_q, rng);
    const Mat k = attn_test::random_mat(m, d_k, rng, -1.0f, 1.0f, 3);
    const Mat w_q = attn_test::random_mat(d_q, h, rng);
    const Mat w_k = attn_test::random_mat(d_k, h, rng);
    std::vector<float> w_v(h);
    for (float& x : w_v) x = rng.uniform();
    Mat q_hidden(n, h, attn_test::kSentinel), k_hidden(m, h, attn_test::kSentinel), s(n, m, attn_test::kSentinel, 2);
    attn::additive_scores(q.cview(), k.cview(), w_q.cview(), w_k.cview(), w_v.data(), q_hidden.view(), k_hidden.view(),
                          s.view());
    const ref::Additive r = ref::additive_attention(q.to_double(), k.to_double(), ref::MatD(m, 1), w_q.to_double(),
                                                    w_k.to_double(), to_double(w_v), ref::all_visible(n, m));
    EXPECT_TRUE(attn_test::all_close(q_hidden.cview(), r.q_hidden, 1e-6 * static_cast<double>(d_q + 1), 1e-5));
    EXPECT_TRUE(attn_test::all_close(k_hidden.cview(), r.k_hidden, 1e-6 * static_cast<double>(d_k + 1), 1e-5));
    EXPECT_TRUE(attn_test::all_close(s.cview(), r.attention.scores, 2e-6 * static_cast<double>(h + d_q + d_k), 1e-5));
    EXPECT_TRUE(attn_test::padding_untouched(s));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ScoringSizes, attn_test::size_pairs(), attn_test::pair_name);

TEST(Scoring, DefaultScaleIsOneOverRootD) {
  EXPECT_EQ(attn::default_scale(0), 1.0f);
  EXPECT_EQ(attn::default_scale(1), 1.0f);
  EXPECT_EQ(attn::default_scale(4), 0.5f);
  EXPECT_EQ(attn::default_scale(64), 0.125f);
  for (std::size_t d : attn_test::sizes())
    EXPECT_EQ(attn::default_scale(d), static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)))) << d;
}

TEST(Scoring, DotProductStridedViews) {
  // Q and K as column blocks of wider matrices (one head's slice), S as a block of a wider buffer.
  Rng rng(22);
  const Mat wide_q = attn_test::random_mat(17, 12, rng), wide_k = attn_test::random_mat(9, 15, rng);
  const auto q = attn::column_slice(wide_q.cview(), 5, 5), k = attn::column_slice(wide_k.cview(), 10, 5);
  Mat out(17, 13, attn_test::kSentinel);
  attn::dot_product_scores(q, k, 0.25f, attn::column_slice(out.view(), 2, 9));
  EXPECT_TRUE(attn_test::all_close(
      attn::column_slice(out.cview(), 2, 9),
      ref::matmul_bt(ref::columns(wide_q.to_double(), 5, 5), ref::columns(wide_k.to_double(), 10, 5), 0.25), 1e-5,
      1e-5));
  for (std::size_t i = 0; i < 17; ++i)
    for (std::size_t j : {0u, 1u, 11u, 12u}) EXPECT_EQ(out.at(i, j), attn_test::kSentinel) << i << "," << j;
}

TEST(Scoring, AdditiveKnownValue) {
  // One query, two keys, h = 2: W_q, W_k identities, w_v = [1, -2].
  // s_j = tanh(q0 + k_j0) - 2 tanh(q1 + k_j1).
  const Mat q = Mat::filled(1, 2, {0.5f, -0.25f});
  const Mat k = Mat::filled(2, 2, {0.0f, 0.25f, 1.0f, -1.0f});
  const Mat eye = Mat::filled(2, 2, {1, 0, 0, 1});
  const std::vector<float> w_v = {1.0f, -2.0f};
  Mat qh(1, 2), kh(2, 2), s(1, 2);
  attn::additive_scores(q.cview(), k.cview(), eye.cview(), eye.cview(), w_v.data(), qh.view(), kh.view(), s.view());
  EXPECT_NEAR(s.at(0, 0), std::tanh(0.5) - 2.0 * std::tanh(0.0), 1e-6);
  EXPECT_NEAR(s.at(0, 1), std::tanh(1.5) - 2.0 * std::tanh(-1.25), 1e-6);
}

TEST(Scoring, AdditiveIdenticalKeysScoreEqually) {
  Rng rng(23);
  const Mat q = attn_test::random_mat(3, 2, rng);
  Mat k(6, 5);
  const Mat row = attn_test::random_mat(1, 5, rng);
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 5; ++j) k.at(i, j) = row.at(0, j);
  const Mat w_q = attn_test::random_mat(2, 8, rng), w_k = attn_test::random_mat(5, 8, rng);
  std::vector<float> w_v(8);
  for (float& x : w_v) x = rng.uniform();
  Mat qh(3, 8), kh(6, 8), s(3, 6);
  attn::additive_scores(q.cview(), k.cview(), w_q.cview(), w_k.cview(), w_v.data(), qh.view(), kh.view(), s.view());
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 1; j < 6; ++j) EXPECT_EQ(s.at(i, j), s.at(i, 0)) << i << "," << j;
}

}  // namespace
