// SearchSpace: validation, conditions, constraints, keys, sampling, neighbours and enumeration.
#include "tune/search_space.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

namespace cprof::tune {

// The constrained parameters and their feasible combinations (full configurations with the
// other parameters NaN), for SampleUniform.
struct SearchSpace::Core {
  std::vector<size_t> params;
  std::vector<Config> combos;
  // Where a log-scale parameter is among them: each combination's chance as Sample() would draw
  // it, accumulated (empty: all equally likely).
  std::vector<double> cumulative;
};

struct SearchSpace::EnumCache {
  std::once_flag once;
  bool listed = false;
  std::vector<Config> configs;
  std::vector<std::string> keys;
  std::once_flag core_once;
  std::optional<Core> core;
};

StatusOr<SearchSpace> SearchSpace::Create(SpaceDefinition def) {
  SearchSpace s;
  RETURN_IF_ERROR(s.Init(std::move(def)));
  return s;
}

Status SearchSpace::Init(SpaceDefinition def) {
  if (def.params.empty()) return InvalidInput("the search space has no parameters");
  params_ = std::move(def.params);
  for (size_t i = 0; i < params_.size(); ++i) {
    RETURN_IF_ERROR(params_[i].Check());
    for (size_t j = 0; j < i; ++j)
      if (params_[j].name == params_[i].name) return InvalidInput("parameter '{}' defined twice", params_[i].name);
    // A float range of one point is one value: listed, so a study of it ends as exhausted.
    if (params_[i].continuous() && params_[i].low == params_[i].high) params_[i].step = 1;
    if (params_[i].continuous()) all_discrete_ = false;
    params_[i].condition.reset();
  }
  for (size_t i = 0; i < def.conditions.size() && i < params_.size(); ++i) {
    if (def.conditions[i].empty()) continue;
    // A condition may read only parameters declared before this one: conditions apply in order.
    auto resolve_earlier = [&](std::string_view name) -> std::optional<int> {
      for (size_t j = 0; j < i; ++j)
        if (params_[j].name == name) return static_cast<int>(j);
      return std::nullopt;
    };
    auto cond = Expression::Parse(def.conditions[i], resolve_earlier);
    if (!cond.ok())
      return cond.status()
          .WithContext(fmt::format("condition of parameter '{}' (it may use only parameters declared before it)",
                                   params_[i].name))
          .WithContext(i < def.condition_where.size() ? def.condition_where[i] : "");
    params_[i].condition = std::move(cond).value();
    has_conditions_ = true;
  }
  auto resolve = [&](std::string_view name) -> std::optional<int> {
    auto i = IndexOf(name);
    return i ? std::optional<int>(static_cast<int>(*i)) : std::nullopt;
  };
  for (size_t k = 0; k < def.constraints.size(); ++k) {
    auto e = Expression::Parse(def.constraints[k], resolve);
    if (!e.ok())
      return e.status().WithContext("constraint").WithContext(
          k < def.constraint_where.size() ? def.constraint_where[k] : "");
    constraints_.push_back(std::move(e).value());
  }
  enum_cache_ = std::make_shared<EnumCache>();
  return Status::Ok();
}

std::optional<size_t> SearchSpace::IndexOf(std::string_view name) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].name == name) return i;
  return std::nullopt;
}

std::optional<double> SearchSpace::CartesianSize() const {
  double n = 1;
  for (const Parameter& p : params_) {
    if (p.continuous()) return std::nullopt;
    n *= static_cast<double>(p.cardinality()) + (p.condition ? 1 : 0);
  }
  return n;
}

Config SearchSpace::Canonicalize(Config c, Rng* rng) const {
  c.resize(params_.size(), std::nan(""));
  std::vector<Value> values(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const Parameter& p = params_[i];
    bool active = true;
    if (p.condition) {
      auto holds = p.condition->EvaluateBool(values);
      active = holds.ok() && *holds;
    }
    if (!active) {
      c[i] = std::nan("");
      continue;
    }
    if (std::isnan(c[i])) {
      if (p.default_value) c[i] = *p.CoordOf(*p.default_value);
      else if (rng) c[i] = p.Sample(*rng);
      else c[i] = 0;
    }
    if (p.continuous()) c[i] = std::clamp(c[i], 0.0, 1.0);
    else c[i] = std::clamp(std::round(c[i]), 0.0, static_cast<double>(p.cardinality() - 1));
    values[i] = p.ValueAt(c[i]);
  }
  return c;
}

StatusOr<bool> SearchSpace::EvaluateConstraint(const Expression& e, const std::vector<Value>& values) const {
  for (int s : e.slots())
    if (!IsActive(values[s])) return true;  // reads an inactive parameter: does not apply
  return e.EvaluateBool(values);
}

bool SearchSpace::ConstraintHolds(const Expression& e, const std::vector<Value>& values) const {
  StatusOr<bool> holds = EvaluateConstraint(e, values);
  return holds.ok() && *holds;
}

bool SearchSpace::Feasible(const Config& c) const {
  if (constraints_.empty()) return true;
  std::vector<Value> values = Values(c);
  for (const Expression& e : constraints_)
    if (!ConstraintHolds(e, values)) return false;
  return true;
}

std::vector<Value> SearchSpace::Values(const Config& c) const {
  std::vector<Value> v(params_.size());
  for (size_t i = 0; i < params_.size() && i < c.size(); ++i) v[i] = params_[i].ValueAt(c[i]);
  return v;
}

std::string SearchSpace::Key(const Config& c) const {
  std::string key;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (i) key += ',';
    Value v = i < c.size() ? params_[i].ValueAt(c[i]) : Value{};
    key += IsActive(v) ? FormatValue(v) : "-";
  }
  return key;
}

std::map<std::string, std::string> SearchSpace::Named(const Config& c) const {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < params_.size() && i < c.size(); ++i) {
    Value v = params_[i].ValueAt(c[i]);
    if (IsActive(v)) out[params_[i].name] = FormatValue(v);
  }
  return out;
}

StatusOr<Config> SearchSpace::FromValues(const std::map<std::string, Value>& values) const {
  for (const auto& [name, v] : values)
    if (!IndexOf(name)) return InvalidInput("unknown parameter '{}'", name);
  Config c(params_.size(), std::nan(""));
  for (size_t i = 0; i < params_.size(); ++i) {
    auto it = values.find(params_[i].name);
    if (it == values.end()) continue;
    auto coord = params_[i].CoordOf(it->second);
    if (!coord)
      return InvalidInput("parameter '{}': {} is not one of its values", params_[i].name, FormatValue(it->second));
    c[i] = *coord;
  }
  return Canonicalize(std::move(c));
}

std::optional<Config> SearchSpace::DefaultConfig() const {
  Config c(params_.size(), std::nan(""));
  std::vector<Value> values(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const Parameter& p = params_[i];
    if (p.condition) {
      auto holds = p.condition->EvaluateBool(values);
      if (!holds.ok() || !*holds) continue;
    }
    if (!p.default_value) return std::nullopt;
    c[i] = *p.CoordOf(*p.default_value);
    values[i] = *p.default_value;
  }
  if (!Feasible(c)) return std::nullopt;
  return c;
}

std::optional<std::string> SearchSpace::DefaultKey() const {
  std::optional<Config> d = DefaultConfig();
  return d ? std::optional<std::string>(Key(*d)) : std::nullopt;
}

Config SearchSpace::SampleUniform(Rng& rng) const {
  Config c(params_.size(), std::nan(""));
  std::vector<Value> values(params_.size());
  std::vector<bool> drawn(params_.size());
  if (const Core* core = ConstrainedCore(); core && !core->combos.empty()) {
    size_t pick = 0;
    if (core->cumulative.empty()) {
      pick = rng.Index(core->combos.size());
    } else {
      const double u = rng.Uniform() * core->cumulative.back();
      pick = std::min<size_t>(
          std::upper_bound(core->cumulative.begin(), core->cumulative.end(), u) - core->cumulative.begin(),
          core->combos.size() - 1);
    }
    const Config& combo = core->combos[pick];
    for (size_t i : core->params) {
      c[i] = combo[i];
      values[i] = params_[i].ValueAt(c[i]);
      drawn[i] = true;
    }
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    const Parameter& p = params_[i];
    if (drawn[i]) continue;
    if (p.condition) {
      auto holds = p.condition->EvaluateBool(values);
      if (!holds.ok() || !*holds) continue;
    }
    c[i] = p.Sample(rng);
    values[i] = p.ValueAt(c[i]);
  }
  return c;
}

std::vector<Config> SearchSpace::Neighbors(const Config& c) const {
  std::vector<Config> out;
  auto push = [&](Config n, Rng* rng) {
    n = Canonicalize(std::move(n), rng);
    if (Feasible(n)) out.push_back(std::move(n));
  };
  Rng rng(0x5eed);  // fills parameters that a move makes active; fixed so neighbours are stable
  for (size_t i = 0; i < params_.size(); ++i) {
    if (i >= c.size() || std::isnan(c[i])) continue;
    const Parameter& p = params_[i];
    if (p.continuous()) {
      for (double d : {-0.05, 0.05}) {
        Config n = c;
        n[i] = std::clamp(c[i] + d, 0.0, 1.0);
        if (n[i] != c[i]) push(std::move(n), &rng);
      }
    } else if (p.ordered()) {
      for (double d : {-1.0, 1.0}) {
        double v = c[i] + d;
        if (v < 0 || v > static_cast<double>(p.cardinality() - 1)) continue;
        Config n = c;
        n[i] = v;
        push(std::move(n), &rng);
      }
    } else {
      for (size_t k = 0; k < p.cardinality(); ++k) {
        if (static_cast<double>(k) == c[i]) continue;
        Config n = c;
        n[i] = static_cast<double>(k);
        push(std::move(n), &rng);
      }
    }
  }
  return out;
}

void SearchSpace::Enumerate(const std::vector<size_t>& which, size_t limit, std::vector<Config>& out) const {
  // A constraint is checked as soon as the last of its parameters is set; one that reads a
  // parameter outside `which` is not checked.
  const size_t n = which.size();
  std::vector<int> position(params_.size(), -1);
  for (size_t k = 0; k < n; ++k) position[which[k]] = static_cast<int>(k);
  std::vector<std::vector<const Expression*>> check_at(std::max<size_t>(n, 1));
  for (const Expression& e : constraints_) {
    int last = 0;
    bool outside = false;
    for (int s : e.slots()) {
      outside |= position[s] < 0;
      last = std::max(last, position[s]);
    }
    if (!outside) check_at[last].push_back(&e);
  }
  Config c(params_.size(), std::nan(""));
  std::vector<Value> values(params_.size());
  auto rec = [&](auto&& self, size_t k) -> void {
    if (out.size() > limit) return;
    if (k == n) {
      out.push_back(c);
      return;
    }
    const size_t i = which[k];
    const Parameter& p = params_[i];
    bool active = true;
    if (p.condition) {
      auto holds = p.condition->EvaluateBool(values);
      active = holds.ok() && *holds;
    }
    auto checks_pass = [&] {
      for (const Expression* e : check_at[k])
        if (!ConstraintHolds(*e, values)) return false;
      return true;
    };
    if (!active) {
      c[i] = std::nan("");
      values[i] = Value{};
      if (checks_pass()) self(self, k + 1);
      return;
    }
    for (size_t v = 0; v < p.cardinality(); ++v) {
      c[i] = static_cast<double>(v);
      values[i] = p.ValueAt(c[i]);
      if (checks_pass()) self(self, k + 1);
    }
    c[i] = std::nan("");
    values[i] = Value{};
  };
  rec(rec, 0);
}

const SearchSpace::Core* SearchSpace::ConstrainedCore() const {
  if (!enum_cache_ || constraints_.empty()) return nullptr;
  std::call_once(enum_cache_->core_once, [&] {
    if (Enumerated()) return;
    std::vector<bool> read(params_.size());
    for (const Expression& e : constraints_)
      for (int s : e.slots()) read[s] = true;
    Core core;
    double product = 1;
    for (size_t i = 0; i < params_.size(); ++i) {
      if (!read[i]) continue;
      if (params_[i].continuous() || params_[i].condition) return;
      core.params.push_back(i);
      product *= static_cast<double>(params_[i].cardinality());
    }
    if (product > kMaxCore) return;
    Enumerate(core.params, static_cast<size_t>(kMaxEnumerate), core.combos);
    if (core.combos.size() > kMaxEnumerate) return;
    // Drawn as rejection sampling would: a log scale keeps its small values likelier.
    if (std::any_of(core.params.begin(), core.params.end(), [&](size_t i) { return params_[i].log; })) {
      double total = 0;
      for (const Config& c : core.combos) {
        double w = 1;
        for (size_t i : core.params) w *= params_[i].SampleProbability(static_cast<size_t>(c[i]));
        core.cumulative.push_back(total += w);
      }
      if (!(total > 0)) core.cumulative.clear();
    }
    enum_cache_->core = std::move(core);
  });
  return enum_cache_->core ? &*enum_cache_->core : nullptr;
}

bool SearchSpace::ConstrainedCoreEmpty() const {
  const Core* core = ConstrainedCore();
  return core && core->combos.empty();
}

const std::vector<Config>* SearchSpace::Enumerated() const {
  if (!enum_cache_) return nullptr;
  std::call_once(enum_cache_->once, [&] {
    auto size = CartesianSize();
    if (!size || *size > kMaxEnumerate) return;
    std::vector<size_t> all(params_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    Enumerate(all, static_cast<size_t>(kMaxEnumerate), enum_cache_->configs);
    enum_cache_->keys.reserve(enum_cache_->configs.size());
    for (const Config& c : enum_cache_->configs) enum_cache_->keys.push_back(Key(c));
    enum_cache_->listed = true;
  });
  return enum_cache_->listed ? &enum_cache_->configs : nullptr;
}

const std::vector<std::string>* SearchSpace::EnumeratedKeys() const {
  return Enumerated() ? &enum_cache_->keys : nullptr;
}

}  // namespace cprof::tune
