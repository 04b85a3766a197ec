// Passwords out of URLs and connection strings in text that gets recorded or printed: a trace's
// command line and environment (DATABASE_URL=postgres://bob:pw@db/x), tune's storage URL in its
// results.
//
//   RedactUrlPasswords("postgres://bob:s3cret@db/x") == "postgres://bob:<redacted>@db/x"
#pragma once

#include <string>

namespace cprof {

// `text` with the password of any URL in it (scheme://user:password@host) replaced by <redacted>,
// and every value of a key that ends in "password" (?password=pw&..., libpq's password='a b',
// PGPASSWORD=pw).
std::string RedactUrlPasswords(std::string text);

}  // namespace cprof
