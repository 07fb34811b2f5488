#include "kv_cache_cost.h"

namespace attn {
namespace {

// Σ_{t=0}^{count−1} visible(t): keys seen by the first `count` tokens, in closed form
// (t + 1 up to the window, then w each).
double keys_seen(std::size_t count, std::uint32_t window) {
  const double c = static_cast<double>(count);
  if (window == 0 || count <= window) return c * (c + 1.0) / 2.0;
  const double w = static_cast<double>(window);
  return w * (w + 1.0) / 2.0 + (c - w) * w;
}

}  // namespace

KVWork kv_cache_work(const KVCacheShape& shape, std::size_t past, std::size_t n) {
  const double per_key = static_cast<double>(shape.batch) * static_cast<double>(shape.heads) *
                         static_cast<double>(shape.d_k + shape.d_v);
  const double all = keys_seen(past + n, shape.window);
  return {per_key * (all - keys_seen(past, shape.window)), per_key * all};
}

double kv_cache_bytes(double layers, double batch, double kv_heads, double d_k, double d_v, double tokens,
                      double bytes_per_value) {
  return layers * batch * kv_heads * tokens * (d_k + d_v) * bytes_per_value;
}

}  // namespace attn
