// `summary`'s text report in-process on a real Kineto trace (HTA ns_resolution_trace): metadata
// keys longer than their column keep a space before the value, and kernel names cut to the
// column still tell different kernels apart.
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace cprof::cli {
namespace {

using namespace cli_test;

const std::string kTrace =
    std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";

TEST(SummaryCommandTest, LongKeysAndLongKernelNamesStayReadable) {
  Result r = RunArgs({"summary", kTrace});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  logical_server_subtype TNG_NVDA_VOLTA_32G\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  tw_job                torchx-"), std::string::npos) << r.out;  // short keys as before

  // The kernel table: every row's name is different (two bn_bw_1C11 instantiations included).
  size_t table = r.out.find("top device kernels by total time");
  ASSERT_NE(table, std::string::npos) << r.out;
  std::istringstream lines(r.out.substr(table));
  std::string line;
  std::getline(lines, line);  // title
  std::getline(lines, line);  // header
  std::set<std::string> names;
  int rows = 0, bn = 0;
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    std::string name = line.substr(2, 48);
    names.insert(name);
    ++rows;
    if (name.find("bn_bw_1C11") != std::string::npos) ++bn;
  }
  EXPECT_EQ(rows, 10);
  EXPECT_EQ(bn, 2);
  EXPECT_EQ(names.size(), static_cast<size_t>(rows)) << r.out.substr(table);
}

}  // namespace
}  // namespace cprof::cli
