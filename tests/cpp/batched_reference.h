// Float64 reference for batched attention (src/batched_attention.h), written
// from the definition and independent of src/: every tensor dense
// heads-major [batch, heads, rows, cols]; the rules spelled out per score.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace ref {

struct BatchedCase {
  std::size_t batch = 1, heads = 1, kv_heads = 1, n = 1, m = 1, d = 1, dv = 1;
  double scale = 1.0, softcap = 0.0;
  bool causal = false;
  std::vector<std::int32_t> offsets;     // per batch (empty: 0)
  std::size_t window = 0;
  std::vector<std::int32_t> kv_lengths;  // per batch (empty: none)
  std::vector<std::uint8_t> keep;        // full [B, H, n, m] (empty: none)
  std::vector<double> bias;              // full [B, H, n, m] (empty: none)
};

struct BatchedResult {
  std::vector<double> output;   // [B, H, n, dv]
  std::vector<double> weights;  // [B, H, n, m]
  std::vector<double> scores;   // q·k·scale
  std::vector<double> capped;
  std::vector<double> biased;   // hidden: -inf
};

inline bool batched_visible(const BatchedCase& c, std::size_t b, std::size_t h, std::size_t i, std::size_t j) {
  const long long off = c.offsets.empty() ? 0 : c.offsets[b];
  const long long ii = static_cast<long long>(i), jj = static_cast<long long>(j);
  if (c.causal && jj > ii + off) return false;
  if (c.window > 0 && jj <= ii + off - static_cast<long long>(c.window)) return false;
  if (!c.kv_lengths.empty() && jj >= c.kv_lengths[b]) return false;
  if (!c.keep.empty() && !c.keep[((b * c.heads + h) * c.n + i) * c.m + j]) return false;
  return true;
}

// q [B,H,n,d], k [B,G,m,d], v [B,G,m,dv]; query head h reads kv head h·G/H.
inline BatchedResult batched_attention(const BatchedCase& c, const std::vector<float>& q, const std::vector<float>& k,
                                       const std::vector<float>& v) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t planes = c.batch * c.heads, nm = c.n * c.m;
  BatchedResult r{std::vector<double>(planes * c.n * c.dv, 0.0), std::vector<double>(planes * nm, 0.0),
                  std::vector<double>(planes * nm), std::vector<double>(planes * nm), std::vector<double>(planes * nm)};
  for (std::size_t b = 0; b < c.batch; ++b)
    for (std::size_t h = 0; h < c.heads; ++h) {
      const std::size_t g = h * c.kv_heads / c.heads, p = b * c.heads + h;
      for (std::size_t i = 0; i < c.n; ++i) {
        const float* qi = &q[(p * c.n + i) * c.d];
        for (std::size_t j = 0; j < c.m; ++j) {
          const float* kj = &k[((b * c.kv_heads + g) * c.m + j) * c.d];
          double s = 0.0;
          for (std::size_t t = 0; t < c.d; ++t) s += static_cast<double>(qi[t]) * kj[t];
          s *= c.scale;
          const std::size_t at = p * nm + i * c.m + j;
          r.scores[at] = s;
          if (c.softcap > 0.0) s = c.softcap * std::tanh(s / c.softcap);
          r.capped[at] = s;
          if (!c.bias.empty()) s += c.bias[at];
          r.biased[at] = batched_visible(c, b, h, i, j) ? s : -inf;
        }
        double max = -inf, sum = 0.0;
        for (std::size_t j = 0; j < c.m; ++j) max = std::fmax(max, r.biased[p * nm + i * c.m + j]);
        if (max == -inf) continue;  // nothing visible: zero weights, zero output
        for (std::size_t j = 0; j < c.m; ++j) sum += std::exp(r.biased[p * nm + i * c.m + j] - max);
        for (std::size_t j = 0; j < c.m; ++j) {
          const double w = std::exp(r.biased[p * nm + i * c.m + j] - max) / sum;
          r.weights[p * nm + i * c.m + j] = w;
          for (std::size_t t = 0; t < c.dv; ++t)
            r.output[(p * c.n + i) * c.dv + t] += w * v[((b * c.kv_heads + g) * c.m + j) * c.dv + t];
        }
      }
    }
  return r;
}

}  // namespace ref
