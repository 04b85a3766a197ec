// The page's front end (web/, bundled by esbuild), embedded in the binary at build time by
// cmake/web_bundle.cmake; the definition is generated into the build directory.
//
//   const WebBundle& b = GetWebBundle();
//   if (!b.available) return Unavailable("built without the front end");
#pragma once

#include <string_view>

namespace cprof {

struct WebBundle {
  std::string_view js;          // app.js: one IIFE, contains no "</script"
  std::string_view css;         // app.css: contains no "</style"
  std::string_view js_sha256;   // hex SHA-256 of `js` (for the page's Content-Security-Policy)
  bool available;               // false when the build had no node/npm
};

const WebBundle& GetWebBundle();

}  // namespace cprof
