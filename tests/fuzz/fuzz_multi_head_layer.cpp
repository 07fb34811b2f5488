// libFuzzer target: the packed multi-head layer (attn::pack_multi_head, then
// attn::multi_head_forward) against attn::multi_head_attention on the same
// weights, input and mask: heads 0..6 (0 and widths the heads do not divide
// are refused), n = 0 included, wrong sizes now and then. Storage and scratch
// are exactly multi_head_layer_floats and multi_head_forward_floats.
#include <cmath>

#include "fuzz_common.h"
#include "multi_head.h"

namespace {

// |A| |B| in double: a bound on the magnitude of every term of A B.
std::vector<double> abs_product(const std::vector<float>& a, const std::vector<float>& b, std::size_t rows,
                                std::size_t inner, std::size_t cols) {
  std::vector<double> r(rows * cols, 0.0);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t p = 0; p < inner; ++p)
      for (std::size_t j = 0; j < cols; ++j)
        r[i * cols + j] += std::fabs(static_cast<double>(a[i * inner + p])) * std::fabs(static_cast<double>(b[p * cols + j]));
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 24), d_model = in.dim(0, 16), heads = in.dim(0, 6);
  const std::size_t dk = in.dim(0, 8), dv = in.dim(0, 8), d_out = in.dim(0, 16);
  const int broken = in.in_range<int>(0, 15);
  const std::size_t hh = heads == 0 ? 1 : heads;
  // Packing: widths the heads do not divide, or W_K / W_O of the wrong shape.
  const std::size_t dk_all = hh * dk + (broken == 1 ? 1 : 0), dv_all = hh * dv + (broken == 2 ? 1 : 0);
  const std::size_t wk_rows = broken == 3 ? d_model + 1 : d_model, wo_rows = broken == 4 ? dv_all + 1 : dv_all;
  const bool pack_ok = heads > 0 && broken != 3 && broken != 4 && dk_all % heads == 0 && dv_all % heads == 0;
  // The forward pass: X, concat or out of the wrong shape.
  const std::size_t x_cols = broken == 5 ? d_model + 1 : d_model, concat_cols = broken == 6 ? dv_all + 1 : dv_all;
  const std::size_t out_rows = broken == 7 ? n + 1 : n;
  const bool forward_ok = broken < 5 || broken > 7;

  const std::vector<float> x = in.matrix(n, x_cols);
  const std::vector<float> w_q = in.matrix(d_model, dk_all), w_k = in.matrix(wk_rows, dk_all),
                           w_v = in.matrix(d_model, dv_all), w_o = in.matrix(wo_rows, d_out);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, n);
  fuzz::report({{"X", x, n, x_cols}, {"W_Q", w_q, d_model, dk_all}, {"W_K", w_k, wk_rows, dk_all},
                {"W_V", w_v, d_model, dv_all}, {"W_O", w_o, wo_rows, d_out}},
               "n=%zu d_model=%zu heads=%zu dk_all=%zu dv_all=%zu d_out=%zu broken=%d", n, d_model, heads, dk_all,
               dv_all, d_out, broken);
  fuzz::dump_mask(fm, n);
  if (in.skip_call()) return 0;
#if defined(ATTN_FORCE_SCALAR)
  // Reported, open (regressions/softmax/scalar-exp-nan-scores-float-to-int-ub):
  // NaN, infinite or huge scores reach the scalar exp2_integral's float-to-int
  // conversion out of range (UB, src/simd.h:129); only moderate inputs run here.
  if (!in.moderate()) return 0;
#endif

  // 1. pack: storage sized for the layer the weights describe (when they describe one).
  const std::size_t d_k = pack_ok ? dk_all / heads : 0, d_v = pack_ok ? dv_all / heads : 0;
  std::vector<float> storage(pack_ok ? attn::multi_head_layer_floats(d_model, heads, d_k, d_v, d_out) : 0);
  attn::MultiHeadLayer layer;
  const attn::Status ps = attn::pack_multi_head(
      attn::dense(w_q.data(), d_model, dk_all), attn::dense(w_k.data(), wk_rows, dk_all),
      attn::dense(w_v.data(), d_model, dv_all), attn::dense(w_o.data(), wo_rows, d_out), heads,
      storage.empty() ? nullptr : storage.data(), layer);
  if (!FUZZ_CHECK_STATUS(ps, pack_ok)) {  // pack_multi_head
    if (heads == 0) FUZZ_CHECK(ps == attn::Status::bad_argument, "heads = 0 is not bad_argument");
    return 0;
  }
  FUZZ_CHECK(layer.d_model == d_model && layer.heads == heads && layer.d_k == d_k && layer.d_v == d_v &&
                 layer.d_out == d_out,
             "the packed layer's dimensions are wrong");

  // 2. forward, with exactly multi_head_forward_floats of scratch.
  std::vector<float> scratch(attn::multi_head_forward_floats(layer, n), 555.0f);
  std::vector<float> concat(n * concat_cols, 777.0f), out(out_rows * d_out, 777.0f);
  const attn::Status s = attn::multi_head_forward(
      layer, attn::dense(x.data(), n, x_cols), fm.mask, attn::dense(concat.data(), n, concat_cols),
      attn::dense(out.data(), out_rows, d_out), scratch.empty() ? nullptr : scratch.data());
  fuzz::report({{"concat", concat, n, concat_cols}, {"output", out, out_rows, d_out}}, "forward status=%d",
               static_cast<int>(s));
  if (!FUZZ_CHECK_STATUS(s, forward_ok && fm.valid)) return 0;  // multi_head_forward

  // 3. the unpacked path on the same arguments.
  const std::size_t block = heads * n * n;
  std::vector<float> pq(n * dk_all), pk(n * dk_all), pv(n * dv_all), weights(block), ref_concat(n * dv_all),
      ref_out(n * d_out);
  const attn::MultiHeadBuffers buffers{
      {attn::dense(pq.data(), n, dk_all), attn::dense(pk.data(), n, dk_all), attn::dense(pv.data(), n, dv_all)},
      weights.data(),
      attn::dense(ref_concat.data(), n, dv_all),
      attn::dense(ref_out.data(), n, d_out),
      {nullptr, nullptr, nullptr}};
  const attn::Status rs = attn::multi_head_attention(
      attn::dense(x.data(), n, d_model), heads, attn::dense(w_q.data(), d_model, dk_all),
      attn::dense(w_k.data(), d_model, dk_all), attn::dense(w_v.data(), d_model, dv_all),
      attn::dense(w_o.data(), dv_all, d_out), fm.mask, buffers);
  FUZZ_CHECK(rs == attn::Status::ok, "multi_head_attention refused what the packed layer accepted");

  if (!in.check_values()) return 0;  // non-finite input: memory safety and statuses only
  // bindings/overflow.js checkProjectedScores: beyond this bound the JS layer throws OVERFLOW before the call.
  const double nx = fuzz::max_row_norm(x, n, d_model);
  if (!fuzz::score_bound_ok(nx * nx * fuzz::frobenius(w_q) * fuzz::frobenius(w_k))) return 0;
  // Non-finite results are reported by the JS scan (OVERFLOW) on either path.
  for (const auto* buf : {&concat, &out, &ref_concat, &ref_out, &pq, &pk, &pv})
    if (!fuzz::all_finite(*buf)) return 0;

  // Tolerances: 1e-4 abs + 1e-3 rel, plus the float32 rounding of the
  // projections and scores (summed in different orders by the two paths),
  // which moves a weight by a factor up to e^(±2e) for a score error e.
  const std::vector<double> aq = abs_product(x, w_q, n, d_model, dk_all), ak = abs_product(x, w_k, n, d_model, dk_all),
                            av = abs_product(x, w_v, n, d_model, dv_all);
  const double scale = attn::default_scale(d_k), eps = 1.2e-7;
  std::vector<double> concat_tol(n * dv_all, 0.0);
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t i = 0; i < n; ++i) {
      double mag = 0.0, vmax = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        if (!fm.mask.visible(i, j)) continue;
        double a = 0.0;
        for (std::size_t p = 0; p < d_k; ++p) a += aq[i * dk_all + h * d_k + p] * ak[j * dk_all + h * d_k + p];
        mag = std::fmax(mag, a);
        for (std::size_t c = 0; c < d_v; ++c) vmax = std::fmax(vmax, av[j * dv_all + h * d_v + c]);
      }
      const double score_err = eps * static_cast<double>(2 * d_model + d_k + 4) * mag * scale;
      const double spread = std::fmin(2.0, std::expm1(4.0 * score_err + 1e-6 * static_cast<double>(n)));
      for (std::size_t c = 0; c < d_v; ++c) {
        const std::size_t at = i * dv_all + h * d_v + c;
        concat_tol[at] = 1e-4 + 1e-3 * std::fabs(static_cast<double>(ref_concat[at])) + vmax * spread +
                         eps * static_cast<double>(d_model + n + 2) * vmax;
        if (std::fabs(static_cast<double>(concat[at]) - ref_concat[at]) > concat_tol[at]) {
          std::fprintf(stderr, "\nconcat[%zu][%zu] = %.9g, multi_head_attention %.9g (tolerance %.3g)\n", i,
                       h * d_v + c, static_cast<double>(concat[at]), static_cast<double>(ref_concat[at]),
                       concat_tol[at]);
          fuzz::fail("the packed layer's concat differs from multi_head_attention's", __FILE__, __LINE__);
        }
      }
    }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t o = 0; o < d_out; ++o) {
      double tol = 1e-4 + 1e-3 * std::fabs(static_cast<double>(ref_out[i * d_out + o]));
      for (std::size_t c = 0; c < dv_all; ++c) {
        const double wo = std::fabs(static_cast<double>(w_o[c * d_out + o]));
        tol += wo * (concat_tol[i * dv_all + c] + eps * static_cast<double>(dv_all + 2) *
                                                      std::fabs(static_cast<double>(ref_concat[i * dv_all + c])));
      }
      const double got = out[i * d_out + o], want = ref_out[i * d_out + o];
      if (std::fabs(got - want) > tol) {
        std::fprintf(stderr, "\noutput[%zu][%zu] = %.9g, multi_head_attention %.9g (tolerance %.3g)\n", i, o, got,
                     want, tol);
        fuzz::fail("the packed layer's output differs from multi_head_attention's", __FILE__, __LINE__);
      }
    }
  return 0;
}
