// The search space of `tune`: see tune_space.h.
#include "cli/tune_space.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "analysis/diagnose/category.h"
#include "base/byte_source.h"
#include "tune/candidates.h"

namespace cprof::cli {
namespace {

using namespace cprof::tune;

// Why an empty space may be empty: a constraint that cannot be evaluated (`x ** 100000 > 1`
// overflows) excludes every configuration, which read as constraints no configuration meets.
// "" when the constraints evaluate on a sample of the unconstrained product.
std::string ConstraintFailure(const SearchSpace& space) {
  Rng rng(0xc0);
  for (int k = 0; k < 256; ++k) {
    const std::vector<Value> values = space.Values(space.Canonicalize(space.SampleUniform(rng), &rng));
    for (const Expression& e : space.constraints())
      if (StatusOr<bool> holds = space.EvaluateConstraint(e, values); !holds.ok())
        return "; evaluating them failed: " + holds.status().message();
  }
  return "";
}

// A `fixes:` category that no diagnose finding has is never applied: a misspelling, found here.
Status CheckFixCategories(const SpaceFile& f, const std::string& origin) {
  for (const auto& [category, params] : f.fixes) {
    if (CategoryFromId(category)) continue;
    const auto where = f.fix_where.find(category);
    return InvalidInput("{}: {}parameter '{}': fixes.{}: not a diagnose finding category (known: {})", origin,
                        where == f.fix_where.end() ? "" : where->second + ": ", params.begin()->first,
                        category, fmt::join(CategoryIds(), ", "));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<SpaceFile> LoadTuneSpace(const TuneSpaceSource& src,
                                  const std::optional<DiagnosisGuidance>& guidance, bool quiet,
                                  std::ostream& err, uint64_t seed) {
  SpaceFile space_file;
  if (src.space.empty() && src.replay.empty()) {
    StatusOr<SearchSpace> knobs = SearchSpace::Create(guidance->space);
    if (!knobs.ok()) return knobs.status().WithContext("--from_diagnosis " + src.from_diagnosis);
    space_file.space = std::move(knobs).value();
    space_file.format = "diagnosis";
    space_file.fixes = guidance->fixes;
    if (!quiet) {
      err << "space from " << src.from_diagnosis << ":";
      for (const Parameter& p : space_file.space.params()) {
        std::string values;
        for (const Value& v : p.values) {
          const std::string text = FormatValue(v);
          values += (values.empty() ? "" : ", ") + (text.empty() ? std::string("''") : text);
        }
        err << " {" << p.name << "} [" << values << "]";
      }
      err << "\n";
    }
  } else if (src.space.empty()) {  // a Kernel Tuner cache is JSON: say what is wrong with it as JSON
    ASSIGN_OR_RETURN(std::string text, ReadWholeFile(src.replay));
    ASSIGN_OR_RETURN(space_file, ParseSpaceJson(text, src.replay));
  } else {
    ASSIGN_OR_RETURN(space_file, LoadSpaceFile(src.space));
    RETURN_IF_ERROR(CheckFixCategories(space_file, src.space));
  }
  for (const std::string& w : space_file.warnings) err << "warning: " << w << "\n";
  const SearchSpace& space = space_file.space;
  // Else the study "runs", tries nothing and says "all 0 configurations were tried".
  const std::string& origin = !src.space.empty()    ? src.space
                              : !src.replay.empty() ? src.replay
                                                    : src.from_diagnosis;
  if (const auto* all = space.Enumerated(); (all && all->empty()) || space.ConstrainedCoreEmpty())
    return InvalidInput("{}: no configuration satisfies the constraints{}", origin, ConstraintFailure(space));
  // Too large to enumerate: rejection sampling cannot prove the space empty, but one whose
  // constraints no random draw meets would run no trial and end in "no trial succeeded".
  if (Rng probe(seed); !space.Enumerated() && !RandomUnseen(space, History(), probe))
    return InvalidInput("{}: no configuration satisfies the constraints (none of 20,000 random draws did){}",
                        origin, ConstraintFailure(space));
  return space_file;
}

Status CheckParametersPassed(const CommandSpec& spec, const SpaceFile& space_file, const std::string& origin,
                             std::ostream& err) {
  const SearchSpace& space = space_file.space;
  std::vector<std::string> unused = ParametersNotPassed(spec, space);
  if (unused.empty()) return Status::Ok();
  std::vector<std::string> env_names, placeholders;
  for (const std::string& name : unused) {
    env_names.push_back(ParamEnvName(name));
    placeholders.push_back("{" + name + "}");
  }
  const bool one = unused.size() == 1;
  if (space_file.format == "diagnosis")
    return InvalidInput(
        "--from_diagnosis {}: the command receives no {}: put {} where the program takes {} (an "
        "argument, or --env NAME={}), or give a --space without {}",
        origin, fmt::join(placeholders, " nor "), fmt::join(placeholders, ", "),
        one ? "that setting" : "those settings", placeholders.front(), one ? "it" : "them");
  err << fmt::format(
      "warning: parameter{} {} of {} appear{} nowhere in the command as {{name}} nor in an env entry: unless "
      "the "
      "program reads {} from the environment, tuning {} changes nothing\n",
      one ? "" : "s", fmt::join(unused, ", "), origin, one ? "s" : "", fmt::join(env_names, ", "),
      one ? "it" : "them");
  // Names that differ only in case or punctuation meet in one variable: the program sees one.
  std::map<std::string, std::vector<std::string>> sharing;
  for (const Parameter& p : space.params()) sharing[ParamEnvName(p.name)].push_back(p.name);
  for (const auto& [env, names] : sharing)
    if (names.size() > 1 && std::any_of(names.begin(), names.end(), [&](const std::string& n) {
          return std::find(unused.begin(), unused.end(), n) != unused.end();
        }))
      err << fmt::format(
          "warning: parameters {} share the environment variable {}: it holds only one of their "
          "values\n",
          fmt::join(names, ", "), env);
  err.flush();
  return Status::Ok();
}

}  // namespace cprof::cli
