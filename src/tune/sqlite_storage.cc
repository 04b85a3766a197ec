// SQLite study storage: WAL journal (readers never block the writer), every write its own
// transaction (BEGIN IMMEDIATE serializes writers across processes), UNIQUE(study_id, key) as the
// arbiter of duplicates.
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tune/study_storage.h"

namespace cprof::tune {
namespace {

// How long a connection waits for another process's lock before giving up.
constexpr int kBusyTimeoutMs = 60000;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS cprof_tune_studies (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  fingerprint TEXT NOT NULL,
  next_number INTEGER NOT NULL DEFAULT 0,
  created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS cprof_tune_trials (
  id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL REFERENCES cprof_tune_studies(id),
  number INTEGER NOT NULL,
  key TEXT NOT NULL,
  params TEXT NOT NULL,
  coords TEXT NOT NULL,
  state TEXT NOT NULL,
  metrics TEXT NOT NULL DEFAULT '',
  measurements TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '',
  sampler TEXT NOT NULL DEFAULT '',
  worker TEXT NOT NULL DEFAULT '',
  started_at REAL NOT NULL DEFAULT 0,
  finished_at REAL NOT NULL DEFAULT 0,
  heartbeat_at REAL NOT NULL DEFAULT 0,
  UNIQUE (study_id, key),
  UNIQUE (study_id, number)
);
CREATE INDEX IF NOT EXISTS cprof_tune_trials_counted ON cprof_tune_trials (study_id) WHERE state != 'infeasible';
)sql";

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  Stmt& Bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& Bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& Bind(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  int Step() { return sqlite3_step(s_); }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(s_, col);
    return t ? std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(s_, col)) : std::string();
  }
  int64_t Int(int col) const { return sqlite3_column_int64(s_, col); }
  double Real(int col) const { return sqlite3_column_double(s_, col); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_;
};

class SqliteStorage final : public StudyStorage {
 public:
  SqliteStorage(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteStorage() override { sqlite3_close(db_); }

  static StatusOr<std::unique_ptr<StudyStorage>> Open(const std::string& path) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
      std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      // SQLite says only "unable to open database file": name the likely cause.
      std::error_code ec;
      const std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
      if (!ec && !std::filesystem::is_directory(dir, ec)) msg += fmt::format(" (the folder {} does not exist)", dir.string());
      else if (!ec && ::access(dir.c_str(), W_OK) != 0) msg += fmt::format(" (the folder {} is not writable)", dir.string());
      return InvalidInput("{}: cannot open SQLite database: {}", path, msg);
    }
    // SQLite opens a file it may not write read-only without saying so; the first trial then
    // failed with "attempt to write a readonly database". Every trial is written: refuse here.
    if (sqlite3_db_readonly(db, "main") == 1) {
      sqlite3_close(db);
      return InvalidInput("{}: the study database is read-only for this user; tune writes every trial to it "
                          "(make it writable, or give another --storage)",
                          path);
    }
    auto s = std::make_unique<SqliteStorage>(db, path);
    sqlite3_busy_timeout(db, kBusyTimeoutMs);
    RETURN_IF_ERROR(s->RefuseAnotherToolsDatabase());
    // WAL + synchronous=NORMAL: a committed transaction survives the process being killed.
    // Switching a new file to WAL takes a lock SQLite does not wait for (no busy handler): two
    // workers opening a new study at once got "database is locked". Retried like a busy lock.
    for (int waited_ms = 0;; waited_ms += 10) {
      int wal = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
      if (wal == SQLITE_OK) break;
      if ((wal != SQLITE_BUSY && wal != SQLITE_LOCKED) || waited_ms >= kBusyTimeoutMs) {
        // A writable file in a folder this user may not write: WAL needs its -wal and -shm files.
        std::error_code ec;
        const std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
        if ((wal & 0xff) == SQLITE_READONLY && !ec && ::access(dir.c_str(), W_OK) != 0)
          return InvalidInput("{}: the folder {} is not writable for this user; the study database needs its -wal "
                              "and -shm files beside it (move the database, or give another --storage)",
                              path, dir.string());
        return InvalidInput("{}: cannot switch the study database to WAL: {}", path, sqlite3_errmsg(db));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    RETURN_IF_ERROR(s->Exec("PRAGMA synchronous=NORMAL"));
    RETURN_IF_ERROR(s->Exec("PRAGMA foreign_keys=ON"));
    RETURN_IF_ERROR(s->WithWriteTransaction([&]() -> Status { return s->Exec(kSchema); }));
    return std::unique_ptr<StudyStorage>(std::move(s));
  }

  // A mistyped --storage naming a trace's .sqlite or any other database: refused before our tables
  // are added to it and it is switched to WAL. A file that is not SQLite at all is named as such.
  Status RefuseAnotherToolsDatabase() {
    Stmt q(db_,
           "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'cprof\\_tune\\_%' ESCAPE '\\' "
           "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' LIMIT 1");
    const int rc = q.ok() ? q.Step() : sqlite3_errcode(db_);
    if (rc == SQLITE_ROW)
      return InvalidInput("{}: a database of another tool (it has a table '{}'); give a new file to --storage", path_,
                          q.Text(0));
    if ((rc & 0xff) == SQLITE_NOTADB) return InvalidInput("{}: not a study database: {}", path_, sqlite3_errmsg(db_));
    return Status::Ok();  // other errors (a folder without room for -shm) are named by the next step
  }

  StatusOr<int64_t> OpenStudy(const std::string& name, const std::string& fingerprint) override {
    int64_t id = 0;
    RETURN_IF_ERROR(WithWriteTransaction([&]() -> Status {
      Stmt q(db_, "SELECT id, fingerprint FROM cprof_tune_studies WHERE name = ?");
      if (!q.ok()) return Error("prepare");
      q.Bind(1, name);
      if (q.Step() == SQLITE_ROW) {
        if (q.Text(1) != fingerprint)
          return InvalidInput(
              "{}: study '{}' exists with another search space, objective or command (use another --study)",
              path_, name);
        id = q.Int(0);
        return Status::Ok();
      }
      Stmt ins(db_, "INSERT INTO cprof_tune_studies (name, fingerprint, created_at) VALUES (?, ?, ?)");
      ins.Bind(1, name).Bind(2, fingerprint).Bind(3, UnixNow());
      if (ins.Step() != SQLITE_DONE) return Error("create study");
      id = sqlite3_last_insert_rowid(db_);
      return Status::Ok();
    }));
    return id;
  }

  StatusOr<std::vector<std::string>> StudyNames() override {
    std::vector<std::string> out;
    for (int attempt = 0;; ++attempt) {
      out.clear();
      Stmt q(db_, "SELECT name FROM cprof_tune_studies ORDER BY id");
      if (!q.ok()) return Error("prepare");
      int rc;
      while ((rc = q.Step()) == SQLITE_ROW) out.push_back(q.Text(0));
      if (rc == SQLITE_DONE) return out;
      if (rc != SQLITE_BUSY || attempt > 100) return Error("list studies");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  StatusOr<std::vector<TrialRecord>> LoadTrialsFrom(int64_t study, int64_t from_number) override {
    std::vector<TrialRecord> out;
    for (int attempt = 0;; ++attempt) {
      out.clear();
      Stmt q(db_,
             "SELECT id, number, key, params, coords, state, metrics, measurements, reason, sampler, worker, "
             "started_at, finished_at, heartbeat_at FROM cprof_tune_trials WHERE study_id = ? AND number >= ? ORDER BY "
             "number");
      if (!q.ok()) return Error("prepare");
      q.Bind(1, study);
      q.Bind(2, from_number);
      int rc;
      while ((rc = q.Step()) == SQLITE_ROW) {
        TrialRecord t;
        t.id = q.Int(0);
        t.number = q.Int(1);
        t.key = q.Text(2);
        t.params = q.Text(3);
        t.coords = q.Text(4);
        t.state = TrialStateFromName(q.Text(5)).value_or(TrialState::kFailed);
        t.metrics = q.Text(6);
        t.measurements = q.Text(7);
        t.reason = q.Text(8);
        t.sampler = q.Text(9);
        t.worker = q.Text(10);
        t.started_at = q.Real(11);
        t.finished_at = q.Real(12);
        t.heartbeat_at = q.Real(13);
        out.push_back(std::move(t));
      }
      if (rc == SQLITE_DONE) return out;
      if (rc != SQLITE_BUSY || attempt > 100) return Error("load trials");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  StatusOr<std::optional<TrialRecord>> Reserve(int64_t study, const TrialRecord& p, int64_t budget) override {
    std::optional<TrialRecord> out;
    RETURN_IF_ERROR(WithWriteTransaction([&]() -> Status {
      Stmt exists(db_, "SELECT 1 FROM cprof_tune_trials WHERE study_id = ? AND key = ?");
      exists.Bind(1, study).Bind(2, p.key);
      if (exists.Step() == SQLITE_ROW) return Status::Ok();  // someone has it: no change
      if (budget > 0) {
        // Under the write lock: no other process reserves between this count and the insert.
        // The partial index keeps it O(budget) beside a replay's thousands of infeasible rows.
        Stmt n(db_, "SELECT count(*) FROM cprof_tune_trials WHERE study_id = ? AND state != 'infeasible'");
        n.Bind(1, study);
        if (n.Step() != SQLITE_ROW) return Error("count trials");
        if (n.Int(0) >= budget) return BudgetSpent(budget);
      }
      Stmt num(db_, "SELECT next_number FROM cprof_tune_studies WHERE id = ?");
      num.Bind(1, study);
      if (num.Step() != SQLITE_ROW) return NotFound("{}: no study {}", path_, study);
      TrialRecord t = p;
      t.number = num.Int(0);
      Stmt bump(db_, "UPDATE cprof_tune_studies SET next_number = next_number + 1 WHERE id = ?");
      bump.Bind(1, study);
      if (bump.Step() != SQLITE_DONE) return Error("number trial");
      Stmt ins(db_,
               "INSERT INTO cprof_tune_trials (study_id, number, key, params, coords, state, sampler, worker, "
               "started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      ins.Bind(1, study).Bind(2, t.number).Bind(3, t.key).Bind(4, t.params).Bind(5, t.coords);
      ins.Bind(6, std::string(TrialStateName(t.state))).Bind(7, t.sampler).Bind(8, t.worker);
      ins.Bind(9, t.started_at).Bind(10, t.started_at);
      if (ins.Step() != SQLITE_DONE) return Error("reserve trial");
      t.id = sqlite3_last_insert_rowid(db_);
      out = std::move(t);
      return Status::Ok();
    }));
    return out;
  }

  Status Finish(const TrialRecord& t) override {
    return WithWriteTransaction([&]() -> Status {
      Stmt u(db_,
             "UPDATE cprof_tune_trials SET state = ?, metrics = ?, measurements = ?, reason = ?, finished_at = ? "
             "WHERE id = ?");
      u.Bind(1, std::string(TrialStateName(t.state))).Bind(2, t.metrics).Bind(3, t.measurements);
      u.Bind(4, t.reason).Bind(5, t.finished_at).Bind(6, t.id);
      if (u.Step() != SQLITE_DONE) return Error("finish trial");
      return Status::Ok();
    });
  }

  StatusOr<bool> Claim(int64_t id, const std::string& from, const std::string& to) override {
    bool claimed = false;
    RETURN_IF_ERROR(WithWriteTransaction([&]() -> Status {
      Stmt u(db_,
             "UPDATE cprof_tune_trials SET worker = ?, started_at = ?, heartbeat_at = ? "
             "WHERE id = ? AND worker = ? AND state = 'running'");
      double now = UnixNow();
      u.Bind(1, to).Bind(2, now).Bind(3, now).Bind(4, id).Bind(5, from);
      if (u.Step() != SQLITE_DONE) return Error("claim trial");
      claimed = sqlite3_changes(db_) == 1;
      return Status::Ok();
    }));
    return claimed;
  }

  Status Heartbeat(int64_t study, const std::string& worker) override {
    return WithWriteTransaction([&]() -> Status {
      Stmt u(db_, "UPDATE cprof_tune_trials SET heartbeat_at = ? WHERE study_id = ? AND worker = ? AND state = 'running'");
      u.Bind(1, UnixNow()).Bind(2, study).Bind(3, worker);
      if (u.Step() != SQLITE_DONE) return Error("heartbeat");
      return Status::Ok();
    });
  }

  StatusOr<std::unique_ptr<StudyStorage>> Clone() const override { return Open(path_); }

  Status Exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : sqlite3_errmsg(db_);
      sqlite3_free(err);
      return Internal("{}: {}", path_, msg);
    }
    return Status::Ok();
  }

  // BEGIN IMMEDIATE ... COMMIT around `body`, retried while another process holds the write lock
  // longer than the busy timeout; rolled back when `body` fails.
  template <typename F>
  Status WithWriteTransaction(F&& body) {
    for (int attempt = 0;; ++attempt) {
      int rc = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
      if (rc == SQLITE_BUSY && attempt < 100) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      if (rc != SQLITE_OK) return Error("begin transaction");
      Status st = body();
      if (!st.ok()) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        return st;
      }
      rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) return Status::Ok();
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      if (rc != SQLITE_BUSY || attempt >= 100) return Error("commit");
    }
  }

 private:
  Status Error(const char* what) const { return Internal("{}: SQLite {}: {}", path_, what, sqlite3_errmsg(db_)); }

  sqlite3* db_;
  std::string path_;
};

}  // namespace

StatusOr<std::unique_ptr<StudyStorage>> OpenSqliteStorage(const std::string& path) { return SqliteStorage::Open(path); }

}  // namespace cprof::tune
