// Rotary position embedding (RoPE; Su et al., "RoFormer", 2021). Instead of
// adding a position vector to a token, RoPE turns each pair of a query's (or
// key's) coordinates by an angle proportional to its position p:
//   θ_i = base^(−2i/d)  (i = 0 … d/2 − 1),   angle = p · θ_i
//   (x_a, x_b) ← (x_a cos − x_b sin,  x_a sin + x_b cos)
// A rotation keeps lengths, and rotating q by pθ and k by p'θ turns q·k into a
// function of q, k and p − p' only: the score sees relative position.
// Which coordinates form pair i:
//   rotate-half (interleaved = false): (i, i + d/2)  HF Llama, ONNX RotaryEmbedding's default
//   interleaved (interleaved = true):  (2i, 2i + 1)  RoFormer, GPT-J
#pragma once

#include <cstddef>
#include <cstdint>

#include "head_tensor.h"
#include "matrix.h"
#include "status.h"

namespace attn {

struct RotaryOptions {
  double base = 10000.0;     // > 0 and finite
  std::int64_t offset = 0;   // the position of row 0 (a KV cache's past length when decoding)
  bool interleaved = false;  // pairs (2i, 2i+1) instead of (i, i + d/2)
};

// out = x with row r of every head rotated for position offset + r. x and out
// have the same shape [batch, heads, rows, d] (any strides; out may be x
// itself). d even, base > 0 and finite, else bad_argument; shapes differ:
// shape_mismatch. The angles and the rotation are computed in double and
// rounded once to float32.
Status rotary_embedding(const HeadTensor& x, const RotaryOptions& options, const MutHeadTensor& out);

// angles[r][i] = (offset + r) · θ_i for a width d: angles.rows positions,
// angles.cols = d / 2 pairs (d even, else bad_argument; cols ≠ d/2: shape_mismatch).
Status rotary_angles(std::size_t d, const RotaryOptions& options, MatrixView angles);

}  // namespace attn
