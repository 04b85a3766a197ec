// TestDir: see test_dir.h.
#include "testing/test_dir.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <unistd.h>

#include "base/temp_dir.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;

// The root, made at the first TestDir. Its destructor runs at the program's exit, before
// GoogleTest's UnitTest (a function-local static constructed earlier), so the result is known.
class Root {
 public:
  ~Root() {
    if (path_) Finish(::testing::UnitTest::GetInstance()->Passed());
  }
  const fs::path& Get() {
    if (!path_) {
      StatusOr<std::string> dir = MakeTempDir("cprof_test_" + std::to_string(::getpid()) + "_");
      if (!dir.ok()) {
        std::fprintf(stderr, "TestDir: %s\n", dir.status().message().c_str());
        std::abort();
      }
      path_ = *dir;
    }
    return *path_;
  }
  bool Finish(bool passed) {
    if (!path_) return false;
    std::error_code ec;
    if (passed) fs::remove_all(*path_, ec);
    else std::fprintf(stderr, "test files kept in %s\n", path_->c_str());
    path_.reset();
    return passed && !ec;
  }

 private:
  std::optional<fs::path> path_;
};

Root& TheRoot() {
  static Root root;
  return root;
}

}  // namespace

fs::path TestDir(std::string_view name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string folder = test ? std::string(test->test_suite_name()) + "." + test->name() : "no_test";
  fs::path dir = TheRoot().Get() / folder;
  std::error_code ec;
  if (!name.empty()) {
    dir /= name;
    fs::remove_all(dir, ec);
  }
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "TestDir: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
    std::abort();
  }
  return dir;
}

std::string TestFile(std::string_view name) {
  const fs::path path = TestDir("") / name;
  std::error_code ec;
  fs::remove(path, ec);
  return path.string();
}

namespace internal {
bool FinishTestDirs(bool passed) { return TheRoot().Finish(passed); }
}  // namespace internal

}  // namespace cprof
