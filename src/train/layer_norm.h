// Layer normalisation over each row (Ba, Kiros and Hinton, 2016):
//   y = γ ∘ (x − μ) / √(σ² + ε) + β,  μ, σ² the row's mean and (biased) variance.
// The forward keeps μ and 1/√(σ² + ε) per row for the backward:
//   x̂ = (x − μ) · rstd,  dx̂ = dy ∘ γ,
//   dx = rstd · (dx̂ − mean(dx̂) − x̂ ∘ mean(dx̂ ∘ x̂)),
//   dγ += Σ_rows dy ∘ x̂,  dβ += Σ_rows dy   (accumulated).
#pragma once

#include "matrix.h"
#include "status.h"

namespace attn {

// x, y: n×d (y may alias x); gamma, beta: d floats; mean, rstd: n floats (written).
Status layer_norm_forward(ConstMatrixView x, const float* gamma, const float* beta, float epsilon, MatrixView y,
                          float* mean, float* rstd);

// dx: n×d, overwritten (may alias dy); dgamma, dbeta: d floats, accumulated.
Status layer_norm_backward(ConstMatrixView x, ConstMatrixView dy, const float* gamma, const float* mean,
                           const float* rstd, MatrixView dx, float* dgamma, float* dbeta);

}  // namespace attn
