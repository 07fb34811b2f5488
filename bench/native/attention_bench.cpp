// Google Benchmark of the attention-lab kernels, natively, at the shapes of
// bench/run.mjs (d = 64; multi-head d_model 512, 8 heads; variants with a
// local window of 128 and a Linformer k of 256). Kernel time only: inputs
// already in memory (the WASM figures also include the copy across the JS
// boundary). Each benchmark checks a few output rows against a double
// reference first and reports an error instead of a time when they differ.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "attention.h"
#include "blocked_attention.h"
#include "flash_attention.h"
#include "linear_attention.h"
#include "linformer_attention.h"
#include "local_attention.h"
#include "mask.h"
#include "matrix.h"
#include "multi_head.h"

namespace {

constexpr std::size_t kD = 64, kWindow = 128, kLinformerK = 256, kModel = 512, kHeads = 8;

std::vector<float> random_floats(std::size_t count, std::uint32_t seed, float sigma = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> v(count);
  for (float& x : v) x = dist(gen);
  return v;
}

// Row i of softmax(q_i K[lo:hi]ᵀ · scale) V[lo:hi], in double.
std::vector<double> reference_row(const float* q, const float* k, const float* v, std::size_t i, std::size_t lo,
                                  std::size_t hi, std::size_t d, double scale) {
  std::vector<double> s(hi - lo), out(d, 0.0);
  double max = -INFINITY, sum = 0;
  for (std::size_t j = lo; j < hi; ++j) {
    double x = 0;
    for (std::size_t t = 0; t < d; ++t) x += double(q[i * d + t]) * k[j * d + t];
    s[j - lo] = x * scale;
    max = std::max(max, s[j - lo]);
  }
  for (double& x : s) sum += x = std::exp(x - max);
  for (std::size_t j = lo; j < hi; ++j)
    for (std::size_t t = 0; t < d; ++t) out[t] += s[j - lo] / sum * v[j * d + t];
  return out;
}

// Checks rows 0, n/2 and n−1 of out against reference_row over the range each sees.
template <class Range>
bool rows_match(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                const std::vector<float>& out, std::size_t n, Range range) {
  for (std::size_t i : {std::size_t{0}, n / 2, n - 1}) {
    auto [lo, hi] = range(i);
    const auto want = reference_row(q.data(), k.data(), v.data(), i, lo, hi, kD, 1.0 / std::sqrt(double(kD)));
    for (std::size_t t = 0; t < kD; ++t)
      if (!(std::abs(out[i * kD + t] - want[t]) <= 1e-3 + 1e-3 * std::abs(want[t]))) return false;
  }
  return true;
}

struct Inputs {
  std::size_t n;
  std::vector<float> q, k, v, out;
  explicit Inputs(std::size_t n_)
      : n(n_), q(random_floats(n * kD, 1)), k(random_floats(n * kD, 2)), v(random_floats(n * kD, 3)), out(n * kD) {}
  attn::ConstMatrixView Q() const { return attn::dense(q.data(), n, kD); }
  attn::ConstMatrixView K() const { return attn::dense(k.data(), n, kD); }
  attn::ConstMatrixView V() const { return attn::dense(v.data(), n, kD); }
  attn::MatrixView O() { return attn::dense(out.data(), n, kD); }
};

void set_flops(benchmark::State& state, double flops) {
  state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

// Fused (flash) attention: the no-weights fast path of scaledDotProductAttention.
void BM_fused(benchmark::State& state) {
  const std::size_t n = state.range(0);
  const bool causal = state.range(1) != 0;
  Inputs in(n);
  std::vector<float> scratch(attn::fused_attention_scratch_floats(n, kD, kD));
  const attn::Mask mask = causal ? attn::Mask::causal() : attn::Mask{};
  const float scale = attn::default_scale(kD);
  auto run = [&] { return attn::fused_attention(in.Q(), in.K(), in.V(), mask, scale, in.O(), scratch.data()); };
  if (run() != attn::Status::ok || !rows_match(in.q, in.k, in.v, in.out, n, [&](std::size_t i) {
        return std::pair<std::size_t, std::size_t>{0, causal ? i + 1 : n};
      }))
    return state.SkipWithError("wrong result");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, causal ? 2.0 * n * n * kD : 4.0 * n * n * kD);
}

// The step-by-step path: the n×n weights materialised (scaledDotProductAttention without weights: false).
void BM_weights(benchmark::State& state) {
  const std::size_t n = state.range(0);
  const bool causal = state.range(1) != 0;
  Inputs in(n);
  std::vector<float> weights(n * n);
  const attn::Mask mask = causal ? attn::Mask::causal() : attn::Mask{};
  auto run = [&] {
    return attn::scaled_dot_product_attention(in.Q(), in.K(), in.V(), mask, attn::default_scale(kD),
                                              attn::dense(weights.data(), n, n), in.O());
  };
  if (run() != attn::Status::ok) return state.SkipWithError("error status");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, causal ? 2.0 * n * n * kD : 4.0 * n * n * kD);
}

// The same with the untraced kernel the public call runs (blocked_attention), checked against the reference.
void BM_weights_blocked(benchmark::State& state) {
  const std::size_t n = state.range(0);
  const bool causal = state.range(1) != 0;
  Inputs in(n);
  std::vector<float> weights(n * n), scratch(attn::blocked_attention_scratch_floats(n, kD));
  const attn::Mask mask = causal ? attn::Mask::causal() : attn::Mask{};
  auto run = [&] {
    return attn::blocked_attention(in.Q(), in.K(), in.V(), mask, attn::default_scale(kD),
                                   attn::dense(weights.data(), n, n), in.O(), scratch.data());
  };
  if (run() != attn::Status::ok || !rows_match(in.q, in.k, in.v, in.out, n, [&](std::size_t i) {
        return std::pair<std::size_t, std::size_t>{0, causal ? i + 1 : n};
      }))
    return state.SkipWithError("wrong result");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, causal ? 2.0 * n * n * kD : 4.0 * n * n * kD);
}

void BM_local(benchmark::State& state) {
  const std::size_t n = state.range(0);
  const bool causal = state.range(1) != 0;
  Inputs in(n);
  auto run = [&] { return attn::local_attention(in.Q(), in.K(), in.V(), kWindow, causal, attn::default_scale(kD), in.O(), nullptr); };
  auto range = [&](std::size_t i) {
    const std::size_t lo = i + 1 > kWindow ? i + 1 - kWindow : 0;
    return std::pair<std::size_t, std::size_t>{lo, causal ? i + 1 : std::min(n, i + kWindow)};
  };
  if (run() != attn::Status::ok || !rows_match(in.q, in.k, in.v, in.out, n, range)) return state.SkipWithError("wrong result");
  double pairs = 0;
  for (std::size_t i = 0; i < n; ++i) pairs += double(range(i).second - range(i).first);
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, 4.0 * kD * pairs);
}

void BM_linear(benchmark::State& state) {
  const std::size_t n = state.range(0);
  const bool causal = state.range(1) != 0;
  Inputs in(n);
  std::vector<float> scratch(attn::linear_attention_scratch_size(kD, kD));
  auto run = [&] { return attn::linear_attention(in.Q(), in.K(), in.V(), causal, in.O(), scratch.data(), nullptr); };
  if (run() != attn::Status::ok) return state.SkipWithError("error status");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, 4.0 * n * kD * kD);
}

void BM_linformer(benchmark::State& state) {
  const std::size_t n = state.range(0);
  Inputs in(n);
  const float sigma = 1.0f / std::sqrt(float(n));
  const auto e = random_floats(kLinformerK * n, 7, sigma), f = random_floats(kLinformerK * n, 8, sigma);
  std::vector<float> scratch(attn::linformer_attention_scratch_size(kLinformerK, kD, kD));
  auto run = [&] {
    return attn::linformer_attention(in.Q(), in.K(), in.V(), attn::dense(e.data(), kLinformerK, n),
                                     attn::dense(f.data(), kLinformerK, n), attn::default_scale(kD), in.O(),
                                     scratch.data(), nullptr);
  };
  if (run() != attn::Status::ok) return state.SkipWithError("error status");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, 8.0 * kLinformerK * n * kD);
}

struct MultiHeadInputs {
  std::size_t n;
  std::vector<float> x, wq, wk, wv, wo, concat, out;
  explicit MultiHeadInputs(std::size_t n_)
      : n(n_), x(random_floats(n * kModel, 20)),
        wq(random_floats(kModel * kModel, 11, 1.0f / std::sqrt(float(kModel)))),
        wk(random_floats(kModel * kModel, 12, 1.0f / std::sqrt(float(kModel)))),
        wv(random_floats(kModel * kModel, 13, 1.0f / std::sqrt(float(kModel)))),
        wo(random_floats(kModel * kModel, 14, 1.0f / std::sqrt(float(kModel)))), concat(n * kModel), out(n * kModel) {}
  attn::ConstMatrixView W(const std::vector<float>& w) const { return attn::dense(w.data(), kModel, kModel); }
};

double multi_head_flops(std::size_t n) { return 8.0 * n * kModel * kModel + kHeads * 4.0 * n * n * (kModel / kHeads); }

// The reusable layer: weights packed once (createMultiHeadAttention's forward).
void BM_multi_head_layer(benchmark::State& state) {
  const std::size_t n = state.range(0);
  MultiHeadInputs in(n);
  const std::size_t dk = kModel / kHeads;
  std::vector<float> storage(attn::multi_head_layer_floats(kModel, kHeads, dk, dk, kModel));
  attn::MultiHeadLayer layer;
  if (attn::pack_multi_head(in.W(in.wq), in.W(in.wk), in.W(in.wv), in.W(in.wo), kHeads, storage.data(), layer) !=
      attn::Status::ok)
    return state.SkipWithError("pack failed");
  std::vector<float> scratch(attn::multi_head_forward_floats(layer, n));
  auto run = [&] {
    return attn::multi_head_forward(layer, attn::dense(in.x.data(), n, kModel), attn::Mask{},
                                    attn::dense(in.concat.data(), n, kModel), attn::dense(in.out.data(), n, kModel),
                                    scratch.data());
  };
  if (run() != attn::Status::ok) return state.SkipWithError("error status");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, multi_head_flops(n));
}

// The one-shot call (multiHeadAttention): per-head weights materialised.
void BM_multi_head_oneshot(benchmark::State& state) {
  const std::size_t n = state.range(0);
  MultiHeadInputs in(n);
  std::vector<float> q(n * kModel), k(n * kModel), v(n * kModel), weights(kHeads * n * n);
  const attn::MultiHeadBuffers buffers{{attn::dense(q.data(), n, kModel), attn::dense(k.data(), n, kModel),
                                        attn::dense(v.data(), n, kModel)},
                                       weights.data(),
                                       attn::dense(in.concat.data(), n, kModel),
                                       attn::dense(in.out.data(), n, kModel),
                                       {}};
  auto run = [&] {
    return attn::multi_head_attention(attn::dense(in.x.data(), n, kModel), kHeads, in.W(in.wq), in.W(in.wk),
                                      in.W(in.wv), in.W(in.wo), attn::Mask{}, buffers);
  };
  if (run() != attn::Status::ok) return state.SkipWithError("error status");
  for (auto _ : state) benchmark::DoNotOptimize(run());
  set_flops(state, multi_head_flops(n));
}

void single_head_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "causal"})->Unit(benchmark::kMillisecond);
  for (int n : {64, 256, 1024, 2048, 4096, 16384})
    for (int causal : {0, 1}) b->Args({n, causal});
}
void variant_shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "causal"})->Unit(benchmark::kMillisecond);
  for (int n : {1024, 4096, 16384})
    for (int causal : {0, 1}) b->Args({n, causal});
}

}  // namespace

BENCHMARK(BM_fused)->Apply(single_head_shapes);
BENCHMARK(BM_weights)->ArgNames({"n", "causal"})->Args({64, 0})->Args({256, 0})->Args({1024, 0})->Args({2048, 0})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_weights_blocked)->ArgNames({"n", "causal"})->Args({256, 0})->Args({1024, 0})->Args({1024, 1})->Args({2048, 0})->Args({2048, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_local)->Apply(variant_shapes);
BENCHMARK(BM_linear)->Apply(variant_shapes);
BENCHMARK(BM_linformer)->ArgName("n")->Arg(1024)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_multi_head_layer)->ArgName("n")->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_multi_head_oneshot)->ArgName("n")->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
