// PostgreSQL storage against a real local server (started by the test): atomic reservations under
// contention, and two processes' workers sharing one study without duplicates.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include <libpq-fe.h>

#include "tune/postgres_test_server.h"
#include "tune/replay_evaluator.h"
#include "tune/space_file.h"
#include "tune/study_storage.h"
#include "tune/tuner.h"

namespace cprof::tune {
namespace {

class PostgresStorageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bool missing = false;
    server_ = PostgresTestServer::Start(&why_, &missing).release();
    skip_ = missing;
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (skip_) GTEST_SKIP() << why_;
    ASSERT_NE(server_, nullptr) << why_;
  }
  // The tables made by the administrator's role (the first storage opened) and a login role
  // `role` granted `grants` (SQL run as the administrator after CREATE ROLE); the URL as that role.
  static std::string UrlAsRole(const std::string& role, const std::string& grants) {
    EXPECT_TRUE(OpenStudyStorage(server_->url()).ok());
    PGconn* admin = PQconnectdb(server_->url().c_str());
    EXPECT_EQ(PQstatus(admin), CONNECTION_OK) << PQerrorMessage(admin);
    const std::string sql = "DROP ROLE IF EXISTS " + role + "; CREATE ROLE " + role + " LOGIN; " + grants;
    PGresult* granted = PQexec(admin, sql.c_str());
    EXPECT_EQ(PQresultStatus(granted), PGRES_COMMAND_OK) << PQresultErrorMessage(granted);
    PQclear(granted);
    PQfinish(admin);
    std::string url = server_->url();
    url.replace(url.find("user=postgres"), 13, "user=" + role);
    return url;
  }
  static PostgresTestServer* server_;
  static std::string why_;
  static bool skip_;
};
PostgresTestServer* PostgresStorageTest::server_ = nullptr;
std::string PostgresStorageTest::why_;
bool PostgresStorageTest::skip_ = false;

TEST_F(PostgresStorageTest, ReservationsAreAtomicUnderContention) {
  auto store = OpenStudyStorage(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto id = (*store)->OpenStudy("contention", "fp");
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_FALSE((*store)->OpenStudy("contention", "other").ok());
  auto names = (*store)->StudyNames();
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_NE(std::find(names->begin(), names->end(), "contention"), names->end());
  // Eight connections race to reserve the same 60 keys.
  std::mutex mu;
  std::vector<int64_t> numbers;
  std::vector<std::string> keys;
  std::vector<std::thread> threads;
  for (int w = 0; w < 8; ++w)
    threads.emplace_back([&, w] {
      auto s = OpenStudyStorage(server_->url());
      ASSERT_TRUE(s.ok()) << s.status().message();
      for (int k = 0; k < 60; ++k) {
        TrialRecord t;
        t.key = std::to_string((k * 7 + w) % 60);
        t.params = "{}";
        t.coords = "[]";
        t.worker = "w" + std::to_string(w);
        auto r = (*s)->Reserve(*id, t, 0);
        ASSERT_TRUE(r.ok()) << r.status().message();
        if (r->has_value()) {
          std::lock_guard<std::mutex> lock(mu);
          numbers.push_back((*r)->number);
          keys.push_back((*r)->key);
        }
      }
    });
  for (auto& t : threads) t.join();
  ASSERT_EQ(keys.size(), 60u);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), 60u);
  std::sort(numbers.begin(), numbers.end());
  for (int i = 0; i < 60; ++i) EXPECT_EQ(numbers[i], i);  // 0..59, no gaps, no repeats
  auto loaded = (*store)->LoadTrials(*id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), 60u);
  auto tail = (*store)->LoadTrialsFrom(*id, 55);
  ASSERT_TRUE(tail.ok());
  ASSERT_EQ(tail->size(), 5u);
  EXPECT_EQ(tail->front().number, 55);
}

TEST_F(PostgresStorageTest, ReservationsStopAtTheBudgetUnderContention) {
  auto store = OpenStudyStorage(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto id = (*store)->OpenStudy("budget", "fp");
  ASSERT_TRUE(id.ok()) << id.status().message();
  // Eight connections race to reserve 60 distinct keys of a 25-trial study.
  std::atomic<int> reserved{0}, refused{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < 8; ++w)
    threads.emplace_back([&, w] {
      auto s = OpenStudyStorage(server_->url());
      ASSERT_TRUE(s.ok()) << s.status().message();
      for (int k = 0; k < 60; ++k) {
        TrialRecord t;
        t.key = std::to_string(w) + "-" + std::to_string(k);
        t.params = "{}";
        t.coords = "[]";
        auto r = (*s)->Reserve(*id, t, 25);
        if (r.ok()) reserved += r->has_value();
        else if (r.status().code() == StatusCode::kResourceLimit) ++refused;
        else ADD_FAILURE() << r.status().message();
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(reserved.load(), 25);
  EXPECT_EQ(refused.load(), 8 * 60 - 25);
}

TEST_F(PostgresStorageTest, TwoWorkersShareOneStudyWithoutDuplicates) {
  const std::string path = CPROF_FIXTURES_DIR "/tuning/convolution_RTX_3090.json.gz";
  auto f = LoadSpaceFile(path);
  ASSERT_TRUE(f.ok());
  auto replay = ReplayEvaluator::Open(path, f->space, false);
  ASSERT_TRUE(replay.ok());
  auto work = [&](uint64_t seed) {
    auto store = OpenStudyStorage(server_->url());
    ASSERT_TRUE(store.ok()) << store.status().message();
    TuneOptions o;
    o.study_name = "shared";
    o.budget = 50;
    o.seed = seed;
    o.workers = 2;
    o.sampler = "tpe";  // cheap proposals: this test is about the store
    o.objectives = {{"time", false}};
    auto r = RunStudy(f->space, **replay, **store, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
  };
  std::thread a(work, 1), b(work, 2);
  a.join();
  b.join();
  auto store = OpenStudyStorage(server_->url());
  ASSERT_TRUE(store.ok());
  TuneOptions o;
  o.study_name = "shared";
  o.objectives = {{"time", false}};
  auto r = LoadStudy(f->space, **store, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->evaluations, 50);  // the store refuses past the budget
  std::set<std::map<std::string, std::string>> seen;
  for (const TrialSummary& t : r->trials) {
    EXPECT_TRUE(seen.insert(t.params).second) << "duplicate trial " << t.number;
    EXPECT_NE(t.state, TrialState::kPending);
  }
  std::set<std::string> samplers;
  for (const TrialSummary& t : r->trials) samplers.insert(t.sampler);
  EXPECT_FALSE(samplers.empty());
}

// The first 3 trials failing alike stop the study (its setup is wrong) and are reopened under no
// worker; on PostgreSQL as on SQLite, the rerun after the fix runs them, the default first.
TEST_F(PostgresStorageTest, TrialsReopenedAfterAWrongSetupRunOnTheRerun) {
  auto f = ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 15, default: 0}\n", "x.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  struct Command : Evaluator {
    bool fixed = false;
    EvalResult Evaluate(const std::map<std::string, std::string>& p, Rng&) override {
      EvalResult e;
      if (fixed) {
        e.state = TrialState::kComplete;
        e.metrics["t"] = 1.0 + std::stoi(p.at("x"));
      } else {
        e.reason = "exit code 2: bench.py: error: unrecognized arguments: --bogus";
        e.exit_error = true;
      }
      return e;
    }
  } command;
  auto store = OpenStudyStorage(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().message();
  TuneOptions o;
  o.study_name = "reopen";
  o.budget = 5;
  o.sampler = "random";
  o.objectives = {{"t", false}};
  auto r = RunStudy(f->space, command, **store, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput) << r.status().message();
  auto id = (*store)->OpenStudy("reopen", StudyFingerprint(f->space, o.objectives, ""));
  ASSERT_TRUE(id.ok()) << id.status().message();
  auto kept = (*store)->LoadTrials(*id);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  ASSERT_EQ(kept->size(), 3u);
  for (const TrialRecord& t : *kept) {
    EXPECT_EQ(t.state, TrialState::kPending) << t.number;
    EXPECT_EQ(t.worker, "") << t.number;
    EXPECT_EQ(t.reason, "") << t.number;
  }
  command.fixed = true;
  o.time_limit_ns = int64_t{60} * 1'000'000'000;  // trials left to a live worker would be waited for
  r = RunStudy(f->space, command, **store, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->evaluations, 5);
  ASSERT_TRUE(r->default_trial);
  EXPECT_EQ(r->trials[*r->default_trial].state, TrialState::kComplete);
  for (const TrialSummary& t : r->trials) EXPECT_EQ(t.state, TrialState::kComplete) << t.number;
}

// The usual shared setup: an administrator's role made the tables (the first study) and granted
// them to a worker role, which does not own them. The worker opens the storage and runs a study;
// it was refused, as the schema's CREATE INDEX IF NOT EXISTS needs the owner.
TEST_F(PostgresStorageTest, ARoleGrantedTheTablesUsesThem) {
  const std::string url = UrlAsRole("cprof_worker",
                                    "GRANT SELECT, INSERT, UPDATE, DELETE ON cprof_tune_studies, cprof_tune_trials "
                                    "TO cprof_worker; GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cprof_worker");
  auto store = OpenStudyStorage(url);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto f = ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 9, default: 0}\n", "s.yaml");
  ASSERT_TRUE(f.ok());
  struct Square : Evaluator {
    EvalResult Evaluate(const std::map<std::string, std::string>& p, Rng&) override {
      EvalResult r;
      r.state = TrialState::kComplete;
      r.metrics["t"] = std::stod(p.at("x")) * std::stod(p.at("x"));
      return r;
    }
  } eval;
  TuneOptions o;
  o.study_name = "granted";
  o.budget = 4;
  o.remeasure_top = 0;
  auto r = RunStudy(f->space, eval, **store, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->evaluations, 4);
}

// A server restart in the middle of a study (an administrator's, a failover) dropped every
// worker's connection: the run ended with exit 3 and the trial just measured was not stored.
TEST_F(PostgresStorageTest, AStudyOutlivesAServerRestart) {
  auto store = OpenStudyStorage(server_->url());
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto id = (*store)->OpenStudy("restart", "fp");
  ASSERT_TRUE(id.ok()) << id.status().message();
  auto reserve = [&](const std::string& x) -> std::optional<TrialRecord> {
    TrialRecord t;
    t.key = x;
    t.params = R"({"x": ")" + x + R"("})";
    auto reserved = (*store)->Reserve(*id, t, 10);
    EXPECT_TRUE(reserved.ok()) << reserved.status().message();
    return reserved.ok() ? *reserved : std::nullopt;
  };
  std::optional<TrialRecord> t = reserve("1");
  ASSERT_TRUE(t.has_value());
  ASSERT_TRUE(server_->Restart());
  // A statement alone, then a transaction, each on the connection the restart dropped.
  t->state = TrialState::kComplete;
  t->metrics = R"({"t": 1.5})";
  ASSERT_TRUE((*store)->Finish(*t).ok());
  ASSERT_TRUE(server_->Restart());
  EXPECT_TRUE(reserve("2").has_value());
  auto trials = (*store)->LoadTrials(*id);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  ASSERT_EQ(trials->size(), 2u);
  EXPECT_EQ((*trials)[0].state, TrialState::kComplete);
}

// A refused statement names the server and what was being done: "PostgreSQL: permission denied
// for table cprof_tune_studies" said neither.
TEST_F(PostgresStorageTest, ARefusedStatementNamesTheServerAndTheStatement) {
  const std::string url = UrlAsRole("cprof_reader", "GRANT SELECT ON cprof_tune_studies, cprof_tune_trials TO cprof_reader");
  auto store = OpenStudyStorage(url);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto id = (*store)->OpenStudy("read-only", "fp");
  ASSERT_FALSE(id.ok());
  const std::string msg(id.status().message());
  EXPECT_EQ(msg.rfind("PostgreSQL '", 0), 0u) << msg;
  EXPECT_NE(msg.find("cprof_reader"), std::string::npos) << msg;
  EXPECT_NE(msg.find("INSERT INTO cprof_tune_studies"), std::string::npos) << msg;
  EXPECT_NE(msg.find("permission denied"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  // The role's rights are the setup's (exit 2), not an internal error (3), and the fix is named.
  EXPECT_EQ(id.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(msg.find("an administrator can create the tables and grant them to this role"), std::string::npos)
      << msg;
}

// A server that is not there: one line naming what failed (libpq's message spans two, with a tab).
TEST(PostgresStorageOpenTest, RefusedConnectionIsOneLine) {
  // The URL is named, without its password.
  auto secret = OpenStudyStorage("postgresql://nobody:hunter2@127.0.0.1:1/db");
  ASSERT_FALSE(secret.ok());
  EXPECT_EQ(std::string(secret.status().message()).find("hunter2"), std::string::npos) << secret.status().message();
  EXPECT_NE(std::string(secret.status().message()).find("nobody:<redacted>@127.0.0.1:1/db"), std::string::npos)
      << secret.status().message();
  // In the query string too (it was printed in full).
  secret = OpenStudyStorage("postgresql://nobody@127.0.0.1:1/db?password=hunter2&connect_timeout=5");
  ASSERT_FALSE(secret.ok());
  EXPECT_EQ(std::string(secret.status().message()).find("hunter2"), std::string::npos)
      << secret.status().message();

  auto store = OpenStudyStorage("postgresql://nobody@127.0.0.1:1/db");
  ASSERT_FALSE(store.ok());
  const std::string msg(store.status().message());
  EXPECT_NE(msg.find("PostgreSQL 'postgresql://nobody@127.0.0.1:1/db': cannot connect: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("127.0.0.1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("refused"), std::string::npos) << msg;
  EXPECT_EQ(msg.find_first_of("\n\t"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("  "), std::string::npos) << msg;
}

}  // namespace
}  // namespace cprof::tune
