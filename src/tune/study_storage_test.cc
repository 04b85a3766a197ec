// The study stores (memory, SQLite): numbered, atomic reservations that refuse duplicates and
// trials past the budget, reads from a trial number on, and storage URLs that name their fix.
#include "tune/study_storage.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "testing/test_dir.h"

namespace cprof::tune {
namespace {

TrialRecord Record(const std::string& key) {
  TrialRecord t;
  t.params = "{}";
  t.coords = "[]";
  t.key = key;
  return t;
}

TEST(StudyStorageTest, ReserveIsAtomicAndNumbered) {
  for (const std::string& url : {std::string("memory"), "sqlite://" + TestFile("reserve.db")}) {
    auto store = OpenStudyStorage(url);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto id = (*store)->OpenStudy("s", "fp");
    ASSERT_TRUE(id.ok());
    EXPECT_FALSE((*store)->OpenStudy("s", "other").ok());
    TrialRecord t = Record("a");
    auto first = (*store)->Reserve(*id, t, 0);
    ASSERT_TRUE(first.ok() && first->has_value());
    EXPECT_EQ((*first)->number, 0);
    auto dup = (*store)->Reserve(*id, t, 0);
    ASSERT_TRUE(dup.ok());
    EXPECT_FALSE(dup->has_value());
    t.key = "b";
    auto second = (*store)->Reserve(*id, t, 0);
    ASSERT_TRUE(second.ok() && second->has_value());
    EXPECT_EQ((*second)->number, 1);  // no gap from the refused duplicate
    TrialRecord done = **second;
    done.state = TrialState::kComplete;
    done.metrics = R"({"t": 1.5})";
    ASSERT_TRUE((*store)->Finish(done).ok());
    auto all = (*store)->LoadTrials(*id);
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 2u);
    EXPECT_EQ((*all)[1].state, TrialState::kComplete);
    EXPECT_EQ((*all)[1].metrics, R"({"t": 1.5})");
    // From a number on: what a study loop re-reads after its finished prefix.
    auto tail = (*store)->LoadTrialsFrom(*id, 1);
    ASSERT_TRUE(tail.ok());
    ASSERT_EQ(tail->size(), 1u);
    EXPECT_EQ((*tail)[0].key, "b");
    auto none = (*store)->LoadTrialsFrom(*id, 2);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
  }
}

// Processes sharing a study each checked the budget against their own snapshot and then reserved:
// three processes of two workers on a 10-trial study ran 11. The store now refuses past it.
TEST(StudyStorageTest, ReserveRefusesPastTheBudget) {
  for (const std::string& url : {std::string("memory"), "sqlite://" + TestFile("budget.db")}) {
    auto store = OpenStudyStorage(url);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto id = (*store)->OpenStudy("s", "fp");
    ASSERT_TRUE(id.ok());
    TrialRecord t = Record("a");
    ASSERT_TRUE((*store)->Reserve(*id, t, 2).ok());
    t.key = "b";
    auto b = (*store)->Reserve(*id, t, 2);
    ASSERT_TRUE(b.ok() && b->has_value()) << url;
    t.key = "c";
    auto full = (*store)->Reserve(*id, t, 2);
    ASSERT_FALSE(full.ok()) << url;
    EXPECT_EQ(full.status().code(), StatusCode::kResourceLimit);
    // An infeasible trial does not count: its place is free again.
    TrialRecord done = **b;
    done.state = TrialState::kInfeasible;
    ASSERT_TRUE((*store)->Finish(done).ok());
    auto c = (*store)->Reserve(*id, t, 2);
    ASSERT_TRUE(c.ok() && c->has_value()) << url;
    EXPECT_EQ((*c)->number, 2);
    t.key = "d";
    EXPECT_FALSE((*store)->Reserve(*id, t, 2).ok()) << url;
    EXPECT_TRUE((*store)->Reserve(*id, t, 0).ok()) << url;  // 0: no budget
  }
}

TEST(StudyStorageTest, StorageUrlTyposNameTheFix) {
  auto typo = OpenStudyStorage("sqlite:/x.db");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(typo.status().message().find("sqlite:///abs/path.db"), std::string::npos) << typo.status().message();
  EXPECT_FALSE(OpenStudyStorage("postgresql:/host/db").ok());
  auto missing = OpenStudyStorage("sqlite:///nonexistent/dir/s.db");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("the folder /nonexistent/dir does not exist"), std::string::npos)
      << missing.status().message();
  // A libpq key=value string became a SQLite file named after it, password and all.
  auto conninfo = OpenStudyStorage("host=127.0.0.1 port=5432 user=tuner password=tunepw dbname=d");
  ASSERT_FALSE(conninfo.ok());
  EXPECT_EQ(
      conninfo.status().message(),
      "storage 'host=127.0.0.1 port=5432 user=tuner password=<redacted> dbname=d': a libpq key=value string; "
      "write it as a URL, postgresql://user@host:port/db?key=value (or sqlite://path.db for a file)");
  // A file name with '=' in it is a file.
  const std::string named = (std::filesystem::temp_directory_path() / "cprof_lr=0.01.db").string();
  std::filesystem::remove(named);
  auto file = OpenStudyStorage(named);
  EXPECT_TRUE(file.ok()) << file.status().message();
  std::filesystem::remove(named);
}

// A --storage naming another tool's database (a trace's .sqlite) or a file that is not SQLite is
// refused and left as it was; it had been given our tables and switched to WAL.
TEST(StudyStorageTest, AnotherToolsDatabaseIsRefusedAndLeftAlone) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cprof_foreign_db_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path trace = dir / "trace.sqlite";
  std::filesystem::copy_file(std::string(CPROF_FIXTURES_DIR) + "/nsys/saxpy-mpi-cuda.sqlite", trace);
  const auto size = std::filesystem::file_size(trace);
  auto foreign = OpenStudyStorage("sqlite://" + trace.string());
  ASSERT_FALSE(foreign.ok());
  EXPECT_EQ(foreign.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(foreign.status().message().find("a database of another tool"), std::string::npos)
      << foreign.status().message();
  EXPECT_EQ(std::filesystem::file_size(trace), size);
  EXPECT_FALSE(std::filesystem::exists(trace.string() + "-wal"));

  const std::filesystem::path text = dir / "notes.db";
  std::ofstream(text) << "not a database\n";
  auto garbage = OpenStudyStorage("sqlite://" + text.string());
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(garbage.status().message().find("not a study database"), std::string::npos) << garbage.status().message();
  EXPECT_FALSE(OpenStudyStorage("sqlite://").ok());
  // Our own study file opens again.
  const std::string own = "sqlite://" + (dir / "study.db").string();
  ASSERT_TRUE(OpenStudyStorage(own).ok());
  EXPECT_TRUE(OpenStudyStorage(own).ok());
  std::filesystem::remove_all(dir);
}

// Opens the SQLite study at `path` in a child process as 'nobody' (when run as root, who writes
// any file) and returns its exit status: 0 when refused with a message holding `expected`,
// 1 when opened, 2 on another error, 3 when it could not become nobody.
int OpenAsNobody(const std::string& path, const std::string& expected) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    auto store = OpenStudyStorage("sqlite://" + path);
    if (store.ok()) ::_exit(1);
    const bool named = store.status().code() == StatusCode::kInvalidInput &&
                       store.status().message().find(expected) != std::string::npos;
    ::_exit(named ? 0 : 2);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// SQLite opens a file it may not write read-only without an error; the study must be refused when
// opened, not fail at its first trial. So must a writable file in a folder it may not write (the
// -wal and -shm files go beside it).
TEST(StudyStorageTest, AReadOnlyStudyFileIsRefusedWhenOpened) {
  const std::string path = TestFile("readonly.db");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  {
    auto store = OpenStudyStorage("sqlite://" + path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE((*store)->OpenStudy("s", "fp").ok());
  }
  // The test programs' root is mkdtemp's (0700): `nobody` must be let through it.
  ASSERT_EQ(::chmod(std::filesystem::path(dir).parent_path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  EXPECT_EQ(OpenAsNobody(path, path + ": the study database is read-only"), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  EXPECT_EQ(OpenAsNobody(path, "the folder " + dir + " is not writable for this user"), 0);
  ::chmod(dir.c_str(), 0755);
  ::chmod(path.c_str(), 0644);
}

}  // namespace
}  // namespace cprof::tune
