// SearchSpace: the parameters, their conditions and the constraints that every proposal satisfies.
//
//   SpaceDefinition def;
//   def.params = {...};  def.conditions = {"", "optimizer == 'sgd'"};
//   def.constraints = {"block_x * block_y <= 1024"};
//   ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(std::move(def)));
//   Config c = space.Canonicalize(space.SampleUniform(rng));
//   if (space.Feasible(c)) run(space.Values(c));
//
// A Config is one coordinate per parameter (see parameter.h: an index for discrete parameters, a
// unit coordinate for continuous ones, NaN when inactive). Constraints are never "penalized": a
// sampler only proposes configurations for which Feasible() holds. A constraint that reads an
// inactive parameter does not apply; one whose evaluation fails (division by zero) rejects.
// A SearchSpace is immutable once created and safe to share between threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "tune/expression.h"
#include "tune/parameter.h"
#include "tune/rng.h"

namespace cprof::tune {

using Config = std::vector<double>;

// What a space file says, before validation.
struct SpaceDefinition {
  std::vector<Parameter> params;       // Parameter::condition is ignored here; see `conditions`
  std::vector<std::string> conditions;  // per parameter, "" = always active (may be shorter)
  std::vector<std::string> constraints;
  // Where each condition / constraint came from ("line 6"), put before its parse error; optional
  // and may be shorter than the lists above.
  std::vector<std::string> condition_where, constraint_where;
};

class SearchSpace {
 public:
  static StatusOr<SearchSpace> Create(SpaceDefinition def);
  SearchSpace() = default;  // an empty space; assign one from Create()

  size_t size() const { return params_.size(); }
  const std::vector<Parameter>& params() const { return params_; }
  const Parameter& param(size_t i) const { return params_[i]; }
  std::optional<size_t> IndexOf(std::string_view name) const;
  const std::vector<Expression>& constraints() const { return constraints_; }
  bool has_conditions() const { return has_conditions_; }
  bool all_discrete() const { return all_discrete_; }
  // Product of the cardinalities (inactive counted as one more value); nullopt if continuous.
  std::optional<double> CartesianSize() const;

  // Applies conditions in parameter order (inactive -> NaN, newly active NaN -> its default or a
  // random legal coordinate when rng is given, else the first) and snaps discrete coordinates.
  Config Canonicalize(Config c, Rng* rng = nullptr) const;
  // Every constraint holds (call on a canonical config).
  bool Feasible(const Config& c) const;
  // Parameter values (monostate for inactive ones).
  std::vector<Value> Values(const Config& c) const;
  // "v1,v2,..." in parameter order, inactive as "-": the identity of a configuration.
  std::string Key(const Config& c) const;
  // name -> value text of the active parameters, for substitution and reports.
  std::map<std::string, std::string> Named(const Config& c) const;

  // A configuration from values by name; missing active parameters take their defaults.
  StatusOr<Config> FromValues(const std::map<std::string, Value>& values) const;
  // The default configuration, when every active parameter has a default (and it is feasible).
  std::optional<Config> DefaultConfig() const;
  // Its Key(), as trials store it.
  std::optional<std::string> DefaultKey() const;

  // Draws each active parameter uniformly (conditions respected). Constraints are not checked,
  // except that where the space is too large to list, the parameters that constraints read are
  // drawn together from their listed feasible combinations (see kMaxCore): an equality such as
  // `bx * by == 1024` over two ranges of 1..1024 holds in 11 of 2^20 draws, which rejection
  // sampling never finds.
  Config SampleUniform(Rng& rng) const;
  // Feasible configurations one step away: ordered parameters +-1 index (continuous +-5% of the
  // range), categorical parameters every other value.
  std::vector<Config> Neighbors(const Config& c) const;

  // All feasible configurations when the space is discrete and small enough to list (the product
  // of the cardinalities at most `kMaxEnumerate`); computed once and shared by copies; nullptr
  // otherwise. Thread-safe.
  static constexpr double kMaxEnumerate = 400000;
  const std::vector<Config>* Enumerated() const;
  // Key() of each Enumerated() configuration, same order; nullptr when not enumerated.
  const std::vector<std::string>* EnumeratedKeys() const;
  // The largest product of cardinalities of the constrained parameters whose feasible
  // combinations are listed for SampleUniform (when they are all discrete and unconditional, the
  // space is not Enumerated(), and at most kMaxEnumerate combinations are feasible); about 1 s.
  static constexpr double kMaxCore = 4e6;
  // Whether constrained parameters are drawn from listed combinations and none is feasible: the
  // space is then empty, as surely as an enumerated one.
  bool ConstrainedCoreEmpty() const;

  // Whether the constraint holds for these values; one that reads an inactive parameter does not
  // apply (true). An evaluation error (a power out of range) is returned, for the callers that
  // say why a space is empty or a default is refused; Feasible() takes it as false.
  StatusOr<bool> EvaluateConstraint(const Expression& e, const std::vector<Value>& values) const;

 private:
  Status Init(SpaceDefinition def);
  bool ConstraintHolds(const Expression& e, const std::vector<Value>& values) const;
  // Depth-first over the parameters `which` (in order), the others left inactive: every
  // combination of theirs that meets the constraints reading only them; stops past `limit`.
  void Enumerate(const std::vector<size_t>& which, size_t limit, std::vector<Config>& out) const;
  struct Core;
  const Core* ConstrainedCore() const;

  std::vector<Parameter> params_;
  std::vector<Expression> constraints_;
  bool has_conditions_ = false;
  bool all_discrete_ = true;
  struct EnumCache;
  std::shared_ptr<EnumCache> enum_cache_;
};

}  // namespace cprof::tune
