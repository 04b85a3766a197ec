// gpt: a small GPT-style decoder (libtorch, real ATen kernels, random weights) generating tokens
// autoregressively — an AIGC workload for `cann-profiler trace / diagnose / tune`.
//
//   <build>/examples/gpt                                   # the poor default configuration
//   <build>/examples/gpt --linear onednn --kv_cache prealloc --attention fused --threads 2
//   cann-profiler trace --output gpt.pb -- <build>/examples/gpt
//
// Model: 6 layers, d=384, 6 heads, vocabulary 8192, pre-LayerNorm blocks, GELU MLP, tied LM head;
// greedy decoding of --max_tokens tokens after a --prompt_len token prompt, --batch sequences at
// once. Each generated token is one step, marked with the SDK (a span "ProfilerStep#N") and
// printed as one JSON line; the last line is the summary the tuner reads:
//   {"latency_ms": mean step ms, "p99_ms": ..., "cpu_ms": process CPU ms per step,
//    "tokens_per_s": ..., "mem_mb": peak RSS, ...}
//
// Knobs (planted problems in the default in brackets):
//   --linear blas|onednn          [blas]  blas: at::linear, i.e. the BLAS libtorch links — on
//                                         Debian that is the reference BLAS (unblocked,
//                                         single-threaded): most of the default's time;
//                                         onednn: oneDNN's inner product (at::mkldnn_linear), the
//                                         JIT kernels libtorch already ships for convolutions.
//   --kv_cache prealloc|cat|none  [cat]   cat grows K/V by torch::cat each token: a full copy of
//                                         the cache per layer per token (allocation churn, O(T^2)
//                                         bytes); none recomputes the whole prefix each token.
//   --attention naive|fused       [naive] naive: one module per head with its own q/k/v
//                                         projections and cache, many tiny operators; fused: one
//                                         qkv projection and one batched matmul + softmax + matmul
//                                         over all heads.
//   --threads N                   [1]     intra-op threads (at::set_num_threads).
//   --batch B [4]  --max_tokens N [64]  --prompt_len P [16]  --seed S [0]
#include <sys/resource.h>
#include <time.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cann_profiler/cprof.h"
#include "workload_util.h"

namespace {

constexpr int kLayers = 6;
constexpr int kDim = 384;
constexpr int kHeads = 6;
constexpr int kHeadDim = kDim / kHeads;
constexpr int kVocab = 8192;

struct Options {
  std::string kv_cache = "cat";
  std::string attention = "naive";
  std::string linear = "blas";
  int threads = 1;
  int batch = 4;
  int max_tokens = 64;
  int prompt_len = 16;
  int seed = 0;
};

constexpr char kUsage[] =
    "usage: gpt [--kv_cache prealloc|cat|none] [--attention naive|fused] [--linear blas|onednn]\n"
    "           [--threads N]\n"
    "           [--batch B] [--max_tokens N] [--prompt_len P] [--seed S]\n";

// Parses the flags into `o`; returns false with a message on anything else.
bool ParseFlags(int argc, char** argv, Options* o) {
  std::map<std::string, std::string> kv;
  if (!aigc::SplitFlags(argc, argv, "gpt", kUsage, &kv)) return false;
  if (!aigc::AssignFlags(kv, "gpt",
                         {{"kv_cache", &o->kv_cache}, {"attention", &o->attention}, {"linear", &o->linear}},
                         {{"threads", &o->threads},
                          {"batch", &o->batch},
                          {"max_tokens", &o->max_tokens},
                          {"prompt_len", &o->prompt_len},
                          {"seed", &o->seed}})) {
    return false;
  }
  if (o->kv_cache != "prealloc" && o->kv_cache != "cat" && o->kv_cache != "none") {
    std::fprintf(stderr, "gpt: --kv_cache must be prealloc, cat or none\n");
    return false;
  }
  if (o->attention != "naive" && o->attention != "fused") {
    std::fprintf(stderr, "gpt: --attention must be naive or fused\n");
    return false;
  }
  if (o->linear != "blas" && o->linear != "onednn") {
    std::fprintf(stderr, "gpt: --linear must be blas or onednn\n");
    return false;
  }
  if (o->threads < 1 || o->batch < 1 || o->max_tokens < 1 || o->prompt_len < 1) {
    std::fprintf(stderr, "gpt: --threads, --batch, --max_tokens, --prompt_len must be >= 1\n");
    return false;
  }
  return true;
}

torch::Tensor Param(std::vector<int64_t> shape, double scale) { return torch::randn(shape) * scale; }

// A linear layer on either backend. at::linear runs the BLAS that libtorch links (Debian's
// libtorch: the reference BLAS, single-threaded and unblocked); oneDNN's inner product
// (at::mkldnn_linear) runs the JIT kernels the convolutions use, on every intra-op thread, at the
// cost of converting the input to and the output from oneDNN's tensor type on each call.
struct Linear {
  torch::Tensor w, b, w_mkl, b_mkl;
  bool onednn = false;

  Linear() = default;
  Linear(torch::Tensor weight, torch::Tensor bias, bool use_onednn)
      : w(std::move(weight)), b(std::move(bias)), onednn(use_onednn) {
    if (onednn) {
      w_mkl = w.to_mkldnn();
      if (b.defined()) b_mkl = b.to_mkldnn();
    }
  }

  torch::Tensor operator()(const torch::Tensor& x) const {
    if (!onednn) return at::linear(x, w, b);
    auto sizes = x.sizes().vec();
    auto y = at::mkldnn_linear(x.reshape({-1, sizes.back()}).to_mkldnn(), w_mkl, b_mkl).to_dense();
    sizes.back() = w.size(0);
    return y.view(sizes);
  }
};

struct Layer {
  torch::Tensor ln1_w, ln1_b, ln2_w, ln2_b;
  Linear qkv;  // fused projection [3D, D]
  // The same weights as one small projection per head and per q/k/v (naive path): [hd, D] each.
  std::vector<Linear> q, k, v;
  Linear o, fc, out;
};

// Keys and values seen so far, sequence in dim -2: [B, H, T, hd] (fused) or [B, T, hd] (one per
// head, naive). prealloc: allocated once for max_len positions and filled in place.
struct Cache {
  torch::Tensor k, v;
  int64_t len = 0;
};

class Gpt {
 public:
  Gpt(const Options& o, int64_t max_len) : o_(o), max_len_(max_len) {
    const bool onednn = o.linear == "onednn";
    tok_emb_ = Param({kVocab, kDim}, 0.02);
    lm_head_ = Linear(tok_emb_, torch::Tensor(), onednn);  // tied to the embedding
    pos_emb_ = Param({max_len, kDim}, 0.01);
    for (int l = 0; l < kLayers; ++l) {
      Layer L;
      L.ln1_w = torch::ones({kDim});
      L.ln1_b = torch::zeros({kDim});
      L.ln2_w = torch::ones({kDim});
      L.ln2_b = torch::zeros({kDim});
      auto w_qkv = Param({3 * kDim, kDim}, 0.02);
      auto b_qkv = torch::zeros({3 * kDim});
      L.qkv = Linear(w_qkv, b_qkv, onednn);
      for (int h = 0; h < kHeads; ++h) {
        auto part = [&](int i) {
          int64_t row = i * kDim + h * kHeadDim;
          return Linear(w_qkv.narrow(0, row, kHeadDim).contiguous(),
                        b_qkv.narrow(0, row, kHeadDim).contiguous(), onednn);
        };
        L.q.push_back(part(0));
        L.k.push_back(part(1));
        L.v.push_back(part(2));
      }
      const double out_scale = 0.02 / std::sqrt(2.0 * kLayers);
      L.o = Linear(Param({kDim, kDim}, out_scale), torch::zeros({kDim}), onednn);
      L.fc = Linear(Param({4 * kDim, kDim}, 0.02), torch::zeros({4 * kDim}), onednn);
      L.out = Linear(Param({kDim, 4 * kDim}, out_scale), torch::zeros({kDim}), onednn);
      layers_.push_back(L);
    }
    lnf_w_ = torch::ones({kDim});
    lnf_b_ = torch::zeros({kDim});
    causal_ = torch::ones({max_len, max_len}, torch::kBool).triu(1);  // true = masked
  }

  void ResetCache() { caches_.assign(kLayers, std::vector<Cache>(o_.attention == "fused" ? 1 : kHeads)); }

  // Logits of the last position for `tokens` [B, T] placed at positions [pos, pos+T).
  torch::Tensor Forward(const torch::Tensor& tokens, int64_t pos) {
    int64_t T = tokens.size(1);
    auto x = at::embedding(tok_emb_, tokens) + pos_emb_.narrow(0, pos, T);
    for (int l = 0; l < kLayers; ++l) {
      const Layer& L = layers_[l];
      auto h = at::layer_norm(x, {kDim}, L.ln1_w, L.ln1_b);
      x = x +
          (o_.attention == "fused" ? FusedAttention(L, caches_[l][0], h) : NaiveAttention(L, caches_[l], h));
      h = at::layer_norm(x, {kDim}, L.ln2_w, L.ln2_b);
      x = x + L.out(at::gelu(L.fc(h)));
    }
    x = at::layer_norm(x.select(1, T - 1), {kDim}, lnf_w_, lnf_b_);
    return lm_head_(x);
  }

 private:
  // Appends k/v (sequence in dim -2) to the cache, if there is one, and returns the keys and
  // values to attend to.
  std::pair<torch::Tensor, torch::Tensor> UpdateCache(Cache& c, const torch::Tensor& k,
                                                      const torch::Tensor& v) {
    const int64_t seq_dim = k.dim() - 2;
    const int64_t T = k.size(seq_dim);
    if (o_.kv_cache == "none") return {k, v};
    if (o_.kv_cache == "cat") {
      if (c.len == 0) {
        c.k = k.contiguous();
        c.v = v.contiguous();
      } else {
        c.k = torch::cat({c.k, k}, seq_dim);
        c.v = torch::cat({c.v, v}, seq_dim);
      }
      c.len += T;
      return {c.k, c.v};
    }
    if (!c.k.defined()) {
      auto shape = k.sizes().vec();
      shape[seq_dim] = max_len_;
      c.k = torch::empty(shape);
      c.v = torch::empty(shape);
    }
    c.k.narrow(seq_dim, c.len, T).copy_(k);
    c.v.narrow(seq_dim, c.len, T).copy_(v);
    c.len += T;
    return {c.k.narrow(seq_dim, 0, c.len), c.v.narrow(seq_dim, 0, c.len)};
  }

  // Rows of the causal mask for T queries over S keys (the queries are the last T positions);
  // undefined when T == 1 (the newest token sees every key).
  torch::Tensor Mask(int64_t T, int64_t S) const {
    if (T == 1) return {};
    return causal_.narrow(0, S - T, T).narrow(1, 0, S);
  }

  // One qkv projection, one batched matmul + softmax + matmul over all heads.
  torch::Tensor FusedAttention(const Layer& L, Cache& c, const torch::Tensor& h) {
    int64_t B = h.size(0), T = h.size(1);
    auto qkv = L.qkv(h).view({B, T, 3, kHeads, kHeadDim}).permute({2, 0, 3, 1, 4});
    auto [K, V] = UpdateCache(c, qkv[1], qkv[2]);  // [B, H, S, hd]
    auto att = at::matmul(qkv[0], K.transpose(-2, -1)).mul_(1.0 / std::sqrt(double(kHeadDim)));
    if (auto mask = Mask(T, K.size(2)); mask.defined()) att.masked_fill_(mask, -INFINITY);
    auto out = at::matmul(at::softmax(att, -1), V);  // [B, H, T, hd]
    return L.o(out.transpose(1, 2).reshape({B, T, kDim}));
  }

  // What a first from-scratch implementation looks like: one module per head with its own
  // query/key/value projections and cache, the heads' outputs concatenated.
  torch::Tensor NaiveAttention(const Layer& L, std::vector<Cache>& caches, const torch::Tensor& h) {
    int64_t T = h.size(1);
    std::vector<torch::Tensor> heads;
    for (int hd = 0; hd < kHeads; ++hd) {
      auto q = L.q[hd](h);  // [B, T, hd]
      auto [K, V] = UpdateCache(caches[hd], L.k[hd](h), L.v[hd](h));
      auto att = at::matmul(q, K.transpose(-2, -1));
      att = att / std::sqrt(static_cast<double>(kHeadDim));
      if (auto mask = Mask(T, K.size(1)); mask.defined()) att = att.masked_fill(mask, -INFINITY);
      att = at::softmax(att, -1);
      heads.push_back(at::matmul(att, V));
    }
    return L.o(torch::cat(heads, -1));
  }

  Options o_;
  int64_t max_len_;
  torch::Tensor tok_emb_, pos_emb_, lnf_w_, lnf_b_, causal_;
  Linear lm_head_;
  std::vector<Layer> layers_;
  std::vector<std::vector<Cache>> caches_;  // [layer][1 or head]
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseFlags(argc, argv, &o)) return 2;
  at::set_num_threads(o.threads);
  torch::manual_seed(o.seed);
  torch::NoGradGuard no_grad;
  using Clock = std::chrono::steady_clock;
  const int64_t max_len = o.prompt_len + o.max_tokens;
  Gpt model(o, max_len);

  // Warm-up: one short generation (allocator, oneDNN/BLAS state), not measured.
  {
    model.ResetCache();
    auto t = torch::randint(kVocab, {o.batch, 4}, torch::kLong);
    model.Forward(t, 0);
  }

  auto prompt = torch::randint(kVocab, {o.batch, o.prompt_len}, torch::kLong);
  model.ResetCache();
  auto run_start = Clock::now();
  torch::Tensor logits;
  {
    CPROF_SCOPE("prefill");
    logits = model.Forward(prompt, 0);
  }
  double prefill_ms = std::chrono::duration<double, std::milli>(Clock::now() - run_start).count();
  auto seq = prompt;
  std::vector<double> step_ms;
  double cpu_start = aigc::ProcessCpuMs();
  auto decode_start = Clock::now();
  for (int s = 0; s < o.max_tokens; ++s) {
    // A span named ProfilerStep#<s>, which the step detector reads like cprof_step(s) but
    // which ends exactly here (cprof_step's last step would run on to the process's last record).
    cprof::ScopedSpan step_span(cprof_name(("ProfilerStep#" + std::to_string(s)).c_str()));
    auto t0 = Clock::now();
    torch::Tensor next;
    {
      CPROF_SCOPE("decode_token");
      next = logits.argmax(-1, /*keepdim=*/true);  // greedy
      if (o.kv_cache == "none") {
        seq = torch::cat({seq, next}, 1);
        logits = model.Forward(seq, 0);  // the whole sequence again
      } else {
        logits = model.Forward(next, o.prompt_len + s);
      }
    }
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    step_ms.push_back(ms);
    std::printf("{\"step\": %d, \"ms\": %.3f, \"token\": %lld}\n", s, ms,
                static_cast<long long>(next[0][0].item<int64_t>()));
  }
  double decode_s = std::chrono::duration<double>(Clock::now() - decode_start).count();
  double cpu_ms = (aigc::ProcessCpuMs() - cpu_start) / step_ms.size();
  double mean = 0;
  for (double v : step_ms) mean += v;
  mean /= step_ms.size();
  std::printf(
      "{\"latency_ms\": %.4f, \"p99_ms\": %.4f, \"cpu_ms\": %.4f, \"tokens_per_s\": %.2f, \"mem_mb\": %.1f, "
      "\"prefill_ms\": %.3f, \"steps\": %d, \"batch\": %d, \"threads\": %d, \"kv_cache\": \"%s\", "
      "\"attention\": \"%s\", \"linear\": \"%s\"}\n",
      mean, aigc::Percentile(step_ms, 99), cpu_ms, o.batch * o.max_tokens / decode_s, aigc::PeakRssMb(),
      prefill_ms, o.max_tokens, o.batch, o.threads, o.kv_cache.c_str(), o.attention.c_str(),
      o.linear.c_str());
  std::fflush(stdout);
  return 0;
}
