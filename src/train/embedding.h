// Token embeddings and positions: row t of the output is
//   scale · E[id_t] + P[position_t]
// with E the vocab×d table and P either the fixed sinusoidal encoding or a
// learned max_length×d table. The backward scatters: dE[id_t] += scale · dy_t,
// and for learned positions dP[t] += dy_t (both accumulated).
#pragma once

#include <cstddef>
#include <cstdint>

#include "matrix.h"
#include "status.h"

namespace attn {

// ids: n token ids, each in [0, table.rows) else bad_argument (nothing written).
// positions: a table of at least n rows (row t added to output row t), or
// data == nullptr for none. out: n×d.
Status embed_forward(const std::int32_t* ids, std::size_t n, ConstMatrixView table, float scale,
                     ConstMatrixView positions, MatrixView out);

// d_out: n×d. d_table accumulated; d_positions (data == nullptr: fixed positions) accumulated.
Status embed_backward(const std::int32_t* ids, std::size_t n, ConstMatrixView d_out, float scale,
                      MatrixView d_table, MatrixView d_positions);

}  // namespace attn
