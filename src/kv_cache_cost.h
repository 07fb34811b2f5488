// What a KV cache saves and what it costs, as numbers a reader can compare.
//
// Work: the multiply-adds of attention proper, q·k for every key a query can
// see and weights·v over the same keys, so (d_k + d_v) per visible key, for
// every batch entry and query head. A token at position t (0-based) sees
// visible(t) = t + 1 keys, or min(t + 1, w) with a window of w. Not counted:
// the projections, the softmax's exponentials, the other layers of a model.
//   with_cache     the n tokens at positions past … past + n − 1, each against
//                  the cache:            Σ_{t=past}^{past+n−1} visible(t)
//   without_cache  the same outputs without a cache: attention recomputed over
//                  the whole prefix of past + n tokens:  Σ_{t=0}^{past+n−1} visible(t)
// For one decode step at past p (no window): (p + 1) keys, O(n·d) per token,
// against (p + 1)(p + 2)/2, O(n²·d).
//
// Memory: layers · batch · kv_heads · tokens · (d_k + d_v) · bytes_per_value
// (a key plane and a value plane per layer).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {

struct KVCacheShape {
  std::size_t batch = 1, heads = 1, d_k = 0, d_v = 0;
  std::uint32_t window = 0;  // 0: none
};

struct KVWork {
  double with_cache = 0.0, without_cache = 0.0;  // multiply-adds (exact up to 2^53)
};

KVWork kv_cache_work(const KVCacheShape& shape, std::size_t past, std::size_t n);

double kv_cache_bytes(double layers, double batch, double kv_heads, double d_k, double d_v, double tokens,
                      double bytes_per_value);

}  // namespace attn
