#include "online_softmax.h"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// The running state after some blocks.
struct Running {
  float max = -INFINITY;  // m
  double sum = 0.0;       // ℓ
};

// s_j = scale · q·k_j in double, rounded once; −∞ where the mask hides key j.
void row_scores(const float* q_row, ConstMatrixView k, std::size_t row, const Mask& mask, float scale, float* s) {
  for (std::size_t j = 0; j < k.rows; ++j) {
    double dot = 0.0;
    for (std::size_t t = 0; t < k.cols; ++t) dot += static_cast<double>(q_row[t]) * k.at(j, t);
    s[j] = mask.visible(row, j) ? static_cast<float>(scale * dot) : -INFINITY;
  }
}

// One block [j0, j1): the new max, the rescale of ℓ and acc, then this block's
// terms. acc_b is row b of out.accumulator, computed in double from row b − 1
// (rounded to float once per block).
void visit_block(const float* s, ConstMatrixView v, std::size_t j0, std::size_t j1, Running& st,
                 const OnlineSoftmaxTrace& out, std::size_t b) {
  const std::size_t d_v = v.cols;
  const float* prev = b > 0 ? out.accumulator + (b - 1) * d_v : nullptr;
  float* acc = out.accumulator + b * d_v;
  // 1. the block max and the new running max
  float block_max = -INFINITY;
  for (std::size_t j = j0; j < j1; ++j) block_max = std::max(block_max, s[j]);
  const float new_max = std::max(st.max, block_max);
  // 2. rescale what was accumulated: e^(m_old − m_new) (0 on the first visible block)
  const double alpha = new_max > st.max ? std::exp(static_cast<double>(st.max) - new_max) : 1.0;
  st.sum *= alpha;
  st.max = new_max;
  // 3. this block's unnormalised probabilities e^(s_j − m_b), into ℓ and acc
  for (std::size_t t = 0; t < d_v; ++t) {
    double a = prev ? alpha * prev[t] : 0.0;
    for (std::size_t j = j0; j < j1 && new_max != -INFINITY; ++j)
      if (s[j] != -INFINITY) a += std::exp(static_cast<double>(s[j]) - new_max) * v.at(j, t);
    acc[t] = static_cast<float>(a);
    out.partial[b * d_v + t] = 0.0f;
  }
  if (new_max != -INFINITY)
    for (std::size_t j = j0; j < j1; ++j)
      if (s[j] != -INFINITY) st.sum += std::exp(static_cast<double>(s[j]) - new_max);
  // 4. record the state after this block: out_b = acc_b / ℓ_b
  out.block_max[b] = block_max;
  out.running_max[b] = st.max;
  out.rescale[b] = static_cast<float>(alpha);
  out.running_sum[b] = static_cast<float>(st.sum);
  if (st.sum > 0.0)
    for (std::size_t t = 0; t < d_v; ++t) out.partial[b * d_v + t] = static_cast<float>(acc[t] / st.sum);
}

bool has_buffers(const OnlineSoftmaxTrace& o) {
  return o.scores && o.block_max && o.running_max && o.rescale && o.running_sum && o.accumulator && o.partial &&
         o.output && o.weights && o.totals;
}

}  // namespace

Status online_softmax_trace(ConstMatrixView q, ConstMatrixView k, ConstMatrixView v, std::size_t row,
                            const Mask& mask, float scale, std::size_t block, const OnlineSoftmaxTrace& out) {
  const std::size_t m = k.rows, d_v = v.cols;
  if (k.cols != q.cols || v.rows != m) return Status::shape_mismatch;
  if (row >= q.rows || block == 0 || !has_buffers(out)) return Status::bad_argument;
  if (Status s = check_mask(mask, q.rows, m); s != Status::ok) return s;
  row_scores(q.row(row), k, row, mask, scale, out.scores);
  Running st;
  const std::size_t nb = online_softmax_blocks(m, block);
  for (std::size_t b = 0; b < nb; ++b) visit_block(out.scores, v, b * block, std::min(m, (b + 1) * block), st, out, b);
  // 5. the final row acc / ℓ and the weights e^(s_j − m) / ℓ
  const double inv = st.sum > 0.0 ? 1.0 / st.sum : 0.0;
  for (std::size_t t = 0; t < d_v; ++t) out.output[t] = nb > 0 ? static_cast<float>(out.accumulator[(nb - 1) * d_v + t] * inv) : 0.0f;
  double weight_sum = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    const double w = out.scores[j] == -INFINITY ? 0.0 : std::exp(static_cast<double>(out.scores[j]) - st.max) * inv;
    out.weights[j] = static_cast<float>(w);
    weight_sum += w;
  }
  out.totals[0] = st.max;
  out.totals[1] = static_cast<float>(st.sum);
  out.totals[2] = static_cast<float>(weight_sum);
  return Status::ok;
}

}  // namespace attn
