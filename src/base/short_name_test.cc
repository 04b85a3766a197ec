// ShortName: cut names fit their column and never look alike when the full names differ.
#include "base/short_name.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

// Two kernels of a real Kineto trace (HTA ns_resolution_trace) that differ only in a template
// argument in the middle of a 240-character name.
const std::string kBn128 =
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, float, float, float, "
    "cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, "
    "float*, float*, float const*, float const*, float)";
const std::string kBn32 =
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>(float, float, float, float, "
    "cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, "
    "float*, float*, float const*, float const*, float)";
const std::string kThreshold =
    "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
    "at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
    "float)::{lambda(float, float)#1}>, at::detail::Array<char*, 3> >(int, at::native::BinaryFunctor<float, "
    "float, float, at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, "
    "float, float)::{lambda(float, float)#1}>, at::detail::Array<char*, 3>)";
const std::string kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";

TEST(ShortNameTest, FittingNamesAreUnchanged) {
  EXPECT_EQ(ShortName("aten::mul", 48), "aten::mul");
  EXPECT_EQ(ShortName(std::string(48, 'x'), 48), std::string(48, 'x'));
}

TEST(ShortNameTest, CutNamesFitAndStayDistinct) {
  for (size_t width : {48u, 110u}) {
    const std::string b128 = ShortName(kBn128, width), b32 = ShortName(kBn32, width);
    const std::string thr = ShortName(kThreshold, width), add = ShortName(kAdd, width);
    for (const std::string& s : {b128, b32, thr, add}) {
      EXPECT_LE(s.size(), width) << s;
      EXPECT_EQ(s.rfind("void ", 0), 0u) << s;  // the start stays
    }
    EXPECT_NE(b128, b32);
    EXPECT_NE(thr, add);
    EXPECT_EQ(ShortName(kBn128, width), b128);  // stable
  }
  // At 48 the parameter list goes and the differing template arguments at the end stay.
  EXPECT_NE(ShortName(kBn128, 48).find("128, true, 1> #"), std::string::npos) << ShortName(kBn128, 48);
  EXPECT_NE(ShortName(kBn32, 48).find("32, true, 1> #"), std::string::npos) << ShortName(kBn32, 48);
  // At 110 the name without its parameters fits whole.
  EXPECT_EQ(ShortName(kBn128, 110).rfind("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1> #", 0),
            0u)
      << ShortName(kBn128, 110);
}

// Names from a trace reach a terminal: an ESC sequence or a newline inside one is shown, not run.
TEST(ShortNameTest, ControlCharactersAreEscaped) {
  EXPECT_EQ(Printable("evil\x1b[31mRED\nsecond"), "evil\\x1b[31mRED\\x0asecond");
  EXPECT_EQ(Printable("aten::mm \xce\xbc"), "aten::mm \xce\xbc");  // UTF-8 stays
  EXPECT_EQ(ShortName("a\tb", 48), "a\\x09b");
  const std::string cut = ShortName(std::string(100, 'k') + "\x1b", 48);
  EXPECT_EQ(cut.size(), 48u);
  EXPECT_EQ(cut.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace cprof
