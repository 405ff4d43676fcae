#pragma once
/// \file
/// The chunkwise version, kept in this one place (CMake reads it from here).

#define CHUNKWISE_VERSION_MAJOR 0
#define CHUNKWISE_VERSION_MINOR 1
#define CHUNKWISE_VERSION_PATCH 0

namespace chunkwise {
/// The library version as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";
}  // namespace chunkwise
