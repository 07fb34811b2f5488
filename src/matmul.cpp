#include "matmul.h"

#include "simd.h"
#include "vector_ops.h"

namespace attn {
namespace {

using simd::f32x4;

// C[i..i+R, j..j+4V] = A[i..i+R, :] · B[:, j..j+4V]: R broadcast rows of A
// times V vectors of a row of B, R·V accumulators kept in registers.
template <int R, int V>
void product_tile(ConstMatrixView a, ConstMatrixView b, MatrixView c, std::size_t i, std::size_t j) {
  f32x4 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = simd::zero();
  for (std::size_t p = 0; p < a.cols; ++p) {
    f32x4 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = simd::load(b.row(p) + j + 4 * v);
    for (int r = 0; r < R; ++r) {
      const f32x4 av = simd::load_splat(a.row(i + r) + p);
      for (int v = 0; v < V; ++v) acc[r][v] = simd::madd(acc[r][v], av, bv[v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) simd::store(c.row(i + r) + j + 4 * v, acc[r][v]);
}

// One output entry the plain way, for the columns left over after the vectors.
float product_entry(ConstMatrixView a, ConstMatrixView b, std::size_t i, std::size_t j) {
  float sum = 0.0f;
  for (std::size_t p = 0; p < a.cols; ++p) sum += a.at(i, p) * b.at(p, j);
  return sum;
}

template <int R>
void product_rows(ConstMatrixView a, ConstMatrixView b, MatrixView c, std::size_t i) {
  std::size_t j = 0;
  for (; j + 8 <= c.cols; j += 8) product_tile<R, 2>(a, b, c, i, j);
  for (; j + 4 <= c.cols; j += 4) product_tile<R, 1>(a, b, c, i, j);
  for (; j < c.cols; ++j)
    for (int r = 0; r < R; ++r) c.at(i + r, j) = product_entry(a, b, i + r, j);
}

// C[i..i+R, j..j+S] = alpha · A[i..i+R, :] · B[j..j+S, :]ᵀ: R·S dot products
// run side by side along k, one vector accumulator each.
template <int R, int S>
void dot_tile(ConstMatrixView a, ConstMatrixView b, float alpha, MatrixView c, std::size_t i, std::size_t j) {
  const std::size_t k = a.cols;
  f32x4 acc[R][S];
  for (int r = 0; r < R; ++r)
    for (int s = 0; s < S; ++s) acc[r][s] = simd::zero();
  std::size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    f32x4 bv[S];
    for (int s = 0; s < S; ++s) bv[s] = simd::load(b.row(j + s) + p);
    for (int r = 0; r < R; ++r) {
      const f32x4 av = simd::load(a.row(i + r) + p);
      for (int s = 0; s < S; ++s) acc[r][s] = simd::madd(acc[r][s], av, bv[s]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int s = 0; s < S; ++s) {
      float sum = simd::hsum(acc[r][s]);
      for (std::size_t q = p; q < k; ++q) sum += a.at(i + r, q) * b.at(j + s, q);
      c.at(i + r, j + s) = alpha * sum;
    }
  }
}

template <int R>
void dot_rows(ConstMatrixView a, ConstMatrixView b, float alpha, MatrixView c, std::size_t i) {
  std::size_t j = 0;
  for (; j + 4 <= c.cols; j += 4) dot_tile<R, 4>(a, b, alpha, c, i, j);
  for (; j < c.cols; ++j) dot_tile<R, 1>(a, b, alpha, c, i, j);
}

// The largest B that matmul_transposed packs (16 KB on the stack). The choice
// depends on B alone, so a product done row by row rounds as the whole.
constexpr std::size_t kStackPackedFloats = 4096;

constexpr std::size_t kPanel = kPackedPanel;  // columns per packed panel
constexpr std::size_t kPanelsPerBlock = 8;  // panels sharing one pass over A's rows (64 columns)

// C[i..i+R, j..j+8) = A[i..i+R, :] · panel: like product_tile, B read from a packed panel.
template <int R>
void packed_tile(ConstMatrixView a, const float* panel, MatrixView c, std::size_t i, std::size_t j) {
  f32x4 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::zero();
  for (std::size_t p = 0; p < a.cols; ++p) {
    const f32x4 b0 = simd::load(panel + p * kPanel), b1 = simd::load(panel + p * kPanel + 4);
    for (int r = 0; r < R; ++r) {
      const f32x4 av = simd::load_splat(a.row(i + r) + p);
      acc[r][0] = simd::madd(acc[r][0], av, b0);
      acc[r][1] = simd::madd(acc[r][1], av, b1);
    }
  }
  alignas(16) float tail[R][kPanel];
  const bool full = j + kPanel <= c.cols;
  for (int r = 0; r < R; ++r) {
    simd::store(full ? c.row(i + r) + j : tail[r], acc[r][0]);
    simd::store(full ? c.row(i + r) + j + 4 : tail[r] + 4, acc[r][1]);
  }
  if (!full)
    for (int r = 0; r < R; ++r)
      for (std::size_t t = 0; j + t < c.cols; ++t) c.at(i + r, j + t) = tail[r][t];
}

// ---- C = alpha·Aᵀ B and C += Aᵀ B. Aᵀ is never formed: row i of A and row i
// of B meet in an outer product, R entries of A's row (splat) times V vectors
// of B's row, R·V accumulators in registers. C is done in blocks of at most
// kBlock × kBlock whose sums wait in a local buffer while the rows pass in
// chunks: the few lines of A and B a chunk covers stay in L1 for every tile of
// the block. (One pass over all n rows per tile read them from memory instead:
// a weight gradient has thousands of rows.)

constexpr std::size_t kChunkRows = 32;
constexpr std::size_t kBlock = 64;  // a block's sums: kBlock rows of kBlock floats

// sums[r·kBlock + …] holds tile (p + r, j …)'s sum so far: 0 before the first chunk.
template <int R, int V>
void transposed_tile(ConstMatrixView a, ConstMatrixView b, std::size_t p, std::size_t j, bool first, float* sums) {
  f32x4 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = first ? simd::zero() : simd::load(sums + r * kBlock + 4 * v);
  for (std::size_t i = 0; i < a.rows; ++i) {
    f32x4 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = simd::load(b.row(i) + j + 4 * v);
    for (int r = 0; r < R; ++r) {
      const f32x4 av = simd::load_splat(a.row(i) + p + r);
      for (int v = 0; v < V; ++v) acc[r][v] = simd::madd(acc[r][v], av, bv[v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) simd::store(sums + r * kBlock + 4 * v, acc[r][v]);
}

// One entry the plain way, for the columns left over after the vectors.
void transposed_entry(ConstMatrixView a, ConstMatrixView b, std::size_t p, std::size_t j, bool first, float* sum) {
  float s = first ? 0.0f : *sum;
  for (std::size_t i = 0; i < a.rows; ++i) s += a.at(i, p) * b.at(i, j);
  *sum = s;
}

template <int R>
void transposed_rows(ConstMatrixView a, ConstMatrixView b, std::size_t p, std::size_t j0, std::size_t j1, bool first,
                     float* sums) {
  std::size_t j = j0;
  for (; j + 8 <= j1; j += 8) transposed_tile<R, 2>(a, b, p, j, first, sums + (j - j0));
  for (; j + 4 <= j1; j += 4) transposed_tile<R, 1>(a, b, p, j, first, sums + (j - j0));
  for (; j < j1; ++j)
    for (int r = 0; r < R; ++r) transposed_entry(a, b, p + r, j, first, sums + r * kBlock + (j - j0));
}

ConstMatrixView row_range(ConstMatrixView m, std::size_t first, std::size_t end) {
  return {m.data + first * m.stride, end - first, m.cols, m.stride};
}

// The sums of C's rows [p0, p1) and columns [j0, j1), chunk by chunk (at least
// once: with no rows every sum is 0).
void transposed_block(ConstMatrixView a, ConstMatrixView b, std::size_t p0, std::size_t p1, std::size_t j0,
                      std::size_t j1, float* sums) {
  std::size_t i0 = 0;
  do {
    const std::size_t i1 = i0 + kChunkRows < a.rows ? i0 + kChunkRows : a.rows;
    const ConstMatrixView ac = row_range(a, i0, i1), bc = row_range(b, i0, i1);
    std::size_t p = p0;
    for (; p + 4 <= p1; p += 4) transposed_rows<4>(ac, bc, p, j0, j1, i0 == 0, sums + (p - p0) * kBlock);
    for (; p < p1; ++p) transposed_rows<1>(ac, bc, p, j0, j1, i0 == 0, sums + (p - p0) * kBlock);
    i0 = i1;
  } while (i0 < a.rows);
}

// Every block of C: its sums, then finish(entry of C, sum) once per entry.
template <class Finish>
void transposed_blocks(ConstMatrixView a, ConstMatrixView b, MatrixView c, Finish finish) {
  alignas(16) float sums[kBlock * kBlock];
  for (std::size_t p0 = 0; p0 < c.rows; p0 += kBlock)
    for (std::size_t j0 = 0; j0 < c.cols; j0 += kBlock) {
      const std::size_t p1 = p0 + kBlock < c.rows ? p0 + kBlock : c.rows;
      const std::size_t j1 = j0 + kBlock < c.cols ? j0 + kBlock : c.cols;
      transposed_block(a, b, p0, p1, j0, j1, sums);
      for (std::size_t p = p0; p < p1; ++p)
        for (std::size_t j = j0; j < j1; ++j) finish(c.at(p, j), sums[(p - p0) * kBlock + (j - j0)]);
    }
}

}  // namespace

void matmul_transposed_a(ConstMatrixView a, ConstMatrixView b, float alpha, MatrixView c) {
  transposed_blocks(a, b, c, [alpha](float& entry, float sum) { entry = alpha * sum; });
}

void matmul_transposed_a_accumulate(ConstMatrixView a, ConstMatrixView b, MatrixView c) {
  transposed_blocks(a, b, c, [](float& entry, float sum) { entry += sum; });
}

void pack_transposed(ConstMatrixView b, float* packed) {
  // Bᵀ's columns are B's rows: panel j0 holds rows j0 … j0 + 7 of B, entry by entry along k,
  // rows past the last written as 0.
  for (std::size_t j0 = 0; j0 < b.rows; j0 += kPanel) {
    float* panel = packed + j0 * b.cols;
    const std::size_t rows = b.rows - j0 < kPanel ? b.rows - j0 : kPanel;
    if (rows < kPanel)
      for (std::size_t p = 0; p < b.cols * kPanel; ++p) panel[p] = 0.0f;
    for (std::size_t t = 0; t < rows; ++t) {
      const float* row = b.row(j0 + t);
      for (std::size_t p = 0; p < b.cols; ++p) panel[p * kPanel + t] = row[p];
    }
  }
}

std::size_t packed_floats(std::size_t k, std::size_t m) { return k * ((m + kPanel - 1) / kPanel * kPanel); }

void pack_columns(ConstMatrixView b, float* packed) {
  for (std::size_t j0 = 0; j0 < b.cols; j0 += kPanel) {
    float* panel = packed + j0 * b.rows;
    for (std::size_t p = 0; p < b.rows; ++p)
      for (std::size_t t = 0; t < kPanel; ++t) panel[p * kPanel + t] = j0 + t < b.cols ? b.at(p, j0 + t) : 0.0f;
  }
}

void matmul_packed(ConstMatrixView a, const float* packed_b, MatrixView c) {
  // A block of panels stays in cache while every row of A passes over it.
  for (std::size_t j0 = 0; j0 < c.cols; j0 += kPanel * kPanelsPerBlock) {
    const std::size_t j1 = j0 + kPanel * kPanelsPerBlock < c.cols ? j0 + kPanel * kPanelsPerBlock : c.cols;
    std::size_t i = 0;
    for (; i + 4 <= c.rows; i += 4)
      for (std::size_t j = j0; j < j1; j += kPanel) packed_tile<4>(a, packed_b + j * a.cols, c, i, j);
    for (; i < c.rows; ++i)
      for (std::size_t j = j0; j < j1; j += kPanel) packed_tile<1>(a, packed_b + j * a.cols, c, i, j);
  }
}

void matmul(ConstMatrixView a, ConstMatrixView b, MatrixView c) {
  std::size_t i = 0;
  for (; i + 4 <= c.rows; i += 4) product_rows<4>(a, b, c, i);
  for (; i < c.rows; ++i) product_rows<1>(a, b, c, i);
}

void matmul_transposed(ConstMatrixView a, ConstMatrixView b, float alpha, MatrixView c) {
  // A small B (one head's keys) is packed on the stack: the packed product needs no horizontal
  // sums, which cost as much as the multiply-adds of a 16-wide dot product.
  if (packed_floats(b.cols, b.rows) <= kStackPackedFloats) {
    alignas(16) float packed[kStackPackedFloats];
    pack_transposed(b, packed);
    matmul_packed(a, packed, c);
    if (alpha != 1.0f)
      for (std::size_t i = 0; i < c.rows; ++i) scale_in_place(c.row(i), alpha, c.cols);
    return;
  }
  std::size_t i = 0;
  for (; i + 2 <= c.rows; i += 2) dot_rows<2>(a, b, alpha, c, i);
  for (; i < c.rows; ++i) dot_rows<1>(a, b, alpha, c, i);
}

}  // namespace attn
