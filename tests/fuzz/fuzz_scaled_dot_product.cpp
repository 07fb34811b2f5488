// libFuzzer target: attn::scaled_dot_product_attention with random shapes
// (cross-attention included), masks, scales and trace requests.
#include <cmath>

#include "attention.h"
#include "fuzz_common.h"

namespace {

// Q Kᵀ in double, and a bound on float32's rounding error for each entry.
void reference_scores(const std::vector<float>& q, const std::vector<float>& k, std::size_t n, std::size_t m,
                      std::size_t d, std::vector<double>& ref, std::vector<double>& tol) {
  ref.assign(n * m, 0.0);
  tol.assign(n * m, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      double sum = 0.0, mag = 0.0;
      for (std::size_t p = 0; p < d; ++p) {
        const double t = static_cast<double>(q[i * d + p]) * k[j * d + p];
        sum += t;
        mag += std::fabs(t);
      }
      ref[i * m + j] = sum;
      tol[i * m + j] = 1.2e-7 * static_cast<double>(d + 1) * mag + 1e-37;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 40), m = in.dim(0, 40), d = in.dim(0, 40), dv = in.dim(0, 40);
  // Now and then one declared size is wrong; the core must refuse the call.
  const int broken = in.in_range<int>(0, 15);
  const std::size_t k_cols = broken == 1 ? d + 1 : d;
  const std::size_t v_rows = broken == 2 ? m + 1 : m;
  const std::size_t w_rows = broken == 3 ? n + 1 : n;
  const std::size_t w_cols = broken == 4 ? (m > 0 ? m - 1 : 1) : m;
  const std::size_t o_cols = broken == 5 ? dv + 1 : dv;
  const bool consistent = broken < 1 || broken > 5;

  const std::vector<float> q = in.matrix(n, d);
  const std::vector<float> k = in.matrix(m, k_cols);
  const std::vector<float> v = in.matrix(v_rows, dv);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, m);
  const float scale = in.flag() ? attn::default_scale(d) : in.scalar();
  const bool want_scores = in.flag(), want_scaled = in.flag(), want_masked = in.flag();

  std::vector<float> weights(w_rows * w_cols), out(n * o_cols);
  std::vector<float> scores(want_scores ? n * m : 0), scaled(want_scaled ? n * m : 0), masked(want_masked ? n * m : 0);
  const attn::AttentionTrace trace{want_scores ? scores.data() : nullptr, want_scaled ? scaled.data() : nullptr,
                                   want_masked ? masked.data() : nullptr};
  const bool use_trace = want_scores || want_scaled || want_masked;

  fuzz::report({{"Q", q, n, d}, {"K", k, m, k_cols}, {"V", v, v_rows, dv}},
               "n=%zu m=%zu d=%zu dv=%zu broken=%d scale=%.9g trace=%d%d%d", n, m, d, dv, broken,
               static_cast<double>(scale), want_scores, want_scaled, want_masked);
  fuzz::dump_mask(fm, n);
  if (in.skip_call()) return 0;
  const attn::Status s = attn::scaled_dot_product_attention(
      attn::dense(q.data(), n, d), attn::dense(k.data(), m, k_cols), attn::dense(v.data(), v_rows, dv), fm.mask, scale,
      attn::dense(weights.data(), w_rows, w_cols), attn::dense(out.data(), n, o_cols), use_trace ? &trace : nullptr);

  fuzz::report({{"weights", weights, w_rows, w_cols}, {"output", out, n, o_cols}}, "status=%d", static_cast<int>(s));
  if (!FUZZ_CHECK_STATUS(s, consistent && fm.valid)) return 0;

  if (!in.check_values()) return 0;  // non-finite input: memory safety and statuses only
  // bindings/overflow.js checkDotScores: beyond this bound the JS layer throws OVERFLOW before the call.
  const double nq = fuzz::max_row_norm(q, n, d), nk = fuzz::max_row_norm(k, m, d);
  if (!fuzz::score_bound_ok(nq * nk * std::fmax(1.0, std::fabs(static_cast<double>(scale))))) return 0;
  // A non-finite entry in anything the JS layer copies out is reported there (OVERFLOW);
  // when all of it is finite, it must be right.
  for (const auto* buf : {&weights, &out, &scores, &scaled, &masked})
    if (!fuzz::all_finite(*buf)) return 0;
  fuzz::check_weights(weights.data(), n, m, fm.mask);
  fuzz::check_pooled_output(out.data(), weights.data(), v.data(), n, m, dv, fm.mask);

  std::vector<double> ref, tol;
  reference_scores(q, k, n, m, d, ref, tol);
  for (std::size_t i = 0; i < n * m; ++i) {
    if (want_scores) FUZZ_CHECK(std::fabs(scores[i] - ref[i]) <= tol[i], "trace.scores differs from Q Kᵀ");
    if (want_scaled) {
      const double t = tol[i] * std::fabs(static_cast<double>(scale)) * 1.5 + 1e-37;
      FUZZ_CHECK(std::fabs(scaled[i] - ref[i] * scale) <= t, "trace.scaled differs from Q Kᵀ · scale");
    }
    if (want_scores && want_scaled) FUZZ_CHECK(scaled[i] == scores[i] * scale, "scaled is not scores × scale");
  }
  if (want_masked && fm.mask.kind != attn::MaskKind::none && want_scaled)
    fuzz::check_masked_trace(masked.data(), scaled.data(), n, m, fm.mask);
  return 0;
}
