// Status::WithContext: the context prefixes the message once.
#include "base/status.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(StatusTest, WithContextPrefixesOnce) {
  const Status s = InvalidInput("no steps found");
  EXPECT_EQ(s.WithContext("run.json").message(), "run.json: no steps found");
  // A message that already names the file (validate printed "run.json: run.json: no steps found").
  EXPECT_EQ(s.WithContext("run.json").WithContext("run.json").message(), "run.json: no steps found");
  // A longer name that merely starts like the context is still prefixed.
  EXPECT_EQ(InvalidInput("run.json.gz: bad").WithContext("run.json").message(), "run.json: run.json.gz: bad");
  EXPECT_EQ(s.WithContext("").message(), "no steps found");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

}  // namespace
}  // namespace cprof
