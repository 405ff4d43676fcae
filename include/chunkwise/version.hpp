#pragma once
/// \file
/// The chunkwise version, kept in this one place (CMake reads it from here).

#define CHUNKWISE_VERSION_MAJOR 0  ///< major version: 0 while the API may change between minor releases
#define CHUNKWISE_VERSION_MINOR 2  ///< minor version
#define CHUNKWISE_VERSION_PATCH 0  ///< patch version

/// \cond INTERNAL
#define CHUNKWISE_DETAIL_TEXT(x) #x
#define CHUNKWISE_DETAIL_EXPAND(x) CHUNKWISE_DETAIL_TEXT(x)
/// \endcond
/// The version as a string literal, "major.minor.patch".
#define CHUNKWISE_VERSION_STRING                     \
    CHUNKWISE_DETAIL_EXPAND(CHUNKWISE_VERSION_MAJOR) \
    "." CHUNKWISE_DETAIL_EXPAND(CHUNKWISE_VERSION_MINOR) "." CHUNKWISE_DETAIL_EXPAND(CHUNKWISE_VERSION_PATCH)

namespace chunkwise {
/// The library version as "major.minor.patch".
inline constexpr const char* version_string = CHUNKWISE_VERSION_STRING;
}  // namespace chunkwise
