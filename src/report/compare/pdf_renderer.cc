// HTML to PDF through headless Chromium (--print-to-pdf).
#include "report/compare/pdf_renderer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/atomic_file.h"
#include "base/temp_dir.h"

namespace cprof {
namespace fs = std::filesystem;

std::optional<std::string> FindChromium() {
  if (const char* env = std::getenv("CPROF_CHROMIUM"); env && *env) {
    if (access(env, X_OK) == 0) return std::string(env);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string_view p(path);
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    size_t start = 0;
    while (start <= p.size()) {
      size_t end = p.find(':', start);
      if (end == std::string_view::npos) end = p.size();
      std::string dir(p.substr(start, end - start));
      if (!dir.empty()) {
        std::string candidate = dir + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
      }
      start = end + 1;
    }
  }
  return std::nullopt;
}

Status RenderPdfWithChromium(std::string_view html, const std::string& pdf_path) {
  std::optional<std::string> browser = FindChromium();
  if (!browser) {
    return Unavailable("{}: PDF output needs a headless Chromium and none was found on PATH (install the Debian "
                       "package 'chromium', or set CPROF_CHROMIUM); write .html instead and print it from a browser",
                       pdf_path);
  }
  std::error_code ec;
  ASSIGN_OR_RETURN(const std::string work, MakeTempDir("cprof-pdf-"));
  const fs::path html_file = fs::path(work) / "report.html";
  const fs::path pdf_file = fs::path(work) / "report.pdf";
  auto cleanup = [&] { fs::remove_all(work, ec); };
  {
    std::ofstream out(html_file, std::ios::binary);
    out << html;
    if (!out) {
      cleanup();
      return Internal("cannot write {}", html_file.string());
    }
  }
  std::vector<std::string> args = {*browser,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--no-pdf-header-footer",
                                   "--user-data-dir=" + work + "/profile",
                                   "--print-to-pdf=" + pdf_file.string(),
                                   "file://" + html_file.string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    cleanup();
    return Internal("fork failed: {}", std::strerror(errno));
  }
  if (pid == 0) {
    // The browser's chatter is not ours to print.
    if (FILE* devnull = std::fopen("/dev/null", "w")) {
      dup2(fileno(devnull), 1);
      dup2(fileno(devnull), 2);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || !fs::exists(pdf_file) || fs::file_size(pdf_file, ec) == 0) {
    cleanup();
    return Internal("{} failed to print {} to PDF (exit status {})", *browser, pdf_path,
                    WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  }
  std::ifstream in(pdf_file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  cleanup();
  return WriteFileAtomically(pdf_path, bytes);
}

}  // namespace cprof
