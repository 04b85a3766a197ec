// Block scanner: per 64-byte block, bit masks of quotes, backslashes and brackets; escapes and
// the inside-string mask are resolved with simdjson's carry-less tricks (backslash runs, prefix
// xor), so the cost is a few instructions per byte whatever the strings contain.
#include "import/json/structural_scanner.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CPROF_SCAN_AVX2 1
#endif

namespace cprof::json {
namespace {

struct BlockMasks {
  uint64_t quote = 0;
  uint64_t backslash = 0;
  uint64_t open = 0;   // '{' or '['
  uint64_t close = 0;  // '}' or ']'
};

#if defined(__SSE2__)
inline BlockMasks Classify(const char* p) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i lower = _mm_set1_epi8(0x20);
  // b | 0x20 maps '[' (0x5B) and '{' (0x7B) to 0x7B, ']' and '}' to 0x7D, and nothing else there.
  const __m128i open = _mm_set1_epi8(0x7B);
  const __m128i close = _mm_set1_epi8(0x7D);
  BlockMasks m;
  for (int i = 0; i < 4; ++i) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    __m128i folded = _mm_or_si128(v, lower);
    const int shift = 16 * i;
    m.quote |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)))) << shift;
    m.backslash |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)))) << shift;
    m.open |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)))) << shift;
    m.close |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)))) << shift;
  }
  return m;
}
#else
inline BlockMasks Classify(const char* p) {
  BlockMasks m;
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    switch (p[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{': case '[': m.open |= bit; break;
      case '}': case ']': m.close |= bit; break;
      default: break;
    }
  }
  return m;
}
#endif

#ifdef CPROF_SCAN_AVX2
__attribute__((target("avx2"))) inline BlockMasks ClassifyAvx2(const char* p) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i lower = _mm256_set1_epi8(0x20);
  const __m256i open = _mm256_set1_epi8(0x7B);
  const __m256i close = _mm256_set1_epi8(0x7D);
  BlockMasks m;
  for (int i = 0; i < 2; ++i) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * i));
    __m256i folded = _mm256_or_si256(v, lower);
    const int shift = 32 * i;
    m.quote |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)))) << shift;
    m.backslash |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, backslash)))) << shift;
    m.open |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, open)))) << shift;
    m.close |= uint64_t(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, close)))) << shift;
  }
  return m;
}
#endif

// Bits of characters preceded by an odd run of backslashes (simdjson's find_escaped_branchless).
// `carry` is 1 when the previous block ended in an unfinished escape.
inline uint64_t FindEscaped(uint64_t backslash, uint64_t& carry) {
  constexpr uint64_t kEvenBits = 0x5555555555555555ULL;
  backslash &= ~carry;
  const uint64_t follows_escape = (backslash << 1) | carry;
  const uint64_t odd_sequence_starts = backslash & ~kEvenBits & ~follows_escape;
  uint64_t sequences_starting_on_even_bits;
  carry = __builtin_add_overflow(odd_sequence_starts, backslash, &sequences_starting_on_even_bits) ? 1 : 0;
  const uint64_t invert_mask = sequences_starting_on_even_bits << 1;
  return (kEvenBits ^ invert_mask) & follows_escape;
}

// Bit i = xor of bits 0..i: 1 from an opening quote up to (not including) its closing quote.
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The scan loop, instantiated once per block classifier (SSE2 everywhere, AVX2 where the CPU has it).
#define CPROF_FIND_COMPOSITE_END(CLASSIFY)                                                 \
  uint64_t escape_carry = 0;                                                               \
  uint64_t in_string_carry = 0; /* all ones if the previous block ended inside a string */ \
  int64_t depth = 0;                                                                       \
  for (size_t off = 0; off < len; off += 64) {                                             \
    const BlockMasks m = CLASSIFY(p + off);                                                \
    const size_t avail = len - off;                                                        \
    const uint64_t valid = avail >= 64 ? ~uint64_t{0} : (uint64_t{1} << avail) - 1;        \
    const uint64_t escaped = FindEscaped(m.backslash, escape_carry);                       \
    const uint64_t in_string = PrefixXor(m.quote & ~escaped) ^ in_string_carry;            \
    in_string_carry = uint64_t(int64_t(in_string) >> 63);                                  \
    uint64_t brackets = (m.open | m.close) & ~in_string & valid;                           \
    while (brackets) {                                                                     \
      const int i = __builtin_ctzll(brackets);                                             \
      if ((m.open >> i) & 1) {                                                             \
        ++depth;                                                                           \
      } else if (--depth == 0) {                                                           \
        return off + static_cast<size_t>(i) + 1;                                           \
      }                                                                                    \
      brackets &= brackets - 1;                                                            \
    }                                                                                      \
  }                                                                                        \
  return kIncomplete;

#ifdef CPROF_SCAN_AVX2
__attribute__((target("avx2"))) size_t FindCompositeEndAvx2(const char* p, size_t len) {
  CPROF_FIND_COMPOSITE_END(ClassifyAvx2)
}
#endif

}  // namespace

size_t FindCompositeEnd(const char* p, size_t len) {
#ifdef CPROF_SCAN_AVX2
  static const bool kAvx2 = __builtin_cpu_supports("avx2");
  if (kAvx2) return FindCompositeEndAvx2(p, len);
#endif
  return internal::FindCompositeEndPortable(p, len);
}

size_t FindStringEnd(const char* p, size_t len) {
  size_t i = 1;
  while (i < len) {
    const void* q = std::memchr(p + i, '"', len - i);
    if (q == nullptr) return kIncomplete;
    const size_t j = static_cast<size_t>(static_cast<const char*>(q) - p);
    size_t k = j;
    while (k > 1 && p[k - 1] == '\\') --k;
    if (((j - k) & 1) == 0) return j + 1;
    i = j + 1;
  }
  return kIncomplete;
}

namespace internal {

size_t FindCompositeEndPortable(const char* p, size_t len) { CPROF_FIND_COMPOSITE_END(Classify) }

size_t FindCompositeEndScalar(const char* p, size_t len) {
  int64_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < len; ++i) {
    const char c = p[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return kIncomplete;
}

}  // namespace internal
}  // namespace cprof::json
