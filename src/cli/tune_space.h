// The search space `tune` runs over: a space file, a replay cache's own parameter lists, or the
// knobs a diagnosis suggests; checked before the first trial (an empty space, a `fixes:`
// category that no finding has).
//
//   ASSIGN_OR_RETURN(SpaceFile f, LoadTuneSpace({.space = "space.yaml"}, guidance, quiet, ctx.err, seed));
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "base/status.h"
#include "tune/diagnosis_guidance.h"
#include "tune/space_file.h"
#include "tune/trial_runner.h"

namespace cprof::cli {

// Where the space comes from: --space, else --replay, else --from_diagnosis (with `guidance`).
struct TuneSpaceSource {
  std::string space, replay, from_diagnosis;
};

// Warnings (and with a diagnosis's space, unless `quiet`, its knobs) go to `err`. `seed` seeds the
// random draws that look for a feasible configuration in a space too large to list.
StatusOr<tune::SpaceFile> LoadTuneSpace(const TuneSpaceSource& src,
                                        const std::optional<tune::DiagnosisGuidance>& guidance, bool quiet,
                                        std::ostream& err, uint64_t seed);

// Once, before the first trial: a parameter the command never receives ({name} nor an env entry)
// is tuned for nothing. A warning for a space file's (the program may read CPROF_PARAM_NAME); an
// error for the knobs of a diagnosis (`format` "diagnosis"), which no program reads from there:
// its trials all ran the same command, and runtime_adjustment.yaml said each knob's fix "measured
// worse". `origin` names the space (its file, or the diagnosis report).
Status CheckParametersPassed(const tune::CommandSpec& spec, const tune::SpaceFile& space_file,
                             const std::string& origin, std::ostream& err);

}  // namespace cprof::cli
