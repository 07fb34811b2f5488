#include "parametric_pooling.h"

#include <cmath>
#include <limits>

namespace attn {

// For query i the scores are s_j = −c u_j with c = w²/2 and u_j = (x_i − x_j)², j ≠ i. Softmax
// does not change when a constant is added to every score, so the weights are taken from
// s_j + c u_min = −c δ_j with δ_j = u_j − u_min ≥ 0: the nearest key has weight e⁰ = 1 before the
// sum, and the loss stays finite for any w. Written as −w²u/2 − max, a w whose w²u overflows gave
// exp(−∞ − (−∞)) = NaN. At c = ∞ (|w| over about 1.3e154) the weights are those of the nearest keys
// alone: a key at δ_j = 0 gets 1, exactly, and no product ∞·0 is formed.
// With α = softmax(s) and f = Σ α_j y_j, using Σ α_j (y_j − f) = 0:
//   df/dw = Σ_j y_j α_j (ds_j/dw − Σ_k α_k ds_k/dw),  ds_j/dw = −w u_j
//         = −w Σ_j α_j u_j (y_j − f) = −w Σ_j α_j δ_j (y_j − f).
// That sum is 0 when only the nearest keys have weight; the gradient is then 0, also at w = ±∞
// (the limit of w·e^(−w²δ/2)), so a step never makes w NaN.

namespace {

// The smallest (x_i − x_j)² over the keys j ≠ i.
double nearest_squared_distance(const float* x, std::size_t m, std::size_t i) {
  double nearest = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < m; ++j) {
    if (j == i) continue;
    const double d = static_cast<double>(x[i]) - x[j];
    nearest = std::fmin(nearest, d * d);
  }
  return nearest;
}

}  // namespace

double pooling_loss(const float* x, const float* y, std::size_t m, double w, double* gradient) {
  const double c = 0.5 * w * w;
  double loss = 0.0, grad = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    const double u_min = nearest_squared_distance(x, m, i);
    double total = 0.0, f = 0.0, ad = 0.0, ady = 0.0;  // sums of e, e·y, e·δ, e·δ·y
    for (std::size_t j = 0; j < m; ++j) {
      if (j == i) continue;
      const double d = static_cast<double>(x[i]) - x[j];
      const double delta = d * d - u_min;
      const double e = delta == 0.0 ? 1.0 : std::exp(-c * delta);
      total += e;
      f += e * y[j];
      ad += e * delta;
      ady += e * delta * y[j];
    }
    f /= total;
    const double r = f - y[i];
    loss += 0.5 * r * r;
    const double spread = (ady - f * ad) / total;  // Σ_j α_j δ_j (y_j − f)
    if (spread != 0.0) grad += r * (-w) * spread;
  }
  if (gradient) *gradient = grad;
  return loss;
}

Status fit_parametric_pooling(const float* x, const float* y, std::size_t m, double w0, double learning_rate,
                              std::size_t epochs, float* losses, double* w_out) {
  if (m < 2) return Status::shape_mismatch;
  if (!std::isfinite(w0) || !std::isfinite(learning_rate) || learning_rate < 0.0) return Status::bad_argument;
  double w = w0;
  for (std::size_t e = 0; e < epochs; ++e) {
    double gradient = 0.0;
    losses[e] = static_cast<float>(pooling_loss(x, y, m, w, &gradient));
    w -= learning_rate * gradient;
  }
  *w_out = w;
  return Status::ok;
}

}  // namespace attn
