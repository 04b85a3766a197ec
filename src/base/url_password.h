// Passwords out of URLs in text that gets recorded or printed: a trace's command line and
// environment (DATABASE_URL=postgres://bob:pw@db/x), tune's storage URL in its results.
//
//   RedactUrlPasswords("postgres://bob:s3cret@db/x") == "postgres://bob:<redacted>@db/x"
#pragma once

#include <string>

namespace cprof {

// `text` with the password of any URL in it (scheme://user:password@host) replaced by <redacted>.
std::string RedactUrlPasswords(std::string text);

}  // namespace cprof
