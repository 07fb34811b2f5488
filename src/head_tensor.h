// A batch of heads: a view of float32 data shaped [batch, heads, rows, cols]
// with a stride per dimension, so one struct covers both layouts ONNX's
// Attention accepts without copying:
//   heads-major [batch, heads, rows, cols]   (4-D inputs; a head is a dense block)
//   rows-major  [batch, rows, heads·cols]    (3-D inputs; a head is a column slice)
// Like MatrixView it never owns memory.
#pragma once

#include <cstddef>

#include "matrix.h"

namespace attn {

struct HeadTensor {
  const float* data = nullptr;
  std::size_t batch = 0, heads = 0, rows = 0, cols = 0;
  std::size_t batch_stride = 0, head_stride = 0, row_stride = 0;  // in floats

  // (An empty tensor may have no data at all: no offset is applied to a null pointer.)
  ConstMatrixView head(std::size_t b, std::size_t h) const {
    return {data ? data + b * batch_stride + h * head_stride : nullptr, rows, cols, row_stride};
  }
};

struct MutHeadTensor {
  float* data = nullptr;
  std::size_t batch = 0, heads = 0, rows = 0, cols = 0;
  std::size_t batch_stride = 0, head_stride = 0, row_stride = 0;

  MatrixView head(std::size_t b, std::size_t h) const {
    return {data ? data + b * batch_stride + h * head_stride : nullptr, rows, cols, row_stride};
  }
  operator HeadTensor() const { return {data, batch, heads, rows, cols, batch_stride, head_stride, row_stride}; }
};

// [batch, heads, rows, cols], contiguous in that order.
inline HeadTensor heads_major(const float* p, std::size_t b, std::size_t h, std::size_t rows, std::size_t cols) {
  return {p, b, h, rows, cols, h * rows * cols, rows * cols, cols};
}
inline MutHeadTensor heads_major(float* p, std::size_t b, std::size_t h, std::size_t rows, std::size_t cols) {
  return {p, b, h, rows, cols, h * rows * cols, rows * cols, cols};
}

// [batch, rows, heads·cols]: head h is columns h·cols … (h+1)·cols − 1.
inline HeadTensor rows_major(const float* p, std::size_t b, std::size_t h, std::size_t rows, std::size_t cols) {
  return {p, b, h, rows, cols, rows * h * cols, cols, h * cols};
}
inline MutHeadTensor rows_major(float* p, std::size_t b, std::size_t h, std::size_t rows, std::size_t cols) {
  return {p, b, h, rows, cols, rows * h * cols, cols, h * cols};
}

// Grouped-query attention: query head h of `heads` reads key/value head
// ⌊h · kv_heads / heads⌋ (heads a multiple of kv_heads; MHA when equal, MQA when kv_heads = 1).
inline std::size_t kv_head_for(std::size_t h, std::size_t heads, std::size_t kv_heads) {
  return h * kv_heads / heads;
}

}  // namespace attn
