// The fused (FlashAttention-style) kernel: softmax(QKᵀ·scale)V by blocks with
// an online softmax. It must agree with the float64 reference, and with the
// step-by-step kernel, for every mask kind at every size in sizes() and at
// key counts that cross its 8-key panels and 128-key blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attention.h"
#include "flash_attention.h"
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

Status fused(const Mat& q, const Mat& k, const Mat& v, const Mask& mask, float scale, Mat& out) {
  std::vector<float> scratch(attn::fused_attention_scratch_floats(k.rows, k.cols, v.cols), kSentinel);
  return attn::fused_attention(q.cview(), k.cview(), v.cview(), mask, scale, out.view(), scratch.data());
}

void check_case(std::size_t n, std::size_t m, std::size_t d, std::size_t d_v, MaskKind kind, std::uint64_t seed,
                float amplitude = 2.0f) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) +
               ", d_v = " + std::to_string(d_v) + ", mask " + attn_test::kind_name(kind));
  Rng rng(seed);
  const Mat q = attn_test::random_mat(n, d, rng, -amplitude, amplitude, 1);
  const Mat k = attn_test::random_mat(m, d, rng, -amplitude, amplitude, 2);
  const Mat v = attn_test::random_mat(m, d_v, rng, -1.0f, 1.0f, 3);
  const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
  const float scale = attn::default_scale(d);
  Mat out(n, d_v, kSentinel, 2);
  ASSERT_EQ(fused(q, k, v, mc.mask(), scale, out), Status::ok);
  const ref::Attention r = ref::dot_product_attention(q.to_double(), k.to_double(), v.to_double(), mc.vis, scale);
  EXPECT_TRUE(attn_test::all_close(out.cview(), r.output, 1e-5 * static_cast<double>(d + 1), 1e-4));
  EXPECT_TRUE(attn_test::padding_untouched(out));
  for (std::size_t i = 0; i < n; ++i) {
    bool any = false;
    for (std::size_t j = 0; j < m; ++j) any = any || mc.vis[i][j];
    if (!any) {
      for (std::size_t j = 0; j < d_v; ++j) ASSERT_EQ(out.at(i, j), 0.0f) << "fully masked row " << i;
    }
  }
}

class FusedAttentionSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(FusedAttentionSizes, MatchesReferenceForEveryMaskKind) {
  const auto [n, m] = GetParam();
  const auto& s = attn_test::sizes();
  for (std::size_t t = 0; t < s.size(); ++t)
    for (MaskKind kind : attn_test::all_kinds())
      check_case(n, m, s[t], s[(t + 2) % s.size()], kind,
                 attn_test::seed_for(n, m, s[t], 100 + static_cast<std::size_t>(kind)));
}

INSTANTIATE_TEST_SUITE_P(Sizes, FusedAttentionSizes, attn_test::size_pairs(), attn_test::pair_name);

TEST(FusedAttention, KeyCountsAcrossBlocksAndRowBlocks) {
  // 127, 128, 129, 257 keys: the edges of the 128-key online-softmax blocks;
  // 31, 32, 33 queries: the 32-row query blocks.
  for (std::size_t m : {127u, 128u, 129u, 257u})
    for (std::size_t n : {31u, 33u})
      for (MaskKind kind : attn_test::all_kinds()) check_case(n, m, 8, 5, kind, attn_test::seed_for(n, m, 0, 110));
}

TEST(FusedAttention, HugeScoresStayFinite) {
  // Scores far above exp's range: the online max must rescale, never overflow.
  for (MaskKind kind : attn_test::all_kinds())
    check_case(17, 200, 4, 3, kind, attn_test::seed_for(kind == MaskKind::none, 0, 0, 111), 100.0f);
}

TEST(FusedAttention, NonFiniteVisibleScoreGivesNanRow) {
  // An infinite key inside the first 128-key block: rows that see the whole block (no mask) and rows
  // that see part of it (causal) both become NaN, once they see it; row 0 of the causal case does not.
  for (MaskKind kind : {MaskKind::none, MaskKind::causal}) {
    SCOPED_TRACE(attn_test::kind_name(kind));
    Mat q(6, 2, 1.0f), k(200, 2, 1.0f), v(200, 3, 1.0f), out(6, 3);
    k.at(1, 0) = INFINITY;
    ASSERT_EQ(fused(q, k, v, kind == MaskKind::causal ? Mask::causal() : Mask{}, 1.0f, out), Status::ok);
    for (std::size_t i = 0; i < 6; ++i) {
      const bool sees_it = kind == MaskKind::none || i >= 1;
      EXPECT_EQ(std::isnan(out.at(i, 0)), sees_it) << "row " << i;
    }
    if (kind == MaskKind::causal) EXPECT_EQ(out.at(0, 2), 1.0f);
  }
}

TEST(FusedAttention, AgreesWithStepByStepKernel) {
  Rng rng(112);
  const std::size_t n = 40, m = 150, d = 16, d_v = 12;
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, d_v, rng);
  for (MaskKind kind : attn_test::all_kinds()) {
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    Mat out(n, d_v), weights(n, m), step_out(n, d_v);
    ASSERT_EQ(fused(q, k, v, mc.mask(), 0.25f, out), Status::ok);
    ASSERT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), 0.25f, weights.view(),
                                                 step_out.view()),
              Status::ok);
    ref::MatD expected(n, d_v);
    for (std::size_t t = 0; t < expected.data.size(); ++t) expected.data[t] = step_out.data[t];
    EXPECT_TRUE(attn_test::all_close(out.cview(), expected, 1e-5, 1e-4)) << attn_test::kind_name(kind);
  }
}

TEST(FusedAttentionStatus, ShapeMismatchesAndBadMasks) {
  const Mat q(3, 4, 1.0f), k(5, 4, 1.0f), v(5, 2, 1.0f);
  const std::vector<std::int32_t> too_long = {1, 6, 2};
  const std::vector<std::uint8_t> bits(15, 1);
  struct Case {
    const char* what;
    Mat q, k, v;
    std::size_t out_rows, out_cols;
    Mask mask;
    Status expected;
  };
  const Case cases[] = {
      {"Q cols != K cols", q, Mat(5, 3), v, 3, 2, Mask{}, Status::shape_mismatch},
      {"K rows != V rows", q, k, Mat(4, 2), 3, 2, Mask{}, Status::shape_mismatch},
      {"out rows", q, k, v, 4, 2, Mask{}, Status::shape_mismatch},
      {"out cols", q, k, v, 3, 3, Mask{}, Status::shape_mismatch},
      {"valid length > m", q, k, v, 3, 2, Mask::lengths(too_long.data()), Status::bad_mask},
      {"matrix mask m×n", q, k, v, 3, 2, Mask::matrix(bits.data(), 5, 3), Status::bad_mask},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Mat out(c.out_rows, c.out_cols, kSentinel);
    std::vector<float> scratch(attn::fused_attention_scratch_floats(8, 8, 8), kSentinel);
    EXPECT_EQ(attn::fused_attention(c.q.cview(), c.k.cview(), c.v.cview(), c.mask, 0.5f, out.view(), scratch.data()),
              c.expected);
    EXPECT_TRUE(attn_test::untouched(out.data, "output"));
  }
}

}  // namespace
