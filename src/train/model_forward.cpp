// The TransformerModel's forward and backward passes over a planned batch.
// Each stack is embedding + positions, then residual sublayers
//   post-norm: y = LN(x + f(x))      pre-norm: y = x + f(LN(x)), and a final LN
// with f a (masked) multi-head self-attention, the decoder's cross-attention
// over the encoder's output, or the position-wise FFN. The backward pass walks
// the same sublayers in reverse, the residual path adding its gradient to f's.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "attention.h"
#include "positional_encoding.h"
#include "train/embedding.h"
#include "train/layer_norm.h"
#include "train/linear.h"
#include "train/model_state.h"

namespace attn {
namespace {

constexpr float kEpsilon = 1e-5f;

enum class SubKind { self, cross, ffn };

MatrixView first_rows(MatrixView m, std::size_t rows) { return {m.data, rows, m.cols, m.stride}; }
MatrixView rows_of(MatrixView m, std::size_t first, std::size_t rows) {
  return {m.data + first * m.stride, rows, m.cols, m.stride};
}

// Hands out consecutive pieces of the arena (base nullptr: only counts).
class Carver {
 public:
  explicit Carver(float* base) : base_(base) {}
  float* take(std::size_t floats) {
    float* p = base_ ? base_ + used_ : nullptr;
    used_ += floats;
    return p;
  }
  MatrixView matrix(std::size_t rows, std::size_t cols) { return {take(rows * cols), rows, cols, cols}; }
  std::size_t used() const { return used_; }

 private:
  float* base_;
  std::size_t used_ = 0;
};

std::size_t per_layer(const StackOffsets& so) { return !so.layers.empty() && so.layers[0].has_cross ? 3 : 2; }

SubKind kind_at(const StackOffsets& so, std::size_t k) {
  const std::size_t i = k % per_layer(so);
  if (i == 0) return SubKind::self;
  return i == 1 && per_layer(so) == 3 ? SubKind::cross : SubKind::ffn;
}

NormOffsets norm_at(const StackOffsets& so, std::size_t k) {
  const LayerOffsets& l = so.layers[k / per_layer(so)];
  switch (kind_at(so, k)) {
    case SubKind::self: return l.attention_norm;
    case SubKind::cross: return l.cross_norm;
    case SubKind::ffn: return l.ffn_norm;
  }
  return l.ffn_norm;
}

void plan_stack(Carver& c, StackRun& run, const StackOffsets& so, const ModelConfig& cfg, std::size_t batch,
                std::size_t length, std::size_t memory_length) {
  const std::size_t d = cfg.d_model, rows = batch * length, subs = so.layers.size() * per_layer(so);
  run.batch = batch;
  run.length = length;
  run.rows = rows;
  run.streams.resize(subs + 1);
  run.subs.resize(subs);
  for (MatrixView& s : run.streams) s = c.matrix(rows, d);
  for (std::size_t k = 0; k < subs; ++k) {
    SublayerSaved& sv = run.subs[k];
    sv.aux = c.matrix(rows, d);
    sv.mean = c.take(rows);
    sv.rstd = c.take(rows);
    const SubKind kind = kind_at(so, k);
    if (kind == SubKind::ffn) {
      sv.ffn.hidden_pre = c.matrix(rows, cfg.d_ff);
      sv.ffn.hidden = c.matrix(rows, cfg.d_ff);
      continue;
    }
    const std::size_t m = kind == SubKind::self ? length : memory_length;
    sv.attention.q = c.matrix(rows, d);
    sv.attention.concat = c.matrix(rows, d);
    sv.attention.k = c.matrix(batch * m, d);
    sv.attention.v = c.matrix(batch * m, d);
    sv.attention.weights = c.take(batch * cfg.heads * length * m);
  }
  run.final_out = c.matrix(rows, d);
  run.final_mean = c.take(rows);
  run.final_rstd = c.take(rows);
  run.self_bits.resize(std::max(run.self_bits.size(), batch * length * length));
}

void plan_all(ModelState& s, Carver& c, std::size_t batch, std::size_t S, std::size_t T) {
  const ModelConfig& cfg = s.config;
  const std::size_t d = cfg.d_model, rows = std::max(batch * S, batch * T);
  if (S > 0) plan_stack(c, s.encoder, s.layout.encoder, cfg, batch, S, 0);
  plan_stack(c, s.decoder, s.layout.decoder, cfg, batch, T, S);
  s.logits = c.matrix(batch * T, cfg.vocab_size);
  s.f_out = c.matrix(rows, d);
  s.d_tmp = c.matrix(rows, d);
  s.d_stream = c.matrix(batch * T, d);
  s.d_memory = c.matrix(batch * S, d);
  s.d_hidden = c.matrix(rows, cfg.d_ff);
  s.attention_buffers = {c.matrix(rows, d), c.matrix(rows, d), c.matrix(rows, d), c.matrix(rows, d),
                         c.matrix(rows, d)};
  const bool additive = cfg.cross_scoring == CrossScoring::additive;
  std::size_t fwd = 0, bwd = 0;
  for (HeadShape shape : {HeadShape{1, S, S, cfg.heads, d}, HeadShape{1, T, T, cfg.heads, d},
                          HeadShape{1, T, S, cfg.heads, d, 1.0f, additive}}) {
    fwd = std::max(fwd, attention_forward_scratch_floats(shape));
    bwd = std::max(bwd, attention_backward_scratch_floats(shape));
  }
  s.forward_scratch = c.take(fwd);
  s.backward_scratch = c.take(bwd);
  s.pack_scratch = c.take(std::max(linear_pack_floats(d, cfg.d_ff), linear_pack_floats(d, cfg.vocab_size)));
}

HeadShape head_shape(const ModelState& s, SubKind kind, const StackRun& run) {
  const ModelConfig& cfg = s.config;
  const float scale = cfg.scaled ? default_scale(cfg.d_model / cfg.heads) : 1.0f;
  if (kind == SubKind::self) return {run.batch, run.length, run.length, cfg.heads, cfg.d_model, scale, false};
  return {run.batch, run.length, s.encoder.length, cfg.heads, cfg.d_model, scale,
          cfg.cross_scoring == CrossScoring::additive};
}

AttentionParams attention_params(const ModelState& s, const AttentionOffsets& a) {
  const float* p = s.params.data();
  const std::size_t d = s.config.d_model;
  AttentionParams ap{dense(p + a.w_q, d, d), dense(p + a.w_k, d, d), dense(p + a.w_v, d, d), dense(p + a.w_o, d, d)};
  if (a.additive) {
    ap.score_q = p + a.score_q;
    ap.score_k = p + a.score_k;
    ap.score_v = p + a.score_v;
  }
  return ap;
}

AttentionParamGrads attention_grads(ModelState& s, const AttentionOffsets& a) {
  float* g = s.grads.data();
  const std::size_t d = s.config.d_model;
  AttentionParamGrads ag{dense(g + a.w_q, d, d), dense(g + a.w_k, d, d), dense(g + a.w_v, d, d),
                         dense(g + a.w_o, d, d)};
  if (a.additive) {
    ag.dscore_q = g + a.score_q;
    ag.dscore_k = g + a.score_k;
    ag.dscore_v = g + a.score_v;
  }
  return ag;
}

FeedForwardWeights ffn_weights(const ModelState& s, const FeedForwardOffsets& f) {
  const float* p = s.params.data();
  const std::size_t d = s.config.d_model, h = s.config.d_ff;
  return {dense(p + f.w1, d, h), p + f.b1, dense(p + f.w2, h, d), p + f.b2};
}

const AttentionOffsets& attention_at(const StackOffsets& so, std::size_t k) {
  const LayerOffsets& l = so.layers[k / per_layer(so)];
  return kind_at(so, k) == SubKind::cross ? l.cross : l.attention;
}

const FeedForwardOffsets& ffn_at(const StackOffsets& so, std::size_t k) { return so.layers[k / per_layer(so)].ffn; }

bool is_pre(const ModelState& s) { return s.config.norm == NormPlacement::pre; }

// Mask bytes: key j is visible when it is not padding (and, causal, j ≤ i).
void fill_bits(std::uint8_t* bits, const std::int32_t* keys, std::size_t batch, std::size_t n, std::size_t m,
               std::int32_t pad, bool causal) {
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j)
        bits[(b * n + i) * m + j] = keys[b * m + j] != pad && (!causal || j <= i) ? 1 : 0;
}

Status embed_stack(ModelState& s, const StackOffsets& so, StackRun& run, const std::int32_t* ids) {
  const ModelConfig& cfg = s.config;
  const std::size_t d = cfg.d_model;
  const ConstMatrixView table = dense(s.params.data() + so.embedding, cfg.vocab_size, d);
  const ConstMatrixView positions = so.learned_positions ? dense(s.params.data() + so.positions, cfg.max_length, d)
                                                         : dense(s.sinusoid.data(), s.sinusoid_rows, d);
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(d)));
  for (std::size_t b = 0; b < run.batch; ++b)
    if (Status st = embed_forward(ids + b * run.length, run.length, table, scale, positions,
                                  rows_of(run.streams[0], b * run.length, run.length));
        st != Status::ok)
      return st;
  return Status::ok;
}

// Sublayer k: streams[k + 1] from streams[k].
Status forward_sublayer(ModelState& s, const StackOffsets& so, StackRun& run, std::size_t k,
                        const std::uint8_t* bits) {
  const bool pre = is_pre(s);
  const MatrixView x = run.streams[k], y = run.streams[k + 1];
  SublayerSaved& sv = run.subs[k];
  const NormOffsets norm = norm_at(so, k);
  const float* gamma = s.params.data() + norm.gamma;
  const float* beta = s.params.data() + norm.beta;
  if (pre)
    if (Status st = layer_norm_forward(x, gamma, beta, kEpsilon, sv.aux, sv.mean, sv.rstd); st != Status::ok)
      return st;
  const MatrixView f_in = pre ? sv.aux : x;
  const MatrixView f_out = pre ? y : first_rows(s.f_out, run.rows);
  const SubKind kind = kind_at(so, k);
  Status st;
  if (kind == SubKind::ffn) {
    st = feed_forward_forward(f_in, ffn_weights(s, ffn_at(so, k)), s.config.activation, sv.ffn, f_out,
                              s.pack_scratch);
  } else {
    const ConstMatrixView kv = kind == SubKind::self ? ConstMatrixView(f_in) : s.encoder.output(pre);
    st = model_attention_forward(f_in, kv, attention_params(s, attention_at(so, k)), head_shape(s, kind, run), bits,
                                 sv.attention, s.forward_scratch, f_out);
  }
  if (st != Status::ok) return st;
  if (pre) return add(x, y, y);
  if (Status st2 = add(x, f_out, sv.aux); st2 != Status::ok) return st2;
  return layer_norm_forward(sv.aux, gamma, beta, kEpsilon, y, sv.mean, sv.rstd);
}

Status forward_stack(ModelState& s, const StackOffsets& so, StackRun& run, const std::int32_t* ids) {
  if (Status st = embed_stack(s, so, run, ids); st != Status::ok) return st;
  for (std::size_t k = 0; k < run.subs.size(); ++k) {
    const std::uint8_t* bits = kind_at(so, k) == SubKind::cross ? s.cross_bits.data() : run.self_bits.data();
    if (Status st = forward_sublayer(s, so, run, k, bits); st != Status::ok) return st;
  }
  if (!so.final_norm_present) return Status::ok;
  return layer_norm_forward(run.streams.back(), s.params.data() + so.final_norm.gamma,
                            s.params.data() + so.final_norm.beta, kEpsilon, run.final_out, run.final_mean,
                            run.final_rstd);
}

// d holds ∂L/∂streams[k + 1] on entry and ∂L/∂streams[k] on return.
Status backward_sublayer(ModelState& s, const StackOffsets& so, StackRun& run, std::size_t k,
                         MatrixView d) {
  const bool pre = is_pre(s);
  const MatrixView x = run.streams[k];
  SublayerSaved& sv = run.subs[k];
  const NormOffsets norm = norm_at(so, k);
  const float* gamma = s.params.data() + norm.gamma;
  float* dgamma = s.grads.data() + norm.gamma;
  float* dbeta = s.grads.data() + norm.beta;
  if (!pre)
    if (Status st = layer_norm_backward(sv.aux, d, gamma, sv.mean, sv.rstd, d, dgamma, dbeta); st != Status::ok)
      return st;
  const MatrixView f_in = pre ? sv.aux : x;
  const MatrixView tmp = first_rows(s.d_tmp, run.rows);
  const SubKind kind = kind_at(so, k);
  Status st;
  if (kind == SubKind::ffn) {
    const FeedForwardOffsets& f = ffn_at(so, k);
    float* g = s.grads.data();
    const std::size_t dm = s.config.d_model, h = s.config.d_ff;
    const FeedForwardGradients fg{dense(g + f.w1, dm, h), g + f.b1, dense(g + f.w2, h, dm), g + f.b2};
    st = feed_forward_backward(f_in, ffn_weights(s, f), s.config.activation, sv.ffn, d, tmp, fg,
                               first_rows(s.d_hidden, run.rows), s.pack_scratch);
  } else {
    const HeadShape shape = head_shape(s, kind, run);
    const AttentionLayerBuffers& ab = s.attention_buffers;
    const std::size_t kv_rows = shape.batch * shape.m;
    const AttentionLayerBuffers buffers{first_rows(ab.d_concat, run.rows), first_rows(ab.dq, run.rows),
                                        first_rows(ab.dk, kv_rows), first_rows(ab.dv, kv_rows), ab.tmp};
    const bool self = kind == SubKind::self;
    const ConstMatrixView kv = self ? ConstMatrixView(f_in) : s.encoder.output(pre);
    const MatrixView d_kv = self ? tmp : s.d_memory;
    st = model_attention_backward(f_in, kv, attention_params(s, attention_at(so, k)), shape, sv.attention, d, tmp,
                                  d_kv, attention_grads(s, attention_at(so, k)), buffers, s.backward_scratch);
  }
  if (st != Status::ok) return st;
  if (pre)
    if (Status st2 = layer_norm_backward(x, tmp, gamma, sv.mean, sv.rstd, tmp, dgamma, dbeta); st2 != Status::ok)
      return st2;
  return add(d, tmp, d);
}

Status backward_stack(ModelState& s, const StackOffsets& so, StackRun& run, const std::int32_t* ids,
                      MatrixView d) {
  if (so.final_norm_present)
    if (Status st = layer_norm_backward(run.streams.back(), d, s.params.data() + so.final_norm.gamma,
                                        run.final_mean, run.final_rstd, d, s.grads.data() + so.final_norm.gamma,
                                        s.grads.data() + so.final_norm.beta);
        st != Status::ok)
      return st;
  for (std::size_t k = run.subs.size(); k-- > 0;)
    if (Status st = backward_sublayer(s, so, run, k, d); st != Status::ok) return st;
  const ModelConfig& cfg = s.config;
  const std::size_t dm = cfg.d_model;
  const MatrixView d_table = dense(s.grads.data() + so.embedding, cfg.vocab_size, dm);
  const MatrixView d_positions = so.learned_positions ? dense(s.grads.data() + so.positions, cfg.max_length, dm)
                                                      : MatrixView{};
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(dm)));
  for (std::size_t b = 0; b < run.batch; ++b)
    if (Status st = embed_backward(ids + b * run.length, run.length, rows_of(d, b * run.length, run.length), scale,
                                   d_table, d_positions);
        st != Status::ok)
      return st;
  return Status::ok;
}

}  // namespace

bool ids_in_range(const std::int32_t* ids, std::size_t count, std::size_t vocab) {
  for (std::size_t i = 0; i < count; ++i)
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= vocab) return false;
  return true;
}

double workspace_floats(const ModelConfig& c, std::size_t batch, std::size_t source_length, std::size_t length) {
  const double B = static_cast<double>(batch), S = static_cast<double>(source_length);
  const double T = static_cast<double>(length), d = static_cast<double>(c.d_model);
  const double ff = static_cast<double>(c.d_ff), H = static_cast<double>(c.heads);
  const double enc_rows = B * S, dec_rows = B * T, rows = std::max(enc_rows, dec_rows);
  const double norm = 2 * d + 2, attention = 4 * d, ffn = 2 * ff;
  const double enc_layer = enc_rows * (2 * norm + attention + ffn) + B * H * S * S;
  const double dec_layer = dec_rows * (3 * norm + attention + 2 * d + ffn) + 2 * B * S * d + B * H * T * (T + S);
  // An encoder-only model's stack runs where a decoder-only model's decoder does (dec_rows, no cross).
  const double encoder_layers = c.kind == ModelKind::encoder_decoder ? static_cast<double>(c.encoder_layers) : 0.0;
  const double stacks = encoder_layers * enc_layer + static_cast<double>(main_stack_layers(c)) * dec_layer;
  const double longest = std::max(S, T);
  const double scratch = 6 * longest * longest + 4 * longest * d + 3 * d * d;
  const double pack = (d + 8) * (std::max({d, ff, static_cast<double>(c.vocab_size)}) + 8);  // per scratch (3)
  // the last stream, the final norm, d_stream or d_memory: per stack
  return stacks + (enc_rows + dec_rows) * (3 * d + 2) + dec_rows * static_cast<double>(c.vocab_size) +
         rows * (8 * d + ff) + scratch + 3 * pack + longest * d;
}

void plan_workspace(ModelState& s, std::size_t batch, std::size_t S, std::size_t T) {
  const std::size_t longest = std::max(S, T);
  if (s.config.positions == PositionKind::sinusoidal && s.sinusoid_rows < longest) {
    s.sinusoid.resize(longest * s.config.d_model);
    positional_encoding(10000.0, dense(s.sinusoid.data(), longest, s.config.d_model));
    s.sinusoid_rows = longest;
  }
  Carver count(nullptr);
  plan_all(s, count, batch, S, T);
  if (s.arena.size() < count.used()) s.arena.resize(count.used());
  Carver carve(s.arena.data());
  plan_all(s, carve, batch, S, T);
  s.cross_bits.resize(std::max(s.cross_bits.size(), batch * T * S));
}

Status forward_pass(ModelState& s, const std::int32_t* source, const std::int32_t* input, bool encode, bool logits) {
  const ModelConfig& cfg = s.config;
  const bool pre = is_pre(s);
  const std::size_t B = s.decoder.batch, T = s.decoder.length;
  if (cfg.kind == ModelKind::encoder_decoder) {
    const std::size_t S = s.encoder.length;
    fill_bits(s.cross_bits.data(), source, B, T, S, cfg.pad_id, false);
    if (encode) {
      fill_bits(s.encoder.self_bits.data(), source, B, S, S, cfg.pad_id, false);
      if (Status st = forward_stack(s, s.layout.encoder, s.encoder, source); st != Status::ok) return st;
    }
  }
  // The decoder's self-attention is causal; an encoder-only model's stack sees every position.
  const bool causal = cfg.kind != ModelKind::encoder_only;
  fill_bits(s.decoder.self_bits.data(), input, B, T, T, cfg.pad_id, causal);
  if (Status st = forward_stack(s, s.layout.decoder, s.decoder, input); st != Status::ok) return st;
  if (!logits) return Status::ok;
  const float* p = s.params.data();
  return linear_forward(s.decoder.output(pre), dense(p + s.layout.output_w, cfg.d_model, cfg.vocab_size),
                        p + s.layout.output_b, s.logits, s.pack_scratch);
}

Status backward_pass(ModelState& s, const std::int32_t* source, const std::int32_t* input) {
  const ModelConfig& cfg = s.config;
  const bool pre = is_pre(s);
  float* g = s.grads.data();
  const MatrixView d_stream = first_rows(s.d_stream, s.decoder.rows);
  if (Status st = linear_backward(s.decoder.output(pre), dense(s.params.data() + s.layout.output_w, cfg.d_model,
                                                               cfg.vocab_size),
                                  s.logits, d_stream, dense(g + s.layout.output_w, cfg.d_model, cfg.vocab_size),
                                  g + s.layout.output_b, s.pack_scratch);
      st != Status::ok)
    return st;
  const bool seq2seq = cfg.kind == ModelKind::encoder_decoder;
  if (seq2seq)
    for (std::size_t i = 0; i < s.d_memory.rows; ++i) std::memset(s.d_memory.row(i), 0, cfg.d_model * sizeof(float));
  if (Status st = backward_stack(s, s.layout.decoder, s.decoder, input, d_stream); st != Status::ok) return st;
  if (!seq2seq) return Status::ok;
  return backward_stack(s, s.layout.encoder, s.encoder, source, s.d_memory);
}

}  // namespace attn
