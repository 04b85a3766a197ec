// TestDir: one root per program, emptied names, and the root removed on a pass, kept on a failure.
#include "testing/test_dir.h"

#include <gtest/gtest.h>

#include <fstream>

namespace cprof {
namespace {

namespace fs = std::filesystem;

TEST(TestDirTest, NamesLieInTheTestsFolderAndStartEmpty) {
  const fs::path a = TestDir("a"), b = TestDir("b/c");
  EXPECT_EQ(a.parent_path(), b.parent_path().parent_path());
  EXPECT_EQ(a.parent_path(), TestDir(""));
  EXPECT_EQ(a.parent_path().filename(), "TestDirTest.NamesLieInTheTestsFolderAndStartEmpty");
  EXPECT_NE(a.parent_path().parent_path().filename().string().find("cprof_test_"), std::string::npos);
  std::ofstream(a / "f") << "x";
  ASSERT_TRUE(fs::exists(a / "f"));
  EXPECT_TRUE(fs::is_empty(TestDir("a")));  // a name used again starts over
}

TEST(TestDirTest, AFileIsNamedInTheTestsFolderAndNotThereYet) {
  const std::string f = TestFile("x.db");
  EXPECT_EQ(fs::path(f).parent_path(), TestDir(""));
  std::ofstream(f) << "x";
  EXPECT_FALSE(fs::exists(TestFile("x.db")));
}

TEST(TestDirTest, ThePassRemovesTheRootAFailureKeepsIt) {
  const fs::path kept = TestDir("kept").parent_path().parent_path();
  EXPECT_FALSE(internal::FinishTestDirs(false));
  EXPECT_TRUE(fs::exists(kept));
  const fs::path root = TestDir("gone").parent_path().parent_path();
  EXPECT_NE(root, kept);  // a fresh root after the finish
  std::ofstream(TestDir("gone") / "f") << "x";
  EXPECT_TRUE(internal::FinishTestDirs(true));
  EXPECT_FALSE(fs::exists(root));
  std::error_code ec;
  fs::remove_all(kept, ec);
}

}  // namespace
}  // namespace cprof
