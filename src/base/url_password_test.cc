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

// A password in a URL's query, or a libpq key=value string, was printed in full by tune.
TEST(UrlPasswordTest, PasswordValuesAreRedacted) {
  EXPECT_EQ(RedactUrlPasswords("postgresql://tuner@127.0.0.1:42163/db?password=tunepw"),
            "postgresql://tuner@127.0.0.1:42163/db?password=<redacted>");
  EXPECT_EQ(RedactUrlPasswords("postgresql:///db?host=/tmp&user=u&password=pw&sslmode=disable"),
            "postgresql:///db?host=/tmp&user=u&password=<redacted>&sslmode=disable");
  EXPECT_EQ(RedactUrlPasswords("host=h port=5 user=u password=pw dbname=d"),
            "host=h port=5 user=u password=<redacted> dbname=d");
  EXPECT_EQ(RedactUrlPasswords("host=h password='a b' dbname=d"), "host=h password='<redacted>' dbname=d");
  EXPECT_EQ(RedactUrlPasswords("PGPASSWORD=s3cret DB_Password=x other=1"),
            "PGPASSWORD=<redacted> DB_Password=<redacted> other=1");
  EXPECT_EQ(RedactUrlPasswords("passwords=1 password_hint=2 mypasswordx=3"),
            "passwords=1 password_hint=2 mypasswordx=3");
  EXPECT_EQ(RedactUrlPasswords("postgres://u:pw@h/d?password=pw"),
            "postgres://u:<redacted>@h/d?password=<redacted>");
  // libpq allows spaces around '=' and \' inside quotes; '&' and '#' end a value only in a query.
  EXPECT_EQ(RedactUrlPasswords("host=h password = s3cret dbname=d"), "host=h password = <redacted> dbname=d");
  EXPECT_EQ(RedactUrlPasswords("password='it\\'s x' dbname=d"), "password='<redacted>' dbname=d");
  EXPECT_EQ(RedactUrlPasswords("PGPASSWORD=a&b;c#d next"), "PGPASSWORD=<redacted> next");
  EXPECT_EQ(RedactUrlPasswords("x?password=a;b&c=1#f"), "x?password=<redacted>&c=1#f");
}

}  // namespace
}  // namespace cprof
