// The block scanner against its scalar reference, on tricky strings and across block edges.
#include "import/json/structural_scanner.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace cprof::json {
namespace {

size_t Scan(const std::string& s) {
  std::string padded = s + std::string(kScanPadding, '\0');
  return FindCompositeEnd(padded.data(), s.size());
}

TEST(StructuralScannerTest, FindsTheMatchingBracket) {
  EXPECT_EQ(Scan(R"({"a": 1})"), 8u);
  EXPECT_EQ(Scan(R"({"a": [1, {"b": 2}]}, {"next": 1})"), 20u);
  EXPECT_EQ(Scan(R"([[1], [2]] tail)"), 10u);
}

TEST(StructuralScannerTest, IgnoresBracketsInsideStrings) {
  EXPECT_EQ(Scan(R"({"name": "x}]{[", "v": "}"})"), 27u);
  // An escaped quote does not end the string; an escaped backslash before a quote does.
  EXPECT_EQ(Scan(R"({"a": "say \"}\" ok"})"), 21u);
  EXPECT_EQ(Scan(R"({"a": "dir\\"} rest)"), 14u);
  EXPECT_EQ(Scan(R"({"a": "\\\"}"})"), 14u);
}

TEST(StructuralScannerTest, ReportsIncompleteValues) {
  EXPECT_EQ(Scan(R"({"a": [1, 2)"), kIncomplete);
  EXPECT_EQ(Scan(R"({"a": "}"   )"), kIncomplete);
  EXPECT_EQ(Scan(R"({"a": "unterminated })"), kIncomplete);
}

TEST(StructuralScannerTest, HandlesEscapeRunsAcrossBlockBoundaries) {
  // Put a run of backslashes and a quote on every offset around the 64-byte block edge.
  for (size_t pad = 40; pad < 80; ++pad) {
    for (int slashes = 0; slashes < 5; ++slashes) {
      std::string s = "{\"k\": \"" + std::string(pad, 'x') + std::string(static_cast<size_t>(slashes), '\\');
      if (slashes % 2) s += '"';  // escaped quote stays inside the string
      s += "\"}";
      std::string padded = s + std::string(kScanPadding, '\0');
      EXPECT_EQ(FindCompositeEnd(padded.data(), s.size()), internal::FindCompositeEndScalar(s.data(), s.size()))
          << "pad " << pad << " slashes " << slashes;
      EXPECT_EQ(FindCompositeEnd(padded.data(), s.size()), s.size());
    }
  }
}

TEST(StructuralScannerTest, MatchesTheScalarReferenceOnRandomDocuments) {
  std::mt19937 rng(7);
  const std::string alphabet = "{}[]\"\\ ,:ab";
  for (int round = 0; round < 3000; ++round) {
    // A random object whose strings hold random structural characters.
    std::string s = "{";
    const int items = static_cast<int>(rng() % 20);
    for (int i = 0; i < items; ++i) {
      if (i) s += ",";
      s += "\"k\":";
      switch (rng() % 3) {
        case 0: {
          s += '"';
          const int n = static_cast<int>(rng() % 90);
          for (int j = 0; j < n; ++j) {
            char c = alphabet[rng() % alphabet.size()];
            if (c == '"' || c == '\\') {
              s += '\\';
              s += c;
            } else {
              s += c;
            }
          }
          s += '"';
          break;
        }
        case 1: s += "[[1],{\"x\":[]}]"; break;
        default: s += "123"; break;
      }
    }
    s += "}";
    const size_t cut = rng() % (s.size() + 1);
    const std::string part = s.substr(0, cut);
    std::string padded = part + std::string(kScanPadding, 'z');
    const size_t expected = internal::FindCompositeEndScalar(part.data(), part.size());
    ASSERT_EQ(FindCompositeEnd(padded.data(), part.size()), expected) << part;
    ASSERT_EQ(internal::FindCompositeEndPortable(padded.data(), part.size()), expected) << part;
  }
}

TEST(StructuralScannerTest, FindsStringEnds) {
  const std::string s = R"("abc" tail)";
  EXPECT_EQ(FindStringEnd(s.data(), s.size()), 5u);
  const std::string e = R"("a\"b\\" tail)";
  EXPECT_EQ(FindStringEnd(e.data(), e.size()), 8u);
  const std::string open = R"("abc\")";
  EXPECT_EQ(FindStringEnd(open.data(), open.size()), kIncomplete);
}

}  // namespace
}  // namespace cprof::json
