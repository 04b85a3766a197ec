// Source: one layer the collector gathers (the /proc sampler, CPU samples, the in-process
// runtime's records). The collector drives every source from its one collector thread, so a
// source needs no locks of its own:
//
//   Attach(target)      target at the gate (spawned) or running (attached)
//   Poll(now) ...       at the latest by next_poll_ns(); a source decides itself what is due
//   Stop(now)           the target ended or collection stopped: final drain
//   Emit(b, from, to)   adds what it holds in [from, to] to a trace (several times with triggers)
//   Forget(before)      flight recorder: drops data older than `before`
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/time_units.h"
#include "model/trace_builder.h"

namespace cprof {

class TargetProcess;

// What a source may tell the user (stderr, through the CLI) while collecting.
using WarningSink = std::function<void(std::string_view message)>;

class Source {
 public:
  virtual ~Source() = default;
  virtual std::string_view name() const = 0;
  virtual Status Attach(const TargetProcess& target) = 0;
  virtual void Poll(TimeNs now) = 0;
  // When the source next needs a Poll (CLOCK_MONOTONIC ns). The collector sleeps until the
  // earliest of its sources': every wake-up takes a core from a target that may need both.
  virtual TimeNs next_poll_ns() const = 0;
  virtual void Stop(TimeNs now) = 0;
  virtual void Emit(TraceBuilder& b, TimeNs from, TimeNs to) = 0;
  virtual void Forget(TimeNs before) = 0;
};

}  // namespace cprof
