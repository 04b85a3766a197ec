// libFuzzer target: `tune` search-space files — our YAML, Kernel Tuner cache JSON and T4 JSON,
// chosen by content as LoadSpaceFile does (gzip undone first) — and, for a space that loads, what
// the tuner does with it first: the default configuration, uniform samples canonicalized against
// the conditions, the constraints evaluated, keys and neighbours.
//
//   make fuzz FUZZ_SECONDS=60
//   build-fuzz/fuzz/fuzz_tune_space -max_total_time=60 -rss_limit_mb=2048 -timeout=30 CORPUS_DIR
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_files.h"
#include "tune/rng.h"
#include "tune/space_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cprof::tune;
  static cprof::fuzz::ScratchDir dir("space");
  const std::string path = dir.Write("space.yaml", data, size);
  cprof::StatusOr<SpaceFile> file = LoadSpaceFile(path);
  if (!file.ok()) return 0;
  const SearchSpace& space = file->space;
  (void)space.CartesianSize();
  if (std::optional<Config> d = space.DefaultConfig()) (void)space.Named(*d);
  Rng rng(size);
  for (int i = 0; i < 4; ++i) {
    Config c = space.Canonicalize(space.SampleUniform(rng), &rng);
    if (space.Feasible(c)) {
      (void)space.Key(c);
      (void)space.Values(c);
      (void)space.Neighbors(c);
    }
  }
  return 0;
}
