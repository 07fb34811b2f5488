// Sinusoidal positional encoding (Vaswani et al., 2017). Attention alone is
// blind to order: permuting the tokens permutes the output rows the same way.
// Adding P, a fixed n×d matrix whose row i depends only on the position i,
// gives every token a sense of where it is:
//   P[i][2j]   = sin(i / base^(2j/d))
//   P[i][2j+1] = cos(i / base^(2j/d))
// Column pairs are sine waves whose wavelength grows geometrically from 2π
// to 2π·base, so low columns change fast and high columns slowly, as a binary
// counter's low-order digit flips fastest (a counter writes it on the right).
// For a fixed offset k, P[i+k] is a rotation of P[i] in each (sin, cos) pair,
// by an angle that depends on k only: relative position is a linear function
// of the encoding. For an even d, P_i·P_j depends on |i - j| only.
#pragma once

#include "matrix.h"
#include "status.h"

namespace attn {

// Writes P into p (p.rows positions, p.cols = d columns). base > 0 and
// finite, else bad_argument. Computed in double, rounded once to float.
Status positional_encoding(double base, MatrixView p);

// out = scale · x + P, with P as above for x's shape; out may be x itself.
// scale > 0 and finite, else bad_argument: Dive into Deep Learning (10.7)
// scales the embeddings by √d before adding P. Computed in double, rounded once.
Status add_positional_encoding(ConstMatrixView x, double base, double scale, MatrixView out);

// out = x + P (scale 1).
inline Status add_positional_encoding(ConstMatrixView x, double base, MatrixView out) {
  return add_positional_encoding(x, base, 1.0, out);
}

}  // namespace attn
