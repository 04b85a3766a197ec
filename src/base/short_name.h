// Names cut to a table column (kernel names run to a thousand characters of template arguments)
// so that two different names never look the same once cut.
//
//   ShortName("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, ...)", 48)
//     == "void cudnn::bn_bw_1C11_ker...128, true, 1> #f5c7"   (the tag depends on the full name)
//
// A name that fits is returned unchanged. A longer one first loses its trailing parameter list
// (the same for every instantiation of a kernel, so it tells none apart), then its middle: the
// start (namespace, kernel) and the end (the last template arguments, where instantiations
// differ) stay. A cut name ends with " #" and 4 hex digits of a hash of the whole name (base/hash.h,
// stable across runs and commands), so summary and compare tag the same kernel alike and two
// names cut to the same text still differ. The full name stays in the JSON outputs.
#pragma once

#include <string>
#include <string_view>

namespace cprof {

// At most `width` bytes (width >= 16); see above. Control characters are escaped first (Printable).
std::string ShortName(std::string_view name, size_t width);

// `text` safe to print on a terminal: control characters (an ESC sequence, a newline that would
// break a table row) become \xNN; UTF-8 and everything else is unchanged. Traces come from strangers.
std::string Printable(std::string_view text);

}  // namespace cprof
