// libFuzzer target: attn::transformer_encoder_block (and through it
// add_and_norm and feed_forward) with random shapes, head counts (0 and ones
// that do not divide the widths), W_O / W_1 / W_2 of wrong shapes, epsilons
// (good, zero, negative, NaN, ∞), layer-norm parameters, masks and values.
#include <cmath>

#include "fuzz_common.h"
#include "transformer_block.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 12), d_model = in.dim(0, 12), heads = in.dim(0, 4), dk = in.dim(0, 6),
                    d_ff = in.dim(0, 16);
  const int broken = in.in_range<int>(0, 15);
  const std::size_t hh = heads == 0 ? 1 : heads;
  const std::size_t dk_all = hh * dk + (broken == 1 ? 1 : 0);
  const std::size_t wo_cols = broken == 2 ? d_model + 1 : d_model;  // must map back to d_model
  const std::size_t w1_rows = broken == 3 ? d_model + 1 : d_model;
  const std::size_t w2_rows = broken == 4 ? d_ff + 1 : d_ff;
  const std::size_t w2_cols = broken == 5 ? d_model + 1 : d_model;
  const float epsilon = in.flag() ? 1e-5f : in.scalar();
  const bool good_epsilon = epsilon > 0.0f && std::isfinite(epsilon);
  const bool identity_norms = in.flag();
  const bool consistent = heads > 0 && dk_all % heads == 0 && (broken < 2 || broken > 5) && good_epsilon;

  const std::vector<float> x = in.matrix(n, d_model);
  const std::vector<float> w_q = in.matrix(d_model, dk_all), w_k = in.matrix(d_model, dk_all),
                           w_v = in.matrix(d_model, dk_all), w_o = in.matrix(dk_all, wo_cols),
                           w1 = in.matrix(w1_rows, d_ff), w2 = in.matrix(w2_rows, w2_cols), b1 = in.matrix(1, d_ff),
                           b2 = in.matrix(1, d_model);
  std::vector<float> gamma1(d_model, 1.0f), beta1(d_model, 0.0f), gamma2(d_model, 1.0f), beta2(d_model, 0.0f);
  if (!identity_norms) {
    gamma1 = in.matrix(1, d_model);
    beta1 = in.matrix(1, d_model);
    gamma2 = in.matrix(1, d_model);
    beta2 = in.matrix(1, d_model);
  }
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, n);

  std::vector<float> q(n * dk_all), k(n * dk_all), v(n * dk_all), weights(heads * n * n), concat(n * dk_all),
      attention(n * wo_cols), sum1(n * d_model), norm1(n * d_model), hidden(n * d_ff), ffn(n * w2_cols),
      sum2(n * d_model), out(n * d_model);
  const attn::TransformerWeights w{heads,
                                   attn::dense(w_q.data(), d_model, dk_all),
                                   attn::dense(w_k.data(), d_model, dk_all),
                                   attn::dense(w_v.data(), d_model, dk_all),
                                   attn::dense(w_o.data(), dk_all, wo_cols),
                                   attn::dense(w1.data(), w1_rows, d_ff),
                                   attn::dense(w2.data(), w2_rows, w2_cols),
                                   b1.data(), b2.data(), gamma1.data(), beta1.data(), gamma2.data(), beta2.data(),
                                   epsilon};
  const attn::TransformerBuffers b{
      {{attn::dense(q.data(), n, dk_all), attn::dense(k.data(), n, dk_all), attn::dense(v.data(), n, dk_all)},
       weights.data(), attn::dense(concat.data(), n, dk_all), attn::dense(attention.data(), n, wo_cols), {}},
      attn::dense(sum1.data(), n, d_model), attn::dense(norm1.data(), n, d_model), attn::dense(hidden.data(), n, d_ff),
      attn::dense(ffn.data(), n, w2_cols), attn::dense(sum2.data(), n, d_model), attn::dense(out.data(), n, d_model)};
  if (in.skip_call()) return 0;
  const attn::Status s = attn::transformer_encoder_block(attn::dense(x.data(), n, d_model), w, fm.mask, b);
  fuzz::report({{"X", x, n, d_model}, {"out", out, n, d_model}},
               "n=%zu d_model=%zu heads=%zu dk_all=%zu d_ff=%zu broken=%d eps=%g status=%d", n, d_model, heads, dk_all,
               d_ff, broken, static_cast<double>(epsilon), static_cast<int>(s));
  fuzz::dump_mask(fm, n);
  if (!FUZZ_CHECK_STATUS(s, consistent && fm.valid)) return 0;
  if (!in.check_values() || !in.moderate() || n == 0 || d_model < 2) return 0;
  // Moderate inputs stay finite, and with γ = 1, β = 0 every output row is normalised:
  // mean 0 and variance var/(var + ε) ≤ 1.
  if (!fuzz::all_finite(sum2)) return 0;  // scores or sums beyond float32: reported as OVERFLOW by the JS layer
  fuzz::check_all_finite(out.data(), out.size(), "block output");
  if (!identity_norms) return 0;
  for (std::size_t i = 0; i < n; ++i) {
    double mean = 0.0, var = 0.0;
    for (std::size_t j = 0; j < d_model; ++j) mean += out[i * d_model + j] / static_cast<double>(d_model);
    for (std::size_t j = 0; j < d_model; ++j) {
      const double c = out[i * d_model + j] - mean;
      var += c * c / static_cast<double>(d_model);
    }
    FUZZ_CHECK(std::fabs(mean) < 1e-4, "a layer-normed row does not have mean 0");
    FUZZ_CHECK(var < 1.0 + 1e-3, "a layer-normed row has variance above 1");
  }
  return 0;
}
