#include "base/torch_version.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(TorchVersionTest, ReadsTheMajorVersion) {
  EXPECT_EQ(TorchMajorVersion("1.13.1"), 1);
  EXPECT_EQ(TorchMajorVersion("2.6.0+cu124"), 2);
  EXPECT_EQ(TorchMajorVersion("2.1.0a0+git1234"), 2);
  EXPECT_EQ(TorchMajorVersion("10.0"), 10);
  EXPECT_EQ(TorchMajorVersion("2"), 2);
  EXPECT_EQ(TorchMajorVersion(""), std::nullopt);
  EXPECT_EQ(TorchMajorVersion("?"), std::nullopt);
  EXPECT_EQ(TorchMajorVersion("v2.0"), std::nullopt);
  EXPECT_EQ(TorchMajorVersion("12abc"), std::nullopt);
  EXPECT_EQ(TorchMajorVersion("-1"), std::nullopt);
}

TEST(TorchVersionTest, CompileNeedsPyTorchTwoAndAnUnknownVersionKeepsIt) {
  EXPECT_FALSE(TorchHasCompile("1.13.1"));
  EXPECT_FALSE(TorchHasCompile("1.9.0+cu111"));
  EXPECT_TRUE(TorchHasCompile("2.0.0"));
  EXPECT_TRUE(TorchHasCompile("2.6.0+cu124"));
  EXPECT_TRUE(TorchHasCompile(""));
  EXPECT_TRUE(TorchHasCompile("?"));
}

}  // namespace
}  // namespace cprof
