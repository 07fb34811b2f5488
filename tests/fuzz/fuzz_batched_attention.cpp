// libFuzzer target: attn::batched_attention (weights kept, with the trace) and
// attn::batched_fused_attention on the same decoded batch of heads: 4-D or 3-D
// layout, grouped-query heads, and every score rule (soft cap, causal with an
// offset or per-batch offsets, window, per-batch key lengths, a broadcast
// boolean plane and a bias plane with −∞ entries, both possibly short). Now
// and then a size or a rule is broken on purpose and must be refused. For
// finite moderate inputs: weights in [0, 1], rows summing to 1 or all zero,
// hidden weights exactly 0, fully hidden rows zero on both paths, and the two
// paths agreeing.
#include <cmath>

#include "batched_attention.h"
#include "fuzz_common.h"

namespace {

struct Planes {
  std::vector<std::uint8_t> keep;
  std::vector<float> bias;
};

// A plane of [1 or B, 1 or H, 1 or n, cols] entries; cols may be short.
template <class T, class Gen>
attn::ScorePlane<T> decode_plane(fuzz::Decoder& in, std::vector<T>& data, std::size_t B, std::size_t H,
                                 std::size_t n, std::size_t m, Gen gen) {
  const std::size_t pb = in.flag() ? B : 1, ph = in.flag() ? H : 1, pn = in.flag() ? n : 1;
  const std::size_t cols = in.flag() ? m : in.dim(0, m);
  data.resize(pb * ph * pn * cols);
  for (T& x : data) x = gen();
  return {data.data(), pb == 1 ? 0 : ph * pn * cols, ph == 1 ? 0 : pn * cols, pn == 1 ? 0 : cols, cols};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t B = in.dim(0, 3), G = in.dim(1, 3), H = G * in.dim(1, 3), n = in.dim(0, 20), m = in.dim(0, 90);
  const std::size_t d = in.dim(0, 12), dv = in.dim(0, 12);
  const bool three_d = in.flag();
  const int broken = in.in_range<int>(0, 15);  // 1: heads not a multiple, 2: lengths too long, 3: plane too wide, 4: cap < 0
  const std::size_t q_heads = broken == 1 ? H + 1 : H;
  const std::vector<float> q = in.matrix(B * q_heads * n, d), k = in.matrix(B * G * m, d), v = in.matrix(B * G * m, dv);
  attn::ScoreRules rules;
  rules.scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(d > 0 ? d : 1)) : in.scalar();
  rules.softcap = broken == 4 ? -1.0f : in.flag() ? static_cast<float>(in.dim(1, 50)) / 4.0f : 0.0f;
  rules.causal = in.flag();
  std::vector<std::int32_t> offsets(B), lengths(B);
  for (auto& o : offsets) o = in.in_range<std::int32_t>(-5, static_cast<std::int32_t>(m) + 2);
  if (in.flag()) rules.causal_offsets = offsets.data();
  rules.window = in.flag() ? static_cast<std::uint32_t>(in.dim(1, 10)) : 0;
  for (auto& l : lengths) l = in.in_range<std::int32_t>(0, static_cast<std::int32_t>(m) + (broken == 2 ? 1 : 0));
  const bool too_long = broken == 2 && B > 0;
  if (too_long) lengths[0] = static_cast<std::int32_t>(m) + 1;
  if (too_long || in.flag()) rules.kv_lengths = lengths.data();
  Planes planes;
  if (in.flag()) rules.keep = decode_plane<std::uint8_t>(in, planes.keep, B, q_heads, n, m, [&] { return static_cast<std::uint8_t>(in.flag()); });
  const fuzz::Values bias_mode = in.values();
  if (in.flag())
    rules.bias = decode_plane<float>(in, planes.bias, B, q_heads, n, m, [&] { return in.in_range<int>(0, 5) == 0 ? -INFINITY : in.value(bias_mode); });
  if (broken == 3) {  // one key wider than there are keys
    planes.bias.assign(m + 1, 0.0f);
    rules.bias = {planes.bias.data(), 0, 0, 0, m + 1};
  }
  // (H + 1 heads still fit one kv head; a non-finite scale is refused)
  const bool consistent = !too_long && broken != 3 && broken != 4 && q_heads % G == 0 && std::isfinite(rules.scale);

  const auto layout = [&](const std::vector<float>& x, std::size_t heads, std::size_t rows, std::size_t cols) {
    return three_d ? attn::rows_major(x.data(), B, heads, rows, cols) : attn::heads_major(x.data(), B, heads, rows, cols);
  };
  std::vector<float> out(B * q_heads * n * dv, 12345.0f), fused(out), weights(B * q_heads * n * m);
  std::vector<float> scores(weights.size()), capped(weights.size()), biased(weights.size());
  std::vector<float> scratch(attn::batched_fused_scratch_floats(dv));
  const auto out_view = [&](std::vector<float>& o) {
    return three_d ? attn::rows_major(o.data(), B, q_heads, n, dv) : attn::heads_major(o.data(), B, q_heads, n, dv);
  };
  fuzz::report({{"Q", q, B * q_heads * n, d}, {"K", k, B * G * m, d}, {"V", v, B * G * m, dv}},
               "B=%zu H=%zu G=%zu n=%zu m=%zu d=%zu dv=%zu 3-D=%d broken=%d scale=%.9g cap=%.9g causal=%d window=%u",
               B, q_heads, G, n, m, d, dv, three_d, broken, static_cast<double>(rules.scale),
               static_cast<double>(rules.softcap), rules.causal, rules.window);
  if (in.skip_call()) return 0;
#if defined(ATTN_FORCE_SCALAR)
  if (!in.moderate()) return 0;  // as fuzz_fused_attention: the scalar exp2_integral UB on huge scores (reported)
#endif
  const attn::BatchedTrace trace{scores.data(), capped.data(), biased.data()};
  const attn::Status s = attn::batched_attention(layout(q, q_heads, n, d), layout(k, G, m, d), layout(v, G, m, dv), rules,
                                                 out_view(out), weights.data(), &trace);
  const attn::Status fs = attn::batched_fused_attention(layout(q, q_heads, n, d), layout(k, G, m, d), layout(v, G, m, dv),
                                                        rules, out_view(fused), scratch.data());
  FUZZ_CHECK(s == fs, "the two paths disagree on the status");
  if (!FUZZ_CHECK_STATUS(s, consistent)) return 0;
  if (!in.check_values() || !in.moderate() || !std::isfinite(rules.scale)) return 0;
  if (!fuzz::all_finite(out)) return 0;

  for (std::size_t row = 0; row < B * q_heads * n; ++row) {
    double sum = 0.0;
    bool any = false;
    for (std::size_t j = 0; j < m; ++j) {
      const float w = weights[row * m + j];
      FUZZ_CHECK(w >= 0.0f && w <= 1.0f, "a weight outside [0, 1]");
      const bool hidden = biased[row * m + j] == -FLT_MAX;
      if (hidden) FUZZ_CHECK(w == 0.0f, "a hidden key has a weight");
      any = any || !hidden;
      sum += w;
    }
    FUZZ_CHECK(any ? std::fabs(sum - 1.0) < 1e-4 : sum == 0.0, "a row's weights do not sum to 1 (or 0 when all hidden)");
  }
  // Both paths round the scores in float32 in different orders; a score error e moves a weight by up
  // to a factor e^(±2e) (as in fuzz_fused_attention), bounded here through ‖q‖‖k‖ and max |v|.
  const double mag = fuzz::max_row_norm(q, B * q_heads * n, d) * fuzz::max_row_norm(k, B * G * m, d);
  double vmax = 0.0;
  for (float x : v) vmax = std::fmax(vmax, std::fabs(static_cast<double>(x)));
  const double score_err = 1.2e-7 * static_cast<double>(d + 2) * mag * std::fabs(static_cast<double>(rules.scale));
  const double spread = std::fmin(2.0, std::expm1(4.0 * score_err + 1e-6 * static_cast<double>(m)));
  for (std::size_t t = 0; t < out.size(); ++t) {
    const double tol = 1e-4 + 1e-3 * std::fabs(static_cast<double>(out[t])) + vmax * spread + 1e-5 * vmax * static_cast<double>(m);
    if (std::fabs(static_cast<double>(out[t]) - fused[t]) > tol) {
      std::fprintf(stderr, "\nweights-kept %.9g, fused %.9g at %zu (tolerance %.3g)\n", static_cast<double>(out[t]),
                   static_cast<double>(fused[t]), t, tol);
      fuzz::fail("batched_fused_attention differs from batched_attention", __FILE__, __LINE__);
    }
  }
  return 0;
}
