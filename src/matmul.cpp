#include "matmul.h"

#include "simd.h"

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

}  // namespace

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
  std::size_t i = 0;
  for (; i + 2 <= c.rows; i += 2) dot_rows<2>(a, b, alpha, c, i);
  for (; i < c.rows; ++i) dot_rows<1>(a, b, alpha, c, i);
}

}  // namespace attn
