// Sinusoidal positional encoding: against the formula written plainly in
// double, known values, properties (each (sin, cos) pair has norm 1; P_i·P_j
// is Σ_pairs cos((i − j)ω), a function of i − j only), X + P with and
// without aliasing, strided views, and every Status path.
#include "positional_encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace {

using attn::Status;
using attn_test::Mat;
using attn_test::Rng;

// The formula as printed in "Attention Is All You Need", in double.
double reference(std::size_t i, std::size_t c, std::size_t d, double base) {
  const std::size_t j = c / 2;
  const double angle = static_cast<double>(i) / std::pow(base, 2.0 * static_cast<double>(j) / static_cast<double>(d));
  return c % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

double omega(std::size_t j, std::size_t d) { return std::pow(10000.0, -2.0 * static_cast<double>(j) / static_cast<double>(d)); }

TEST(PositionalEncoding, MatchesTheFormulaAtEverySize) {
  for (std::size_t n : {0u, 1u, 2u, 7u, 50u, 513u})
    for (std::size_t d : {1u, 2u, 3u, 8u, 64u, 129u})
      for (double base : {10000.0, 100.0, 1.0, 0.5}) {
        Mat p(n, d, attn_test::kSentinel, 3);
        ASSERT_EQ(attn::positional_encoding(base, p.view()), Status::ok);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t c = 0; c < d; ++c)
            ASSERT_NEAR(p.at(i, c), reference(i, c, d, base), 1e-6 * (1.0 + static_cast<double>(i) * 1e-3))
                << "n=" << n << " d=" << d << " base=" << base << " at [" << i << "][" << c << "]";
        EXPECT_TRUE(attn_test::padding_untouched(p));
      }
}

TEST(PositionalEncoding, KnownValues) {
  Mat p(3, 4);
  ASSERT_EQ(attn::positional_encoding(10000.0, p.view()), Status::ok);
  // Position 0 is (sin 0, cos 0, ...) = (0, 1, 0, 1).
  EXPECT_EQ(p.at(0, 0), 0.0f);
  EXPECT_EQ(p.at(0, 1), 1.0f);
  EXPECT_EQ(p.at(0, 2), 0.0f);
  EXPECT_EQ(p.at(0, 3), 1.0f);
  // Position 1: frequencies 1 and 10000^(-2/4) = 1/100.
  EXPECT_FLOAT_EQ(p.at(1, 0), 0.84147098f);
  EXPECT_FLOAT_EQ(p.at(1, 1), 0.54030231f);
  EXPECT_FLOAT_EQ(p.at(1, 2), 0.0099998333f);
  EXPECT_FLOAT_EQ(p.at(1, 3), 0.99995f);
  EXPECT_FLOAT_EQ(p.at(2, 0), 0.90929743f);  // sin 2
}

TEST(PositionalEncoding, EachPairHasNormOne) {
  Mat p(40, 16);
  ASSERT_EQ(attn::positional_encoding(10000.0, p.view()), Status::ok);
  for (std::size_t i = 0; i < 40; ++i)
    for (std::size_t c = 0; c < 16; c += 2)
      EXPECT_NEAR(p.at(i, c) * p.at(i, c) + p.at(i, c + 1) * p.at(i, c + 1), 1.0, 1e-6);
}

TEST(PositionalEncoding, DotProductDependsOnOffsetOnly) {
  const std::size_t n = 30, d = 16;
  Mat p(n, d);
  ASSERT_EQ(attn::positional_encoding(10000.0, p.view()), Status::ok);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      double dot = 0.0, expected = 0.0;
      for (std::size_t c = 0; c < d; ++c) dot += static_cast<double>(p.at(i, c)) * p.at(k, c);
      const double offset = static_cast<double>(i) - static_cast<double>(k);
      for (std::size_t j = 0; j < d / 2; ++j) expected += std::cos(offset * omega(j, d));
      ASSERT_NEAR(dot, expected, 1e-5) << i << "," << k;
    }
}

TEST(PositionalEncoding, AddsToX) {
  Rng rng(7);
  for (std::size_t d : {1u, 5u, 32u}) {
    const Mat x = attn_test::random_mat(9, d, rng, -3.0f, 3.0f, 2);
    Mat out(9, d, attn_test::kSentinel, 1);
    ASSERT_EQ(attn::add_positional_encoding(x.cview(), 10000.0, out.view()), Status::ok);
    for (std::size_t i = 0; i < 9; ++i)
      for (std::size_t c = 0; c < d; ++c)
        ASSERT_NEAR(out.at(i, c), static_cast<double>(x.at(i, c)) + reference(i, c, d, 10000.0), 1e-6);
    EXPECT_TRUE(attn_test::padding_untouched(out));
    // In place gives the same numbers.
    Mat same = x;
    ASSERT_EQ(attn::add_positional_encoding(same.cview(), 10000.0, same.view()), Status::ok);
    for (std::size_t i = 0; i < 9; ++i)
      for (std::size_t c = 0; c < d; ++c) ASSERT_EQ(same.at(i, c), out.at(i, c));
  }
}

// X·scale + P (Dive into Deep Learning 10.7 scales by √d); a scale must be positive and finite.
TEST(PositionalEncoding, ScalesXBeforeAdding) {
  Rng rng(11);
  for (std::size_t d : {1u, 4u, 33u})
    for (double scale : {std::sqrt(static_cast<double>(d)), 0.25, 1.0}) {
      const Mat x = attn_test::random_mat(7, d, rng, -1.0f, 1.0f, 1);
      Mat out(7, d, attn_test::kSentinel, 2);
      ASSERT_EQ(attn::add_positional_encoding(x.cview(), 10000.0, scale, out.view()), Status::ok);
      for (std::size_t i = 0; i < 7; ++i)
        for (std::size_t c = 0; c < d; ++c)
          ASSERT_NEAR(out.at(i, c), scale * static_cast<double>(x.at(i, c)) + reference(i, c, d, 10000.0), 1e-6)
              << "d=" << d << " scale=" << scale << " at [" << i << "][" << c << "]";
      EXPECT_TRUE(attn_test::padding_untouched(out));
    }
  Mat p(2, 2, attn_test::kSentinel);
  for (double scale : {0.0, -2.0, std::numeric_limits<double>::infinity(), std::nan("")})
    EXPECT_EQ(attn::add_positional_encoding(p.cview(), 10000.0, scale, p.view()), Status::bad_argument) << scale;
  EXPECT_EQ(p.at(0, 0), attn_test::kSentinel);
}

TEST(PositionalEncoding, RejectsBadArguments) {
  Mat p(2, 2, attn_test::kSentinel);
  for (double base : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    EXPECT_EQ(attn::positional_encoding(base, p.view()), Status::bad_argument) << base;
    EXPECT_EQ(attn::add_positional_encoding(p.cview(), base, p.view()), Status::bad_argument) << base;
  }
  EXPECT_EQ(p.at(0, 0), attn_test::kSentinel);
  Mat x(2, 3), wrong(3, 2);
  EXPECT_EQ(attn::add_positional_encoding(x.cview(), 10000.0, wrong.view()), Status::shape_mismatch);
}

}  // namespace
