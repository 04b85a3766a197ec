// cluster --mpi under a real mpirun (Open MPI) on the torch_npu fixture ranks: the report equals
// the one-process report whatever the number of processes, including a process with no input
// and an unreadable rank loaded by another process than the root.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/temp_dir.h"
#include "base/time_units.h"
#include "cli/cli_app.h"
#include "tune/trial_runner.h"

namespace cprof::cli {
namespace {
namespace fs = std::filesystem;

const std::string kRanks = std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1";
const std::string kBinary = CPROF_BINARY_DIR "/cann-profiler";

nlohmann::json WithoutRunInfo(nlohmann::json doc) {
  doc.erase("elapsed_seconds");
  doc.erase("processes");
  return doc;
}

// The JSON report of `mpirun --oversubscribe MPIRUN_ARGS...`.
nlohmann::json RunMpirun(const std::vector<std::string>& mpirun_args, std::string* err,
                         const std::vector<std::pair<std::string, std::string>>& extra_env = {}) {
  std::vector<std::string> argv = {"mpirun", "--oversubscribe"};
  argv.insert(argv.end(), mpirun_args.begin(), mpirun_args.end());
  // Root may run Open MPI only when it says so; a container has no high-speed interconnect to probe.
  std::vector<std::pair<std::string, std::string>> env = {
      {"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}, {"OMPI_MCA_btl", "self,vader,tcp"},
      {"OMPI_MCA_btl_vader_single_copy_mechanism", "none"}, {"ASAN_OPTIONS", "detect_leaks=0"}};
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  tune::ProcessResult r = tune::RunProcess(argv, env, 120 * kNsPerS, "/tmp");
  *err = r.spawn_error + r.err;
  EXPECT_EQ(r.exit_code, 0) << *err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// The JSON report of `mpirun -n N cann-profiler cluster --mpi ARGS... --json`.
nlohmann::json RunUnderMpi(int n, const std::vector<std::string>& args, std::string* err,
                           const std::vector<std::pair<std::string, std::string>>& extra_env = {}) {
  std::vector<std::string> argv = {"-n", std::to_string(n), kBinary, "cluster", "--mpi"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  return RunMpirun(argv, err, extra_env);
}

nlohmann::json RunInProcess(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"cluster"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  std::ostringstream out, err;
  EXPECT_EQ(RunCli(argv, out, err), 0) << err.str();
  return nlohmann::json::parse(out.str());
}

TEST(ClusterMpi, EveryProcessCountGivesTheOneProcessReport) {
  nlohmann::json expected = RunInProcess({kRanks});
  ASSERT_EQ(expected["ranks"].size(), 2u);
  for (int n : {1, 2, 3}) {  // 3: one process has no rank to load
    std::string err;
    nlohmann::json doc = RunUnderMpi(n, {kRanks}, &err);
    ASSERT_FALSE(doc.is_discarded()) << err;
    EXPECT_EQ(doc["processes"], n);
    EXPECT_EQ(WithoutRunInfo(doc), WithoutRunInfo(expected)) << "with " << n << " processes";
    EXPECT_NE(err.find("2 inputs loaded by " + std::to_string(n) + " MPI processes"), std::string::npos) << err;
  }
}

// Summaries larger than one message (1 GiB by default; 100 bytes here) arrive in several
// messages and are put back together in order.
TEST(ClusterMpi, SummariesLargerThanOneMessageArriveWhole) {
  nlohmann::json expected = RunInProcess({kRanks, "--full_trace"});
  std::string err;
  nlohmann::json doc = RunUnderMpi(3, {kRanks, "--full_trace"}, &err, {{"CPROF_MPI_CHUNK_BYTES", "100"}});
  ASSERT_FALSE(doc.is_discarded()) << err;
  EXPECT_EQ(doc["rank_count"], 2);
  EXPECT_EQ(WithoutRunInfo(doc), WithoutRunInfo(expected));
}

// Process 1 is given (as a host with another view of the file system would find) only rank 1:
// the job still loads process 0's inputs, rank 1 by process 1.
TEST(ClusterMpi, ProcessZerosInputsAreTheJobs) {
  const std::vector<std::string> inputs = {kRanks + "/rank0_ascend_pt", kRanks + "/rank1_ascend_pt"};
  nlohmann::json expected = RunInProcess(inputs);
  ASSERT_EQ(expected["ranks"].size(), 2u);
  std::string err;
  nlohmann::json doc = RunMpirun({"-n", "1", kBinary, "cluster", "--mpi", inputs[0], inputs[1], "--json", ":", "-n", "1",
                                  kBinary, "cluster", "--mpi", inputs[0], "--json"},
                                 &err);
  ASSERT_FALSE(doc.is_discarded()) << err;
  EXPECT_EQ(WithoutRunInfo(doc), WithoutRunInfo(expected));
}

TEST(ClusterMpi, UnreadableRanksFromOtherProcessesAreListedInInputOrder) {
  StatusOr<std::string> made = MakeTempDir("cprof-cluster-mpi-");
  ASSERT_TRUE(made.ok()) << made.status().message();
  fs::path dir = *made;
  for (const char* name : {"x", "y"}) {
    fs::path out = dir / name / "rank7_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
    fs::create_directories(out);
    std::ofstream(out / "trace_view.json") << R"({"traceEvents": [)";
  }
  // Process 0 of 2 loads inputs 0 and 2 (rank 1, broken y), process 1 inputs 1 and 3 (broken x,
  // rank 0): in the order of the processes y would come before x.
  std::vector<std::string> args = {kRanks + "/rank1_ascend_pt", (dir / "x").string(), (dir / "y").string(),
                                   kRanks + "/rank0_ascend_pt", "--full_trace"};
  nlohmann::json expected = RunInProcess(args);
  std::string err;
  nlohmann::json doc = RunUnderMpi(2, args, &err);
  fs::remove_all(dir);
  ASSERT_FALSE(doc.is_discarded()) << err;
  ASSERT_EQ(doc["unreadable_ranks"].size(), 2u);
  EXPECT_NE(doc["unreadable_ranks"][0]["path"].get<std::string>().find("/x/"), std::string::npos);
  EXPECT_NE(doc["unreadable_ranks"][1]["path"].get<std::string>().find("/y/"), std::string::npos);
  EXPECT_NE(doc["unreadable_ranks"][0]["reason"].get<std::string>().find("truncated"), std::string::npos);
  EXPECT_EQ(doc["rank_count"], 2);
  EXPECT_EQ(doc["mode"], "full_trace");
  EXPECT_EQ(WithoutRunInfo(doc), WithoutRunInfo(expected));
}

}  // namespace
}  // namespace cprof::cli
