// A PostgreSQL server that accepts the connection and never answers (a hung server, a port
// forwarded to nothing): tune waited before its first trial for good. Slow: the default timeout
// is 10 s.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "tune/study_storage.h"

namespace cprof::tune {
namespace {

TEST(PostgresTimeoutTest, AServerThatNeverAnswersIsAnErrorWithinTheDefaultTimeout) {
  // Listening, never accepting: the kernel completes the handshake, nothing ever answers.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string url = "postgresql://nobody@127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/db";

  const auto start = std::chrono::steady_clock::now();
  auto store = OpenStudyStorage(url);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(store.ok());
  EXPECT_NE(std::string(store.status().message()).find("timeout expired"), std::string::npos)
      << store.status().message();
  EXPECT_LT(seconds, 20);
  // The URL's own connect_timeout overrides the default.
  const auto again = std::chrono::steady_clock::now();
  EXPECT_FALSE(OpenStudyStorage(url + "?connect_timeout=2").ok());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - again).count(), 5);
  ::close(fd);
}

}  // namespace
}  // namespace cprof::tune
