#!/usr/bin/env bash
# Installs every Debian package cann-profiler needs to build, test and run its demo. Safe to run twice.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config time
  clang-format clang-tidy
  # make fuzz: libFuzzer with ASan+UBSan (clang 14 cannot compile libstdc++ 12's <ranges>)
  clang-16 libclang-rt-16-dev
  # libraries (DESIGN.md, "Chosen dependencies")
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  zlib1g-dev libzstd-dev libprotobuf-dev protobuf-compiler libsqlite3-dev sqlite3
  libboost-dev libeigen3-dev libpq-dev postgresql libdw-dev libelf-dev
  # cluster --mpi: one analysis over the processes of an MPI job
  libopenmpi-dev openmpi-bin
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # real PyTorch workloads (Debian's interpreter: /usr/bin/python3)
  python3 python3-torch python3-numpy
  # the PyTorch operator observer (libcprof_torch.so) and the libtorch C++ test program
  libtorch-dev
  # reference implementations our tests and benchmarks compare against
  python3-scipy python3-optuna python3-pandas
  # the HTML report is tested in a real browser (playwright-core drives Debian's chromium)
  chromium
)
# The report's front end (web/) is bundled with npm at build time. A Node.js that is already
# installed (e.g. NodeSource's, which bundles npm) is kept; Debian's packages fill the gap.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: installed ${missing[*]}"
