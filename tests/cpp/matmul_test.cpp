// matmul (A·B) and matmul_transposed (alpha·A·Bᵀ) against the float64
// reference at every size in sizes(), with padded and column-slice views.
#include "matmul.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace {

using attn_test::Mat;
using attn_test::Rng;

// Float32 sums of k products of values in [-1, 1]: well inside k·1e-6.
double product_atol(std::size_t k) { return 1e-6 * static_cast<double>(k + 1); }
constexpr double kRtol = 1e-5;

class MatmulSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(MatmulSizes, MatchesReferenceForEveryInnerWidth) {
  const auto [n, m] = GetParam();
  for (std::size_t k : attn_test::sizes()) {
    SCOPED_TRACE("k = " + std::to_string(k));
    Rng rng(attn_test::seed_for(n, m, k, 1));
    // Padded rows: a kernel that ignores the stride, or writes past cols, is caught.
    const Mat a = attn_test::random_mat(n, k, rng, -1.0f, 1.0f, 3);
    const Mat b = attn_test::random_mat(k, m, rng, -1.0f, 1.0f, 5);
    Mat c(n, m, attn_test::kSentinel, 2);
    attn::matmul(a.cview(), b.cview(), c.view());
    EXPECT_TRUE(attn_test::all_close(c.cview(), ref::matmul(a.to_double(), b.to_double()), product_atol(k), kRtol));
    EXPECT_TRUE(attn_test::padding_untouched(c));
  }
}

TEST_P(MatmulSizes, TransposedMatchesReferenceForEveryInnerWidth) {
  const auto [n, m] = GetParam();
  for (std::size_t k : attn_test::sizes()) {
    for (float alpha : {1.0f, 0.375f, -2.5f}) {
      SCOPED_TRACE("k = " + std::to_string(k) + ", alpha = " + std::to_string(alpha));
      Rng rng(attn_test::seed_for(n, m, k, 2));
      const Mat a = attn_test::random_mat(n, k, rng, -1.0f, 1.0f, 1);
      const Mat b = attn_test::random_mat(m, k, rng, -1.0f, 1.0f, 4);
      Mat c(n, m, attn_test::kSentinel, 3);
      attn::matmul_transposed(a.cview(), b.cview(), alpha, c.view());
      EXPECT_TRUE(attn_test::all_close(c.cview(), ref::matmul_bt(a.to_double(), b.to_double(), alpha),
                                       product_atol(k) * 2.5, kRtol));
      EXPECT_TRUE(attn_test::padding_untouched(c));
    }
  }
}

// B packed once into 8-column panels (a layer's weights), then A · B streamed.
TEST_P(MatmulSizes, PackedMatchesReferenceForEveryInnerWidth) {
  const auto [n, m] = GetParam();
  for (std::size_t k : attn_test::sizes()) {
    SCOPED_TRACE("k = " + std::to_string(k));
    Rng rng(attn_test::seed_for(n, m, k, 4));
    const Mat a = attn_test::random_mat(n, k, rng, -1.0f, 1.0f, 2);
    const Mat b = attn_test::random_mat(k, m, rng, -1.0f, 1.0f, 3);
    const std::size_t floats = attn::packed_floats(k, m);
    EXPECT_EQ(floats, k * ((m + 7) / 8 * 8));
    std::vector<float> packed(floats + 8, attn_test::kSentinel);  // 8 guard floats past the end
    attn::pack_columns(b.cview(), packed.data());
    EXPECT_TRUE(
        attn_test::untouched(std::vector<float>(packed.begin() + static_cast<std::ptrdiff_t>(floats), packed.end()),
                             "past the packed size"));
    Mat c(n, m, attn_test::kSentinel, 3);
    attn::matmul_packed(a.cview(), packed.data(), c.view());
    EXPECT_TRUE(attn_test::all_close(c.cview(), ref::matmul(a.to_double(), b.to_double()), product_atol(k), kRtol));
    EXPECT_TRUE(attn_test::padding_untouched(c));
  }
}

// Bᵀ packed from B (m×k): matmul_packed then gives A · Bᵀ (a layer's dx = dy Wᵀ).
TEST_P(MatmulSizes, PackedTransposedMatchesReferenceForEveryInnerWidth) {
  const auto [n, m] = GetParam();
  for (std::size_t k : attn_test::sizes()) {
    SCOPED_TRACE("k = " + std::to_string(k));
    Rng rng(attn_test::seed_for(n, m, k, 5));
    const Mat a = attn_test::random_mat(n, k, rng, -1.0f, 1.0f, 2);
    const Mat b = attn_test::random_mat(m, k, rng, -1.0f, 1.0f, 3);
    const std::size_t floats = attn::packed_floats(k, m);
    std::vector<float> packed(floats + 8, attn_test::kSentinel);
    attn::pack_transposed(b.cview(), packed.data());
    EXPECT_TRUE(
        attn_test::untouched(std::vector<float>(packed.begin() + static_cast<std::ptrdiff_t>(floats), packed.end()),
                             "past the packed size"));
    Mat c(n, m, attn_test::kSentinel, 3);
    attn::matmul_packed(a.cview(), packed.data(), c.view());
    EXPECT_TRUE(attn_test::all_close(c.cview(), ref::matmul_bt(a.to_double(), b.to_double()), product_atol(k), kRtol));
    EXPECT_TRUE(attn_test::padding_untouched(c));
  }
}

// C = alpha · Aᵀ B over more rows than one chunk and more rows and columns of C than one block.
TEST_P(MatmulSizes, TransposedLeftMatchesReferenceAcrossChunksAndBlocks) {
  const auto [k, m] = GetParam();
  for (std::size_t n : {0u, 1u, 31u, 32u, 33u, 100u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    Rng rng(attn_test::seed_for(n, m, k, 6));
    const Mat a = attn_test::random_mat(n, k, rng, -1.0f, 1.0f, 1);
    const Mat b = attn_test::random_mat(n, m, rng, -1.0f, 1.0f, 2);
    ref::MatD expected(k, m);
    const ref::MatD ad = a.to_double(), bd = b.to_double();
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < m; ++j) {
        for (std::size_t i = 0; i < n; ++i) expected.at(p, j) += ad.at(i, p) * bd.at(i, j);
        expected.at(p, j) *= -0.75;
      }
    Mat c(k, m, attn_test::kSentinel, 3);
    attn::matmul_transposed_a(a.cview(), b.cview(), -0.75f, c.view());
    EXPECT_TRUE(attn_test::all_close(c.cview(), expected, product_atol(n), kRtol));
    EXPECT_TRUE(attn_test::padding_untouched(c));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, MatmulSizes, attn_test::size_pairs(), attn_test::pair_name);

// The accumulating form sums from zero and adds once, whatever the chunks and
// blocks: a second identical call doubles C exactly (a weight gradient used twice).
TEST(Matmul, TransposedLeftAccumulateDoublesExactlyAcrossChunksAndBlocks) {
  Rng rng(13);
  const Mat a = attn_test::random_mat(100, 70, rng), b = attn_test::random_mat(100, 67, rng);
  Mat c(70, 67, 0.0f);
  attn::matmul_transposed_a_accumulate(a.cview(), b.cview(), c.view());
  const Mat once = c;
  attn::matmul_transposed_a_accumulate(a.cview(), b.cview(), c.view());
  for (std::size_t t = 0; t < c.data.size(); ++t) ASSERT_EQ(c.data[t], 2.0f * once.data[t]) << "C[" << t << "]";
}

// matmul_transposed's path depends on B alone: a product done row by row rounds
// as the whole, bit for bit (for a B packed on the stack and for one too large).
TEST(Matmul, TransposedRowByRowIsTheWholeProduct) {
  Rng rng(14);
  for (std::size_t m : {35u, 70u}) {
    const Mat a = attn_test::random_mat(9, 64, rng), b = attn_test::random_mat(m, 64, rng);
    Mat whole(9, m), row(1, m);
    attn::matmul_transposed(a.cview(), b.cview(), 0.25f, whole.view());
    for (std::size_t i = 0; i < 9; ++i) {
      attn::matmul_transposed({a.cview().row(i), 1, 64, a.stride}, b.cview(), 0.25f, row.view());
      for (std::size_t j = 0; j < m; ++j)
        ASSERT_EQ(row.at(0, j), whole.at(i, j)) << "m = " << m << " [" << i << "][" << j << "]";
    }
  }
}

TEST(Matmul, SmallKnownProduct) {
  const Mat a = Mat::filled(2, 3, {1, 2, 3, 4, 5, 6});
  const Mat b = Mat::filled(3, 2, {7, 8, 9, 10, 11, 12});
  Mat c(2, 2);
  attn::matmul(a.cview(), b.cview(), c.view());
  EXPECT_EQ(c.at(0, 0), 58.0f);
  EXPECT_EQ(c.at(0, 1), 64.0f);
  EXPECT_EQ(c.at(1, 0), 139.0f);
  EXPECT_EQ(c.at(1, 1), 154.0f);
}

TEST(Matmul, TransposedSmallKnownProductNeverFormsTranspose) {
  // A·Bᵀ with B given row-wise: entry (i, j) is row i of A dotted with row j of B.
  const Mat a = Mat::filled(2, 3, {1, 2, 3, 4, 5, 6});
  const Mat b = Mat::filled(2, 3, {7, 9, 11, 8, 10, 12});
  Mat c(2, 2);
  attn::matmul_transposed(a.cview(), b.cview(), 0.5f, c.view());
  EXPECT_EQ(c.at(0, 0), 29.0f);
  EXPECT_EQ(c.at(0, 1), 32.0f);
  EXPECT_EQ(c.at(1, 0), 69.5f);
  EXPECT_EQ(c.at(1, 1), 77.0f);
}

TEST(Matmul, EmptyInnerDimensionGivesZeros) {
  for (std::size_t n : {1u, 5u, 8u}) {
    Mat a(n, 0), b(0, 7), bt(7, 0);
    Mat c(n, 7, attn_test::kSentinel), ct(n, 7, attn_test::kSentinel);
    attn::matmul(a.cview(), b.cview(), c.view());
    attn::matmul_transposed(a.cview(), bt.cview(), 3.0f, ct.view());
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < 7; ++j) {
        EXPECT_EQ(c.at(i, j), 0.0f) << i << "," << j;
        EXPECT_EQ(ct.at(i, j), 0.0f) << i << "," << j;
      }
  }
}

TEST(Matmul, IdentityIsExact) {
  Rng rng(7);
  for (std::size_t n : attn_test::sizes()) {
    const Mat a = attn_test::random_mat(n, n, rng);
    Mat eye(n, n);
    for (std::size_t i = 0; i < n; ++i) eye.at(i, i) = 1.0f;
    Mat c(n, n), ct(n, n);
    attn::matmul(a.cview(), eye.cview(), c.view());
    attn::matmul_transposed(a.cview(), eye.cview(), 1.0f, ct.view());
    EXPECT_EQ(c.data, a.data) << "n = " << n;
    EXPECT_EQ(ct.data, a.data) << "n = " << n;
  }
}

// Column slices, as multi-head attention takes them: each operand is a block
// of columns inside a wider matrix, and the product is written into a block
// of a wider output whose other columns must stay untouched.
TEST(Matmul, ColumnSliceViews) {
  for (std::size_t n : {1u, 3u, 5u, 17u, 65u}) {
    for (std::size_t k : {1u, 4u, 5u, 17u}) {
      for (std::size_t m : {1u, 3u, 8u, 9u, 65u}) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", k = " + std::to_string(k) + ", m = " + std::to_string(m));
        Rng rng(attn_test::seed_for(n, k, m, 3));
        const Mat wide_a = attn_test::random_mat(n, 3 * k + 1, rng);
        const Mat wide_b = attn_test::random_mat(k, 2 * m + 3, rng);
        const Mat wide_bt = attn_test::random_mat(m, 2 * k + 2, rng);
        const auto a = attn::column_slice(wide_a.cview(), k + 1, k);
        const auto b = attn::column_slice(wide_b.cview(), m + 1, m);
        const auto bt = attn::column_slice(wide_bt.cview(), 2, k);

        Mat out(n, 2 * m + 2, attn_test::kSentinel);
        attn::matmul(a, b, attn::column_slice(out.view(), m + 1, m));
        const ref::MatD expected =
            ref::matmul(ref::columns(wide_a.to_double(), k + 1, k), ref::columns(wide_b.to_double(), m + 1, m));
        EXPECT_TRUE(attn_test::all_close(attn::column_slice(out.cview(), m + 1, m), expected, product_atol(k), kRtol));

        Mat out_t(n, m + 5, attn_test::kSentinel);
        attn::matmul_transposed(a, bt, 0.5f, attn::column_slice(out_t.view(), 4, m));
        const ref::MatD expected_t =
            ref::matmul_bt(ref::columns(wide_a.to_double(), k + 1, k), ref::columns(wide_bt.to_double(), 2, k), 0.5);
        EXPECT_TRUE(attn_test::all_close(attn::column_slice(out_t.cview(), 4, m), expected_t, product_atol(k), kRtol));

        for (std::size_t i = 0; i < n; ++i) {
          for (std::size_t j = 0; j < out.cols; ++j)
            if (j < m + 1 || j >= 2 * m + 1) {
              ASSERT_EQ(out.at(i, j), attn_test::kSentinel) << i << "," << j;
            }
          for (std::size_t j = 0; j < out_t.cols; ++j)
            if (j < 4 || j >= m + 4) {
              ASSERT_EQ(out_t.at(i, j), attn_test::kSentinel) << i << "," << j;
            }
        }
      }
    }
  }
}

// Values of 1e4 in a length-65 product: sums near 6.5e9, still finite and
// relatively accurate in float32.
TEST(Matmul, LargeValuesRelativeAccuracy) {
  Rng rng(11);
  const Mat a = attn_test::random_mat(17, 65, rng, 1e3f, 1e4f);
  const Mat b = attn_test::random_mat(65, 9, rng, 1e3f, 1e4f);
  Mat c(17, 9);
  attn::matmul(a.cview(), b.cview(), c.view());
  EXPECT_TRUE(attn_test::all_close(c.cview(), ref::matmul(a.to_double(), b.to_double()), 0.0, 1e-5));
  Mat ct(17, 17);
  attn::matmul_transposed(a.cview(), a.cview(), 1.0f, ct.view());
  EXPECT_TRUE(attn_test::all_close(ct.cview(), ref::matmul_bt(a.to_double(), a.to_double()), 0.0, 1e-5));
}

TEST(Matmul, PackedColumnSlices) {
  // A packed from a column block of a wider matrix, A a column block, C a block of a wider output.
  Rng rng(12);
  for (std::size_t m : {1u, 7u, 8u, 9u, 65u}) {
    const Mat wide_a = attn_test::random_mat(17, 12, rng), wide_b = attn_test::random_mat(5, m + 6, rng);
    std::vector<float> packed(attn::packed_floats(5, m));
    attn::pack_columns(attn::column_slice(wide_b.cview(), 3, m), packed.data());
    Mat out(17, m + 4, attn_test::kSentinel);
    attn::matmul_packed(attn::column_slice(wide_a.cview(), 6, 5), packed.data(), attn::column_slice(out.view(), 1, m));
    EXPECT_TRUE(attn_test::all_close(
        attn::column_slice(out.cview(), 1, m),
        ref::matmul(ref::columns(wide_a.to_double(), 6, 5), ref::columns(wide_b.to_double(), 3, m)), 1e-5, kRtol))
        << "m = " << m;
    for (std::size_t i = 0; i < 17; ++i)
      for (std::size_t j : {std::size_t{0}, m + 1, m + 2, m + 3}) EXPECT_EQ(out.at(i, j), attn_test::kSentinel);
  }
}

}  // namespace
