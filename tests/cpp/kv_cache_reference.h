// Float64 reference for the KV cache's numbers (src/kv_cache_cost.h), written
// from the definitions and independent of src/: the work counted key by key,
// the memory as a product of its factors. The attention itself is checked
// against batched_reference.h's full causal attention over every token.
#pragma once

#include <cstddef>

namespace ref {

struct KVWorkCount {
  double with_cache = 0.0, without_cache = 0.0;
};

// Every (batch entry, query head, token, visible key) costs d_k + d_v multiply-adds; token t sees keys
// j ≤ t, and with a window w > 0 only those with j > t − w. With the cache: tokens past … past + n − 1;
// without: every token 0 … past + n − 1 again.
inline KVWorkCount kv_cache_work(std::size_t batch, std::size_t heads, std::size_t d_k, std::size_t d_v,
                                 std::size_t window, std::size_t past, std::size_t n) {
  KVWorkCount w;
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t t = 0; t < past + n; ++t)
        for (std::size_t j = 0; j <= t; ++j) {
          if (window > 0 && j + window <= t) continue;
          const double cost = static_cast<double>(d_k + d_v);
          w.without_cache += cost;
          if (t >= past) w.with_cache += cost;
        }
  return w;
}

// A key plane and a value plane per layer: layers × batch × kv_heads × tokens rows of d_k and of d_v values.
inline double kv_cache_bytes(double layers, double batch, double kv_heads, double d_k, double d_v, double tokens,
                             double bytes_per_value) {
  const double keys = layers * batch * kv_heads * tokens * d_k, values = layers * batch * kv_heads * tokens * d_v;
  return (keys + values) * bytes_per_value;
}

}  // namespace ref
