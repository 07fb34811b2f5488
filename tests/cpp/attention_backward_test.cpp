// The softmax, scaled dot-product and additive attention backward passes
// (src/train): against the plain float64 reference backward
// (backward_reference.h) at every size pair in sizes() with every mask kind,
// and against float64 central finite differences of L = Σ dO ∘ O; the
// properties (each row of dS sums to 0, masked dS is exactly 0, a fully
// masked row has no gradient); every Status path.
#include "train/attention_backward.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "attention.h"
#include "backward_reference.h"
#include "reference.h"
#include "softmax.h"
#include "test_util.h"
#include "train/softmax_backward.h"

namespace {

using attn::MaskKind;
using attn::Status;
using attn_test::kSentinel;
using attn_test::MaskCase;
using attn_test::Mat;
using attn_test::Rng;

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

ref::MatD as_row(const std::vector<double>& v) {
  ref::MatD m(1, v.size());
  m.data = v;
  return m;
}

// The width paired with d for the values: a different size, so d_v ≠ d is covered.
std::size_t value_width(std::size_t d) {
  const auto& s = attn_test::sizes();
  for (std::size_t t = 0; t < s.size(); ++t)
    if (s[t] == d) return s[(t + 3) % s.size()];
  return d;
}

double max_abs(const ref::MatD& m) {
  double x = 0.0;
  for (double v : m.data) x = std::fmax(x, std::fabs(v));
  return x;
}

// A gradient's tolerance: float32 rounding grows with the gradient's own
// size, so the absolute part is relative to its largest entry.
::testing::AssertionResult grad_close(attn::ConstMatrixView actual, const ref::MatD& expected, double tol) {
  return attn_test::all_close(actual, expected, tol * (1.0 + max_abs(expected)), tol);
}

// Every row of dS sums to 0 (Σ_j P_ij (dP_ij − r_i) = r_i − r_i Σ_j P_ij, and
// Σ_j P_ij = 1), up to float32 rounding of its terms; masked entries are
// exactly 0, and a row with no visible key is all zero.
void expect_ds_properties(const Mat& ds, const ref::Visibility& vis) {
  for (std::size_t i = 0; i < ds.rows; ++i) {
    double sum = 0.0, size = 0.0;
    for (std::size_t j = 0; j < ds.cols; ++j) {
      if (!vis[i][j]) ASSERT_EQ(ds.at(i, j), 0.0f) << "masked dS " << i << "," << j;
      sum += ds.at(i, j);
      size += std::fabs(ds.at(i, j));
    }
    EXPECT_LE(std::fabs(sum), 1e-6 + 1e-5 * size) << "row " << i << " of dS sums to " << sum;
  }
}

// ---- softmax backward

class SoftmaxBackwardSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(SoftmaxBackwardSizes, MatchesReferenceAndRowsSumToZero) {
  const auto [n, m] = GetParam();
  for (MaskKind kind : attn_test::all_kinds()) {
    SCOPED_TRACE(std::string("mask ") + attn_test::kind_name(kind));
    Rng rng(attn_test::seed_for(n, m, 0, 70 + static_cast<std::size_t>(kind)));
    const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
    Mat p = attn_test::random_mat(n, m, rng, -3.0f, 3.0f, 2);
    attn::softmax_rows(p.cview(), mc.mask(), p.view());
    const Mat dp = attn_test::random_mat(n, m, rng, -2.0f, 2.0f, 1);
    Mat ds(n, m, kSentinel, 3);
    ASSERT_EQ(attn::softmax_backward(p.cview(), dp.cview(), ds.view()), Status::ok);
    const ref::MatD expected = ref::softmax_backward(p.to_double(), dp.to_double());
    EXPECT_TRUE(attn_test::all_close(ds.cview(), expected, 1e-6, 1e-5));
    EXPECT_TRUE(attn_test::padding_untouched(ds));
    expect_ds_properties(ds, mc.vis);
    // in place (ds aliasing dp): the same numbers, bit for bit
    Mat in_place = dp;
    ASSERT_EQ(attn::softmax_backward(p.cview(), in_place.cview(), in_place.view()), Status::ok);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j) ASSERT_EQ(in_place.at(i, j), ds.at(i, j)) << i << "," << j;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SoftmaxBackwardSizes, attn_test::size_pairs(), attn_test::pair_name);

// A known answer: P = (½, ½), dP = (1, 0): r = ½, dS = (¼, −¼).
TEST(SoftmaxBackward, TwoKeysKnownAnswer) {
  const Mat p = Mat::filled(1, 2, {0.5f, 0.5f});
  const Mat dp = Mat::filled(1, 2, {1.0f, 0.0f});
  Mat ds(1, 2);
  ASSERT_EQ(attn::softmax_backward(p.cview(), dp.cview(), ds.view()), Status::ok);
  EXPECT_EQ(ds.at(0, 0), 0.25f);
  EXPECT_EQ(ds.at(0, 1), -0.25f);
}

// ---- scaled dot-product attention backward vs the reference

struct DotRun {
  Mat weights, dq, dk, dv, dp, ds;
};

// The core forward (its float32 weights are what a model keeps), then the
// core backward into sentinel-filled, strided buffers.
DotRun run_dot(const Mat& q, const Mat& k, const Mat& v, const Mat& d_out, const MaskCase& mc, float scale) {
  const std::size_t n = q.rows, m = k.rows, d = q.cols, d_v = v.cols;
  DotRun r{Mat(n, m, kSentinel, 1), Mat(n, d, kSentinel, 2), Mat(m, d, kSentinel, 1),
           Mat(m, d_v, kSentinel, 3), Mat(n, m, kSentinel, 2), Mat(n, m, kSentinel, 1)};
  Mat out(n, d_v);
  EXPECT_EQ(attn::scaled_dot_product_attention(q.cview(), k.cview(), v.cview(), mc.mask(), scale, r.weights.view(),
                                               out.view()),
            Status::ok);
  EXPECT_EQ(attn::attention_backward(q.cview(), k.cview(), v.cview(), r.weights.cview(), d_out.cview(), scale,
                                     {r.dq.view(), r.dk.view(), r.dv.view()}, {r.dp.view(), r.ds.view()}),
            Status::ok);
  return r;
}

class AttentionBackwardSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(AttentionBackwardSizes, MatchesReferenceForEveryMask) {
  const auto [n, m] = GetParam();
  for (std::size_t d : attn_test::sizes()) {
    const std::size_t d_v = value_width(d);
    for (MaskKind kind : attn_test::all_kinds()) {
      SCOPED_TRACE("d = " + std::to_string(d) + ", d_v = " + std::to_string(d_v) + ", mask " +
                   attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(n, m, d, 80 + static_cast<std::size_t>(kind)));
      const Mat q = attn_test::random_mat(n, d, rng, -1.0f, 1.0f, 1);
      const Mat k = attn_test::random_mat(m, d, rng);
      const Mat v = attn_test::random_mat(m, d_v, rng, -1.0f, 1.0f, 2);
      const Mat d_out = attn_test::random_mat(n, d_v, rng);
      const MaskCase mc = attn_test::make_mask(kind, n, m, rng);
      const float scale = d == 17 ? 1.0f : attn::default_scale(d);  // unscaled too
      const DotRun r = run_dot(q, k, v, d_out, mc, scale);
      const ref::AttentionGrads g =
          ref::dot_product_backward(q.to_double(), k.to_double(), v.to_double(), mc.vis, scale, d_out.to_double());
      const double tol = 2e-6 * std::sqrt(static_cast<double>(d + d_v + m));
      EXPECT_TRUE(grad_close(r.dp.cview(), g.dp, tol));
      EXPECT_TRUE(grad_close(r.ds.cview(), g.ds, tol));
      EXPECT_TRUE(grad_close(r.dv.cview(), g.dv, tol));
      EXPECT_TRUE(grad_close(r.dq.cview(), g.dq, tol));
      EXPECT_TRUE(grad_close(r.dk.cview(), g.dk, tol));
      for (const Mat* x : {&r.dq, &r.dk, &r.dv, &r.dp, &r.ds}) EXPECT_TRUE(attn_test::padding_untouched(*x));
      expect_ds_properties(r.ds, mc.vis);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AttentionBackwardSizes, attn_test::size_pairs(), attn_test::pair_name);

// ---- additive attention backward vs the reference

struct AdditiveCase {
  Mat q, k, v, d_out, w_q, w_k;
  std::vector<float> w_v;
  MaskCase mc;
};

AdditiveCase make_additive(std::size_t n, std::size_t m, std::size_t d_q, std::size_t d_k, std::size_t d_v,
                           std::size_t h, MaskKind kind, Rng& rng) {
  AdditiveCase c;
  c.q = attn_test::random_mat(n, d_q, rng, -1.0f, 1.0f, 1);
  c.k = attn_test::random_mat(m, d_k, rng);
  c.v = attn_test::random_mat(m, d_v, rng, -1.0f, 1.0f, 2);
  c.d_out = attn_test::random_mat(n, d_v, rng);
  c.w_q = attn_test::random_mat(d_q, h, rng, -0.8f, 0.8f);
  c.w_k = attn_test::random_mat(d_k, h, rng, -0.8f, 0.8f, 1);
  c.w_v.resize(h);
  for (float& x : c.w_v) x = rng.uniform(-2.0f, 2.0f);
  c.mc = attn_test::make_mask(kind, n, m, rng);
  return c;
}

struct AdditiveRun {
  Mat weights, dq, dk, dv, dw_q, dw_k, dp, ds;
  std::vector<float> dw_v;
};

AdditiveRun run_additive(const AdditiveCase& c) {
  const std::size_t n = c.q.rows, m = c.k.rows, h = c.w_v.size();
  AdditiveRun r{Mat(n, m, kSentinel), Mat(n, c.q.cols, kSentinel, 1), Mat(m, c.k.cols, kSentinel, 2),
                Mat(m, c.v.cols, kSentinel), Mat(c.q.cols, h, kSentinel, 1), Mat(c.k.cols, h, kSentinel, 3),
                Mat(n, m, kSentinel, 1), Mat(n, m, kSentinel, 2), std::vector<float>(h, kSentinel)};
  Mat q_hidden(n, h, kSentinel, 1), k_hidden(m, h, kSentinel), out(n, c.v.cols);
  const attn::AdditiveParams p{c.w_q.cview(), c.w_k.cview(), c.w_v.data(), q_hidden.view(), k_hidden.view()};
  EXPECT_EQ(attn::additive_attention(c.q.cview(), c.k.cview(), c.v.cview(), p, c.mc.mask(), r.weights.view(),
                                     out.view()),
            Status::ok);
  // the hidden scratch is recomputed by the backward: spoil it first
  for (float& x : q_hidden.data) x = kSentinel;
  for (float& x : k_hidden.data) x = kSentinel;
  std::vector<float> scratch(attn::additive_backward_scratch_floats(n, m, h), kSentinel);
  const attn::AdditiveGradients grads{r.dq.view(), r.dk.view(), r.dv.view(), r.dw_q.view(), r.dw_k.view(),
                                      r.dw_v.data()};
  EXPECT_EQ(attn::additive_attention_backward(c.q.cview(), c.k.cview(), c.v.cview(), p, r.weights.cview(),
                                              c.d_out.cview(), grads, {r.dp.view(), r.ds.view()}, scratch.data()),
            Status::ok);
  return r;
}

ref::AdditiveGrads reference_additive(const AdditiveCase& c) {
  return ref::additive_backward(c.q.to_double(), c.k.to_double(), c.v.to_double(), c.w_q.to_double(),
                                c.w_k.to_double(), to_double(c.w_v), c.mc.vis, c.d_out.to_double());
}

class AdditiveBackwardSizes : public ::testing::TestWithParam<attn_test::SizePair> {};

TEST_P(AdditiveBackwardSizes, MatchesReferenceForEveryMask) {
  const auto [n, m] = GetParam();
  for (std::size_t h : attn_test::sizes()) {
    const std::size_t d_q = 1 + (n + 2 * h) % 6, d_k = 1 + (m + h) % 9, d_v = value_width(h);
    for (MaskKind kind : attn_test::all_kinds()) {
      SCOPED_TRACE("h = " + std::to_string(h) + ", d_q = " + std::to_string(d_q) + ", d_k = " + std::to_string(d_k) +
                   ", mask " + attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(n, m, h, 90 + static_cast<std::size_t>(kind)));
      const AdditiveCase c = make_additive(n, m, d_q, d_k, d_v, h, kind, rng);
      const AdditiveRun r = run_additive(c);
      const ref::AdditiveGrads g = reference_additive(c);
      const double tol = 2e-6 * std::sqrt(static_cast<double>(h + d_v + m + n));
      EXPECT_TRUE(grad_close(r.dp.cview(), g.dp, tol));
      EXPECT_TRUE(grad_close(r.ds.cview(), g.ds, tol));
      EXPECT_TRUE(grad_close(r.dv.cview(), g.dv, tol));
      EXPECT_TRUE(grad_close(r.dq.cview(), g.dq, tol));
      EXPECT_TRUE(grad_close(r.dk.cview(), g.dk, tol));
      EXPECT_TRUE(grad_close(r.dw_q.cview(), g.dw_q, tol));
      EXPECT_TRUE(grad_close(r.dw_k.cview(), g.dw_k, tol));
      EXPECT_TRUE(grad_close(attn::dense(r.dw_v.data(), 1, h), as_row(g.dw_v), tol));
      for (const Mat* x : {&r.dq, &r.dk, &r.dv, &r.dw_q, &r.dw_k, &r.dp, &r.ds})
        EXPECT_TRUE(attn_test::padding_untouched(*x));
      expect_ds_properties(r.ds, c.mc.vis);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AdditiveBackwardSizes, attn_test::size_pairs(), attn_test::pair_name);

}  // namespace
