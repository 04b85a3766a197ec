// Buffered, optionally gzip'd JSON text output.
#include "export/chrome/json_sink.h"

#include <charconv>
#include <cmath>

namespace cprof {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 if it is not one.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

JsonSink::JsonSink(AtomicFile* file, bool gzip) : file_(file), gzip_(gzip) {
  buf_.reserve(kFlushBytes + 4096);
  if (gzip_) {
    // windowBits 15 + 16: a gzip header; level 3 keeps compression cheap next to formatting.
    if (deflateInit2(&zs_, 3, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      status_ = Internal("{}: zlib deflateInit2 failed", file_->path());
      gzip_ = false;
    }
    zbuf_.resize(1 << 18);
  }
}

JsonSink::~JsonSink() {
  if (gzip_) deflateEnd(&zs_);
}

void JsonSink::String(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  buf_.push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (size_t n = Utf8Length(s, i)) {
        i += n;
        continue;
      }
    }
    buf_.append(s.data() + run, i - run);
    switch (c) {
      case '"': buf_.append("\\\""); break;
      case '\\': buf_.append("\\\\"); break;
      case '\n': buf_.append("\\n"); break;
      case '\r': buf_.append("\\r"); break;
      case '\t': buf_.append("\\t"); break;
      case '\b': buf_.append("\\b"); break;
      case '\f': buf_.append("\\f"); break;
      default:
        if (c < 0x20) {
          buf_.append("\\u00");
          buf_.push_back(kHex[c >> 4]);
          buf_.push_back(kHex[c & 15]);
        } else {
          buf_.append("\xEF\xBF\xBD");  // an invalid UTF-8 byte: U+FFFD
        }
    }
    run = ++i;
  }
  buf_.append(s.data() + run, s.size() - run);
  buf_.push_back('"');
  if (buf_.size() >= kFlushBytes) Flush(false);
}

void JsonSink::Int(int64_t v) {
  char tmp[24];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  buf_.append(tmp, r.ptr);
}

void JsonSink::Uint(uint64_t v) {
  char tmp[24];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  buf_.append(tmp, r.ptr);
}

void JsonSink::Double(double v) {
  if (!std::isfinite(v)) {
    buf_.append(std::isnan(v) ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"");
    return;
  }
  char tmp[40];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);  // shortest round-trip form
  std::string_view text(tmp, r.ptr - tmp);
  buf_.append(text);
  if (text.find_first_of(".e") == std::string_view::npos) buf_.append(".0");
}

void JsonSink::Micros(int64_t ns) {
  uint64_t a = static_cast<uint64_t>(ns);
  if (ns < 0) {
    buf_.push_back('-');
    a = uint64_t{0} - a;
  }
  Uint(a / 1000);
  const unsigned frac = static_cast<unsigned>(a % 1000);
  buf_.push_back('.');
  buf_.push_back(static_cast<char>('0' + frac / 100));
  buf_.push_back(static_cast<char>('0' + frac / 10 % 10));
  buf_.push_back(static_cast<char>('0' + frac % 10));
}

void JsonSink::Flush(bool final) {
  if (!status_.ok()) {
    buf_.clear();
    return;
  }
  if (!gzip_) {
    status_ = file_->Write(buf_);
    buf_.clear();
    return;
  }
  zs_.next_in = reinterpret_cast<Bytef*>(buf_.data());
  zs_.avail_in = static_cast<uInt>(buf_.size());
  int rc;
  do {
    zs_.next_out = reinterpret_cast<Bytef*>(zbuf_.data());
    zs_.avail_out = static_cast<uInt>(zbuf_.size());
    rc = deflate(&zs_, final ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) {
      status_ = Internal("{}: zlib deflate failed", file_->path());
      break;
    }
    const size_t produced = zbuf_.size() - zs_.avail_out;
    if (produced > 0) {
      status_ = file_->Write(std::string_view(zbuf_.data(), produced));
      if (!status_.ok()) break;
    }
  } while (zs_.avail_out == 0 || (final && rc != Z_STREAM_END));
  buf_.clear();
}

Status JsonSink::Finish() {
  Flush(true);
  return status_;
}

}  // namespace cprof
