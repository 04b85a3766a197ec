#include "base/url_password.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

// DATABASE_URL=postgres://bob:s3cretpw@db/x was recorded in clear.
TEST(UrlPasswordTest, UrlPasswordsAreRedacted) {
  EXPECT_EQ(RedactUrlPasswords("postgres://bob:s3cretpw@db/x"), "postgres://bob:<redacted>@db/x");
  EXPECT_EQ(RedactUrlPasswords("a https://u:p@h:8080/p?q=1 and s3://k:v@b"),
            "a https://u:<redacted>@h:8080/p?q=1 and s3://k:<redacted>@b");
  EXPECT_EQ(RedactUrlPasswords("https://user@host/x"), "https://user@host/x");  // no password
  EXPECT_EQ(RedactUrlPasswords("http://host:8080/a@b"), "http://host:8080/a@b");  // '@' past the authority
  EXPECT_EQ(RedactUrlPasswords("no url"), "no url");
}

}  // namespace
}  // namespace cprof
