// Storage URLs -> backends, and what every backend shares (ReopenTrials, UnixNow).
#include "tune/study_storage.h"

#include <algorithm>
#include <chrono>

#include "base/url_password.h"

namespace cprof::tune {

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Status BudgetSpent(int64_t budget) {
  return ResourceLimit("the study's budget of {} evaluations is spent", budget);
}

StatusOr<std::unique_ptr<StudyStorage>> OpenStudyStorage(const std::string& url) {
  if (url == "memory" || url == "memory://") return MakeMemoryStorage();
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return OpenPostgresStorage(url);
  // `sqlite:/x.db` was opened as the path "sqlite:/x.db" ("unable to open database file").
  for (const char* scheme : {"sqlite:", "postgresql:", "postgres:", "memory:"}) {
    const std::string s = scheme;
    if (url.rfind(s, 0) == 0 && url.rfind(s + "//", 0) != 0)
      return InvalidInput("storage '{}': write {}//... ({})", RedactUrlPasswords(url), s,
                          s == "sqlite:" ? "sqlite://rel/path.db, or sqlite:///abs/path.db with three slashes"
                          : s == "memory:" ? "or just memory"
                                           : "postgresql://user@host:port/db");
  }
  if (url.rfind("sqlite:///", 0) == 0) return OpenSqliteStorage(url.substr(9));  // keeps the leading '/'
  if (url.rfind("sqlite://", 0) == 0) {
    if (url.size() == 9) return InvalidInput("storage '{}' names no file: sqlite://study.db", url);
    return OpenSqliteStorage(url.substr(9));
  }
  if (url.find("://") == std::string::npos && !url.empty()) {
    // A libpq key=value string ("host=h user=u dbname=d") became a SQLite file of that name, the
    // study local and its password in the file name.
    // Only libpq's own keywords: lr=0.01.db is a file.
    static constexpr std::string_view kLibpqKeys[] = {
        "host",    "hostaddr",        "port",    "dbname",           "user",    "password", "service",
        "sslmode", "connect_timeout", "options", "application_name", "passfile"};
    std::string_view first(url);
    first.remove_prefix(std::min(first.size(), first.find_first_not_of(" \t")));
    first = first.substr(0, first.find_first_of(" \t="));
    if (std::find(std::begin(kLibpqKeys), std::end(kLibpqKeys), first) != std::end(kLibpqKeys) &&
        url.find('=') != std::string::npos)
      return InvalidInput(
          "storage '{}': a libpq key=value string; write it as a URL, "
          "postgresql://user@host:port/db?key=value (or sqlite://path.db for a file)",
          RedactUrlPasswords(url));
    return OpenSqliteStorage(url);
  }
  return InvalidInput("storage '{}': expected sqlite:///path.db, postgresql://... or memory",
                      RedactUrlPasswords(url));
}

Status ReopenTrials(StudyStorage& store, const std::vector<TrialRecord>& trials, const std::vector<int64_t>& ids) {
  for (const TrialRecord& t : trials) {
    if (std::find(ids.begin(), ids.end(), t.id) == ids.end()) continue;
    TrialRecord open = t;
    open.state = TrialState::kPending;
    open.metrics.clear();
    open.measurements.clear();
    open.reason.clear();
    open.finished_at = 0;
    RETURN_IF_ERROR(store.Finish(open));
    // Finish keeps the worker that ran it, which may be this live process: hand it to none.
    RETURN_IF_ERROR(store.Claim(t.id, t.worker, "").status());
  }
  return Status::Ok();
}

}  // namespace cprof::tune
