// The CSV record scanner.
#include "import/csv/csv_reader.h"

namespace cprof {

CsvReader::CsvReader(std::string_view text, std::string path, char delimiter)
    : text_(text), path_(std::move(path)), delim_(delimiter) {
  if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // UTF-8 byte order mark (Excel-saved files)
}

StatusOr<bool> CsvReader::Next() {
  fields_.clear();
  scratch_.clear();
  const size_t n = text_.size();
  // Skip blank lines.
  while (pos_ < n && (text_[pos_] == '\n' || (text_[pos_] == '\r' && pos_ + 1 < n && text_[pos_ + 1] == '\n'))) {
    pos_ += text_[pos_] == '\r' ? 2 : 1;
    ++line_;
    line_start_ = pos_;
  }
  if (pos_ >= n) return false;
  record_line_ = line_;

  // A field lives either in text_ or in scratch_ (when quotes had to be undone); views into
  // scratch_ are made once the record is complete, so its reallocation cannot invalidate them.
  struct Span {
    bool scratch;
    size_t index_or_begin;
    size_t len;
  };
  std::vector<Span> spans;
  for (;;) {
    if (pos_ < n && text_[pos_] == '"') {
      const int64_t open_line = line_;
      // From the tracked line start, not a search back: a long line of quoted fields stays linear.
      const size_t open_col = pos_ - line_start_ + 1;
      size_t begin = ++pos_;
      bool escaped = false;
      std::string unescaped;
      for (;;) {
        if (pos_ >= n) {
          return InvalidInput("{}: line {}, column {}: quoted field never closed (field {})", path_,
                              open_line, open_col, spans.size() + 1);
        }
        char c = text_[pos_];
        if (c == '"') {
          if (pos_ + 1 < n && text_[pos_ + 1] == '"') {
            if (!escaped) unescaped.assign(text_.substr(begin, pos_ - begin));
            escaped = true;
            unescaped.push_back('"');
            pos_ += 2;
            continue;
          }
          break;
        }
        if (c == '\n') {
          ++line_;
          line_start_ = pos_ + 1;
        }
        if (escaped) unescaped.push_back(c);
        ++pos_;
      }
      size_t end = pos_++;  // past the closing quote
      // Text between the closing quote and the delimiter (a trailing TAB, say) is kept.
      size_t tail = pos_;
      while (pos_ < n && text_[pos_] != delim_ && text_[pos_] != '\n' &&
             !(text_[pos_] == '\r' && pos_ + 1 < n && text_[pos_ + 1] == '\n')) {
        ++pos_;
      }
      if (pos_ > tail) {
        if (!escaped) unescaped.assign(text_.substr(begin, end - begin));
        escaped = true;
        unescaped.append(text_.substr(tail, pos_ - tail));
      }
      if (escaped) {
        spans.push_back({true, scratch_.size(), 0});
        scratch_.push_back(std::move(unescaped));
      } else {
        spans.push_back({false, begin, end - begin});
      }
    } else {
      size_t begin = pos_;
      while (pos_ < n && text_[pos_] != delim_ && text_[pos_] != '\n' &&
             !(text_[pos_] == '\r' && pos_ + 1 < n && text_[pos_ + 1] == '\n')) {
        ++pos_;
      }
      spans.push_back({false, begin, pos_ - begin});
    }
    if (pos_ < n && text_[pos_] == delim_) {
      ++pos_;
      continue;
    }
    // End of record.
    if (pos_ < n) {
      pos_ += text_[pos_] == '\r' ? 2 : 1;
      ++line_;
      line_start_ = pos_;
    }
    break;
  }
  fields_.reserve(spans.size());
  for (const Span& s : spans) {
    fields_.push_back(s.scratch ? std::string_view(scratch_[s.index_or_begin])
                                : text_.substr(s.index_or_begin, s.len));
  }
  return true;
}

}  // namespace cprof
