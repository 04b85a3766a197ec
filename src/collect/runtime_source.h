// RuntimeSource: what the traced processes record about themselves through the in-process
// runtime (libcprof.so): PyTorch operators with input shapes (libcprof_torch.so), allocator
// events, SDK spans/counters/steps, the Python shim's GC and DataLoader spans and sampled
// Python stacks, and metadata. Reads `<session dir>/rt-<pid>.bin` of every process (forked
// workers included) and turns begin/end records into slices: once, at Stop, unless a span
// observer (a trigger) needs the spans while they are written.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "collect/runtime_file_reader.h"
#include "collect/source.h"

namespace cprof {

class RuntimeSource : public Source {
 public:
  explicit RuntimeSource(std::string session_dir, TimeNs poll_interval_ns = 200 * kNsPerMs);
  ~RuntimeSource() override;

  std::string_view name() const override { return "runtime"; }
  Status Attach(const TargetProcess& target) override { return Status::Ok(); }
  void Poll(TimeNs now) override;
  TimeNs next_poll_ns() const override { return observer_ ? next_ns_ : INT64_MAX; }
  void Stop(TimeNs now) override;
  void Emit(TraceBuilder& b, TimeNs from, TimeNs to) override;
  void Forget(TimeNs before) override;

  // Called for every span, operator and step as it completes (triggers watch these). While one
  // is set, Poll reads the files on its interval.
  using SpanObserver =
      std::function<void(std::string_view name, std::string_view category, TimeNs end_ns, TimeNs dur_ns)>;
  void set_span_observer(SpanObserver observer) { observer_ = std::move(observer); }

  // Reads every file now (tests; Stop, and Poll while a span observer is set, do this).
  void ReadAll();

 private:
  struct Process;
  void OnRecord(Process& p, const RuntimeRecord& r);
  void EmitProcess(TraceBuilder& b, Process& p, TimeNs from, TimeNs to);

  std::string dir_;
  TimeNs interval_ns_;
  TimeNs next_ns_ = 0;
  bool stopped_ = false;
  TimeNs stop_ns_ = 0;
  std::map<std::string, std::unique_ptr<Process>> processes_;  // by file name
  SpanObserver observer_;
};

}  // namespace cprof
