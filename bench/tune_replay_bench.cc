// Sample efficiency of the tuner's samplers on exhaustively measured Kernel Tuner spaces (replay),
// against random search (its exact expectation) and, when given, Optuna's TPE on the same files.
//
//   tune_replay_bench [--dir ../shared/fixtures/tuning] [--samplers auto,gp,tpe,evolution,random]
//                     [--seeds 50] [--budgets 25,50,100,200] [--optuna optuna.json] [--json out.json]
//                     [--noise CV]
//
// Scores (see docs/tune.md): for each space, budget B and strategy, the mean over seeds of the
// fraction of the optimum reached, frac = opt / best_found (0 when nothing valid was found);
// random's expectation of the same quantity, computed exactly; and the methodology score
//   score  = (frac - random) / (1 - random)    (1 = always the optimum, 0 = no better than random),
// also on the time scale: tscore = (E[random best time] - mean best time) / (E[random best] - opt)
// (a cache whose objective is higher-better, GFLOP/s, is scored on its inverse, the time of the work).
// Semantics, shared with optuna_replay.py: configurations absent from the cache cost nothing,
// failed ones cost one evaluation, duplicates are never proposed (and would cost nothing). Each
// budget is a separate study (the sampler is told its budget, as `tune --budget B` tells it).
// For `auto` (the default sampler) a line per space says whether it meets the target of the tune
// issue (score >= 0.5 at every budget, with the standard error of the lowest and the lowest
// tscore; >= 0.95 of the optimum at 200), and the last line on how many spaces.
// CPROF_BENCH_TRACE=1 prints each study's fractions in evaluation order to stderr; =2 also the
// key of each evaluated configuration (one per line), to see where a sampler spends its budget.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tune/replay_evaluator.h"
#include "tune/sampler.h"
#include "tune/tuner.h"
#include "tune/space_file.h"

namespace fs = std::filesystem;
using namespace cprof::tune;

namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// E[opt / best] of uniform random search without replacement over the N present configurations
// (valid + failed; absent ones are free), B evaluations; no valid one found counts as 0.
struct RandomExpectation {
  double fraction = 0;  // E[opt / best]
  double time = 0;      // E[best | something valid was found]
};
RandomExpectation RandomExpected(std::vector<double> valid, size_t failed, int budget) {
  std::sort(valid.begin(), valid.end());
  const double n = static_cast<double>(valid.size() + failed);
  auto log_none = [&](double k) {  // log P(none of k specific configs among B draws)
    if (k == 0) return 0.0;  // none of no configurations: certain, also when B >= N
    if (n - k < budget) return -HUGE_VAL;
    return std::lgamma(n - k + 1) - std::lgamma(n - k - budget + 1) - std::lgamma(n + 1) + std::lgamma(n - budget + 1);
  };
  RandomExpectation e;
  double mass = 0;
  for (size_t i = 0; i < valid.size(); ++i) {
    double p = std::exp(log_none(static_cast<double>(i))) - std::exp(log_none(static_cast<double>(i + 1)));
    e.fraction += p * valid[0] / valid[i];
    e.time += p * valid[i];
    mass += p;
  }
  if (mass > 0) e.time /= mass;
  return e;
}

// A score in the table's 5 columns; `-` where it is not defined.
std::string Cell(double score) {
  char out[32] = "    -";
  if (!std::isnan(score)) std::snprintf(out, sizeof out, "%5.2f", score);
  return out;
}

// --noise CV: each measurement is the cache's time times exp(CV * a standard normal draw), as on
// a noisy machine; a study's result is then the true time of the configuration it measured best.
double g_noise = 0;

struct SpaceCase {
  std::string name;
  std::string path;
  SpaceFile file;
  std::unique_ptr<ReplayEvaluator> replay;
  // Scores are taken on a cost, lower better: the cache's objective, or its inverse where higher is
  // better (GFLOP/s: the inverse is the time of a fixed amount of work, so frac stays opt / best).
  bool maximize = false;
  std::vector<double> costs;  // of every valid record
  double optimum = 0;         // the lowest cost
  double Cost(double value) const { return maximize ? 1.0 / value : value; }
};

// Best objective of one study of `budget` evaluations, for one sampler and seed. Each budget is a
// study of its own, as `tune --budget B` runs it: samplers may plan for the budget.
double RunOne(const SpaceCase& sc, const std::string& sampler_name, uint64_t seed, int budget) {
  auto sampler = MakeSampler(sampler_name, sc.file.space, budget);
  if (!sampler.ok()) {
    std::fprintf(stderr, "%s\n", sampler.status().message().c_str());
    std::exit(2);
  }
  History h;
  double best = INFINITY, best_seen = INFINITY;
  // As `tune` does: a study stops after as many absent proposals in a row.
  const int64_t max_absent = TuneOptions().max_infeasible;
  int64_t absent_in_a_row = 0;
  while (static_cast<int>(h.evaluations()) < budget && absent_in_a_row < max_absent) {
    Rng rng = Rng::ForTrial(seed, h.size());
    auto c = (*sampler)->Propose(h, rng);
    if (!c.ok()) break;  // the space ran out before the budget
    Observation o;
    o.config = *c;
    o.key = sc.file.space.Key(*c);
    o.sampler = (*sampler)->last_label();
    EvalResult r = sc.replay->Evaluate(sc.file.space.Named(*c), rng);
    o.state = r.state;
    absent_in_a_row = r.state == TrialState::kInfeasible ? absent_in_a_row + 1 : 0;
    if (r.state == TrialState::kComplete) {
      const double truth = r.metrics.at(sc.replay->metric());
      Rng noise_rng(seed * 0x9e3779b97f4a7c15ULL + h.size() + 1);
      const double measured = g_noise > 0 ? truth * std::exp(g_noise * noise_rng.Normal()) : truth;
      o.y = sc.maximize ? -measured : measured;  // as `tune` minimizes a maximized objective
      if (o.y < best_seen) best_seen = o.y, best = sc.Cost(truth);
    }
    h.Add(std::move(o));
  }
  if (const char* trace = std::getenv("CPROF_BENCH_TRACE")) {
    const bool trace_keys = trace[0] == '2';
    std::string line = sc.name + " " + sampler_name + " B=" + std::to_string(budget) + " seed " + std::to_string(seed) + ":";
    for (const Observation& o : h.all())
      if (o.state != TrialState::kInfeasible) {
        line += " " + std::to_string(sc.optimum / sc.Cost(sc.maximize ? -o.y : o.y)).substr(0, 4);
        if (trace_keys) line += "[" + sc.file.space.Key(o.config) + "]\n";
      }
    size_t nonexistent = 0;
    std::map<std::string, size_t> by_sampler;
    for (const Observation& o : h.all())
      if (o.state == TrialState::kInfeasible) ++nonexistent, ++by_sampler[o.sampler];
    std::string who;
    for (const auto& [name, n] : by_sampler) who += (who.empty() ? ": " : ", ") + name + " " + std::to_string(n);
    std::fprintf(stderr, "%s (and %zu proposals absent from the cache%s)\n", line.c_str(), nonexistent, who.c_str());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = std::string(CPROF_FIXTURES_DIR) + "/tuning";
  std::string samplers = "auto,gp,tpe,evolution,random";
  std::string budgets_arg = "25,50,100,200";
  std::string spaces_arg, optuna_path, json_path;
  int seeds = 50;
  int jobs = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--dir") dir = next();
    else if (a == "--samplers") samplers = next();
    else if (a == "--seeds") seeds = std::stoi(next());
    else if (a == "--budgets") budgets_arg = next();
    else if (a == "--spaces") spaces_arg = next();
    else if (a == "--optuna") optuna_path = next();
    else if (a == "--json") json_path = next();
    else if (a == "--noise") g_noise = std::stod(next());
    else if (a == "--jobs") jobs = std::max(1, std::stoi(next()));
    else {
      std::fprintf(stderr, "usage: %s [--dir D] [--samplers a,b] [--seeds N] [--budgets 25,50] [--spaces gemm,..] "
                           "[--optuna results.json] [--json out.json] [--jobs N] [--noise CV]\n", argv[0]);
      return 2;
    }
  }
  std::vector<int> budgets;
  for (const std::string& b : Split(budgets_arg)) budgets.push_back(std::stoi(b));
  std::vector<std::string> sampler_names = Split(samplers);
  std::vector<std::string> wanted = Split(spaces_arg);

  std::vector<std::unique_ptr<SpaceCase>> cases;
  int unreadable = 0;  // .json.gz files that do not replay
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().string().ends_with(".json.gz") || e.path().string().ends_with(".json")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    auto sc = std::make_unique<SpaceCase>();
    // The file's name without .json(.gz): Kernel Tuner names caches kernel_device
    // (gemm_RTX_3090, gemm_A100), and --spaces takes either the whole name or the kernel.
    sc->name = p.filename().string();
    sc->name = sc->name.substr(0, sc->name.size() - (sc->name.ends_with(".gz") ? 8 : 5));
    const std::string kernel = sc->name.substr(0, sc->name.find('_'));
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), sc->name) == wanted.end() &&
        std::find(wanted.begin(), wanted.end(), kernel) == wanted.end())
      continue;
    sc->path = p.string();
    // Kernel Tuner writes its T4 output as NAME-results.json beside NAME-metadata.json (the
    // machine's description, no measurements): the latter is no space.
    if (sc->name.ends_with("-metadata")) {
      std::fprintf(stderr, "tune_replay_bench: skipped: %s (T4 metadata, not a space)\n", sc->path.c_str());
      continue;
    }
    // A plain .json beside the caches may be something else (the fixtures hold a T4 space file):
    // skipped, with a note. A .json.gz that does not replay is an error, reported at once; the
    // other spaces still run, and the exit status says one failed.
    const bool may_skip = !sc->path.ends_with(".gz");
    auto f = LoadSpaceFile(sc->path);
    cprof::StatusOr<std::unique_ptr<ReplayEvaluator>> r = f.status();
    if (f.ok()) {
      for (const std::string& w : f->warnings) std::fprintf(stderr, "tune_replay_bench: %s\n", w.c_str());
      sc->file = std::move(f).value();  // the evaluator refers to this space
      r = ReplayEvaluator::Open(sc->path, sc->file.space, false);
    }
    if (!r.ok()) {
      std::fprintf(stderr, "tune_replay_bench: %s%s\n", may_skip ? "skipped: " : "", r.status().message().c_str());
      unreadable += !may_skip;
      continue;
    }
    if ((*r)->valid_objectives().empty()) {  // all failed or absent: no optimum to score against
      std::fprintf(stderr, "tune_replay_bench: skipped: %s holds no valid measurement\n", sc->path.c_str());
      ++unreadable;
      continue;
    }
    if (!(*r)->higher_is_better()) {
      std::fprintf(
          stderr,
          "tune_replay_bench: skipped: %s: its objective '%s' has no known direction (the file has no "
          "objective_higher_is_better)\n",
          sc->path.c_str(), (*r)->metric().c_str());
      ++unreadable;
      continue;
    }
    // The fraction of the optimum, opt / best, is a ratio: it needs values of one sign, above 0.
    const std::vector<double>& values = (*r)->valid_objectives();
    if (const auto low = std::min_element(values.begin(), values.end()); !(*low > 0)) {
      std::fprintf(
          stderr,
          "tune_replay_bench: skipped: %s: a '%s' of %g: the fraction of the optimum needs values above 0\n",
          sc->path.c_str(), (*r)->metric().c_str(), *low);
      ++unreadable;
      continue;
    }
    sc->replay = std::move(r).value();
    sc->maximize = *sc->replay->higher_is_better();
    for (double v : values) sc->costs.push_back(sc->Cost(v));
    sc->optimum = *std::min_element(sc->costs.begin(), sc->costs.end());
    cases.push_back(std::move(sc));
  }

  nlohmann::json optuna;
  if (!optuna_path.empty()) {
    std::ifstream in(optuna_path);
    if (in) optuna = nlohmann::json::parse(in, nullptr, false);
  }

  nlohmann::json out = {{"schema_version", 1}, {"seeds", seeds}, {"budgets", budgets}, {"spaces", nlohmann::json::object()}};
  std::vector<std::string> met, missed;  // spaces where auto meets the target, and not
  for (const auto& sc : cases) {
    std::printf("\n%s: %zu valid + %zu failed configurations of %.0f; optimum %.4f %s\n", sc->name.c_str(),
                sc->costs.size(), sc->replay->failed_count(), sc->file.space.CartesianSize().value_or(0),
                sc->Cost(sc->optimum),
                sc->replay->metric() == "time"
                    ? "ms"
                    : (sc->replay->metric() + (sc->maximize ? " (max)" : " (min)")).c_str());
    std::vector<double> random_expected, random_time;
    // A budget that leaves random search no way to miss the optimum: more evaluations than there
    // are present configurations that are not optimal (every configuration, or fewer where several
    // share the optimum). The score, (frac - R) / (1 - R), is 0 / 0 there. It has none; the
    // target asks the strategy to find the optimum in every study instead.
    const size_t optimal = static_cast<size_t>(std::count(sc->costs.begin(), sc->costs.end(), sc->optimum));
    const double certain_from =
        static_cast<double>(sc->costs.size() + sc->replay->failed_count() - optimal) + 1.0;
    std::vector<bool> exhaustive;
    for (int b : budgets) {
      exhaustive.push_back(b >= certain_from);
      RandomExpectation e = RandomExpected(sc->costs, sc->replay->failed_count(), b);
      random_expected.push_back(e.fraction);
      random_time.push_back(e.time);
    }
    std::printf("%-18s", "B =");
    for (int b : budgets) std::printf("  %-19d", b);
    std::printf("\n%-18s", "strategy");
    for (size_t b = 0; b < budgets.size(); ++b) std::printf("  frac  score tscore");
    std::printf("\n%-18s", "random (exact)");
    for (size_t b = 0; b < budgets.size(); ++b)
      std::printf(exhaustive[b] ? "  %.3f     -     -  " : "  %.3f  0.00  0.00  ", random_expected[b]);
    std::printf("\n");
    // The optimum in the objective's own units; random_expected_time is on the cost scale.
    nlohmann::json js = {{"optimum", sc->Cost(sc->optimum)},
                         {"objective", sc->replay->metric()},
                         {"maximize", sc->maximize},
                         {"random_expected_fraction", random_expected},
                         {"random_expected_time", random_time},
                         {"strategies", nlohmann::json::object()}};

    std::vector<double> auto_scores, auto_score_se, auto_fracs, auto_tscores;  // the default sampler's, for the target
    auto report = [&](const std::string& label, const std::vector<std::vector<double>>& best_by_seed) {
      std::vector<double> fracs, scores, time_scores;
      std::printf("%-18s", label.c_str());
      for (size_t b = 0; b < budgets.size(); ++b) {
        double sum = 0, tsum = 0;
        size_t found = 0;
        for (const auto& run : best_by_seed) {
          sum += std::isfinite(run[b]) ? sc->optimum / run[b] : 0.0;
          if (std::isfinite(run[b])) tsum += run[b], ++found;
        }
        double frac = sum / static_cast<double>(best_by_seed.size());
        double score = exhaustive[b] ? NAN : (frac - random_expected[b]) / (1.0 - random_expected[b]);
        // The same score on the time scale: (E[random best] - mean best) / (E[random best] - optimum).
        double mean_time = found ? tsum / static_cast<double>(found) : INFINITY;
        // No room on the time scale either where random search's expected best is the optimum
        // (one valid configuration): no tscore.
        const double t_room = random_time[b] - sc->optimum;
        double tscore = !(t_room > 0) ? NAN : (random_time[b] - mean_time) / t_room;
        fracs.push_back(frac);
        scores.push_back(score);
        time_scores.push_back(tscore);
        std::printf("  %.3f %s %s  ", frac, Cell(score).c_str(), Cell(tscore).c_str());
        if (label == "auto") {
          double ss = 0;  // the score's standard error, from the spread of frac over seeds
          for (const auto& run : best_by_seed) {
            const double f = std::isfinite(run[b]) ? sc->optimum / run[b] : 0.0;
            ss += (f - frac) * (f - frac);
          }
          const double n = static_cast<double>(best_by_seed.size());
          const double room = 1.0 - random_expected[b];  // 0 where random search finds the optimum
          auto_score_se.push_back(n > 1 && room > 0 ? std::sqrt(ss / (n - 1) / n) / room : 0.0);
        }
      }
      if (label == "auto") auto_fracs = fracs, auto_scores = scores, auto_tscores = time_scores;
      std::printf("\n");
      std::fflush(stdout);
      js["strategies"][label] = {{"fraction", fracs}, {"score", scores}, {"time_score", time_scores},
                                 {"runs", best_by_seed.size()}};
    };

    for (const std::string& s : sampler_names) {
      std::vector<std::vector<double>> best_by_seed(seeds);
      std::atomic<int> next{0};
      std::vector<std::thread> pool;
      for (int j = 0; j < jobs; ++j)
        pool.emplace_back([&] {
          for (int seed; (seed = next++) < seeds;)
            for (int b : budgets) best_by_seed[seed].push_back(RunOne(*sc, s, seed, b));
        });
      for (auto& t : pool) t.join();
      report(s, best_by_seed);
    }
    if (optuna.is_object() && optuna.contains(sc->name)) {
      // optuna_replay.py: {space: {"best_at": [[best per budget] per seed], "budgets": [...]}}
      const auto& o = optuna[sc->name];
      std::vector<int> ob = o["budgets"].get<std::vector<int>>();
      std::vector<std::vector<double>> best_by_seed;
      for (const auto& run : o["best_at"]) {
        std::vector<double> row;
        for (int b : budgets) {
          auto it = std::find(ob.begin(), ob.end(), b);
          double v = INFINITY;
          if (it != ob.end() && run[it - ob.begin()].is_number()) v = run[it - ob.begin()].get<double>();
          row.push_back(v);
        }
        best_by_seed.push_back(row);
      }
      if (!best_by_seed.empty()) report("optuna-tpe", best_by_seed);
    }
    if (!auto_scores.empty()) {
      // The target for the default sampler: score >= 0.5 at every budget, and >= 0.95 of
      // the optimum at 200 evaluations.
      // A budget that leaves random search nothing to miss counts as met when every study found the
      // optimum; the others by their score.
      size_t low = budgets.size();  // the budget of the lowest score, among those with one
      bool exhaustive_met = true, any_exhaustive = false;
      double low_t = INFINITY;
      for (size_t b = 0; b < budgets.size(); ++b) {
        if (exhaustive[b]) {
          any_exhaustive = true;
          exhaustive_met = exhaustive_met && auto_fracs[b] >= 1.0 - 1e-9;
          continue;
        }
        if (low == budgets.size() || auto_scores[b] < auto_scores[low]) low = b;
        if (!std::isnan(auto_tscores[b])) low_t = std::min(low_t, auto_tscores[b]);
      }
      const bool score_met = exhaustive_met && (low == budgets.size() || auto_scores[low] >= 0.5);
      const auto at200 = std::find(budgets.begin(), budgets.end(), 200);
      const bool frac_met = at200 == budgets.end() || auto_fracs[static_cast<size_t>(at200 - budgets.begin())] >= 0.95;
      std::printf("target (auto): score >= 0.5 at every budget %s", score_met ? "met" : "NOT met");
      // The lowest tscore too: the methodology's own standardization (docs/tune.md), for whoever
      // reads the target on that scale.
      if (low < budgets.size()) {
        char t[32] = "-";
        if (std::isfinite(low_t)) std::snprintf(t, sizeof t, "%.2f", low_t);
        std::printf(" (lowest %.2f +- %.2f at %d; lowest tscore %s)", auto_scores[low], auto_score_se[low],
                    budgets[low], t);
      }
      if (any_exhaustive)
        std::printf("; at budgets of %.0f or more, where random search cannot miss it, the optimum %s",
                    certain_from, exhaustive_met ? "found in every study" : "NOT found in every study");
      if (at200 != budgets.end())
        std::printf("; >= 0.95 of the optimum at 200 %s (%.3f)", frac_met ? "met" : "NOT met",
                    auto_fracs[static_cast<size_t>(at200 - budgets.begin())]);
      std::printf("\n");
      js["target"] = {{"met", score_met && frac_met}};
      if (low < budgets.size())
        js["target"].update({{"lowest_score", auto_scores[low]}, {"lowest_score_se", auto_score_se[low]},
                             {"at_budget", budgets[low]}});
      if (std::isfinite(low_t)) js["target"]["lowest_time_score"] = low_t;
      (score_met && frac_met ? met : missed).push_back(sc->name);
    }
    out["spaces"][sc->name] = js;
  }
  if (!met.empty() || !missed.empty()) {
    std::printf("\ntarget (auto) met on %zu of %zu spaces", met.size(), met.size() + missed.size());
    for (size_t i = 0; i < missed.size(); ++i) std::printf("%s%s", i ? ", " : "; not on: ", missed[i].c_str());
    std::printf("\n");
  }
  if (!json_path.empty()) {
    std::ofstream f(json_path);
    f << out.dump(1) << "\n";
  }
  return unreadable > 0 ? 2 : 0;
}
