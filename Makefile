# cann-profiler: the two commands (make demo, make test) and the developer targets.
# Each of demo/test runs setup, configure and build first, so a fresh Debian 12 clone needs nothing else.

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
OUT ?= out
PYTHON ?= /usr/bin/python3
CMAKE_FLAGS ?=
CTEST_LABELS ?= unit|golden|browser|slow

PREFIX ?= /usr/local

# ccache: key objects by paths relative to the checkout, so clones and sibling build dirs share them.
export CCACHE_BASEDIR ?= $(abspath $(CURDIR)/..)
export CCACHE_NOHASHDIR ?= 1

.PHONY: all setup configure build demo demo-gpt test bench format lint clean test-sanitize test-sanitize-ci install fuzz

all: build

setup:
	scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job on a bundled AIGC workload (examples/aigc): trace -> diagnose -> generate-plan ->
# tune --from_diagnosis -> validate -> visualize, everything in $(OUT)/demo (gpt: $(OUT)/demo-gpt).
demo: build
	scripts/demo.sh $(BUILD_DIR) $(OUT) unet

demo-gpt: build
	scripts/demo.sh $(BUILD_DIR) $(OUT) gpt

# Every test that needs no GPU (ctest labels unit, golden, browser, slow; not gpu).
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L '$(CTEST_LABELS)' -LE gpu

# libFuzzer targets (fuzz/, clang-16, ASan+UBSan) each run FUZZ_SECONDS, seeded from the fixtures;
# fails on any crash, leak, timeout or UB report. Only the fuzzers' libraries are built.
FUZZ_SECONDS ?= 60
FUZZ_BUILD_DIR ?= build-fuzz
fuzz: setup
	cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 \
	  -DCMAKE_CXX_COMPILER=clang++-16 -DCPROF_FUZZ=ON -DCPROF_BUILD_TESTS=OFF -DCPROF_BUILD_BENCH=OFF
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target cprof_fuzzers
	fuzz/run_fuzzers.sh $(FUZZ_BUILD_DIR) ../shared/fixtures $(FUZZ_SECONDS)

# The unit and golden tests under ASan+UBSan (g++, CPROF_SANITIZE) in build-sanitize/; any report
# (memory error, leak, undefined behaviour) fails the test that hit it. Not the slow and browser
# labels: they time real workloads and a browser, whose programs run uninstrumented anyway.
# SANITIZE_TARGETS picks the test executables to build and run (default: all of them; ctest also
# runs any other test executable an earlier build left in the folder);
# test-sanitize-ci is CI's subset, the modules that parse untrusted traces and analyse them
# (README, "Other targets", has the reasons and times).
SANITIZE_DIR ?= build-sanitize
SANITIZE_TARGETS ?= all
SANITIZE_CI_TARGETS := cprof_base_tests_unit cprof_model_tests_unit cprof_stats_tests_unit \
  cprof_import_tests_unit cprof_import_tests_golden cprof_analysis_tests_unit cprof_analysis_tests_golden \
  cprof_export_tests_unit cprof_export_tests_golden cprof_report_tests_unit
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-sanitize:
	$(MAKE) configure BUILD_DIR=$(SANITIZE_DIR) CMAKE_FLAGS="-DCPROF_SANITIZE=ON -DCPROF_BUILD_BENCH=OFF"
	$(SANITIZE_ENV) cmake --build $(SANITIZE_DIR) -j $(JOBS) --target $(SANITIZE_TARGETS)
	cd $(SANITIZE_DIR) && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) -L 'unit|golden' -LE gpu

test-sanitize-ci:
	$(MAKE) test-sanitize SANITIZE_TARGETS="$(SANITIZE_CI_TARGETS)"

bench: build
	bench/run_benchmarks.sh $(BUILD_DIR)

# cann-profiler and cann-auto-tune (the same program, `tune` implied) into $(PREFIX)/bin, trace's
# runtime (preload libraries, Python shim) into $(PREFIX)/lib/cann-profiler/runtime.
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

format:
	git ls-files '*.cc' '*.h' | xargs clang-format -i

lint: configure
	git ls-files 'src/*.cc' | xargs clang-tidy -p $(BUILD_DIR) --quiet

clean:
	rm -rf $(BUILD_DIR) $(OUT)
