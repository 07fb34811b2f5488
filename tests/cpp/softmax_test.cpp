// Row-wise masked softmax and the mask checks: against the float64 reference
// for every mask kind at every size, and the properties a learner relies on
// (rows sum to 1, masked weights exactly 0, fully masked rows all zero,
// invariance to a per-row constant, finite results for scores of ±1e4).
#include "softmax.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mask.h"
#include "reference.h"
#include "test_util.h"

namespace {

using attn::Mask;
using attn::MaskKind;
using attn::Status;
using attn_test::MaskCase;
using attn_test::Mat;
using attn_test::Rng;

constexpr double kAtol = 1e-6, kRtol = 1e-5;

// Sums of each row in double, and whether it has any visible key.
void expect_distribution_rows(const Mat& w, const ref::Visibility& vis) {
  for (std::size_t i = 0; i < w.rows; ++i) {
    bool any = false;
    double sum = 0.0;
    for (std::size_t j = 0; j < w.cols; ++j) {
      if (vis[i][j]) {
        any = true;
        EXPECT_GE(w.at(i, j), 0.0f) << i << "," << j;
      } else {
        // masked: exactly zero, not merely tiny (and +0, never -0 or NaN)
        EXPECT_EQ(w.at(i, j), 0.0f) << "masked weight at " << i << "," << j;
        EXPECT_FALSE(std::signbit(w.at(i, j))) << i << "," << j;
      }
      sum += w.at(i, j);
    }
    if (any)
      EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
    else
      EXPECT_EQ(sum, 0.0) << "fully masked row " << i;
  }
}

class SoftmaxSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(SoftmaxSizes, MatchesReferenceForEveryMaskKind) {
  const auto [n, m] = GetParam();
  for (MaskKind kind : attn_test::all_kinds()) {
    SCOPED_TRACE(std::string("mask ") + attn_test::kind_name(kind));
    Rng rng(attn_test::seed_for(n, m, static_cast<std::size_t>(kind), 10));
    const Mat s = attn_test::random_mat(n, m, rng, -6.0f, 6.0f, 2);
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    ASSERT_EQ(attn::check_mask(mc.mask(), n, m), Status::ok);
    Mat w(n, m, attn_test::kSentinel, 3);
    attn::softmax_rows(s.cview(), mc.mask(), w.view());
    EXPECT_TRUE(attn_test::all_close(w.cview(), ref::masked_softmax(s.to_double(), mc.vis), kAtol, kRtol));
    EXPECT_TRUE(attn_test::padding_untouched(w));
    expect_distribution_rows(w, mc.vis);

    // The "masked" trace step: scores kept, masked entries -FLT_MAX exactly.
    Mat t(n, m, attn_test::kSentinel);
    attn::apply_mask_for_trace(s.cview(), mc.mask(), t.view());
    EXPECT_TRUE(attn_test::all_close(t.cview(), ref::mask_for_trace(s.to_double(), mc.vis), 0.0, 0.0));
  }
}

TEST_P(SoftmaxSizes, InPlaceEqualsOutOfPlace) {
  const auto [n, m] = GetParam();
  for (MaskKind kind : attn_test::all_kinds()) {
    SCOPED_TRACE(std::string("mask ") + attn_test::kind_name(kind));
    Rng rng(attn_test::seed_for(n, m, static_cast<std::size_t>(kind), 11));
    Mat s = attn_test::random_mat(n, m, rng, -3.0f, 3.0f);
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    Mat w(n, m);
    attn::softmax_rows(s.cview(), mc.mask(), w.view());
    attn::softmax_rows(s.cview(), mc.mask(), s.view());
    EXPECT_EQ(s.data, w.data);
  }
}

// Adding a constant to a row does not change its softmax. Scores are
// multiples of 2^-8 and the constants powers of two or small, so every
// shifted score is exact in float32 and the weights must match bit for bit.
TEST_P(SoftmaxSizes, InvariantToAddingAConstantToARow) {
  const auto [n, m] = GetParam();
  Rng rng(attn_test::seed_for(n, m, 0, 12));
  Mat s(n, m);
  for (float& x : s.data) x = std::round(rng.uniform(-8.0f, 8.0f) * 256.0f) / 256.0f;
  Mat shifted = s;
  const float constants[] = {1024.0f, -4096.0f, 0.5f, -3.0f, 64.0f};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) shifted.at(i, j) += constants[i % 5];
  for (MaskKind kind : attn_test::all_kinds()) {
    SCOPED_TRACE(std::string("mask ") + attn_test::kind_name(kind));
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    Mat w(n, m), w_shifted(n, m);
    attn::softmax_rows(s.cview(), mc.mask(), w.view());
    attn::softmax_rows(shifted.cview(), mc.mask(), w_shifted.view());
    EXPECT_EQ(w.data, w_shifted.data);
  }
}

// Scores of ±1e4: exp(1e4) overflows float and double alike, so only a
// max-subtracting softmax stays finite. Mixed with ordinary scores too.
TEST_P(SoftmaxSizes, HugeScoresStayFiniteAndAccurate) {
  const auto [n, m] = GetParam();
  for (MaskKind kind : attn_test::all_kinds()) {
    SCOPED_TRACE(std::string("mask ") + attn_test::kind_name(kind));
    Rng rng(attn_test::seed_for(n, m, static_cast<std::size_t>(kind), 13));
    Mat s(n, m);
    for (float& x : s.data) {
      const std::size_t pick = rng.below(4);
      x = pick == 0 ? 1e4f : pick == 1 ? -1e4f : pick == 2 ? 1e4f - rng.uniform(0.0f, 3.0f) : rng.uniform(-1.0f, 1.0f);
    }
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    Mat w(n, m);
    attn::softmax_rows(s.cview(), mc.mask(), w.view());
    for (float x : w.data) ASSERT_TRUE(std::isfinite(x));
    EXPECT_TRUE(attn_test::all_close(w.cview(), ref::masked_softmax(s.to_double(), mc.vis), kAtol, kRtol));
    expect_distribution_rows(w, mc.vis);
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SoftmaxSizes, attn_test::size_pairs(), attn_test::pair_name);

TEST(Softmax, KnownValues) {
  // softmax([0, ln 3]) = [1/4, 3/4]; softmax of equal scores is uniform.
  const Mat s = Mat::filled(2, 2, {0.0f, std::log(3.0f), 5.0f, 5.0f});
  Mat w(2, 2);
  attn::softmax_rows(s.cview(), Mask{}, w.view());
  EXPECT_NEAR(w.at(0, 0), 0.25f, 1e-7f);
  EXPECT_NEAR(w.at(0, 1), 0.75f, 1e-7f);
  EXPECT_EQ(w.at(1, 0), 0.5f);
  EXPECT_EQ(w.at(1, 1), 0.5f);
}

TEST(Softmax, AllScoresPlusOrMinus1e4) {
  const Mat s = Mat::filled(3, 4, {1e4f, 1e4f, 1e4f, 1e4f, -1e4f, -1e4f, -1e4f, -1e4f, 1e4f, -1e4f, -1e4f, -1e4f});
  Mat w(3, 4);
  attn::softmax_rows(s.cview(), Mask{}, w.view());
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(w.at(0, j), 0.25f);
    EXPECT_EQ(w.at(1, j), 0.25f);
    EXPECT_EQ(w.at(2, j), j == 0 ? 1.0f : 0.0f);
  }
}

TEST(Softmax, CausalMaskSeesThePrefix) {
  // Row i of a causal softmax over equal scores is uniform over keys 0..i.
  for (std::size_t n : {1u, 3u, 5u, 9u}) {
    for (std::size_t m : {1u, 4u, 6u}) {
      Mat s(n, m, 2.0f), w(n, m, attn_test::kSentinel);
      attn::softmax_rows(s.cview(), Mask::causal(), w.view());
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t seen = i + 1 < m ? i + 1 : m;
        for (std::size_t j = 0; j < m; ++j)
          EXPECT_FLOAT_EQ(w.at(i, j), j <= i ? 1.0f / static_cast<float>(seen) : 0.0f)
              << "n=" << n << " m=" << m << " at " << i << "," << j;
      }
    }
  }
}

TEST(Softmax, ValidLengthsZeroAndFull) {
  // Length 0: no visible key, all-zero row. Length m: the unmasked softmax.
  Rng rng(21);
  for (std::size_t m : attn_test::sizes()) {
    const Mat s = attn_test::random_mat(2, m, rng, -4.0f, 4.0f);
    const std::vector<std::int32_t> lens = {0, static_cast<std::int32_t>(m)};
    Mat w(2, m, attn_test::kSentinel), plain(2, m);
    attn::softmax_rows(s.cview(), Mask::lengths(lens.data()), w.view());
    attn::softmax_rows(s.cview(), Mask{}, plain.view());
    for (std::size_t j = 0; j < m; ++j) {
      EXPECT_EQ(w.at(0, j), 0.0f) << "m=" << m << " j=" << j;
      EXPECT_EQ(w.at(1, j), plain.at(1, j)) << "m=" << m << " j=" << j;
    }
  }
}

TEST(Softmax, FullyMaskedRowsAreZeroNotNaNNorUniform) {
  const std::size_t n = 3, m = 5;
  Mat s(n, m, 1.0f);
  s.at(2, 4) = -1e4f;
  std::vector<std::uint8_t> bits(n * m, 0);
  bits[2 * m + 4] = 1;  // row 2 sees only its -1e4 key; rows 0 and 1 see nothing
  Mat w(n, m, attn_test::kSentinel);
  attn::softmax_rows(s.cview(), Mask::matrix(bits.data(), n, m), w.view());
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < m; ++j) EXPECT_EQ(w.at(i, j), 0.0f) << i << "," << j;
  for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(w.at(2, j), 0.0f);
  EXPECT_EQ(w.at(2, 4), 1.0f);
}

TEST(Softmax, MaskedHugeScoreDoesNotLeak) {
  // A masked key with the largest score must not affect the visible ones.
  const Mat s = Mat::filled(1, 4, {0.0f, 1.0f, 1e4f, 2.0f});
  const std::vector<std::uint8_t> bits = {1, 1, 0, 1};
  Mat w(1, 4);
  attn::softmax_rows(s.cview(), Mask::matrix(bits.data(), 1, 4), w.view());
  const double e0 = 1.0, e1 = std::exp(1.0), e3 = std::exp(2.0), z = e0 + e1 + e3;
  EXPECT_NEAR(w.at(0, 0), e0 / z, 1e-7);
  EXPECT_NEAR(w.at(0, 1), e1 / z, 1e-7);
  EXPECT_EQ(w.at(0, 2), 0.0f);
  EXPECT_NEAR(w.at(0, 3), e3 / z, 1e-7);
}

TEST(Softmax, TraceMaskUsesMostNegativeFiniteFloat) {
  const Mat s = Mat::filled(2, 3, {1, 2, 3, 4, 5, 6});
  Mat t(2, 3);
  attn::apply_mask_for_trace(s.cview(), Mask::causal(), t.view());
  EXPECT_EQ(t.data, (std::vector<float>{1, -FLT_MAX, -FLT_MAX, 4, 5, -FLT_MAX}));
  Mat plain(2, 3);
  attn::apply_mask_for_trace(s.cview(), Mask{}, plain.view());
  EXPECT_EQ(plain.data, s.data);
}

// ---- check_mask: every way a mask can fail to fit an n×m score matrix

TEST(CheckMask, AcceptsEveryWellFormedMask) {
  const std::vector<std::int32_t> lens = {0, 2, 4};
  const std::vector<std::uint8_t> bits(12, 1);
  EXPECT_EQ(attn::check_mask(Mask{}, 3, 4), Status::ok);
  EXPECT_EQ(attn::check_mask(Mask::causal(), 3, 4), Status::ok);
  EXPECT_EQ(attn::check_mask(Mask::causal(), 5, 2), Status::ok);
  EXPECT_EQ(attn::check_mask(Mask::lengths(lens.data()), 3, 4), Status::ok);
  EXPECT_EQ(attn::check_mask(Mask::matrix(bits.data(), 3, 4), 3, 4), Status::ok);
  EXPECT_EQ(attn::check_mask(Mask::lengths(nullptr), 0, 4), Status::ok);
}

TEST(CheckMask, ValidLengthOutOfRange) {
  const std::vector<std::int32_t> too_long = {1, 5, 2};  // 5 > m = 4
  const std::vector<std::int32_t> negative = {1, -1, 2};
  const std::vector<std::int32_t> last_bad = {4, 4, 5};
  EXPECT_EQ(attn::check_mask(Mask::lengths(too_long.data()), 3, 4), Status::bad_mask);
  EXPECT_EQ(attn::check_mask(Mask::lengths(negative.data()), 3, 4), Status::bad_mask);
  EXPECT_EQ(attn::check_mask(Mask::lengths(last_bad.data()), 3, 4), Status::bad_mask);
  EXPECT_EQ(attn::check_mask(Mask::lengths(nullptr), 3, 4), Status::bad_mask);
}

TEST(CheckMask, MatrixOfTheWrongSize) {
  const std::vector<std::uint8_t> bits(20, 1);
  EXPECT_EQ(attn::check_mask(Mask::matrix(bits.data(), 4, 5), 5, 4), Status::bad_mask);  // transposed
  EXPECT_EQ(attn::check_mask(Mask::matrix(bits.data(), 4, 4), 4, 5), Status::bad_mask);
  EXPECT_EQ(attn::check_mask(Mask::matrix(bits.data(), 3, 5), 4, 5), Status::bad_mask);
  EXPECT_EQ(attn::check_mask(Mask::matrix(nullptr, 4, 5), 4, 5), Status::bad_mask);
}

TEST(CheckMask, UnknownKind) {
  Mask mask;
  mask.kind = static_cast<MaskKind>(7);
  EXPECT_EQ(attn::check_mask(mask, 3, 4), Status::bad_mask);
  mask.kind = static_cast<MaskKind>(-1);
  EXPECT_EQ(attn::check_mask(mask, 3, 4), Status::bad_mask);
}

TEST(StatusNames, NameEveryCode) {
  EXPECT_STREQ(attn::status_name(Status::ok), "ok");
  EXPECT_STREQ(attn::status_name(Status::shape_mismatch), "shape_mismatch");
  EXPECT_STREQ(attn::status_name(Status::bad_argument), "bad_argument");
  EXPECT_STREQ(attn::status_name(Status::bad_mask), "bad_mask");
  EXPECT_STREQ(attn::status_name(static_cast<Status>(99)), "unknown");
}

}  // namespace
