// libFuzzer target: the backward entry points of scaled dot-product attention.
// attn::fused_attention_forward + attn::fused_attention_backward (the
// FlashAttention-2 path: P recomputed from the row log-sum-exp) against
// attn::scaled_dot_product_attention + attn::attention_backward (the weights
// kept) on the same inputs. Shapes are mostly small; one input in 8 goes up to
// n, m = 200, crossing several 32-row and 64-key blocks and their ragged edges.
// Now and then one declared size (K, V, dO, dQ, dK, dV) is wrong, or the
// log-sum-exp is missing: the core must refuse the call and write nothing.
#include <cfloat>
#include <cmath>

#include "attention.h"
#include "fuzz_common.h"
#include "train/attention_backward.h"
#include "train/fused_backward.h"

namespace {

// The largest |x| of a matrix.
double max_abs(const std::vector<float>& x) {
  double best = 0.0;
  for (float v : x) best = std::fmax(best, std::fabs(static_cast<double>(v)));
  return best;
}

// Compares two gradients within atol + 1e-3 · |want|, naming the first entry outside.
void check_close(const std::vector<float>& got, const std::vector<float>& want, double atol, const char* what) {
  for (std::size_t t = 0; t < got.size(); ++t) {
    const double g = got[t], w = want[t];
    if (std::fabs(g - w) > atol + 1e-3 * std::fabs(w)) {
      std::fprintf(stderr, "\n%s[%zu]: fused %.9g, weights kept %.9g (atol %.3g)\n", what, t, g, w, atol);
      fuzz::fail("the fused backward differs from the weights-kept one", __FILE__, __LINE__);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const bool large = in.in_range<int>(0, 7) == 0;
  const std::size_t n = in.dim(0, large ? 200 : 40), m = in.dim(0, large ? 200 : 40);
  const std::size_t d = in.dim(0, large ? 12 : 24), dv = in.dim(0, large ? 12 : 24);
  // 1 … 7: one declared size wrong; 8: no log-sum-exp (n > 0 only).
  const int broken = in.in_range<int>(0, 23);
  const std::size_t k_cols = broken == 1 ? d + 1 : d, v_rows = broken == 2 ? m + 1 : m;
  const std::size_t do_rows = broken == 3 ? n + 1 : n, do_cols = broken == 4 ? dv + 1 : dv;
  const std::size_t dq_rows = broken == 5 ? n + 1 : n, dk_cols = broken == 6 ? d + 1 : d;
  const std::size_t dv_rows = broken == 7 ? m + 1 : m;
  const bool no_lse = broken == 8 && n > 0;
  const bool forward_ok = broken != 1 && broken != 2;
  const bool consistent = forward_ok && (broken < 3 || broken > 8 || (broken == 8 && n == 0));

  const std::vector<float> q = in.matrix(n, d), k = in.matrix(m, k_cols), v = in.matrix(v_rows, dv);
  const std::vector<float> d_out = in.matrix(do_rows, do_cols);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, m);
  const float scale = in.flag() ? attn::default_scale(d) : in.scalar();

  // Exactly the documented scratch sizes: ASan reports any use past them.
  std::vector<float> fwd_scratch(attn::fused_forward_scratch_floats(m, k_cols, dv));
  std::vector<float> bwd_scratch(attn::fused_backward_scratch_floats(n, m, k_cols, dv));
  std::vector<float> out(n * dv, 12345.0f), lse(n, 12345.0f);
  std::vector<float> dq(dq_rows * d, 12345.0f), dk(m * dk_cols, 12345.0f), dvg(dv_rows * dv, 12345.0f);

  fuzz::report({{"Q", q, n, d}, {"K", k, m, k_cols}, {"V", v, v_rows, dv}, {"dO", d_out, do_rows, do_cols}},
               "n=%zu m=%zu d=%zu dv=%zu broken=%d scale=%.9g", n, m, d, dv, broken, static_cast<double>(scale));
  fuzz::dump_mask(fm, n);
  if (in.skip_call()) return 0;
#if defined(ATTN_FORCE_SCALAR)
  // As fuzz_fused_attention: the open exp2_integral UB on the scalar back end (regressions/softmax/).
  if (!in.moderate()) return 0;
#endif
  auto view = [](const std::vector<float>& x, std::size_t rows, std::size_t cols) {
    return attn::dense(x.empty() ? nullptr : x.data(), rows, cols);
  };
  auto mut = [](std::vector<float>& x, std::size_t rows, std::size_t cols) {
    return attn::dense(x.empty() ? nullptr : x.data(), rows, cols);
  };
  const attn::Status fs = attn::fused_attention_forward(view(q, n, d), view(k, m, k_cols), view(v, v_rows, dv), fm.mask,
                                                        scale, mut(out, n, dv), lse.empty() ? nullptr : lse.data(),
                                                        fwd_scratch.empty() ? nullptr : fwd_scratch.data());
  if (!FUZZ_CHECK_STATUS(fs, forward_ok && fm.valid)) return 0;
  const attn::AttentionGradients grads{mut(dq, dq_rows, d), mut(dk, m, dk_cols), mut(dvg, dv_rows, dv)};
  const attn::Status bs = attn::fused_attention_backward(
      view(q, n, d), view(k, m, k_cols), view(v, v_rows, dv), view(out, n, dv), view(d_out, do_rows, do_cols),
      no_lse || lse.empty() ? nullptr : lse.data(), fm.mask, scale, grads, bwd_scratch.empty() ? nullptr : bwd_scratch.data());
  fuzz::report({{"dQ", dq, dq_rows, d}, {"dK", dk, m, dk_cols}, {"dV", dvg, dv_rows, dv}}, "status=%d", static_cast<int>(bs));
  if (!consistent) {
    FUZZ_CHECK_STATUS(bs, false);
    for (const auto* g : {&dq, &dk, &dvg})
      for (float x : *g) FUZZ_CHECK(x == 12345.0f, "a refused backward wrote a gradient");
    return 0;
  }
  if (!FUZZ_CHECK_STATUS(bs, true) || !in.check_values()) return 0;

  // The JS layer's guards (attentionBackward): a finite scale, scores inside float32, finite results.
  if (!std::isfinite(scale)) return 0;
  const double nq = fuzz::max_row_norm(q, n, d), nk = fuzz::max_row_norm(k, m, d);
  if (!fuzz::score_bound_ok(nq * nk * std::fmax(1.0, std::fabs(static_cast<double>(scale))))) return 0;
  if (!fuzz::all_finite(out) || !fuzz::all_finite(dq) || !fuzz::all_finite(dk) || !fuzz::all_finite(dvg)) return 0;

  // A fully masked query row has lse −∞, and zero output and dQ rows.
  for (std::size_t i = 0; i < n; ++i) {
    bool any = false;
    for (std::size_t j = 0; j < m && !any; ++j) any = fm.mask.visible(i, j);
    if (any) continue;
    FUZZ_CHECK(lse[i] == -INFINITY, "a fully masked row's log-sum-exp is not -inf");
    for (std::size_t c = 0; c < d; ++c) FUZZ_CHECK(dq[i * d + c] == 0.0f, "a fully masked row's dQ is not zero");
    for (std::size_t c = 0; c < dv; ++c) FUZZ_CHECK(out[i * dv + c] == 0.0f, "a fully masked row's output is not zero");
  }

  // The weights-kept path on the same inputs.
  std::vector<float> weights(n * m), ref_out(n * dv), dp(n * m), ds(n * m), rq(n * d), rk(m * d), rv(m * dv);
  FUZZ_CHECK(attn::scaled_dot_product_attention(view(q, n, d), view(k, m, d), view(v, m, dv), fm.mask, scale,
                                                mut(weights, n, m), mut(ref_out, n, dv)) == attn::Status::ok,
             "the step-by-step forward refused what the fused one accepted");
  FUZZ_CHECK(attn::attention_backward(view(q, n, d), view(k, m, d), view(v, m, dv), view(weights, n, m),
                                      view(d_out, n, dv), scale, {mut(rq, n, d), mut(rk, m, d), mut(rv, m, dv)},
                                      {mut(dp, n, m), mut(ds, n, m)}) == attn::Status::ok,
             "attention_backward refused what the fused backward accepted");
  if (!fuzz::all_finite(rq) || !fuzz::all_finite(rk) || !fuzz::all_finite(rv)) return 0;

  // Both paths round the scores in float32 in different orders: compare only where a score's
  // rounding moves P by little (|s| <= 16), with tolerances from bounds on each gradient's terms.
  const double s_max = nq * nk * std::fabs(static_cast<double>(scale));
  if (s_max > 16.0) return 0;
  const double g = max_abs(d_out), vm = max_abs(v), eps = 1e-5 * (1.0 + s_max);
  const double ds_mag = 2.0 * static_cast<double>(dv) * g * vm;  // |dP − D| <= 2 Σ|dO||v|
  const double sc = std::fabs(static_cast<double>(scale));
  // In the subnormal range float32's error is absolute, not relative: each of dS's ~2·d_v + 4
  // operations may be off by up to FLT_TRUE_MIN whatever eps says, and dQ = scale·dS·K,
  // dK = scale·dSᵀQ multiply that by |K| or |Q| (a kept input: V of 1e-45, Q of 3.4e38).
  const double ds_floor = (2.0 * static_cast<double>(dv) + 4.0) * static_cast<double>(FLT_TRUE_MIN);
  check_close(dvg, rv, 1e-5 + eps * static_cast<double>(n) * g, "dV");
  check_close(dq, rq, 1e-5 + sc * (eps * ds_mag + ds_floor) * static_cast<double>(m) * max_abs(k), "dQ");
  check_close(dk, rk, 1e-5 + sc * (eps * ds_mag + ds_floor) * static_cast<double>(n) * max_abs(q), "dK");
  return 0;
}
