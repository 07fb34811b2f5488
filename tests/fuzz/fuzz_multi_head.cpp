// libFuzzer target: attn::multi_head_attention with random head counts
// (including 0 and ones that do not divide the widths), shapes, masks, traces.
#include <cmath>

#include "fuzz_common.h"
#include "multi_head.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 24), d_model = in.dim(0, 24), heads = in.dim(0, 6);
  const std::size_t dk = in.dim(0, 8), dv = in.dim(0, 8), d_out = in.dim(0, 24);
  // The projected widths: h·d_k and h·d_v, or a width the heads do not divide.
  const int broken = in.in_range<int>(0, 15);
  const std::size_t hh = heads == 0 ? 1 : heads;
  const std::size_t dk_all = hh * dk + (broken == 1 ? 1 : 0);
  const std::size_t dv_all = hh * dv + (broken == 2 ? 1 : 0);
  const std::size_t wo_rows = broken == 3 ? dv_all + 1 : dv_all;
  const std::size_t wk_rows = broken == 4 ? d_model + 1 : d_model;
  const std::size_t concat_cols = broken == 5 ? dv_all + 1 : dv_all;
  const std::size_t out_rows = broken == 6 ? n + 1 : n;
  const std::size_t pk_cols = broken == 7 ? dk_all + 1 : dk_all;
  const bool divisible = heads > 0 && dk_all % heads == 0 && dv_all % heads == 0;
  const bool consistent = heads > 0 && (broken < 3 || broken > 7) && divisible;

  const std::vector<float> x = in.matrix(n, d_model);
  const std::vector<float> w_q = in.matrix(d_model, dk_all), w_k = in.matrix(wk_rows, dk_all),
                           w_v = in.matrix(d_model, dv_all), w_o = in.matrix(wo_rows, d_out);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, n);
  if (fuzz::skip_known() && n == 0) return 0;  // reported: column_slice offsets a null pointer
  const bool want_scores = in.flag(), want_scaled = in.flag(), want_masked = in.flag();

  const std::size_t block = heads * n * n;
  std::vector<float> pq(n * dk_all), pk(n * pk_cols), pv(n * dv_all), weights(block), concat(n * concat_cols),
      out(out_rows * d_out);
  std::vector<float> scores(want_scores ? block : 0), scaled(want_scaled ? block : 0), masked(want_masked ? block : 0);
  const attn::MultiHeadBuffers buffers{
      {attn::dense(pq.data(), n, dk_all), attn::dense(pk.data(), n, pk_cols), attn::dense(pv.data(), n, dv_all)},
      weights.data(),
      attn::dense(concat.data(), n, concat_cols),
      attn::dense(out.data(), out_rows, d_out),
      {want_scores ? scores.data() : nullptr, want_scaled ? scaled.data() : nullptr,
       want_masked ? masked.data() : nullptr}};
  fuzz::report({}, "calling with n=%zu d_model=%zu heads=%zu dk_all=%zu dv_all=%zu d_out=%zu broken=%d", n, d_model,
               heads, dk_all, dv_all, d_out, broken);
  if (in.skip_call()) return 0;
  const attn::Status s =
      attn::multi_head_attention(attn::dense(x.data(), n, d_model), heads, attn::dense(w_q.data(), d_model, dk_all),
                                 attn::dense(w_k.data(), wk_rows, dk_all), attn::dense(w_v.data(), d_model, dv_all),
                                 attn::dense(w_o.data(), wo_rows, d_out), fm.mask, buffers);

  fuzz::report({{"X", x, n, d_model}, {"W_Q", w_q, d_model, dk_all}, {"W_K", w_k, wk_rows, dk_all},
                {"W_V", w_v, d_model, dv_all}, {"W_O", w_o, wo_rows, d_out}, {"concat", concat, n, concat_cols},
                {"output", out, out_rows, d_out}},
               "status=%d", static_cast<int>(s));
  fuzz::dump_mask(fm, n);
  if (!FUZZ_CHECK_STATUS(s, consistent && fm.valid)) return 0;
  if (!in.check_values()) return 0;  // non-finite input: memory safety and statuses only
  // bindings/overflow.js checkProjectedScores: beyond this bound the JS layer throws OVERFLOW before the call.
  const double nx = fuzz::max_row_norm(x, n, d_model);
  if (!fuzz::score_bound_ok(nx * nx * fuzz::frobenius(w_q) * fuzz::frobenius(w_k))) return 0;
  // A non-finite entry in anything the JS layer copies out (weights, concat, output, and
  // Q, K, V and the steps when traced) is reported there (OVERFLOW); when all of it is
  // finite, it must be right. (Untraced, JS never sees Q, K, V.)
  for (const auto* buf : {&weights, &concat, &out, &scores, &scaled, &masked})
    if (!fuzz::all_finite(*buf)) return 0;
  const bool traced = want_scores || want_scaled || want_masked;
  if (traced && !(fuzz::all_finite(pq) && fuzz::all_finite(pk) && fuzz::all_finite(pv))) return 0;
  for (std::size_t h = 0; h < heads; ++h) fuzz::check_weights(weights.data() + h * n * n, n, n, fm.mask);
  if (!fuzz::all_finite(pv)) return 0;  // the pooled-output check below needs V
  // Each head's block of concat pools that head's block of V with its weights.
  const std::size_t d_v = dv_all / heads;
  for (std::size_t h = 0; h < heads; ++h) {
    std::vector<float> head_v(n * d_v), head_out(n * d_v);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < d_v; ++c) {
        head_v[i * d_v + c] = pv[i * dv_all + h * d_v + c];
        head_out[i * d_v + c] = concat[i * dv_all + h * d_v + c];
      }
    fuzz::check_pooled_output(head_out.data(), weights.data() + h * n * n, head_v.data(), n, n, d_v, fm.mask);
  }
  if (want_scaled && want_masked && fm.mask.kind != attn::MaskKind::none)
    for (std::size_t h = 0; h < heads; ++h)
      fuzz::check_masked_trace(masked.data() + h * n * n, scaled.data() + h * n * n, n, n, fm.mask);
  return 0;
}
