// libFuzzer target: attn::check_mask, attn::softmax_rows (in place or not)
// and attn::apply_mask_for_trace with random scores and masks, checked
// against a float64 softmax.
#include <cmath>

#include "fuzz_common.h"
#include "softmax.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::Decoder in(data, size);
  const std::size_t n = in.dim(0, 40), m = in.dim(0, 40);
  std::vector<float> s = in.matrix(n, m);
  const fuzz::FuzzMask fm = fuzz::decode_mask(in, n, m);
  const bool in_place = in.flag();

  if (in.skip_call()) return 0;
  const attn::Status st = attn::check_mask(fm.mask, n, m);
  fuzz::report({{"S", s, n, m}}, "n=%zu m=%zu in_place=%d check_mask=%d", n, m, in_place, static_cast<int>(st));
  fuzz::dump_mask(fm, n);
  if (!FUZZ_CHECK_STATUS(st, fm.valid)) return 0;  // check_mask accepts exactly the valid masks

  const std::vector<float> original = s;
  std::vector<float> masked(n * m);
  attn::apply_mask_for_trace(attn::dense(original.data(), n, m), fm.mask, attn::dense(masked.data(), n, m));
  std::vector<float> separate(in_place ? 0 : n * m);
  float* w = in_place ? s.data() : separate.data();
  attn::softmax_rows(attn::dense(original.data(), n, m), fm.mask, attn::dense(w, n, m));
  if (in_place) {
    // softmax_rows documents that W may alias S: run it again truly in place.
    attn::softmax_rows(attn::dense(s.data(), n, m), fm.mask, attn::dense(s.data(), n, m));
    std::vector<float> fresh(n * m);
    attn::softmax_rows(attn::dense(original.data(), n, m), fm.mask, attn::dense(fresh.data(), n, m));
    // s now holds softmax(softmax(S)); recompute once from the original for the checks below
    s = fresh;
    w = s.data();
  }
  fuzz::dump("weights", w, n, m);

  if (!in.check_values()) return 0;
  fuzz::check_all_finite(w, n * m, "weights");
  fuzz::check_all_finite(masked.data(), masked.size(), "masked trace");
  fuzz::check_weights(w, n, m, fm.mask);
  fuzz::check_masked_trace(masked.data(), original.data(), n, m, fm.mask);

  // float64 reference over the visible entries
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = original.data() + i * m;
    double mx = -INFINITY;
    for (std::size_t j = 0; j < m; ++j)
      if (fm.mask.visible(i, j)) mx = std::fmax(mx, static_cast<double>(row[j]));
    if (mx == -INFINITY) continue;
    double sum = 0.0;
    for (std::size_t j = 0; j < m; ++j)
      if (fm.mask.visible(i, j)) sum += std::exp(static_cast<double>(row[j]) - mx);
    for (std::size_t j = 0; j < m; ++j) {
      const double ref = fm.mask.visible(i, j) ? std::exp(static_cast<double>(row[j]) - mx) / sum : 0.0;
      const double got = w[i * m + j];
      if (std::fabs(got - ref) > 2e-6 + 2e-5 * ref) {
        std::fprintf(stderr, "\nweights[%zu][%zu] = %.9g, float64 reference %.9g\n", i, j, got, ref);
        fuzz::fail("softmax differs from the float64 reference", __FILE__, __LINE__);
      }
    }
  }
  return 0;
}
