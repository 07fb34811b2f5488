// A matrix view: a pointer to row-major float32 data, its shape, and a row
// stride (elements between the starts of two rows; equals cols for a dense
// matrix, is wider for a column slice such as one head's block of Q).
// Views never own memory: the caller (the JS layer or a test) does.
#pragma once

#include <cstddef>

namespace attn {

struct ConstMatrixView {
  const float* data = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::size_t stride = 0;

  const float* row(std::size_t i) const { return data + i * stride; }
  float at(std::size_t i, std::size_t j) const { return data[i * stride + j]; }
};

struct MatrixView {
  float* data = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::size_t stride = 0;

  float* row(std::size_t i) const { return data + i * stride; }
  float& at(std::size_t i, std::size_t j) const { return data[i * stride + j]; }
  operator ConstMatrixView() const { return {data, rows, cols, stride}; }
};

inline ConstMatrixView dense(const float* data, std::size_t rows, std::size_t cols) {
  return {data, rows, cols, cols};
}
inline MatrixView dense(float* data, std::size_t rows, std::size_t cols) {
  return {data, rows, cols, cols};
}

// Columns [first, first + count) of m, sharing m's memory.
inline ConstMatrixView column_slice(ConstMatrixView m, std::size_t first, std::size_t count) {
  return {m.data + first, m.rows, count, m.stride};
}
inline MatrixView column_slice(MatrixView m, std::size_t first, std::size_t count) {
  return {m.data + first, m.rows, count, m.stride};
}

}  // namespace attn
