// The blocked kernel behind the untraced scaledDotProductAttention: weights and
// output must agree with the float64 reference and with the step-by-step
// kernel for every mask kind, at every size in sizes() and at shapes that
// cross its 4-row blocks, 8-key panels and 64-key value chunks; it writes
// nothing outside the views, gives zero rows where no key is visible and NaN
// rows where a visible score is not finite.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attention.h"
#include "blocked_attention.h"
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

Status blocked(const Mat& q, const Mat& k, const Mat& v, const Mask& mask, float scale, Mat& weights, Mat& out) {
  std::vector<float> scratch(attn::blocked_attention_scratch_floats(k.rows, k.cols), kSentinel);
  return attn::blocked_attention(q.cview(), k.cview(), v.cview(), mask, scale, weights.view(), out.view(),
                                 scratch.data());
}

void check_case(std::size_t n, std::size_t m, std::size_t d, std::size_t d_v, MaskKind kind, std::uint64_t seed) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) +
               ", d_v = " + std::to_string(d_v) + ", mask " + attn_test::kind_name(kind));
  Rng rng(seed);
  const Mat q = attn_test::random_mat(n, d, rng, -2.0f, 2.0f, 1);
  const Mat k = attn_test::random_mat(m, d, rng, -2.0f, 2.0f, 2);
  const Mat v = attn_test::random_mat(m, d_v, rng, -1.0f, 1.0f, 3);
  const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
  const float scale = attn::default_scale(d);
  Mat weights(n, m, kSentinel, 3), out(n, d_v, kSentinel, 2);
  ASSERT_EQ(blocked(q, k, v, mc.mask(), scale, weights, out), Status::ok);
  const ref::Attention r = ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), mc.vis, scale);
  EXPECT_TRUE(attn_test::all_close(weights.cview(), r.weights, 1e-6, 1e-4));
  EXPECT_TRUE(attn_test::all_close(out.cview(), r.output, 1e-5 * static_cast<double>(d + 1), 1e-4));
  EXPECT_TRUE(attn_test::padding_untouched(weights));
  EXPECT_TRUE(attn_test::padding_untouched(out));
  for (std::size_t i = 0; i < n; ++i) {
    bool any = false;
    for (std::size_t j = 0; j < m; ++j) any = any || mc.vis[i][j];
    for (std::size_t j = 0; !any && j < d_v; ++j) ASSERT_EQ(out.at(i, j), 0.0f) << "fully masked row " << i;
  }
}

class BlockedAttentionSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(BlockedAttentionSizes, MatchesReferenceForEveryMaskKind) {
  const auto [n, m] = GetParam();
  const auto& s = attn_test::sizes();
  for (std::size_t t = 0; t < s.size(); ++t)
    for (MaskKind kind : attn_test::all_kinds())
      check_case(n, m, s[t], s[(t + 3) % s.size()], kind,
                 attn_test::seed_for(n, m, s[t], 300 + static_cast<std::size_t>(kind)));
}

INSTANTIATE_TEST_SUITE_P(Sizes, BlockedAttentionSizes, attn_test::size_pairs(), attn_test::pair_name);

TEST(BlockedAttention, ShapesAcrossBlocksPanelsAndChunks) {
  // 63, 64, 65, 129 keys: the 64-key value chunks and 8-key panels; 6, 7 queries: a 4-row block and leftovers;
  // d = 64 with 200 keys: a K too big for matmul_transposed's stack packing.
  for (std::size_t m : {63u, 64u, 65u, 129u})
    for (std::size_t n : {6u, 7u})
      for (MaskKind kind : attn_test::all_kinds()) check_case(n, m, 8, 13, kind, attn_test::seed_for(n, m, 0, 310));
  for (MaskKind kind : attn_test::all_kinds()) check_case(9, 200, 64, 64, kind, attn_test::seed_for(9, 200, 64, 311));
}

TEST(BlockedAttention, AgreesWithStepByStepKernel) {
  Rng rng(312);
  const std::size_t n = 41, m = 150, d = 16, d_v = 12;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, d_v, rng);
  for (MaskKind kind : attn_test::all_kinds()) {
    SCOPED_TRACE(attn_test::kind_name(kind));
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    Mat weights(n, m), out(n, d_v), step_weights(n, m), step_out(n, d_v);
    ASSERT_EQ(blocked(q, k, v, mc.mask(), 0.25f, weights, out), Status::ok);
    ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), 0.25f,
                                                 step_weights.view(), step_out.view()),
              Status::ok);
    ref::MatD want_weights(n, m), want_out(n, d_v);
    for (std::size_t t = 0; t < want_weights.data.size(); ++t) want_weights.data[t] = step_weights.data[t];
    for (std::size_t t = 0; t < want_out.data.size(); ++t) want_out.data[t] = step_out.data[t];
    EXPECT_TRUE(attn_test::all_close(weights.cview(), want_weights, 1e-7, 1e-5));
    EXPECT_TRUE(attn_test::all_close(out.cview(), want_out, 1e-6, 1e-5));
  }
}

TEST(BlockedAttention, NonFiniteVisibleScoreGivesNanRow) {
  // Row 1 sees an infinite key: its weights and output are NaN; row 0 (causal: key 0 only) is fine.
  Mat q(5, 2, 1.0f), k(9, 2, 1.0f), v(9, 3, 1.0f), weights(5, 9), out(5, 3);
  k.at(1, 0) = INFINITY;
  ASSERT_EQ(blocked(q, k, v, Mask::causal(), 1.0f, weights, out), Status::ok);
  EXPECT_EQ(weights.at(0, 0), 1.0f);
  EXPECT_EQ(out.at(0, 2), 1.0f);
  for (std::size_t i = 1; i < 5; ++i) {
    for (std::size_t j = 0; j < 9; ++j) EXPECT_TRUE(std::isnan(weights.at(i, j))) << i << ", " << j;
    EXPECT_TRUE(std::isnan(out.at(i, 0))) << i;
  }
}

TEST(BlockedAttentionStatus, ShapeMismatchesBadMasksAndMissingScratch) {
  const Mat q(3, 4, 1.0f), k(5, 4, 1.0f), v(5, 2, 1.0f);
  const std::vector<std::int32_t> too_long = {1, 6, 2};
  const std::vector<std::uint8_t> bits(15, 1);
  struct Case {
    const char* what;
    Mat q, k, v;
    std::size_t w_rows, w_cols, out_rows, out_cols;
    Mask mask;
    Status expected;
  };
  const Case cases[] = {
      {"Q cols != K cols", q, Mat(5, 3), v, 3, 5, 3, 2, Mask{}, Status::shape_mismatch},
      {"K rows != V rows", q, k, Mat(4, 2), 3, 5, 3, 2, Mask{}, Status::shape_mismatch},
      {"weights cols", q, k, v, 3, 4, 3, 2, Mask{}, Status::shape_mismatch},
      {"out rows", q, k, v, 3, 5, 4, 2, Mask::causal(), Status::shape_mismatch},
      {"valid length > m", q, k, v, 3, 5, 3, 2, Mask::lengths(too_long.data()), Status::bad_mask},
      {"matrix mask m×n", q, k, v, 3, 5, 3, 2, Mask::matrix(bits.data(), 5, 3), Status::bad_mask},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Mat weights(c.w_rows, c.w_cols, kSentinel), out(c.out_rows, c.out_cols, kSentinel);
    EXPECT_EQ(blocked(c.q, c.k, c.v, c.mask, 0.5f, weights, out), c.expected);
    EXPECT_TRUE(attn_test::untouched(weights.data, "weights"));
    EXPECT_TRUE(attn_test::untouched(out.data, "output"));
  }
  Mat weights(3, 5), out(3, 2);
  EXPECT_EQ(attn::blocked_attention(q.cview(), k.cview(), v.cview(), Mask{}, 0.5f, weights.view(), out.view(), nullptr),
            Status::bad_argument);
}

}  // namespace
