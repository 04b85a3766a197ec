// Top-level members to metadata, and the dialect decision.
#include "import/json/trace_metadata.h"

#include <fmt/format.h>

#include "import/json/kineto_dialect.h"
#include "import/json/npu_dialect.h"

namespace cprof::json {

Status TraceMetadata::AddMember(const TopLevelMember& m, bool compressed) {
  auto where = [&] {
    return compressed ? fmt::format("byte {} of the decompressed data", m.offset) : fmt::format("byte {}", m.offset);
  };
  if (!IsValidUtf8(m.key)) {
    return InvalidInput("{}: invalid trace JSON at {}: a top-level key is not valid UTF-8", path_, where());
  }
  auto parsed = ParseTopLevelValue(m.value);
  if (!parsed.ok()) {
    return InvalidInput("{}: invalid trace JSON at {}: the top-level member \"{}\": {}", path_, where(), m.key,
                        parsed.status().message());
  }
  TopLevelValue v = std::move(parsed).value();
  if (m.key == "schemaVersion" || m.key == "deviceProperties" || m.key == "distributedInfo" ||
      m.key == "baseTimeNanoseconds") {
    kineto_keys_ = true;
  }
  if (m.key == "baseTimeNanoseconds") {
    if (v.kind == TopLevelValue::Kind::kInt) {
      base_time_ns_ = v.i;
    } else if (v.kind == TopLevelValue::Kind::kUint && v.u <= static_cast<uint64_t>(INT64_MAX)) {
      base_time_ns_ = static_cast<int64_t>(v.u);
    }
  } else if (m.key == "distributedInfo") {
    if (auto r = v.FindInt("rank")) rank_ = *r;
    if (auto w = v.FindInt("world_size")) world_size_ = *w;
  }
  members_.emplace_back(m.key, std::move(v));
  return Status::Ok();
}

void TraceMetadata::SawCategory(std::string_view cat) {
  if (!kineto_ && IsKinetoCategory(cat)) kineto_ = true;
}

void TraceMetadata::SawProcessName(std::string_view name) {
  if (!npu_ && IsTorchNpuProcessName(name)) npu_ = true;
}

void TraceMetadata::SawFlowCategory(std::string_view cat) {
  if (!npu_ && IsTorchNpuFlowCategory(cat)) npu_ = true;
}

std::string_view TraceMetadata::SourceFormat() const {
  if (npu_) return "torch_npu";
  if (kineto_ || (object_form_ && kineto_keys_)) return "kineto";
  if (legacy_) return "pytorch_legacy";
  return "chrome";
}

void TraceMetadata::Write(TraceBuilder* b) const {
  b->SetMetadataString(meta::kSourceFormat, SourceFormat());
  b->SetMetadataString(meta::kSourcePath, path_);
  for (const auto& [key, v] : members_) {
    std::string_view k = key;
    if (k == "deviceProperties") k = meta::kDeviceProperties;
    if (k == "distributedInfo") k = meta::kDistributedInfo;
    if (k == "baseTimeNanoseconds") k = meta::kBaseTimeNs;
    switch (v.kind) {
      case TopLevelValue::Kind::kNull: b->SetMetadata(k, Value()); break;
      case TopLevelValue::Kind::kInt: b->SetMetadata(k, Value::Int(v.i)); break;
      case TopLevelValue::Kind::kUint: b->SetMetadata(k, Value::Uint(v.u)); break;
      case TopLevelValue::Kind::kDouble: b->SetMetadata(k, Value::Double(v.d)); break;
      case TopLevelValue::Kind::kBool: b->SetMetadata(k, Value::Bool(v.b)); break;
      case TopLevelValue::Kind::kString:
      case TopLevelValue::Kind::kJson: b->SetMetadataString(k, v.text); break;
    }
  }
  if (rank() >= 0) b->SetMetadata(meta::kRank, Value::Int(rank()));
  if (world_size_ >= 0) b->SetMetadata(meta::kWorldSize, Value::Int(world_size_));
}

}  // namespace cprof::json
