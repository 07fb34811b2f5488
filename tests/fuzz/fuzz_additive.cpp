// libFuzzer target: attn::additive_attention (Bahdanau scoring) with random
// shapes (query and key widths differ), hidden sizes, masks and traces.
#include <cmath>

#include "attention.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 40), m = in.dim(0, 40), dq = in.dim(0, 40), dk = in.dim(0, 40);
  const std::size_t dv = in.dim(0, 40), h = in.dim(0, 40);
  // Now and then one declared size is wrong (or w_v is missing); the core must refuse the call.
  const int broken = in.in_range<int>(0, 20);
  const std::size_t wq_rows = broken == 1 ? dq + 1 : dq;
  const std::size_t wk_rows = broken == 2 ? dk + 1 : dk;
  const std::size_t wk_cols = broken == 3 ? h + 1 : h;
  const std::size_t qh_rows = broken == 4 ? n + 1 : n;
  const std::size_t kh_cols = broken == 5 ? h + 1 : h;
  const std::size_t v_rows = broken == 6 ? m + 1 : m;
  const std::size_t w_cols = broken == 7 ? m + 1 : m;
  const bool drop_wv = broken == 8 && h > 0;
  const bool consistent = (broken < 1 || broken > 8) || (broken == 8 && h == 0);

  const std::vector<float> q = in.matrix(n, dq), k = in.matrix(m, dk), v = in.matrix(v_rows, dv);
  const std::vector<float> w_q = in.matrix(wq_rows, h), w_k = in.matrix(wk_rows, wk_cols), w_v = in.matrix(1, h);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, m);
  const bool want_scores = in.flag(), want_masked = in.flag(), use_trace = in.flag();

  std::vector<float> q_hidden(qh_rows * h), k_hidden(m * kh_cols);
  std::vector<float> weights(n * w_cols), out(n * dv);
  std::vector<float> scores(want_scores ? n * m : 0), masked(want_masked ? n * m : 0);
  const attn::AdditiveParams params{attn::dense(w_q.data(), wq_rows, h), attn::dense(w_k.data(), wk_rows, wk_cols),
                                    drop_wv ? nullptr : w_v.data(), attn::dense(q_hidden.data(), qh_rows, h),
                                    attn::dense(k_hidden.data(), m, kh_cols)};
  const attn::AttentionTrace trace{want_scores ? scores.data() : nullptr, nullptr,
                                   want_masked ? masked.data() : nullptr};
  if (in.skip_call()) return 0;
  const attn::Status s = attn::additive_attention(
      attn::dense(q.data(), n, dq), attn::dense(k.data(), m, dk), attn::dense(v.data(), v_rows, dv), params, fm.mask,
      attn::dense(weights.data(), n, w_cols), attn::dense(out.data(), n, dv), use_trace ? &trace : nullptr);

  fuzz::report({{"Q", q, n, dq}, {"K", k, m, dk}, {"V", v, v_rows, dv}, {"W_q", w_q, wq_rows, h},
                {"W_k", w_k, wk_rows, wk_cols}, {"w_v", w_v, 1, h}, {"weights", weights, n, w_cols}, {"output", out, n, dv}},
               "n=%zu m=%zu dq=%zu dk=%zu dv=%zu h=%zu broken=%d status=%d", n, m, dq, dk, dv, h, broken,
               static_cast<int>(s));
  fuzz::dump_mask(fm, n);
  if (!FUZZ_CHECK_STATUS(s, consistent && fm.valid)) return 0;
  if (!in.check_values()) return 0;  // non-finite input: memory safety and statuses only
  // bindings/ops/attention.js additiveAttention: beyond Σ|w_v| > FLT_MAX the JS layer throws OVERFLOW before the call.
  double bound = 0.0;
  for (float x : w_v) bound += std::fabs(static_cast<double>(x));
  if (!fuzz::score_bound_ok(bound)) return 0;
  // A non-finite entry in anything the JS layer copies out is reported there (OVERFLOW);
  // when all of it is finite, it must be right. q_hidden and k_hidden are scratch the JS
  // layer never sees: an overflow there must not silently turn keys into masked ones.
  for (const auto* buf : {&weights, &out, &scores, &masked})
    if (!fuzz::all_finite(*buf)) return 0;
  fuzz::check_weights(weights.data(), n, m, fm.mask);
  fuzz::check_pooled_output(out.data(), weights.data(), v.data(), n, m, dv, fm.mask);
  // |score| <= Σ|w_v| (tanh is bounded by 1)
  for (std::size_t i = 0; use_trace && i < scores.size(); ++i) {
    FUZZ_CHECK(std::isfinite(scores[i]), "a non-finite additive score");
    FUZZ_CHECK(std::fabs(static_cast<double>(scores[i])) <= bound * (1 + 1e-6) + 1e-30, "|score| > Σ|w_v|");
  }
  if (use_trace && want_scores && want_masked && fm.mask.kind != attn::MaskKind::none)
    fuzz::check_masked_trace(masked.data(), scores.data(), n, m, fm.mask);
  return 0;
}
