// CheckCanCreate: the early check that an output file can be written, and that it leaves nothing.
#include "base/atomic_file.h"

#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace cprof {
namespace {

namespace fs = std::filesystem;

TEST(AtomicFileTest, CheckCanCreateNamesThePathAndTheReasonAndLeavesNothing) {
  fs::path dir = fs::temp_directory_path() / ("cprof_atomic_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_TRUE(CheckCanCreate((dir / "out.pb").string()).ok());
  EXPECT_TRUE(fs::is_empty(dir)) << "the probe's temporary file was left behind";

  const std::string missing = (dir / "nope" / "out.pb").string();
  Status s = CheckCanCreate(missing);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(missing), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("folder " + (dir / "nope").string()), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("No such file or directory"), std::string::npos) << s.message();

  s = CheckCanCreate(dir.string());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("it is a folder"), std::string::npos) << s.message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof
