// Plain float64 reference implementations: the test oracle for every kernel.
// Written straight from the formulas, independently of src/ (no SIMD, no
// tiling, no shared helpers; the mask is a plain boolean matrix built here),
// so an error in the core cannot hide in its own check.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ref {

struct MatD {
  std::size_t rows = 0, cols = 0;
  std::vector<double> data;

  MatD() = default;
  MatD(std::size_t r, std::size_t c, double fill = 0.0) : rows(r), cols(c), data(r * c, fill) {}
  double& at(std::size_t i, std::size_t j) { return data[i * cols + j]; }
  double at(std::size_t i, std::size_t j) const { return data[i * cols + j]; }
};

// ---- which keys each query sees: vis[i][j] is true when query i may attend to key j

using Visibility = std::vector<std::vector<bool>>;

inline Visibility all_visible(std::size_t n, std::size_t m) { return Visibility(n, std::vector<bool>(m, true)); }

inline Visibility causal(std::size_t n, std::size_t m) {
  Visibility v(n, std::vector<bool>(m, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m && j <= i; ++j) v[i][j] = true;
  return v;
}

inline Visibility valid_lengths(std::size_t n, std::size_t m, const std::vector<std::int32_t>& lens) {
  Visibility v(n, std::vector<bool>(m, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) v[i][j] = static_cast<std::int64_t>(j) < lens[i];
  return v;
}

inline Visibility from_bits(std::size_t n, std::size_t m, const std::vector<std::uint8_t>& bits) {
  Visibility v(n, std::vector<bool>(m, false));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) v[i][j] = bits[i * m + j] != 0;
  return v;
}

// ---- products

// A (n×k) · B (k×m)
inline MatD matmul(const MatD& a, const MatD& b) {
  MatD c(a.rows, b.cols);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < b.cols; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < a.cols; ++p) sum += a.at(i, p) * b.at(p, j);
      c.at(i, j) = sum;
    }
  return c;
}

// alpha · A (n×k) · Bᵀ (B: m×k)
inline MatD matmul_bt(const MatD& a, const MatD& b, double alpha = 1.0) {
  MatD c(a.rows, b.rows);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < b.rows; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < a.cols; ++p) sum += a.at(i, p) * b.at(j, p);
      c.at(i, j) = alpha * sum;
    }
  return c;
}

inline MatD scaled(const MatD& a, double s) {
  MatD c = a;
  for (double& x : c.data) x *= s;
  return c;
}

// Columns [first, first + count) of a, copied.
inline MatD columns(const MatD& a, std::size_t first, std::size_t count) {
  MatD c(a.rows, count);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t j = 0; j < count; ++j) c.at(i, j) = a.at(i, first + j);
  return c;
}

// ---- masked softmax, row by row

// Masked entries get weight exactly 0; a row with no visible entry is all zeros.
inline MatD masked_softmax(const MatD& s, const Visibility& vis) {
  MatD w(s.rows, s.cols, 0.0);
  for (std::size_t i = 0; i < s.rows; ++i) {
    bool any = false;
    double mx = 0.0;
    for (std::size_t j = 0; j < s.cols; ++j)
      if (vis[i][j] && (!any || s.at(i, j) > mx)) {
        mx = s.at(i, j);
        any = true;
      }
    if (!any) continue;
    double sum = 0.0;
    for (std::size_t j = 0; j < s.cols; ++j)
      if (vis[i][j]) sum += std::exp(s.at(i, j) - mx);
    for (std::size_t j = 0; j < s.cols; ++j)
      if (vis[i][j]) w.at(i, j) = std::exp(s.at(i, j) - mx) / sum;
  }
  return w;
}

// The "masked" trace step: masked entries hold -FLT_MAX.
inline MatD mask_for_trace(const MatD& s, const Visibility& vis) {
  MatD out = s;
  for (std::size_t i = 0; i < s.rows; ++i)
    for (std::size_t j = 0; j < s.cols; ++j)
      if (!vis[i][j]) out.at(i, j) = -static_cast<double>(FLT_MAX);
  return out;
}

// ---- attention

struct Attention {
  MatD scores;   // QKᵀ (dot product) or w_vᵀ tanh(…) (additive)
  MatD scaled;   // scores · scale (dot product only)
  MatD masked;   // the masked trace step
  MatD weights;  // softmax
  MatD output;   // weights · V
};

// softmax(Q Kᵀ · scale) V.  Q: n×d, K: m×d, V: m×d_v.
inline Attention dot_product_attention(const MatD& q, const MatD& k, const MatD& v, const Visibility& vis,
                                       double scale) {
  Attention a;
  a.scores = matmul_bt(q, k);
  a.scaled = scaled(a.scores, scale);
  a.masked = mask_for_trace(a.scaled, vis);
  a.weights = masked_softmax(a.scaled, vis);
  a.output = matmul(a.weights, v);
  return a;
}

struct Additive {
  MatD q_hidden, k_hidden;  // Q W_q (n×h), K W_k (m×h)
  Attention attention;      // scaled is unused
};

// S[i][j] = Σ_t w_v[t] · tanh((Q W_q)[i][t] + (K W_k)[j][t]), then softmax and · V.
inline Additive additive_attention(const MatD& q, const MatD& k, const MatD& v, const MatD& w_q, const MatD& w_k,
                                   const std::vector<double>& w_v, const Visibility& vis) {
  Additive r;
  r.q_hidden = matmul(q, w_q);
  r.k_hidden = matmul(k, w_k);
  MatD s(q.rows, k.rows);
  for (std::size_t i = 0; i < q.rows; ++i)
    for (std::size_t j = 0; j < k.rows; ++j) {
      double sum = 0.0;
      for (std::size_t t = 0; t < w_v.size(); ++t) sum += w_v[t] * std::tanh(r.q_hidden.at(i, t) + r.k_hidden.at(j, t));
      s.at(i, j) = sum;
    }
  r.attention.scores = s;
  r.attention.masked = mask_for_trace(s, vis);
  r.attention.weights = masked_softmax(s, vis);
  r.attention.output = matmul(r.attention.weights, v);
  return r;
}

struct SelfAttention {
  MatD q, k, v;         // X W_Q, X W_K, X W_V
  Attention attention;  // scale 1/√d_k
};

inline SelfAttention self_attention(const MatD& x, const MatD& w_q, const MatD& w_k, const MatD& w_v,
                                    const Visibility& vis) {
  SelfAttention r;
  r.q = matmul(x, w_q);
  r.k = matmul(x, w_k);
  r.v = matmul(x, w_v);
  const double scale = w_q.cols > 0 ? 1.0 / std::sqrt(static_cast<double>(w_q.cols)) : 1.0;
  r.attention = dot_product_attention(r.q, r.k, r.v, vis, scale);
  return r;
}

struct MultiHead {
  MatD q, k, v;                  // all heads side by side
  std::vector<Attention> heads;  // per head, scale 1/√(d_k per head)
  MatD concat;                   // n × h·d_v
  MatD output;                   // concat · W_O
};

inline MultiHead multi_head_attention(const MatD& x, std::size_t heads, const MatD& w_q, const MatD& w_k,
                                      const MatD& w_v, const MatD& w_o, const Visibility& vis) {
  MultiHead r;
  r.q = matmul(x, w_q);
  r.k = matmul(x, w_k);
  r.v = matmul(x, w_v);
  const std::size_t d_k = w_q.cols / heads, d_v = w_v.cols / heads;
  const double scale = d_k > 0 ? 1.0 / std::sqrt(static_cast<double>(d_k)) : 1.0;
  r.concat = MatD(x.rows, w_v.cols);
  for (std::size_t h = 0; h < heads; ++h) {
    r.heads.push_back(dot_product_attention(columns(r.q, h * d_k, d_k), columns(r.k, h * d_k, d_k),
                                            columns(r.v, h * d_v, d_v), vis, scale));
    const MatD& out = r.heads.back().output;
    for (std::size_t i = 0; i < x.rows; ++i)
      for (std::size_t j = 0; j < d_v; ++j) r.concat.at(i, h * d_v + j) = out.at(i, j);
  }
  r.output = matmul(r.concat, w_o);
  return r;
}

// ---- the Transformer encoder block (post-norm)

// γ ⊙ (r − mean) / √(var + ε) + β on every row; biased variance.
inline MatD layer_norm(const MatD& x, const std::vector<double>& gamma, const std::vector<double>& beta, double eps) {
  MatD out(x.rows, x.cols);
  for (std::size_t i = 0; i < x.rows; ++i) {
    double mean = 0.0, var = 0.0;
    for (std::size_t j = 0; j < x.cols; ++j) mean += x.at(i, j) / static_cast<double>(x.cols);
    for (std::size_t j = 0; j < x.cols; ++j) var += (x.at(i, j) - mean) * (x.at(i, j) - mean) / static_cast<double>(x.cols);
    for (std::size_t j = 0; j < x.cols; ++j) out.at(i, j) = gamma[j] * (x.at(i, j) - mean) / std::sqrt(var + eps) + beta[j];
  }
  return out;
}

inline MatD plus(const MatD& a, const MatD& b) {
  MatD c = a;
  for (std::size_t t = 0; t < c.data.size(); ++t) c.data[t] += b.data[t];
  return c;
}

inline MatD plus_row(const MatD& a, const std::vector<double>& bias, bool relu) {
  MatD c = a;
  for (std::size_t i = 0; i < c.rows; ++i)
    for (std::size_t j = 0; j < c.cols; ++j) {
      const double v = c.at(i, j) + bias[j];
      c.at(i, j) = relu ? std::fmax(0.0, v) : v;
    }
  return c;
}

struct Transformer {
  MultiHead attention;
  MatD sum1, norm1, hidden, ffn, sum2, out;
};

struct TransformerParams {
  std::size_t heads;
  MatD w_q, w_k, w_v, w_o, w1, w2;
  std::vector<double> b1, b2, gamma1, beta1, gamma2, beta2;
  double eps;
};

inline Transformer transformer_block(const MatD& x, const TransformerParams& p, const Visibility& vis) {
  Transformer t;
  t.attention = multi_head_attention(x, p.heads, p.w_q, p.w_k, p.w_v, p.w_o, vis);
  t.sum1 = plus(x, t.attention.output);
  t.norm1 = layer_norm(t.sum1, p.gamma1, p.beta1, p.eps);
  t.hidden = plus_row(matmul(t.norm1, p.w1), p.b1, true);
  t.ffn = plus_row(matmul(t.hidden, p.w2), p.b2, false);
  t.sum2 = plus(t.norm1, t.ffn);
  t.out = layer_norm(t.sum2, p.gamma2, p.beta2, p.eps);
  return t;
}

// ---- Nadaraya-Watson kernel regression

enum class Kernel { gaussian, boxcar, epanechnikov, constant };

struct Regression {
  std::vector<double> predictions;  // n
  MatD weights;                     // n × m
};

// u = (x - x_i) / h; weights ∝ K(u), normalised per query; a query whose
// kernel values are all 0 gets zero weights and the prediction 0. The
// Gaussian is normalised relative to the nearest point so it cannot underflow.
inline Regression nadaraya_watson(const std::vector<float>& x_train, const std::vector<float>& y_train,
                                  const std::vector<float>& x_query, Kernel kernel, float bandwidth) {
  const std::size_t n = x_query.size(), m = x_train.size();
  Regression r{std::vector<double>(n, 0.0), MatD(n, m)};
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> u(m);
    double u2_min = INFINITY;
    for (std::size_t j = 0; j < m; ++j) {
      u[j] = (static_cast<double>(x_query[i]) - static_cast<double>(x_train[j])) / static_cast<double>(bandwidth);
      u2_min = std::fmin(u2_min, u[j] * u[j]);
    }
    std::vector<double> k(m);
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      switch (kernel) {
        case Kernel::gaussian:
          k[j] = std::exp(-0.5 * (u[j] * u[j] - u2_min));
          break;
        case Kernel::boxcar:
          k[j] = std::fabs(u[j]) <= 1.0 ? 1.0 : 0.0;
          break;
        case Kernel::epanechnikov:
          k[j] = std::fabs(u[j]) <= 1.0 ? 0.75 * (1.0 - u[j] * u[j]) : 0.0;
          break;
        case Kernel::constant:
          k[j] = 1.0;
          break;
      }
      sum += k[j];
    }
    if (sum == 0.0) continue;
    for (std::size_t j = 0; j < m; ++j) {
      r.weights.at(i, j) = k[j] / sum;
      r.predictions[i] += k[j] / sum * static_cast<double>(y_train[j]);
    }
  }
  return r;
}

}  // namespace ref
