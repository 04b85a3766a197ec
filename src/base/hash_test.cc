// Fnv1a against the reference values of the FNV-1a 64-bit specification.
#include "base/hash.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(HashTest, Fnv1aReferenceValues) {
  EXPECT_EQ(Fnv1a(""), kFnv1aBasis);
  EXPECT_EQ(Fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a("foobar"), 0x85944171f73967e8ull);
  EXPECT_NE(Fnv1a("foobar", kFnv1aBasis ^ 1), Fnv1a("foobar"));
  static_assert(Fnv1a("a") == 0xaf63dc4c8601ec8cull, "usable at compile time");
}

}  // namespace
}  // namespace cprof
