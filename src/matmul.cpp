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
      const f32x4 av = simd::splat(a.at(i + r, p));
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

}  // namespace

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
