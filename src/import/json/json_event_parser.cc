// simdjson On-Demand reading of one trace event: the only translation unit that sees simdjson's
// On-Demand API (top_level_value.cc uses its DOM API for the few top-level members).
#include "import/json/json_event_parser.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include <fmt/format.h>
#include <simdjson.h>

#include "base/time_units.h"
#include "import/json/buffer_pool.h"
#include "import/json/number_text.h"

namespace cprof::json {
namespace {

namespace od = simdjson::ondemand;

// Key equality on the raw (still quoted) key text: the key is exactly `lit`.
template <size_t N>
inline bool KeyIs(const char* raw, const char (&lit)[N]) {
  return std::memcmp(raw, lit, N - 1) == 0 && raw[N - 1] == '"';
}

// The JSON nesting limit for event args (simdjson's DOM default, which top-level members get).
constexpr int kMaxJsonDepth = 1024;


struct Reader {
  ParsedBatch* out;
  JsonEvent* ev;
  simdjson::error_code error = simdjson::SUCCESS;

  void Skip(ImportStat why) {
    if (!ev->skip) {
      ev->skip = true;
      ev->skip_reason = why;
    }
  }

  // The text of a string value: a view into the chunk when it has no escapes, else unescaped
  // into the batch arena. False (and `error` set) on a malformed string.
  bool StringValue(od::value& v, std::string_view token, std::string_view* s) {
    token = Trim(token);
    if (token.size() < 2 || token.back() != '"') {
      error = simdjson::STRING_ERROR;
      return false;
    }
    std::string_view body = token.substr(1, token.size() - 2);
    if (std::memchr(body.data(), '\\', body.size()) == nullptr) {
      *s = body;
      return true;
    }
    std::string_view unescaped;
    if ((error = v.get_string().get(unescaped))) return false;
    *s = out->arena.Copy(unescaped);
    return true;
  }

  // A timestamp or duration in microseconds, as a number or a decimal string, to exact ns.
  bool Micros(od::value& v, int64_t* ns) {
    std::string_view token = Trim(v.raw_json_token());
    if (token.empty()) return Fail(ImportStat::json_bad_field_type);
    std::string_view text = token;
    if (token[0] == '"') {
      if (!StringValue(v, token, &text)) return false;
    } else if (token[0] != '-' && (token[0] < '0' || token[0] > '9')) {
      return Fail(ImportStat::json_bad_field_type);
    }
    if (FastMicrosToNs(text, ns)) return true;
    if (auto parsed = ParseDecimalMicrosToNs(text)) {
      *ns = *parsed;
      return true;
    }
    if (text.find_first_of("eE") != std::string_view::npos) {
      // Exponent notation: exactness is already gone in the writer; go through double.
      double d;
      if (token[0] == '"') {
        if (!ParseDouble(text, &d)) return Fail(ImportStat::json_bad_field_type);
      } else if ((error = v.get_double().get(d))) {
        if (error != simdjson::NUMBER_ERROR || !IsJsonNumberSyntax(token)) return false;
        error = simdjson::SUCCESS;  // 1e999: valid JSON beyond any double
        return Fail(ImportStat::timestamp_out_of_range);
      }
      if (auto conv = MicrosDoubleToNs(d)) {
        *ns = *conv;
        return true;
      }
      return Fail(ImportStat::timestamp_out_of_range);
    }
    return Fail(LooksNumeric(text) ? ImportStat::timestamp_out_of_range : ImportStat::json_bad_field_type);
  }

  static bool LooksNumeric(std::string_view t) {
    return !t.empty() && t.find_first_not_of("+-0123456789.") == std::string_view::npos;
  }
  static bool ParseDouble(std::string_view t, double* d) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), *d);
    return r.ec == std::errc() && r.ptr == t.data() + t.size();
  }

  bool Fail(ImportStat why) {
    Skip(why);
    return true;  // not a JSON error: the event is well formed, just unusable
  }

  // pid / tid: a number (integer or integral float) or a string (all-digit strings are numbers).
  bool Id(od::value& v, JsonId* id) {
    std::string_view token = Trim(v.raw_json_token());
    if (token.empty()) return Fail(ImportStat::json_bad_field_type);
    if (token[0] == '"') {
      std::string_view s;
      if (!StringValue(v, token, &s)) return false;
      int64_t n;
      if (IsIntegerText(s) && std::from_chars(s.data(), s.data() + s.size(), n).ec == std::errc()) {
        id->kind = JsonId::Kind::kNumber;
        id->num = n;
      } else {
        id->kind = JsonId::Kind::kString;
        id->str = s;
      }
      return true;
    }
    if (IsIntegerText(token) &&
        std::from_chars(token.data(), token.data() + token.size(), id->num).ec == std::errc()) {
      id->kind = JsonId::Kind::kNumber;
      return true;
    }
    double d;
    if (token[0] == '-' || (token[0] >= '0' && token[0] <= '9')) {
      if ((error = v.get_double().get(d))) return false;
      if (d >= -9.2e18 && d <= 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d))) {
        id->kind = JsonId::Kind::kNumber;
        id->num = static_cast<int64_t>(d);
        return true;
      }
    }
    return Fail(ImportStat::json_bad_field_type);
  }

  // Flow / async ids: unsigned integers read exactly from the text; anything else is opaque text.
  bool FlowId(od::value& v, JsonFlowId* id) {
    std::string_view token = Trim(v.raw_json_token());
    if (token.empty()) return Fail(ImportStat::json_bad_field_type);
    if (token[0] == '"') {
      id->kind = JsonFlowId::Kind::kString;
      return StringValue(v, token, &id->str);
    }
    if (IsIntegerText(token)) {
      if (token[0] == '-') {
        int64_t n;
        if (std::from_chars(token.data(), token.data() + token.size(), n).ec == std::errc()) {
          id->kind = JsonFlowId::Kind::kNumber;
          id->num = static_cast<uint64_t>(n);
          return true;
        }
      } else if (std::from_chars(token.data(), token.data() + token.size(), id->num).ec == std::errc()) {
        id->kind = JsonFlowId::Kind::kNumber;
        return true;
      }
    }
    if (token[0] == '-' || (token[0] >= '0' && token[0] <= '9')) {
      double d;
      if ((error = v.get_double().get(d))) return false;  // validates the number
      id->kind = JsonFlowId::Kind::kString;
      id->str = token;
      return true;
    }
    return Fail(ImportStat::json_bad_field_type);
  }

  bool Id2(od::value& v) {
    od::object o;
    if (v.get_object().get(o)) return Fail(ImportStat::json_bad_field_type);
    for (auto f : o) {
      od::field field;
      if ((error = std::move(f).get(field))) return false;
      const char* k = field.key().raw();
      if (KeyIs(k, "local") || KeyIs(k, "global")) {
        ev->id2_local = k[0] == 'l';
        if (!FlowId(field.value(), &ev->id)) return false;
      }
    }
    return true;
  }

  bool Bool(od::value& v, bool* b) {
    if (v.get_bool().get(*b)) return Fail(ImportStat::json_bad_field_type);
    return true;
  }

  bool StringField(od::value& v, std::string_view* s) {
    std::string_view token = v.raw_json_token();
    if (token.empty() || token[0] != '"') return Fail(ImportStat::json_bad_field_type);
    return StringValue(v, token, s);
  }

  bool Args(od::value& v) {
    od::object o;
    if (v.get_object().get(o)) return Fail(ImportStat::json_bad_field_type);
    ev->arg_begin = static_cast<uint32_t>(out->args.size());
    int64_t correlation = -1, correlation_id = -1, connection_id = -1;
    for (auto f : o) {
      od::field field;
      if ((error = std::move(f).get(field))) return false;
      JsonArg& arg = out->args.emplace_back();
      if (!ArgKey(field, &arg.key) || !ArgValue(field.value(), &arg)) return false;
      if (arg.kind == JsonArg::Kind::kInt) {
        const std::string_view k = arg.key;
        if (k == "correlation") {
          correlation = arg.i;
        } else if (k == "External id" || k == "external id") {
          ev->external_id = arg.i;
        } else if (k == "correlation_id") {
          correlation_id = arg.i;
        } else if (k == "connection_id") {
          connection_id = arg.i;
        }
      }
    }
    ev->arg_count = static_cast<uint32_t>(out->args.size() - ev->arg_begin);
    ev->correlation = correlation >= 0 ? correlation : correlation_id >= 0 ? correlation_id : connection_id;
    return true;
  }

  bool ArgKey(od::field& field, std::string_view* key) {
    const char* raw = field.key().raw();
    size_t n = 0;
    while (raw[n] != '"' && raw[n] != '\\') ++n;
    if (raw[n] == '"') {
      *key = std::string_view(raw, n);
      return true;
    }
    std::string_view unescaped;
    if ((error = field.unescaped_key().get(unescaped))) return false;
    *key = out->arena.Copy(unescaped);
    return true;
  }

  bool ArgValue(od::value& v, JsonArg* arg) {
    std::string_view token = Trim(v.raw_json_token());
    if (token.empty()) {
      error = simdjson::TAPE_ERROR;
      return false;
    }
    switch (token[0]) {
      case '"':
        arg->kind = JsonArg::Kind::kString;
        return StringValue(v, token, &arg->text);
      case 't':
      case 'f':
        arg->kind = JsonArg::Kind::kBool;
        return !(error = v.get_bool().get(arg->b));
      case 'n': {
        bool is_null = false;
        if ((error = v.is_null().get(is_null))) return false;
        if (!is_null) error = simdjson::N_ATOM_ERROR;
        arg->kind = JsonArg::Kind::kNull;
        return is_null;
      }
      case '{': {
        od::object o;
        if ((error = v.get_object().get(o))) return false;
        arg->kind = JsonArg::Kind::kJson;
        return !(error = o.raw_json().get(arg->text)) && NestingWithinLimit(arg->text);
      }
      case '[': {
        od::array a;
        if ((error = v.get_array().get(a))) return false;
        arg->kind = JsonArg::Kind::kJson;
        return !(error = a.raw_json().get(arg->text)) && NestingWithinLimit(arg->text);
      }
      default:
        break;
    }
    if (!LooksFloat(token)) {
      const char* end = token.data() + token.size();
      if (auto r = std::from_chars(token.data(), end, arg->i); r.ec == std::errc() && r.ptr == end) {
        arg->kind = JsonArg::Kind::kInt;
        return true;
      }
      if (auto r = std::from_chars(token.data(), end, arg->u); token[0] != '-' && r.ec == std::errc() && r.ptr == end) {
        arg->kind = JsonArg::Kind::kUint;
        return true;
      }
    }
    arg->kind = JsonArg::Kind::kDouble;
    if (!(error = v.get_double().get(arg->d))) return true;
    if (error == simdjson::NUMBER_ERROR && IsJsonNumberSyntax(token)) {
      // Valid JSON that no double holds (1e999): kept as its literal text, not a broken trace.
      error = simdjson::SUCCESS;
      arg->kind = JsonArg::Kind::kString;
      arg->text = token;
      return true;
    }
    return false;
  }

  // A nested arg is kept as raw JSON text for later readers (exporters, the page), so its depth
  // is bounded here: simdjson skips a nested value without counting its depth.
  bool NestingWithinLimit(std::string_view text) {
    if (NestingDepth(text) <= kMaxJsonDepth) return true;
    error = simdjson::DEPTH_ERROR;
    return false;
  }

  bool Field(od::field& field) {
    const char* k = field.key().raw();
    od::value& v = field.value();
    switch (k[0]) {
      case 'p':
        if (KeyIs(k, "ph")) {
          std::string_view ph;
          if (!StringField(v, &ph)) return false;
          if (ph.empty()) return Fail(ImportStat::json_bad_field_type);
          ev->ph = ph[0];
          return true;
        }
        if (KeyIs(k, "pid")) return Id(v, &ev->pid);
        return true;
      case 't':
        if (KeyIs(k, "ts")) {
          ev->has_ts = true;
          return Micros(v, &ev->ts_ns);
        }
        if (KeyIs(k, "tid")) return Id(v, &ev->tid);
        return true;
      case 'd':
        if (KeyIs(k, "dur")) {
          ev->has_dur = true;
          return Micros(v, &ev->dur_ns);
        }
        return true;
      case 'n':
        if (KeyIs(k, "name")) return StringField(v, &ev->name);
        return true;
      case 'c':
        if (KeyIs(k, "cat")) return StringField(v, &ev->cat);
        return true;
      case 'a':
        if (KeyIs(k, "args")) return Args(v);
        return true;
      case 'i':
        if (KeyIs(k, "id")) return FlowId(v, &ev->id);
        if (KeyIs(k, "id2")) return Id2(v);
        return true;
      case 'b':
        if (KeyIs(k, "bp")) {
          std::string_view bp;
          if (!StringField(v, &bp)) return false;
          ev->bind_enclosing = bp == "e";
          return true;
        }
        if (KeyIs(k, "bind_id")) return FlowId(v, &ev->bind_id);
        return true;
      case 's':
        if (KeyIs(k, "s")) {
          std::string_view s;
          if (!StringField(v, &s)) return false;
          ev->scope = s.empty() ? 0 : s[0];
          return true;
        }
        return true;
      case 'f':
        if (KeyIs(k, "flow_in")) return Bool(v, &ev->flow_in);
        if (KeyIs(k, "flow_out")) return Bool(v, &ev->flow_out);
        return true;
      default:
        return true;
    }
  }
};

}  // namespace

// Parses the events of one chunk. Runs of events are parsed as one document (one simdjson
// iterate per run instead of per event): the separator bytes just before the first and just
// after the last event of a run are overwritten with '[' and ']' for the call, and restored.
// A run that fails is parsed again event by event, which names the failing event exactly.
struct JsonEventParser::Impl {
  od::parser parser;

  static constexpr size_t kRunEvents = 256;
  static constexpr size_t kRunBytes = 64 << 10;

  // Reads the fields of one event object into a new record. False on a JSON error (r.error).
  static bool ReadObject(od::object& obj, Reader& r) {
    for (auto f : obj) {
      od::field field;
      if ((r.error = std::move(f).get(field)) || !r.Field(field)) return false;
    }
    return true;
  }

  static JsonEvent& NewEvent(ParsedBatch* out, const Chunk& chunk, const EventSpan& span, uint64_t index) {
    JsonEvent& ev = out->events.emplace_back();
    ev.index = index;
    ev.offset = chunk.stream_offset() + span.begin;
    return ev;
  }

  simdjson::error_code ParseOne(const Chunk& chunk, const EventSpan& span, uint64_t index, ParsedBatch* out) {
    JsonEvent& ev = NewEvent(out, chunk, span, index);
    Reader r{out, &ev};
    od::document doc;
    od::object obj;
    r.error = parser.iterate(chunk.data() + span.begin, span.size, chunk.capacity() - span.begin).get(doc);
    if (!r.error) r.error = doc.get_object().get(obj);
    if (!r.error) ReadObject(obj, r);
    return r.error;
  }

  // Events [first, last) of the chunk as one array document; false if anything fails (the
  // records added are then removed again).
  bool ParseRun(Chunk& chunk, const std::vector<EventSpan>& spans, size_t first, size_t last, uint64_t index,
                ParsedBatch* out) {
    const size_t events_before = out->events.size(), args_before = out->args.size();
    char* data = chunk.data();
    const uint64_t open = spans[first].begin - 1, close = spans[last - 1].begin + spans[last - 1].size;
    const char saved_open = data[open], saved_close = data[close];
    data[open] = '[';
    data[close] = ']';
    bool ok = true;
    od::document doc;
    od::array array;
    if (parser.iterate(data + open, close + 1 - open, chunk.capacity() - open).get(doc) || doc.get_array().get(array)) {
      ok = false;
    }
    size_t i = first;
    if (ok) {
      for (auto element : array) {
        od::object obj;
        if (i == last || std::move(element).get_object().get(obj)) {
          ok = false;
          break;
        }
        JsonEvent& ev = NewEvent(out, chunk, spans[i], index + (i - first));
        Reader r{out, &ev};
        if (!ReadObject(obj, r)) {
          ok = false;
          break;
        }
        ++i;
      }
    }
    data[open] = saved_open;
    data[close] = saved_close;
    if (ok && i == last) return true;
    out->events.resize(events_before);
    out->args.resize(args_before);
    return false;
  }
};

JsonEventParser::JsonEventParser() : impl_(std::make_unique<Impl>()) {}
JsonEventParser::~JsonEventParser() = default;

Status JsonEventParser::Parse(const SplitBatch& split, std::string_view path, bool compressed,
                              ParsedBatch* out) {
  out->chunk = split.chunk;
  out->members = split.members;
  out->last = split.last;
  // Room with headroom, so reused batches stop reallocating (fresh pages are costly) after the
  // first chunks; advised for huge pages.
  if (out->events.capacity() < out->events.size() + split.events.size()) {
    out->events.reserve((out->events.size() + split.events.size()) * 5 / 4);
    AdviseHugePages(out->events.data(), out->events.capacity() * sizeof(JsonEvent));
  }
  if (out->args.capacity() < split.chunk->size() / 48) {
    out->args.reserve(split.chunk->size() / 32);
    AdviseHugePages(out->args.data(), out->args.capacity() * sizeof(JsonArg));
  }
  // The batch owns its chunk; runs write two separator bytes and put them back.
  Chunk& chunk = const_cast<Chunk&>(*split.chunk);
  const std::vector<EventSpan>& spans = split.events;
  for (size_t i = 0; i < spans.size();) {
    size_t end = i;
    if (spans[i].begin > 0) {
      size_t bytes = 0;
      while (end < spans.size() && end - i < Impl::kRunEvents && bytes < Impl::kRunBytes) bytes += spans[end++].size;
    }
    if (end - i > 1 && impl_->ParseRun(chunk, spans, i, end, split.first_event_index + i, out)) {
      i = end;
      continue;
    }
    // One by one: the first event of a chunk (no separator byte before it), or a run that failed.
    for (const size_t stop = std::max(end, i + 1); i < stop; ++i) {
      const uint64_t index = split.first_event_index + i;
      if (simdjson::error_code error = impl_->ParseOne(chunk, spans[i], index, out)) {
        const uint64_t offset = chunk.stream_offset() + spans[i].begin;
        out->events.pop_back();
        return InvalidInput("{}: invalid trace JSON at {} (event #{}): {}", path,
                            compressed ? fmt::format("byte {} of the decompressed data", offset)
                                       : fmt::format("byte {}", offset),
                            index, simdjson::error_message(error));
      }
    }
  }
  return Status::Ok();
}

std::string SimdjsonImplementation() {
  return fmt::format("{} (stage 1), {} (on-demand)", simdjson::get_active_implementation()->name(),
                     simdjson::builtin_implementation()->name());
}

bool SimdjsonUsesSimd() { return simdjson::get_active_implementation()->name() != "fallback"; }

}  // namespace cprof::json
