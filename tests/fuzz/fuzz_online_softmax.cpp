// libFuzzer target: attn::online_softmax_trace (the fused path's online
// softmax written out for one query row, block by block) against
// attn::scaled_dot_product_attention's row on the same inputs: random shapes,
// rows (now and then one past the end), block sizes (0, 1..9, larger than m),
// every mask kind, scales, and now and then a missing buffer.
#include <cmath>

#include "attention.h"
#include "fuzz_common.h"
#include "online_softmax.h"

namespace {

// One buffer per trace field, each exactly its documented size (one float
// when that size is 0, so that "missing" stays distinct from "empty").
struct TraceBuffers {
  std::vector<float> scores, block_max, running_max, rescale, running_sum, accumulator, partial, output, weights,
      totals;
  TraceBuffers(std::size_t m, std::size_t nb, std::size_t dv)
      : scores(sized(m)), block_max(sized(nb)), running_max(sized(nb)), rescale(sized(nb)), running_sum(sized(nb)),
        accumulator(sized(nb * dv)), partial(sized(nb * dv)), output(sized(dv)), weights(sized(m)), totals(3) {}
  static std::vector<float> sized(std::size_t count) { return std::vector<float>(count > 0 ? count : 1, 999.0f); }
  attn::OnlineSoftmaxTrace view(int missing) {
    attn::OnlineSoftmaxTrace t{scores.data(),      block_max.data(), running_max.data(), rescale.data(),
                               running_sum.data(), accumulator.data(), partial.data(),   output.data(),
                               weights.data(),     totals.data()};
    float** fields[] = {&t.scores,      &t.block_max, &t.running_max, &t.rescale, &t.running_sum,
                        &t.accumulator, &t.partial,   &t.output,      &t.weights, &t.totals};
    if (missing >= 0 && missing < 10) *fields[missing] = nullptr;
    return t;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 24), m = in.dim(0, 40), d = in.dim(0, 24), dv = in.dim(0, 16);
  const std::size_t row = in.in_range<int>(0, 7) == 0 ? n : (n > 0 ? in.dim(0, n - 1) : 0);
  const int block_kind = in.in_range<int>(0, 9);
  const std::size_t block = block_kind == 0 ? 0 : block_kind == 1 ? m + 1 + in.dim(0, 200) : in.dim(1, 9);
  const int broken = in.in_range<int>(0, 15);  // 1, 2: a wrong shape; 3: a missing buffer
  const std::size_t k_cols = broken == 1 ? d + 1 : d, v_rows = broken == 2 ? m + 1 : m;
  const int missing = broken == 3 ? in.in_range<int>(0, 9) : -1;
  const bool shapes_ok = broken != 1 && broken != 2;
  const bool arguments_ok = row < n && block > 0 && missing < 0;

  const std::vector<float> q = in.matrix(n, d), k = in.matrix(m, k_cols), v = in.matrix(v_rows, dv);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, m);
  const float scale = in.flag() ? attn::default_scale(d) : in.scalar();
  const std::size_t nb = attn::online_softmax_blocks(m, block);
  TraceBuffers buffers(m, nb, dv);

  fuzz::report({{"Q", q, n, d}, {"K", k, m, k_cols}, {"V", v, v_rows, dv}},
               "n=%zu m=%zu d=%zu dv=%zu row=%zu block=%zu broken=%d missing=%d scale=%.9g", n, m, d, dv, row, block,
               broken, missing, static_cast<double>(scale));
  fuzz::dump_mask(fm, n);
  if (in.skip_call()) return 0;
  const attn::Status s =
      attn::online_softmax_trace(attn::dense(q.data(), n, d), attn::dense(k.data(), m, k_cols),
                                 attn::dense(v.data(), v_rows, dv), row, fm.mask, scale, block, buffers.view(missing));
  if (!FUZZ_CHECK_STATUS(s, shapes_ok && arguments_ok && fm.valid)) {
    if (!shapes_ok) FUZZ_CHECK(s == attn::Status::shape_mismatch, "a wrong shape is not shape_mismatch");
    if (shapes_ok && !arguments_ok) FUZZ_CHECK(s == attn::Status::bad_argument, "a bad row, block or buffer is not bad_argument");
    return 0;
  }
  if (!in.check_values()) return 0;  // non-finite input: memory safety and statuses only
  // The JS layer refuses a non-finite scale and scores beyond this bound (OVERFLOW).
  if (!std::isfinite(scale)) return 0;
  const double nq = fuzz::max_row_norm(q, n, d), nk = fuzz::max_row_norm(k, m, d);
  if (!fuzz::score_bound_ok(nq * nk * std::fmax(1.0, std::fabs(static_cast<double>(scale))))) return 0;
  const std::vector<float>& out = buffers.output;
  if (!fuzz::all_finite(out) || !fuzz::all_finite(buffers.accumulator)) return 0;  // the JS scan: OVERFLOW

  // The recurrence's own invariants: m_b never falls, α_b ∈ [0, 1], the last
  // partial output is the output, masked keys weigh exactly 0.
  for (std::size_t b = 0; b < nb; ++b) {
    FUZZ_CHECK(b == 0 || buffers.running_max[b] >= buffers.running_max[b - 1], "the running max fell");
    FUZZ_CHECK(buffers.rescale[b] >= 0.0f && buffers.rescale[b] <= 1.0f, "a rescale outside [0, 1]");
  }
  if (nb > 0) FUZZ_CHECK(buffers.running_max[nb - 1] == buffers.totals[0], "the final m is not the last running max");
  bool any_visible = false;
  for (std::size_t j = 0; j < m; ++j) {
    const bool visible = fm.mask.visible(row, j);
    any_visible = any_visible || visible;
    if (!visible) FUZZ_CHECK(buffers.weights[j] == 0.0f, "a masked key has a weight");
    FUZZ_CHECK(buffers.weights[j] >= 0.0f && buffers.weights[j] <= 1.0f, "a weight outside [0, 1]");
  }
  if (!any_visible) {
    for (std::size_t c = 0; c < dv; ++c) FUZZ_CHECK(out[c] == 0.0f, "a fully masked row has output");
    FUZZ_CHECK(buffers.totals[1] == 0.0f && buffers.totals[2] == 0.0f, "a fully masked row has a sum");
    return 0;
  }
  FUZZ_CHECK(std::fabs(buffers.totals[2] - 1.0) < 1e-5, "the weights do not sum to 1");
  for (std::size_t c = 0; c < dv; ++c) {
    const double last = buffers.partial[(nb - 1) * dv + c], got = out[c];
    FUZZ_CHECK(std::fabs(last - got) <= 1e-6 * std::fabs(got) + 1e-30, "the last partial output is not the output");
  }

  // The step-by-step path: the same row, within the scores' rounding (as fuzz_fused_attention).
  std::vector<float> weights(n * m), ref(n * dv);
  const attn::Status rs = attn::scaled_dot_product_attention(
      attn::dense(q.data(), n, d), attn::dense(k.data(), m, d), attn::dense(v.data(), m, dv), fm.mask, scale,
      attn::dense(weights.data(), n, m), attn::dense(ref.data(), n, dv), nullptr);
  FUZZ_CHECK(rs == attn::Status::ok, "the step-by-step path refused what the trace accepted");
  if (!fuzz::all_finite(ref) || !fuzz::all_finite(weights)) return 0;
  const fuzz::RowTolerance tol = fuzz::row_tolerance(q, k, v, row, m, d, dv, fm.mask, scale);
  for (std::size_t c = 0; c < dv; ++c) {
    const double got = out[c], want = ref[row * dv + c];
    if (std::fabs(got - want) > tol.at(want)) {
      std::fprintf(stderr, "\ntrace output[%zu] = %.9g, step-by-step %.9g (tolerance %.3g)\n", c, got, want, tol.at(want));
      fuzz::fail("online_softmax_trace differs from scaled_dot_product_attention", __FILE__, __LINE__);
    }
  }
  return 0;
}
