#pragma once
/// \file
/// The two contracts a combinable result can satisfy (standard library only): `mergeable` (it
/// combines by merging, so `reduce` needs no operation) and `byte_codable` (it writes its own state
/// as bytes, so it travels between ranks and into checkpoints without Boost.Serialization). Every
/// statistic of <chunkwise/accumulate.hpp> is both; docs/combine.md shows a user type that is.

#include <concepts>
#include <string>
#include <string_view>

namespace chunkwise {

/// A result that combines by merging: a default-constructed A is the identity (merging it changes
/// nothing), A is copyable, and a.merge(b) adds b's data to a. Every statistic of chunkwise::acc
/// is one, and so is a user type with those members (to travel between ranks as raw bytes and be
/// checkpointed, make it byte_codable too; without that it travels through Boost.Serialization).
template <class A>
concept mergeable = std::default_initializable<A> && std::copyable<A> && requires(A& a, const A& b) {
    a.merge(b);
};

/// A type that writes its own state as bytes and reads it back: `static std::string
/// type_name()` (stored and compared: a state of another type or version is never loaded),
/// `void save_bytes(std::string& out) const` (appends), and `static R load_bytes(std::string_view)`
/// (throws on bytes that are not an R). It travels between ranks as those bytes and is
/// checkpointed as them.
template <class R>
concept byte_codable = requires(const R& r, std::string& out, std::string_view in) {
    { R::type_name() } -> std::convertible_to<std::string>;
    r.save_bytes(out);
    { R::load_bytes(in) } -> std::convertible_to<R>;
};

}  // namespace chunkwise
