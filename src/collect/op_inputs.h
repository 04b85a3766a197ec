// Decodes the PyTorch operator input descriptors of a CPROF_REC_OP_BEGIN record into the
// strings Kineto traces use for the same args, so every analysis reads one shape:
//   "Input Dims": "[[16, 3, 32, 32], [32, 3, 3, 3], []]"
//   "Input type": "[\"float\", \"float\", \"Scalar\"]"
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cprof {

struct OpInputs {
  std::string dims;   // JSON-like list of dims lists
  std::string types;  // JSON-like list of quoted type names
  int count = 0;
  bool truncated = false;
};

OpInputs DecodeOpInputs(const uint64_t* words, size_t n_words, bool truncated);

// c10::ScalarType (1.13 numbering) as caffe2::TypeMeta names it ("float", "long int", ...).
std::string_view ScalarTypeName(int scalar_type);

}  // namespace cprof
