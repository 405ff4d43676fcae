#pragma once
/// \file
/// `checkpoint_traits<T>`, the customization point that says how a block result is saved in and
/// loaded from a checkpoint (`run_options::checkpoint`), the `checkpointable` concept and
/// `checkpoint_error`. (The store itself, one append-only log per rank, is internal:
/// detail/run/checkpoint_store.hpp; its format and guarantees are in docs/production.md.)

#include <chunkwise/detail/core/value_codec.hpp>
#include <chunkwise/detail/core/value_kinds.hpp>
#include <chunkwise/error.hpp>
#include <chunkwise/mergeable.hpp>

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace chunkwise {

/// A checkpoint that cannot be created, written or decoded (a chunkwise::error; what() starts with
/// "[chunkwise.checkpoint]").
class checkpoint_error : public error {
public:
    using error::error;
};

/// How a result type is saved in a checkpoint. Specialize it for your own types with three
/// static members:
///
///     template <> struct chunkwise::checkpoint_traits<my_result> {
///         static std::string type_name() { return "my_result/v1"; }          // stored, compared on load
///         static void save(const my_result& r, std::string& out);            // append bytes to out
///         static my_result load(std::string_view bytes);                     // inverse of save
///     };
///
/// Built in: arithmetic types, std::vector of them, std::string, std::monostate (void block
/// functions) and tensors such as xtensor arrays (shape(), data(), R::from_shape). A checkpoint
/// written for one type is never loaded as another: the type name is stored and compared. A
/// `load` that throws makes the block a cache miss: it is computed again, never failed.
template <class T, class Enable = void>
struct checkpoint_traits;

/// Checkpoint form of the values chunkwise encodes itself (arithmetic values, vectors of them,
/// tensors): the bytes of detail::value_codec, the codec MPI transfers use too.
template <class T>
struct checkpoint_traits<T, std::enable_if_t<detail::value_codec<T>::raw>> {
    /// "float64", "vector<int32>", "tensor<float32,3>", ...
    static std::string type_name() { return detail::value_codec<T>::type_name(); }
    /// Appends the value's bytes.
    static void save(const T& v, std::string& out) { detail::value_codec<T>::to_bytes(v, out); }
    /// The value saved in `bytes`. \throws detail::codec_error ("[chunkwise.checkpoint] ...") if
    /// they do not hold one
    static T load(std::string_view bytes) {
        try {
            return detail::value_codec<T>::from_bytes(bytes);
        } catch (const detail::codec_error& e) {
            throw detail::codec_error("[chunkwise.checkpoint] a checkpoint of " + type_name() + " " + e.what());
        }
    }
};

/// Checkpoint form of a type that writes its own bytes (byte_codable: the statistics of
/// <chunkwise/accumulate.hpp>, or your type with type_name, save_bytes and load_bytes).
template <class T>
struct checkpoint_traits<T, std::enable_if_t<byte_codable<T> && !detail::value_codec<T>::raw>> {
    /// T::type_name().
    static std::string type_name() { return T::type_name(); }
    /// T's save_bytes.
    static void save(const T& v, std::string& out) { v.save_bytes(out); }
    /// T::load_bytes. \throws what it throws on bytes that are not a T
    static T load(std::string_view bytes) { return T::load_bytes(bytes); }
};

/// Checkpoint form of a std::string: its bytes.
template <>
struct checkpoint_traits<std::string> {
    static std::string type_name() { return "string"; }                             ///< "string"
    static void save(const std::string& v, std::string& out) { out += v; }          ///< appends the bytes
    static std::string load(std::string_view bytes) { return std::string(bytes); }  ///< the bytes
};

/// Checkpoint form of a block whose function returns void (std::monostate): no bytes.
template <>
struct checkpoint_traits<std::monostate> {
    static std::string type_name() { return "none"; }         ///< "none"
    static void save(const std::monostate&, std::string&) {}  ///< writes nothing
    /// \throws chunkwise::checkpoint_error if the file holds data
    static std::monostate load(std::string_view bytes) {
        if (!bytes.empty()) throw checkpoint_error("[chunkwise.checkpoint] a checkpoint of a void block holds data");
        return {};
    }
};

/// A type with a usable checkpoint_traits specialization.
template <class T>
concept checkpointable = requires(const T& v, std::string& out, std::string_view in) {
    { checkpoint_traits<T>::type_name() } -> std::convertible_to<std::string>;
    checkpoint_traits<T>::save(v, out);
    { checkpoint_traits<T>::load(in) } -> std::convertible_to<T>;
};

}  // namespace chunkwise
