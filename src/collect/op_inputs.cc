// Operator input descriptors -> Kineto-style "Input Dims" / "Input type".
#include "collect/op_inputs.h"

#include <cstring>

#include "collect/runtime/record_format.h"

namespace cprof {

std::string_view ScalarTypeName(int t) {
  static constexpr std::string_view kNames[] = {
      "unsigned char", "signed char", "short int", "int", "long int", "c10::Half", "float", "double",
      "c10::complex<c10::Half>", "c10::complex<float>", "c10::complex<double>", "bool", "c10::qint8",
      "c10::quint8", "c10::qint32", "c10::BFloat16", "c10::quint4x2", "c10::quint2x4"};
  if (t >= 0 && t < static_cast<int>(std::size(kNames))) return kNames[t];
  return "unknown";
}

OpInputs DecodeOpInputs(const uint64_t* w, size_t n, bool truncated) {
  OpInputs out;
  out.truncated = truncated;
  out.dims = "[";
  out.types = "[";
  if (n == 0) {
    out.dims += "]";
    out.types += "]";
    return out;
  }
  size_t count = static_cast<size_t>(w[0]);
  size_t i = 1;
  for (size_t k = 0; k < count && i < n; ++k) {
    uint64_t h = w[i++];
    int kind = static_cast<int>(h & 0xff);
    int dtype = static_cast<int>((h >> 8) & 0xff);
    size_t ndim = static_cast<size_t>((h >> 16) & 0xff);
    if (k > 0) {
      out.dims += ", ";
      out.types += ", ";
    }
    out.dims += "[";
    switch (kind) {
      case CPROF_INPUT_TENSOR:
        for (size_t d = 0; d < ndim && i < n; ++d, ++i) {
          if (d > 0) out.dims += ", ";
          out.dims += std::to_string(static_cast<int64_t>(w[i]));
        }
        out.types += "\"";
        out.types += ScalarTypeName(dtype);
        out.types += "\"";
        break;
      case CPROF_INPUT_INT:
      case CPROF_INPUT_DOUBLE:
      case CPROF_INPUT_BOOL:
        ++i;  // the value (kept for a later "Concrete Inputs")
        out.types += "\"Scalar\"";
        break;
      case CPROF_INPUT_TENSOR_LIST: out.types += "\"TensorList\""; break;
      case CPROF_INPUT_NONE: out.types += "\"\""; break;
      default: out.types += "\"\""; break;
    }
    out.dims += "]";
    ++out.count;
  }
  out.dims += "]";
  out.types += "]";
  return out;
}

}  // namespace cprof
