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

.PHONY: all setup configure build demo demo-gpt test bench format lint clean test-sanitize install

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

test-sanitize:
	$(MAKE) test BUILD_DIR=build-sanitize CMAKE_FLAGS="-DCPROF_SANITIZE=ON -DCPROF_BUILD_BENCH=OFF"

bench: build
	bench/run_benchmarks.sh $(BUILD_DIR)

# cann-profiler and cann-auto-tune (the same program, `tune` implied) into $(PREFIX)/bin.
install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

format:
	git ls-files '*.cc' '*.h' | xargs clang-format -i

lint: configure
	git ls-files 'src/*.cc' | xargs clang-tidy -p $(BUILD_DIR) --quiet

clean:
	rm -rf $(BUILD_DIR) $(OUT)
