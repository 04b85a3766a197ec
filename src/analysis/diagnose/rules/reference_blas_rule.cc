// reference_blas (category affinity_api): the program's matrix products run on the reference
// BLAS — the unblocked, single-threaded Fortran loops (Netlib's libblas, Debian's default
// libblas.so.3 alternative, which Debian's libtorch links for at::addmm / at::mm) — while an
// optimized path exists for the same call: oneDNN's inner product (PyTorch: at::mkldnn_linear,
// torch.utils.mkldnn), or an optimized BLAS (OpenBLAS, BLIS, MKL) behind the same soname.
//
//   reference_blas: "Reference BLAS (sgemm_ in libblas.so.3.11.0) takes 61% of CPU time, under
//   aten::addmm (83%), aten::mm (16%)"
//
// Read off CPU samples: a sample is in the reference BLAS when its innermost frame is a BLAS
// entry point (Fortran name: s/d/c/z + gemm, gemv, ger, symm, syrk, trmm, trsm, axpy, dot, scal,
// copy, ..., with the trailing underscore) in a module named libblas* / librefblas*. Optimized
// libraries compute in internal kernels (OpenBLAS sgemm_kernel_*, ATLAS ATL_*, MKL mkl_blas_*),
// so their entry points are never the innermost frame for long: a sampled entry point that is
// itself the leaf is the reference implementation doing the arithmetic. Each such sample is
// attributed to the innermost framework operator around it on its thread (aten::addmm, ...).
// Fires when those samples are more than 15% of the process's CPU samples in the analysed window
// (inside steps when there are steps), with at least 20 of them.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 0.15 / (reference-BLAS samples / all samples);
//  - support     = n / (n + 3), n = steps with a reference-BLAS sample (seconds of trace without steps);
//  - consistency = steps with a reference-BLAS sample / steps with any sample (1 without steps);
//  - specificity = 1.0 when the trace shows the faster path is there (oneDNN code sampled, or the
//    program is PyTorch, whose x86 builds ship oneDNN); 0.8 otherwise (the reference BLAS is read
//    off the trace, a faster library may still have to be installed).
// Cost: the thread's share of CPU samples in the reference BLAS times its step (or span) wall time,
// per thread that ran it — the reference BLAS runs on the calling thread, so its share of the
// thread's CPU time is its share of the thread's wall time, the waits for a core included.
// Suggestions: for PyTorch, oneDNN's inner product (linear layers); when a convolution's im2col
// fallback is the caller, a second intra-op thread if most of its samples are in 1x1 convolutions
// at batch < 16 (read off "Input Dims"), else oneDNN enabled and float32; for any program, an
// optimized BLAS behind the same soname.
// Saving: cost x (1 - kOptimizedShare): an optimized GEMM (blocked, vectorized) runs the same
// fp32 products in about a third of the reference loops' time at the small batch sizes of
// inference — measured on examples/aigc/gpt (2-core AMD EPYC: --linear onednn cut the projections'
// CPU time ~3x).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

using host_rules::Ms;
using host_rules::Pct;

constexpr double kThreshold = 0.15;
constexpr int64_t kMinSamples = 20;
constexpr double kOptimizedShare = 1.0 / 3.0;

class ReferenceBlasRule final : public Rule {
 public:
  std::string_view name() const override { return "reference_blas"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

std::string Lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return r;
}

// "libblas.so.3.11.0", "librefblas.so", "libblas64.so.3": Netlib's reference BLAS under its usual
// file names (Debian, Fedora, conda's "blas=*=netlib"). OpenBLAS, ATLAS, BLIS and MKL ship
// libblas.so.3 compatibility names too, which is why the leaf-function test below decides.
bool IsReferenceBlasModule(std::string_view module) {
  const std::string m = Lower(module);
  return m.rfind("libblas", 0) == 0 || m.rfind("librefblas", 0) == 0;
}

// A BLAS entry point by its Fortran name: [sdcz] + routine + '_' ("sgemm_", "dgemv_").
bool IsBlasEntryPoint(std::string_view fn) {
  if (fn.size() < 5 || fn.back() != '_') return false;
  const char t = static_cast<char>(std::tolower(static_cast<unsigned char>(fn[0])));
  if (t != 's' && t != 'd' && t != 'c' && t != 'z') return false;
  static constexpr std::string_view kRoutines[] = {"gemm", "gemv", "ger", "geru", "gerc", "symm", "symv", "syrk",
                                                   "syr2k", "trmm", "trmv", "trsm", "trsv", "axpy", "dot", "dotu",
                                                   "dotc", "scal", "copy", "swap", "nrm2", "asum", "hemm", "herk",
                                                   "hemv", "gbmv", "sbmv", "spmv", "tbmv", "tpmv"};
  const std::string routine = Lower(fn.substr(1, fn.size() - 2));
  return std::find(std::begin(kRoutines), std::end(kRoutines), routine) != std::end(kRoutines);
}

// oneDNN / MKL-DNN code: the optimized path is in the process.
bool IsOneDnnModule(std::string_view module) {
  const std::string m = Lower(module);
  return m.rfind("libdnnl", 0) == 0 || m.rfind("libmkldnn", 0) == 0;
}

// Innermost slice containing `ts` on each thread track, walked up to the innermost operator.
class OperatorAt {
 public:
  explicit OperatorAt(const DiagnosisContext& ctx) : ctx_(ctx) {
    const Trace& t = ctx.trace();
    for (uint32_t r = 0; r < t.slices.size(); ++r) {
      if (t.slices.dur_ns[r] <= 0) continue;
      if (t.tracks.kind[Index(t.slices.track_id[r])] != TrackKind::kThread) continue;
      by_track_[Index(t.slices.track_id[r])].push_back(r);
    }
    for (auto& [track, rows] : by_track_)
      std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {  // a parent before a child starting with it
        if (t.slices.ts_ns[a] != t.slices.ts_ns[b]) return t.slices.ts_ns[a] < t.slices.ts_ns[b];
        return t.slices.depth[a] < t.slices.depth[b];
      });
  }
  // The operator slice running on `track` at `ts`, if any.
  std::optional<uint32_t> Find(TrackId track, int64_t ts) const {
    const Trace& t = ctx_.trace();
    auto it = by_track_.find(Index(track));
    if (it == by_track_.end()) return std::nullopt;
    const std::vector<uint32_t>& rows = it->second;
    auto up = std::upper_bound(rows.begin(), rows.end(), ts, [&](int64_t v, uint32_t r) { return v < t.slices.ts_ns[r]; });
    if (up == rows.begin()) return std::nullopt;
    // The latest slice starting at or before ts, or one of its ancestors, is the innermost around ts.
    for (SliceId s = SliceId(*(up - 1)); s != kNoSlice; s = t.slices.parent_id[Index(s)]) {
      const uint32_t r = Index(s);
      if (ts < t.slices.ts_ns[r] || ts >= t.slice_end(r)) continue;
      if (host_rules::IsOperator(t, r)) return r;
    }
    return std::nullopt;
  }

 private:
  const DiagnosisContext& ctx_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_track_;
};

// Input dims [[N, C, H, W], [K, C, 1, 1], ...] with N < 16: a 1x1 convolution that PyTorch 1.x
// (and 2.x) sends to oneDNN only with more than one intra-op thread, a batch of 16 or more, or a
// stride or dilation (ConvParams::use_mkldnn), in either memory format.
bool IsSmallBatchPointwiseConv(const std::vector<std::vector<int64_t>>& dims) {
  if (dims.size() < 2 || dims[0].size() != 4 || dims[1].size() != 4) return false;
  return dims[0][0] < 16 && dims[1][2] == 1 && dims[1][3] == 1;
}

struct OpBlasTime {
  std::string name;
  int64_t samples = 0;
  uint32_t longest_row = 0;
  int64_t longest_ns = -1;
};

void ReferenceBlasRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  const SampleTable& smp = trace.samples;
  if (smp.size() < kMinSamples) return;
  const std::vector<Step>& steps = ctx.steps();
  auto in_scope = [&](int64_t ts) {
    if (!ctx.window().Contains(ts)) return false;
    return steps.empty() || host_rules::StepAt(steps, ts) >= 0;
  };

  // Per sample: reference BLAS leaf? Count per thread and per step.
  int64_t all = 0, ref = 0;
  bool onednn_seen = false;
  std::string module, entry;  // of the most sampled reference entry point
  std::map<std::pair<std::string, std::string>, int64_t> by_entry;
  std::unordered_map<uint32_t, int64_t> all_by_thread, ref_by_thread;
  std::vector<int64_t> all_by_step(steps.size()), ref_by_step(steps.size());
  std::vector<uint32_t> ref_samples;
  for (uint32_t i = 0; i < smp.size(); ++i) {
    if (!in_scope(smp.ts_ns[i])) continue;
    ++all;
    ++all_by_thread[Index(smp.track_id[i])];
    const int64_t step = steps.empty() ? -1 : host_rules::StepAt(steps, smp.ts_ns[i]);
    if (step >= 0) ++all_by_step[static_cast<size_t>(step)];
    if (smp.stack_id[i] == kNoStack) continue;
    const FrameId leaf = trace.stacks.frame_id[Index(smp.stack_id[i])];
    if (leaf == kNoFrame) continue;
    const std::string_view mod = trace.Str(trace.frames.module_id[Index(leaf)]);
    const std::string_view fn = trace.Str(trace.frames.function_id[Index(leaf)]);
    if (IsOneDnnModule(mod)) onednn_seen = true;
    if (!IsReferenceBlasModule(mod) || !IsBlasEntryPoint(fn)) continue;
    ++ref;
    ++ref_by_thread[Index(smp.track_id[i])];
    if (step >= 0) ++ref_by_step[static_cast<size_t>(step)];
    ++by_entry[{std::string(mod), std::string(fn)}];
    ref_samples.push_back(i);
  }
  if (ref < kMinSamples || all == 0) return;
  const double share = static_cast<double>(ref) / static_cast<double>(all);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  if (terms.magnitude <= 0) return;

  int64_t top_entry = 0;
  for (const auto& [key, n] : by_entry)
    if (n > top_entry) top_entry = n, module = key.first, entry = key.second;

  // Which operators called it.
  const OperatorAt op_at(ctx);
  std::map<std::string, OpBlasTime> by_op;
  int64_t attributed = 0, conv_samples = 0, pointwise_conv_samples = 0;
  std::unordered_map<uint32_t, bool> pointwise_row;  // slice row -> a 1x1 convolution at batch < 16
  for (uint32_t i : ref_samples) {
    std::optional<uint32_t> row = op_at.Find(smp.track_id[i], smp.ts_ns[i]);
    if (!row) continue;
    ++attributed;
    const std::string_view op_name = trace.Str(trace.slices.name_id[*row]);
    OpBlasTime& o = by_op[std::string(op_name)];
    ++o.samples;
    if (rules::ContainsNoCase(op_name, "conv")) {
      ++conv_samples;
      auto [it, inserted] = pointwise_row.try_emplace(*row, false);
      if (inserted) it->second = IsSmallBatchPointwiseConv(host_rules::InputDims(trace, *row));
      if (it->second) ++pointwise_conv_samples;
    }
    if (trace.slices.dur_ns[*row] > o.longest_ns) o.longest_ns = trace.slices.dur_ns[*row], o.longest_row = *row;
  }
  std::vector<OpBlasTime> ops;
  for (auto& [name, o] : by_op) {
    o.name = name;
    ops.push_back(o);
  }
  std::sort(ops.begin(), ops.end(), [](const OpBlasTime& a, const OpBlasTime& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.name < b.name;
  });

  // Wall-time cost: per thread, its share of samples in the reference BLAS times the analysed time.
  const int64_t base = steps.empty() ? ctx.span_ns() : host_rules::TotalStepNs(steps);
  double cost = 0;
  for (const auto& [thread, n] : ref_by_thread)
    cost += static_cast<double>(n) / static_cast<double>(all_by_thread[thread]) * static_cast<double>(base);
  const int64_t cost_ns = std::min(base, static_cast<int64_t>(cost));

  int64_t steps_sampled = 0, steps_with = 0;
  for (size_t s = 0; s < steps.size(); ++s) {
    if (all_by_step[s] > 0) ++steps_sampled;
    if (ref_by_step[s] > 0) ++steps_with;
  }
  const bool pytorch = std::any_of(ops.begin(), ops.end(), [](const OpBlasTime& o) { return o.name.rfind("aten::", 0) == 0; });
  terms.support = SupportFromCount(steps.empty() ? std::max<int64_t>(1, ctx.span_ns() / 1'000'000'000) : steps_with);
  terms.consistency = steps_sampled > 0 ? static_cast<double>(steps_with) / static_cast<double>(steps_sampled) : 1.0;
  terms.specificity = onednn_seen || pytorch ? 1.0 : 0.8;

  Finding f;
  f.category = Category::kAffinityApi;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  rules::SetCost(ctx, cost_ns, f);
  f.saving_ns = static_cast<int64_t>(static_cast<double>(cost_ns) * (1.0 - kOptimizedShare));
  f.saving_method = fmt::format(
      "The reference BLAS's share of each thread's CPU samples times the thread's {} wall time ({}), of which an "
      "optimized GEMM (oneDNN, OpenBLAS, MKL) is assumed to leave a third: blocked, vectorized kernels run the same "
      "fp32 products about 3x faster at inference batch sizes.",
      steps.empty() ? "analysed" : "step", Ms(cost_ns));
  std::string op_list;
  for (size_t k = 0; k < ops.size() && k < 3; ++k)
    op_list += fmt::format("{}{} ({})", k ? ", " : "", ops[k].name,
                           Pct(static_cast<double>(ops[k].samples) / static_cast<double>(ref)));
  f.title = fmt::format("Reference BLAS ({} in {}) takes {} of CPU time{}", entry, module, Pct(share),
                        op_list.empty() ? "" : ", under " + op_list);
  f.summary = fmt::format(
      "{} of {} CPU samples{} ran inside {} of {}, the reference BLAS: unblocked, unvectorized loops on one thread. "
      "{}An optimized path does the same products several times faster: {}, or an optimized BLAS (OpenBLAS, BLIS, "
      "MKL) behind the same library name. Estimated cost: {}.",
      ref, all, steps.empty() ? "" : " inside steps", entry, module,
      op_list.empty() ? "" : fmt::format("The operators that called it: {}. ", op_list),
      onednn_seen ? "oneDNN, whose kernels this process already runs" : "oneDNN's inner product (in PyTorch's x86 builds)",
      Ms(cost_ns));
  f.metrics = {{"reference_blas_share", share, "ratio"},
               {"reference_blas_samples", static_cast<double>(ref), "count"},
               {"cpu_samples", static_cast<double>(all), "count"},
               {"attributed_to_operators", ref > 0 ? static_cast<double>(attributed) / static_cast<double>(ref) : 0.0, "ratio"},
               {"onednn_sampled", onednn_seen ? 1.0 : 0.0, ""},
               {"reference_blas_ns", static_cast<double>(cost_ns), "ns"}};
  for (size_t k = 0; k < ops.size() && k < 3; ++k)
    f.metrics.push_back({fmt::format("share_under_{}", ops[k].name),
                         static_cast<double>(ops[k].samples) / static_cast<double>(ref), "ratio"});
  for (size_t k = 0; k < ops.size() && f.events.size() < 5; ++k)
    f.events.push_back(ctx.EventRef(ops[k].longest_row, fmt::format("the longest {}: its product ran in the reference BLAS", ops[k].name)));
  if (f.events.empty() && !steps.empty()) {
    // No operator slices around the samples: cite the step with the most reference-BLAS samples.
    const size_t worst = static_cast<size_t>(std::max_element(ref_by_step.begin(), ref_by_step.end()) - ref_by_step.begin());
    f.events.push_back(ctx.EventRef(steps[worst].slice_row, "the step with the most reference-BLAS samples"));
  }
  const bool conv = !ops.empty() && rules::ContainsNoCase(ops[0].name, "conv");
  const double pointwise_share =
      conv_samples > 0 ? static_cast<double>(pointwise_conv_samples) / static_cast<double>(conv_samples) : 0.0;
  if (conv) f.metrics.push_back({"pointwise_small_batch_conv_share", pointwise_share, "ratio"});
  if (pytorch && conv && pointwise_share >= 0.5) {
    // aten::_slow_conv2d_forward on [N<16, C, H, W] x [K, C, 1, 1]: ConvParams::use_mkldnn refuses
    // unstrided 1x1 convolutions at batch < 16 on one intra-op thread, whatever the memory format.
    f.suggestions.push_back(
        {fmt::format("{} of the convolutions' reference-BLAS samples are in 1x1 convolutions at batch < 16, which PyTorch sends to the im2col "
                     "fallback (aten::_slow_conv2d_forward + the BLAS) on one intra-op thread in either memory format; "
                     "with two or more intra-op threads (or a batch of 16 or more) they run as oneDNN convolutions.",
                     Pct(pointwise_share)),
         "code", "torch.set_num_threads(2)  # C++: at::set_num_threads(2); or OMP_NUM_THREADS=2"});
  } else if (pytorch && conv) {
    // The im2col fallback for other kernels: oneDNN's convolution is off or refuses the dtype.
    f.suggestions.push_back(
        {"The convolutions reach the BLAS through the im2col fallback (aten::_slow_conv2d_forward), which PyTorch "
         "takes when oneDNN's convolution is disabled or the dtype is not float32 / bfloat16.",
         "code", "torch.backends.mkldnn.enabled = True\nmodel = model.float()"});
  }
  if (pytorch && !conv) {
    f.suggestions.push_back(
        {"Run the linear layers as oneDNN inner products: weights converted once, inputs per call (C++: "
         "at::mkldnn_linear on to_mkldnn() tensors).",
         "code",
         "from torch.utils import mkldnn as mkldnn_utils\nmodel = mkldnn_utils.to_mkldnn(model.eval())  # nn.Linear -> "
         "MkldnnLinear\n# C++: at::mkldnn_linear(x.to_mkldnn(), w_mkldnn, b_mkldnn).to_dense()"});
  }
  f.suggestions.push_back({"Or put an optimized BLAS behind the same library name (Debian: the libblas.so.3 "
                           "alternative); no code change, every BLAS caller in the process gains.",
                           "command",
                           "apt install libopenblas0-pthread   # registers itself as the libblas.so.3 alternative\n"
                           "update-alternatives --config libblas.so.3-x86_64-linux-gnu"});
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakeReferenceBlasRule() { return std::make_unique<ReferenceBlasRule>(); }

}  // namespace cprof
