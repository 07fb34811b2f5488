// libFuzzer target: attn::self_attention (projections, then scaled
// dot-product attention of X with itself) with random shapes, masks, traces.
#include <cmath>

#include "attention.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 40), d_model = in.dim(0, 40), dk = in.dim(0, 40), dv = in.dim(0, 40);
  const int broken = in.in_range<int>(0, 15);
  const std::size_t wq_rows = broken == 1 ? d_model + 1 : d_model;
  const std::size_t wk_cols = broken == 2 ? dk + 1 : dk;
  const std::size_t wv_rows = broken == 3 ? d_model + 1 : d_model;
  const std::size_t pq_rows = broken == 4 ? n + 1 : n;
  const std::size_t pv_cols = broken == 5 ? dv + 1 : dv;
  const std::size_t w_rows = broken == 6 ? n + 1 : n;
  const bool consistent = broken < 1 || broken > 6;

  const std::vector<float> x = in.matrix(n, d_model);
  const std::vector<float> w_q = in.matrix(wq_rows, dk), w_k = in.matrix(d_model, wk_cols),
                           w_v = in.matrix(wv_rows, dv);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, n);
  const bool want_scores = in.flag(), want_scaled = in.flag(), want_masked = in.flag(), use_trace = in.flag();

  std::vector<float> pq(pq_rows * dk), pk(n * dk), pv(n * pv_cols);
  std::vector<float> weights(w_rows * n), out(n * dv);
  std::vector<float> scores(want_scores ? n * n : 0), scaled(want_scaled ? n * n : 0), masked(want_masked ? n * n : 0);
  const attn::Projections qkv{attn::dense(pq.data(), pq_rows, dk), attn::dense(pk.data(), n, dk),
                              attn::dense(pv.data(), n, pv_cols)};
  const attn::AttentionTrace trace{want_scores ? scores.data() : nullptr, want_scaled ? scaled.data() : nullptr,
                                   want_masked ? masked.data() : nullptr};
  if (in.skip_call()) return 0;
  const attn::Status s = attn::self_attention(
      attn::dense(x.data(), n, d_model), attn::dense(w_q.data(), wq_rows, dk),
      attn::dense(w_k.data(), d_model, wk_cols), attn::dense(w_v.data(), wv_rows, dv), fm.mask, qkv,
      attn::dense(weights.data(), w_rows, n), attn::dense(out.data(), n, dv), use_trace ? &trace : nullptr);

  fuzz::report({{"X", x, n, d_model}, {"W_Q", w_q, wq_rows, dk}, {"W_K", w_k, d_model, wk_cols},
                {"W_V", w_v, wv_rows, dv}, {"weights", weights, w_rows, n}, {"output", out, n, dv}},
               "n=%zu d_model=%zu dk=%zu dv=%zu broken=%d status=%d", n, d_model, dk, dv, broken, static_cast<int>(s));
  fuzz::dump_mask(fm, n);
  if (!FUZZ_CHECK_STATUS(s, consistent && fm.valid)) return 0;
  if (!in.check_values()) return 0;  // non-finite input: memory safety and statuses only
  // bindings/overflow.js checkProjectedScores: beyond this bound the JS layer throws OVERFLOW before the call.
  const double nx = fuzz::max_row_norm(x, n, d_model);
  if (!fuzz::score_bound_ok(nx * nx * fuzz::frobenius(w_q) * fuzz::frobenius(w_k))) return 0;
  // A non-finite entry in anything the JS layer copies out (Q, K, V only when traced) is
  // reported there (OVERFLOW); when all of it is finite, it must be right.
  for (const auto* buf : {&weights, &out, &scores, &scaled, &masked})
    if (!fuzz::all_finite(*buf)) return 0;
  if (use_trace && !(fuzz::all_finite(pq) && fuzz::all_finite(pk) && fuzz::all_finite(pv))) return 0;
  fuzz::check_weights(weights.data(), n, n, fm.mask);
  if (fuzz::all_finite(pv)) fuzz::check_pooled_output(out.data(), weights.data(), pv.data(), n, n, dv, fm.mask);
  if (use_trace && want_scaled && want_masked && fm.mask.kind != attn::MaskKind::none)
    fuzz::check_masked_trace(masked.data(), scaled.data(), n, n, fm.mask);
  return 0;
}
