// Unit tests of the CSV reader: quoting, the Ascend quirks, header aliases and error positions.
#include "import/csv/csv_reader.h"

#include <gtest/gtest.h>

#include "import/csv/csv_header.h"

namespace cprof {
namespace {

std::vector<std::vector<std::string>> ReadAll(std::string_view text) {
  CsvReader r(text, "t.csv");
  std::vector<std::vector<std::string>> out;
  for (;;) {
    auto more = r.Next();
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) break;
    std::vector<std::string> row;
    for (size_t i = 0; i < r.size(); ++i) row.emplace_back(r.field(i));
    out.push_back(row);
  }
  return out;
}

TEST(CsvReader, PlainQuotedAndEmbedded) {
  auto rows = ReadAll("a,b,c\r\n1,\"x,y\",\"he said \"\"hi\"\"\"\r\n\r\n2,\"line1\nline2\",\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][1], "x,y");
  EXPECT_EQ(rows[1][2], "he said \"hi\"");
  EXPECT_EQ(rows[2][1], "line1\nline2");
  EXPECT_EQ(rows[2][2], "");
  EXPECT_EQ(rows[2].size(), 3u);
}

TEST(CsvReader, LineNumbersCountEmbeddedNewlines) {
  CsvReader r("h\n\"a\nb\nc\"\nnext\n", "t.csv");
  ASSERT_TRUE(*r.Next());
  ASSERT_TRUE(*r.Next());
  EXPECT_EQ(r.line(), 2);
  ASSERT_TRUE(*r.Next());
  EXPECT_EQ(r.line(), 5);
  EXPECT_EQ(r.field(0), "next");
  EXPECT_FALSE(*r.Next());
}

TEST(CsvReader, UnterminatedQuoteNamesLineAndColumn) {
  CsvReader r("a,b\n1,\"oops\n", "bad.csv");
  ASSERT_TRUE(*r.Next());
  auto more = r.Next();
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.status().message(), "bad.csv: line 2, column 3: quoted field never closed (field 2)");
}

TEST(CsvCell, AscendQuirks) {
  // Shapes written as """32,3,224,224""" in the file read as "32,3,224,224" after CSV unquoting.
  auto rows = ReadAll("Input Shapes,Start Time(us),X\n\"\"\"32,3,224,224\"\"\",1736408883704643.212\t,N/A\n");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(*CleanCsvCell(rows[1][0]), "32,3,224,224");
  EXPECT_EQ(*CleanCsvCell(rows[1][1]), "1736408883704643.212");
  EXPECT_FALSE(CleanCsvCell(rows[1][2]).has_value());
  EXPECT_FALSE(CleanCsvCell("").has_value());
}

TEST(CsvHeader, AliasesAndErrors) {
  CsvReader r("Step Id,Block Num, Start Time(us) \n50,32,1736408883704643.212\t\n", "k.csv");
  auto h = CsvHeader::Read(&r);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->Find({"Block Dim", "Block Num"}), 1);
  EXPECT_EQ(h->Find({"start time(us)"}), 2);
  EXPECT_EQ(h->Find({"Device_id"}), -1);
  auto missing = h->Require({"Duration(us)", "Duration"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no column 'Duration(us)'"), std::string::npos);
  EXPECT_NE(missing.status().message().find("k.csv"), std::string::npos);

  ASSERT_TRUE(*r.Next());
  CsvRow row(r, *h);
  EXPECT_EQ(**row.MicrosNs(2), 1736408883704643212);
  EXPECT_EQ(**row.Int(1), 32);
  EXPECT_EQ(**row.Int(0), 50);
  EXPECT_FALSE(row.Int(-1)->has_value());
}

TEST(CsvRow, BadNumberNamesFileLineColumnHeader) {
  CsvReader r("a,Duration(us)\n1,2.5\n1,abc\n", "k.csv");
  auto h = CsvHeader::Read(&r);
  ASSERT_TRUE(h.ok());
  ASSERT_TRUE(*r.Next());
  CsvRow row(r, *h);
  EXPECT_EQ(**row.MicrosNs(1), 2500);
  EXPECT_DOUBLE_EQ(**row.Double(1), 2.5);
  ASSERT_TRUE(*r.Next());
  auto bad = row.Double(1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "k.csv: line 3, column 2 ('Duration(us)'): expected a number, got 'abc'");
}

TEST(CsvRow, ExponentTimes) {
  CsvReader r("t\n2e-05\n", "c.csv");
  auto h = CsvHeader::Read(&r);
  ASSERT_TRUE(*r.Next());
  CsvRow row(r, *h);
  EXPECT_EQ(**row.ScaledNs(0, 6), 20);  // 2e-05 ms = 20 ns
}

}  // namespace
}  // namespace cprof
