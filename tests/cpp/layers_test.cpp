// The training layers (src/train/{linear,layer_norm,feed_forward,embedding,
// cross_entropy}.cpp): every forward against the float64 reference of
// layers_reference.h, every backward against that reference's backward (all
// entries) and against central finite differences of its forward (sampled
// entries), at every size of sizes() in each dimension, with row strides wider
// than the rows. Each case prints its worst errors ("[gradcheck] ...").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "layers_reference.h"
#include "positional_encoding.h"
#include "test_util.h"
#include "train/cross_entropy.h"
#include "train/embedding.h"
#include "train/feed_forward.h"
#include "train/layer_norm.h"
#include "train/linear.h"

namespace {

using attn::Status;
using attn_test::Mat;
using attn_test::random_mat;
using attn_test::Rng;
using attn_test::seed_for;
using layers_ref::MatD;
using layers_ref::Vec;

constexpr double kStep = 1e-6;          // central-difference step on the float64 forward
constexpr double kKernelTol = 1e-4;     // float32 kernel vs float64: atol and rtol
constexpr double kReferenceTol = 1e-6;  // float64 reference backward vs finite differences
constexpr std::size_t kSamples = 24;    // finite-difference entries per input

const char* backend() {
#if defined(ATTN_FORCE_SCALAR)
  return "scalar";
#else
  return "sse";
#endif
}

// The worst absolute errors of one case over all its inputs.
struct Errors {
  double fd = 0.0;   // kernel vs finite differences
  double ref = 0.0;  // kernel vs reference backward
  void print(const std::string& what) const {
    std::printf("[gradcheck] %s %s: vs finite differences %.2e, vs float64 backward %.2e\n", backend(),
                what.c_str(), fd, ref);
  }
};

std::vector<float> flat(const Mat& m) {
  std::vector<float> out;
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) out.push_back(m.at(i, j));
  return out;
}

Vec as_vec(const std::vector<float>& v) { return Vec(v.begin(), v.end()); }

bool close(double a, double e, double tol) { return std::fabs(a - e) <= tol * (1.0 + std::fabs(e)); }

// One input's gradient: the kernel's against the reference backward at every
// entry, and at sampled entries (first, last, random) against
// (L(θ + h) − L(θ − h)) / 2h of the float64 loss, which perturbs `values`.
void check_gradient(const std::string& what, std::vector<double>& values, const std::function<double()>& loss,
                    const std::vector<float>& kernel, const std::vector<double>& reference, Rng& rng,
                    Errors& errors) {
  ASSERT_EQ(kernel.size(), values.size()) << what;
  ASSERT_EQ(reference.size(), values.size()) << what;
  for (std::size_t t = 0; t < values.size(); ++t) {
    errors.ref = std::max(errors.ref, std::fabs(kernel[t] - reference[t]));
    ASSERT_TRUE(close(kernel[t], reference[t], kKernelTol))
        << what << "[" << t << "]: kernel " << kernel[t] << ", reference " << reference[t];
  }
  if (values.empty()) return;
  std::vector<std::size_t> picks = {0, values.size() - 1};
  while (picks.size() < kSamples && picks.size() < values.size()) picks.push_back(rng.below(values.size()));
  for (std::size_t t : picks) {
    const double keep = values[t];
    values[t] = keep + kStep;
    const double up = loss();
    values[t] = keep - kStep;
    const double down = loss();
    values[t] = keep;
    const double fd = (up - down) / (2.0 * kStep);
    errors.fd = std::max(errors.fd, std::fabs(kernel[t] - fd));
    ASSERT_TRUE(close(reference[t], fd, kReferenceTol))
        << what << "[" << t << "]: reference " << reference[t] << ", finite differences " << fd;
    ASSERT_TRUE(close(kernel[t], fd, kKernelTol))
        << what << "[" << t << "]: kernel " << kernel[t] << ", finite differences " << fd;
  }
}

// Σ dy ∘ y: the scalar whose gradient with respect to y is dy.
double contract(const MatD& dy, const MatD& y) {
  double sum = 0.0;
  for (std::size_t t = 0; t < y.data.size(); ++t) sum += dy.data[t] * y.data[t];
  return sum;
}

std::string shape_name(std::initializer_list<std::size_t> dims) {
  std::string s;
  for (std::size_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

class LayerSizes : public ::testing::TestWithParam<std::size_t> {};

std::string size_name(const ::testing::TestParamInfo<std::size_t>& param) { return "s" + std::to_string(param.param); }

INSTANTIATE_TEST_SUITE_P(Sizes, LayerSizes, ::testing::ValuesIn(attn_test::sizes()), size_name);

// ---------------------------------------------------------------- dense layer

void check_linear(std::size_t n, std::size_t k, std::size_t m) {
  SCOPED_TRACE("linear n=" + std::to_string(n) + " k=" + std::to_string(k) + " m=" + std::to_string(m));
  Rng rng(seed_for(n, k, m, 1));
  const Mat x = random_mat(n, k, rng, -1, 1, 3), w = random_mat(k, m, rng), b = random_mat(1, m, rng);
  const Mat dy = random_mat(n, m, rng, -1, 1, 2);
  Mat y(n, m, attn_test::kSentinel, 1), dx(n, k, attn_test::kSentinel, 2), dw(k, m), db(1, m);
  ASSERT_EQ(attn::linear_forward(x.cview(), w.cview(), b.ptr(), y.view()), Status::ok);
  ASSERT_EQ(attn::linear_backward(x.cview(), w.cview(), dy.cview(), dx.view(), dw.view(), db.ptr()), Status::ok);
  EXPECT_TRUE(attn_test::padding_untouched(y));
  EXPECT_TRUE(attn_test::padding_untouched(dx));

  MatD xd = x.to_double(), wd = w.to_double(), dyd = dy.to_double();
  Vec bd = as_vec(flat(b));
  EXPECT_TRUE(attn_test::all_close(y.cview(), layers_ref::linear_forward(xd, wd, bd), kKernelTol, kKernelTol));
  const layers_ref::LinearGrads g = layers_ref::linear_backward(xd, wd, dyd);
  const auto loss = [&] { return contract(dyd, layers_ref::linear_forward(xd, wd, bd)); };
  Errors e;
  check_gradient("dx", xd.data, loss, flat(dx), g.dx.data, rng, e);
  check_gradient("dW", wd.data, loss, flat(dw), g.dw.data, rng, e);
  check_gradient("db", bd, loss, flat(db), g.db, rng, e);
  e.print("linear " + shape_name({n, k, m}));
}

// Every size in each of the three dimensions.
TEST_P(LayerSizes, LinearForwardBackward) {
  const std::size_t s = GetParam();
  check_linear(s, s, s);
  check_linear(5, s, 17);
  check_linear(3, 17, s);
}

TEST_P(LayerSizes, TransposedAAccumulateMatchesReference) {
  const std::size_t s = GetParam();
  for (std::size_t k : attn_test::sizes()) {
    Rng rng(seed_for(s, k, 0, 2));
    const Mat a = random_mat(s, k, rng, -1, 1, 1), b = random_mat(s, 9, rng, -1, 1, 2);
    Mat c = random_mat(k, 9, rng, -1, 1, 3);
    MatD expected = c.to_double();
    const MatD ad = a.to_double(), bd = b.to_double();
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t j = 0; j < 9; ++j)
        for (std::size_t i = 0; i < s; ++i) expected.at(p, j) += ad.at(i, p) * bd.at(i, j);
    attn::matmul_transposed_a_accumulate(a.cview(), b.cview(), c.view());
    EXPECT_TRUE(attn_test::all_close(c.cview(), expected, kKernelTol, kKernelTol)) << "n=" << s << " k=" << k;
    EXPECT_TRUE(attn_test::padding_untouched(c));
  }
}

// dW and db accumulate (a second identical call doubles them exactly: the
// tile's sum is added once); dx is overwritten, not accumulated.
TEST(Linear, BackwardAccumulatesParameterGradientsAndOverwritesDx) {
  Rng rng(11);
  const Mat x = random_mat(9, 13, rng), w = random_mat(13, 7, rng), dy = random_mat(9, 7, rng);
  Mat dx(9, 13, 99.0f), dw(13, 7), db(1, 7);
  ASSERT_EQ(attn::linear_backward(x.cview(), w.cview(), dy.cview(), dx.view(), dw.view(), db.ptr()), Status::ok);
  const Mat dx1 = dx, dw1 = dw, db1 = db;
  ASSERT_EQ(attn::linear_backward(x.cview(), w.cview(), dy.cview(), dx.view(), dw.view(), db.ptr()), Status::ok);
  for (std::size_t t = 0; t < dw.data.size(); ++t) EXPECT_EQ(dw.data[t], 2.0f * dw1.data[t]) << "dW[" << t << "]";
  for (std::size_t t = 0; t < db.data.size(); ++t) EXPECT_EQ(db.data[t], 2.0f * db1.data[t]) << "db[" << t << "]";
  EXPECT_EQ(dx.data, dx1.data);
  // A gradient buffer that already holds something keeps it: dW = before + xᵀ dy.
  Mat dw_start = random_mat(13, 7, rng), dw_acc = dw_start;
  ASSERT_EQ(attn::linear_backward(x.cview(), w.cview(), dy.cview(), attn::MatrixView{}, dw_acc.view(), nullptr),
            Status::ok);
  MatD expected = dw_start.to_double();
  for (std::size_t t = 0; t < expected.data.size(); ++t) expected.data[t] += dw1.data[t];
  EXPECT_TRUE(attn_test::all_close(dw_acc.cview(), expected, 1e-6, 1e-6));
}

TEST(Linear, ShapeMismatchWritesNothing) {
  Mat x(3, 4, 1.0f), w(5, 2, 1.0f), y(3, 2, attn_test::kSentinel), dw(4, 2, attn_test::kSentinel);
  EXPECT_EQ(attn::linear_forward(x.cview(), w.cview(), nullptr, y.view()), Status::shape_mismatch);
  for (float v : y.data) EXPECT_EQ(v, attn_test::kSentinel);
  Mat w_ok(4, 2, 1.0f), dy_bad(3, 3, 1.0f);
  EXPECT_EQ(attn::linear_backward(x.cview(), w_ok.cview(), dy_bad.cview(), attn::MatrixView{}, dw.view(), nullptr),
            Status::shape_mismatch);
  for (float v : dw.data) EXPECT_EQ(v, attn_test::kSentinel);
}

TEST(Linear, AddIsElementwiseAndMayAlias) {
  Rng rng(5);
  const Mat a = random_mat(6, 7, rng, -1, 1, 1), b = random_mat(6, 7, rng, -1, 1, 2);
  Mat out(6, 7), in_place = a;
  ASSERT_EQ(attn::add(a.cview(), b.cview(), out.view()), Status::ok);
  ASSERT_EQ(attn::add(in_place.cview(), b.cview(), in_place.view()), Status::ok);
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 7; ++j) {
      EXPECT_EQ(out.at(i, j), a.at(i, j) + b.at(i, j));
      EXPECT_EQ(in_place.at(i, j), out.at(i, j));
    }
  Mat wrong(6, 8);
  EXPECT_EQ(attn::add(a.cview(), b.cview(), wrong.view()), Status::shape_mismatch);
}

// ---------------------------------------------------------------- layer norm

constexpr float kEpsilon = 1e-5f;

void check_layer_norm(std::size_t n, std::size_t d) {
  SCOPED_TRACE("layer_norm n=" + std::to_string(n) + " d=" + std::to_string(d));
  Rng rng(seed_for(n, d, 0, 3));
  const Mat x = random_mat(n, d, rng, -2, 3, 2), gamma = random_mat(1, d, rng, 0.5f, 1.5f);
  const Mat beta = random_mat(1, d, rng), dy = random_mat(n, d, rng, -1, 1, 1);
  Mat y(n, d, 0.0f, 3), mean(1, n), rstd(1, n), dx(n, d, attn_test::kSentinel, 1), dgamma(1, d), dbeta(1, d);
  ASSERT_EQ(attn::layer_norm_forward(x.cview(), gamma.ptr(), beta.ptr(), kEpsilon, y.view(), mean.ptr(), rstd.ptr()),
            Status::ok);
  ASSERT_EQ(attn::layer_norm_backward(x.cview(), dy.cview(), gamma.ptr(), mean.ptr(), rstd.ptr(), dx.view(),
                                      dgamma.ptr(), dbeta.ptr()),
            Status::ok);
  EXPECT_TRUE(attn_test::padding_untouched(y));
  EXPECT_TRUE(attn_test::padding_untouched(dx));

  MatD xd = x.to_double(), dyd = dy.to_double();
  Vec gd = as_vec(flat(gamma)), bd = as_vec(flat(beta));
  const layers_ref::LayerNormOut f = layers_ref::layer_norm_forward(xd, gd, bd, kEpsilon);
  EXPECT_TRUE(attn_test::all_close(y.cview(), f.y, kKernelTol, kKernelTol));
  EXPECT_TRUE(attn_test::all_close(flat(mean), f.mean, kKernelTol, kKernelTol));
  EXPECT_TRUE(attn_test::all_close(flat(rstd), f.rstd, kKernelTol, kKernelTol));
  const layers_ref::LayerNormGrads g = layers_ref::layer_norm_backward(xd, gd, kEpsilon, dyd);
  const auto loss = [&] { return contract(dyd, layers_ref::layer_norm_forward(xd, gd, bd, kEpsilon).y); };
  Errors e;
  check_gradient("dx", xd.data, loss, flat(dx), g.dx.data, rng, e);
  check_gradient("dgamma", gd, loss, flat(dgamma), g.dgamma, rng, e);
  check_gradient("dbeta", bd, loss, flat(dbeta), g.dbeta, rng, e);
  e.print("layer_norm " + shape_name({n, d}));
}

TEST_P(LayerSizes, LayerNormForwardBackward) {
  const std::size_t s = GetParam();
  check_layer_norm(s, s);
  check_layer_norm(7, s);
  check_layer_norm(s, 17);
}

// y may be x and dx may be dy: the same numbers as separate buffers; dγ, dβ accumulate.
TEST(LayerNorm, InPlaceAndAccumulation) {
  Rng rng(21);
  const Mat x = random_mat(5, 19, rng), gamma = random_mat(1, 19, rng), beta = random_mat(1, 19, rng);
  const Mat dy = random_mat(5, 19, rng);
  Mat y(5, 19), mean(1, 5), rstd(1, 5), dx(5, 19), dgamma(1, 19), dbeta(1, 19);
  ASSERT_EQ(attn::layer_norm_forward(x.cview(), gamma.ptr(), beta.ptr(), kEpsilon, y.view(), mean.ptr(), rstd.ptr()),
            Status::ok);
  Mat y_in_place = x;
  ASSERT_EQ(attn::layer_norm_forward(y_in_place.cview(), gamma.ptr(), beta.ptr(), kEpsilon, y_in_place.view(),
                                     mean.ptr(), rstd.ptr()),
            Status::ok);
  EXPECT_EQ(y_in_place.data, y.data);
  ASSERT_EQ(attn::layer_norm_backward(x.cview(), dy.cview(), gamma.ptr(), mean.ptr(), rstd.ptr(), dx.view(),
                                      dgamma.ptr(), dbeta.ptr()),
            Status::ok);
  const Mat dgamma1 = dgamma, dbeta1 = dbeta;
  Mat dx_in_place = dy;
  ASSERT_EQ(attn::layer_norm_backward(x.cview(), dx_in_place.cview(), gamma.ptr(), mean.ptr(), rstd.ptr(),
                                      dx_in_place.view(), dgamma.ptr(), dbeta.ptr()),
            Status::ok);
  EXPECT_EQ(dx_in_place.data, dx.data);
  MatD twice_g(1, 19), twice_b(1, 19);
  for (std::size_t j = 0; j < 19; ++j) {
    twice_g.data[j] = 2.0 * dgamma1.data[j];
    twice_b.data[j] = 2.0 * dbeta1.data[j];
  }
  EXPECT_TRUE(attn_test::all_close(dgamma.cview(), twice_g, 1e-6, 1e-6));
  EXPECT_TRUE(attn_test::all_close(dbeta.cview(), twice_b, 1e-6, 1e-6));
}

// A constant row has variance 0: ε keeps it finite (y = β, dx = 0); ε <= 0 is refused.
TEST(LayerNorm, ConstantRowAndEpsilon) {
  Mat x(2, 6, 3.5f), gamma(1, 6, 2.0f), beta(1, 6, 0.25f), y(2, 6), mean(1, 2), rstd(1, 2);
  ASSERT_EQ(attn::layer_norm_forward(x.cview(), gamma.ptr(), beta.ptr(), kEpsilon, y.view(), mean.ptr(), rstd.ptr()),
            Status::ok);
  for (float v : y.data) EXPECT_EQ(v, 0.25f);
  EXPECT_FLOAT_EQ(rstd.data[0], static_cast<float>(1.0 / std::sqrt(1e-5)));
  Mat dy(2, 6, 1.0f), dx(2, 6, attn_test::kSentinel);
  ASSERT_EQ(attn::layer_norm_backward(x.cview(), dy.cview(), gamma.ptr(), mean.ptr(), rstd.ptr(), dx.view(), nullptr,
                                      nullptr),
            Status::ok);
  for (float v : dx.data) EXPECT_EQ(v, 0.0f);
  for (float eps : {0.0f, -1e-5f, NAN, INFINITY})
    EXPECT_EQ(attn::layer_norm_forward(x.cview(), gamma.ptr(), beta.ptr(), eps, y.view(), mean.ptr(), rstd.ptr()),
              Status::bad_argument)
        << eps;
}

// ---------------------------------------------------------------- activations and FFN

TEST(Activation, GeluAndReluMatchReferenceAndDerivative) {
  // Known value of the tanh form: GELU(1) = 0.5·(1 + tanh(√(2/π)·1.044715)).
  EXPECT_NEAR(layers_ref::gelu(1.0), 0.8411919906082768, 1e-15);
  std::vector<float> xs;
  for (int t = -400; t <= 400; ++t) xs.push_back(static_cast<float>(t) * 0.025f);  // −10 … 10, 0 included
  const std::size_t n = xs.size();
  Mat pre(1, n), post(1, n), ones(1, n, 1.0f), d(1, n);
  for (std::size_t j = 0; j < n; ++j) pre.at(0, j) = xs[j];
  for (bool use_gelu : {false, true}) {
    const attn::Activation act = use_gelu ? attn::Activation::gelu : attn::Activation::relu;
    attn::activation_forward(act, pre.cview(), post.view());
    attn::activation_backward(act, pre.cview(), ones.cview(), d.view());
    for (std::size_t j = 0; j < n; ++j) {
      const double x = xs[j];
      EXPECT_NEAR(post.at(0, j), layers_ref::activate(use_gelu, x), 2e-6 * (1 + std::fabs(x))) << x;
      EXPECT_NEAR(d.at(0, j), layers_ref::activate_derivative(use_gelu, x), 2e-6) << x;
      if (use_gelu || std::fabs(x) > 1e-3) {  // the derivative is the slope of the function itself
        const double fd = (layers_ref::activate(use_gelu, x + kStep) - layers_ref::activate(use_gelu, x - kStep)) /
                          (2 * kStep);
        EXPECT_NEAR(layers_ref::activate_derivative(use_gelu, x), fd, 1e-8) << x;
      }
    }
  }
  EXPECT_EQ(post.at(0, 400), 0.0f);  // GELU(0) = 0
  attn::activation_backward(attn::Activation::relu, pre.cview(), ones.cview(), d.view());
  EXPECT_EQ(d.at(0, 400), 0.0f);  // ReLU'(0) = 0
}

void check_ffn(std::size_t n, std::size_t d, std::size_t h, std::size_t d_out, bool use_gelu) {
  SCOPED_TRACE(std::string("ffn ") + (use_gelu ? "gelu " : "relu ") + shape_name({n, d, h, d_out}));
  Rng rng(seed_for(n, d, h, 4 + d_out + (use_gelu ? 100 : 0)));
  const Mat x = random_mat(n, d, rng, -1, 1, 1), w1 = random_mat(d, h, rng), b1 = random_mat(1, h, rng);
  const Mat w2 = random_mat(h, d_out, rng, -1, 1, 2), b2 = random_mat(1, d_out, rng);
  const Mat dy = random_mat(n, d_out, rng);
  Mat pre(n, h), hidden(n, h), y(n, d_out, 0.0f, 1), dx(n, d, attn_test::kSentinel), d_hidden(n, h);
  Mat dw1(d, h), db1(1, h), dw2(h, d_out, 0.0f, 2), db2(1, d_out);
  const attn::Activation act = use_gelu ? attn::Activation::gelu : attn::Activation::relu;
  const attn::FeedForwardWeights weights{w1.cview(), b1.ptr(), w2.cview(), b2.ptr()};
  const attn::FeedForwardActivations saved{pre.view(), hidden.view()};
  const attn::FeedForwardGradients grads{dw1.view(), db1.ptr(), dw2.view(), db2.ptr()};
  ASSERT_EQ(attn::feed_forward_forward(x.cview(), weights, act, saved, y.view()), Status::ok);
  ASSERT_EQ(attn::feed_forward_backward(x.cview(), weights, act, saved, dy.cview(), dx.view(), grads, d_hidden.view()),
            Status::ok);

  MatD xd = x.to_double(), dyd = dy.to_double();
  layers_ref::FfnParams p{w1.to_double(), w2.to_double(), as_vec(flat(b1)), as_vec(flat(b2))};
  const layers_ref::FfnOut f = layers_ref::ffn_forward(xd, p, use_gelu);
  EXPECT_TRUE(attn_test::all_close(pre.cview(), f.pre, kKernelTol, kKernelTol));
  EXPECT_TRUE(attn_test::all_close(hidden.cview(), f.hidden, kKernelTol, kKernelTol));
  EXPECT_TRUE(attn_test::all_close(y.cview(), f.y, kKernelTol, kKernelTol));
  const layers_ref::FfnGrads g = layers_ref::ffn_backward(xd, p, use_gelu, dyd);
  const auto loss = [&] { return contract(dyd, layers_ref::ffn_forward(xd, p, use_gelu).y); };
  Errors e;
  check_gradient("dx", xd.data, loss, flat(dx), g.dx.data, rng, e);
  check_gradient("dW1", p.w1.data, loss, flat(dw1), g.dw1.data, rng, e);
  check_gradient("db1", p.b1, loss, flat(db1), g.db1, rng, e);
  check_gradient("dW2", p.w2.data, loss, flat(dw2), g.dw2.data, rng, e);
  check_gradient("db2", p.b2, loss, flat(db2), g.db2, rng, e);
  e.print(std::string("ffn_") + (use_gelu ? "gelu " : "relu ") + shape_name({n, d, h, d_out}));
}

TEST_P(LayerSizes, FeedForwardForwardBackward) {
  const std::size_t s = GetParam();
  for (bool use_gelu : {false, true}) {
    check_ffn(s, s, s, s, use_gelu);
    check_ffn(3, 5, s, 8, use_gelu);
  }
}

TEST(FeedForwardBackward, ShapeMismatchAndNoDx) {
  Mat x(2, 3, 1.0f), w1(3, 4, 0.5f), w2(4, 3, 0.5f), pre(2, 4), hidden(2, 4), y(2, 3), dh(2, 4), dy(2, 3, 1.0f);
  Mat dw1(3, 4), dw2(4, 3);
  const attn::FeedForwardWeights weights{w1.cview(), nullptr, w2.cview(), nullptr};
  const attn::FeedForwardActivations saved{pre.view(), hidden.view()};
  Mat wrong_y(2, 4);
  EXPECT_EQ(attn::feed_forward_forward(x.cview(), weights, attn::Activation::relu, saved, wrong_y.view()),
            Status::shape_mismatch);
  ASSERT_EQ(attn::feed_forward_forward(x.cview(), weights, attn::Activation::gelu, saved, y.view()), Status::ok);
  const attn::FeedForwardGradients grads{dw1.view(), nullptr, dw2.view(), nullptr};
  EXPECT_EQ(attn::feed_forward_backward(x.cview(), weights, attn::Activation::gelu, saved, dy.cview(),
                                        attn::MatrixView{}, grads, dh.view()),
            Status::ok);
  EXPECT_NE(dw1.at(0, 0), 0.0f);
  EXPECT_EQ(attn::feed_forward_forward(x.cview(), weights, static_cast<attn::Activation>(7), saved, y.view()),
            Status::bad_argument);
}

// ---------------------------------------------------------------- embeddings

void check_embedding(std::size_t n, std::size_t vocab, std::size_t d) {
  SCOPED_TRACE("embedding " + shape_name({n, vocab, d}));
  Rng rng(seed_for(n, vocab, d, 5));
  std::vector<std::int32_t> ids(n);
  for (auto& id : ids) id = static_cast<std::int32_t>(rng.below(vocab));  // repeats when n > vocab
  const float scale = std::sqrt(static_cast<float>(d));
  const Mat table = random_mat(vocab, d, rng, -1, 1, 1), positions = random_mat(n + 2, d, rng, -1, 1, 2);
  const Mat dout = random_mat(n, d, rng, -1, 1, 3);
  Mat out(n, d, 0.0f, 1), dtable(vocab, d, 0.0f, 2), dpositions(n + 2, d);
  ASSERT_EQ(attn::embed_forward(ids.data(), n, table.cview(), scale, positions.cview(), out.view()), Status::ok);
  ASSERT_EQ(attn::embed_backward(ids.data(), n, dout.cview(), scale, dtable.view(), dpositions.view()), Status::ok);
  EXPECT_TRUE(attn_test::padding_untouched(dtable));

  MatD td = table.to_double(), pd = positions.to_double(), dod = dout.to_double();
  EXPECT_TRUE(attn_test::all_close(out.cview(), layers_ref::embed_forward(ids, td, scale, &pd), 1e-6, 1e-6));
  const layers_ref::EmbedGrads g = layers_ref::embed_backward(ids, vocab, n + 2, scale, dod);
  // Rows of the position table past n get no gradient and do not change the loss.
  const auto loss = [&] {
    MatD p_used(n, d);
    for (std::size_t t = 0; t < n * d; ++t) p_used.data[t] = pd.data[t];
    return contract(dod, layers_ref::embed_forward(ids, td, scale, &p_used));
  };
  Errors e;
  check_gradient("dE", td.data, loss, flat(dtable), g.dtable.data, rng, e);
  check_gradient("dP", pd.data, loss, flat(dpositions), g.dpositions.data, rng, e);
  e.print("embedding " + shape_name({n, vocab, d}));
}

TEST_P(LayerSizes, EmbeddingForwardBackward) {
  const std::size_t s = GetParam();
  check_embedding(s, s, s);
  check_embedding(17, 3, s);
  check_embedding(s, 65, 5);
}

// Sinusoidal positions: a table from positional_encoding.h passed as `positions`;
// d_positions with data == nullptr leaves them fixed.
TEST(Embedding, SinusoidalPositionsFromPositionalEncoding) {
  Rng rng(31);
  const std::size_t n = 9, d = 6;
  const std::vector<std::int32_t> ids = {4, 0, 4, 2, 1, 3, 3, 0, 4};
  const Mat table = random_mat(5, d, rng);
  Mat positions(12, d), out(n, d), dtable(5, d);
  ASSERT_EQ(attn::positional_encoding(10000.0, positions.view()), Status::ok);
  ASSERT_EQ(attn::embed_forward(ids.data(), n, table.cview(), 2.0f, positions.cview(), out.view()), Status::ok);
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t j = 0; j < d; ++j) {
      const double angle = static_cast<double>(t) / std::pow(10000.0, static_cast<double>(j / 2 * 2) / d);
      const double p = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
      EXPECT_NEAR(out.at(t, j), 2.0 * table.at(static_cast<std::size_t>(ids[t]), j) + p, 1e-6);
    }
  const Mat dout = random_mat(n, d, rng);
  ASSERT_EQ(attn::embed_backward(ids.data(), n, dout.cview(), 2.0f, dtable.view(), attn::MatrixView{}), Status::ok);
  const layers_ref::EmbedGrads g = layers_ref::embed_backward(ids, 5, n, 2.0, dout.to_double());
  EXPECT_TRUE(attn_test::all_close(dtable.cview(), g.dtable, 1e-6, 1e-6));
  // No positions at all: out = scale · E[id].
  ASSERT_EQ(attn::embed_forward(ids.data(), n, table.cview(), 1.0f, attn::ConstMatrixView{}, out.view()), Status::ok);
  EXPECT_EQ(out.at(2, 3), table.at(4, 3));
}

// An id outside [0, vocab) is refused before anything is written, wherever it sits.
TEST(Embedding, OutOfRangeIdWritesNothing) {
  const Mat table(4, 3, 1.0f), dout(3, 3, 1.0f);
  for (std::int32_t bad : {-1, 4, 1000}) {
    const std::vector<std::int32_t> ids = {1, 2, bad};
    Mat out(3, 3, attn_test::kSentinel), dtable(4, 3, attn_test::kSentinel), dpos(3, 3, attn_test::kSentinel);
    EXPECT_EQ(attn::embed_forward(ids.data(), 3, table.cview(), 1.0f, attn::ConstMatrixView{}, out.view()),
              Status::bad_argument);
    EXPECT_EQ(attn::embed_backward(ids.data(), 3, dout.cview(), 1.0f, dtable.view(), dpos.view()),
              Status::bad_argument);
    EXPECT_TRUE(attn_test::untouched(out.data, "out"));
    EXPECT_TRUE(attn_test::untouched(dtable.data, "d_table"));
    EXPECT_TRUE(attn_test::untouched(dpos.data, "d_positions"));
  }
  Mat short_positions(2, 3), out(3, 3);
  const std::vector<std::int32_t> ids = {0, 1, 2};
  EXPECT_EQ(attn::embed_forward(ids.data(), 3, table.cview(), 1.0f, short_positions.cview(), out.view()),
            Status::shape_mismatch);
}

// ---------------------------------------------------------------- cross-entropy

void check_cross_entropy(std::size_t n, std::size_t vocab, std::int32_t ignore, float spread) {
  SCOPED_TRACE("cross_entropy " + shape_name({n, vocab}) + " ignore " + std::to_string(ignore));
  Rng rng(seed_for(n, vocab, static_cast<std::size_t>(ignore + 2), 6));
  const Mat z = random_mat(n, vocab, rng, -spread, spread, 2);
  std::vector<std::int32_t> targets(n);
  for (auto& y : targets) y = rng.below(4) == 0 ? ignore : static_cast<std::int32_t>(rng.below(vocab));
  Mat dz(n, vocab, attn_test::kSentinel, 1);
  attn::CrossEntropyResult r;
  ASSERT_EQ(attn::softmax_cross_entropy(z.cview(), targets.data(), ignore, dz.view(), &r), Status::ok);
  EXPECT_TRUE(attn_test::padding_untouched(dz));
  MatD zd = z.to_double();
  const layers_ref::CrossEntropyOut expected = layers_ref::cross_entropy(zd, targets, ignore);
  EXPECT_EQ(r.counted, expected.counted);
  EXPECT_EQ(r.correct, expected.correct);
  EXPECT_NEAR(r.loss, expected.loss, 1e-6 * (1 + expected.loss));
  const auto loss = [&] { return layers_ref::cross_entropy(zd, targets, ignore).loss; };
  Errors e;
  check_gradient("dz", zd.data, loss, flat(dz), expected.dz.data, rng, e);
  if (spread <= 1.0f) e.print("cross_entropy " + shape_name({n, vocab}));
}

TEST_P(LayerSizes, CrossEntropyLossGradientAndCounts) {
  const std::size_t s = GetParam();
  check_cross_entropy(s, s, 0, 1.0f);      // padding id 0 ignored (a real vocabulary id)
  check_cross_entropy(s, 17, -1, 1.0f);    // an ignore id outside the vocabulary
  check_cross_entropy(5, s, 0, 1.0f);
  check_cross_entropy(s, 9, -1, 3000.0f);  // logits where a plain exp overflows: still finite and exact
}

// Ties go to the first maximum; ignored rows get dz = 0 and do not count.
TEST(CrossEntropy, TiesIgnoredRowsAndAliasing) {
  Mat z = Mat::filled(3, 3, {2, 2, 1, 0, 5, 5, 1, 1, 1});
  const std::vector<std::int32_t> targets = {1, 2, 0};
  attn::CrossEntropyResult r;
  ASSERT_EQ(attn::softmax_cross_entropy(z.cview(), targets.data(), 0, attn::MatrixView{}, &r), Status::ok);
  EXPECT_EQ(r.counted, 2u);
  EXPECT_EQ(r.correct, 0u);  // rows 0 and 1 tie: the first maximum (0, then 1) is not the target
  const std::vector<std::int32_t> first = {0, 1, 0};
  ASSERT_EQ(attn::softmax_cross_entropy(z.cview(), first.data(), 0, attn::MatrixView{}, &r), Status::ok);
  EXPECT_EQ(r.counted, 1u);
  EXPECT_EQ(r.correct, 1u);
  EXPECT_NEAR(r.loss, std::log(std::exp(0.0) + 2 * std::exp(5.0)) - 5.0, 1e-6);
  Mat separate(3, 3);
  ASSERT_EQ(attn::softmax_cross_entropy(z.cview(), targets.data(), 0, separate.view(), &r), Status::ok);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(separate.at(2, j), 0.0f);
  ASSERT_EQ(attn::softmax_cross_entropy(z.cview(), targets.data(), 0, z.view(), &r), Status::ok);  // in place
  EXPECT_EQ(z.data, separate.data);
}

TEST(CrossEntropy, AllRowsIgnored) {
  Rng rng(41);
  const Mat z = random_mat(4, 6, rng);
  const std::vector<std::int32_t> targets(4, 0);
  Mat dz(4, 6, attn_test::kSentinel);
  attn::CrossEntropyResult r{7.0, 7, 7};
  ASSERT_EQ(attn::softmax_cross_entropy(z.cview(), targets.data(), 0, dz.view(), &r), Status::ok);
  EXPECT_EQ(r.loss, 0.0);
  EXPECT_EQ(r.counted, 0u);
  EXPECT_EQ(r.correct, 0u);
  for (float v : dz.data) EXPECT_EQ(v, 0.0f);
}

TEST(CrossEntropy, BadTargetWritesNothing) {
  Rng rng(43);
  const Mat z = random_mat(3, 5, rng);
  for (std::int32_t bad : {5, -2, 99}) {
    const std::vector<std::int32_t> targets = {1, -1, bad};
    Mat dz(3, 5, attn_test::kSentinel);
    attn::CrossEntropyResult r;
    EXPECT_EQ(attn::softmax_cross_entropy(z.cview(), targets.data(), -1, dz.view(), &r), Status::bad_argument);
    EXPECT_TRUE(attn_test::untouched(dz.data, "d_logits"));
  }
  Mat wrong(3, 4);
  const std::vector<std::int32_t> ok = {1, 2, 3};
  attn::CrossEntropyResult r;
  EXPECT_EQ(attn::softmax_cross_entropy(z.cview(), ok.data(), -1, wrong.view(), &r), Status::shape_mismatch);
}

}  // namespace
