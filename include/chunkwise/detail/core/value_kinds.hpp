#pragma once
// Internal: the kinds of result values chunkwise moves as raw bytes (between ranks, into
// checkpoints) without knowing their library: arithmetic values, std::vector of them, and
// tensors (anything with shape(), data(), size() and R::from_shape, such as xtensor arrays).
#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::detail {

template <class T>
concept plain_arithmetic = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <class R>
concept arithmetic_vector = requires {
    typename R::value_type;
}
&&plain_arithmetic<typename R::value_type>&&
    std::same_as<R, std::vector<typename R::value_type, typename R::allocator_type>>;

template <class R>
concept arithmetic_tensor = !arithmetic_vector<R> && requires(const R& r) {
    typename R::value_type;
    typename R::shape_type;
    {r.shape()};
    { r.data() } -> std::convertible_to<const typename R::value_type*>;
    { r.size() } -> std::convertible_to<std::size_t>;
    { R::from_shape(std::declval<const typename R::shape_type&>()) } -> std::convertible_to<R>;
}
&&plain_arithmetic<typename R::value_type>;

}  // namespace chunkwise::detail
