#include "train/linear.h"

#include "matmul.h"
#include "simd.h"

namespace attn {
namespace {

using simd::f32x4;

// C[p..p+R, j..j+4V] += Σ_i A[i, p..p+R]ᵀ · B[i, j..j+4V]: R broadcast entries
// of a row of A times V vectors of the same row of B, R·V accumulators in
// registers. The sum starts from zero and is added to C once at the end, so a
// second identical call adds exactly the same amount (dW doubles bit for bit).
template <int R, int V>
void gradient_tile(ConstMatrixView a, ConstMatrixView b, MatrixView c, std::size_t p, std::size_t j) {
  f32x4 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = simd::zero();
  for (std::size_t i = 0; i < a.rows; ++i) {
    f32x4 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = simd::load(b.row(i) + j + 4 * v);
    for (int r = 0; r < R; ++r) {
      const f32x4 av = simd::load_splat(a.row(i) + p + r);
      for (int v = 0; v < V; ++v) acc[r][v] = simd::madd(acc[r][v], av, bv[v]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) {
      float* out = c.row(p + r) + j + 4 * v;
      simd::store(out, simd::add(simd::load(out), acc[r][v]));
    }
}

// The columns left over after the vectors, one entry at a time.
void gradient_entry(ConstMatrixView a, ConstMatrixView b, MatrixView c, std::size_t p, std::size_t j) {
  float sum = 0.0f;
  for (std::size_t i = 0; i < a.rows; ++i) sum += a.at(i, p) * b.at(i, j);
  c.at(p, j) += sum;
}

template <int R>
void gradient_rows(ConstMatrixView a, ConstMatrixView b, MatrixView c, std::size_t p) {
  std::size_t j = 0;
  for (; j + 8 <= c.cols; j += 8) gradient_tile<R, 2>(a, b, c, p, j);
  for (; j + 4 <= c.cols; j += 4) gradient_tile<R, 1>(a, b, c, p, j);
  for (; j < c.cols; ++j)
    for (int r = 0; r < R; ++r) gradient_entry(a, b, c, p + r, j);
}

// db[j] += Σ_i dy[i][j]; summed from zero first, as the weight gradient.
void add_column_sums(ConstMatrixView dy, float* db) {
  std::size_t j = 0;
  for (; j + 4 <= dy.cols; j += 4) {
    f32x4 sum = simd::zero();
    for (std::size_t i = 0; i < dy.rows; ++i) sum = simd::add(sum, simd::load(dy.row(i) + j));
    simd::store(db + j, simd::add(simd::load(db + j), sum));
  }
  for (; j < dy.cols; ++j) {
    float sum = 0.0f;
    for (std::size_t i = 0; i < dy.rows; ++i) sum += dy.at(i, j);
    db[j] += sum;
  }
}

}  // namespace

void matmul_transposed_a_accumulate(ConstMatrixView a, ConstMatrixView b, MatrixView c) {
  std::size_t p = 0;
  for (; p + 4 <= c.rows; p += 4) gradient_rows<4>(a, b, c, p);
  for (; p < c.rows; ++p) gradient_rows<1>(a, b, c, p);
}

Status linear_forward(ConstMatrixView x, ConstMatrixView w, const float* bias, MatrixView y) {
  if (x.cols != w.rows || y.rows != x.rows || y.cols != w.cols) return Status::shape_mismatch;
  if (y.rows == 0 || y.cols == 0) return Status::ok;
  if (x.cols == 0) {
    for (std::size_t i = 0; i < y.rows; ++i)
      for (std::size_t j = 0; j < y.cols; ++j) y.at(i, j) = bias != nullptr ? bias[j] : 0.0f;
    return Status::ok;
  }
  // 1. y = x W (register-tiled product).
  matmul(x, w, y);
  // 2. y += b on every row.
  if (bias == nullptr) return Status::ok;
  for (std::size_t i = 0; i < y.rows; ++i) {
    float* row = y.row(i);
    std::size_t j = 0;
    for (; j + 4 <= y.cols; j += 4) simd::store(row + j, simd::add(simd::load(row + j), simd::load(bias + j)));
    for (; j < y.cols; ++j) row[j] += bias[j];
  }
  return Status::ok;
}

Status linear_backward(ConstMatrixView x, ConstMatrixView w, ConstMatrixView dy, MatrixView dx, MatrixView dw,
                       float* db) {
  const std::size_t n = x.rows, k = x.cols, m = w.cols;
  if (w.rows != k || dy.rows != n || dy.cols != m) return Status::shape_mismatch;
  if (dx.data != nullptr && (dx.rows != n || dx.cols != k)) return Status::shape_mismatch;
  if (dw.data != nullptr && (dw.rows != k || dw.cols != m)) return Status::shape_mismatch;
  // 1. dx = dy Wᵀ: each entry a dot product of a row of dy with a row of W.
  if (dx.data != nullptr && n > 0 && k > 0) {
    if (m == 0) {
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < k; ++j) dx.at(i, j) = 0.0f;
    } else {
      matmul_transposed(dy, w, 1.0f, dx);
    }
  }
  // 2. dW += xᵀ dy.
  if (dw.data != nullptr) matmul_transposed_a_accumulate(x, dy, dw);
  // 3. db += the column sums of dy.
  if (db != nullptr) add_column_sums(dy, db);
  return Status::ok;
}

Status add(ConstMatrixView a, ConstMatrixView b, MatrixView out) {
  if (a.rows != b.rows || a.cols != b.cols || out.rows != a.rows || out.cols != a.cols)
    return Status::shape_mismatch;
  for (std::size_t i = 0; i < a.rows; ++i) {
    const float* ar = a.row(i);
    const float* br = b.row(i);
    float* o = out.row(i);
    std::size_t j = 0;
    for (; j + 4 <= a.cols; j += 4) simd::store(o + j, simd::add(simd::load(ar + j), simd::load(br + j)));
    for (; j < a.cols; ++j) o[j] = ar[j] + br[j];
  }
  return Status::ok;
}

}  // namespace attn
