// Parametric attention pooling (Dive into Deep Learning 10.2.4): Gaussian
// kernel regression with one learned parameter w,
//   f(x) = Σ_j softmax_j(−((x − x_j) w)² / 2) y_j,
// the same as Nadaraya-Watson with bandwidth 1/|w|. w is fitted by gradient
// descent on the training set itself, leaving each point out of its own
// keys (otherwise the best w is ∞: every point would just copy its own y):
//   L(w) = ½ Σ_i (f_{−i}(x_i) − y_i)²
// A larger w narrows the kernel, so the weights concentrate on the nearest
// keys and the prediction follows the data more closely (and its noise).
#pragma once

#include <cstddef>

#include "status.h"

namespace attn {

// L(w) for the leave-one-out fit on m ≥ 2 points, and dL/dw in *gradient
// when it is not null. Computed in double; finite for any w, ±∞ included
// (the limit: each point predicted from its nearest other points, gradient 0),
// when x and y are moderate.
double pooling_loss(const float* x, const float* y, std::size_t m, double w, double* gradient);

// Full-batch gradient descent from w0: epochs steps w ← w − learning_rate·dL/dw.
// losses[e] is L(w) before step e (epochs entries); *w_out the final w.
// m < 2 → shape_mismatch; a negative or non-finite learning rate or w0 → bad_argument.
Status fit_parametric_pooling(const float* x, const float* y, std::size_t m, double w0, double learning_rate,
                              std::size_t epochs, float* losses, double* w_out);

}  // namespace attn
