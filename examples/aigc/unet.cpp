// unet: a small UNet denoiser (libtorch, real ATen kernels, random weights) run for N denoising
// steps as in Stable Diffusion's latent sampler — an AIGC workload for `cann-profiler trace /
// diagnose / tune`.
//
//   <build>/examples/unet                                  # the poor default configuration
//   <build>/examples/unet --memory_format channels_last --fused_conv 1 --threads 2
//   cann-profiler trace --output unet.pb -- <build>/examples/unet
//
// Model: 4-channel latents, base width --channels (64), three resolution levels (x1, x2, x2),
// each with a residual block (conv, GroupNorm, SiLU, timestep embedding) and a strided-conv
// downsample; a middle of residual block, single-head self-attention over the lowest resolution,
// residual block; an upsampling path (nearest + conv) that concatenates the skip connections.
// Each denoising step is one step, marked with the SDK (a span "ProfilerStep#N") and printed as
// one JSON line; the last line is the summary the tuner reads:
//   {"latency_ms": mean step ms, "p99_ms": ..., "cpu_ms": process CPU ms per step,
//    "images_per_s": ..., "mem_mb": peak RSS, ...}
//
// Knobs (planted problems in the default in brackets):
//   --memory_format contiguous|channels_last|mixed  [mixed]  mixed: blocks alternate between
//        NCHW and NHWC (as when one submodule was converted and the rest was not), so every block
//        boundary copies its activations to the other layout; contiguous NCHW makes oneDNN reorder
//        activations inside every convolution; channels_last runs oneDNN on NHWC directly.
//   --fused_conv 0|1  [0]  0: conv without bias, then a separate bias add and SiLU spelled out as
//        x * sigmoid(x) (four operators and three extra activation-sized tensors per conv); 1: the
//        bias inside the convolution and at::silu_ in place.
//   --threads N  [1]  intra-op threads (at::set_num_threads).
//   --heap os|keep  [os]  os: glibc's defaults, which hand freed activation memory back to the OS
//        (munmap above the mmap threshold, heap trim) so the next step page-faults it back in;
//        keep: the mmap threshold at its 32 MiB maximum and the trim threshold at 1 GiB, the same as
//        MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824 in the environment.
//   --batch B [2]  --image_size S [32] (latent side)  --steps N [20]  --channels C [64]  --seed S
#include <malloc.h>
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

constexpr int kLatentChannels = 4;
constexpr int kGroups = 8;

struct Options {
  std::string memory_format = "mixed";
  std::string heap = "os";
  int fused_conv = 0;
  int threads = 1;
  int batch = 2;
  int image_size = 32;
  int steps = 20;
  int channels = 64;
  int seed = 0;
};

constexpr char kUsage[] =
    "usage: unet [--memory_format contiguous|channels_last|mixed] [--fused_conv 0|1]\n"
    "            [--threads N] [--batch B] [--image_size S] [--steps N] [--channels C]\n"
    "            [--seed S] [--heap os|keep]\n";

// Parses the flags into `o`; returns false with a message on anything else.
bool ParseFlags(int argc, char** argv, Options* o) {
  std::map<std::string, std::string> kv;
  if (!aigc::SplitFlags(argc, argv, "unet", kUsage, &kv)) return false;
  if (!aigc::AssignFlags(kv, "unet", {{"memory_format", &o->memory_format}, {"heap", &o->heap}},
                         {{"fused_conv", &o->fused_conv},
                          {"threads", &o->threads},
                          {"batch", &o->batch},
                          {"image_size", &o->image_size},
                          {"steps", &o->steps},
                          {"channels", &o->channels},
                          {"seed", &o->seed}})) {
    return false;
  }
  if (o->memory_format == "contiguous_format") o->memory_format = "contiguous";  // torch's spelling too
  if (o->memory_format != "contiguous" && o->memory_format != "channels_last" &&
      o->memory_format != "mixed") {
    std::fprintf(stderr, "unet: --memory_format must be contiguous, channels_last or mixed\n");
    return false;
  }
  if (o->heap != "os" && o->heap != "keep") {
    std::fprintf(stderr, "unet: --heap must be os or keep\n");
    return false;
  }
  if (o->fused_conv != 0 && o->fused_conv != 1) {
    std::fprintf(stderr, "unet: --fused_conv must be 0 or 1\n");
    return false;
  }
  if (o->threads < 1 || o->batch < 1 || o->steps < 1 || o->channels < kGroups || o->channels % kGroups != 0 ||
      o->image_size < 8 || o->image_size % 4 != 0) {
    std::fprintf(stderr,
                 "unet: need --threads, --batch, --steps >= 1, --channels a multiple of %d, "
                 "--image_size a multiple of 4 (>= 8)\n",
                 kGroups);
    return false;
  }
  return true;
}

// Where one block's tensors live; `mixed` alternates per block index.
class Layouts {
 public:
  explicit Layouts(const std::string& mode) : mode_(mode) {}
  c10::MemoryFormat Next() {
    int i = next_++;
    if (mode_ == "channels_last") return c10::MemoryFormat::ChannelsLast;
    if (mode_ == "contiguous") return c10::MemoryFormat::Contiguous;
    return i % 2 ? c10::MemoryFormat::ChannelsLast : c10::MemoryFormat::Contiguous;
  }

 private:
  std::string mode_;
  int next_ = 0;
};

struct Conv {
  torch::Tensor w, b;
  int64_t stride = 1, padding = 1;
  bool fused = false;

  Conv() = default;
  Conv(int64_t cin, int64_t cout, int64_t k, int64_t s, bool f, c10::MemoryFormat fmt)
      : stride(s), padding(k / 2), fused(f) {
    w = (torch::randn({cout, cin, k, k}) * std::sqrt(1.0 / (cin * k * k))).contiguous(fmt);
    b = torch::randn({cout}) * 0.01;
  }

  // conv + bias (+ SiLU when `act`).
  torch::Tensor operator()(const torch::Tensor& x, bool act) const {
    if (fused) {
      auto y = at::conv2d(x, w, b, {stride, stride}, {padding, padding});
      return act ? at::silu_(y) : y;
    }
    auto y = at::conv2d(x, w, {}, {stride, stride}, {padding, padding});
    y = y + b.view({1, -1, 1, 1});
    return act ? y * at::sigmoid(y) : y;  // SiLU spelled out, as older code does
  }
};

struct Norm {
  torch::Tensor w, b;
  Norm() = default;
  explicit Norm(int64_t c) : w(torch::ones({c})), b(torch::zeros({c})) {}
  torch::Tensor operator()(const torch::Tensor& x) const { return at::group_norm(x, kGroups, w, b); }
};

// conv(+SiLU) -> + timestep projection -> GroupNorm -> conv(+SiLU) -> + skip.
struct ResBlock {
  c10::MemoryFormat fmt;
  Conv conv1, conv2, skip;
  Norm norm;
  torch::Tensor temb_w, temb_b;
  bool has_skip = false;

  ResBlock(int64_t cin, int64_t cout, int64_t temb_dim, bool fused, Layouts& layouts)
      : fmt(layouts.Next()),
        conv1(cin, cout, 3, 1, fused, fmt),
        conv2(cout, cout, 3, 1, fused, fmt),
        norm(cout),
        temb_w(torch::randn({cout, temb_dim}) * std::sqrt(1.0 / temb_dim)),
        temb_b(torch::zeros({cout})),
        has_skip(cin != cout) {
    if (has_skip) skip = Conv(cin, cout, 1, 1, fused, fmt);
  }

  torch::Tensor operator()(torch::Tensor x, const torch::Tensor& temb) const {
    x = x.contiguous(fmt);
    auto h = conv1(x, true);
    h = h + at::linear(temb, temb_w, temb_b).unsqueeze(-1).unsqueeze(-1);
    h = conv2(norm(h), true);
    return (has_skip ? skip(x, false) : x) + h;
  }
};

// Single-head self-attention over the H*W positions.
struct AttnBlock {
  c10::MemoryFormat fmt;
  Norm norm;
  Conv qkv, proj;

  AttnBlock(int64_t c, bool fused, Layouts& layouts)
      : fmt(layouts.Next()), norm(c), qkv(c, 3 * c, 1, 1, fused, fmt), proj(c, c, 1, 1, fused, fmt) {}

  torch::Tensor operator()(torch::Tensor x) const {
    x = x.contiguous(fmt);
    int64_t B = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    auto t = qkv(norm(x), false).reshape({B, 3, C, H * W});
    auto q = t.select(1, 0), k = t.select(1, 1), v = t.select(1, 2);  // [B, C, N]
    auto att = at::softmax(at::bmm(q.transpose(1, 2), k) * (1.0 / std::sqrt(double(C))), -1);
    auto out = at::bmm(v, att.transpose(1, 2)).reshape({B, C, H, W}).contiguous(fmt);
    return x + proj(out, false);
  }
};

struct Resample {
  c10::MemoryFormat fmt;
  Conv conv;
  bool up;
  Resample(int64_t c, bool up_, bool fused, Layouts& layouts)
      : fmt(layouts.Next()), conv(c, c, 3, up_ ? 1 : 2, fused, fmt), up(up_) {}
  torch::Tensor operator()(torch::Tensor x) const {
    x = x.contiguous(fmt);
    if (up) x = at::upsample_nearest2d(x, {x.size(2) * 2, x.size(3) * 2});
    return conv(x, false);
  }
};

class UNet {
 public:
  explicit UNet(const Options& o) : c_(o.channels), temb_dim_(4 * o.channels) {
    bool f = o.fused_conv != 0;
    Layouts layouts(o.memory_format);
    in_fmt_ = layouts.Next();
    in_conv_ = Conv(kLatentChannels, c_, 3, 1, f, in_fmt_);
    t1_w_ = torch::randn({temb_dim_, c_}) * std::sqrt(1.0 / c_);
    t1_b_ = torch::zeros({temb_dim_});
    t2_w_ = torch::randn({temb_dim_, temb_dim_}) * std::sqrt(1.0 / temb_dim_);
    t2_b_ = torch::zeros({temb_dim_});
    const std::vector<int64_t> mult = {1, 2, 2};
    int64_t ch = c_;
    std::vector<int64_t> skip_ch = {ch};
    for (size_t i = 0; i < mult.size(); ++i) {
      down_.emplace_back(ch, c_ * mult[i], temb_dim_, f, layouts);
      ch = c_ * mult[i];
      skip_ch.push_back(ch);
      if (i + 1 < mult.size()) down_sample_.emplace_back(ch, false, f, layouts);
    }
    mid1_.emplace_back(ch, ch, temb_dim_, f, layouts);
    attn_.emplace_back(ch, f, layouts);
    mid2_.emplace_back(ch, ch, temb_dim_, f, layouts);
    for (size_t j = 0; j < mult.size(); ++j) {
      size_t i = mult.size() - 1 - j;
      int64_t skip = skip_ch.back();
      skip_ch.pop_back();
      up_.emplace_back(ch + skip, c_ * mult[i], temb_dim_, f, layouts);
      ch = c_ * mult[i];
      if (i > 0) up_sample_.emplace_back(ch, true, f, layouts);
    }
    out_fmt_ = layouts.Next();
    out_norm_ = Norm(ch);
    out_conv_ = Conv(ch, kLatentChannels, 3, 1, f, out_fmt_);
  }

  // Predicted noise for latents x [B, 4, S, S] at timestep t.
  torch::Tensor operator()(const torch::Tensor& x, double t) const {
    int64_t B = x.size(0);
    // Sinusoidal timestep embedding -> MLP.
    auto freqs = torch::exp(torch::arange(c_ / 2, torch::kFloat) * (-std::log(10000.0) / (c_ / 2)));
    auto args = freqs * t;
    auto temb = torch::cat({torch::sin(args), torch::cos(args)}).unsqueeze(0).expand({B, c_});
    temb = at::linear(at::silu(at::linear(temb, t1_w_, t1_b_)), t2_w_, t2_b_);
    temb = at::silu(temb);

    std::vector<torch::Tensor> skips;
    auto h = in_conv_(x.contiguous(in_fmt_), false);
    skips.push_back(h);
    for (size_t i = 0; i < down_.size(); ++i) {
      {
        CPROF_SCOPE("down_block");
        h = down_[i](h, temb);
      }
      skips.push_back(h);
      if (i < down_sample_.size()) h = down_sample_[i](h);
    }
    {
      CPROF_SCOPE("mid_block");
      h = mid1_[0](h, temb);
      h = attn_[0](h);
      h = mid2_[0](h, temb);
    }
    for (size_t j = 0; j < up_.size(); ++j) {
      CPROF_SCOPE("up_block");
      h = up_[j](torch::cat({h, skips.back()}, 1), temb);
      skips.pop_back();
      if (j < up_sample_.size()) h = up_sample_[j](h);
    }
    return out_conv_(at::silu(out_norm_(h.contiguous(out_fmt_))), false);
  }

 private:
  int64_t c_, temb_dim_;
  c10::MemoryFormat in_fmt_, out_fmt_;
  Conv in_conv_, out_conv_;
  Norm out_norm_;
  torch::Tensor t1_w_, t1_b_, t2_w_, t2_b_;
  std::vector<ResBlock> down_, mid1_, mid2_, up_;
  std::vector<AttnBlock> attn_;
  std::vector<Resample> down_sample_, up_sample_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseFlags(argc, argv, &o)) return 2;
  if (o.heap == "keep") {  // before the first tensor: what glibc does with MALLOC_*_ in the environment
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  at::set_num_threads(o.threads);
  torch::manual_seed(o.seed);
  torch::NoGradGuard no_grad;
  using Clock = std::chrono::steady_clock;
  UNet unet(o);
  auto x = torch::randn({o.batch, kLatentChannels, o.image_size, o.image_size});
  unet(x, 999.0);  // warm-up (oneDNN primitive creation, allocator), not measured

  std::vector<double> step_ms;
  double cpu_start = aigc::ProcessCpuMs();
  auto start = Clock::now();
  for (int s = 0; s < o.steps; ++s) {
    // A span named ProfilerStep#<s>, which the step detector reads like cprof_step(s) but
    // which ends exactly here (cprof_step's last step would run on to the process's last record).
    cprof::ScopedSpan step_span(cprof_name(("ProfilerStep#" + std::to_string(s)).c_str()));
    auto t0 = Clock::now();
    double t = 999.0 * (1.0 - static_cast<double>(s) / o.steps);
    {
      CPROF_SCOPE("denoise");
      auto eps = unet(x, t);
      x = x - eps * (1.0 / o.steps);  // a plain Euler update: the sampler is not the point
    }
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    step_ms.push_back(ms);
    std::printf("{\"step\": %d, \"ms\": %.3f, \"t\": %.1f}\n", s, ms, t);
  }
  double total_s = std::chrono::duration<double>(Clock::now() - start).count();
  double cpu_ms = (aigc::ProcessCpuMs() - cpu_start) / step_ms.size();
  double mean = 0;
  for (double v : step_ms) mean += v;
  mean /= step_ms.size();
  std::printf(
      "{\"latency_ms\": %.4f, \"p99_ms\": %.4f, \"cpu_ms\": %.4f, \"images_per_s\": %.3f, \"mem_mb\": %.1f, "
      "\"x_norm\": %.4f, \"steps\": %d, \"batch\": %d, \"threads\": %d, \"memory_format\": \"%s\", "
      "\"fused_conv\": %d}\n",
      mean, aigc::Percentile(step_ms, 99), cpu_ms, o.batch / total_s, aigc::PeakRssMb(),
      x.norm().item<double>(), o.steps, o.batch, o.threads, o.memory_format.c_str(), o.fused_conv);
  std::fflush(stdout);
  return 0;
}
