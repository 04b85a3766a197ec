// ParseByteSize: the one size syntax of the command line.
#include "base/byte_size.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(ByteSizeTest, BinarySuffixesInAnyCaseWithOrWithoutB) {
  EXPECT_EQ(*ParseByteSize("4G"), 4ull << 30);
  EXPECT_EQ(*ParseByteSize("512M"), 512ull << 20);
  EXPECT_EQ(*ParseByteSize("512MiB"), 512ull << 20);
  EXPECT_EQ(*ParseByteSize("1.5g"), 3ull << 29);
  EXPECT_EQ(*ParseByteSize("2048K"), 2ull << 20);
  EXPECT_EQ(*ParseByteSize("1000"), 1000u);
  EXPECT_EQ(*ParseByteSize("0"), 0u);
  EXPECT_EQ(*ParseByteSize("10G"), *ParseByteSize("10GB"));
  EXPECT_EQ(*ParseByteSize("10gb"), *ParseByteSize("10GiB"));
  for (const char* bad : {"", "G", "-1G", "4X", "nan", "1e30T", "4 G G"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }
  EXPECT_NE(ParseByteSize("4X").status().message().find("'4X' is not a size"), std::string::npos);
}

}  // namespace
// Limits in messages: a limit of 1K printed in whole MiB read "0 MiB".
TEST(ByteSizeTest, FormatsInTheLargestUnitWithAWholePart) {
  EXPECT_EQ(FormatByteSize(0), "0 B");
  EXPECT_EQ(FormatByteSize(800), "800 B");
  EXPECT_EQ(FormatByteSize(1024), "1 KiB");
  EXPECT_EQ(FormatByteSize(1536), "1.5 KiB");
  EXPECT_EQ(FormatByteSize(512ull << 20), "512 MiB");
  EXPECT_EQ(FormatByteSize((3ull << 30) / 2), "1.5 GiB");
  EXPECT_EQ(FormatByteSize((2ull << 30) - 1), "1.9 GiB");  // truncated: a limit is not rounded up past itself
  EXPECT_EQ(FormatByteSize(*ParseByteSize("1K")), "1 KiB");
}

}  // namespace cprof
