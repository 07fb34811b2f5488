// Plain float64 forward and backward passes of the training layers: the
// oracle for src/train/{linear,layer_norm,feed_forward,embedding,cross_entropy,
// optimizer}.cpp. Written from the textbook formulas, independently of src/
// (no SIMD, no shared helpers; layer norm's backward goes through its full
// Jacobian, not the kernel's closed form), so an error in a kernel cannot hide
// in its own check.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference.h"

namespace layers_ref {

using ref::MatD;
using Vec = std::vector<double>;

// ---- dense layer: y = x W + b

inline MatD linear_forward(const MatD& x, const MatD& w, const Vec& b) {
  MatD y(x.rows, w.cols);
  for (std::size_t i = 0; i < x.rows; ++i)
    for (std::size_t j = 0; j < w.cols; ++j) {
      double sum = b.empty() ? 0.0 : b[j];
      for (std::size_t p = 0; p < x.cols; ++p) sum += x.at(i, p) * w.at(p, j);
      y.at(i, j) = sum;
    }
  return y;
}

struct LinearGrads {
  MatD dx, dw;
  Vec db;
};

// dx[i][p] = Σ_j dy[i][j] W[p][j];  dW[p][j] = Σ_i x[i][p] dy[i][j];  db[j] = Σ_i dy[i][j].
inline LinearGrads linear_backward(const MatD& x, const MatD& w, const MatD& dy) {
  LinearGrads g{MatD(x.rows, x.cols), MatD(w.rows, w.cols), Vec(w.cols, 0.0)};
  for (std::size_t i = 0; i < x.rows; ++i)
    for (std::size_t p = 0; p < x.cols; ++p)
      for (std::size_t j = 0; j < w.cols; ++j) {
        g.dx.at(i, p) += dy.at(i, j) * w.at(p, j);
        g.dw.at(p, j) += x.at(i, p) * dy.at(i, j);
      }
  for (std::size_t i = 0; i < dy.rows; ++i)
    for (std::size_t j = 0; j < dy.cols; ++j) g.db[j] += dy.at(i, j);
  return g;
}

// ---- layer normalisation over each row

struct LayerNormOut {
  MatD y;
  Vec mean, rstd;
};

inline LayerNormOut layer_norm_forward(const MatD& x, const Vec& gamma, const Vec& beta, double eps) {
  LayerNormOut o{MatD(x.rows, x.cols), Vec(x.rows), Vec(x.rows)};
  const double d = static_cast<double>(x.cols);
  for (std::size_t i = 0; i < x.rows; ++i) {
    double mu = 0.0;
    for (std::size_t j = 0; j < x.cols; ++j) mu += x.at(i, j);
    mu /= d;
    double var = 0.0;
    for (std::size_t j = 0; j < x.cols; ++j) var += (x.at(i, j) - mu) * (x.at(i, j) - mu);
    var /= d;
    const double r = 1.0 / std::sqrt(var + eps);
    o.mean[i] = mu;
    o.rstd[i] = r;
    for (std::size_t j = 0; j < x.cols; ++j) o.y.at(i, j) = gamma[j] * (x.at(i, j) - mu) * r + beta[j];
  }
  return o;
}

struct LayerNormGrads {
  MatD dx;
  Vec dgamma, dbeta;
};

// Through the Jacobian of x̂ = (x − μ)·r, r = (σ² + ε)^(−1/2):
//   ∂x̂_k/∂x_j = r·(δ_kj − 1/d) − x̂_k·x̂_j·r/d,  dx_j = Σ_k dy_k γ_k ∂x̂_k/∂x_j.
inline LayerNormGrads layer_norm_backward(const MatD& x, const Vec& gamma, double eps, const MatD& dy) {
  const std::size_t d = x.cols;
  LayerNormGrads g{MatD(x.rows, d), Vec(d, 0.0), Vec(d, 0.0)};
  const LayerNormOut f = layer_norm_forward(x, gamma, Vec(d, 0.0), eps);
  for (std::size_t i = 0; i < x.rows; ++i) {
    const double r = f.rstd[i];
    Vec xhat(d);
    for (std::size_t k = 0; k < d; ++k) xhat[k] = (x.at(i, k) - f.mean[i]) * r;
    for (std::size_t j = 0; j < d; ++j) {
      double sum = 0.0;
      for (std::size_t k = 0; k < d; ++k) {
        const double jac = r * ((k == j ? 1.0 : 0.0) - 1.0 / static_cast<double>(d)) -
                           xhat[k] * xhat[j] * r / static_cast<double>(d);
        sum += dy.at(i, k) * gamma[k] * jac;
      }
      g.dx.at(i, j) = sum;
      g.dgamma[j] += dy.at(i, j) * xhat[j];
      g.dbeta[j] += dy.at(i, j);
    }
  }
  return g;
}

// ---- activations

inline double relu(double x) { return x > 0.0 ? x : 0.0; }
inline double relu_derivative(double x) { return x > 0.0 ? 1.0 : 0.0; }

constexpr double kPi = 3.14159265358979323846;

inline double gelu(double x) {
  const double c = std::sqrt(2.0 / kPi);
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

// Product rule on 0.5·x·(1 + tanh(u)), u' = c·(1 + 3·0.044715·x²), tanh' = 1 − tanh².
inline double gelu_derivative(double x) {
  const double c = std::sqrt(2.0 / kPi);
  const double t = std::tanh(c * (x + 0.044715 * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044715 * x * x);
}

inline double activate(bool use_gelu, double x) { return use_gelu ? gelu(x) : relu(x); }
inline double activate_derivative(bool use_gelu, double x) {
  return use_gelu ? gelu_derivative(x) : relu_derivative(x);
}

// ---- position-wise FFN: act(x W₁ + b₁) W₂ + b₂

struct FfnParams {
  MatD w1, w2;
  Vec b1, b2;
};

struct FfnOut {
  MatD pre, hidden, y;
};

inline FfnOut ffn_forward(const MatD& x, const FfnParams& p, bool use_gelu) {
  FfnOut o;
  o.pre = linear_forward(x, p.w1, p.b1);
  o.hidden = o.pre;
  for (double& v : o.hidden.data) v = activate(use_gelu, v);
  o.y = linear_forward(o.hidden, p.w2, p.b2);
  return o;
}

struct FfnGrads {
  MatD dx, dw1, dw2;
  Vec db1, db2;
};

inline FfnGrads ffn_backward(const MatD& x, const FfnParams& p, bool use_gelu, const MatD& dy) {
  const FfnOut f = ffn_forward(x, p, use_gelu);
  const LinearGrads second = linear_backward(f.hidden, p.w2, dy);
  MatD dpre = second.dx;
  for (std::size_t t = 0; t < dpre.data.size(); ++t) dpre.data[t] *= activate_derivative(use_gelu, f.pre.data[t]);
  const LinearGrads first = linear_backward(x, p.w1, dpre);
  return {first.dx, first.dw, second.dw, first.db, second.db};
}

// ---- embeddings: out_t = scale·E[id_t] + P[t]

inline MatD embed_forward(const std::vector<std::int32_t>& ids, const MatD& table, double scale,
                          const MatD* positions) {
  MatD out(ids.size(), table.cols);
  for (std::size_t t = 0; t < ids.size(); ++t)
    for (std::size_t j = 0; j < table.cols; ++j)
      out.at(t, j) = scale * table.at(static_cast<std::size_t>(ids[t]), j) +
                     (positions != nullptr ? positions->at(t, j) : 0.0);
  return out;
}

struct EmbedGrads {
  MatD dtable, dpositions;
};

inline EmbedGrads embed_backward(const std::vector<std::int32_t>& ids, std::size_t vocab, std::size_t max_length,
                                 double scale, const MatD& dout) {
  EmbedGrads g{MatD(vocab, dout.cols), MatD(max_length, dout.cols)};
  for (std::size_t t = 0; t < ids.size(); ++t)
    for (std::size_t j = 0; j < dout.cols; ++j) {
      g.dtable.at(static_cast<std::size_t>(ids[t]), j) += scale * dout.at(t, j);
      g.dpositions.at(t, j) += dout.at(t, j);
    }
  return g;
}

// ---- softmax cross-entropy, mean over the rows whose target is not ignore_id

struct CrossEntropyOut {
  double loss = 0.0;
  std::size_t counted = 0, correct = 0;
  MatD dz;
};

inline CrossEntropyOut cross_entropy(const MatD& z, const std::vector<std::int32_t>& targets, std::int32_t ignore) {
  CrossEntropyOut o;
  o.dz = MatD(z.rows, z.cols);
  for (std::int32_t y : targets) o.counted += y != ignore ? 1 : 0;
  for (std::size_t i = 0; i < z.rows; ++i) {
    if (targets[i] == ignore) continue;
    const std::size_t y = static_cast<std::size_t>(targets[i]);
    double max = -INFINITY;
    std::size_t arg = 0;
    for (std::size_t j = 0; j < z.cols; ++j)
      if (z.at(i, j) > max) {
        max = z.at(i, j);
        arg = j;
      }
    double sum = 0.0;
    for (std::size_t j = 0; j < z.cols; ++j) sum += std::exp(z.at(i, j) - max);
    o.loss += max + std::log(sum) - z.at(i, y);
    o.correct += arg == y ? 1 : 0;
    for (std::size_t j = 0; j < z.cols; ++j)
      o.dz.at(i, j) = (std::exp(z.at(i, j) - max) / sum - (j == y ? 1.0 : 0.0)) / static_cast<double>(o.counted);
  }
  if (o.counted > 0) o.loss /= static_cast<double>(o.counted);
  return o;
}

// ---- Adam/AdamW (PyTorch's formula) in double

struct AdamState {
  Vec p, m, v;
};

inline void adam_step(AdamState& s, const Vec& g, double lr, double b1, double b2, double eps, double wd,
                      long step) {
  const double c1 = 1.0 - std::pow(b1, static_cast<double>(step));
  const double c2 = 1.0 - std::pow(b2, static_cast<double>(step));
  for (std::size_t i = 0; i < s.p.size(); ++i) {
    s.p[i] -= lr * wd * s.p[i];
    s.m[i] = b1 * s.m[i] + (1.0 - b1) * g[i];
    s.v[i] = b2 * s.v[i] + (1.0 - b2) * g[i] * g[i];
    s.p[i] -= lr * (s.m[i] / c1) / (std::sqrt(s.v[i] / c2) + eps);
  }
}

}  // namespace layers_ref
