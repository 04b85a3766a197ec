// A fresh folder under the temporary directory ($TMPDIR, else /tmp), made with mkdtemp.
//
//   ASSIGN_OR_RETURN(std::string dir, MakeTempDir("cprof-pdf-"));   // /tmp/cprof-pdf-Ab3xYz
//   ... std::filesystem::remove_all(dir, ec);                        // the caller removes it
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

// kInvalidInput naming the folder it tried and the system's reason (a TMPDIR that does not
// exist or is not writable is the user's to fix).
StatusOr<std::string> MakeTempDir(std::string_view prefix);

}  // namespace cprof
