// MakeTempDir: a new folder each call under $TMPDIR; a TMPDIR that is not there is a clear error.
#include "base/temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace cprof {
namespace {

namespace fs = std::filesystem;

TEST(TempDirTest, NewFolderUnderTmpdirEachCall) {
  auto a = MakeTempDir("cprof-test-");
  auto b = MakeTempDir("cprof-test-");
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().message() << b.status().message();
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(fs::is_directory(*a));
  EXPECT_EQ(fs::path(*a).filename().string().rfind("cprof-test-", 0), 0u) << *a;
  EXPECT_EQ(fs::path(*a).parent_path(), fs::temp_directory_path());
  fs::remove_all(*a);
  fs::remove_all(*b);
}

TEST(TempDirTest, MissingTmpdirIsAnErrorNamingIt) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent/cprof-tmp", 1);
  auto d = MakeTempDir("cprof-test-");
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(d.status().message().find("/nonexistent/cprof-tmp"), std::string::npos) << d.status().message();
}

}  // namespace
}  // namespace cprof
