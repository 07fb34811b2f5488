// Sinusoidal positional encoding (Vaswani et al., 2017). Attention alone is
// blind to order: permuting the tokens permutes the output rows the same way.
// Adding P, a fixed n×d matrix whose row i depends only on the position i,
// gives every token a sense of where it is:
//   P[i][2j]   = sin(i / base^(2j/d))
//   P[i][2j+1] = cos(i / base^(2j/d))
// Column pairs are sine waves whose wavelength grows geometrically from 2π
// to 2π·base, so low columns change fast and high columns slowly, like the
// digits of a binary counter. For a fixed offset k, P[i+k] is a rotation of
// P[i] in each (sin, cos) pair, so for an even d P_i·P_j depends on i - j only: relative
// position is a linear function of the encoding.
#pragma once

#include "matrix.h"
#include "status.h"

namespace attn {

// Writes P into p (p.rows positions, p.cols = d columns). base > 0 and
// finite, else bad_argument. Computed in double, rounded once to float.
Status positional_encoding(double base, MatrixView p);

// out = x + P, with P as above for x's shape; out may be x itself.
Status add_positional_encoding(ConstMatrixView x, double base, MatrixView out);

}  // namespace attn
