// Typed row ids of the trace tables; an id is the row's index in its table.
#pragma once

#include <cstdint>

#include "base/string_pool.h"

namespace cprof {

enum class TrackId : uint32_t {};
enum class SliceId : uint32_t {};
enum class ArgSetId : uint32_t {};
enum class StackId : uint32_t {};
enum class FrameId : uint32_t {};

inline constexpr TrackId kNoTrack{UINT32_MAX};
inline constexpr SliceId kNoSlice{UINT32_MAX};
inline constexpr ArgSetId kNoArgs{UINT32_MAX};
inline constexpr StackId kNoStack{UINT32_MAX};
inline constexpr FrameId kNoFrame{UINT32_MAX};

inline constexpr uint32_t Index(TrackId id) { return static_cast<uint32_t>(id); }
inline constexpr uint32_t Index(SliceId id) { return static_cast<uint32_t>(id); }
inline constexpr uint32_t Index(ArgSetId id) { return static_cast<uint32_t>(id); }
inline constexpr uint32_t Index(StackId id) { return static_cast<uint32_t>(id); }
inline constexpr uint32_t Index(FrameId id) { return static_cast<uint32_t>(id); }

}  // namespace cprof
