// A dense layer y = x W + b and its backward pass. Parameter gradients are
// ACCUMULATED (dW += xᵀ dy, db += column sums of dy), because one weight
// serves every row of a batch and a model may call a layer more than once per
// step; the input gradient dx is overwritten. A view with data == nullptr
// (or a null bias pointer) means "not wanted / not present".
#pragma once

#include "matrix.h"
#include "status.h"

namespace attn {

// x: n×k, w: k×m, bias: m floats or nullptr, y: n×m.
Status linear_forward(ConstMatrixView x, ConstMatrixView w, const float* bias, MatrixView y);

// dy: n×m. dx (n×k, overwritten) may have data == nullptr: not computed.
// dw: k×m, accumulated. db: m floats or nullptr, accumulated.
Status linear_backward(ConstMatrixView x, ConstMatrixView w, ConstMatrixView dy, MatrixView dx, MatrixView dw,
                       float* db);

// C += Aᵀ B. A: n×k, B: n×m, C: k×m (the weight gradient of a product).
void matmul_transposed_a_accumulate(ConstMatrixView a, ConstMatrixView b, MatrixView c);

// out = a + b elementwise (a residual connection); out may alias a or b.
Status add(ConstMatrixView a, ConstMatrixView b, MatrixView out);

}  // namespace attn
