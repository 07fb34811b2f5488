#include "parametric_pooling.h"

#include <cmath>
#include <limits>

namespace attn {

// For query i the scores are s_j = −w² u_j / 2 with u_j = (x_i − x_j)², j ≠ i.
// With α = softmax(s) and f = Σ α_j y_j:
//   df/dw = Σ_j y_j α_j (ds_j/dw − Σ_k α_k ds_k/dw),  ds_j/dw = −w u_j
//         = −w (Σ_j α_j u_j y_j − f Σ_j α_j u_j).
double pooling_loss(const float* x, const float* y, std::size_t m, double w, double* gradient) {
  double loss = 0.0, grad = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < m; ++j) {
      if (j == i) continue;
      const double d = static_cast<double>(x[i]) - x[j];
      top = std::fmax(top, -0.5 * w * w * d * d);
    }
    double total = 0.0, f = 0.0, au = 0.0, auy = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      if (j == i) continue;
      const double d = static_cast<double>(x[i]) - x[j];
      const double u = d * d;
      const double e = std::exp(-0.5 * w * w * u - top);
      total += e;
      f += e * y[j];
      au += e * u;
      auy += e * u * y[j];
    }
    f /= total;
    au /= total;
    auy /= total;
    const double r = f - y[i];
    loss += 0.5 * r * r;
    grad += r * (-w) * (auy - f * au);
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
