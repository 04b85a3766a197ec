// How much slower this build runs than an uninstrumented one, for tests whose time bounds assume
// -O2 without sanitizers: ASan+UBSan at -O1 (make test-sanitize) measured ~2x on diagnose, and up
// to 4x more on a 2-core machine shared with a build. Usage:
//   EXPECT_LT(ms, 1000 * kSanitizerSlowdown) << "diagnose must take well under a second";
#pragma once

namespace cprof {

#if defined(__SANITIZE_ADDRESS__)  // g++ -fsanitize=address
inline constexpr double kSanitizerSlowdown = 5;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang -fsanitize=address (make fuzz)
inline constexpr double kSanitizerSlowdown = 5;
#else
inline constexpr double kSanitizerSlowdown = 1;
#endif
#else
inline constexpr double kSanitizerSlowdown = 1;
#endif

}  // namespace cprof
