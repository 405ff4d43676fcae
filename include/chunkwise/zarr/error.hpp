#pragma once
/// \file
/// `chunkwise::zarr::error`: what every problem with a Zarr store, its metadata or one of its
/// chunks throws.

#include <chunkwise/error.hpp>

#include <string>

namespace chunkwise::zarr {

/// A problem with a Zarr store (a chunkwise::error): metadata missing or malformed, a codec this
/// build does not decode, a chunk truncated or of the wrong size, a shard index that points
/// outside its shard, a type that does not hold the stored values, a store that cannot be written.
///
/// `what()` reads "[chunkwise.zarr] STORE: chunk KEY: what is wrong" (the chunk part only where one
/// chunk is at fault); `store()` and `key()` give them apart.
class error : public chunkwise::error {
public:
    /// \param store the store's path; \param key the chunk's key in it ("" for the store or its
    /// metadata); \param message what is wrong
    error(const std::string& store, const std::string& key, const std::string& message)
            : chunkwise::error("[chunkwise.zarr] " + store + (key.empty() ? "" : ": chunk " + key) + ": " + message),
              store_(store),
              key_(key) {}

    /// The store's path.
    [[nodiscard]] const std::string& store() const noexcept { return store_; }
    /// The chunk's key ("1.0", "c/1/0"; a shard's key for a problem with the shard), or "".
    [[nodiscard]] const std::string& key() const noexcept { return key_; }

private:
    std::string store_;
    std::string key_;
};

}  // namespace chunkwise::zarr
