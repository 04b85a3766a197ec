// Folders for tests' files, removed when the test program passes and kept when it fails.
//
//   const std::filesystem::path dir = TestDir("crash_fixed");
//   // <tmp>/cprof_test_<pid>_Ab3xYz/TuneCommandTest.CrashIsFixed/crash_fixed
//   WriteFile(dir / "space.yaml", ...);
//
// Every TestDir of one test program lies under one root, made with mkdtemp under $TMPDIR (else
// /tmp), in a folder named after the running test, so two tests that use one name do not meet.
// When the program exits, the root goes with everything in it if every test passed; after a
// failure it stays, and stderr names it. A crashed program never reaches its exit, so its files
// stay too. Under ctest each test is its own program, so a run of the suite leaves behind only the
// files of the tests that failed (it used to leave one folder per test: 3 MB a run).
//
// Test-only (links GoogleTest); not thread-safe: call it from the test's own thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace cprof {

// `name` in the running test's folder under this program's root (outside a test: in `no_test`),
// created, and emptied if it held anything already (a name a test uses twice starts over). `name`
// may hold '/' for nested folders; "" is the test's folder itself, not emptied.
// Aborts the test program when no folder can be made: a test cannot run without one.
std::filesystem::path TestDir(std::string_view name);

// The path of a file `name` in the running test's folder, removed if it was there already (a
// database a test opens twice under one name starts empty each time).
std::string TestFile(std::string_view name);

namespace internal {
// What the program's exit does, now: removes the root when `passed` (true) and returns whether it
// did; keeps it and says so on stderr otherwise. The next TestDir makes a fresh root.
bool FinishTestDirs(bool passed);
}  // namespace internal

}  // namespace cprof
