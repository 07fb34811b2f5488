// Nadaraya-Watson kernel regression (1964): attention pooling with no learned
// parameters. The prediction at a query x is a weighted average of the
// training targets, f(x) = Σ_i α(x, x_i) y_i, where the weights
// α(x, x_i) = K((x - x_i)/h) / Σ_j K((x - x_j)/h) form a distribution over the
// training points (the keys). Queries play the query, training inputs the
// keys, training targets the values.
#pragma once

#include <cstddef>

#include "matrix.h"
#include "status.h"

namespace attn {

enum class Kernel : int {
  gaussian = 0,      // K(u) = exp(-u²/2): weights = softmax(-(x - x_i)² / 2h²)
  boxcar = 1,        // K(u) = 1 if |u| <= 1, else 0
  epanechnikov = 2,  // K(u) = 3/4 (1 - u²) if |u| <= 1, else 0
  constant = 3,      // K(u) = 1: every query gets the plain average (average pooling)
};

// x_train, y_train: m values; x_query: n values; predictions: n values;
// weights: n×m. A query with no training point inside a compact kernel's
// window gets all-zero weights and the prediction 0 (documented, never NaN).
Status nadaraya_watson(const float* x_train, const float* y_train, std::size_t m, const float* x_query,
                       std::size_t n, Kernel kernel, float bandwidth, float* predictions, MatrixView weights);

}  // namespace attn
