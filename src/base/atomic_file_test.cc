// CheckCanCreate: the early check that an output file can be written, and that it leaves nothing.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

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

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// An output path that is a link, a device or a file with its own permissions is written as a
// shell redirection would: the link's target is replaced (not the link), /dev/null stays a device,
// and the replaced file keeps its mode.
TEST(AtomicFileTest, LinksDevicesAndPermissionsSurviveAWrite) {
  fs::path dir = fs::temp_directory_path() / ("cprof_atomic_kinds_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "real");
  const fs::path target = dir / "real" / "out.txt";
  ASSERT_TRUE(WriteFileAtomically(target.string(), "old").ok());
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink("real/out.txt", dir / "link.txt");  // relative, as `ln -s` makes them

  ASSERT_TRUE(WriteFileAtomically((dir / "link.txt").string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt")) << "the link was replaced by a file";
  EXPECT_EQ(Slurp(target), "new");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::directory_iterator(dir / "real")->path(), target) << "a temporary file was left";

  // A FIFO (or /dev/stdout, /dev/null) is written to, not replaced. Not /dev/null itself: as root
  // a regression would replace the machine's.
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("pipe", dir / "to_pipe");
  EXPECT_TRUE(CheckCanCreate((dir / "to_pipe").string()).ok()) << "the check must not wait for a reader";
  std::string got;
  std::thread reader([&] { got = Slurp(fifo); });
  Status s = WriteFileAtomically((dir / "to_pipe").string(), "through the pipe");
  // Releases the reader should the write never have opened the FIFO (harmless when it did).
  if (int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK); fd >= 0) close(fd);
  reader.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  EXPECT_TRUE(fs::is_symlink(dir / "to_pipe"));
  fs::remove_all(dir);
}

// `-o /dev/stdout` with stdout a pipe: the link leads to /proc/self/fd/1 and then to "pipe:[N]",
// which is no path; following it failed with "cannot create output file in folder /proc/self/fd".
TEST(AtomicFileTest, ALinkToAPipeIsWrittenThrough) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string proc = "/proc/self/fd/" + std::to_string(fds[1]);
  const fs::path dir = fs::temp_directory_path() / ("cprof_atomic_pipe_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::create_symlink(proc, dir / "stdout");  // as /dev/stdout -> /proc/self/fd/1
  ASSERT_TRUE(CheckCanCreate((dir / "stdout").string()).ok());
  Status s = WriteFileAtomically((dir / "stdout").string(), "to the pipe");
  close(fds[1]);
  ASSERT_TRUE(s.ok()) << s.message();
  char buf[64] = {};
  const ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "to the pipe");
  EXPECT_TRUE(fs::is_symlink(dir / "stdout"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof
