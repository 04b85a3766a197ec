// libcprof_torch.so: the PyTorch operator observer `trace` loads into processes that use
// libtorch (see preload/cprof_preload.c). On load it registers one global RecordFunction
// callback; every operator (forward and backward), record_function()/ProfilerStep# user scope
// and TorchScript function becomes an OP_BEGIN record (name, sequence number, scope, input
// shapes and dtypes) and an OP_END record in libcprof.so's per-thread buffers.
//
// Allocator events: the CPU allocator is wrapped (see RecordingAllocator below).
//
// This is the only translation unit that includes torch headers.
#include <ATen/record_function.h>
#include <ATen/Parallel.h>
#include <c10/core/Allocator.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

#include "collect/runtime/runtime.h"

namespace {

constexpr size_t kMaxWords = CPROF_MAX_OP_EXT_BLOCKS * 4;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Operator names interned once per thread (the runtime's intern takes a lock).
uint32_t InternName(const char* name) {
  thread_local std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> cache;
  std::string_view s(name);
  auto it = cache.find(s);
  if (it != cache.end()) return it->second;
  uint32_t id = cprof_rt_intern(s.data(), s.size());
  cache.emplace(std::string(s), id);
  return id;
}

// Allocator events: the CPU allocator is wrapped. c10's own memory reporting (the
// PROFILER_STATE debug info) is not used: libtorch 1.13 refuses to start torch.profiler on a
// thread that has any such object, so taking that slot would break a user's own profiler.
// Frees are recorded by address only; `trace` pairs them with their allocations.
void RecordMemory(void* ptr, int64_t bytes, uint16_t flags) {
  cprof_record* r = cprof_rt_reserve(2);
  if (r == nullptr) return;
  r->kind = CPROF_REC_MEMORY;
  r->n_ext = 1;
  r->flags = flags;
  r->name = 0;
  r->ts = cprof_rt_now();
  r->a = reinterpret_cast<uint64_t>(ptr);
  r->b = static_cast<uint64_t>(bytes);
  uint64_t* ext = reinterpret_cast<uint64_t*>(r + 1);
  ext[0] = static_cast<uint64_t>(-1);  // totals: computed by `trace` from the events
  ext[1] = static_cast<uint64_t>(-1);
  ext[2] = static_cast<uint64_t>(-1);  // device: host memory
  ext[3] = 0;
  cprof_rt_commit();
}

c10::DeleterFnPtr g_inner_deleter = nullptr;

void RecordingDelete(void* ptr) {
  RecordMemory(ptr, 0, CPROF_MEM_FREE);
  g_inner_deleter(ptr);
}

class RecordingAllocator final : public c10::Allocator {
 public:
  explicit RecordingAllocator(c10::Allocator* inner) : inner_(inner) {}

  c10::DataPtr allocate(size_t n) const override {
    c10::DataPtr dp = inner_->allocate(n);
    // Only blocks whose context is the data pointer and whose deleter is the one we wrap (the
    // default CPU allocator's): anything else passes through unrecorded.
    if (dp.get() == nullptr || dp.get() != dp.get_context() || dp.get_deleter() != g_inner_deleter) return dp;
    void* data = dp.release_context();
    RecordMemory(data, static_cast<int64_t>(n), 0);
    return c10::DataPtr(data, data, &RecordingDelete, dp.device());
  }
  c10::DeleterFnPtr raw_deleter() const override { return &RecordingDelete; }

 private:
  c10::Allocator* inner_;
};

void WrapCpuAllocator() {
  c10::Allocator* inner = c10::GetAllocator(c10::DeviceType::CPU);
  if (inner == nullptr) return;
  // The deleter the default allocator puts in its blocks (probed with one allocation).
  c10::DataPtr probe = inner->allocate(64);
  if (probe.get() == nullptr || probe.get() != probe.get_context()) return;
  g_inner_deleter = probe.get_deleter();
  static RecordingAllocator* wrapper = new RecordingAllocator(inner);
  c10::SetAllocator(c10::DeviceType::CPU, wrapper, /*priority=*/0);
}

size_t DescribeInputs(const at::RecordFunction& fn, uint64_t* w, bool* truncated) {
  size_t n = 1;
  uint64_t count = 0;
  for (const c10::IValue& v : fn.inputs()) {
    if (n >= kMaxWords) {
      *truncated = true;
      break;
    }
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (!t.defined()) {
        w[n++] = CPROF_INPUT_NONE;
      } else if (t.is_nested() || t.is_sparse()) {
        w[n++] = CPROF_INPUT_TENSOR | (static_cast<uint64_t>(t.scalar_type()) << 8);
      } else {
        c10::IntArrayRef sizes = t.sizes();
        size_t nd = std::min<size_t>(sizes.size(), 255);
        if (n + 1 + nd > kMaxWords) {
          *truncated = true;
          break;
        }
        w[n++] = CPROF_INPUT_TENSOR | (static_cast<uint64_t>(t.scalar_type()) << 8) | (nd << 16);
        for (size_t d = 0; d < nd; ++d) w[n++] = static_cast<uint64_t>(sizes[d]);
      }
    } else if (v.isInt() || v.isDouble() || v.isBool()) {
      if (n + 2 > kMaxWords) {
        *truncated = true;
        break;
      }
      if (v.isInt()) {
        w[n++] = CPROF_INPUT_INT;
        w[n++] = static_cast<uint64_t>(v.toInt());
      } else if (v.isDouble()) {
        w[n++] = CPROF_INPUT_DOUBLE;
        double d = v.toDouble();
        std::memcpy(&w[n++], &d, sizeof(d));
      } else {
        w[n++] = CPROF_INPUT_BOOL;
        w[n++] = v.toBool() ? 1 : 0;
      }
    } else if (v.isNone()) {
      w[n++] = CPROF_INPUT_NONE;
    } else if (v.isTensorList()) {
      w[n++] = CPROF_INPUT_TENSOR_LIST;
    } else {
      w[n++] = CPROF_INPUT_OTHER;
    }
    ++count;
  }
  w[0] = count;
  return n;
}

std::unique_ptr<at::ObserverContext> OnStart(const at::RecordFunction& fn) {
  uint64_t words[kMaxWords];
  bool truncated = false;
  size_t n = DescribeInputs(fn, words, &truncated);
  unsigned ext = static_cast<unsigned>((n * sizeof(uint64_t) + sizeof(cprof_record) - 1) / sizeof(cprof_record));
  uint32_t name = InternName(fn.name());
  cprof_record* r = cprof_rt_reserve(1 + ext);
  if (r == nullptr) return nullptr;
  r->kind = CPROF_REC_OP_BEGIN;
  r->n_ext = static_cast<uint8_t>(ext);
  r->flags = static_cast<uint16_t>(static_cast<uint16_t>(fn.scope()) & CPROF_OP_SCOPE_MASK) |
             (fn.isAsync() ? CPROF_OP_ASYNC : 0) | (truncated ? CPROF_OP_TRUNCATED : 0);
  r->name = name;
  r->a = fn.handle();
  r->b = static_cast<uint64_t>(fn.seqNr());
  std::memset(r + 1, 0, ext * sizeof(cprof_record));
  std::memcpy(r + 1, words, n * sizeof(uint64_t));
  r->ts = cprof_rt_now();  // last: the op starts when we return
  cprof_rt_commit();
  return nullptr;
}

void OnEnd(const at::RecordFunction& fn, at::ObserverContext*) {
  uint64_t ts = cprof_rt_now();  // first: the op ended when we were called
  cprof_record* r = cprof_rt_reserve(1);
  if (r == nullptr) return;
  r->kind = CPROF_REC_OP_END;
  r->n_ext = 0;
  r->flags = 0;
  r->name = 0;
  r->ts = ts;
  r->a = fn.handle();
  r->b = 0;
  cprof_rt_commit();
}

void AtExit() {
  // Read at exit, not at load: asking earlier would start the pools before the program sets
  // their sizes.
  // (The inter-op pool is not asked: that would start it, at exit.)
  cprof_metadata("torch_intra_op_threads", std::to_string(at::get_num_threads()).c_str());
}

__attribute__((constructor)) void Register() {
  if (!cprof_enabled()) return;
  double fraction = 1.0;
  if (const char* f = getenv("CPROF_EVENT_FRACTION")) fraction = std::atof(f);
  auto cb = at::RecordFunctionCallback(&OnStart, &OnEnd)
                .needsInputs(true)
                .needsIds(true)
                .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                         at::RecordScope::USER_SCOPE, at::RecordScope::TORCHSCRIPT_FUNCTION});
  if (fraction > 0 && fraction < 1) cb.samplingProb(fraction);
  at::addGlobalCallback(cb);
  if (getenv("CPROF_NO_TORCH_MEMORY") == nullptr) WrapCpuAllocator();
  cprof_metadata("torch_version", TORCH_VERSION);
  std::atexit(AtExit);
}

}  // namespace
