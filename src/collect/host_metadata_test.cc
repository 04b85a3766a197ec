// Secrets kept out of a trace's metadata: environment names, URL passwords, command-line options.
#include "collect/host_metadata.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(HostMetadataTest, SecretEnvironmentNames) {
  for (const char* name : {"AWS_SECRET_ACCESS_KEY", "HF_TOKEN", "MY_PASSWORD", "OPENAI_API_KEY", "GITHUB_PAT",
                           "BASIC_AUTH", "PAT", "gcp_credentials"})
    EXPECT_TRUE(IsSecretEnvName(name)) << name;
  for (const char* name : {"PATH", "LD_LIBRARY_PATH", "AUTHOR", "HOME", "OMP_NUM_THREADS", "PATTERN"})
    EXPECT_FALSE(IsSecretEnvName(name)) << name;
}

// `--password hunter2` and `--api-key=sk-live-123` were recorded in the trace's command line.
TEST(HostMetadataTest, SecretOptionsOnTheCommandLineAreRedacted) {
  const std::vector<std::string> argv = {"python3", "train.py", "--password", "hunter2", "--api-key=sk-live-123",
                                         "--token", "tok1",     "--lr",       "0.1",     "--db",
                                         "mysql://root:pw@h/d", "--path", "/data"};
  const std::vector<std::string> want = {"python3", "train.py", "--password", "<redacted>", "--api-key=<redacted>",
                                         "--token", "<redacted>", "--lr", "0.1", "--db",
                                         "mysql://root:<redacted>@h/d", "--path", "/data"};
  EXPECT_EQ(RedactedArgv(argv), want);
}

// A word of dashes alone (`trace -- prog --`) threw out of substr: the trace was never written.
TEST(HostMetadataTest, WordsOfDashesAloneAreKept) {
  const std::vector<std::string> argv = {"prog", "--", "---", "-", "-=x", "--=y", "--token", "t"};
  const std::vector<std::string> want = {"prog", "--", "---", "-", "-=x", "--=y", "--token", "<redacted>"};
  EXPECT_EQ(RedactedArgv(argv), want);
}

}  // namespace
}  // namespace cprof
