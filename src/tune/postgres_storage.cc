// PostgreSQL study storage (libpq): the shared store for many workers on many machines. The study
// row is the lock that numbers trials (UPDATE ... RETURNING holds it to commit); UNIQUE(study_id,
// key) with ON CONFLICT DO NOTHING decides duplicates.
#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "base/url_password.h"
#include "tune/study_storage.h"

namespace cprof::tune {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS cprof_tune_studies (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  fingerprint TEXT NOT NULL,
  next_number BIGINT NOT NULL DEFAULT 0,
  created_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS cprof_tune_trials (
  id BIGSERIAL PRIMARY KEY,
  study_id BIGINT NOT NULL REFERENCES cprof_tune_studies(id),
  number BIGINT NOT NULL,
  key TEXT NOT NULL,
  params TEXT NOT NULL,
  coords TEXT NOT NULL,
  state TEXT NOT NULL,
  metrics TEXT NOT NULL DEFAULT '',
  measurements TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '',
  sampler TEXT NOT NULL DEFAULT '',
  worker TEXT NOT NULL DEFAULT '',
  started_at DOUBLE PRECISION NOT NULL DEFAULT 0,
  finished_at DOUBLE PRECISION NOT NULL DEFAULT 0,
  heartbeat_at DOUBLE PRECISION NOT NULL DEFAULT 0,
  UNIQUE (study_id, key),
  UNIQUE (study_id, number)
);
CREATE INDEX IF NOT EXISTS cprof_tune_trials_counted ON cprof_tune_trials (study_id) WHERE state != 'infeasible';
)sql";

// libpq's messages span lines ("...failed: Connection refused\n\tIs the server running..."): one
// line, each run of spaces, tabs and newlines one space.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != '\n' && c != '\t' && c != ' ') out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

class PostgresStorage final : public StudyStorage {
 public:
  PostgresStorage(PGconn* conn, std::string conninfo) : conn_(conn), conninfo_(std::move(conninfo)) {}
  ~PostgresStorage() override { PQfinish(conn_); }

  static StatusOr<std::unique_ptr<StudyStorage>> Open(const std::string& conninfo) {
    // A server that accepts the connection and never answers held tune before its first trial
    // for good: 10 s unless the URL gives its own connect_timeout (it overrides this one) or
    // PGCONNECT_TIMEOUT is set (which libpq applies only to what is not given).
    const bool own_timeout = std::getenv("PGCONNECT_TIMEOUT") != nullptr;
    const char* const keys[] = {own_timeout ? "dbname" : "connect_timeout", "dbname", nullptr};
    const char* const values[] = {own_timeout ? conninfo.c_str() : "10", conninfo.c_str(), nullptr};
    PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
    if (PQstatus(conn) != CONNECTION_OK) {
      const std::string msg = OneLine(PQerrorMessage(conn));
      PQfinish(conn);
      return Unavailable("PostgreSQL '{}': cannot connect: {}", RedactUrlPasswords(conninfo), msg);
    }
    auto s = std::make_unique<PostgresStorage>(conn, conninfo);
    PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // "relation already exists"
    // The advisory lock serializes schema creation between workers starting together. Where the
    // tables and index exist nothing is created: CREATE INDEX IF NOT EXISTS still needs the table's
    // owner, and a worker role that an administrator granted the tables to was refused ("must be
    // owner of table cprof_tune_trials").
    RETURN_IF_ERROR(s->Transaction([&]() -> Status {
      RETURN_IF_ERROR(s->Exec("SELECT pg_advisory_xact_lock(7310421)", {}).status());
      ASSIGN_OR_RETURN(Result have, s->Exec("SELECT to_regclass('cprof_tune_studies') IS NOT NULL AND "
                                            "to_regclass('cprof_tune_trials') IS NOT NULL AND "
                                            "to_regclass('cprof_tune_trials_counted') IS NOT NULL",
                                            {}));
      if (std::string_view(PQgetvalue(have.get(), 0, 0)) == "t") return Status::Ok();
      return s->Exec(kSchema, {}).status();
    }));
    return std::unique_ptr<StudyStorage>(std::move(s));
  }

  StatusOr<int64_t> OpenStudy(const std::string& name, const std::string& fingerprint) override {
    ASSIGN_OR_RETURN(Result ins, Exec("INSERT INTO cprof_tune_studies (name, fingerprint, created_at) "
                                      "VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
                                      {name, fingerprint, Num(UnixNow())}));
    ASSIGN_OR_RETURN(Result q, Exec("SELECT id, fingerprint FROM cprof_tune_studies WHERE name = $1", {name}));
    if (PQntuples(q.get()) != 1) return Internal("{}: study '{}' vanished", Where(), name);
    if (Get(q, 0, 1) != fingerprint)
      return InvalidInput(
          "study '{}' exists with another search space, objective or command (use another --study)", name);
    return std::stoll(Get(q, 0, 0));
  }

  StatusOr<std::vector<std::string>> StudyNames() override {
    ASSIGN_OR_RETURN(Result q, Exec("SELECT name FROM cprof_tune_studies ORDER BY id", {}));
    std::vector<std::string> out;
    for (int r = 0; r < PQntuples(q.get()); ++r) out.push_back(Get(q, r, 0));
    return out;
  }

  StatusOr<std::vector<TrialRecord>> LoadTrialsFrom(int64_t study, int64_t from_number) override {
    ASSIGN_OR_RETURN(Result q, Exec("SELECT id, number, key, params, coords, state, metrics, measurements, reason, "
                                    "sampler, worker, started_at, finished_at, heartbeat_at FROM cprof_tune_trials "
                                    "WHERE study_id = $1 AND number >= $2 ORDER BY number",
                                    {std::to_string(study), std::to_string(from_number)}));
    std::vector<TrialRecord> out;
    for (int r = 0; r < PQntuples(q.get()); ++r) {
      TrialRecord t;
      t.id = std::stoll(Get(q, r, 0));
      t.number = std::stoll(Get(q, r, 1));
      t.key = Get(q, r, 2);
      t.params = Get(q, r, 3);
      t.coords = Get(q, r, 4);
      t.state = TrialStateFromName(Get(q, r, 5)).value_or(TrialState::kFailed);
      t.metrics = Get(q, r, 6);
      t.measurements = Get(q, r, 7);
      t.reason = Get(q, r, 8);
      t.sampler = Get(q, r, 9);
      t.worker = Get(q, r, 10);
      t.started_at = std::stod(Get(q, r, 11));
      t.finished_at = std::stod(Get(q, r, 12));
      t.heartbeat_at = std::stod(Get(q, r, 13));
      out.push_back(std::move(t));
    }
    return out;
  }

  StatusOr<std::optional<TrialRecord>> Reserve(int64_t study, const TrialRecord& p, int64_t budget) override {
    std::optional<TrialRecord> out;
    Status st = Transaction([&]() -> Status {
      // Locks the study row until commit: numbers are handed out one reservation at a time.
      ASSIGN_OR_RETURN(Result num, Exec("UPDATE cprof_tune_studies SET next_number = next_number + 1 "
                                        "WHERE id = $1 RETURNING next_number - 1",
                                        {std::to_string(study)}));
      if (PQntuples(num.get()) != 1) return NotFound("{}: no study {}", Where(), study);
      if (budget > 0) {
        // The study row is locked until commit: no other reservation lands between count and insert.
        ASSIGN_OR_RETURN(Result n, Exec("SELECT count(*) FROM cprof_tune_trials WHERE study_id = $1 AND "
                                        "state != 'infeasible'",
                                        {std::to_string(study)}));
        if (std::stoll(Get(n, 0, 0)) >= budget) return BudgetSpent(budget);
      }
      TrialRecord t = p;
      t.number = std::stoll(Get(num, 0, 0));
      ASSIGN_OR_RETURN(Result ins,
                       Exec("INSERT INTO cprof_tune_trials (study_id, number, key, params, coords, state, sampler, "
                            "worker, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) "
                            "ON CONFLICT (study_id, key) DO NOTHING RETURNING id",
                            {std::to_string(study), std::to_string(t.number), t.key, t.params, t.coords,
                             TrialStateName(t.state), t.sampler, t.worker, Num(t.started_at)}));
      if (PQntuples(ins.get()) == 0) return Status(StatusCode::kNotFound, "duplicate");  // roll back the number
      t.id = std::stoll(Get(ins, 0, 0));
      out = std::move(t);
      return Status::Ok();
    });
    if (!st.ok() && !(st.code() == StatusCode::kNotFound && st.message() == "duplicate")) return st;
    return out;
  }

  Status Finish(const TrialRecord& t) override {
    return Exec("UPDATE cprof_tune_trials SET state = $1, metrics = $2, measurements = $3, reason = $4, "
                "finished_at = $5 WHERE id = $6",
                {TrialStateName(t.state), t.metrics, t.measurements, t.reason, Num(t.finished_at), std::to_string(t.id)})
        .status();
  }

  StatusOr<bool> Claim(int64_t id, const std::string& from, const std::string& to) override {
    ASSIGN_OR_RETURN(Result r, Exec("UPDATE cprof_tune_trials SET worker = $1, started_at = $2, heartbeat_at = $2 "
                                    "WHERE id = $3 AND worker = $4 AND state = 'running' RETURNING id",
                                    {to, Num(UnixNow()), std::to_string(id), from}));
    return PQntuples(r.get()) == 1;
  }

  Status Heartbeat(int64_t study, const std::string& worker) override {
    return Exec("UPDATE cprof_tune_trials SET heartbeat_at = $1 WHERE study_id = $2 AND worker = $3 "
                "AND state = 'running'",
                {Num(UnixNow()), std::to_string(study), worker})
        .status();
  }

  StatusOr<std::unique_ptr<StudyStorage>> Clone() const override { return Open(conninfo_); }

 private:
  static std::string Num(double v) { return fmt::format("{:.6f}", v); }
  // The server, as the errors name it (without a password).
  std::string Where() const { return fmt::format("PostgreSQL '{}'", RedactUrlPasswords(conninfo_)); }

  static std::string Get(const Result& r, int row, int col) { return PQgetvalue(r.get(), row, col); }

  // A connection the server dropped (a restart, a failover) is opened again, once: a study that
  // outlives a server restart goes on (it ended with exit 3, the trial just measured unstored).
  bool Reconnected() {
    if (PQstatus(conn_) != CONNECTION_BAD) return false;
    PQreset(conn_);
    return PQstatus(conn_) == CONNECTION_OK;
  }

  // Runs a statement with text parameters; commands and queries both succeed. Outside a
  // transaction, one whose connection dropped runs again on a new one (each statement the
  // storage runs alone is idempotent); inside, Transaction runs the whole body again.
  StatusOr<Result> Exec(const char* sql, const std::vector<std::string>& params) {
    std::vector<const char*> values;
    for (const std::string& p : params) values.push_back(p.c_str());
    // Without parameters PQexec, which also runs several statements (the schema).
    auto run = [&] {
      return Result(values.empty() ? PQexec(conn_, sql)
                                   : PQexecParams(conn_, sql, static_cast<int>(values.size()), nullptr,
                                                  values.data(), nullptr, nullptr, 0));
    };
    Result r = run();
    ExecStatusType st = PQresultStatus(r.get());
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && !in_transaction_ && Reconnected()) {
      r = run();
      st = PQresultStatus(r.get());
    }
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      // The statement's first words say what was being done (SELECT ... FROM cprof_tune_trials).
      std::string_view what(sql);
      what.remove_prefix(std::min(what.size(), what.find_first_not_of(" \n")));  // the schema starts with one
      what = what.substr(0, std::min<size_t>(what.find_first_of("\n("), 60));
      const std::string why = OneLine(PQresultErrorMessage(r.get()));
      // insufficient_privilege: the role's rights, not a bug (exit 2, not 3), and how to give them.
      const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
      if (state && std::string_view(state) == "42501")
        return InvalidInput(
            "{}: {}: {} (an administrator can create the tables and grant them to this role: "
            "SELECT, INSERT, UPDATE, DELETE, and USAGE on their sequences)",
            Where(), what, why);
      return Internal("{}: {}: {}", Where(), what, why);
    }
    return r;
  }

  template <typename F>
  Status Transaction(F&& body) {
    for (int attempt = 0;; ++attempt) {
      RETURN_IF_ERROR(Exec("BEGIN", {}).status());
      in_transaction_ = true;
      Status st = body();
      if (st.ok()) st = Exec("COMMIT", {}).status();
      in_transaction_ = false;
      if (st.ok()) return st;
      // The server rolled the transaction back with the connection: run it again on a new one.
      if (attempt == 0 && Reconnected()) continue;
      (void)Exec("ROLLBACK", {});
      return st;
    }
  }

  PGconn* conn_;
  std::string conninfo_;
  bool in_transaction_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<StudyStorage>> OpenPostgresStorage(const std::string& conninfo) {
  return PostgresStorage::Open(conninfo);
}

}  // namespace cprof::tune
