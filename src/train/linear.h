// A dense layer y = x W + b and its backward pass. Parameter gradients are
// ACCUMULATED (dW += xᵀ dy, db += column sums of dy), because one weight
// serves every row of a batch and a model may call a layer more than once per
// step; the input gradient dx is overwritten. A view with data == nullptr
// (or a null bias pointer) means "not wanted / not present".
#pragma once

#include "matmul.h"
#include "matrix.h"
#include "status.h"

namespace attn {

// Optional scratch for a layer of k×m weights: with it the products read W
// (forward) or Wᵀ (dx) packed into panels (matmul.h), faster for a batch of
// rows; packing costs k·m copies against n·k·m multiply-adds. The forward's
// result is the same bit for bit either way.
std::size_t linear_pack_floats(std::size_t k, std::size_t m);

// x: n×k, w: k×m, bias: m floats or nullptr, y: n×m. pack: linear_pack_floats(k, m) floats or nullptr.
Status linear_forward(ConstMatrixView x, ConstMatrixView w, const float* bias, MatrixView y,
                      float* pack = nullptr);

// dy: n×m. dx (n×k, overwritten) may have data == nullptr: not computed.
// dw: k×m, accumulated (matmul_transposed_a_accumulate). db: m floats or nullptr, accumulated.
Status linear_backward(ConstMatrixView x, ConstMatrixView w, ConstMatrixView dy, MatrixView dx, MatrixView dw,
                       float* db, float* pack = nullptr);

// out = a + b elementwise (a residual connection); out may alias a or b.
Status add(ConstMatrixView a, ConstMatrixView b, MatrixView out);

}  // namespace attn
