// The output layer's loss: softmax cross-entropy of each row of logits
// against a target id, averaged over the rows whose target is not the
// ignored (padding) id:
//   loss = (1/N) Σ_t [ logsumexp(z_t) − z_t[y_t] ],  dz_t = (softmax(z_t) − onehot(y_t)) / N
// Ignored rows get dz = 0. N = 0 (nothing counted) gives loss 0 and dz = 0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "matrix.h"
#include "status.h"

namespace attn {

struct CrossEntropyResult {
  double loss = 0;          // mean over counted rows
  std::size_t counted = 0;  // rows whose target != ignore_id
  std::size_t correct = 0;  // counted rows whose argmax (first on ties) == target
};

// logits: n×V; targets: n ids in [0, V) (or ignore_id), else bad_argument;
// d_logits: n×V, overwritten (may alias logits; data == nullptr: not computed).
Status softmax_cross_entropy(ConstMatrixView logits, const std::int32_t* targets, std::int32_t ignore_id,
                             MatrixView d_logits, CrossEntropyResult* result);

}  // namespace attn
