// gpt: a small GPT-style decoder (libtorch, real ATen kernels, random weights) generating tokens
// autoregressively — an AIGC workload for `cann-profiler trace / diagnose / tune`.
//
//   <build>/examples/gpt                                   # the poor default configuration
//   <build>/examples/gpt --kv_cache prealloc --attention fused --threads 2
//   cann-profiler trace --output gpt.pb -- <build>/examples/gpt
//
// Model: 6 layers, d=384, 6 heads, vocabulary 8192, pre-LayerNorm blocks, GELU MLP, tied LM head;
// greedy decoding of --max_tokens tokens after a --prompt_len token prompt, --batch sequences at
// once. Each generated token is one step, marked with the SDK (CPROF_STEP) and printed as one JSON
// line; the last line is the summary the tuner reads:
//   {"latency_ms": mean step ms, "p99_ms": ..., "tokens_per_s": ..., "mem_mb": peak RSS, ...}
//
// Knobs (planted problems in the default in brackets):
//   --kv_cache prealloc|cat|none  [cat]   cat grows K/V by torch::cat each token: a full copy of
//                                         the cache per layer per token (allocation churn, O(T^2)
//                                         bytes); none recomputes the whole prefix each token.
//   --attention naive|fused       [naive] naive: separate q/k/v projections and a loop over
//                                         heads of small matmul/div/softmax/matmul ops (many tiny
//                                         operators); fused: one qkv projection and one batched
//                                         matmul + softmax + matmul over all heads.
//   --threads N                   [1]     intra-op threads (at::set_num_threads).
//   --batch B [4]  --max_tokens N [64]  --prompt_len P [32]  --seed S [0]
#include <sys/resource.h>
#include <time.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cann_profiler/cprof.h"

namespace {

constexpr int kLayers = 6;
constexpr int kDim = 384;
constexpr int kHeads = 6;
constexpr int kHeadDim = kDim / kHeads;
constexpr int kVocab = 8192;

struct Options {
  std::string kv_cache = "cat";
  std::string attention = "naive";
  int threads = 1;
  int batch = 4;
  int max_tokens = 64;
  int prompt_len = 32;
  int seed = 0;
};

// Parses --name value, --name=value (and --name-with-dashes); returns false with a message on
// anything else.
bool ParseFlags(int argc, char** argv, Options* o) {
  std::map<std::string, std::string> kv;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf(
          "usage: gpt [--kv_cache prealloc|cat|none] [--attention naive|fused] [--threads N]\n"
          "           [--batch B] [--max_tokens N] [--prompt_len P] [--seed S]\n");
      std::exit(0);
    }
    if (a.rfind("--", 0) != 0) {
      std::fprintf(stderr, "gpt: unexpected argument '%s'\n", a.c_str());
      return false;
    }
    a = a.substr(2);
    std::string value;
    if (auto eq = a.find('='); eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::fprintf(stderr, "gpt: --%s needs a value\n", a.c_str());
      return false;
    }
    std::replace(a.begin(), a.end(), '-', '_');
    if (a == "num_threads") a = "threads";  // the name `tune --from_diagnosis` uses
    kv[a] = value;
  }
  for (const auto& [k, v] : kv) {
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    bool is_int = !v.empty() && *end == '\0';
    if (k == "kv_cache") {
      o->kv_cache = v;
    } else if (k == "attention") {
      o->attention = v;
    } else if (k == "threads" && is_int) {
      o->threads = static_cast<int>(n);
    } else if (k == "batch" && is_int) {
      o->batch = static_cast<int>(n);
    } else if (k == "max_tokens" && is_int) {
      o->max_tokens = static_cast<int>(n);
    } else if (k == "prompt_len" && is_int) {
      o->prompt_len = static_cast<int>(n);
    } else if (k == "seed" && is_int) {
      o->seed = static_cast<int>(n);
    } else {
      std::fprintf(stderr, "gpt: bad flag --%s=%s\n", k.c_str(), v.c_str());
      return false;
    }
  }
  if (o->kv_cache != "prealloc" && o->kv_cache != "cat" && o->kv_cache != "none") {
    std::fprintf(stderr, "gpt: --kv_cache must be prealloc, cat or none\n");
    return false;
  }
  if (o->attention != "naive" && o->attention != "fused") {
    std::fprintf(stderr, "gpt: --attention must be naive or fused\n");
    return false;
  }
  if (o->threads < 1 || o->batch < 1 || o->max_tokens < 1 || o->prompt_len < 1) {
    std::fprintf(stderr, "gpt: --threads, --batch, --max_tokens, --prompt_len must be >= 1\n");
    return false;
  }
  return true;
}

torch::Tensor Param(std::vector<int64_t> shape, double scale) { return torch::randn(shape) * scale; }

struct Layer {
  torch::Tensor ln1_w, ln1_b, ln2_w, ln2_b;
  torch::Tensor w_qkv, b_qkv;  // fused projection [3D, D]
  // The same weights as one small projection per head and per q/k/v (naive path): [hd, D] each.
  std::vector<torch::Tensor> w_q, w_k, w_v, b_q, b_k, b_v;
  torch::Tensor w_o, b_o, w_fc, b_fc, w_out, b_out;
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
    tok_emb_ = Param({kVocab, kDim}, 0.02);
    pos_emb_ = Param({max_len, kDim}, 0.01);
    for (int l = 0; l < kLayers; ++l) {
      Layer L;
      L.ln1_w = torch::ones({kDim});
      L.ln1_b = torch::zeros({kDim});
      L.ln2_w = torch::ones({kDim});
      L.ln2_b = torch::zeros({kDim});
      L.w_qkv = Param({3 * kDim, kDim}, 0.02);
      L.b_qkv = torch::zeros({3 * kDim});
      for (int h = 0; h < kHeads; ++h) {
        auto rows = [&](int part) { return L.w_qkv.narrow(0, part * kDim + h * kHeadDim, kHeadDim).contiguous(); };
        auto bias = [&](int part) { return L.b_qkv.narrow(0, part * kDim + h * kHeadDim, kHeadDim).contiguous(); };
        L.w_q.push_back(rows(0));
        L.w_k.push_back(rows(1));
        L.w_v.push_back(rows(2));
        L.b_q.push_back(bias(0));
        L.b_k.push_back(bias(1));
        L.b_v.push_back(bias(2));
      }
      L.w_o = Param({kDim, kDim}, 0.02 / std::sqrt(2.0 * kLayers));
      L.b_o = torch::zeros({kDim});
      L.w_fc = Param({4 * kDim, kDim}, 0.02);
      L.b_fc = torch::zeros({4 * kDim});
      L.w_out = Param({kDim, 4 * kDim}, 0.02 / std::sqrt(2.0 * kLayers));
      L.b_out = torch::zeros({kDim});
      layers_.push_back(L);
    }
    lnf_w_ = torch::ones({kDim});
    lnf_b_ = torch::zeros({kDim});
    causal_ = torch::ones({max_len, max_len}, torch::kBool).triu(1);  // true = masked
  }

  void ResetCache() {
    caches_.assign(kLayers, std::vector<Cache>(o_.attention == "fused" ? 1 : kHeads));
  }

  // Logits of the last position for `tokens` [B, T] placed at positions [pos, pos+T).
  torch::Tensor Forward(const torch::Tensor& tokens, int64_t pos) {
    int64_t T = tokens.size(1);
    auto x = at::embedding(tok_emb_, tokens) + pos_emb_.narrow(0, pos, T);
    for (int l = 0; l < kLayers; ++l) {
      const Layer& L = layers_[l];
      auto h = at::layer_norm(x, {kDim}, L.ln1_w, L.ln1_b);
      x = x + (o_.attention == "fused" ? FusedAttention(L, caches_[l][0], h) : NaiveAttention(L, caches_[l], h));
      h = at::layer_norm(x, {kDim}, L.ln2_w, L.ln2_b);
      h = at::gelu(at::linear(h, L.w_fc, L.b_fc));
      x = x + at::linear(h, L.w_out, L.b_out);
    }
    x = at::layer_norm(x.select(1, T - 1), {kDim}, lnf_w_, lnf_b_);
    return at::linear(x, tok_emb_);  // tied LM head
  }

 private:
  // Appends k/v (sequence in dim -2) to the cache, if there is one, and returns the keys and
  // values to attend to.
  std::pair<torch::Tensor, torch::Tensor> UpdateCache(Cache& c, const torch::Tensor& k, const torch::Tensor& v) {
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
    auto qkv = at::linear(h, L.w_qkv, L.b_qkv).view({B, T, 3, kHeads, kHeadDim}).permute({2, 0, 3, 1, 4});
    auto [K, V] = UpdateCache(c, qkv[1], qkv[2]);  // [B, H, S, hd]
    auto att = at::matmul(qkv[0], K.transpose(-2, -1)).mul_(1.0 / std::sqrt(double(kHeadDim)));
    if (auto mask = Mask(T, K.size(2)); mask.defined()) att.masked_fill_(mask, -INFINITY);
    auto out = at::matmul(at::softmax(att, -1), V);  // [B, H, T, hd]
    return at::linear(out.transpose(1, 2).reshape({B, T, kDim}), L.w_o, L.b_o);
  }

  // What a first from-scratch implementation looks like: one module per head with its own
  // query/key/value projections and cache, the heads' outputs concatenated.
  torch::Tensor NaiveAttention(const Layer& L, std::vector<Cache>& caches, const torch::Tensor& h) {
    int64_t T = h.size(1);
    std::vector<torch::Tensor> heads;
    for (int hd = 0; hd < kHeads; ++hd) {
      auto q = at::linear(h, L.w_q[hd], L.b_q[hd]);  // [B, T, hd]
      auto [K, V] = UpdateCache(caches[hd], at::linear(h, L.w_k[hd], L.b_k[hd]), at::linear(h, L.w_v[hd], L.b_v[hd]));
      auto att = at::matmul(q, K.transpose(-2, -1));
      att = att / std::sqrt(static_cast<double>(kHeadDim));
      if (auto mask = Mask(T, K.size(1)); mask.defined()) att = att.masked_fill(mask, -INFINITY);
      att = at::softmax(att, -1);
      heads.push_back(at::matmul(att, V));
    }
    return at::linear(torch::cat(heads, -1), L.w_o, L.b_o);
  }

  Options o_;
  int64_t max_len_;
  torch::Tensor tok_emb_, pos_emb_, lnf_w_, lnf_b_, causal_;
  std::vector<Layer> layers_;
  std::vector<std::vector<Cache>> caches_;  // [layer][1 or head]
};

double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;  // KiB on Linux
}

// CPU time of the whole process (every thread), ms: with wall time it tells computing from
// waiting, and it is what a loaded machine disturbs least.
double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double Percentile(std::vector<double> v, double p) {  // linear interpolation (numpy's default)
  std::sort(v.begin(), v.end());
  double idx = p / 100.0 * (v.size() - 1);
  size_t lo = static_cast<size_t>(idx);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (idx - lo);
}

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
  double cpu_start = ProcessCpuMs();
  auto decode_start = Clock::now();
  for (int s = 0; s < o.max_tokens; ++s) {
    CPROF_STEP(s);
    auto t0 = Clock::now();
    torch::Tensor next;
    {
      CPROF_SCOPE("decode_token");
      next = logits.argmax(-1, /*keepdim=*/true);  // greedy
      int64_t pos = o.prompt_len + s;
      if (s + 1 < o.max_tokens) {
        if (o.kv_cache == "none") {
          seq = torch::cat({seq, next}, 1);
          logits = model.Forward(seq, 0);
        } else {
          logits = model.Forward(next, pos);
        }
      } else {
        seq = torch::cat({seq, next}, 1);  // the last token needs no forward pass
      }
    }
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    step_ms.push_back(ms);
    std::printf("{\"step\": %d, \"ms\": %.3f, \"token\": %lld}\n", s, ms,
                static_cast<long long>(next[0][0].item<int64_t>()));
  }
  CPROF_STEP(o.max_tokens);  // ends the last step
  double decode_s = std::chrono::duration<double>(Clock::now() - decode_start).count();
  double cpu_ms = (ProcessCpuMs() - cpu_start) / step_ms.size();
  double mean = 0;
  for (double v : step_ms) mean += v;
  mean /= step_ms.size();
  std::printf(
      "{\"latency_ms\": %.4f, \"p99_ms\": %.4f, \"cpu_ms\": %.4f, \"tokens_per_s\": %.2f, \"mem_mb\": %.1f, "
      "\"prefill_ms\": %.3f, \"steps\": %d, \"batch\": %d, \"threads\": %d, \"kv_cache\": \"%s\", "
      "\"attention\": \"%s\"}\n",
      mean, Percentile(step_ms, 99), cpu_ms, o.batch * o.max_tokens / decode_s, PeakRssMb(), prefill_ms,
      o.max_tokens, o.batch, o.threads, o.kv_cache.c_str(), o.attention.c_str());
  std::fflush(stdout);
  return 0;
}
