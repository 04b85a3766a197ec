// The case library folder (case_library.h).
#include "report/diagnose/case_library.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "analysis/diagnose/case_match.h"
#include "base/atomic_file.h"
#include "report/diagnose/case_card_markdown.h"

namespace cprof {
namespace fs = std::filesystem;

namespace {

std::string ExpandHome(const std::string& p) {
  if (!p.starts_with("~/")) return p;
  const char* home = std::getenv("HOME");
  return home ? std::string(home) + p.substr(1) : p;
}

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.starts_with("- ")) line = line.substr(2);
  return line;
}

}  // namespace

std::string DefaultCaseLibrary() {
  if (const char* env = std::getenv("CPROF_CASE_LIBRARY"); env && *env) return env;
  return ExpandHome("~/.cann-profiler/cases");
}

StatusOr<std::string> SaveCaseCard(const CaseCard& card, const std::string& library, int schema_version) {
  const std::string dir = ExpandHome(library);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return InvalidInput("--library {}: cannot create the folder: {}", dir, ec.message());
  const std::string path = (fs::path(dir) / (card.id + ".md")).string();
  RETURN_IF_ERROR(WriteFileAtomically(path, CaseCardToMarkdown(card, schema_version)));
  return path;
}

StatusOr<std::vector<CaseCard>> LoadCaseLibrary(const std::string& library, std::vector<std::string>* skipped) {
  const std::string dir = ExpandHome(library);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    // A file given where the folder goes: "no such folder" sent people looking for a typo.
    if (fs::exists(dir, ec)) return InvalidInput("case library {}: not a folder (it holds one case card per .md file)", dir);
    return NotFound("case library {}: no such folder", dir);
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<CaseCard> cards;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    StatusOr<CaseCard> c = ParseCaseCard(buf.str(), f);
    if (!c.ok()) {
      if (skipped) skipped->push_back(c.status().message());
      continue;
    }
    c->path = f;
    cards.push_back(std::move(*c));
  }
  return cards;
}

Status CiteSimilarCases(const std::string& library, Diagnosis* d) {
  std::vector<std::string> skipped;
  ASSIGN_OR_RETURN(std::vector<CaseCard> cards, LoadCaseLibrary(library, &skipped));
  for (const std::string& s : skipped) d->notes.push_back("case library: skipped " + s);
  for (const CaseMatch& m : MatchCases(*d, cards)) {
    const CaseCard& c = cards[m.card];
    Finding& f = d->findings[m.finding];
    std::string gain;
    if (c.measured)
      gain = fmt::format("; measured {} {:+.1f}% (p = {:.3g})", c.measured->metric, c.measured->change_pct,
                         c.measured->p_value);
    d->notes.push_back(fmt::format("F{} resembles case {} (similarity {:.2f}): {}{} — {}", m.finding + 1, c.id,
                                   m.similarity, c.title, gain, c.path));
    f.suggestions.push_back({fmt::format("A similar past case ({}, similarity {:.2f}{}) was fixed by: {}", c.id,
                                         m.similarity, gain, FirstLine(c.fix)),
                             "", c.path});
  }
  return Status::Ok();
}

}  // namespace cprof
