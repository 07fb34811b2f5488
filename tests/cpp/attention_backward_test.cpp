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
#include <functional>
#include <utility>
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

// ---- against central finite differences of L = Σ dO ∘ O (float64, reference forward)

// The entries a finite-difference check visits: all of a small matrix, 40
// spread over a large one (the first and last included).
std::vector<std::size_t> entries_to_check(std::size_t count, Rng& rng) {
  std::vector<std::size_t> e;
  if (count <= 160) {
    for (std::size_t t = 0; t < count; ++t) e.push_back(t);
    return e;
  }
  e = {0, count - 1};
  while (e.size() < 40) e.push_back(rng.below(count));
  return e;
}

// The largest |actual − expected| over the checked entries, and the largest
// |expected| there (relative error = abs / max(scale, 1e-12)).
struct Error {
  double abs = 0.0, scale = 0.0;
  double rel() const { return abs / std::fmax(scale, 1e-12); }
  void add(double actual, double expected) {
    abs = std::fmax(abs, std::fabs(actual - expected));
    scale = std::fmax(scale, std::fabs(expected));
  }
  void worst_of(const Error& e) {
    abs = std::fmax(abs, e.abs);
    scale = std::fmax(scale, e.scale);
  }
};

// One gradient: core (float32) vs finite differences, core vs reference, and
// reference vs finite differences, over the checked entries.
struct GradErrors {
  Error core_fd, core_ref, ref_fd;
  void worst_of(const GradErrors& g) {
    core_fd.worst_of(g.core_fd);
    core_ref.worst_of(g.core_ref);
    ref_fd.worst_of(g.ref_fd);
  }
};

GradErrors compare(attn::ConstMatrixView core, const ref::MatD& reference, const std::vector<double>& fd,
                   const std::vector<std::size_t>& entries) {
  GradErrors g;
  for (std::size_t t : entries) {
    const std::size_t i = t / reference.cols, j = t % reference.cols;
    g.core_fd.add(core.at(i, j), fd[t]);
    g.core_ref.add(core.at(i, j), reference.data[t]);
    g.ref_fd.add(reference.data[t], fd[t]);
  }
  return g;
}

// Finite differences of the loss with respect to x's entries (x is one of
// the forward's inputs, perturbed in place), compared with both gradients.
GradErrors check_gradient(ref::MatD& x, const std::function<double()>& loss, attn::ConstMatrixView core,
                          const ref::MatD& reference, Rng& rng) {
  const std::vector<std::size_t> entries = entries_to_check(x.data.size(), rng);
  const std::vector<double> fd = ref::central_differences(x.data, loss, entries);
  return compare(core, reference, fd, entries);
}

// Float32 gradients of O(1) inputs agree with float64 finite differences to
// about 1e-6 relative (measured worst 2.4e-6, additive at n 64 m 65; see the
// printed table); the reference to about 1e-8.
constexpr double kCoreVsFdRel = 1e-5, kRefVsFdRel = 1e-7;

void expect_and_print(const char* what, const std::string& shape, MaskKind kind, const GradErrors& worst) {
  std::printf("gradcheck %-8s %-28s %-10s core-fd abs %.2e rel %.2e | core-ref abs %.2e rel %.2e | ref-fd rel %.2e\n",
              what, shape.c_str(), attn_test::kind_name(kind), worst.core_fd.abs, worst.core_fd.rel(),
              worst.core_ref.abs, worst.core_ref.rel(), worst.ref_fd.rel());
  EXPECT_LE(worst.core_fd.rel(), kCoreVsFdRel) << what << " " << shape;
  EXPECT_LE(worst.core_ref.rel(), kCoreVsFdRel) << what << " " << shape;
  EXPECT_LE(worst.ref_fd.rel(), kRefVsFdRel) << what << " " << shape;
}

struct DotShape {
  std::size_t n, m, d, d_v;
};

// Every size of sizes() appears as n, as m and as d; n ≠ m (cross-attention) in most.
const std::vector<DotShape> kDotShapes = {{1, 1, 1, 1},   {3, 5, 4, 8},    {4, 3, 5, 1},   {5, 4, 3, 17},
                                          {8, 8, 17, 5},  {17, 8, 8, 4},   {8, 64, 65, 3}, {65, 17, 4, 64},
                                          {64, 65, 64, 65}};

TEST(BackwardGradientCheck, DotProductAgainstFiniteDifferences) {
  for (const DotShape& s : kDotShapes) {
    for (MaskKind kind : attn_test::all_kinds()) {
      const std::string shape = "n" + std::to_string(s.n) + " m" + std::to_string(s.m) + " d" + std::to_string(s.d) +
                                " dv" + std::to_string(s.d_v);
      SCOPED_TRACE(shape + ", mask " + attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(s.n, s.m, s.d, 100 + static_cast<std::size_t>(kind)));
      const Mat q = attn_test::random_mat(s.n, s.d, rng), k = attn_test::random_mat(s.m, s.d, rng);
      const Mat v = attn_test::random_mat(s.m, s.d_v, rng), d_out = attn_test::random_mat(s.n, s.d_v, rng);
      const MaskCase mc = attn_test::make_mask(kind, s.n, s.m, rng);
      const float scale = attn::default_scale(s.d);
      const DotRun r = run_dot(q, k, v, d_out, mc, scale);
      ref::MatD qd = q.to_double(), kd = k.to_double(), vd = v.to_double();
      const ref::MatD dod = d_out.to_double();
      const ref::AttentionGrads g = ref::dot_product_backward(qd, kd, vd, mc.vis, scale, dod);
      const auto loss = [&] {
        return ref::loss_against(ref::dot_product_attention(qd, kd, vd, mc.vis, scale).output, dod);
      };
      GradErrors worst;
      worst.worst_of(check_gradient(qd, loss, r.dq.cview(), g.dq, rng));
      worst.worst_of(check_gradient(kd, loss, r.dk.cview(), g.dk, rng));
      worst.worst_of(check_gradient(vd, loss, r.dv.cview(), g.dv, rng));
      expect_and_print("dot", shape, kind, worst);
    }
  }
}

struct AdditiveShape {
  std::size_t n, m, d_q, d_k, d_v, h;
};

const std::vector<AdditiveShape> kAdditiveShapes = {
    {1, 1, 1, 1, 1, 1},   {3, 5, 4, 3, 8, 5},    {4, 3, 5, 8, 1, 4},  {5, 4, 3, 1, 17, 3},
    {8, 8, 17, 4, 5, 8},  {17, 8, 8, 5, 4, 17},  {17, 5, 3, 4, 8, 64}, {5, 17, 4, 3, 8, 65},
    {8, 64, 3, 65, 4, 8}, {65, 17, 64, 3, 5, 4}, {64, 65, 5, 8, 3, 4}};

TEST(BackwardGradientCheck, AdditiveAgainstFiniteDifferences) {
  for (const AdditiveShape& s : kAdditiveShapes) {
    for (MaskKind kind : attn_test::all_kinds()) {
      const std::string shape = "n" + std::to_string(s.n) + " m" + std::to_string(s.m) + " dq" + std::to_string(s.d_q) +
                                " dk" + std::to_string(s.d_k) + " dv" + std::to_string(s.d_v) + " h" +
                                std::to_string(s.h);
      SCOPED_TRACE(shape + ", mask " + attn_test::kind_name(kind));
      Rng rng(attn_test::seed_for(s.n, s.m, s.h, 110 + static_cast<std::size_t>(kind)));
      const AdditiveCase c = make_additive(s.n, s.m, s.d_q, s.d_k, s.d_v, s.h, kind, rng);
      const AdditiveRun r = run_additive(c);
      const ref::AdditiveGrads g = reference_additive(c);
      ref::MatD qd = c.q.to_double(), kd = c.k.to_double(), vd = c.v.to_double();
      ref::MatD wqd = c.w_q.to_double(), wkd = c.w_k.to_double(), wvd = as_row(to_double(c.w_v));
      const ref::MatD dod = c.d_out.to_double();
      const auto loss = [&] {
        return ref::loss_against(ref::additive_attention(qd, kd, vd, wqd, wkd, wvd.data, c.mc.vis).attention.output,
                                 dod);
      };
      GradErrors worst;
      worst.worst_of(check_gradient(qd, loss, r.dq.cview(), g.dq, rng));
      worst.worst_of(check_gradient(kd, loss, r.dk.cview(), g.dk, rng));
      worst.worst_of(check_gradient(vd, loss, r.dv.cview(), g.dv, rng));
      worst.worst_of(check_gradient(wqd, loss, r.dw_q.cview(), g.dw_q, rng));
      worst.worst_of(check_gradient(wkd, loss, r.dw_k.cview(), g.dw_k, rng));
      worst.worst_of(check_gradient(wvd, loss, attn::dense(r.dw_v.data(), 1, s.h), as_row(g.dw_v), rng));
      expect_and_print("additive", shape, kind, worst);
    }
  }
}

// ---- what masking means for the gradients

// A query with no visible key (valid length 0) has no weights, so its dQ row
// is 0; a key no query sees (past every valid length) gets dK = dV = 0.
TEST(AttentionBackward, FullyMaskedRowsAndUnseenKeysGetZeroGradient) {
  const std::size_t n = 5, m = 9, d = 4, d_v = 3;
  Rng rng(2026);
  const Mat q = attn_test::random_mat(n, d, rng), k = attn_test::random_mat(m, d, rng);
  const Mat v = attn_test::random_mat(m, d_v, rng), d_out = attn_test::random_mat(n, d_v, rng);
  MaskCase mc;
  mc.kind = MaskKind::valid_lens;
  mc.lens = {0, 3, 6, 1, 6};
  const DotRun r = run_dot(q, k, v, d_out, mc, attn::default_scale(d));
  for (std::size_t t = 0; t < d; ++t) EXPECT_EQ(r.dq.at(0, t), 0.0f) << "dQ of the fully masked row 0";
  for (std::size_t j = 6; j < m; ++j) {
    for (std::size_t t = 0; t < d; ++t) EXPECT_EQ(r.dk.at(j, t), 0.0f) << "dK of unseen key " << j;
    for (std::size_t t = 0; t < d_v; ++t) EXPECT_EQ(r.dv.at(j, t), 0.0f) << "dV of unseen key " << j;
  }
  for (std::size_t j = 0; j < m; ++j) EXPECT_EQ(r.ds.at(0, j), 0.0f);
  // the dP step is dO Vᵀ everywhere, masked or not (the trace shows it whole)
  EXPECT_NE(r.dp.at(0, 0), 0.0f);
}

// The same with additive scoring: also no dW_q, dW_k, dw_v from masked pairs,
// so a fully masked batch gives all-zero parameter gradients.
TEST(AdditiveBackward, FullyMaskedGivesZeroParameterGradients) {
  Rng rng(7);
  AdditiveCase c = make_additive(4, 6, 3, 5, 2, 7, MaskKind::valid_lens, rng);
  c.mc.lens.assign(4, 0);
  const AdditiveRun r = run_additive(c);
  for (float x : r.dw_q.data) EXPECT_TRUE(x == 0.0f || x == kSentinel);
  for (float x : r.dw_k.data) EXPECT_TRUE(x == 0.0f || x == kSentinel);
  for (float x : r.dw_v) EXPECT_EQ(x, 0.0f);
  for (float x : r.dq.data) EXPECT_TRUE(x == 0.0f || x == kSentinel);
  for (float x : r.dv.data) EXPECT_EQ(x, 0.0f);
}

// tanh saturates without NaN: scores built from hidden values near ±40.
TEST(AdditiveBackward, SaturatedTanhStaysFinite) {
  Rng rng(11);
  AdditiveCase c = make_additive(3, 5, 2, 2, 2, 6, MaskKind::none, rng);
  for (float& x : c.w_q.data) x *= 40.0f;
  for (float& x : c.w_k.data) x *= 40.0f;
  const AdditiveRun r = run_additive(c);
  const ref::AdditiveGrads g = reference_additive(c);
  EXPECT_TRUE(grad_close(r.dq.cview(), g.dq, 1e-4));
  EXPECT_TRUE(grad_close(r.dw_q.cview(), g.dw_q, 1e-4));
  EXPECT_TRUE(grad_close(attn::dense(r.dw_v.data(), 1, 6), as_row(g.dw_v), 1e-4));
}

// Empty sizes: no queries (dK, dV are all zero), no keys (dQ is zero), zero
// widths; views of no entries may have no data.
TEST(AttentionBackward, EmptySizesWriteZerosOrNothing) {
  struct Case {
    std::size_t n, m, d, d_v;
  };
  for (const Case& c : std::vector<Case>{{0, 5, 4, 3}, {3, 0, 4, 3}, {3, 5, 0, 3}, {3, 5, 4, 0}, {0, 0, 0, 0}}) {
    SCOPED_TRACE("n " + std::to_string(c.n) + " m " + std::to_string(c.m) + " d " + std::to_string(c.d) + " d_v " +
                 std::to_string(c.d_v));
    Rng rng(attn_test::seed_for(c.n, c.m, c.d, 120));
    const Mat q = attn_test::random_mat(c.n, c.d, rng), k = attn_test::random_mat(c.m, c.d, rng);
    const Mat v = attn_test::random_mat(c.m, c.d_v, rng), d_out = attn_test::random_mat(c.n, c.d_v, rng);
    Mat p(c.n, c.m, 1.0f / static_cast<float>(c.m > 0 ? c.m : 1));
    Mat dq(c.n, c.d, kSentinel), dk(c.m, c.d, kSentinel), dv(c.m, c.d_v, kSentinel), dp(c.n, c.m), ds(c.n, c.m);
    ASSERT_EQ(attn::attention_backward(q.cview(), k.cview(), v.cview(), p.cview(), d_out.cview(), 0.5f,
                                       {dq.view(), dk.view(), dv.view()}, {dp.view(), ds.view()}),
              Status::ok);
    if (c.n == 0)
      for (const Mat* x : {&dk, &dv})
        for (float f : x->data) EXPECT_EQ(f, 0.0f);
    if (c.m == 0)
      for (float f : dq.data) EXPECT_EQ(f, 0.0f);
    // additive, hidden width 3 (and 0: no w_v, no scratch needed)
    for (std::size_t h : {3u, 0u}) {
      const Mat w_q = attn_test::random_mat(c.d, h, rng), w_k = attn_test::random_mat(c.d, h, rng);
      std::vector<float> w_v(h, 0.5f), dw_v(h, kSentinel);
      Mat qh(c.n, h), kh(c.m, h), dw_q(c.d, h, kSentinel), dw_k(c.d, h, kSentinel);
      std::vector<float> scratch(attn::additive_backward_scratch_floats(c.n, c.m, h));
      const attn::AdditiveParams params{w_q.cview(), w_k.cview(), h > 0 ? w_v.data() : nullptr, qh.view(), kh.view()};
      ASSERT_EQ(attn::additive_attention_backward(q.cview(), k.cview(), v.cview(), params, p.cview(), d_out.cview(),
                                                  {dq.view(), dk.view(), dv.view(), dw_q.view(), dw_k.view(),
                                                   h > 0 ? dw_v.data() : nullptr},
                                                  {dp.view(), ds.view()}, scratch.empty() ? nullptr : scratch.data()),
                Status::ok)
          << "h " << h;
      if (c.n == 0 || c.m == 0) {
        for (const Mat* x : {&dw_q, &dw_k})
          for (float f : x->data) EXPECT_EQ(f, 0.0f);
        for (float f : dw_v) EXPECT_EQ(f, 0.0f);
      }
    }
  }
}

// ---- Status paths: every shape that disagrees is refused before anything is written

TEST(BackwardStatus, SoftmaxShapeMismatches) {
  Mat p(3, 4), dp(3, 4), ds(3, 4), wide(3, 5), tall(4, 4);
  EXPECT_EQ(attn::softmax_backward(p.cview(), wide.cview(), ds.view()), Status::shape_mismatch);
  EXPECT_EQ(attn::softmax_backward(p.cview(), dp.cview(), tall.view()), Status::shape_mismatch);
  EXPECT_EQ(attn::softmax_backward(wide.cview(), dp.cview(), ds.view()), Status::shape_mismatch);
  EXPECT_EQ(attn::softmax_backward({nullptr, 3, 4, 4}, dp.cview(), ds.view()), Status::bad_argument);
  EXPECT_EQ(attn::softmax_backward(p.cview(), dp.cview(), ds.view()), Status::ok);
}

// All the buffers of one dot-product backward call, each of which a case breaks.
struct DotBuffers {
  std::size_t n = 3, m = 5, d = 4, d_v = 2;
  Mat q{n, d}, k{m, d}, v{m, d_v}, p{n, m, 0.2f}, d_out{n, d_v, 1.0f};
  Mat dq{n, d, kSentinel}, dk{m, d, kSentinel}, dv{m, d_v, kSentinel}, dp{n, m, kSentinel}, ds{n, m, kSentinel};
  Status call() {
    return attn::attention_backward(q.cview(), k.cview(), v.cview(), p.cview(), d_out.cview(), 0.5f,
                                    {dq.view(), dk.view(), dv.view()}, {dp.view(), ds.view()});
  }
  bool nothing_written() const {
    for (const Mat* x : {&dq, &dk, &dv, &dp, &ds})
      for (float f : x->data)
        if (f != kSentinel) return false;
    return true;
  }
};

TEST(BackwardStatus, DotProductShapeMismatches) {
  const std::vector<std::pair<const char*, void (*)(DotBuffers&)>> cases = {
      {"Q.cols != K.cols", [](DotBuffers& b) { b.q = Mat(b.n, b.d + 1); }},
      {"V.rows != K.rows", [](DotBuffers& b) { b.v = Mat(b.m + 1, b.d_v); }},
      {"P not n×m", [](DotBuffers& b) { b.p = Mat(b.n, b.m + 1); }},
      {"P rows", [](DotBuffers& b) { b.p = Mat(b.n + 1, b.m); }},
      {"dO cols != V.cols", [](DotBuffers& b) { b.d_out = Mat(b.n, b.d_v + 1); }},
      {"dO rows != n", [](DotBuffers& b) { b.d_out = Mat(b.n + 1, b.d_v); }},
      {"dQ", [](DotBuffers& b) { b.dq = Mat(b.n, b.d + 1, kSentinel); }},
      {"dK", [](DotBuffers& b) { b.dk = Mat(b.m - 1, b.d, kSentinel); }},
      {"dV", [](DotBuffers& b) { b.dv = Mat(b.m, b.d_v + 1, kSentinel); }},
      {"dP buffer", [](DotBuffers& b) { b.dp = Mat(b.m, b.n, kSentinel); }},
      {"dS buffer", [](DotBuffers& b) { b.ds = Mat(b.n, b.m - 1, kSentinel); }},
  };
  for (const auto& [what, breaks] : cases) {
    DotBuffers b;
    breaks(b);
    EXPECT_EQ(b.call(), Status::shape_mismatch) << what;
    EXPECT_TRUE(b.nothing_written()) << what;
  }
  DotBuffers ok;
  EXPECT_EQ(ok.call(), Status::ok);
  DotBuffers b;  // a gradient view with entries but no data
  const attn::MatrixView no_data{nullptr, b.m, b.d, b.d};
  EXPECT_EQ(attn::attention_backward(b.q.cview(), b.k.cview(), b.v.cview(), b.p.cview(), b.d_out.cview(), 0.5f,
                                     {b.dq.view(), no_data, b.dv.view()}, {b.dp.view(), b.ds.view()}),
            Status::bad_argument);
  EXPECT_TRUE(b.nothing_written());
}

// All the buffers of one additive backward call.
struct AdditiveBuffers {
  std::size_t n = 3, m = 4, d_q = 2, d_k = 5, d_v = 3, h = 6;
  Mat q{n, d_q}, k{m, d_k}, v{m, d_v}, w_q{d_q, h}, w_k{d_k, h}, qh{n, h}, kh{m, h}, p{n, m, 0.25f}, d_out{n, d_v};
  std::vector<float> w_v = std::vector<float>(h, 1.0f), dw_v = std::vector<float>(h, kSentinel);
  Mat dq{n, d_q, kSentinel}, dk{m, d_k, kSentinel}, dv{m, d_v, kSentinel}, dw_q{d_q, h, kSentinel},
      dw_k{d_k, h, kSentinel}, dp{n, m, kSentinel}, ds{n, m, kSentinel};
  std::vector<float> scratch = std::vector<float>(attn::additive_backward_scratch_floats(n, m, h), kSentinel);
  const float* w_v_ptr = w_v.data();
  float* dw_v_ptr = dw_v.data();
  float* scratch_ptr = scratch.data();
  Status call() {
    const attn::AdditiveParams params{w_q.cview(), w_k.cview(), w_v_ptr, qh.view(), kh.view()};
    return attn::additive_attention_backward(q.cview(), k.cview(), v.cview(), params, p.cview(), d_out.cview(),
                                             {dq.view(), dk.view(), dv.view(), dw_q.view(), dw_k.view(), dw_v_ptr},
                                             {dp.view(), ds.view()}, scratch_ptr);
  }
  bool nothing_written() const {
    for (const Mat* x : {&dq, &dk, &dv, &dw_q, &dw_k, &dp, &ds})
      for (float f : x->data)
        if (f != kSentinel) return false;
    for (float f : dw_v)
      if (f != kSentinel) return false;
    return true;
  }
};

TEST(BackwardStatus, AdditiveShapeMismatchesAndBadArguments) {
  using Break = void (*)(AdditiveBuffers&);
  const std::vector<std::pair<const char*, Break>> mismatches = {
      {"W_q rows != d_q", [](AdditiveBuffers& b) { b.w_q = Mat(b.d_q + 1, b.h); }},
      {"W_k rows != d_k", [](AdditiveBuffers& b) { b.w_k = Mat(b.d_k - 1, b.h); }},
      {"W_k cols != h", [](AdditiveBuffers& b) { b.w_k = Mat(b.d_k, b.h + 1); }},
      {"q_hidden", [](AdditiveBuffers& b) { b.qh = Mat(b.n, b.h - 1); }},
      {"k_hidden", [](AdditiveBuffers& b) { b.kh = Mat(b.m + 1, b.h); }},
      {"V rows", [](AdditiveBuffers& b) { b.v = Mat(b.m - 1, b.d_v); }},
      {"P", [](AdditiveBuffers& b) { b.p = Mat(b.m, b.n); }},
      {"dO", [](AdditiveBuffers& b) { b.d_out = Mat(b.n, b.d_v + 2); }},
      {"dQ", [](AdditiveBuffers& b) { b.dq = Mat(b.n, b.d_k, kSentinel); }},
      {"dK", [](AdditiveBuffers& b) { b.dk = Mat(b.m, b.d_q, kSentinel); }},
      {"dV", [](AdditiveBuffers& b) { b.dv = Mat(b.n, b.d_v, kSentinel); }},
      {"dW_q", [](AdditiveBuffers& b) { b.dw_q = Mat(b.h, b.d_q, kSentinel); }},
      {"dW_k", [](AdditiveBuffers& b) { b.dw_k = Mat(b.d_k, b.h - 1, kSentinel); }},
      {"dP", [](AdditiveBuffers& b) { b.dp = Mat(b.n + 1, b.m, kSentinel); }},
      {"dS", [](AdditiveBuffers& b) { b.ds = Mat(b.n, b.m + 1, kSentinel); }},
  };
  for (const auto& [what, breaks] : mismatches) {
    AdditiveBuffers b;
    breaks(b);
    EXPECT_EQ(b.call(), Status::shape_mismatch) << what;
    EXPECT_TRUE(b.nothing_written()) << what;
  }
  const std::vector<std::pair<const char*, Break>> bad = {
      {"w_v null", [](AdditiveBuffers& b) { b.w_v_ptr = nullptr; }},
      {"dw_v null", [](AdditiveBuffers& b) { b.dw_v_ptr = nullptr; }},
      {"scratch null", [](AdditiveBuffers& b) { b.scratch_ptr = nullptr; }},
  };
  for (const auto& [what, breaks] : bad) {
    AdditiveBuffers b;
    breaks(b);
    EXPECT_EQ(b.call(), Status::bad_argument) << what;
    EXPECT_TRUE(b.nothing_written()) << what;
  }
  AdditiveBuffers ok;
  EXPECT_EQ(ok.call(), Status::ok);
  EXPECT_EQ(attn::additive_backward_scratch_floats(3, 4, 6), (3u + 4u) * 6u);
}

}  // namespace
