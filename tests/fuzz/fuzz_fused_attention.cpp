// libFuzzer target: attn::fused_attention (the block-by-block online-softmax
// fast path) against attn::scaled_dot_product_attention (the step-by-step
// path) on the same inputs. Shapes are mostly small; now and then n and m go
// up to 300 so several 32-row query blocks and 128-key blocks, and their
// ragged edges, are crossed.
#include <cmath>

#include "attention.h"
#include "flash_attention.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const bool large = in.in_range<int>(0, 7) == 0;
  const std::size_t n = in.dim(0, large ? 300 : 40), m = in.dim(0, large ? 300 : 40);
  const std::size_t d = in.dim(0, large ? 12 : 40), dv = in.dim(0, large ? 12 : 40);
  // Now and then one declared size is wrong; the core must refuse the call.
  const int broken = in.in_range<int>(0, 15);
  const std::size_t k_cols = broken == 1 ? d + 1 : d;
  const std::size_t v_rows = broken == 2 ? m + 1 : m;
  const std::size_t o_rows = broken == 3 ? n + 1 : n;
  const std::size_t o_cols = broken == 4 ? dv + 1 : dv;
  const bool consistent = broken < 1 || broken > 4;

  const std::vector<float> q = in.matrix(n, d);
  const std::vector<float> k = in.matrix(m, k_cols);
  const std::vector<float> v = in.matrix(v_rows, dv);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, m);
  const float scale = in.flag() ? attn::default_scale(d) : in.scalar();

  // Exactly the documented scratch: ASan reports any use past it.
  std::vector<float> scratch(attn::fused_attention_scratch_floats(m, k_cols, dv));
  std::vector<float> out(o_rows * o_cols, 12345.0f);

  fuzz::report({{"Q", q, n, d}, {"K", k, m, k_cols}, {"V", v, v_rows, dv}},
               "n=%zu m=%zu d=%zu dv=%zu broken=%d scale=%.9g scratch=%zu", n, m, d, dv, broken,
               static_cast<double>(scale), scratch.size());
  fuzz::dump_mask(fm, n);
  if (in.skip_call()) return 0;
#if defined(ATTN_FORCE_SCALAR)
  // Reported, open (regressions/softmax/scalar-exp-nan-scores-float-to-int-ub):
  // on the scalar back end NaN, infinite or huge scores reach exp2_integral's
  // float-to-int conversion out of range (UB, src/simd.h:129). Until it is
  // fixed this target runs only moderate inputs on that back end, so that it
  // can look for other bugs there without tripping over that one.
  if (!in.moderate()) return 0;
#endif
  const attn::Status s =
      attn::fused_attention(attn::dense(q.data(), n, d), attn::dense(k.data(), m, k_cols),
                            attn::dense(v.data(), v_rows, dv), fm.mask, scale, attn::dense(out.data(), o_rows, o_cols),
                            scratch.empty() ? nullptr : scratch.data());
  fuzz::report({{"fused output", out, o_rows, o_cols}}, "status=%d", static_cast<int>(s));
  if (!FUZZ_CHECK_STATUS(s, consistent && fm.valid)) return 0;

  if (!in.check_values()) return 0;  // non-finite input: memory safety and statuses only
  // The JS layer scales and checks exactly as for scaledDotProductAttention: a
  // non-finite scale is refused, and beyond this bound it throws OVERFLOW first.
  if (!std::isfinite(scale)) return 0;
  const double nq = fuzz::max_row_norm(q, n, d), nk = fuzz::max_row_norm(k, m, d);
  if (!fuzz::score_bound_ok(nq * nk * std::fmax(1.0, std::fabs(static_cast<double>(scale))))) return 0;
  // A non-finite output is reported by the JS layer's scan (OVERFLOW).
  if (!fuzz::all_finite(out)) return 0;

  // Fully masked rows: all zero.
  for (std::size_t i = 0; i < n; ++i) {
    bool any_visible = false;
    for (std::size_t j = 0; j < m && !any_visible; ++j) any_visible = fm.mask.visible(i, j);
    if (!any_visible)
      for (std::size_t c = 0; c < dv; ++c) FUZZ_CHECK(out[i * dv + c] == 0.0f, "a fully masked row is not zero");
  }

  // The step-by-step path on the same inputs.
  std::vector<float> weights(n * m), ref(n * dv);
  const attn::Status rs = attn::scaled_dot_product_attention(
      attn::dense(q.data(), n, d), attn::dense(k.data(), m, d), attn::dense(v.data(), m, dv), fm.mask, scale,
      attn::dense(weights.data(), n, m), attn::dense(ref.data(), n, dv), nullptr);
  FUZZ_CHECK(rs == attn::Status::ok, "the step-by-step path refused what the fused one accepted");
  if (!fuzz::all_finite(ref) || !fuzz::all_finite(weights)) return 0;

  // Both paths round the scores in float32, in different orders (fuzz::row_tolerance).
  for (std::size_t i = 0; i < n; ++i) {
    const fuzz::RowTolerance tol = fuzz::row_tolerance(q, k, v, i, m, d, dv, fm.mask, scale);
    for (std::size_t c = 0; c < dv; ++c) {
      const double got = out[i * dv + c], want = ref[i * dv + c];
      if (std::fabs(got - want) > tol.at(want)) {
        std::fprintf(stderr, "\nfused[%zu][%zu] = %.9g, step-by-step %.9g (tolerance %.3g)\n", i, c, got, want, tol.at(want));
        fuzz::fail("fused_attention differs from scaled_dot_product_attention", __FILE__, __LINE__);
      }
    }
  }
  return 0;
}
